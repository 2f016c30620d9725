//! Taking arrays apart and together: `arrayElement` (what `arr[i]` and `map[key]`
//! become), `arraySlice`, `arrayConcat`, and the array case of `reverse`.
//!
//! Indices are 1-based and negative ones count from the end, as in ClickHouse; an index
//! out of range (or 0) gives the element type's default value (NULL for a Nullable
//! element type), never an error. Slices follow `substring`'s rules on elements.

use std::sync::Arc;

use datafusion::arrow::array::{
    make_comparator, new_null_array, Array, ArrayRef, AsArray, Int64Array, ListArray, MapArray,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{cast, interleave, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_integer, Arity, DfResult};
use crate::array::{element_type, item_field};
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{ExecCtx, ScalarDef};
use crate::regexp::list_offset;
use crate::string::substring_range;
use crate::supertype::least_supertype;

/// One default value of `field`'s type: NULL when the field is nullable.
pub(crate) fn default_value(field: &Field) -> DfResult<ArrayRef> {
    if field.is_nullable() || field.data_type() == &DataType::Null {
        Ok(new_null_array(field.data_type(), 1))
    } else {
        Ok(ScalarValue::new_default(field.data_type())?.to_array_of_size(1)?)
    }
}

/// Picks, per row, an element of `values` or the default value (`None`).
pub(crate) fn pick(values: &ArrayRef, field: &Field, picked: &[Option<usize>]) -> DfResult<ArrayRef> {
    if picked.iter().all(Option::is_some) {
        let indices: datafusion::arrow::array::UInt64Array = picked.iter().map(|p| p.map(|i| i as u64)).collect();
        return Ok(take(values.as_ref(), &indices, None)?);
    }
    let default = default_value(field)?;
    let indices: Vec<(usize, usize)> = picked.iter().map(|p| p.map_or((1, 0), |i| (0, i))).collect();
    Ok(interleave(&[values.as_ref(), default.as_ref()], &indices)?)
}

/// The position in a list of `len` elements that ClickHouse's 1-based, possibly
/// negative `index` names.
fn element_at(len: usize, index: i128) -> Option<usize> {
    let len = len as i128;
    let position = if index > 0 {
        index - 1
    } else if index < 0 {
        len + index
    } else {
        return None;
    };
    (0..len).contains(&position).then_some(position as usize)
}

fn indices_i128(ctx: &ExecCtx, i: usize) -> DfResult<Vec<i128>> {
    let a = ctx.array(i)?;
    Ok(match a.data_type() {
        DataType::UInt64 => a.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().values().iter().map(|v| i128::from(*v)).collect(),
        _ => cast(&a, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|v| i128::from(*v)).collect(),
    })
}

fn array_element_error(name: &str, what: &str, t: &ChType) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{what} for function '{name}' must be {}, got '{t}' instead", if what == "First argument" { "array" } else { "integer or array of integers" }))
}

/// Whether a value of `t` can be Nullable (arrays, maps and tuples cannot).
fn can_be_nullable(t: &ChType) -> bool {
    !matches!(t, ChType::Array(_) | ChType::Map(..) | ChType::Tuple(_))
}

/// `arrayElement(arr, i)` and `arrayElement(map, key)`; `arrayElementOrNull` (`or_null`)
/// gives NULL where `arrayElement` gives the default value.
fn array_element(name: &'static str, or_null: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let element = match ctx.ch(0) {
                ChType::Array(inner) => {
                    if !is_integer(ctx.dt(1)) {
                        return Err(array_element_error(ctx.name, "Second argument", &ctx.ch(1)));
                    }
                    *inner
                }
                ChType::Map(key, value) => {
                    // `map()` has no key to compare with (only a NULL key passes, as NULL).
                    if *key == ChType::Nothing && ctx.ch(1) != ChType::Nothing {
                        return Err(ch_error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            format!("Illegal types of arguments: {}, {} for function {}", ctx.ch(0), ctx.ch(1), ctx.name),
                        ));
                    }
                    crate::arithmetic::comparison_type(&key, &ctx.ch(1), &key.to_arrow(), ctx.dt(1))?;
                    *value
                }
                other => return Err(array_element_error(ctx.name, "First argument", &other)),
            };
            let element = crate::array::without_low_cardinality(element);
            Ok(if or_null && can_be_nullable(&element) { element.into_nullable() } else { element })
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let nullable = |f: Field| if or_null && can_be_nullable(&ChType::from_field(&f)) { f.with_nullable(true) } else { f };
            match a.data_type() {
                DataType::Map(..) => map_element(ctx, a.as_map(), &nullable),
                _ => {
                    let list = a.as_list::<i32>();
                    let field = nullable(item_field(list));
                    let indices = indices_i128(ctx, 1)?;
                    let offsets = list.value_offsets();
                    let picked: Vec<Option<usize>> = (0..ctx.len)
                        .map(|row| {
                            let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
                            element_at(end - start, indices[row]).map(|p| start + p)
                        })
                        .collect();
                    pick(list.values(), &field, &picked)
                }
            }
        },
    )
    .build()
}

