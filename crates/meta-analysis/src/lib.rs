//! Exact random-effects meta-analysis.
//!
//! Records `(id, yi, vi)` (and moderator columns) in, fitted models out: the pooled
//! random-effects fit, meta-regression, subgroup analysis, Q-profile intervals for the
//! heterogeneity, leave-one-out and Egger's test. No I/O, no JSON, no wasm:
//! every convention is documented in `docs/METHODS.md`.
//!
//! ```
//! use meta_analysis::{fit, FitOptions, Record};
//! let records = vec![
//!     Record::new("a", 0.1, 0.01),
//!     Record::new("b", 0.3, 0.02),
//!     Record::new("c", -0.1, 0.03),
//! ];
//! let model = fit(&records, &FitOptions::default()).unwrap();
//! assert_eq!(model.k, 3);
//! assert!(model.ci_lower < model.estimate && model.estimate < model.ci_upper);
//! ```

pub mod cancel;
mod compare_models;
mod convert_summaries;
mod cumulative;
mod diagnostics;
pub mod distributions;
pub mod effect_sizes;
mod egger;
mod error;
mod estimators;
mod fail_safe;
mod formula;
mod gls;
mod influence;
mod leave_one_out;
mod limits;
mod mantel_haenszel;
pub mod math;
mod meta_regression;
mod model;
mod moderators;
mod multilevel;
mod omission;
mod optimize;
mod passes;
mod pet_peese;
mod peto;
mod proportion;
mod q_profile;
mod quadrature;
mod rank_test;
mod record_weights;
mod records;
pub mod rma_mv;
mod robust;
mod selection;
pub mod solver;
mod special;
mod subgroups;
pub mod transforms;
mod trim_fill;
mod user_weights;
mod vcalc;
mod weighted;

pub use compare_models::{
    compare, comparison_scale, fit_statistics, uni_fit_columns, uni_loglik, wald_btt,
    wald_contrasts, Candidate, Comparison, Contrasts, FitColumns, FitStatistics, Hypothesis,
    LikelihoodRatio, RandomPart, WaldBtt,
};
pub use convert_summaries::{
    fivenum, level_alpha, wald, ConversionError, FiveNumbers, FivenumCase, FivenumEstimate,
    FivenumMethod, SkewnessTest, WaldEstimate, WaldSource, WaldSummary, WaldTransform,
};
pub use cumulative::{cumulative, CumulativeStep};
pub use diagnostics::{baujat, labbe, qq_standardized, radial, DiagnosticPoint, Labbe};
pub use egger::{egger_test, EggerResult, EggerVariant};
pub use error::MetaError;
pub use estimators::Method;
pub use fail_safe::{fail_safe_n, FailSafeN, FailSafeType, MAX_FSN};
pub use formula::{
    collate, r_number, sorted_levels, Formula, ModelMatrix, MAX_FORMULA_LEN, MAX_FORMULA_TERMS,
    MAX_FORMULA_VARIABLES,
};
pub use influence::{influence_diagnostics, influence_diagnostics_with_test, Influence};
pub use leave_one_out::{leave_one_out, LeaveOneOut};
pub use limits::{MAX_ABS_YI, MAX_LEVEL, MAX_VI, MIN_VI};
pub use mantel_haenszel::{
    mantel_haenszel, ChiSquareTest, MantelHaenszel, MhMeasure, Pooled, Table2x2, TableHeterogeneity,
};
pub use meta_regression::{
    meta_regression, meta_regression_columns, meta_regression_design, Btt, Coefficient,
    MetaRegression, Prediction,
};
pub use model::{fit, fit_columns, refit_excluding, Fit, FitOptions, Test};
pub use moderators::{
    levels_of, Moderator, ModeratorColumn, ModeratorValue, Term, ALIAS_TOL, MAX_ABS_MODERATOR,
    MAX_COEFFICIENTS, MAX_LEVELS, MAX_MODERATORS,
};
pub use multilevel::{
    multilevel, multilevel_design, ComponentInterval, Multilevel, MultilevelOptions,
    MultilevelTest, Reported, MAX_MULTILEVEL_COST,
};
pub use pet_peese::{
    pet_peese, Alternative, PetPeese, PetPeeseChoice, PetPeeseOptions, PetPeeseRegression,
    PetPeeseSummary, RegressionCoefficient,
};
pub use peto::{peto_odds_ratio, PetoOddsRatio};
pub use proportion::wilson_interval;
pub use q_profile::{
    heterogeneity_intervals, Bound, BoundKind, HeterogeneityEstimates, HeterogeneityIntervals,
    Interval, TAU2_SEARCH_MAX,
};
pub use rank_test::{rank_correlation_test, RankTest, EXACT_BELOW};
pub use record_weights::{record_weights, RecordWeights};
pub use records::{record_intervals, sort_ids, validate_records, IdSet, Record, MAX_RECORDS};
pub use robust::{
    robust_fit, robust_meta_regression, robust_meta_regression_design, robust_multilevel,
    robust_multilevel_design, robust_rma_mv, HtzWald, RobustCoefficient, RobustTest, RobustVcov,
    RobustWald, MAX_CLUSTER_COST, MAX_CLUSTER_RECORDS,
};
pub use selection::{
    selection_model, selection_steps, SelectionModel, SelectionWeight, DEFAULT_STEPS, MAX_DELTA,
    MAX_SELECTION_ITERATIONS,
};
pub use subgroups::{subgroup_analysis, Subgroup, SubgroupAnalysis, SubgroupFit};
pub use transforms::{measure_scale, MeasureScale, Natural, Transform, TransformKind, MEASURES};
pub use trim_fill::{
    trim_and_fill, Estimator, FilledRecord, Side, TrimAndFill, TrimAndFillSummary, MAX_ITERATIONS,
};
pub use user_weights::{
    fit_weighted, meta_regression_design_weighted, meta_regression_weighted, WeightError,
    WeightedError,
};
pub use vcalc::{vcalc, LevelCorrelation, VBlock, VcalcInput};

/// The engine version, reported with every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
