//! `FROM t [AS a] SAMPLE k [OFFSET m]`: the ratios read as ClickHouse's ParserSampleRatio
//! reads them, and the table reference planned as a scan of the sample.
//!
//! DataFusion's planner drops a table's `SAMPLE`; [`SamplePlanner`], a relation planner
//! ahead of it, plans a sampled table itself: the same scan under the table's own name
//! (so privileges, `system.query_log` and qualified columns see the table), over a
//! provider that asks the engine for the sample ([`granary_storage::TableEngine::scan_sample`]).
//! Which rows a sample holds is the engine's business (MergeTree: a range of its
//! sampling key, `granary_mergetree::sample`).

use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::datasource::{provider_as_source, source_as_provider};
use datafusion::logical_expr::planner::{PlannedRelation, RelationPlanner, RelationPlannerContext, RelationPlanning};
use datafusion::logical_expr::LogicalPlanBuilder;
use datafusion::sql::sqlparser::ast::{self, BinaryOperator, Expr, TableFactor, TableSampleKind};
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineTableProvider, SampleClause, SampleRatio};

/// The `SAMPLE` of a table factor, if it has one.
pub(crate) fn sample_of(kind: &TableSampleKind) -> Result<SampleClause> {
    let (TableSampleKind::BeforeTableAlias(sample) | TableSampleKind::AfterTableAlias(sample)) = kind;
    // ClickHouse knows `SAMPLE` only, not the standard's `TABLESAMPLE`.
    let size = match &sample.quantity {
        Some(quantity) if sample.modifier == ast::TableSampleModifier::Sample && sample.name.is_none() && sample.seed.is_none() && sample.bucket.is_none() && quantity.unit.is_none() && !quantity.parenthesized => ratio(&quantity.value)?,
        _ => return Err(syntax_error(&sample.to_string())),
    };
    let offset = sample.offset.as_ref().map(ratio).transpose()?;
    Ok(SampleClause { size, offset })
}

fn syntax_error(text: &str) -> Error {
    Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {text}. Expected Sample ratio or offset"))
}

/// `0.1`, `1/10`, `1e-1`, `123.0 / 456e0`: a number or a fraction of two.
fn ratio(expr: &Expr) -> Result<SampleRatio> {
    let number = |e: &Expr| match e {
        Expr::Value(v) => match &v.value {
            ast::Value::Number(text, false) => decimal(text),
            _ => None,
        },
        _ => None,
    };
    let fraction = |n: &Expr, d: &Expr| {
        let (n, d) = (number(n)?, number(d)?);
        Some(SampleRatio { numerator: n.numerator.saturating_mul(d.denominator), denominator: n.denominator.saturating_mul(d.numerator) })
    };
    let parsed = match expr {
        Expr::BinaryOp { left, op: BinaryOperator::Divide, right } => fraction(left, right),
        // The SQL front end writes `/` as ClickHouse's `divide`.
        Expr::Function(f) if f.name.0.len() == 1 && f.name.0[0].as_ident().is_some_and(|i| i.value == "divide") => match &f.args {
            ast::FunctionArguments::List(list) => match list.args.as_slice() {
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(n)), ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(d))] => fraction(n, d),
                _ => None,
            },
            _ => None,
        },
        other => number(other),
    };
    parsed.ok_or_else(|| syntax_error(&expr.to_string()))
}

/// Digits from the start of `text`, saturating at `u128::MAX`, and how many there were.
fn digits(text: &str) -> (u128, usize) {
    let count = text.bytes().take_while(u8::is_ascii_digit).count();
    let value = text.as_bytes()[..count].iter().fold(0u128, |acc, &b| acc.checked_mul(10).and_then(|v| v.checked_add(u128::from(b - b'0'))).unwrap_or(u128::MAX));
    (value, count)
}

/// `10^exponent`, saturating.
fn pow10(exponent: u64) -> u128 {
    u32::try_from(exponent).ok().and_then(|e| 10u128.checked_pow(e)).unwrap_or(u128::MAX)
}

