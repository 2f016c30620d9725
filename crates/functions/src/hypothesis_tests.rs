//! Statistical tests as aggregates, each returning a tuple of its statistic and p-value
//! (and a confidence interval where ClickHouse gives one), with ClickHouse's states:
//! `studentTTest`, `welchTTest` (`TTestMoments`: counts, sums and sums of squares of
//! both samples), `meanZTest` (`ZTestMoments`: counts and sums), `studentTTestOneSample`
//! (count, sum, sum of squares and the population mean of the first row) and
//! `mannWhitneyUTest`, `kolmogorovSmirnovTest` (both samples kept whole,
//! `StatisticalSample`). A row belongs to the second sample when its index argument is
//! not zero. The p-values come from [`crate::distributions`]. The scalar
//! `proportionsZTest` is here too.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, Float64Array, StructArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::ScalarDef;
use crate::distributions::{normal_cdf, normal_quantile, students_t_cdf, students_t_upper_quantile};
use crate::native_state::{read_f64, NativeState, Num, NumType, Spec};
use crate::parametric::parametric_name;
use crate::sample_stats::{is_number, ranks_and_tie_correction, Sample};
use crate::value_stats::floats;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alternative {
    TwoSided,
    Less,
    Greater,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Auto,
    Exact,
    Asymptotic,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Student { confidence: Option<f64> },
    Welch { confidence: Option<f64> },
    MeanZ { var_x: f64, var_y: f64, confidence: f64 },
    OneSample { confidence: Option<f64> },
    MannWhitney { alternative: Alternative, continuity: bool },
    KolmogorovSmirnov { alternative: Alternative, method: Method },
}

#[derive(Debug)]
struct TestSpec {
    name: String,
    base: &'static str,
    kind: Kind,
}

/// A Float64 parameter as ClickHouse's `Field::safeGet<Float64>` reads it: an integer
/// literal is not one.
fn float_param(value: &ScalarValue) -> DfResult<f64> {
    match value {
        ScalarValue::Float64(Some(f)) => Ok(*f),
        ScalarValue::UInt64(_) => Err(ch_error(ErrorCode::BAD_GET, "Bad get: has UInt64, requested Float64")),
        ScalarValue::Int64(_) => Err(ch_error(ErrorCode::BAD_GET, "Bad get: has Int64, requested Float64")),
        ScalarValue::Utf8(_) => Err(ch_error(ErrorCode::BAD_GET, "Bad get: has String, requested Float64")),
        other => Err(ch_error(ErrorCode::BAD_GET, format!("Bad get: has {}, requested Float64", other.data_type()))),
    }
}

/// The optional confidence level of the t-tests, which must lie strictly inside (0, 1).
fn confidence_param(name: &str, params: &[ScalarValue], max_params: usize, too_many: ErrorCode, message: &str) -> DfResult<Option<f64>> {
    if params.len() > max_params {
        return Err(ch_error(too_many, format!("Aggregate function {name} {message}")));
    }
    let Some(param) = params.first() else { return Ok(None) };
    let level = float_param(param)?;
    if !level.is_finite() {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function {name} requires finite parameter values.")));
    }
    if level <= 0.0 || level >= 1.0 || level.abs() < f64::EPSILON || (level - 1.0).abs() < f64::EPSILON {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Confidence level parameter must be between 0 and 1 in aggregate function {name}.")));
    }
    Ok(Some(level))
}

fn alternative_param(name: &str, param: &ScalarValue) -> DfResult<Alternative> {
    let ScalarValue::Utf8(Some(text)) = param else {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {name} require first parameter to be a String")));
    };
    match text.as_str() {
        "two-sided" => Ok(Alternative::TwoSided),
        "less" => Ok(Alternative::Less),
        "greater" => Ok(Alternative::Greater),
        _ => Err(ch_error(
            ErrorCode::BAD_ARGUMENTS,
            format!("Unknown parameter in aggregate function {name}. It must be one of: 'two-sided', 'less', 'greater'"),
        )),
    }
}

fn spec(base: &'static str, params: &[ScalarValue], kind: Kind) -> DfResult<Arc<dyn Spec>> {
    Ok(Arc::new(TestSpec { name: parametric_name(base, params), base, kind }))
}

