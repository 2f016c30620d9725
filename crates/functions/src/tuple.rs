//! `tuple(a, b, ...)`: an unnamed `Tuple(T1, T2, ...)` of its arguments (elements keep
//! their own types and NULLs; the tuple itself is never NULL; `(a, b)` in a SELECT list
//! is this call). `map(k1, v1, k2, v2, ...)`: a `Map(K, V)` of one entry per pair, `K`
//! and `V` the least supertypes of the keys and of the values. `tupleElement(t, n |
//! 'name' [, default])`: one element (`t.1` in SQL), also of each tuple of an array.

use std::sync::Arc;


use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, MapArray, StructArray};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, Arity};
use crate::conditional::to_type;
use crate::func::ScalarDef;
use crate::supertype::least_supertype_of_args;

fn tuple() -> ScalarUDF {
    ScalarDef::new(
        "tuple",
        Arity::at_least(0),
        |ctx| Ok(ChType::Tuple((0..ctx.arg_count()).map(|i| ((i + 1).to_string(), ctx.ch(i))).collect())),
        |ctx| {
            let DataType::Struct(fields) = ctx.ret_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "tuple() must return a Struct"));
            };
            if fields.is_empty() {
                return Ok(Arc::new(StructArray::new_empty_fields(ctx.len, None)));
            }
            let columns = (0..ctx.args.len()).map(|i| ctx.array(i)).collect::<Result<Vec<ArrayRef>, _>>()?;
            Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?))
        },
    )
    .custom_nulls()
    .build()
}

fn map() -> ScalarUDF {
    let mut def = ScalarDef::new(
        "map",
        Arity::at_least(0),
        |ctx| {
            let n = ctx.arg_count();
            if n % 2 != 0 {
                return Err(ch_error(
                    granary_common::ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!("Function map requires even number of arguments, but {n} given"),
                ));
            }
            let keys: Vec<usize> = (0..n).step_by(2).collect();
            let values: Vec<usize> = (1..n).step_by(2).collect();
            let key = crate::supertype::low_cardinality_if_all(ctx, &keys, least_supertype_of_args(ctx, &keys)?);
            let value = crate::supertype::low_cardinality_if_all(ctx, &values, least_supertype_of_args(ctx, &values)?);
            Ok(ChType::Map(Box::new(key), Box::new(value)))
        },
        |ctx| {
            let ChType::Map(key_type, value_type) = ctx.ret_ch() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "map() must return a Map"));
            };
            let DataType::Map(entries_field, _) = ctx.ret_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "map() must return an Arrow Map"));
            };
            let DataType::Struct(entry_fields) = entries_field.data_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "map() entries must be a Struct"));
            };
            let pairs = ctx.args.len() / 2;
            let rows = ctx.len;
            let column = |i: usize, t: &ChType| -> datafusion::common::Result<ArrayRef> {
                Ok(if matches!(t, ChType::Nothing) { ctx.array(i)? } else { to_type(ctx, i, t)? })
            };
            let keys = (0..pairs).map(|p| column(2 * p, &key_type)).collect::<datafusion::common::Result<Vec<_>>>()?;
            let values = (0..pairs).map(|p| column(2 * p + 1, &value_type)).collect::<datafusion::common::Result<Vec<_>>>()?;
            // Entries row by row: row r holds pair 0..pairs of that row.
            let interleave = |columns: &[ArrayRef], field_type: &DataType| -> datafusion::common::Result<ArrayRef> {
                if columns.is_empty() {
                    return Ok(datafusion::arrow::array::new_empty_array(field_type));
                }
                let refs: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
                let indices: Vec<(usize, usize)> = (0..rows).flat_map(|r| (0..pairs).map(move |p| (p, r))).collect();
                Ok(datafusion::arrow::compute::interleave(&refs, &indices)?)
            };
            let key_column = interleave(&keys, entry_fields[0].data_type())?;
            let value_column = interleave(&values, entry_fields[1].data_type())?;
            let entries = StructArray::try_new(entry_fields.clone(), vec![key_column, value_column], None)?;
            let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(pairs, rows));
            Ok(Arc::new(MapArray::try_new(entries_field.clone(), offsets, entries, None, false)?))
        },
    )
    .custom_nulls();
    // `map()` without arguments reaches DataFusion under this name (granary-sql's
    // EMPTY_MAP_FUNCTION): its SQL planner refuses an empty `map()`.
    def.aliases = vec!["__granary_empty_map".to_string()];
    def.build()
}

