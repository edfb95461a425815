//! Effect sizes from study-level raw data, by the names and with the formulas and defaults
//! of metafor 3.8-1's `escalc` (Viechtbauer 2010): means and SDs of two groups (`MD`,
//! `SMD`, `ROM`), 2×2 tables (`OR`, `RR`, `RD`), correlations (`COR`, `ZCOR`) and single
//! proportions (`PR`, `PLO`). `docs/METHODS.md` states every formula.
//!
//! Each row of raw data is a value per [`Column`] (or none). [`escalc`] computes every
//! row, and a row that cannot give an effect size is an [`EffectSizeError`] naming the
//! column at fault: the other rows are still computed.
//!
//! ```
//! use meta_analysis::effect_sizes::{escalc, Column, EscalcOptions, Measure, RawRow};
//! let mut row = RawRow::default();
//! for (column, value) in [
//!     (Column::M1i, 10.0), (Column::Sd1i, 2.0), (Column::N1i, 20.0),
//!     (Column::M2i, 9.0), (Column::Sd2i, 2.0), (Column::N2i, 20.0),
//! ] {
//!     row.set(column, value);
//! }
//! let out = escalc(Measure::Md, &[row], &EscalcOptions::default());
//! let es = out[0].as_ref().unwrap();
//! assert_eq!((es.yi, es.vi), (1.0, 0.4));
//! ```

mod change;
mod correlations;
mod means;
mod proportions;
mod rates;
mod reliability;
mod tables;

use std::fmt;

use crate::limits::{MAX_ABS_YI, MAX_VI, MIN_VI};

/// The measures: each its Rust name, escalc's name, a title, and the columns it reads (every
/// one required, except that a 2×2 table takes either `bi` or `n1i`, `di` or `n2i`).
macro_rules! measures {
    ($($variant:ident $name:literal $family:ident $title:literal [$($column:ident),*];)*) => {
        /// An effect-size measure, named as `escalc`'s `measure` argument.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Measure {
            $(#[doc = $title] $variant,)*
        }

        impl Measure {
            /// Every measure, by family (two groups' means, 2×2 tables, person-time,
            /// correlations, proportions, rates, single groups, change, reliability).
            pub const ALL: [Measure; [$(Measure::$variant),*].len()] = [$(Measure::$variant),*];

            /// `escalc`'s name of the measure.
            pub fn name(self) -> &'static str {
                match self { $(Measure::$variant => $name,)* }
            }

            /// What the measure is, in a few words.
            pub fn title(self) -> &'static str {
                match self { $(Measure::$variant => $title,)* }
            }

            /// The columns the measure reads: every one required, except that a 2×2 table
            /// takes either `bi` or `n1i` (and either `di` or `n2i`), or both when they agree.
            pub fn columns(self) -> &'static [Column] {
                #[allow(unused_imports)]
                use Column::*;
                match self { $(Measure::$variant => &[$($column),*],)* }
            }

            fn family(self) -> Family {
                match self { $(Measure::$variant => Family::$family,)* }
            }
        }
    };
}

/// Groups of measures that read the same columns the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Means,
    Table,
    PersonTime,
    Correlation,
    PartialCorrelation,
    Proportion,
    Rate,
    Single,
    Change,
    Alpha,
    Heterozygosity,
}

