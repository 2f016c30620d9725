//! Pruning through monotonic functions, as ClickHouse's `KeyCondition` does.
//!
//! DataFusion's `PruningPredicate` understands comparisons of *columns* with literals.
//! Two common shapes need more:
//!
//! * the filter applies a function to a key column: `ORDER BY ts` and
//!   `WHERE toDate(ts) = '2024-01-01'`;
//! * the key applies a function to the filtered column: `ORDER BY toStartOfHour(ts)`
//!   (or `PARTITION BY toYYYYMM(d)`) and `WHERE ts >= '2024-01-01 10:30:00'`.
//!
//! Both are answered with *virtual columns* added to the pruning schema:
//!
//! * `Derived`: a monotonic (non-decreasing) expression `f(c)` of a column with
//!   statistics. Its bounds are `f(min c)` and `f(max c)`: for non-decreasing `f`,
//!   every value in the range maps into `[f(min), f(max)]`. The filter's `f(c)` is
//!   replaced by the virtual column.
//! * `KeyElement(j)`: sorting-key element `j` when it is an expression, with the
//!   primary index's own values as bounds. A comparison `c op lit` on a column that key
//!   element `j = f(c)` is monotonic in adds the weaker condition `key_j op' f(lit)`
//!   (`>` becomes `>=`, `<` becomes `<=`: `f` may map distinct values together), and
//!   a filter that spells the key expression itself uses the virtual column directly.
//!
//! Only functions known to be non-decreasing on their whole domain qualify (date and
//! time roundings, `toYYYYMM`, `toYear`, `plus`/`minus` of a constant, `intDiv` and
//! `multiply` by a positive constant, widening casts). `toMonth`, `toHour` and the like
//! wrap around and are never used. Anything not understood keeps every granule.

use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayRef};
use arrow::datatypes::{i256, DataType, Field, Schema, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{utils::conjunction, Expr, Operator};
use datafusion::physical_expr::expressions::{BinaryExpr, CastExpr, Column, InListExpr, Literal};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
use datafusion::physical_optimizer::pruning::{PruningPredicate, PruningPredicateBuilder};

use granary_types::wide::unsigned_order_key;
use granary_types::ChType;

use crate::keys::TableKeys;

/// Where a virtual column's statistics come from.
#[derive(Debug, Clone)]
pub enum VirtualSource {
    /// Sorting-key element `j` (an expression): the primary index holds its values.
    KeyElement(usize),
    /// `expr` (over the table schema) of table column `column`, non-decreasing in it.
    Derived { column: usize, expr: Arc<dyn PhysicalExpr> },
    /// Sorting-key element `j`, a `UInt256` column, as its unsigned order keys
    /// (`granary_types::wide::unsigned_order_key`): the primary index's values of it
    /// mapped so that Arrow compares them as ClickHouse does.
    UnsignedKey(usize),
}

#[derive(Debug, Clone)]
pub struct VirtualColumn {
    pub name: String,
    pub source: VirtualSource,
}

/// The pruning predicate of a scan, over the table schema plus virtual columns.
#[derive(Debug)]
pub struct Pruning {
    pub predicate: Arc<PruningPredicate>,
    pub virtual_columns: Vec<VirtualColumn>,
}

impl Pruning {
    /// Plans pruning for `filters`; None when nothing can be pruned.
    pub fn plan(session: &dyn datafusion::catalog::Session, schema: &SchemaRef, keys: &TableKeys, filters: &[Expr]) -> Option<Pruning> {
        let df_schema = DFSchema::try_from(schema.as_ref().clone()).ok()?;
        // A filter we cannot plan (unusual types) only costs pruning, not results.
        let physical = session.create_physical_expr(conjunction(filters.iter().cloned())?, &df_schema).ok()?;
        Self::of_physical(schema, keys, physical)
    }

    /// Plans pruning for a filter already planned over the table schema.
    pub fn of_physical(schema: &SchemaRef, keys: &TableKeys, physical: Arc<dyn PhysicalExpr>) -> Option<Pruning> {
        let mut builder = Builder { schema, keys, virtual_columns: Vec::new(), fields: Vec::new() };
        let mut predicate = builder.rewrite(physical.clone());
        for derived in builder.key_conditions(&physical) {
            predicate = Arc::new(BinaryExpr::new(predicate, Operator::And, derived));
        }
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        fields.extend(builder.fields);
        let extended = Arc::new(Schema::new(fields));
        let predicate = PruningPredicateBuilder::new().with_file_schema(extended).build(predicate)?;
        Some(Pruning { predicate, virtual_columns: builder.virtual_columns })
    }

    pub fn virtual_column(&self, name: &str) -> Option<&VirtualColumn> {
        self.virtual_columns.iter().find(|v| v.name == name)
    }
}

/// Bounds of a `Derived` column from the bounds of its source column.
pub fn derived_bounds(schema: &SchemaRef, column: usize, expr: &Arc<dyn PhysicalExpr>, bounds: ArrayRef) -> Option<ArrayRef> {
    let rows = bounds.len();
    let columns: Vec<ArrayRef> =
        schema.fields().iter().enumerate().map(|(i, f)| if i == column { bounds.clone() } else { new_null_array(f.data_type(), rows) }).collect();
    // Null placeholders in non-nullable fields: the expression never reads them.
    let relaxed = Arc::new(Schema::new(schema.fields().iter().map(|f| f.as_ref().clone().with_nullable(true)).collect::<Vec<_>>()));
    let batch = RecordBatch::try_new_with_options(relaxed, columns, &RecordBatchOptions::new().with_row_count(Some(rows))).ok()?;
    expr.evaluate(&batch).ok()?.into_array(rows).ok()
}

struct Builder<'a> {
    schema: &'a SchemaRef,
    keys: &'a TableKeys,
    virtual_columns: Vec<VirtualColumn>,
    fields: Vec<Field>,
}