/// Which element `tupleElement` takes, from its second argument; None: a name the tuple
/// does not have (then the third argument, the default, is the result).
fn element_position(items: &[(String, ChType)], ctx: &crate::func::RetCtx<'_>) -> datafusion::error::Result<Option<usize>> {
    if let Some(name) = ctx.scalar(1).and_then(crate::args::scalar_str) {
        return match items.iter().position(|(n, _)| n == name) {
            Some(i) => Ok(Some(i)),
            None if ctx.arg_count() == 3 => Ok(None),
            None => Err(ch_error(granary_common::ErrorCode::BAD_ARGUMENTS, format!("Tuple doesn't have element with name '{name}'"))),
        };
    }
    let index = ctx.const_int(1, "an element index or name")?;
    if index < 1 || index as usize > items.len() {
        return Err(ch_error(granary_common::ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Tuple doesn't have element with index '{index}'")));
    }
    Ok(Some(index as usize - 1))
}

/// The tuple's element types, looking through one level of `Array`.
fn tuple_items(t: &ChType) -> Option<(&[(String, ChType)], bool)> {
    match t {
        ChType::Tuple(items) => Some((items, false)),
        ChType::Array(inner) => match inner.as_ref() {
            ChType::Tuple(items) => Some((items, true)),
            _ => None,
        },
        _ => None,
    }
}

fn tuple_element() -> ScalarUDF {
    ScalarDef::new(
        "tupleElement",
        Arity::range(2, 3),
        |ctx| {
            let t = ctx.ch(0);
            let Some((items, in_array)) = tuple_items(t.strip_nullable()) else { return Err(illegal_type(ctx.name, 0, ctx.field(0))) };
            let element = match element_position(items, ctx)? {
                Some(i) => items[i].1.clone(),
                None => return Ok(ctx.ch(2)),
            };
            // An element of a NULL tuple is NULL.
            let element = if t.is_nullable() { element.into_nullable() } else { element };
            Ok(if in_array { ChType::Array(Box::new(element)) } else { element })
        },
        |ctx| {
            let t = ctx.ch(0);
            let Some((items, in_array)) = tuple_items(t.strip_nullable()) else { return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "tupleElement of a non-tuple")) };
            let position = match ctx.scalar(1).and_then(crate::args::scalar_str) {
                Some(name) => items.iter().position(|(n, _)| n == name),
                None => Some(ctx.const_int(1, "an element index")? as usize - 1),
            };
            let Some(position) = position else { return ctx.array(2) };
            let source = ctx.array(0)?;
            if in_array {
                let list = source.as_list::<i32>();
                let tuples = list.values().as_struct();
                let values = tuples.column(position).clone();
                let DataType::List(item) = ctx.ret_type() else {
                    return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "tupleElement of an array must return an array"));
                };
                let item = Arc::new(item.as_ref().clone().with_data_type(values.data_type().clone()));
                return Ok(Arc::new(ListArray::try_new(item, list.offsets().clone(), values, list.nulls().cloned())?));
            }
            let tuples = source.as_struct();
            let element = tuples.column(position).clone();
            match tuples.nulls().filter(|n| n.null_count() > 0) {
                Some(tuple_nulls) => {
                    let nulls = NullBuffer::union(Some(tuple_nulls), element.logical_nulls().as_ref());
                    crate::func::with_nulls(&element, nulls)
                }
                None => Ok(element),
            }
        },
    )
    .custom_nulls()
    .build()
}

/// DataFusion's SQL planner hands every `map(k, v, ...)` call to the expression planners
/// (its own makes `Map(K, Nullable(V))` of Int64 literals); this one, placed first,
/// plans Granary's `map` instead.
#[derive(Debug)]
pub struct MapPlanner;