measures! {
    Md "MD" Means "raw mean difference" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Smd "SMD" Means "standardized mean difference (Hedges' g)" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Smdh "SMDH" Means "standardized mean difference with heteroscedastic SDs" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Smd1 "SMD1" Means "mean difference standardized by group 2's SD" [M1i, N1i, M2i, Sd2i, N2i];
    Smd1h "SMD1H" Means "mean difference standardized by group 2's SD, heteroscedastic variance" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Rom "ROM" Means "log ratio of means" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Cvr "CVR" Means "log coefficient of variation ratio" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Vr "VR" Means "log variability ratio" [Sd1i, N1i, Sd2i, N2i];
    Rpb "RPB" Means "point-biserial correlation" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Rbis "RBIS" Means "biserial correlation" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    D2orn "D2ORN" Means "log odds ratio from the SMD (normal distributions)" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    D2orl "D2ORL" Means "log odds ratio from the SMD (logistic distributions)" [M1i, Sd1i, N1i, M2i, Sd2i, N2i];
    Or "OR" Table "log odds ratio" [Ai, Bi, Ci, Di, N1i, N2i];
    Rr "RR" Table "log risk ratio" [Ai, Bi, Ci, Di, N1i, N2i];
    Rd "RD" Table "risk difference" [Ai, Bi, Ci, Di, N1i, N2i];
    As "AS" Table "arcsine square root risk difference" [Ai, Bi, Ci, Di, N1i, N2i];
    Peto "PETO" Table "log odds ratio by Peto's method" [Ai, Bi, Ci, Di, N1i, N2i];
    Phi "PHI" Table "phi coefficient" [Ai, Bi, Ci, Di, N1i, N2i];
    Yuq "YUQ" Table "Yule's Q" [Ai, Bi, Ci, Di, N1i, N2i];
    Yuy "YUY" Table "Yule's Y" [Ai, Bi, Ci, Di, N1i, N2i];
    Rtet "RTET" Table "tetrachoric correlation" [Ai, Bi, Ci, Di, N1i, N2i];
    Pbit "PBIT" Table "probit difference (an SMD)" [Ai, Bi, Ci, Di, N1i, N2i];
    Or2dn "OR2DN" Table "SMD from the log odds ratio (normal distributions)" [Ai, Bi, Ci, Di, N1i, N2i];
    Or2dl "OR2DL" Table "SMD from the log odds ratio (logistic distributions)" [Ai, Bi, Ci, Di, N1i, N2i];
    Mprd "MPRD" Table "risk difference of matched pairs" [Ai, Bi, Ci, Di, N1i, N2i];
    Mprr "MPRR" Table "log risk ratio of matched pairs" [Ai, Bi, Ci, Di, N1i, N2i];
    Mpor "MPOR" Table "log odds ratio of matched pairs (marginal)" [Ai, Bi, Ci, Di, N1i, N2i];
    Mporc "MPORC" Table "log odds ratio of matched pairs (conditional)" [Ai, Bi, Ci, Di, N1i, N2i];
    Mppeto "MPPETO" Table "log odds ratio of matched pairs by Peto's method" [Ai, Bi, Ci, Di, N1i, N2i];
    Irr "IRR" PersonTime "log incidence rate ratio" [X1i, T1i, X2i, T2i];
    Ird "IRD" PersonTime "incidence rate difference" [X1i, T1i, X2i, T2i];
    Irsd "IRSD" PersonTime "square root incidence rate difference" [X1i, T1i, X2i, T2i];
    Cor "COR" Correlation "raw correlation coefficient" [Ri, Ni];
    Ucor "UCOR" Correlation "unbiased correlation coefficient (Olkin & Pratt)" [Ri, Ni];
    Zcor "ZCOR" Correlation "Fisher's z-transformed correlation" [Ri, Ni];
    Pcor "PCOR" PartialCorrelation "partial correlation" [Ti, Ni, Mi];
    Zpcor "ZPCOR" PartialCorrelation "Fisher's z-transformed partial correlation" [Ti, Ni, Mi];
    Spcor "SPCOR" PartialCorrelation "semi-partial correlation" [Ti, Ni, Mi, R2i];
    Pr "PR" Proportion "raw proportion" [Xi, Ni];
    Pln "PLN" Proportion "log proportion" [Xi, Ni];
    Plo "PLO" Proportion "logit-transformed proportion" [Xi, Ni];
    Pas "PAS" Proportion "arcsine square root proportion" [Xi, Ni];
    Pft "PFT" Proportion "Freeman-Tukey double arcsine proportion" [Xi, Ni];
    Ir "IR" Rate "incidence rate" [Xi, Ti];
    Irln "IRLN" Rate "log incidence rate" [Xi, Ti];
    Irs "IRS" Rate "square root incidence rate" [Xi, Ti];
    Irft "IRFT" Rate "Freeman-Tukey incidence rate" [Xi, Ti];
    Mn "MN" Single "raw mean" [Mi, Sdi, Ni];
    Mnln "MNLN" Single "log mean" [Mi, Sdi, Ni];
    Cvln "CVLN" Single "log coefficient of variation" [Mi, Sdi, Ni];
    Sdln "SDLN" Single "log standard deviation" [Sdi, Ni];
    Smn "SMN" Single "standardized mean" [Mi, Sdi, Ni];
    Mc "MC" Change "raw mean change" [M1i, M2i, Sd1i, Sd2i, Ni, Ri];
    Smcc "SMCC" Change "standardized mean change (change-score SD)" [M1i, M2i, Sd1i, Sd2i, Ni, Ri];
    Smcr "SMCR" Change "standardized mean change (raw-score SD)" [M1i, M2i, Sd1i, Ni, Ri];
    Smcrh "SMCRH" Change "standardized mean change (raw-score SD, heteroscedastic)" [M1i, M2i, Sd1i, Sd2i, Ni, Ri];
    Romc "ROMC" Change "log ratio of means, paired" [M1i, M2i, Sd1i, Sd2i, Ni, Ri];
    Cvrc "CVRC" Change "log coefficient of variation ratio, paired" [M1i, M2i, Sd1i, Sd2i, Ni, Ri];
    Vrc "VRC" Change "log variability ratio, paired" [Sd1i, Sd2i, Ni, Ri];
    Araw "ARAW" Alpha "raw Cronbach's alpha" [Ai, Mi, Ni];
    Ahw "AHW" Alpha "transformed alpha (Hakstian & Whalen)" [Ai, Mi, Ni];
    Abt "ABT" Alpha "transformed alpha (Bonett)" [Ai, Mi, Ni];
    Reh "REH" Heterozygosity "log relative excess heterozygosity" [Ai, Bi, Ci];
}

/// A column of raw data, named as `escalc`'s arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Column {
    M1i,
    Sd1i,
    N1i,
    M2i,
    Sd2i,
    N2i,
    Ai,
    Bi,
    Ci,
    Di,
    Ri,
    Ni,
    Xi,
    Mi,
    Sdi,
    Ti,
    R2i,
    X1i,
    X2i,
    T1i,
    T2i,
}