fn map_element(ctx: &ExecCtx, map: &MapArray, nullable: &dyn Fn(Field) -> Field) -> DfResult<ArrayRef> {
    let DataType::Map(entries, _) = map.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayElement: not a map"));
    };
    let DataType::Struct(fields) = entries.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayElement: map entries are not a struct"));
    };
    let (key_field, value_field): (&FieldRef, &FieldRef) = (&fields[0], &fields[1]);
    let key_type = ChType::from_field(key_field);
    let common = crate::arithmetic::comparison_type(&key_type, &ctx.ch(1), key_field.data_type(), ctx.dt(1))?;
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    let keys = convert(map.keys(), key_field, &common, &cv)?;
    let wanted = convert(&ctx.array(1)?, &ctx.fields[1], &common, &cv)?;
    let cmp = make_comparator(keys.as_ref(), wanted.as_ref(), Default::default())?;
    let offsets = map.value_offsets();
    let picked: Vec<Option<usize>> = (0..ctx.len)
        .map(|row| {
            let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
            (start..end).find(|j| keys.is_valid(*j) && wanted.is_valid(row) && cmp(*j, row).is_eq())
        })
        .collect();
    pick(map.values(), &nullable(value_field.as_ref().clone()), &picked)
}

/// Elements `ranges[row]` of each row, as a new list column of the same type.
pub(crate) fn gather_lists(list: &ListArray, ranges: impl Iterator<Item = (usize, usize)>) -> DfResult<ArrayRef> {
    let mut indices: Vec<u64> = Vec::new();
    let mut offsets: Vec<i32> = vec![0];
    for (start, end) in ranges {
        indices.extend((start..end).map(|i| i as u64));
        offsets.push(list_offset(indices.len())?);
    }
    let values = take(list.values().as_ref(), &datafusion::arrow::array::UInt64Array::from(indices), None)?;
    let DataType::List(field) = list.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, "not a list"));
    };
    Ok(Arc::new(ListArray::try_new(Arc::clone(field), OffsetBuffer::new(offsets.into()), values, None)?))
}

/// `reverse(arr)`: the elements in reverse order.
pub(crate) fn reverse_lists(array: &ArrayRef) -> DfResult<ArrayRef> {
    let list = array.as_list::<i32>();
    let offsets = list.value_offsets();
    let mut indices: Vec<u64> = Vec::with_capacity(list.values().len());
    for row in 0..list.len() {
        indices.extend((offsets[row] as u64..offsets[row + 1] as u64).rev());
    }
    let values = take(list.values().as_ref(), &datafusion::arrow::array::UInt64Array::from(indices), None)?;
    let DataType::List(field) = list.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, "not a list"));
    };
    let lengths = offsets.windows(2).map(|w| (w[1] - w[0]) as usize);
    Ok(Arc::new(ListArray::try_new(Arc::clone(field), OffsetBuffer::from_lengths(lengths), values, list.nulls().cloned())?))
}

/// `arraySlice(arr, offset[, length])`: a NULL offset or length counts as absent.
fn array_slice() -> ScalarUDF {
    ScalarDef::new(
        "arraySlice",
        Arity::range(2, 3),
        |ctx| {
            if ctx.dt(0) == &DataType::Null {
                return Ok(ChType::Nullable(Box::new(ChType::Nothing)));
            }
            let t = ctx.ch(0);
            if !matches!(t, ChType::Array(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("First argument for function arraySlice must be an array but it has type {t}"),
                ));
            }
            for i in 1..ctx.arg_count() {
                if !(is_integer(ctx.dt(i)) || ctx.dt(i) == &DataType::Null) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument {} for function arraySlice must be integer but it has type {}", i, ctx.ch(i)),
                    ));
                }
            }
            Ok(crate::array::without_low_cardinality(t))
        },
        |ctx| {
            let a = ctx.array(0)?;
            if a.data_type() == &DataType::Null {
                return Ok(a);
            }
            let list = a.as_list::<i32>();
            let bound = |i: usize| -> DfResult<Option<Int64Array>> {
                if ctx.args.len() <= i || ctx.dt(i) == &DataType::Null {
                    return Ok(None);
                }
                Ok(Some(cast(&ctx.array(i)?, &DataType::Int64)?.as_primitive::<Int64Type>().clone()))
            };
            let (offsets_arg, lengths) = (bound(1)?, bound(2)?);
            let offsets = list.value_offsets();
            let ranges = (0..ctx.len).map(|row| {
                let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
                let offset = offsets_arg.as_ref().filter(|o| o.is_valid(row)).map_or(1, |o| o.value(row));
                let length = lengths.as_ref().filter(|l| l.is_valid(row)).map(|l| l.value(row));
                let (b, e) = substring_range((end - start) as i64, offset, length);
                (start + b, start + e)
            });
            gather_lists(list, ranges)
        },
    )
    .custom_nulls()
    .build()
}