impl datafusion::logical_expr::planner::ExprPlanner for MapPlanner {
    fn plan_make_map(
        &self,
        args: Vec<datafusion::logical_expr::Expr>,
    ) -> datafusion::common::Result<datafusion::logical_expr::planner::PlannerResult<Vec<datafusion::logical_expr::Expr>>> {
        use datafusion::logical_expr::planner::PlannerResult;
        let Some(udf) = crate::registered().0.iter().find(|f| f.name() == "map") else { return Ok(PlannerResult::Original(args)) };
        Ok(PlannerResult::Planned(datafusion::logical_expr::Expr::ScalarFunction(datafusion::logical_expr::expr::ScalarFunction::new_udf(
            Arc::clone(udf),
            args,
        ))))
    }

    /// `t.a` on a `Nullable(Tuple(..))` column is `tupleElement(t, 'a')`, NULL where the
    /// tuple is: DataFusion's struct field access reads the element under a NULL tuple.
    fn plan_compound_identifier(
        &self,
        field: &datafusion::arrow::datatypes::Field,
        qualifier: Option<&datafusion::common::TableReference>,
        nested_names: &[String],
    ) -> datafusion::common::Result<datafusion::logical_expr::planner::PlannerResult<Vec<datafusion::logical_expr::Expr>>> {
        use datafusion::logical_expr::planner::PlannerResult;
        use datafusion::logical_expr::Expr;
        let nullable_tuple = matches!(field.data_type(), DataType::Struct(_)) && crate::func::ch_type_of_field(field).is_nullable();
        let Some(udf) = crate::registered().0.iter().find(|f| f.name() == "tupleElement").filter(|_| nullable_tuple) else {
            return Ok(PlannerResult::Original(Vec::new()));
        };
        let mut expr = Expr::Column(datafusion::common::Column::from((qualifier, field)));
        for name in nested_names {
            let key = Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(name.clone())), None);
            expr = Expr::ScalarFunction(datafusion::logical_expr::expr::ScalarFunction::new_udf(Arc::clone(udf), vec![expr, key]));
        }
        Ok(PlannerResult::Planned(expr))
    }
}

/// The pairs `('name', column)` of `__nested` whose columns are arrays, or all pairs
/// when none is (after `ARRAY JOIN n` the subcolumns hold elements).
fn nested_members(types: &[ChType]) -> (Vec<usize>, bool) {
    let arrays: Vec<usize> = (0..types.len() / 2).filter(|&p| matches!(types[2 * p + 1], ChType::Array(_))).collect();
    if arrays.is_empty() {
        ((0..types.len() / 2).collect(), false)
    } else {
        (arrays, true)
    }
}

/// `__nested('a', n.a, 'b', n.b, ...)`: the Nested column `n` as ClickHouse reads it from
/// its subcolumns, `Array(Tuple(a T, b U))` (elements zipped; sizes must agree), or
/// `Tuple(a T, b U)` when the subcolumns are elements (after `ARRAY JOIN n`). Only the
/// array subcolumns count, as in ClickHouse, where a Nested column is the Array columns
/// named `n.*`. Written by the query layer (`nested_names`), never by users.
fn nested() -> ScalarUDF {
    ScalarDef::new(
        "__nested",
        Arity::at_least(2),
        |ctx| {
            if ctx.arg_count() % 2 != 0 {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "__nested takes pairs of a name and a column"));
            }
            let types: Vec<ChType> = (0..ctx.arg_count()).map(|i| ctx.ch(i)).collect();
            let (members, in_array) = nested_members(&types);
            let mut items = Vec::with_capacity(members.len());
            for p in members {
                let name = ctx.const_str(2 * p, "a subcolumn name")?.to_string();
                let t = match &types[2 * p + 1] {
                    ChType::Array(inner) if in_array => inner.as_ref().clone(),
                    t => t.clone(),
                };
                items.push((name, t));
            }
            let tuple = ChType::Tuple(items);
            Ok(if in_array { ChType::Array(Box::new(tuple)) } else { tuple })
        },
        |ctx| {
            let types: Vec<ChType> = (0..ctx.args.len()).map(|i| ctx.ch(i)).collect();
            let (members, in_array) = nested_members(&types);
            let columns = members.iter().map(|p| ctx.array(2 * p + 1)).collect::<Result<Vec<ArrayRef>, _>>()?;
            if !in_array {
                let DataType::Struct(fields) = ctx.ret_type() else {
                    return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "__nested must return a Struct"));
                };
                return Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?));
            }
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "__nested of arrays must return an Array"));
            };
            let DataType::Struct(fields) = item.data_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "__nested of arrays must return an Array of Tuples"));
            };
            let lists: Vec<&ListArray> = columns.iter().map(|c| c.as_list::<i32>()).collect();
            let lengths: Vec<usize> = lists[0].offsets().lengths().collect();
            for (k, list) in lists.iter().enumerate().skip(1) {
                if list.offsets().lengths().zip(&lengths).any(|(a, b)| a != *b) {
                    let name = |p: usize| ctx.const_str(2 * members[p], "a subcolumn name").map(str::to_string);
                    return Err(ch_error(
                        granary_common::ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                        format!("Elements '{}' and '{}' of Nested data structure have different array sizes", name(0)?, name(k)?),
                    ));
                }
            }
            // Each list's elements from its first offset on: a sliced list starts past 0.
            let values: Vec<ArrayRef> = lists
                .iter()
                .map(|list| {
                    let offsets = list.value_offsets();
                    let (first, last) = (offsets[0] as usize, offsets[offsets.len() - 1] as usize);
                    list.values().slice(first, last - first)
                })
                .collect();
            let tuples = StructArray::try_new(fields.clone(), values, None)?;
            Ok(Arc::new(ListArray::try_new(item.clone(), OffsetBuffer::from_lengths(lengths), Arc::new(tuples), None)?))
        },
    )
    .custom_nulls()
    .build()
}

