//! Parametric aggregate functions: `quantile(0.9)(x)`, `quantilesState(0.5, 0.9)(x)`,
//! `topK(5)(x)`.
//!
//! A call's parameters travel in the function's name. The SQL front end
//! ([`rewrite_parametric_call`]) turns `quantilesIf(0.5, 0.9)(x, c)` into a call of the
//! function named `quantiles(0.5, 0.9)` (the `-If` became a FILTER first, see
//! [`crate::combinators`]); the query layer registers what such names resolve to
//! ([`parametric_aggregates`]) in the query's session before planning. The name is also
//! the function of the state type (`AggregateFunction(quantiles(0.5, 0.9), UInt64)`, as
//! ClickHouse prints it), so [`crate::combinators::base_aggregate`] rebuilds the same
//! function from a state column's type for `-Merge`, `finalizeAggregation` and
//! AggregatingMergeTree merges.
//!
//! A parametric family plugs in through [`FAMILIES`]: a name and a [`Factory`] that
//! builds the function for given parameters (an empty slice when the call has none),
//! checks them with ClickHouse's errors and names the function [`parametric_name`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use datafusion::common::ScalarValue;
use datafusion::logical_expr::AggregateUDF;
use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, ObjectNamePart, Statement, UnaryOperator, Value,
};
use granary_common::{Error, ErrorCode};

use crate::args::{ch_error, DfResult};
use crate::combinators::{Comb, WRAPPERS};

/// Builds a parametric aggregate for the parameters of one call.
pub type Factory = fn(params: &[ScalarValue]) -> DfResult<AggregateUDF>;

