//! Writing R: the small library every tool's R code (`tools/reproduce.rs`, the
//! `Reproducible` trait) is written with. It names no tool.
//!
//! - [`string`]: an R string literal of any text, safe against hostile text (quotes,
//!   backslashes, newlines, controls and non-ASCII are escaped; the literal is pure ASCII).
//! - [`number`]: a double as R reads back the same double (Rust's shortest round-trip
//!   digits, at most 17 significant; `NA`, `NaN`, `Inf`).
//! - [`data_frame`]: a `data.frame(...)` literal of named columns, numeric or text, with
//!   `NA` for a missing value.
//! - [`Script`]: lines of R, with comments that cannot break out of their line.
//! - [`Methods`]: a methods paragraph assembled from fixed sentences and its references.

/// An R string literal holding `text` exactly, written in ASCII: `"` and `\` escaped,
/// newlines and tabs as `\n`, `\r`, `\t`, other controls and every non-ASCII character as
/// `\u{XXXX}` (`\U{XXXXXXXX}` beyond the Basic Multilingual Plane). NUL, which an R string
/// cannot hold, is written as `\u{FFFD}` (the replacement character): [`holds_nul`] lets a
/// caller refuse such text first.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\u{FFFD}"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{{{:04X}}}", c as u32)),
            c => out.push_str(&format!("\\U{{{:08X}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Whether `text` holds NUL, which no R string can.
pub fn holds_nul(text: &str) -> bool {
    text.contains('\0')
}

/// `x` as R reads back the same double: Rust's shortest round-trip digits (at most 17
/// significant), in exponent form outside 1e-5..1e15; `NaN`, `Inf`, `-Inf` as R writes them.
pub fn number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf" } else { "-Inf" }.into();
    }
    let a = x.abs();
    if a != 0.0 && !(1e-5..1e15).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// An optional number: `NA` when absent.
pub fn maybe_number(x: Option<f64>) -> String {
    x.map_or_else(|| "NA".into(), number)
}

/// `c(...)` of strings.
pub fn strings<S: AsRef<str>>(items: &[S]) -> String {
    vector(items.iter().map(|s| string(s.as_ref())))
}

/// `c(...)` of numbers.
pub fn numbers(items: &[f64]) -> String {
    vector(items.iter().map(|&x| number(x)))
}

/// `c(a, b, ...)` of already written R values.
pub fn vector(items: impl IntoIterator<Item = String>) -> String {
    format!("c({})", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// One column of a data frame.
#[derive(Debug, Clone, PartialEq)]
pub enum RColumn {
    /// Numbers, `None` a missing value.
    Numeric(Vec<Option<f64>>),
    /// Text, `None` a missing value.
    Text(Vec<Option<String>>),
}

impl RColumn {
    fn literal(&self) -> String {
        match self {
            RColumn::Numeric(values) => vector(values.iter().map(|v| maybe_number(*v))),
            RColumn::Text(values) => vector(
                values
                    .iter()
                    .map(|v| v.as_deref().map_or_else(|| "NA".into(), string)),
            ),
        }
    }
}

/// `data.frame(name = c(...), ...)`: names written as strings (any text is a valid name
/// then), `check.names = FALSE` so R keeps them, and text kept as text (R 4's default,
/// said for R 3).
pub fn data_frame(columns: &[(String, RColumn)]) -> String {
    let mut out = String::from("data.frame(\n");
    for (name, column) in columns {
        out.push_str(&format!("  {} = {},\n", string(name), column.literal()));
    }
    out.push_str("  check.names = FALSE, stringsAsFactors = FALSE)");
    out
}

/// An R name for column `name`: as is when syntactic, else in backquotes (a backquote or
/// backslash in it escaped), as R's formula and `subset` expressions read names.
pub fn name(name: &str) -> String {
    let syntactic = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        && !RESERVED.contains(&name);
    if syntactic {
        return name.to_string();
    }
    let mut out = String::from("`");
    for c in name.chars() {
        match c {
            '`' => out.push_str("\\`"),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => out.push_str(&format!("\\u{{{:04X}}}", c as u32)),
        }
    }
    out.push('`');
    out
}

const RESERVED: [&str; 19] = [
    "if",
    "else",
    "repeat",
    "while",
    "function",
    "for",
    "next",
    "break",
    "TRUE",
    "FALSE",
    "NULL",
    "Inf",
    "NaN",
    "NA",
    "NA_integer_",
    "NA_real_",
    "NA_character_",
    "in",
    "T",
];

/// Lines of an R script.
#[derive(Debug, Default, Clone)]
pub struct Script {
    lines: Vec<String>,
}

impl Script {
    /// A line of code.
    pub fn line(&mut self, code: impl Into<String>) -> &mut Self {
        self.lines.push(code.into());
        self
    }

    /// A comment: each line of `text` its own `# ` line (a newline in it cannot end the
    /// comment and start code), controls dropped.
    pub fn comment(&mut self, text: &str) -> &mut Self {
        for line in text.lines() {
            let clean: String = line.chars().filter(|c| !c.is_control()).collect();
            self.lines.push(format!("# {clean}").trim_end().to_string());
        }
        self
    }

    pub fn blank(&mut self) -> &mut Self {
        self.lines.push(String::new());
        self
    }

    /// `f(arg, arg, ...)`, wrapped before an argument that would take a line past 90
    /// characters (continued lines indented under the first argument).
    pub fn call(function: &str, args: &[String]) -> String {
        let indent = " ".repeat(function.len() + 1);
        let mut text = format!("{function}(");
        let mut line = text.len();
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                if line + 2 + arg.len() > 90 {
                    text.push_str(",\n");
                    text.push_str(&indent);
                    line = indent.len();
                } else {
                    text.push_str(", ");
                    line += 2;
                }
            }
            text.push_str(arg);
            line += arg.len();
        }
        text.push(')');
        text
    }

    pub fn finish(&self) -> String {
        let mut text = self.lines.join("\n");
        text.push('\n');
        text
    }
}

/// A methods paragraph: sentences in order, each reference cited once in the list that
/// ends it. Deterministic: the same sentences give the same text.
#[derive(Debug, Default, Clone)]
pub struct Methods {
    sentences: Vec<String>,
    references: Vec<&'static Reference>,
}

/// A reference: the citation in the text and the entry in the list.
#[derive(Debug, PartialEq, Eq)]
pub struct Reference {
    pub cite: &'static str,
    pub entry: &'static str,
}

impl Methods {
    /// A sentence citing `references`: each `{}` in it becomes "(cite)" of the reference
    /// in its place when there are as many as references, else the first `{}` cites them
    /// all ("(cite; cite)").
    pub fn say(&mut self, sentence: &str, references: &[&'static Reference]) -> &mut Self {
        let cites: Vec<&str> = references.iter().map(|r| r.cite).collect();
        let slots = sentence.matches("{}").count();
        let mut text = sentence.to_string();
        if slots > 1 && slots == cites.len() {
            for cite in &cites {
                text = text.replacen("{}", &format!("({cite})"), 1);
            }
        } else if slots > 0 {
            text = text.replacen("{}", &format!("({})", cites.join("; ")), 1);
        }
        self.sentences.push(text);
        for r in references {
            if !self.references.contains(r) {
                self.references.push(r);
            }
        }
        self
    }

    /// The paragraph, then "References:" and the entries in alphabetical order.
    pub fn finish(&self, software: &str) -> String {
        let mut refs: Vec<&str> = self.references.iter().map(|r| r.entry).collect();
        refs.push(VIECHTBAUER_2010.entry);
        refs.sort_unstable();
        refs.dedup();
        let mut text = self.sentences.join(" ");
        text.push_str(&format!(
            " The analysis was carried out with the {software}, which reproduces R's metafor \
             package (Viechtbauer, 2010); the R code that reproduces every number is given \
             with the result.\n\nReferences:\n"
        ));
        for r in refs {
            text.push_str(&format!("- {r}\n"));
        }
        text
    }
}

/// The name of metafor's tau^2 estimator `method` (its `method =` value) in a methods
/// section, and its reference; `None` for the equal-effects model, which estimates none.
pub fn estimator(method: &str) -> Option<(&'static str, &'static Reference)> {
    Some(match method {
        "REML" => ("restricted maximum-likelihood", &VIECHTBAUER_2005),
        "ML" => ("maximum-likelihood", &VIECHTBAUER_2005),
        "DL" => ("DerSimonian-Laird", &DERSIMONIAN_1986),
        "HE" => ("Hedges", &HEDGES_1985),
        "SJ" => ("Sidik-Jonkman", &SIDIK_2005),
        "PM" => ("Paule-Mandel", &PAULE_1982),
        _ => return None,
    })
}

macro_rules! references {
    ($($name:ident = $cite:literal, $entry:literal;)*) => {
        $(pub static $name: Reference = Reference { cite: $cite, entry: $entry };)*
    };
}

references! {
    VIECHTBAUER_2010 = "Viechtbauer, 2010", "Viechtbauer, W. (2010). Conducting meta-analyses in R with the metafor package. Journal of Statistical Software, 36(3), 1-48.";
    VIECHTBAUER_2005 = "Viechtbauer, 2005", "Viechtbauer, W. (2005). Bias and efficiency of meta-analytic variance estimators in the random-effects model. Journal of Educational and Behavioral Statistics, 30(3), 261-293.";
    DERSIMONIAN_1986 = "DerSimonian & Laird, 1986", "DerSimonian, R., & Laird, N. (1986). Meta-analysis in clinical trials. Controlled Clinical Trials, 7(3), 177-188.";
    HEDGES_1985 = "Hedges & Olkin, 1985", "Hedges, L. V., & Olkin, I. (1985). Statistical methods for meta-analysis. San Diego, CA: Academic Press.";
    SIDIK_2005 = "Sidik & Jonkman, 2005", "Sidik, K., & Jonkman, J. N. (2005). Simple heterogeneity variance estimation for meta-analysis. Journal of the Royal Statistical Society, Series C, 54(2), 367-384.";
    PAULE_1982 = "Paule & Mandel, 1982", "Paule, R. C., & Mandel, J. (1982). Consensus values and weighting factors. Journal of Research of the National Bureau of Standards, 87(5), 377-385.";
    COCHRAN_1954 = "Cochran, 1954", "Cochran, W. G. (1954). The combination of estimates from different experiments. Biometrics, 10(1), 101-129.";
    HIGGINS_2002 = "Higgins & Thompson, 2002", "Higgins, J. P. T., & Thompson, S. G. (2002). Quantifying heterogeneity in a meta-analysis. Statistics in Medicine, 21(11), 1539-1558.";
    RILEY_2011 = "Riley et al., 2011", "Riley, R. D., Higgins, J. P. T., & Deeks, J. J. (2011). Interpretation of random effects meta-analyses. British Medical Journal, 342, d549.";
    KNAPP_2003 = "Knapp & Hartung, 2003", "Knapp, G., & Hartung, J. (2003). Improved tests for a random effects meta-regression with a single covariate. Statistics in Medicine, 22(17), 2693-2710.";
    EGGER_1997 = "Egger et al., 1997", "Egger, M., Davey Smith, G., Schneider, M., & Minder, C. (1997). Bias in meta-analysis detected by a simple, graphical test. British Medical Journal, 315(7109), 629-634.";
    STERNE_2005 = "Sterne & Egger, 2005", "Sterne, J. A. C., & Egger, M. (2005). Regression methods to detect publication and other bias in meta-analysis. In H. R. Rothstein, A. J. Sutton, & M. Borenstein (Eds.), Publication bias in meta-analysis (pp. 99-110). Chichester: Wiley.";
    BEGG_1994 = "Begg & Mazumdar, 1994", "Begg, C. B., & Mazumdar, M. (1994). Operating characteristics of a rank correlation test for publication bias. Biometrics, 50(4), 1088-1101.";
    DUVAL_2000 = "Duval & Tweedie, 2000", "Duval, S. J., & Tweedie, R. L. (2000). Trim and fill: A simple funnel-plot-based method of testing and adjusting for publication bias in meta-analysis. Biometrics, 56(2), 455-463.";
    ROSENTHAL_1979 = "Rosenthal, 1979", "Rosenthal, R. (1979). The file drawer problem and tolerance for null results. Psychological Bulletin, 86(3), 638-641.";
    ORWIN_1983 = "Orwin, 1983", "Orwin, R. G. (1983). A fail-safe N for effect size in meta-analysis. Journal of Educational Statistics, 8(2), 157-159.";
    ROSENBERG_2005 = "Rosenberg, 2005", "Rosenberg, M. S. (2005). The file-drawer problem revisited: A general weighted method for calculating fail-safe numbers in meta-analysis. Evolution, 59(2), 464-468.";
    VIECHTBAUER_2010B = "Viechtbauer & Cheung, 2010", "Viechtbauer, W., & Cheung, M. W.-L. (2010). Outlier and influence diagnostics for meta-analysis. Research Synthesis Methods, 1(2), 112-125.";
    LAU_1992 = "Lau et al., 1992", "Lau, J., Antman, E. M., Jimenez-Silva, J., Kupelnick, B., Mosteller, F., & Chalmers, T. C. (1992). Cumulative meta-analysis of therapeutic trials for myocardial infarction. New England Journal of Medicine, 327(4), 248-254.";
    MANTEL_1959 = "Mantel & Haenszel, 1959", "Mantel, N., & Haenszel, W. (1959). Statistical aspects of the analysis of data from retrospective studies of disease. Journal of the National Cancer Institute, 22(4), 719-748.";
    YUSUF_1985 = "Yusuf et al., 1985", "Yusuf, S., Peto, R., Lewis, J., Collins, R., & Sleight, P. (1985). Beta blockade during and after myocardial infarction: An overview of the randomized trials. Progress in Cardiovascular Diseases, 27(5), 335-371.";
    VEVEA_1995 = "Vevea & Hedges, 1995", "Vevea, J. L., & Hedges, L. V. (1995). A general linear model for estimating effect size in the presence of publication bias. Psychometrika, 60(3), 419-435.";
    STANLEY_2014 = "Stanley & Doucouliagos, 2014", "Stanley, T. D., & Doucouliagos, H. (2014). Meta-regression approximations to reduce publication selection bias. Research Synthesis Methods, 5(1), 60-78.";
    HEDGES_2010 = "Hedges et al., 2010", "Hedges, L. V., Tipton, E., & Johnson, M. C. (2010). Robust variance estimation in meta-regression with dependent effect size estimates. Research Synthesis Methods, 1(1), 39-65.";
    TIPTON_2015 = "Tipton & Pustejovsky, 2015", "Tipton, E., & Pustejovsky, J. E. (2015). Small-sample adjustments for tests of moderators and model fit using robust variance estimation in meta-regression. Journal of Educational and Behavioral Statistics, 40(6), 604-634.";
    PUSTEJOVSKY_2018 = "Pustejovsky & Tipton, 2018", "Pustejovsky, J. E., & Tipton, E. (2018). Small-sample methods for cluster-robust variance estimation and hypothesis testing in fixed effects models. Journal of Business & Economic Statistics, 36(4), 672-683.";
    CLUBSANDWICH = "Pustejovsky, 2022", "Pustejovsky, J. E. (2022). clubSandwich: Cluster-robust (sandwich) variance estimators with small-sample corrections. R package version 0.5.8.";
    AKAIKE_1974 = "Akaike, 1974", "Akaike, H. (1974). A new look at the statistical model identification. IEEE Transactions on Automatic Control, 19(6), 716-723.";
    SCHWARZ_1978 = "Schwarz, 1978", "Schwarz, G. (1978). Estimating the dimension of a model. The Annals of Statistics, 6(2), 461-464.";
    HURVICH_1989 = "Hurvich & Tsai, 1989", "Hurvich, C. M., & Tsai, C.-L. (1989). Regression and time series model selection in small samples. Biometrika, 76(2), 297-307.";
    Q_PROFILE_2007 = "Viechtbauer, 2007", "Viechtbauer, W. (2007). Confidence intervals for the amount of heterogeneity in meta-analysis. Statistics in Medicine, 26(1), 37-52.";
    LUO_2018 = "Luo et al., 2018", "Luo, D., Wan, X., Liu, J., & Tong, T. (2018). Optimally estimating the sample mean from the sample size, median, mid-range, and/or mid-quartile range. Statistical Methods in Medical Research, 27(6), 1785-1805.";
    WAN_2014 = "Wan et al., 2014", "Wan, X., Wang, W., Liu, J., & Tong, T. (2014). Estimating the sample mean and standard deviation from the sample size, median, range and/or interquartile range. BMC Medical Research Methodology, 14, 135.";
    SHI_2020 = "Shi et al., 2020", "Shi, J., Luo, D., Weng, H., Zeng, X.-T., Lin, L., Chu, H., & Tong, T. (2020). Optimally estimating the sample standard deviation from the five-number summary. Research Synthesis Methods, 11(5), 641-654.";
    SHI_2023 = "Shi et al., 2023", "Shi, J., Luo, D., Wan, X., Liu, Y., Liu, J., Bian, Z., & Tong, T. (2023). Detecting the skewness of data from the five-number summary and its application in meta-analysis. Statistical Methods in Medical Research, 32(7), 1338-1360.";
    HOZO_2005 = "Hozo et al., 2005", "Hozo, S. P., Djulbegovic, B., & Hozo, I. (2005). Estimating the mean and variance from the median, range, and the size of a sample. BMC Medical Research Methodology, 5, 13.";
    BLAND_2015 = "Bland, 2015", "Bland, M. (2015). Estimating mean and standard deviation from the sample size, three quartiles, minimum, and maximum. International Journal of Statistics in Medical Research, 4(1), 57-64.";
    HIGGINS_2019 = "Higgins et al., 2019", "Higgins, J. P. T., Li, T., & Deeks, J. J. (2019). Choosing effect measures and computing estimates of effect. In J. P. T. Higgins et al. (Eds.), Cochrane handbook for systematic reviews of interventions (2nd ed., chapter 6). Chichester: Wiley.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_ascii_and_escape_everything_that_could_break_out() {
        assert_eq!(string("plain"), "\"plain\"");
        assert_eq!(string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(
            string("x\n\")); system('id') #"),
            "\"x\\n\\\")); system('id') #\""
        );
        assert_eq!(string("é😀"), "\"\\u{00E9}\\U{0001F600}\"");
        assert_eq!(string("\u{7}"), "\"\\u{0007}\"");
        assert!(string("\0").contains("FFFD"));
        assert!(holds_nul("a\0") && !holds_nul("a"));
        for hostile in ["\"", "\\", "\n", "`", "\u{2028}", "\r\n#"] {
            let s = string(hostile);
            assert!(s.is_ascii(), "{s}");
            let inner = &s[1..s.len() - 1];
            // No unescaped quote can end the literal early.
            let mut escaped = false;
            for c in inner.chars() {
                assert!(escaped || c != '"', "{s}");
                escaped = !escaped && c == '\\';
            }
        }
    }

    #[test]
    fn numbers_read_back_to_the_same_double() {
        for x in [
            0.1,
            1.0 / 3.0,
            -2.5e-300,
            1e20,
            123456.789,
            0.0,
            -0.0,
            5e-324,
        ] {
            let text = number(x);
            let back: f64 = text.parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{x} written {text}");
            let digits = text
                .split(['e', 'E'])
                .next()
                .unwrap()
                .chars()
                .filter(char::is_ascii_digit)
                .collect::<String>();
            assert!(digits.trim_start_matches('0').len() <= 17, "{text}");
        }
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(maybe_number(None), "NA");
    }

    #[test]
    fn names_are_backquoted_unless_syntactic() {
        assert_eq!(name("weeks"), "weeks");
        assert_eq!(name("my.col_2"), "my.col_2");
        assert_eq!(name("a b"), "`a b`");
        assert_eq!(name("if"), "`if`");
        assert_eq!(name("x`y"), "`x\\`y`");
        assert_eq!(name("2x"), "`2x`");
    }

    #[test]
    fn a_long_call_wraps_between_arguments() {
        let args: Vec<String> = [
            "yi",
            "vi",
            "data = dat",
            "method = \"REML\"",
            "test = \"knha\"",
        ]
        .map(String::from)
        .into();
        assert_eq!(Script::call("rma", &args[..2]), "rma(yi, vi)");
        let long: Vec<String> = args.iter().cycle().take(15).cloned().collect();
        let text = Script::call("rma", &long);
        assert!(text.lines().count() > 1, "{text}");
        assert!(text.lines().all(|l| l.len() <= 90), "{text}");
        assert_eq!(
            text.replace(",\n    ", ", "),
            format!("rma({})", long.join(", "))
        );
    }

    #[test]
    fn a_comment_cannot_end_its_line() {
        let mut s = Script::default();
        s.comment("one\nsystem('x')\r\n");
        assert_eq!(s.finish(), "# one\n# system('x')\n");
    }

    #[test]
    fn a_data_frame_keeps_names_and_missing_values() {
        let df = data_frame(&[
            ("id".into(), RColumn::Text(vec![Some("a".into()), None])),
            ("x y".into(), RColumn::Numeric(vec![Some(1.5), None])),
        ]);
        assert!(df.contains("\"id\" = c(\"a\", NA)"), "{df}");
        assert!(df.contains("\"x y\" = c(1.5, NA)"), "{df}");
        assert!(df.ends_with("check.names = FALSE, stringsAsFactors = FALSE)"));
    }
}