impl Column {
    pub const ALL: [Column; 21] = [
        Column::M1i,
        Column::Sd1i,
        Column::N1i,
        Column::M2i,
        Column::Sd2i,
        Column::N2i,
        Column::Ai,
        Column::Bi,
        Column::Ci,
        Column::Di,
        Column::Ri,
        Column::Ni,
        Column::Xi,
        Column::Mi,
        Column::Sdi,
        Column::Ti,
        Column::R2i,
        Column::X1i,
        Column::X2i,
        Column::T1i,
        Column::T2i,
    ];

    /// The name `escalc` gives the argument (and a CSV column for it).
    pub fn name(self) -> &'static str {
        match self {
            Column::M1i => "m1i",
            Column::Sd1i => "sd1i",
            Column::N1i => "n1i",
            Column::M2i => "m2i",
            Column::Sd2i => "sd2i",
            Column::N2i => "n2i",
            Column::Ai => "ai",
            Column::Bi => "bi",
            Column::Ci => "ci",
            Column::Di => "di",
            Column::Ri => "ri",
            Column::Ni => "ni",
            Column::Xi => "xi",
            Column::Mi => "mi",
            Column::Sdi => "sdi",
            Column::Ti => "ti",
            Column::R2i => "r2i",
            Column::X1i => "x1i",
            Column::X2i => "x2i",
            Column::T1i => "t1i",
            Column::T2i => "t2i",
        }
    }

    /// The column named `name` (exactly, as [`Column::name`] gives it).
    pub fn parse(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name() == name)
    }

    /// What the column holds, for a person choosing it (some columns mean different things
    /// for different measures, as escalc's arguments do).
    pub fn description(self) -> &'static str {
        match self {
            Column::M1i => "mean of group 1",
            Column::Sd1i => "standard deviation of group 1",
            Column::N1i => "size of group 1",
            Column::M2i => "mean of group 2",
            Column::Sd2i => "standard deviation of group 2",
            Column::N2i => "size of group 2",
            Column::Ai => "events in group 1 (2×2 table, upper left cell); alpha for ARAW, AHW, ABT; homozygotes for REH",
            Column::Bi => "non-events in group 1 (upper right cell; or give n1i)",
            Column::Ci => "events in group 2 (lower left cell)",
            Column::Di => "non-events in group 2 (lower right cell; or give n2i)",
            Column::Ri => "correlation coefficient",
            Column::Ni => "sample size",
            Column::Xi => "number of events (individuals with the characteristic)",
            Column::Mi => "mean (MN, MNLN, CVLN, SMN); predictors (PCOR, ZPCOR, SPCOR); items (ARAW, AHW, ABT)",
            Column::Sdi => "standard deviation",
            Column::Ti => "person-time (IR, IRLN, IRS, IRFT); t statistic (PCOR, ZPCOR, SPCOR)",
            Column::R2i => "R² of the regression model",
            Column::X1i => "events in group 1",
            Column::X2i => "events in group 2",
            Column::T1i => "person-time of group 1",
            Column::T2i => "person-time of group 2",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Measure {
    /// The measure named `name` (exactly, as [`Measure::name`] gives it).
    pub fn parse(name: &str) -> Option<Measure> {
        Measure::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether `column` may be left out when its alternative is given (`bi` for `n1i`,
    /// `di` for `n2i` and back, in a 2×2 table).
    pub fn alternative(self, column: Column) -> Option<Column> {
        if !self.is_table() {
            return None;
        }
        match column {
            Column::Bi => Some(Column::N1i),
            Column::N1i => Some(Column::Bi),
            Column::Di => Some(Column::N2i),
            Column::N2i => Some(Column::Di),
            _ => None,
        }
    }

    /// Whether the continuity correction (`add`, `to`) applies: 2×2 tables, person-time
    /// data, proportions and incidence rates.
    pub fn uses_correction(self) -> bool {
        matches!(
            self.family(),
            Family::Table | Family::PersonTime | Family::Proportion | Family::Rate
        )
    }

    /// Whether `drop00` applies: 2×2 tables and two groups' person-time.
    pub fn uses_drop00(self) -> bool {
        matches!(self.family(), Family::Table | Family::PersonTime)
    }

    /// escalc's `add` when none is given: 0 for AS, PHI, RTET, IRSD, PAS, PFT, IRS and IRFT
    /// (whose transforms are defined at 0), else 1/2.
    pub fn default_add(self) -> f64 {
        match self {
            Measure::As
            | Measure::Phi
            | Measure::Rtet
            | Measure::Irsd
            | Measure::Pas
            | Measure::Pft
            | Measure::Irs
            | Measure::Irft => 0.0,
            _ => 0.5,
        }
    }

    /// The `vtype`s the measure offers (its first is "LS", the default), or `None` when
    /// escalc ignores `vtype` for it.
    pub fn vtypes(self) -> Option<&'static [Vtype]> {
        use Vtype::*;
        match self {
            Measure::Rd | Measure::Pr | Measure::Ucor => Some(&[Ls, Ub, Av]),
            Measure::Phi | Measure::Rpb => Some(&[Ls, St, Cs]),
            Measure::Md => Some(&[Ls, Ub, Ho]),
            Measure::Smd | Measure::Smd1 => Some(&[Ls, Ub, Ls2, Av]),
            Measure::Smdh | Measure::Smcc | Measure::Smcr => Some(&[Ls, Ls2]),
            Measure::Rom => Some(&[Ls, Ho, Av, Avho]),
            Measure::Cor | Measure::Pcor | Measure::Spcor | Measure::Pln | Measure::Plo => {
                Some(&[Ls, Av])
            }
            // escalc refuses only "UB" for Fisher's z.
            Measure::Zcor => Some(&[Ls, Ls2, Ho, St, Cs, Av, Avho]),
            _ => None,
        }
    }

    fn is_table(self) -> bool {
        self.family() == Family::Table
    }
}

/// escalc's `vtype`: which estimate of the sampling variance (default "LS", the large-sample
/// approximation; the others as [`Measure::vtypes`] offers them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Vtype {
    /// The large-sample approximation.
    #[default]
    Ls,
    /// A second large-sample approximation (SMD: of g itself; SMDH: Bonett's).
    Ls2,
    /// The unbiased estimate.
    Ub,
    /// Under homoscedasticity (MD, ROM: the pooled SD).
    Ho,
    /// Under stratified sampling (PHI, RPB).
    St,
    /// Under cross-sectional sampling (PHI, RPB).
    Cs,
    /// With the sample-size-weighted average effect in place of each row's.
    Av,
    /// ROM: the weighted average coefficient of variation of both groups.
    Avho,
}

impl Vtype {
    pub const ALL: [Vtype; 8] = [
        Vtype::Ls,
        Vtype::Ls2,
        Vtype::Ub,
        Vtype::Ho,
        Vtype::St,
        Vtype::Cs,
        Vtype::Av,
        Vtype::Avho,
    ];

    /// escalc's name ("LS", "UB", ...).
    pub fn name(self) -> &'static str {
        match self {
            Vtype::Ls => "LS",
            Vtype::Ls2 => "LS2",
            Vtype::Ub => "UB",
            Vtype::Ho => "HO",
            Vtype::St => "ST",
            Vtype::Cs => "CS",
            Vtype::Av => "AV",
            Vtype::Avho => "AVHO",
        }
    }

    pub fn parse(name: &str) -> Option<Vtype> {
        Vtype::ALL.into_iter().find(|v| v.name() == name)
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `escalc`'s `to`: which rows get `add` added to each cell of their table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AddTo {
    /// Every row.
    All,
    /// Only the rows whose table has a cell equal to 0 (the default).
    #[default]
    Only0,
    /// Every row, if any row's table has a cell equal to 0.
    If0All,
    /// No row.
    None,
}

impl AddTo {
    pub const ALL: [AddTo; 4] = [AddTo::All, AddTo::Only0, AddTo::If0All, AddTo::None];

    /// `escalc`'s name: "all", "only0", "if0all" or "none".
    pub fn name(self) -> &'static str {
        match self {
            AddTo::All => "all",
            AddTo::Only0 => "only0",
            AddTo::If0All => "if0all",
            AddTo::None => "none",
        }
    }

    pub fn parse(name: &str) -> Option<AddTo> {
        AddTo::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// `escalc`'s continuity correction for 2×2 tables and proportions. The defaults are
/// escalc's: `add = 1/2`, `to = "only0"` (and `drop00 = FALSE`: a table with no events, or
/// only events, in both groups is kept and corrected like any table with a zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EscalcOptions {
    /// The amount added to each cell of a corrected table (≥ 0).
    pub add: f64,
    pub to: AddTo,
}

impl Default for EscalcOptions {
    fn default() -> Self {
        EscalcOptions {
            add: 0.5,
            to: AddTo::Only0,
        }
    }
}

/// Every setting of `escalc` the engine follows: `add` (`None`: the measure's default,
/// [`Measure::default_add`]), `to`, `drop00` and `vtype`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settings {
    pub add: Option<f64>,
    pub to: AddTo,
    /// Leave out (as escalc gives NA) a table with no events or only events in both groups
    /// (person-time: no events in both), rather than correcting it.
    pub drop00: bool,
    pub vtype: Vtype,
}