/// Every parametric family: its name and how to build it.
pub(crate) const FAMILIES: &[(&str, Factory)] = &[
    ("quantile", crate::quantile::quantile),
    ("quantiles", crate::quantile::quantiles),
    ("quantileExact", crate::quantile::quantile_exact),
    ("quantilesExact", crate::quantile::quantiles_exact),
    ("quantileExactLow", crate::quantile::quantile_exact_low),
    ("quantilesExactLow", crate::quantile::quantiles_exact_low),
    ("quantileExactHigh", crate::quantile::quantile_exact_high),
    ("quantilesExactHigh", crate::quantile::quantiles_exact_high),
    ("quantileTDigest", crate::quantile::quantile_tdigest),
    ("quantilesTDigest", crate::quantile::quantiles_tdigest),
    ("quantileTDigestWeighted", crate::quantile::quantile_tdigest_weighted),
    ("quantilesTDigestWeighted", crate::quantile::quantiles_tdigest_weighted),
    ("quantileDeterministic", crate::quantile::quantile_deterministic),
    ("quantilesDeterministic", crate::quantile::quantiles_deterministic),
    ("quantileExactWeighted", crate::quantile::quantile_exact_weighted),
    ("quantilesExactWeighted", crate::quantile::quantiles_exact_weighted),
    ("quantileExactInclusive", crate::quantile::quantile_exact_inclusive),
    ("quantilesExactInclusive", crate::quantile::quantiles_exact_inclusive),
    ("quantileExactExclusive", crate::quantile::quantile_exact_exclusive),
    ("quantilesExactExclusive", crate::quantile::quantiles_exact_exclusive),
    ("quantileInterpolatedWeighted", crate::quantile::quantile_interpolated_weighted),
    ("quantilesInterpolatedWeighted", crate::quantile::quantiles_interpolated_weighted),
    ("uniqCombined", crate::uniq_combined::uniq_combined_family),
    ("uniqCombined64", crate::uniq_combined::uniq_combined64_family),
    ("topK", crate::topk::top_k_family),
    ("topKWeighted", crate::topk::top_k_weighted_family),
    ("approx_top_k", crate::topk::approx_top_k_family),
    ("approx_top_sum", crate::topk::approx_top_sum_family),
    ("groupUniqArray", crate::group_uniq_array::group_uniq_array_family),
    ("uniqUpTo", crate::value_stats::uniq_up_to_family),
    ("groupArrayLast", crate::group_arrays::group_array_last_family),
    ("groupArraySorted", crate::group_arrays::group_array_sorted_family),
    ("groupArrayMovingSum", crate::group_arrays::group_array_moving_sum_family),
    ("groupArrayMovingAvg", crate::group_arrays::group_array_moving_avg_family),
    ("groupConcat", crate::group_arrays::group_concat_family),
    ("groupArraySample", crate::group_array_sample::group_array_sample_family),
    ("groupArrayIntersect", crate::group_array_intersect::group_array_intersect_family),
    ("sparkbar", crate::sparkbar::sparkbar_family),
    ("quantileGK", crate::quantile_gk::quantile_gk_family),
    ("quantilesGK", crate::quantile_gk::quantiles_gk_family),
    ("quantileDD", crate::quantile_dd::quantile_dd_family),
    ("quantilesDD", crate::quantile_dd::quantiles_dd_family),
    ("groupArrayInsertAt", crate::group_arrays::group_array_insert_at_family),
    ("exponentialMovingAverage", crate::sample_stats::exponential_moving_average_family),
    ("histogram", crate::histogram::histogram_family),
    ("largestTriangleThreeBuckets", crate::matrix_stats::largest_triangle_three_buckets_family),
    ("quantileBFloat16", crate::quantile_bfloat16::quantile_bfloat16_family),
    ("quantileTiming", crate::quantile_timing::quantile_timing_family),
    ("quantilesTiming", crate::quantile_timing::quantiles_timing_family),
    ("quantileTimingWeighted", crate::quantile_timing::quantile_timing_weighted_family),
    ("quantilesTimingWeighted", crate::quantile_timing::quantiles_timing_weighted_family),
    ("quantilesBFloat16", crate::quantile_bfloat16::quantiles_bfloat16_family),
    ("quantileBFloat16Weighted", crate::quantile_bfloat16::quantile_bfloat16_weighted_family),
    ("quantilesBFloat16Weighted", crate::quantile_bfloat16::quantiles_bfloat16_weighted_family),
    ("studentTTest", crate::hypothesis_tests::student_t_test_family),
    ("welchTTest", crate::hypothesis_tests::welch_t_test_family),
    ("studentTTestOneSample", crate::hypothesis_tests::student_t_test_one_sample_family),
    ("meanZTest", crate::hypothesis_tests::mean_z_test_family),
    ("mannWhitneyUTest", crate::hypothesis_tests::mann_whitney_u_test_family),
    ("kolmogorovSmirnovTest", crate::hypothesis_tests::kolmogorov_smirnov_test_family),
    ("windowFunnel", crate::funnels::window_funnel_family),
    ("sequenceMatch", crate::sequences::sequence_match_family),
    ("sequenceCount", crate::sequences::sequence_count_family),
    ("sequenceMatchEvents", crate::sequences::sequence_match_events_family),
    ("sequenceNextNode", crate::sequences::sequence_next_node_family),
    ("sumMapFiltered", crate::map_aggregates::sum_map_filtered_family),
    ("sumMapFilteredWithOverflow", crate::map_aggregates::sum_map_filtered_with_overflow_family),
];

/// Other names of families (ClickHouse's aliases: `median` is `quantile`, and a
/// `medianState` is typed `AggregateFunction(quantile, T)`).
pub(crate) const FAMILY_ALIASES: &[(&str, &str)] = &[
    ("median", "quantile"),
    ("medianExact", "quantileExact"),
    ("medianTDigest", "quantileTDigest"),
    ("medianDeterministic", "quantileDeterministic"),
    ("medianExactWeighted", "quantileExactWeighted"),
    ("medianInterpolatedWeighted", "quantileInterpolatedWeighted"),
    ("lttb", "largestTriangleThreeBuckets"),
    ("approx_top_count", "approx_top_k"),
    ("group_concat", "groupConcat"),
    ("sparkBar", "sparkbar"),
    ("medianGK", "quantileGK"),
    ("medianDD", "quantileDD"),
    ("medianBFloat16", "quantileBFloat16"),
    ("medianBFloat16Weighted", "quantileBFloat16Weighted"),
    ("medianTDigestWeighted", "quantileTDigestWeighted"),
    ("medianTiming", "quantileTiming"),
    ("medianTimingWeighted", "quantileTimingWeighted"),
    ("medianExactLow", "quantileExactLow"),
    ("medianExactHigh", "quantileExactHigh"),
];