/// A decimal number as an unreduced fraction, as ClickHouse's parseDecimal makes it:
/// `0.25` is 25/100, `1.5e2` is 1500/10, `2e-3` is 2/1000.
fn decimal(text: &str) -> Option<SampleRatio> {
    let (before, before_digits) = digits(text);
    let mut rest = &text[before_digits..];
    let point = rest.starts_with('.');
    if point {
        rest = &rest[1..];
    }
    if before_digits == 0 && !point {
        return None;
    }
    let (after, after_digits) = if point { digits(rest) } else { (0, 0) };
    rest = &rest[after_digits..];
    let mut exponent: i64 = 0;
    if let Some(e) = rest.strip_prefix(['e', 'E']) {
        let (negative, unsigned) = match e.as_bytes().first() {
            Some(b'-') => (true, &e[1..]),
            Some(b'+') => (false, &e[1..]),
            _ => (false, e),
        };
        let count = unsigned.bytes().take_while(u8::is_ascii_digit).count();
        if count == 0 || count != unsigned.len() {
            return None;
        }
        let magnitude: i64 = unsigned.parse().ok()?;
        exponent = if negative { -magnitude } else { magnitude };
    } else if !rest.is_empty() {
        return None;
    }
    let scale = pow10(after_digits as u64);
    let mut numerator = before.saturating_mul(scale).saturating_add(after);
    let mut denominator = scale;
    if exponent > 0 {
        numerator = numerator.saturating_mul(pow10(exponent.unsigned_abs()));
    } else if exponent < 0 {
        denominator = denominator.saturating_mul(pow10(exponent.unsigned_abs()));
    }
    Some(SampleRatio { numerator, denominator })
}

/// Plans `t SAMPLE k` (see the module's comment); every other table factor is left to
/// DataFusion.
#[derive(Debug)]
pub(crate) struct SamplePlanner;

impl RelationPlanner for SamplePlanner {
    fn plan_relation(&self, relation: TableFactor, context: &mut dyn RelationPlannerContext) -> datafusion::common::Result<RelationPlanning> {
        let TableFactor::Table { name, alias, args, sample: Some(kind), .. } = &relation else {
            return Ok(RelationPlanning::Original(Box::new(relation)));
        };
        let sample = sample_of(kind)?;
        if args.is_some() {
            return plan_sampled_function(relation.clone(), sample, context);
        }
        let reference = context.object_name_to_table_reference(name.clone())?;
        let source = context.context_provider().get_table_source(reference.clone())?;
        let provider = source_as_provider(&source)?;
        let sampled = (provider.as_ref() as &dyn std::any::Any)
            .downcast_ref::<EngineTableProvider>()
            .filter(|p| p.table().engine.supports_sampling())
            .map(|p| p.with_sample(sample))
            .ok_or_else(|| Error::new(ErrorCode::SAMPLING_NOT_SUPPORTED, format!("Storage {reference} doesn't support sampling")))?;
        let plan = LogicalPlanBuilder::scan(reference, provider_as_source(Arc::new(sampled) as Arc<dyn TableProvider>), None)?.build()?;
        Ok(RelationPlanning::Planned(Box::new(PlannedRelation::new(plan, alias.clone()))))
    }
}

/// `merge(...) SAMPLE k`: the table function planned as DataFusion plans it, its
/// provider given the sample. Other table functions cannot sample.
fn plan_sampled_function(relation: TableFactor, sample: SampleClause, context: &mut dyn RelationPlannerContext) -> datafusion::common::Result<RelationPlanning> {
    let TableFactor::Table { name, alias, args, with_hints, version, with_ordinality, partitions, json_path, index_hints, .. } = relation else {
        return Ok(RelationPlanning::Original(Box::new(relation)));
    };
    let unsupported = || Error::new(ErrorCode::SAMPLING_NOT_SUPPORTED, format!("Storage _table_function.{name} doesn't support sampling"));
    let unsampled = TableFactor::Table { name: name.clone(), alias: None, args, with_hints, version, with_ordinality, partitions, json_path, sample: None, index_hints };
    let datafusion::logical_expr::LogicalPlan::TableScan(scan) = context.plan(unsampled)? else { return Err(unsupported().into()) };
    let provider = source_as_provider(&scan.source)?;
    let merge = (provider.as_ref() as &dyn std::any::Any).downcast_ref::<crate::table_functions::MergeTable>().ok_or_else(unsupported)?;
    let sampled: Arc<dyn TableProvider> = Arc::new(merge.with_sample(sample));
    let plan = LogicalPlanBuilder::scan(scan.table_name.clone(), provider_as_source(sampled), None)?.build()?;
    Ok(RelationPlanning::Planned(Box::new(PlannedRelation::new(plan, alias))))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn fraction(text: &str) -> (u128, u128) {
        let r = decimal(text).unwrap();
        (r.numerator, r.denominator)
    }

    #[test]
    fn decimals_as_clickhouse_reads_them() {
        assert_eq!(fraction("0.1"), (1, 10));
        assert_eq!(fraction("0.10"), (10, 100));
        assert_eq!(fraction("1000"), (1000, 1));
        assert_eq!(fraction("1."), (1, 1));
        assert_eq!(fraction("1e-1"), (1, 10));
        assert_eq!(fraction("1E1"), (10, 1));
        assert_eq!(fraction("0.1e1"), (10, 10));
        assert_eq!(fraction("99999999999999999999999999999999999999999"), (u128::MAX, 1));
        assert!(decimal("1e").is_none());
        assert!(decimal("abc").is_none());
    }
}