impl From<&EscalcOptions> for Settings {
    fn from(options: &EscalcOptions) -> Settings {
        Settings {
            add: Some(options.add),
            to: options.to,
            ..Settings::default()
        }
    }
}

/// One row's raw data: a value for each column given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawRow {
    values: [Option<f64>; Column::ALL.len()],
}

impl RawRow {
    pub fn set(&mut self, column: Column, value: f64) {
        self.values[column.index()] = Some(value);
    }

    pub fn get(&self, column: Column) -> Option<f64> {
        self.values[column.index()]
    }

    /// The value of a column the measure needs: present and finite.
    fn required(&self, column: Column) -> Result<f64, EffectSizeError> {
        let value = self
            .get(column)
            .ok_or(EffectSizeError::Missing { column })?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(EffectSizeError::NotFinite { column, value })
        }
    }

    /// A required value ≥ 0 (a count, an SD).
    fn nonnegative(&self, column: Column) -> Result<f64, EffectSizeError> {
        let value = self.required(column)?;
        if value < 0.0 {
            return Err(EffectSizeError::Negative { column, value });
        }
        Ok(value)
    }

    /// A required value > 0 (a sample size, a person-time).
    fn positive(&self, column: Column, why: &'static str) -> Result<f64, EffectSizeError> {
        let value = self.required(column)?;
        if value <= 0.0 {
            return Err(EffectSizeError::TooSmall {
                column,
                value,
                needed: "more than 0",
                why,
            });
        }
        Ok(value)
    }

    /// A required correlation in [−1, 1].
    fn correlation(&self, column: Column) -> Result<f64, EffectSizeError> {
        let value = self.required(column)?;
        if !(-1.0..=1.0).contains(&value) {
            return Err(EffectSizeError::OutOfRange { column, value });
        }
        Ok(value)
    }
}