/// The canonical family named `name` (itself or through an alias).
pub(crate) fn family(name: &str) -> Option<(&'static str, Factory)> {
    let canonical = FAMILY_ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, target)| target);
    FAMILIES
        .iter()
        .find(|(n, _)| *n == canonical)
        // The SQL front end lowercases the names ClickHouse matches in any case.
        .or_else(|| FAMILIES.iter().find(|(n, _)| n.eq_ignore_ascii_case(canonical) && crate::is_case_insensitive(n)))
        .copied()
}

/// The function of each family without parameters, where the family allows that
/// (`quantile(x)` is `quantile(0.5)(x)`; `quantiles(x)` is an error).
pub(crate) fn defaults() -> Vec<AggregateUDF> {
    FAMILIES.iter().filter_map(|(_, factory)| factory(&[]).ok()).collect()
}

/// `f` followed by its parameters as ClickHouse prints them: `quantiles(0.5, 0.9)`,
/// `quantile(1.)` (a float keeps its point), `f` alone without parameters.
pub fn parametric_name(base: &str, params: &[ScalarValue]) -> String {
    if params.is_empty() {
        return base.to_string();
    }
    let texts: Vec<String> = params.iter().map(param_text).collect();
    format!("{base}({})", texts.join(", "))
}

fn param_text(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Float64(Some(f)) => {
            let mut s = format!("{f}");
            if f.is_finite() && !s.contains(['.', 'e', 'E']) {
                s.push('.');
            }
            s
        }
        ScalarValue::Utf8(Some(s)) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        ScalarValue::Null => "NULL".to_string(),
        ScalarValue::List(list) => {
            let values = list.value(0);
            let texts: Vec<String> = (0..values.len()).map(|i| ScalarValue::try_from_array(&values, i).map_or_else(|_| "NULL".to_string(), |v| param_text(&v))).collect();
            format!("[{}]", texts.join(", "))
        }
        other => other.to_string(),
    }
}

/// A parameter given as a number, as ClickHouse reads it (`Float64` with a point or an
/// exponent, else an integer), or `None` when it is no number.
fn number_param(text: &str, negative: bool) -> Option<ScalarValue> {
    let signed = if negative { format!("-{text}") } else { text.to_string() };
    if text.contains(['.', 'e', 'E']) || text.eq_ignore_ascii_case("inf") || text.eq_ignore_ascii_case("nan") {
        return signed.parse::<f64>().ok().map(|f| ScalarValue::Float64(Some(f)));
    }
    if negative {
        signed.parse::<i64>().ok().map(|i| ScalarValue::Int64(Some(i)))
    } else {
        text.parse::<u64>().ok().map(|u| ScalarValue::UInt64(Some(u))).or_else(|| text.parse::<f64>().ok().map(|f| ScalarValue::Float64(Some(f))))
    }
}

/// The parameters of a call, which must be literals.
fn params_of_call(name: &str, params: &[FunctionArg]) -> Result<Vec<ScalarValue>, Error> {
    let not_literal = || {
        Error::new(
            ErrorCode::PARAMETERS_TO_AGGREGATE_FUNCTIONS_MUST_BE_LITERALS,
            format!("Parameters to aggregate functions must be literals. Got parameter of {name}"),
        )
    };
    fn literal(expr: &Expr, not_literal: &dyn Fn() -> Error) -> Result<ScalarValue, Error> {
        let (expr, negative) = match expr {
            Expr::UnaryOp { op: UnaryOperator::Minus, expr } => (expr.as_ref(), true),
            other => (other, false),
        };
        match expr {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => number_param(n, negative).ok_or_else(not_literal),
                Value::SingleQuotedString(s) if !negative => Ok(ScalarValue::Utf8(Some(s.clone()))),
                Value::Null if !negative => Ok(ScalarValue::Null),
                _ => Err(not_literal()),
            },
            Expr::Array(array) if !negative => {
                let elements = array.elem.iter().map(|e| literal(e, not_literal)).collect::<Result<Vec<_>, _>>()?;
                array_param(elements).map_err(Error::from)
            }
            // `[a, b]` after the front end made it ClickHouse's `array(a, b)`.
            Expr::Function(f) if !negative && matches!(f.name.0.as_slice(), [ObjectNamePart::Identifier(ident)] if ident.value == "array") => {
                let FunctionArguments::List(list) = &f.args else { return array_param(Vec::new()).map_err(Error::from) };
                let elements = list
                    .args
                    .iter()
                    .map(|arg| match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => literal(e, not_literal),
                        _ => Err(not_literal()),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                array_param(elements).map_err(Error::from)
            }
            _ => Err(not_literal()),
        }
    }
    params
        .iter()
        .map(|arg| {
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) = arg else { return Err(not_literal()) };
            literal(expr, &not_literal)
        })
        .collect()
}