pub(crate) fn student_t_test(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let confidence = confidence_param("studentTTest", params, 1, ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "requires zero or one parameter.")?;
    spec("studentTTest", params, Kind::Student { confidence })
}

pub(crate) fn welch_t_test(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let confidence = confidence_param("welchTTest", params, 1, ErrorCode::TOO_MANY_ARGUMENTS_FOR_FUNCTION, "requires zero or one parameter.")?;
    spec("welchTTest", params, Kind::Welch { confidence })
}

pub(crate) fn student_t_test_one_sample(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let confidence = confidence_param(
        "studentTTestOneSample",
        params,
        1,
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        "allows at most one parameter (confidence level).",
    )?;
    spec("studentTTestOneSample", params, Kind::OneSample { confidence })
}

pub(crate) fn mean_z_test(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let [var_x, var_y, confidence] = params else {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function meanZTest requires three parameter."));
    };
    let (var_x, var_y, confidence) = (float_param(var_x)?, float_param(var_y)?, float_param(confidence)?);
    if !var_x.is_finite() || !var_y.is_finite() || !confidence.is_finite() {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Aggregate function meanZTest requires finite parameter values."));
    }
    if var_x < 0.0 || var_y < 0.0 {
        return Err(ch_error(
            ErrorCode::BAD_ARGUMENTS,
            "Population variance parameters must be larger than or equal to zero in aggregate function meanZTest.",
        ));
    }
    if confidence <= 0.0 || confidence >= 1.0 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Confidence level parameter must be between 0 and 1 in aggregate function meanZTest."));
    }
    spec("meanZTest", params, Kind::MeanZ { var_x, var_y, confidence })
}

pub(crate) fn mann_whitney_u_test(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    const NAME: &str = "mannWhitneyUTest";
    if params.len() > 2 {
        return Err(ch_error(ErrorCode::TOO_MANY_ARGUMENTS_FOR_FUNCTION, format!("Aggregate function {NAME} require two parameter or less")));
    }
    let alternative = params.first().map(|p| alternative_param(NAME, p)).transpose()?.unwrap_or(Alternative::TwoSided);
    let continuity = match params.get(1) {
        None => true,
        Some(ScalarValue::UInt64(Some(n))) => *n != 0,
        Some(_) => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {NAME} require second parameter to be a UInt64"))),
    };
    spec(NAME, params, Kind::MannWhitney { alternative, continuity })
}

pub(crate) fn kolmogorov_smirnov_test(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    const NAME: &str = "kolmogorovSmirnovTest";
    if params.len() > 2 {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {NAME} require two parameter or less")));
    }
    let alternative = params.first().map(|p| alternative_param(NAME, p)).transpose()?.unwrap_or(Alternative::TwoSided);
    let method = match params.get(1) {
        None => Method::Auto,
        Some(ScalarValue::Utf8(Some(m))) => match m.as_str() {
            "auto" => Method::Auto,
            "exact" => Method::Exact,
            "asymp" | "asymptotic" => Method::Asymptotic,
            _ => {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Unknown method in aggregate function {NAME}. It must be one of: 'auto', 'exact', 'asymp' (or 'asymptotic')"),
                ))
            }
        },
        Some(_) => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {NAME} require second parameter to be a String"))),
    };
    spec(NAME, params, Kind::KolmogorovSmirnov { alternative, method })
}

pub(crate) fn student_t_test_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    crate::native_state::family(student_t_test, params)
}
pub(crate) fn welch_t_test_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    crate::native_state::family(welch_t_test, params)
}
pub(crate) fn student_t_test_one_sample_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    crate::native_state::family(student_t_test_one_sample, params)
}
pub(crate) fn mean_z_test_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    crate::native_state::family(mean_z_test, params)
}
pub(crate) fn mann_whitney_u_test_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    crate::native_state::family(mann_whitney_u_test, params)
}
pub(crate) fn kolmogorov_smirnov_test_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    crate::native_state::family(kolmogorov_smirnov_test, params)
}