/// `arrayConcat(arr, ...)`: the arrays one after another, in their least common
/// element type.
fn array_concat() -> ScalarUDF {
    ScalarDef::new(
        "arrayConcat",
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() == 0 {
                return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Function arrayConcat requires at least one argument"));
            }
            let mut elements = Vec::with_capacity(ctx.arg_count());
            for i in 0..ctx.arg_count() {
                match ctx.ch(i) {
                    ChType::Array(inner) => elements.push(*inner),
                    other => {
                        return Err(ch_error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            format!("Argument {i} for function arrayConcat must be an array but it has type {other}"),
                        ))
                    }
                }
            }
            Ok(ChType::Array(Box::new(element_supertype(&elements)?)))
        },
        |ctx| {
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayConcat returns a list"));
            };
            let target = element_type(&ctx.ret_ch());
            let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
            let mut lists: Vec<ListArray> = Vec::with_capacity(ctx.args.len());
            let mut converted: Vec<ArrayRef> = Vec::with_capacity(ctx.args.len());
            for i in 0..ctx.args.len() {
                // A constant array is expanded to one list per row by `ctx.array`.
                let a = ctx.array(i)?;
                let list = a.as_list::<i32>().clone();
                let values = if matches!(target.base(), ChType::Nothing) {
                    Arc::clone(list.values())
                } else {
                    convert(list.values(), &item_field(&list), target.strip_nullable(), &cv)?
                };
                converted.push(values);
                lists.push(list);
            }
            let refs: Vec<&dyn Array> = converted.iter().map(|c| c.as_ref()).collect();
            let mut indices: Vec<(usize, usize)> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            for row in 0..ctx.len {
                for (k, list) in lists.iter().enumerate() {
                    let o = list.value_offsets();
                    indices.extend((o[row] as usize..o[row + 1] as usize).map(|j| (k, j)));
                }
                offsets.push(list_offset(indices.len())?);
            }
            let values = if refs.is_empty() || indices.is_empty() {
                datafusion::arrow::array::new_empty_array(item.data_type())
            } else {
                interleave(&refs, &indices)?
            };
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), OffsetBuffer::new(offsets.into()), values, None)?))
        },
    )
    .build()
}

/// The least common element type of arrays. While the query is planned, an array of
/// literals still has `Int64` elements (`[1]` becomes `Array(UInt8)` afterwards), which
/// may have no common type with the others (`Float64`); such an element counts as the
/// narrowest integer then, and the type is computed again once the literals are typed.
pub(crate) fn element_supertype(elements: &[ChType]) -> DfResult<ChType> {
    match least_supertype(elements) {
        Ok(t) => Ok(t),
        Err(e) if elements.iter().any(|t| matches!(t.strip_nullable(), ChType::Int64)) => {
            let provisional: Vec<ChType> = elements
                .iter()
                .map(|t| match t {
                    ChType::Int64 => ChType::UInt8,
                    ChType::Nullable(inner) if matches!(**inner, ChType::Int64) => ChType::Nullable(Box::new(ChType::UInt8)),
                    other => other.clone(),
                })
                .collect();
            least_supertype(&provisional).map_err(|_| e)
        }
        Err(e) => Err(e),
    }
}

/// `arrayReverse(arr)`.
fn array_reverse() -> ScalarUDF {
    ScalarDef::new(
        "arrayReverse",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            t @ ChType::Array(_) => Ok(crate::array::without_low_cardinality(t)),
            t => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument for function arrayReverse must be array, got {t} instead"))),
        },
        |ctx| reverse_lists(&ctx.array(0)?),
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![array_element("arrayElement", false), array_element("arrayElementOrNull", true), array_slice(), array_concat(), array_reverse()]
}

#[cfg(test)]
mod tests {
    use super::element_at;

    #[test]
    fn clickhouse_indices() {
        assert_eq!(element_at(3, 1), Some(0));
        assert_eq!(element_at(3, 3), Some(2));
        assert_eq!(element_at(3, 4), None);
        assert_eq!(element_at(3, 0), None);
        assert_eq!(element_at(3, -1), Some(2));
        assert_eq!(element_at(3, -3), Some(0));
        assert_eq!(element_at(3, -4), None);
        assert_eq!(element_at(0, 1), None);
        assert_eq!(element_at(2, i128::from(u64::MAX)), None);
    }
}