/// A row's effect size `yi` and its sampling variance `vi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectSize {
    pub yi: f64,
    pub vi: f64,
}

impl EffectSize {
    /// The effect size when an analysis can take it as a record: |yi| ≤ [`MAX_ABS_YI`] and
    /// [`MIN_VI`] ≤ vi ≤ [`MAX_VI`], the bounds [`crate::validate_records`] holds every fit
    /// to. escalc returns such a row (counts of 10¹⁵ give a proportion's vi of 10⁻³⁰, SDs of
    /// 10¹⁵⁰ a mean difference's vi of 10³⁰⁰), but every fit would refuse it; the records a
    /// tool makes leave it out with this error as its reason, as they do a row escalc gives NA.
    pub fn analysable(self) -> Result<EffectSize, EffectSizeError> {
        if self.yi.abs() > MAX_ABS_YI {
            return Err(EffectSizeError::BeyondAnalysisRange {
                field: "yi",
                value: self.yi,
            });
        }
        if !(MIN_VI..=MAX_VI).contains(&self.vi) {
            return Err(EffectSizeError::BeyondAnalysisRange {
                field: "vi",
                value: self.vi,
            });
        }
        Ok(self)
    }
}

/// Why a row gives no effect size; each names the column at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum EffectSizeError {
    /// The measure needs this column and the row has no value in it.
    Missing { column: Column },
    /// A 2×2 table needs `bi` or `n1i` (`di` or `n2i`), and the row has neither.
    MissingEither { column: Column, or: Column },
    /// The value is NaN or infinite.
    NotFinite { column: Column, value: f64 },
    /// A standard deviation or a count below 0.
    Negative { column: Column, value: f64 },
    /// A group or sample size too small for the measure.
    TooSmall {
        column: Column,
        value: f64,
        /// e.g. "at least 1", "more than 3"
        needed: &'static str,
        why: &'static str,
    },
    /// A count above the size of its group.
    AboveN {
        column: Column,
        value: f64,
        n_column: Column,
        n: f64,
    },
    /// `n1i` given with `bi` (or `n2i` with `di`) and not equal to `ai + bi` (`ci + di`).
    Inconsistent {
        column: Column,
        value: f64,
        sum: f64,
        of: (Column, Column),
    },
    /// A correlation outside [−1, 1].
    OutOfRange { column: Column, value: f64 },
    /// A value for which the measure is undefined (a mean ≤ 0 for a log ratio, r = ±1 for
    /// Fisher's z, a zero cell with no continuity correction, SDs that are both 0, …).
    Undefined { column: Column, reason: String },
    /// `add` is negative or not finite.
    InvalidAdd { add: f64 },
    /// The measure does not offer this `vtype`.
    InvalidVtype { measure: Measure, vtype: Vtype },
    /// `yi` or `vi` (`field`) computed but outside what every analysis accepts
    /// ([`EffectSize::analysable`]).
    BeyondAnalysisRange { field: &'static str, value: f64 },
    /// The caller gave the computation up ([`crate::cancel`]); nobody reads this answer.
    Cancelled,
}

impl EffectSizeError {
    /// The column at fault (none for an invalid `add`, which concerns every row).
    pub fn column(&self) -> Option<Column> {
        match self {
            EffectSizeError::Missing { column }
            | EffectSizeError::MissingEither { column, .. }
            | EffectSizeError::NotFinite { column, .. }
            | EffectSizeError::Negative { column, .. }
            | EffectSizeError::TooSmall { column, .. }
            | EffectSizeError::AboveN { column, .. }
            | EffectSizeError::Inconsistent { column, .. }
            | EffectSizeError::OutOfRange { column, .. }
            | EffectSizeError::Undefined { column, .. } => Some(*column),
            EffectSizeError::InvalidAdd { .. }
            | EffectSizeError::InvalidVtype { .. }
            | EffectSizeError::BeyondAnalysisRange { .. }
            | EffectSizeError::Cancelled => None,
        }
    }
}