impl Builder<'_> {
    fn add(&mut self, source: VirtualSource, data_type: DataType) -> Arc<dyn PhysicalExpr> {
        let name = format!("__granary_pruning_{}", self.virtual_columns.len());
        let index = self.schema.fields().len() + self.virtual_columns.len();
        self.fields.push(Field::new(&name, data_type, true));
        self.virtual_columns.push(VirtualColumn { name: name.clone(), source });
        Arc::new(Column::new(&name, index))
    }

    /// Table columns with statistics: bare primary-key columns and partition columns.
    fn has_stats(&self, column: usize) -> bool {
        self.keys.primary().iter().any(|k| k.column == Some(column)) || self.keys.partition_columns.contains(&column)
    }

    /// Replaces key expressions and monotonic expressions of columns with statistics
    /// by virtual columns, top-down (the largest matching subexpression wins).
    fn rewrite(&mut self, expr: Arc<dyn PhysicalExpr>) -> Arc<dyn PhysicalExpr> {
        let rewritten = expr.clone().transform_down(|e| {
            if e.downcast_ref::<Column>().is_some() || e.downcast_ref::<Literal>().is_some() {
                return Ok(Transformed::no(e));
            }
            if let Some(comparison) = self.unsigned_key_comparison(&e) {
                return Ok(Transformed::new(comparison, true, datafusion::common::tree_node::TreeNodeRecursion::Jump));
            }
            let text = e.to_string();
            if let Some(j) = self.keys.primary().iter().position(|k| k.column.is_none() && k.expr.to_string() == text) {
                let data_type = self.keys.sorting[j].data_type.clone();
                return Ok(Transformed::new(self.add(VirtualSource::KeyElement(j), data_type), true, datafusion::common::tree_node::TreeNodeRecursion::Jump));
            }
            if let Some(column) = monotonic_in(&e, self.schema) {
                if self.has_stats(column) {
                    if let Ok(data_type) = e.data_type(self.schema) {
                        let virtual_column = self.add(VirtualSource::Derived { column, expr: e.clone() }, data_type);
                        return Ok(Transformed::new(virtual_column, true, datafusion::common::tree_node::TreeNodeRecursion::Jump));
                    }
                }
            }
            Ok(Transformed::no(e))
        });
        match rewritten {
            Ok(t) => t.data,
            Err(_) => expr,
        }
    }

    /// A comparison of a `UInt256` key column with a constant, as the query planner
    /// leaves it (`greater(k, lit) != 0`, ClickHouse's comparison of wide words), as a
    /// comparison of [`VirtualSource::UnsignedKey`] with the constant's key. None for
    /// anything else, and for constants below zero (which no `UInt256` equals).
    fn unsigned_key_comparison(&mut self, expr: &Arc<dyn PhysicalExpr>) -> Option<Arc<dyn PhysicalExpr>> {
        if let Some(in_list) = expr.downcast_ref::<InListExpr>() {
            return self.unsigned_key_in_list(in_list);
        }
        if let Some(equality) = self.unsigned_key_equality(expr) {
            return Some(equality);
        }
        let test = expr.downcast_ref::<BinaryExpr>().filter(|b| *b.op() == Operator::NotEq)?;
        if !test.right().downcast_ref::<Literal>().is_some_and(|zero| zero.value() == &ScalarValue::UInt8(Some(0))) {
            return None;
        }
        let function = test.left().downcast_ref::<ScalarFunctionExpr>()?;
        let op = match function.name() {
            "equals" => Operator::Eq,
            "notEquals" => Operator::NotEq,
            "less" => Operator::Lt,
            "greater" => Operator::Gt,
            "lessOrEquals" => Operator::LtEq,
            "greaterOrEquals" => Operator::GtEq,
            _ => return None,
        };
        let (column, literal, op) = match function.args() {
            [a, b] => match (a.downcast_ref::<Column>(), b.downcast_ref::<Literal>(), b.downcast_ref::<Column>(), a.downcast_ref::<Literal>()) {
                (Some(c), Some(l), _, _) => (c.index(), l, op),
                (_, _, Some(c), Some(l)) => (c.index(), l, op.swap()?),
                _ => return None,
            },
            _ => return None,
        };
        let j = self.keys.primary().iter().position(|k| k.unsigned_words && k.column == Some(column))?;
        let literal_is_uint256 = literal.return_field(self.schema).ok().is_some_and(|f| ChType::from_field(&f).base() == &ChType::UInt256);
        let value = match literal.value() {
            ScalarValue::Decimal256(Some(v), _, 0) => *v,
            ScalarValue::Decimal128(Some(v), _, 0) => i256::from_i128(*v),
            ScalarValue::Int8(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::Int16(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::Int32(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::Int64(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::UInt8(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::UInt16(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::UInt32(Some(v)) => i256::from_i128(i128::from(*v)),
            ScalarValue::UInt64(Some(v)) => i256::from_i128(i128::from(*v)),
            // Floats, NULL and the rest: no pruning.
            _ => return None,
        };
        if value.is_negative() && !literal_is_uint256 {
            return None;
        }
        let data_type = self.keys.sorting[j].data_type.clone();
        let key = Literal::new(ScalarValue::Decimal256(Some(unsigned_order_key(value)), 76, 0));
        Some(Arc::new(BinaryExpr::new(self.add(VirtualSource::UnsignedKey(j), data_type), op, Arc::new(key))))
    }

    /// `k = w` or `k != w` of a `UInt256` key column and a word of its type, as DataFusion
    /// compares them (an `IN` list of a few items becomes such equalities), over
    /// [`VirtualSource::UnsignedKey`].
    fn unsigned_key_equality(&mut self, expr: &Arc<dyn PhysicalExpr>) -> Option<Arc<dyn PhysicalExpr>> {
        let binary = expr.downcast_ref::<BinaryExpr>().filter(|b| matches!(b.op(), Operator::Eq | Operator::NotEq))?;
        let (column, literal) = match (binary.left().downcast_ref::<Column>(), binary.right().downcast_ref::<Literal>()) {
            (Some(c), Some(l)) => (c, l),
            _ => (binary.right().downcast_ref::<Column>()?, binary.left().downcast_ref::<Literal>()?),
        };
        let j = self.unsigned_key_element(column)?;
        let key = word_key(literal)?;
        let data_type = self.keys.sorting[j].data_type.clone();
        Some(Arc::new(BinaryExpr::new(self.add(VirtualSource::UnsignedKey(j), data_type), *binary.op(), key)))
    }

    /// The primary-key element that is `UInt256` column `column`.
    fn unsigned_key_element(&self, column: &Column) -> Option<usize> {
        self.keys.primary().iter().position(|k| k.unsigned_words && k.column == Some(column.index()))
    }

    /// `k IN (w1, w2, ...)` of a `UInt256` key column over [`VirtualSource::UnsignedKey`]:
    /// the list holds words of the column's type (DataFusion cast it), which match by
    /// their bits, so their keys are exact.
    fn unsigned_key_in_list(&mut self, in_list: &InListExpr) -> Option<Arc<dyn PhysicalExpr>> {
        let j = self.unsigned_key_element(in_list.expr().downcast_ref::<Column>()?)?;
        let keys = in_list.list().iter().map(|item| word_key(item.downcast_ref::<Literal>()?)).collect::<Option<Vec<_>>>()?;
        let data_type = self.keys.sorting[j].data_type.clone();
        let key_column = self.add(VirtualSource::UnsignedKey(j), data_type);
        // The list is checked against the schema the virtual column is part of.
        let extended = Schema::new(self.schema.fields().iter().map(|f| f.as_ref().clone()).chain(self.fields.iter().cloned()).collect::<Vec<_>>());
        Some(Arc::new(InListExpr::try_new(key_column, keys, in_list.negated(), &extended).ok()?))
    }

    /// `c op lit` conjuncts on columns that an expression key element is monotonic in,
    /// turned into conditions on that key element.
    fn key_conditions(&mut self, predicate: &Arc<dyn PhysicalExpr>) -> Vec<Arc<dyn PhysicalExpr>> {
        let mut out = Vec::new();
        let mut conjuncts = Vec::new();
        split_and(predicate, &mut conjuncts);
        for conjunct in conjuncts {
            let Some(binary) = conjunct.downcast_ref::<BinaryExpr>() else { continue };
            let (column, op, literal) = match (binary.left().downcast_ref::<Column>(), binary.right().downcast_ref::<Literal>()) {
                (Some(c), Some(l)) => (c.index(), *binary.op(), l.value().clone()),
                _ => match (binary.left().downcast_ref::<Literal>(), binary.right().downcast_ref::<Column>()) {
                    (Some(l), Some(c)) => match binary.op().swap() {
                        Some(op) => (c.index(), op, l.value().clone()),
                        None => continue,
                    },
                    _ => continue,
                },
            };
            let weaker = match op {
                Operator::Eq => Operator::Eq,
                Operator::Gt | Operator::GtEq => Operator::GtEq,
                Operator::Lt | Operator::LtEq => Operator::LtEq,
                _ => continue,
            };
            for j in 0..self.keys.primary_len {
                let key = &self.keys.sorting[j];
                if key.column.is_some() || monotonic_in(&key.expr, self.schema) != Some(column) {
                    continue;
                }
                let Some(image) = image_of(self.schema, column, &key.expr, &literal) else { continue };
                if image.is_null() {
                    continue;
                }
                let virtual_column = self.add(VirtualSource::KeyElement(j), key.data_type.clone());
                out.push(Arc::new(BinaryExpr::new(virtual_column, weaker, Arc::new(Literal::new(image)))) as Arc<dyn PhysicalExpr>);
            }
        }
        out
    }
}

/// The unsigned order key of a `Decimal256` literal's word (a `UInt256` column's value).
fn word_key(literal: &Literal) -> Option<Arc<dyn PhysicalExpr>> {
    match literal.value() {
        ScalarValue::Decimal256(Some(word), precision, scale) => {
            Some(Arc::new(Literal::new(ScalarValue::Decimal256(Some(unsigned_order_key(*word)), *precision, *scale))))
        }
        _ => None,
    }
}

fn split_and(expr: &Arc<dyn PhysicalExpr>, out: &mut Vec<Arc<dyn PhysicalExpr>>) {
    match expr.downcast_ref::<BinaryExpr>() {
        Some(b) if *b.op() == Operator::And => {
            split_and(b.left(), out);
            split_and(b.right(), out);
        }
        _ => out.push(expr.clone()),
    }
}

/// `f(lit)` for the key expression `f` of `column`.
fn image_of(schema: &SchemaRef, column: usize, expr: &Arc<dyn PhysicalExpr>, literal: &ScalarValue) -> Option<ScalarValue> {
    let value = literal.cast_to(schema.field(column).data_type()).ok()?;
    let array = derived_bounds(schema, column, expr, value.to_array().ok()?)?;
    ScalarValue::try_from_array(&array, 0).ok()
}

/// The table column `expr` is a non-decreasing function of, if it is one: a chain of
/// the functions below, each with one non-constant argument, ending at a column.
pub fn monotonic_in(expr: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Option<usize> {
    if let Some(c) = expr.downcast_ref::<Column>() {
        return Some(c.index());
    }
    if let Some(cast) = expr.downcast_ref::<CastExpr>() {
        // Casts between numbers and dates/times keep order (narrowing ones may wrap);
        // from strings they do not.
        let ordered = |t: &DataType| t.is_numeric() || t.is_temporal();
        let widening = match cast.expr().data_type(schema) {
            Ok(from) => ordered(&from) && ordered(cast.cast_type()) && from.primitive_width() <= cast.cast_type().primitive_width(),
            Err(_) => false,
        };
        return if widening { monotonic_in(cast.expr(), schema) } else { None };
    }
    let function = expr.downcast_ref::<ScalarFunctionExpr>()?;
    let args = function.args();
    let is_literal = |e: &Arc<dyn PhysicalExpr>| e.downcast_ref::<Literal>().is_some();
    let positive_literal = |e: &Arc<dyn PhysicalExpr>| {
        e.downcast_ref::<Literal>().is_some_and(|l| {
            let v = l.value();
            !v.is_null() && v.data_type().is_numeric() && v.partial_cmp(&ScalarValue::new_zero(&v.data_type()).unwrap_or(ScalarValue::Null)) == Some(std::cmp::Ordering::Greater)
        })
    };
    match function.name() {
        // Roundings and conversions of dates and times; an optional time zone argument.
        "toDate" | "toDate32" | "toDateTime" | "toDateTime64" | "toStartOfDay" | "toStartOfHour" | "toStartOfMinute" | "toStartOfSecond"
        | "toStartOfFiveMinutes" | "toStartOfFiveMinute" | "toStartOfTenMinutes" | "toStartOfFifteenMinutes" | "toStartOfMonth"
        | "toStartOfQuarter" | "toStartOfYear" | "toMonday" | "toStartOfWeek" | "toStartOfInterval" | "toYYYYMM" | "toYYYYMMDD"
        | "toYYYYMMDDhhmmss" | "toYear" | "toUnixTimestamp" | "toRelativeDayNum" | "toRelativeHourNum" | "toRelativeMonthNum"
        | "toRelativeYearNum" | "toFloat64" => match args.split_first() {
            Some((first, rest)) if rest.iter().all(is_literal) => monotonic_in(first, schema),
            _ => None,
        },
        "plus" => match args {
            [a, b] if is_literal(b) => monotonic_in(a, schema),
            [a, b] if is_literal(a) => monotonic_in(b, schema),
            _ => None,
        },
        "minus" => match args {
            [a, b] if is_literal(b) => monotonic_in(a, schema),
            _ => None,
        },
        "intDiv" | "divide" => match args {
            [a, b] if positive_literal(b) => monotonic_in(a, schema),
            _ => None,
        },
        "multiply" => match args {
            [a, b] if positive_literal(b) => monotonic_in(a, schema),
            [a, b] if positive_literal(a) => monotonic_in(b, schema),
            _ => None,
        },
        _ => None,
    }
}