impl TestSpec {
    /// The names of the result tuple's fields.
    fn fields(&self) -> &'static [&'static str] {
        const T: &[&str] = &["t_statistic", "p_value"];
        const T_CI: &[&str] = &["t_statistic", "p_value", "confidence_interval_low", "confidence_interval_high"];
        match self.kind {
            Kind::Student { confidence } | Kind::Welch { confidence } | Kind::OneSample { confidence } => {
                if confidence.is_some() {
                    T_CI
                } else {
                    T
                }
            }
            Kind::MeanZ { .. } => &["z_statistic", "p_value", "confidence_interval_low", "confidence_interval_high"],
            Kind::MannWhitney { .. } => &["u_statistic", "p_value"],
            Kind::KolmogorovSmirnov { .. } => &["d_statistic", "p_value"],
        }
    }
}

impl Spec for TestSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        match self.kind {
            Kind::OneSample { .. } => Arity::range(1, 2),
            _ => Arity::exact(2),
        }
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let rank_test = matches!(self.kind, Kind::MannWhitney { .. } | Kind::KolmogorovSmirnov { .. });
        if !args.iter().all(is_number) {
            let code = if rank_test { ErrorCode::NOT_IMPLEMENTED } else { ErrorCode::BAD_ARGUMENTS };
            return Err(ch_error(code, format!("Aggregate function {} only supports numerical types", self.base)));
        }
        if matches!(self.kind, Kind::OneSample { .. }) && args.len() != 2 {
            return Err(ch_error(
                ErrorCode::BAD_ARGUMENTS,
                format!("Aggregate function {} requires two arguments: sample_data and population_mean.", self.base),
            ));
        }
        Ok(ChType::Tuple(self.fields().iter().map(|f| (f.to_string(), ChType::Float64)).collect()))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let index = args.get(1).and_then(NumType::of);
        Ok(match self.kind {
            Kind::MannWhitney { .. } | Kind::KolmogorovSmirnov { .. } => Box::new(RankTest { spec: self.kind, fields: self.fields(), index, sample: Sample::default() }),
            Kind::OneSample { .. } => Box::new(Moments { spec: self.kind, fields: self.fields(), index, m: [0.0; 6] }),
            _ => Box::new(Moments { spec: self.kind, fields: self.fields(), index, m: [0.0; 6] }),
        })
    }
}

/// Each row's value and whether its index puts it in the second sample (`getUInt != 0`).
fn split(columns: &[ArrayRef], index: Option<NumType>) -> DfResult<Vec<(f64, bool)>> {
    let values = floats(&columns[0])?;
    let second: Vec<bool> = match index {
        Some(ty) if !ty.is_float() => ty.values(&columns[1])?.into_iter().map(|n| n != Num::Int(0)).collect(),
        // A float index counts by its integer part, as C++'s conversion to an integer.
        _ => floats(&columns[1])?.into_iter().map(|f| f.trunc() != 0.0 && !f.is_nan()).collect(),
    };
    Ok(values.into_iter().zip(second).collect())
}

pub(crate) fn tuple(fields: &[&str], values: &[f64]) -> DfResult<ScalarValue> {
    let fields: Vec<Arc<Field>> = fields.iter().map(|f| Arc::new(Field::new(*f, DataType::Float64, false))).collect();
    let columns: Vec<ArrayRef> = values.iter().map(|v| ScalarValue::Float64(Some(*v)).to_array()).collect::<Result<_, _>>()?;
    Ok(ScalarValue::Struct(Arc::new(StructArray::try_new(fields.into(), columns, None)?)))
}

/// `min(1, max(0, p))` as C++'s `std::min`/`std::max` evaluate it: a NaN becomes 0.
fn clamp_probability(p: f64) -> f64 {
    let low = if 0.0 < p { p } else { 0.0 };
    if 1.0 < low {
        1.0
    } else {
        low
    }
}

/// Two-sided p-value of a Student's t statistic, as ClickHouse asks Boost for it.
fn t_p_value(df: f64, t: f64) -> f64 {
    2.0 * students_t_cdf(df, if t > 0.0 { -t } else { t })
}

/// The moments of the t-tests and the z-test, laid out as ClickHouse's structs are:
/// `nx, ny, x1, y1, x2, y2` (`TTestMoments`), `nx, ny, x1, y1` (`ZTestMoments`),
/// `n, x1, x2, population_mean` (the one-sample test's).
#[derive(Debug, Clone)]
struct Moments {
    spec: Kind,
    fields: &'static [&'static str],
    index: Option<NumType>,
    m: [f64; 6],
}