/// `__uniq_tuple(x)`: what `uniq(tuple(x))` hashes after ClickHouse's
/// `optimize_injective_functions_inside_uniq`, which takes the tuple off only when that
/// keeps the rows counted: `x` itself, or `tuple(x)` for a Nullable `x` (a NULL element
/// of a tuple is a value, a NULL argument a skipped row). Written by the SQL layer.
fn uniq_tuple() -> ScalarUDF {
    ScalarDef::new(
        "__uniq_tuple",
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0);
            let nullable = t.is_nullable() || matches!(&t, ChType::LowCardinality(inner) if inner.is_nullable());
            Ok(if nullable { ChType::Tuple(vec![("1".to_string(), t)]) } else { t })
        },
        |ctx| {
            let value = ctx.array(0)?;
            match ctx.ret_type() {
                DataType::Struct(fields) if !matches!(value.data_type(), DataType::Struct(_)) => {
                    Ok(Arc::new(StructArray::try_new(fields.clone(), vec![value], None)?))
                }
                _ => Ok(value),
            }
        },
    )
    .custom_nulls()
    .build()
}

/// `__scalar_tuple((SELECT a, b ...))`: the tuple of a scalar subquery of several
/// columns, NULL when the subquery has no row. ClickHouse types it from the data it
/// evaluated (`Tuple(a A, b B)`, or `Nullable(Tuple(A, B))` when empty); Granary keeps
/// the named tuple type with a field that may hold the NULL.
fn scalar_tuple() -> ScalarUDF {
    ScalarDef::new("__scalar_tuple", Arity::exact(1), |ctx| Ok(ctx.ch(0)), |ctx| ctx.array(0)).custom_nulls().nullable_field().build()
}

/// `__named_tuple('a', x, 'b', y, ...)`: `Tuple(a X, b Y)`, the value of a scalar
/// subquery of several columns, whose elements are named after the columns. Written by
/// the SQL front end, never by users.
fn named_tuple() -> ScalarUDF {
    ScalarDef::new(
        "__named_tuple",
        Arity::at_least(2),
        |ctx| {
            if ctx.arg_count() % 2 != 0 {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "__named_tuple takes pairs of a name and a value"));
            }
            let items = (0..ctx.arg_count() / 2).map(|p| Ok((ctx.const_str(2 * p, "an element name")?.to_string(), ctx.ch(2 * p + 1)))).collect::<datafusion::error::Result<Vec<_>>>()?;
            Ok(ChType::Tuple(items))
        },
        |ctx| {
            let DataType::Struct(fields) = ctx.ret_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "__named_tuple must return a Struct"));
            };
            let columns = (0..ctx.args.len() / 2).map(|p| ctx.array(2 * p + 1)).collect::<Result<Vec<ArrayRef>, _>>()?;
            Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?))
        },
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![tuple(), map(), tuple_element(), nested(), named_tuple(), uniq_tuple(), scalar_tuple()]
}