/// An array parameter (`sumMapFiltered([1, 2])`): its elements in their common type
/// (integers of both signs as Int64, numbers with floats as Float64), as ClickHouse
/// types an array literal; numbers and strings have none.
fn array_param(elements: Vec<ScalarValue>) -> DfResult<ScalarValue> {
    use datafusion::arrow::datatypes::DataType;
    let types: Vec<DataType> = elements.iter().filter(|v| !v.is_null()).map(ScalarValue::data_type).collect();
    let common = match types.first() {
        None => DataType::Null,
        Some(first) if types.iter().all(|t| t == first) => first.clone(),
        Some(_) if types.contains(&DataType::Utf8) => {
            return Err(ch_error(ErrorCode::NO_COMMON_TYPE, "There is no supertype for types of the array parameter because some of them are String/FixedString/Enum and some of them are not"))
        }
        Some(_) if types.contains(&DataType::Float64) => DataType::Float64,
        Some(_) => DataType::Int64,
    };
    let elements = elements.iter().map(|v| if v.is_null() { ScalarValue::try_from(&common) } else { v.cast_to(&common) }).collect::<DfResult<Vec<_>>>()?;
    Ok(ScalarValue::List(ScalarValue::new_list_nullable(&elements, &common)))
}

/// The parameters in a state type's function name (`quantiles(0.5,0.9)`), as written.
fn params_of_text(text: &str) -> DfResult<Vec<ScalarValue>> {
    let bad = || ch_error(ErrorCode::BAD_ARGUMENTS, format!("Cannot read aggregate function parameters ({text})"));
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            // The matching bracket, outside quoted strings.
            let (mut depth, mut quoted, mut escaped, mut end) = (1usize, false, false, None);
            for (i, c) in inner.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' if quoted => escaped = true,
                    '\'' => quoted = !quoted,
                    '[' if !quoted => depth += 1,
                    ']' if !quoted => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let end = end.ok_or_else(bad)?;
            out.push(array_param(params_of_text(&inner[..end])?)?);
            rest = inner[end + 1..].trim_start();
        } else if let Some(quoted) = rest.strip_prefix('\'') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => value.push(chars.next().ok_or_else(bad)?.1),
                    '\'' => {
                        end = Some(i + 1);
                        break;
                    }
                    c => value.push(c),
                }
            }
            out.push(ScalarValue::Utf8(Some(value)));
            rest = quoted[end.ok_or_else(bad)?..].trim_start();
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let item = rest[..end].trim();
            let (digits, negative) = match item.strip_prefix('-') {
                Some(d) => (d, true),
                None => (item, false),
            };
            out.push(if item.eq_ignore_ascii_case("null") { ScalarValue::Null } else { number_param(digits, negative).ok_or_else(bad)? });
            rest = &rest[end..];
        }
        match rest.strip_prefix(',') {
            Some(after) => rest = after.trim_start(),
            None if rest.is_empty() => {}
            None => return Err(bad()),
        }
    }
    Ok(out)
}

/// `name` split into the function and the text inside its parameter parentheses.
/// The parameters in a function name (`topK(3, 4)` -> 3, 4; none without parentheses).
pub(crate) fn params_of_name(name: &str) -> DfResult<Vec<ScalarValue>> {
    match split_params(name).1 {
        Some(text) => params_of_text(text),
        None => Ok(Vec::new()),
    }
}

fn split_params(name: &str) -> (&str, Option<&str>) {
    match name.find('(') {
        Some(open) if name.ends_with(')') => (&name[..open], Some(&name[open + 1..name.len() - 1])),
        _ => (name, None),
    }
}