impl fmt::Display for EffectSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EffectSizeError::Missing { column } => {
                write!(f, "{column} is missing ({})", column.description())
            }
            EffectSizeError::MissingEither { column, or } => write!(
                f,
                "{column} is missing: give {column} ({}) or {or} ({})",
                column.description(),
                or.description()
            ),
            EffectSizeError::NotFinite { column, value } => {
                write!(f, "{column} is {}, not a finite number", Shown(*value))
            }
            EffectSizeError::Negative { column, value } => {
                write!(f, "{column} is {}; it cannot be negative", Shown(*value))
            }
            EffectSizeError::TooSmall {
                column,
                value,
                needed,
                why,
            } => write!(
                f,
                "{column} is {}; it must be {needed} {why}",
                Shown(*value)
            ),
            EffectSizeError::AboveN {
                column,
                value,
                n_column,
                n,
            } => write!(
                f,
                "{column} is {}, more than {n_column} = {}; a count cannot exceed its group's size",
                Shown(*value),
                Shown(*n)
            ),
            EffectSizeError::Inconsistent {
                column,
                value,
                sum,
                of: (a, b),
            } => write!(
                f,
                "{column} is {}, but {a} + {b} = {}; give one of them or make them agree",
                Shown(*value),
                Shown(*sum)
            ),
            EffectSizeError::OutOfRange { column, value } => {
                write!(
                    f,
                    "{column} is {}; a correlation must lie in [-1, 1]",
                    Shown(*value)
                )
            }
            EffectSizeError::Undefined { column, reason } => write!(f, "{column}: {reason}"),
            EffectSizeError::InvalidAdd { add } => write!(
                f,
                "add is {}; the continuity correction must be a finite number >= 0",
                Shown(*add)
            ),
            EffectSizeError::BeyondAnalysisRange { field: "yi", value } => write!(
                f,
                "yi is {}, beyond ±{MAX_ABS_YI:e}, the largest effect size an analysis accepts",
                Shown(*value)
            ),
            EffectSizeError::BeyondAnalysisRange { field, value } => {
                let (side, bound, which) = if *value < MIN_VI {
                    ("below", MIN_VI, "smallest")
                } else {
                    ("above", MAX_VI, "largest")
                };
                write!(
                    f,
                    "{field} is {}, {side} {bound:e}, the {which} sampling variance an analysis \
                     accepts",
                    Shown(*value)
                )
            }
            EffectSizeError::InvalidVtype { measure, vtype } => {
                let offered: Vec<&str> = measure
                    .vtypes()
                    .unwrap_or_default()
                    .iter()
                    .map(|v| v.name())
                    .collect();
                write!(
                    f,
                    "vtype {:?} does not apply to {measure}; it takes {}",
                    vtype.name(),
                    offered.join(", ")
                )
            }
            EffectSizeError::Cancelled => write!(f, "{}", crate::MetaError::Cancelled),
        }
    }
}

impl std::error::Error for EffectSizeError {}

/// A number as a message shows it: as JSON and R write it (`5e-324`, `-1e-300`, `0.5`, `12`),
/// not as Rust's `Display` does (5e-324 as 0.000… with 323 zeros).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shown(pub f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_finite() && x == x.trunc() && x.abs() < 1e16 {
            write!(f, "{x}")
        } else {
            write!(f, "{x:?}")
        }
    }
}

/// The effect size of every row, in order: `escalc(measure, …)` with `add` and `to` as given
/// and vtype "LS" (its default). `to = "if0all"` looks at every row's table, so the rows are
/// computed together.
pub fn escalc(
    measure: Measure,
    rows: &[RawRow],
    options: &EscalcOptions,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    escalc_with(measure, rows, &Settings::from(options))
}

/// The effect size of every row, in order, with every setting of `escalc` ([`Settings`]).
/// A `vtype` that averages over rows ("AV", "AVHO") and `to = "if0all"` look at every row.
pub fn escalc_with(
    measure: Measure,
    rows: &[RawRow],
    settings: &Settings,
) -> Vec<Result<EffectSize, EffectSizeError>> {
    let refuse = |e: EffectSizeError| rows.iter().map(|_| Err(e.clone())).collect();
    let add = settings.add.unwrap_or(measure.default_add());
    if !(add.is_finite() && add >= 0.0) && measure.uses_correction() {
        return refuse(EffectSizeError::InvalidAdd { add });
    }
    let vtype = settings.vtype;
    if let Some(offered) = measure.vtypes() {
        if !offered.contains(&vtype) {
            return refuse(EffectSizeError::InvalidVtype { measure, vtype });
        }
    }
    let correction = Correction {
        add,
        to: settings.to,
        drop00: settings.drop00 && measure.uses_drop00(),
    };
    match measure.family() {
        Family::Means => means::compute(measure, rows, vtype),
        Family::Table => tables::compute(measure, rows, &correction, vtype),
        Family::PersonTime => rates::compute_two_groups(measure, rows, &correction),
        Family::Correlation | Family::PartialCorrelation => {
            correlations::compute(measure, rows, vtype)
        }
        Family::Proportion => proportions::compute(measure, rows, &correction, vtype),
        Family::Rate => rates::compute_single(measure, rows, &correction),
        Family::Single => change::compute_single(measure, rows),
        Family::Change => change::compute_change(measure, rows, vtype),
        Family::Alpha | Family::Heterozygosity => reliability::compute(measure, rows),
    }
}