impl Moments {
    fn width(&self) -> usize {
        match self.spec {
            Kind::MeanZ { .. } | Kind::OneSample { .. } => 4,
            _ => 6,
        }
    }

    fn add_value(&mut self, value: f64, second: bool) {
        let m = &mut self.m;
        let (n, sum, squares) = if second { (1, 3, 5) } else { (0, 2, 4) };
        m[n] += 1.0;
        m[sum] += value;
        if !matches!(self.spec, Kind::MeanZ { .. }) {
            m[squares] += value * value;
        }
    }

    /// The t-tests' standard error sqrt(sx²/nx + sy²/ny) (`getStandardError`).
    fn two_sample_error(&self) -> f64 {
        let [nx, ny, x1, y1, x2, y2] = self.m;
        let (mean_x, mean_y) = (x1 / nx, y1 / ny);
        let sx2 = (x2 + nx * mean_x * mean_x - 2.0 * mean_x * x1) / (nx - 1.0);
        let sy2 = (y2 + ny * mean_y * mean_y - 2.0 * mean_y * y1) / (ny - 1.0);
        (sx2 / nx + sy2 / ny).sqrt()
    }

    fn two_sample(&self, welch: bool, confidence: Option<f64>) -> DfResult<Vec<f64>> {
        let [nx, ny, x1, y1, x2, y2] = self.m;
        let (mean_x, mean_y) = (x1 / nx, y1 / ny);
        let enough = if welch { nx > 1.0 && ny > 1.0 } else { nx > 0.0 && ny > 0.0 && nx + ny > 2.0 };
        let se = self.two_sample_error();
        let constant = se < 10.0 * f64::EPSILON * mean_x.abs().max(mean_y.abs());
        let width = if confidence.is_some() { 4 } else { 2 };
        if !enough || constant {
            return Ok(vec![f64::NAN; width]);
        }
        let (t, p, df) = if welch {
            let sx2 = (x2 + nx * mean_x * mean_x - 2.0 * mean_x * x1) / (nx - 1.0);
            let sy2 = (y2 + ny * mean_y * mean_y - 2.0 * mean_y * y1) / (ny - 1.0);
            let numerator_sqrt = sx2 / nx + sy2 / ny;
            let df = numerator_sqrt * numerator_sqrt / (sx2 * sx2 / (nx * nx * (nx - 1.0)) + sy2 * sy2 / (ny * ny * (ny - 1.0)));
            let t = (mean_x - mean_y) / se;
            if df <= 0.0 || !df.is_finite() {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Cannot calculate p_value, because the t-distribution has inappropriate value of degrees of freedom (={df}). It should be > 0"),
                ));
            }
            (t, t_p_value(df, t), df)
        } else {
            let df = nx + ny - 2.0;
            let all_x = x2 + nx * mean_x * mean_x - 2.0 * mean_x * x1;
            let all_y = y2 + ny * mean_y * mean_y - 2.0 * mean_y * y1;
            let s2 = (all_x + all_y) / df;
            let t = (mean_x - mean_y) / (s2 * (1.0 / nx + 1.0 / ny)).sqrt();
            if t.is_finite() {
                (t, t_p_value(df, t), df)
            } else {
                (f64::NAN, f64::NAN, df)
            }
        };
        let mut out = vec![t, clamp_probability(p)];
        if let Some(level) = confidence {
            let quantile = students_t_upper_quantile(df, (1.0 - level) / 2.0);
            let diff = mean_x - mean_y;
            out.extend([diff - quantile * se, diff + quantile * se]);
        }
        Ok(out)
    }

    fn mean_z(&self, var_x: f64, var_y: f64, level: f64) -> Vec<f64> {
        let [nx, ny, x1, y1, ..] = self.m;
        let (mean_x, mean_y) = (x1 / nx, y1 / ny);
        let se = (var_x / nx + var_y / ny).sqrt();
        let z = (mean_x - mean_y) / se;
        let (z, p) = if z.is_finite() { (z, 2.0 * normal_cdf(-z.abs())) } else { (f64::NAN, f64::NAN) };
        let quantile = -normal_quantile((1.0 - level) / 2.0);
        let diff = mean_x - mean_y;
        vec![z, clamp_probability(p), diff - quantile * se, diff + quantile * se]
    }

    fn one_sample(&self, confidence: Option<f64>) -> Vec<f64> {
        let [n, x1, x2, population_mean, ..] = self.m;
        let width = if confidence.is_some() { 4 } else { 2 };
        let mean = x1 / n;
        let s2 = (x2 + n * mean * mean - 2.0 * mean * x1) / (n - 1.0);
        let se = (s2 / n).sqrt();
        if n <= 1.0 || se < 10.0 * f64::EPSILON * mean.abs() {
            return vec![f64::NAN; width];
        }
        let df = n - 1.0;
        let t = (mean - population_mean) / se;
        let (t, p) = if t.is_finite() { (t, t_p_value(df, t)) } else { (f64::NAN, f64::NAN) };
        let mut out = vec![t, clamp_probability(p)];
        if let Some(level) = confidence {
            let quantile = students_t_upper_quantile(df, (1.0 - level) / 2.0);
            out.extend([mean - quantile * se, mean + quantile * se]);
        }
        out
    }
}