/// The family of a function name with an optional wrapper suffix (`quantilesMerge`):
/// the family, its factory and the wrapper.
fn family_and_wrapper(name: &str) -> Option<(&'static str, Factory, Option<(&'static str, Comb)>)> {
    if let Some((family, factory)) = family(name) {
        return Some((family, factory, None));
    }
    WRAPPERS.iter().find_map(|(suffix, comb)| {
        let prefix = name.strip_suffix(suffix).filter(|p| !p.is_empty())?;
        let (family, factory) = family(prefix)?;
        Some((family, factory, Some((*suffix, *comb))))
    })
}

/// Whether `name` names a parametric family (or an alias of one), for the combinator
/// rewrites: `quantilesIf` is `quantiles` with `-If`.
pub(crate) fn is_family(name: &str) -> bool {
    family(name).is_some()
}

/// The canonical name of a call of `name` with `params` when it is a parametric
/// function (`medianState` -> `quantileState`, `quantile` with 0.9 -> `quantile(0.9)`),
/// checking the parameters; `None` for other functions.
fn canonical_call_name(name: &str, params: &[ScalarValue]) -> DfResult<Option<String>> {
    let Some((family, factory, wrapper)) = family_and_wrapper(name) else {
        if crate::is_registered_name(name) {
            return Ok(None);
        }
        // A combinator chain (`sumResample(0, 10, 2)`), built once to report bad
        // parameters where the call is written.
        return Ok(crate::chains::resolve(name, params)?.map(|_| parametric_name(name, params)));
    };
    // Builds it once to report bad parameters where the call is written.
    factory(params)?;
    let suffix = wrapper.map_or("", |(s, _)| s);
    let with_params = parametric_name("", params);
    Ok(Some(format!("{family}{suffix}{with_params}")))
}

/// The aggregate a name with parameters resolves to (`quantile(0.9)`,
/// `quantilesMerge(0.5, 0.9)`), built once per process and name; `None` when the
/// name is no parametric function.
pub(crate) fn resolve(name: &str) -> DfResult<Option<Arc<AggregateUDF>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<AggregateUDF>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(found) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return Ok(Some(Arc::clone(found)));
    }
    let (function, params_text) = split_params(name);
    let family = family_and_wrapper(function);
    if family.is_none() && (params_text.is_none() && crate::is_registered_name(function) || !crate::chains::is_chain(function)) {
        return Ok(None);
    }
    let params = match params_text {
        Some(text) => params_of_text(text)?,
        None => Vec::new(),
    };
    let udaf = match family {
        Some((family, factory, wrapper)) => {
            let base = Arc::new(factory(&params)?);
            match wrapper {
                None => base,
                Some((suffix, comb)) => {
                    let with_params = parametric_name("", &params);
                    Arc::new(crate::combinators::wrap(format!("{family}{suffix}{with_params}"), comb, base))
                }
            }
        }
        None => match crate::chains::resolve(function, &params)? {
            Some(chain) => chain,
            None => return Ok(None),
        },
    };
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    // Names come from queries; past this many distinct ones they are built per call.
    if cache.len() < 4096 {
        cache.insert(name.to_string(), Arc::clone(&udaf));
    }
    Ok(Some(udaf))
}

/// Rewrites a call with parameters (`quantile(0.9)(x)`) into a call of the function
/// named with them (`"quantile(0.9)"(x)`), and a call of an alias of a parametric
/// family with a combinator (`medianState`) to its canonical name. Fails with
/// ClickHouse's errors for bad parameters and for parameters to a function that takes
/// none.
pub(crate) fn rewrite_parametric_call(function: &mut Function, is_aggregate: &dyn Fn(&str) -> bool) -> Result<(), Error> {
    let [ObjectNamePart::Identifier(ident)] = function.name.0.as_slice() else { return Ok(()) };
    let name = ident.value.clone();
    let params = match &function.parameters {
        FunctionArguments::List(list) => params_of_call(&name, &list.args)?,
        FunctionArguments::None => Vec::new(),
        FunctionArguments::Subquery(_) => return Err(Error::new(ErrorCode::PARAMETERS_TO_AGGREGATE_FUNCTIONS_MUST_BE_LITERALS, format!("Parameters to aggregate functions must be literals. Got parameter of {name}"))),
    };
    let has_params = !matches!(function.parameters, FunctionArguments::None);
    match canonical_call_name(&name, &params).map_err(Error::from)? {
        Some(canonical) => {
            if canonical != name {
                function.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote('"', canonical))]);
            }
            function.parameters = FunctionArguments::None;
            Ok(())
        }
        None if has_params && is_aggregate(&name) => Err(doesnt_allow_parameters(&name)),
        None if has_params => match WRAPPERS.iter().find_map(|(suffix, _)| name.strip_suffix(suffix).filter(|base| is_aggregate(base))) {
            Some(base) => Err(doesnt_allow_parameters(base)),
            None => match crate::combinators::split_combinators(&name, is_aggregate) {
                Some((base, _)) => Err(doesnt_allow_parameters(base)),
                None => Err(Error::new(ErrorCode::UNKNOWN_AGGREGATE_FUNCTION, format!("Unknown aggregate function {name}"))),
            },
        },
        None => Ok(()),
    }
}