/// The continuity correction a call applies: `add` (the measure's default resolved), `to`,
/// and `drop00` where the measure has it.
#[derive(Debug, Clone, Copy)]
struct Correction {
    add: f64,
    to: AddTo,
    drop00: bool,
}

impl Correction {
    /// What is added to the cells of a row whose cells have a zero (`has_zero`), when some
    /// row of the data does (`any_zero`).
    fn add_for(&self, has_zero: bool, any_zero: bool) -> f64 {
        if corrected(self.to, has_zero, any_zero) {
            self.add
        } else {
            0.0
        }
    }
}

/// metafor's `.wmean(x, w, na.rm = TRUE)`: Σ x·w / Σ w over the rows where both are
/// numbers (here: the rows computed).
fn weighted_mean(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut xw, mut w) = (0.0, 0.0);
    for (x, weight) in pairs.filter(|(x, weight)| !x.is_nan() && !weight.is_nan()) {
        xw += x * weight;
        w += weight;
    }
    xw / w
}

/// metafor's `.cmicalc(m)`: the exact bias correction Γ(m/2)/(√(m/2)·Γ((m − 1)/2)) (NaN for
/// m ≤ 1, where escalc gives NA).
fn cmi(m: f64) -> f64 {
    if m <= 1.0 {
        f64::NAN
    } else {
        means::bias_correction(m)
    }
}

/// Whether a row's cells get `add`: `to` applied to whether its table (and any table of
/// the data) has a zero cell.
fn corrected(to: AddTo, has_zero: bool, any_zero: bool) -> bool {
    match to {
        AddTo::All => true,
        AddTo::Only0 => has_zero,
        AddTo::If0All => any_zero,
        AddTo::None => false,
    }
}

