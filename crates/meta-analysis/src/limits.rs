//! The bounds of what an analysis accepts: the range of yi and vi, and the largest
//! confidence level. A module of their own, below the records, the model and the error that
//! names them, so that none of those uses another for a bound.

/// The largest |yi| accepted. With [`MIN_VI`] and [`MAX_VI`] it keeps the per-record terms
/// of the sums a fit forms far inside the range of a double, for up to [`crate::MAX_RECORDS`]
/// records: the largest, wᵢ³rᵢ² in y′PPPy, is at most 10⁷⁵·(2·10²⁵)², and yᵢ⁴ (the squared
/// τ̂² in the standard errors of τ̂²) at most 10¹⁰⁰. Records inside these bounds whose
/// variances span many orders of magnitude can still lose a quantity to cancellation; such
/// a fit is refused naming it ([`crate::MetaError::NonFiniteResult`]). See `docs/METHODS.md`.
pub const MAX_ABS_YI: f64 = 1e25;
/// The smallest vi accepted: the weight powers 1/vᵢ, 1/vᵢ², 1/vᵢ³ stay at most 10⁷⁵.
pub const MIN_VI: f64 = 1e-25;
/// The largest vi accepted: 1/vᵢ³ stays at least 10⁻⁷⁵, far from underflow to 0.
pub const MAX_VI: f64 = 1e25;

/// The largest accepted confidence level, 1 − 2⁻⁵² (0.9999999999999998): for any larger
/// level below 1, (1 + level)/2 rounds to 1 in double precision and the critical value of
/// the intervals is infinite.
pub const MAX_LEVEL: f64 = 1.0 - f64::EPSILON;