impl NativeState for Moments {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        if let Kind::OneSample { .. } = self.spec {
            let values = floats(&columns[0])?;
            let means = if columns.len() > 1 { floats(&columns[1])? } else { Vec::new() };
            for (row, value) in values.into_iter().enumerate() {
                if self.m[0] == 0.0 {
                    self.m[3] = means.get(row).copied().unwrap_or(0.0);
                }
                self.m[0] += 1.0;
                self.m[1] += value;
                self.m[2] += value * value;
            }
            return Ok(());
        }
        for (value, second) in split(columns, self.index)? {
            self.add_value(value, second);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let mut other = [0.0; 6];
        for v in other.iter_mut().take(self.width()) {
            *v = read_f64(input)?;
        }
        if let Kind::OneSample { .. } = self.spec {
            if self.m[0] == 0.0 {
                self.m[3] = other[3];
            }
            for i in 0..3 {
                self.m[i] += other[i];
            }
        } else {
            for (mine, theirs) in self.m.iter_mut().zip(other) {
                *mine += theirs;
            }
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        for v in &self.m[..self.width()] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let values = match self.spec {
            Kind::Student { confidence } => self.two_sample(false, confidence)?,
            Kind::Welch { confidence } => self.two_sample(true, confidence)?,
            Kind::MeanZ { var_x, var_y, confidence } => self.mean_z(var_x, var_y, confidence),
            Kind::OneSample { confidence } => self.one_sample(confidence),
            Kind::MannWhitney { .. } | Kind::KolmogorovSmirnov { .. } => return Err(ch_error(ErrorCode::LOGICAL_ERROR, "rank tests keep samples")),
        };
        tuple(self.fields, &values)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// The rank tests' state: both samples whole, NaNs left out (`StatisticalSample`).
#[derive(Debug, Clone)]
struct RankTest {
    spec: Kind,
    fields: &'static [&'static str],
    index: Option<NumType>,
    sample: Sample,
}

impl RankTest {
    fn mann_whitney(&self, alternative: Alternative, continuity: bool) -> (f64, f64) {
        let both: Vec<f64> = self.sample.x.iter().chain(&self.sample.y).copied().collect();
        let (ranks, tie_correction) = ranks_and_tie_correction(&both);
        let (n1, n2) = (self.sample.x.len() as f64, self.sample.y.len() as f64);
        let r1: f64 = ranks[..self.sample.x.len()].iter().sum();
        let u1 = n1 * n2 + (n1 * (n1 + 1.0)) / 2.0 - r1;
        let u2 = n1 * n2 - u1;
        let mean_rank = n1 * n2 / 2.0 + 0.5 * f64::from(u8::from(continuity));
        // All values equal: ClickHouse takes z = 0 rather than dividing by zero.
        let sd = if tie_correction.abs() > f64::EPSILON { (tie_correction * n1 * n2 * (n1 + n2 + 1.0) / 12.0).sqrt() } else { 0.0 };
        let u = match alternative {
            Alternative::TwoSided => u1.max(u2),
            Alternative::Less => u1,
            Alternative::Greater => u2,
        };
        let mut z = if sd > f64::EPSILON { (u - mean_rank) / sd } else { 0.0 };
        if !z.is_finite() {
            return (f64::NAN, f64::NAN);
        }
        if alternative == Alternative::TwoSided {
            z = z.abs();
        }
        let cdf = normal_cdf(z);
        let p = if alternative == Alternative::TwoSided { 2.0 - 2.0 * cdf } else { 1.0 - cdf };
        (u2, p)
    }

    fn kolmogorov_smirnov(&self, alternative: Alternative, method: Method) -> (f64, f64) {
        const TOL: f64 = 1e-7;
        let mut x = self.sample.x.clone();
        let mut y = self.sample.y.clone();
        x.sort_by(f64::total_cmp);
        y.sort_by(f64::total_cmp);
        // ClickHouse starts the maximum at the smallest positive double, not at zero.
        let mut max_s = f64::MIN_POSITIVE;
        let mut min_s = f64::MAX;
        let mut now_s = 0.0;
        let (mut pos_x, mut pos_y) = (0usize, 0usize);
        let (n1, n2) = (x.len(), y.len());
        let (n1_d, n2_d) = (1.0 / n1 as f64, 1.0 / n2 as f64);
        while pos_x < n1 && pos_y < n2 {
            if (x[pos_x] - y[pos_y]).abs() >= TOL {
                if x[pos_x] < y[pos_y] {
                    now_s += n1_d;
                    pos_x += 1;
                } else {
                    now_s -= n2_d;
                    pos_y += 1;
                }
            } else {
                let mut next = pos_x + 1;
                while next < n1 && (x[next] - x[pos_x]).abs() <= TOL {
                    next += 1;
                }
                now_s += n1_d * (next - pos_x) as f64;
                pos_x = next;
                next = pos_y + 1;
                while next < n2 && (y[next] - y[pos_y]).abs() <= TOL {
                    next += 1;
                }
                now_s -= n2_d * (next - pos_y) as f64;
                pos_y = next;
            }
            max_s = max_s.max(now_s);
            min_s = min_s.min(now_s);
        }
        now_s += n1_d * (n1 - pos_x) as f64 - n2_d * (n2 - pos_y) as f64;
        min_s = min_s.min(now_s);
        max_s = max_s.max(now_s);
        let d = match alternative {
            Alternative::TwoSided => max_s.abs().max(min_s.abs()),
            Alternative::Less => -min_s,
            Alternative::Greater => max_s,
        };
        let g = gcd(n1 as u64, n2 as u64);
        let (nx_g, ny_g) = (n1 as u64 / g, n2 as u64 / g);
        let method = match method {
            Method::Auto if n1.max(n2) <= 10_000 => Method::Exact,
            Method::Auto => Method::Asymptotic,
            Method::Exact if nx_g >= i32::MAX as u64 / ny_g => Method::Asymptotic,
            other => other,
        };
        let p = match method {
            Method::Exact => ks_exact(n1, n2, d, alternative, TOL),
            _ => ks_asymptotic(n1, n2, d, alternative, TOL),
        };
        (d, p)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Schröer and Trenkler's exact distribution, in Viehmann's stable form, as ClickHouse.
fn ks_exact(n1: usize, n2: usize, d: f64, alternative: Alternative, tol: f64) -> f64 {
    let (n1, n2) = if n2 > n1 { (n2, n1) } else { (n1, n2) };
    let (f1, f2) = (n1 as f64, n2 as f64);
    let k = (0.5 + (d * f2 * f1 - tol).floor()) / (f2 * f1);
    let check = |r: f64, s: f64| if alternative == Alternative::TwoSided { (r - s).abs() >= k } else { r - s >= k };
    let mut c = vec![0.0; n1 + 1];
    for j in 1..=n1 {
        c[j] = if check(0.0, j as f64 / f1) { 1.0 } else { c[j - 1] };
    }
    for i in 1..=n2 {
        if check(i as f64 / f2, 0.0) {
            c[0] = 1.0;
        }
        for j in 1..=n1 {
            if check(i as f64 / f2, j as f64 / f1) {
                c[j] = 1.0;
            } else {
                let v = i as f64 / (i + j) as f64;
                let w = j as f64 / (i + j) as f64;
                c[j] = v * c[j] + w * c[j - 1];
            }
        }
    }
    c[n1]
}

/// Durbin's series (two-sided) or Hodges' approximation (one-sided), as ClickHouse.
fn ks_asymptotic(n1: usize, n2: usize, d: f64, alternative: Alternative, tol: f64) -> f64 {
    let n = n1.min(n2) as f64;
    let m = n1.max(n2) as f64;
    let mut p = ((n * m) / (n + m)).sqrt() * d;
    if alternative != Alternative::TwoSided {
        let exponent = -2.0 * p * p - 2.0 * p * (m + 2.0 * n) / (m * n * (m + n)).sqrt() / 3.0;
        return exponent.exp();
    }
    if p < 1.0 {
        let z = -(std::f64::consts::FRAC_PI_2 * std::f64::consts::FRAC_PI_4) / (p * p);
        let w = p.ln();
        let k_max = (2.0 - tol.ln()).sqrt() as u64;
        let mut s = 0.0;
        let mut k = 1;
        while k < k_max {
            s += ((k * k) as f64 * z - w).exp();
            k += 2;
        }
        p = s / 0.398942280401432677939946059934;
    } else {
        let z = -2.0 * p * p;
        let mut sign = -1.0;
        let mut k = 1u64;
        let (mut old, mut new) = (0.0f64, 1.0f64);
        while (old - new).abs() > tol {
            old = new;
            new += 2.0 * sign * (z * (k * k) as f64).exp();
            sign *= -1.0;
            k += 1;
        }
        p = new;
    }
    1.0 - p
}

impl NativeState for RankTest {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for (value, second) in split(columns, self.index)? {
            if value.is_nan() {
                continue;
            }
            if second {
                self.sample.y.push(value);
            } else {
                self.sample.x.push(value);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.sample.merge(input)
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.sample.write(out)
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let name = match self.spec {
            Kind::MannWhitney { .. } => "mannWhitneyUTest",
            _ => "kolmogorovSmirnovTest",
        };
        if self.sample.x.is_empty() || self.sample.y.is_empty() {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function {name} require both samples to be non empty")));
        }
        let (statistic, p) = match self.spec {
            Kind::MannWhitney { alternative, continuity } => self.mann_whitney(alternative, continuity),
            Kind::KolmogorovSmirnov { alternative, method } => self.kolmogorov_smirnov(alternative, method),
            _ => return Err(ch_error(ErrorCode::LOGICAL_ERROR, "moment tests keep no samples")),
        };
        tuple(self.fields, &[statistic, clamp_probability(p)])
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.sample.x.capacity() + self.sample.y.capacity()) * 8
    }
}

// ------------------------------------------------------------------ proportionsZTest

/// `proportionsZTest(successes_x, successes_y, trials_x, trials_y, confidence_level,
/// usevar)`: the two-sample z-test of proportions, row by row, as
/// `Tuple(z_statistic, p_value, confidence_interval_low, confidence_interval_high)`.
pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![ScalarDef::new(
        "proportionsZTest",
        Arity::exact(6),
        |ctx| {
            for i in 0..4 {
                // Integer literals are Int64 until the plan narrows them.
                let literal = ctx.scalar(i).is_some_and(|v| crate::args::scalar_i128(v).is_some_and(|n| n >= 0));
                let unsigned = matches!(ctx.ch(i), ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::UInt128 | ChType::UInt256);
                if !unsigned && !literal {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("The {}th Argument of function proportionsZTest must be an unsigned integer.", i + 1),
                    ));
                }
            }
            if !matches!(ctx.ch(4), ChType::Float32 | ChType::Float64) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("The fifth argument {} of function proportionsZTest should be a float,", ctx.ch(4)),
                ));
            }
            if ctx.ch(5) != ChType::String || ctx.scalar(5).is_none() {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("The sixth argument {} of function proportionsZTest should be a constant string", ctx.ch(5)),
                ));
            }
            Ok(ChType::Tuple(PROPORTIONS_FIELDS.iter().map(|f| (f.to_string(), ChType::Float64)).collect()))
        },
        |ctx| {
            let unpooled = match ctx.const_str(5, "usevar")? {
                "unpooled" => true,
                "pooled" => false,
                _ => {
                    return Err(ch_error(
                        ErrorCode::BAD_ARGUMENTS,
                        "The sixth argument String of function proportionsZTest must be equal to `pooled` or `unpooled`",
                    ))
                }
            };
            let counts: Vec<Vec<u64>> = (0..4)
                .map(|i| Ok(cast(&ctx.array(i)?, &DataType::UInt64)?.as_primitive::<UInt64Type>().values().to_vec()))
                .collect::<DfResult<_>>()?;
            let levels = floats(&ctx.array(4)?)?;
            let mut columns = vec![Vec::with_capacity(ctx.len); 4];
            for row in 0..ctx.len {
                let values = proportions_z_test(counts[0][row], counts[1][row], counts[2][row], counts[3][row], levels[row], unpooled);
                for (column, value) in columns.iter_mut().zip(values) {
                    column.push(value);
                }
            }
            let fields: Vec<Arc<Field>> = PROPORTIONS_FIELDS.iter().map(|f| Arc::new(Field::new(*f, DataType::Float64, false))).collect();
            let arrays: Vec<ArrayRef> = columns.into_iter().map(|c| Arc::new(Float64Array::from(c)) as ArrayRef).collect();
            Ok(Arc::new(StructArray::try_new(fields.into(), arrays, None)?))
        },
    )
    .build()]
}