fn doesnt_allow_parameters(name: &str) -> Error {
    // The base function is named, as ClickHouse does: `uniqState(1)` is about `uniq`.
    const SUFFIXES: &[&str] = &["MergeState", "Merge", "SimpleState", "State", "OrNull", "OrDefault", "Array", "IfForEach", "ForEach", "If", "Distinct"];
    let bases = crate::aggregate::aggregates();
    let is_base = |n: &str| bases.iter().any(|f| f.name() == n) || crate::registry::ALIASES.iter().any(|(alias, _)| *alias == n);
    let mut base = name;
    while !is_base(base) {
        match SUFFIXES.iter().find_map(|s| base.strip_suffix(s).filter(|b| !b.is_empty())) {
            Some(shorter) => base = shorter,
            None => {
                base = name;
                break;
            }
        }
    }
    Error::new(ErrorCode::AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS, format!("Aggregate function {base} cannot have parameters"))
}

/// The parametric aggregates a prepared statement calls, which the query's session must
/// know before planning (their names are made per call).
pub fn parametric_aggregates(statement: &Statement) -> granary_common::Result<Vec<Arc<AggregateUDF>>> {
    let mut out: Vec<Arc<AggregateUDF>> = Vec::new();
    let mut error = None;
    let _ = datafusion::sql::sqlparser::ast::visit_expressions(statement, |expr| {
        if let Expr::Function(function) = expr {
            if let [ObjectNamePart::Identifier(ident)] = function.name.0.as_slice() {
                // Names with parameters, and combinator chains the registry does not hold.
                let made_per_call = ident.value.contains('(') || !crate::is_registered_name(&ident.value);
                if made_per_call && !out.iter().any(|f| f.name() == ident.value) {
                    match resolve(&ident.value) {
                        Ok(Some(udaf)) => out.push(udaf),
                        Ok(None) => {}
                        Err(e) => {
                            error = Some(Error::from(e));
                            return std::ops::ControlFlow::Break(());
                        }
                    }
                }
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_print_parameters_as_clickhouse() {
        let p = |s: &str| params_of_text(s).unwrap();
        assert_eq!(parametric_name("quantiles", &p("0.5,0.9")), "quantiles(0.5, 0.9)");
        assert_eq!(parametric_name("quantile", &p("1.")), "quantile(1.)");
        assert_eq!(parametric_name("quantile", &p("0.50")), "quantile(0.5)");
        assert_eq!(parametric_name("topK", &p("10")), "topK(10)");
        assert_eq!(parametric_name("f", &p(r"-3, 'a\'b'")), r"f(-3, 'a\'b')");
        assert_eq!(parametric_name("quantile", &[]), "quantile");
        assert!(params_of_text("0.5 0.9").is_err());
    }

    #[test]
    fn resolves_families_and_wrappers() {
        let f = resolve("quantilesMerge(0.5,0.9)").unwrap().unwrap();
        assert_eq!(f.name(), "quantilesMerge(0.5, 0.9)");
        assert_eq!(resolve("quantile(0.9)").unwrap().unwrap().name(), "quantile(0.9)");
        assert_eq!(resolve("median").unwrap().unwrap().name(), "quantile");
        assert!(resolve("sum").unwrap().is_none());
        assert_eq!(Error::from(resolve("quantile(1.5)").unwrap_err()).code(), ErrorCode::PARAMETER_OUT_OF_BOUND);
    }
}