/// The result for one row: `yi` and `vi` finite and `vi > 0`, or an error naming `column`
/// (the column whose value made it undefined).
fn finish(yi: f64, vi: f64, column: Column, what: &str) -> Result<EffectSize, EffectSizeError> {
    if !yi.is_finite() {
        return Err(EffectSizeError::Undefined {
            column,
            reason: format!("the {what} is not finite (yi = {})", Shown(yi)),
        });
    }
    // vi = 0 is escalc's own answer (a proportion of 0 or 1 without a correction, an alpha
    // of 1, ...): returned as escalc returns it; the analyses refuse such a record by name.
    if !(vi.is_finite() && vi >= 0.0) {
        return Err(EffectSizeError::Undefined {
            column,
            reason: format!(
                "the sampling variance of the {what} is {}, not a number >= 0",
                Shown(vi)
            ),
        });
    }
    Ok(EffectSize { yi, vi })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[(Column, f64)]) -> RawRow {
        let mut row = RawRow::default();
        for &(c, v) in values {
            row.set(c, v);
        }
        row
    }

    #[test]
    fn names_parse_back() {
        for m in Measure::ALL {
            assert_eq!(Measure::parse(m.name()), Some(m));
        }
        for c in Column::ALL {
            assert_eq!(Column::parse(c.name()), Some(c));
        }
        for t in AddTo::ALL {
            assert_eq!(AddTo::parse(t.name()), Some(t));
        }
        assert_eq!(Measure::parse("smd"), None);
    }

    #[test]
    fn a_negative_add_is_refused_for_every_row() {
        let r = row(&[(Column::Xi, 1.0), (Column::Ni, 10.0)]);
        let out = escalc(
            Measure::Pr,
            &[r.clone(), r],
            &EscalcOptions {
                add: -0.5,
                to: AddTo::All,
            },
        );
        assert!(out
            .iter()
            .all(|o| matches!(o, Err(EffectSizeError::InvalidAdd { .. }))));
    }

    #[test]
    fn if0all_corrects_every_row_when_one_has_a_zero() {
        let with_zero = row(&[
            (Column::Ai, 0.0),
            (Column::Bi, 10.0),
            (Column::Ci, 3.0),
            (Column::Di, 7.0),
        ]);
        let plain = row(&[
            (Column::Ai, 2.0),
            (Column::Bi, 8.0),
            (Column::Ci, 3.0),
            (Column::Di, 7.0),
        ]);
        let if0all = EscalcOptions {
            add: 0.5,
            to: AddTo::If0All,
        };
        let alone = escalc(Measure::Or, std::slice::from_ref(&plain), &if0all)[0]
            .clone()
            .unwrap();
        let together = escalc(Measure::Or, &[with_zero, plain], &if0all)[1]
            .clone()
            .unwrap();
        assert_eq!(alone.vi, 1.0 / 2.0 + 1.0 / 8.0 + 1.0 / 3.0 + 1.0 / 7.0);
        assert_eq!(together.vi, 1.0 / 2.5 + 1.0 / 8.5 + 1.0 / 3.5 + 1.0 / 7.5);
    }

    #[test]
    fn errors_name_their_column() {
        let e = escalc(
            Measure::Smd,
            &[row(&[(Column::M1i, 1.0)])],
            &EscalcOptions::default(),
        );
        let e = e[0].clone().unwrap_err();
        assert_eq!(e.column(), Some(Column::Sd1i));
        assert_eq!(
            e.to_string(),
            "sd1i is missing (standard deviation of group 1)"
        );
    }

    #[test]
    fn each_bad_row_names_its_column() {
        use Column::*;
        let means = |sd1: f64, n1: f64, m1: f64| {
            row(&[
                (M1i, m1),
                (Sd1i, sd1),
                (N1i, n1),
                (M2i, 1.0),
                (Sd2i, 1.0),
                (N2i, 5.0),
            ])
        };
        let cases: Vec<(Measure, RawRow, Column, &str)> = vec![
            (Measure::Md, row(&[(M1i, 1.0)]), Sd1i, "sd1i is missing"),
            (
                Measure::Md,
                means(-1.0, 5.0, 1.0),
                Sd1i,
                "cannot be negative",
            ),
            (
                Measure::Smd,
                means(1.0, 0.0, 1.0),
                N1i,
                "must be more than 0",
            ),
            (
                Measure::Md,
                means(f64::NAN, 5.0, 1.0),
                Sd1i,
                "not a finite number",
            ),
            (
                Measure::Rom,
                means(1.0, 5.0, -2.0),
                M1i,
                "both means greater than 0",
            ),
            (
                Measure::Smd,
                row(&[
                    (M1i, 1.0),
                    (Sd1i, 0.0),
                    (N1i, 3.0),
                    (M2i, 0.0),
                    (Sd2i, 0.0),
                    (N2i, 3.0),
                ]),
                Sd2i,
                "both 0",
            ),
            (
                Measure::Or,
                row(&[(Ai, 1.0), (Ci, 1.0), (Di, 1.0)]),
                Bi,
                "give bi",
            ),
            (
                Measure::Or,
                row(&[(Ai, 12.0), (N1i, 10.0), (Ci, 1.0), (Di, 1.0)]),
                Ai,
                "more than n1i = 10",
            ),
            (
                Measure::Rr,
                row(&[(Ai, -1.0), (Bi, 3.0), (Ci, 1.0), (Di, 1.0)]),
                Ai,
                "cannot be negative",
            ),
            (
                Measure::Rd,
                row(&[(Ai, 1.0), (Bi, 3.0), (N1i, 5.0), (Ci, 1.0), (Di, 1.0)]),
                N1i,
                "ai + bi = 4",
            ),
            (
                Measure::Or,
                row(&[(Ai, 0.0), (Bi, 0.0), (Ci, 1.0), (Di, 1.0)]),
                Bi,
                "a group with no one",
            ),
            (
                Measure::Cor,
                row(&[(Ri, 1.2), (Ni, 10.0)]),
                Ri,
                "must lie in [-1, 1]",
            ),
            (
                Measure::Zcor,
                row(&[(Ri, 0.2), (Ni, 3.0)]),
                Ni,
                "more than 3",
            ),
            (
                Measure::Zcor,
                row(&[(Ri, -1.0), (Ni, 30.0)]),
                Ri,
                "no finite Fisher's z",
            ),
            (
                Measure::Pr,
                row(&[(Xi, 11.0), (Ni, 10.0)]),
                Xi,
                "more than ni = 10",
            ),
            (Measure::Plo, row(&[(Xi, 1.0)]), Ni, "ni is missing"),
        ];
        for (measure, r, column, text) in cases {
            let e = escalc(measure, &[r], &EscalcOptions::default())[0]
                .clone()
                .unwrap_err();
            assert_eq!(e.column(), Some(column), "{measure}: {e}");
            assert!(e.to_string().contains(text), "{measure}: {e}");
        }
        let none = EscalcOptions {
            add: 0.5,
            to: AddTo::None,
        };
        let zero = row(&[(Ai, 0.0), (Bi, 10.0), (Ci, 2.0), (Di, 8.0)]);
        let e = escalc(Measure::Or, &[zero], &none)[0].clone().unwrap_err();
        assert_eq!(e.column(), Some(Ai));
        assert!(e.to_string().contains("no continuity correction"), "{e}");
    }

    #[test]
    fn an_effect_size_no_analysis_takes_is_not_analysable() {
        use crate::{validate_records, Record};
        for (yi, vi, says) in [
            (0.1, 1e-30, "vi is 1e-30, below 1e-25, the smallest"),
            (0.1, 1e300, "vi is 1e300, above 1e25, the largest"),
            (-2e25, 0.1, "yi is -2e25, beyond ±1e25"),
        ] {
            let e = EffectSize { yi, vi }.analysable().unwrap_err();
            assert!(e.to_string().starts_with(says), "{e}");
            // The same bounds as every fit's.
            assert!(validate_records(&[Record::new("a", yi, vi)]).is_err());
        }
        for (yi, vi) in [(1e25, 1e-25), (-1e25, 1e25), (0.0, 1.0)] {
            assert!(EffectSize { yi, vi }.analysable().is_ok());
            assert!(validate_records(&[Record::new("a", yi, vi)]).is_ok());
        }
    }
}