const PROPORTIONS_FIELDS: &[&str] = &["z_statistic", "p_value", "confidence_interval_low", "confidence_interval_high"];

fn proportions_z_test(successes_x: u64, successes_y: u64, trials_x: u64, trials_y: u64, level: f64, unpooled: bool) -> [f64; 4] {
    const NAN: [f64; 4] = [f64::NAN; 4];
    let props_x = successes_x as f64 / trials_x as f64;
    let props_y = successes_y as f64 / trials_y as f64;
    let diff = props_x - props_y;
    let trials_total = trials_x.wrapping_add(trials_y);
    if successes_x == 0 || successes_y == 0 || successes_x > trials_x || successes_y > trials_y || trials_total == 0 || !level.is_finite() || !(0.0..=1.0).contains(&level)
    {
        return NAN;
    }
    let se = (props_x * (1.0 - props_x) / trials_x as f64 + props_y * (1.0 - props_y) / trials_y as f64).sqrt();
    let z = if unpooled {
        diff / se
    } else {
        let pooled = successes_x.wrapping_add(successes_y) as f64 / trials_total as f64;
        diff / (pooled * (1.0 - pooled) * (1.0 / trials_x as f64 + 1.0 / trials_y as f64)).sqrt()
    };
    if !z.is_finite() {
        return NAN;
    }
    let p = (1.0 - normal_cdf(z.abs())) * 2.0;
    let distance = -normal_quantile((1.0 - level) / 2.0) * se;
    [z, p, diff - distance, diff + distance]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;

    use crate::native_state::state_hex as hex;

    fn numbers(n: u64) -> Vec<ArrayRef> {
        vec![Arc::new(UInt64Array::from_iter_values(0..n)) as ArrayRef, Arc::new(UInt64Array::from_iter_values((0..n).map(|v| v % 2))) as ArrayRef]
    }

    /// chdb: `hex(studentTTestState(number, number % 2))` over numbers(10).
    #[test]
    fn t_test_state_is_clickhouse_moments() {
        let spec = student_t_test(&[]).unwrap();
        let mut state = spec.new_state(&[ChType::UInt64, ChType::UInt64]).unwrap();
        state.add(&numbers(10)).unwrap();
        assert_eq!(hex(state.as_ref()), "00000000000014400000000000001440000000000000344000000000000039400000000000005E400000000000A06440");
    }

    /// chdb: `hex(mannWhitneyUTestState(number, number % 3 = 0))` over numbers(10).
    #[test]
    fn rank_test_state_is_both_samples() {
        let spec = mann_whitney_u_test(&[]).unwrap();
        let mut state = spec.new_state(&[ChType::UInt64, ChType::UInt8]).unwrap();
        let index: ArrayRef = Arc::new(datafusion::arrow::array::UInt8Array::from_iter_values((0..10).map(|v| u8::from(v % 3 == 0))));
        state.add(&[numbers(10)[0].clone(), index]).unwrap();
        assert_eq!(
            hex(state.as_ref()),
            "0604000000000000F03F0000000000000040000000000000104000000000000014400000000000001C4000000000000020400000000000000000000000000000084000000000000018400000000000002240"
        );
    }

    #[test]
    fn nan_probability_clamps_to_zero() {
        assert_eq!(clamp_probability(f64::NAN), 0.0);
        assert_eq!(clamp_probability(1.5), 1.0);
    }
}
