//! Array functions: `array` (also `[x, ...]`), `range`, `has`, `indexOf` (compared in
//! the common type, NaN equal to nothing, a NULL needle finding NULL elements),
//! `countEqual` (the same comparison, counted), `emptyArrayToSingle`, `emptyArrayUInt8()` and the other `emptyArray*`. (`length`,
//! `empty`, `notEmpty` of arrays live with the string functions, which share their names;
//! element access, slicing and concatenation in [`crate::array_access`], reductions in
//! [`crate::array_aggregate`], sorting in [`crate::array_sort`], lambda forms in
//! [`crate::lambda`].)

use std::sync::Arc;

use datafusion::arrow::array::{make_comparator, Array, ArrayRef, AsArray, ListArray, UInt64Array, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float32Type, Float64Type, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, Arity, DfResult};
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::ScalarDef;
use crate::supertype::least_supertype;

/// ClickHouse's limit on elements `range` may produce in one block
/// (`function_range_max_elements_in_block`).
const RANGE_MAX_ELEMENTS: usize = 500_000_000;

fn range() -> ScalarUDF {
    ScalarDef::new(
        "range",
        Arity::range(1, 3),
        |ctx| {
            let mut types = Vec::new();
            for i in 0..ctx.arg_count() {
                if !is_integer(ctx.dt(i)) {
                    return Err(illegal_type(ctx.name, i, ctx.field(i)));
                }
                types.push(ctx.ch(i));
            }
            Ok(ChType::Array(Box::new(least_supertype(&types)?)))
        },
        |ctx| {
            let n = ctx.args.len();
            let cols: Vec<ArrayRef> = (0..n).map(|i| cast(&ctx.array(i)?, &DataType::Int64).map_err(Into::into)).collect::<DfResult<_>>()?;
            let cols: Vec<_> = cols.iter().map(|c| c.as_primitive::<Int64Type>()).collect();
            let mut values: Vec<i64> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            for row in 0..ctx.len {
                let (start, end, step) = match n {
                    1 => {
                        let end = cols[0].value(row);
                        if end < 0 {
                            return Err(ch_error(
                                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                                "A call to function range overflows, only support positive values when only end is provided",
                            ));
                        }
                        (0, end, 1)
                    }
                    2 => (cols[0].value(row), cols[1].value(row), 1),
                    _ => (cols[0].value(row), cols[1].value(row), cols[2].value(row)),
                };
                // A negative step counts down (`range(10, 1, -1)`); only 0 is refused.
                if step == 0 {
                    return Err(ch_error(
                        ErrorCode::ARGUMENT_OUT_OF_BOUND,
                        "A call to function range underflows, the 3rd argument step can't be less or equal to zero",
                    ));
                }
                let mut v = start;
                while if step > 0 { v < end } else { v > end } {
                    values.push(v);
                    if values.len() > RANGE_MAX_ELEMENTS {
                        return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "A call to function range would produce too many elements"));
                    }
                    v = match v.checked_add(step) {
                        Some(next) => next,
                        None => break,
                    };
                }
                offsets.push(values.len() as i32);
            }
            let elem = match ctx.ret_ch().strip_nullable() {
                ChType::Array(inner) => (**inner).clone(),
                _ => ChType::Int64,
            };
            let flat: ArrayRef = Arc::new(datafusion::arrow::array::Int64Array::from(values));
            let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
            let flat = convert(&flat, &Field::new("", DataType::Int64, false), &elem, &cv)?;
            let field = Arc::new(elem.to_arrow_field("item"));
            Ok(Arc::new(ListArray::try_new(field, OffsetBuffer::new(offsets.into()), flat, None)?))
        },
    )
    .build()
}

/// What `has` / `indexOf` return.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    Has,
    NotHas,
    IndexOf,
    /// `indexOfAssumeSorted`: a binary search (the lower bound, then an equality test), so
    /// an unsorted array may miss, as in ClickHouse.
    IndexOfSorted,
    Count,
}

/// The type `has(arr, x)` / `indexOf(arr, x)` compare in: a string never matches a
/// non-string (ClickHouse finds no common type), numbers compare exactly.
fn lookup_type(elem: &ChType, needle: &ChType, elem_dt: &DataType, needle_dt: &DataType) -> DfResult<ChType> {
    if matches!(elem.base(), ChType::Nothing) || needle_dt == &DataType::Null {
        return least_supertype(&[elem.clone(), needle.clone()]);
    }
    let is_text = |t: &ChType| matches!(t.base(), ChType::String | ChType::FixedString(_));
    if is_text(elem) != is_text(needle) {
        least_supertype(&[elem.base().clone(), needle.base().clone()])?;
    }
    crate::arithmetic::comparison_type(elem, needle, elem_dt, needle_dt)
}

fn lookup(name: &'static str, how: Lookup) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let elem = match ctx.ch(0).strip_nullable() {
                ChType::Array(inner) => (**inner).clone(),
                _ => return Err(illegal_type(ctx.name, 0, ctx.field(0))),
            };
            lookup_type(&elem, &ctx.ch(1), &elem.to_arrow(), ctx.dt(1))?;
            Ok(match how {
                Lookup::Has | Lookup::NotHas => ChType::UInt8,
                Lookup::IndexOf | Lookup::IndexOfSorted | Lookup::Count => ChType::UInt64,
            })
        },
        move |ctx| {
            let list = ctx.array(0)?;
            let list = list.as_list::<i32>();
            let elem = element_type(&ctx.ch(0));
            let common = lookup_type(&elem, &ctx.ch(1), &elem.to_arrow(), ctx.dt(1))?;
            let base = common.strip_nullable().clone();
            let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
            let values = list.values();
            let item_field = item_field(list);
            let (values, needles) = if matches!(base, ChType::Nothing) {
                (Arc::clone(values), ctx.array(1)?)
            } else {
                (convert(values, &item_field, &base, &cv)?, convert(&ctx.array(1)?, &ctx.fields[1], &base, &cv)?)
            };
            let equal = element_equality(values.as_ref(), needles.as_ref())?;
            let offsets = list.value_offsets();
            // A NULL needle finds NULL elements (ClickHouse: has([1, NULL], NULL) = 1).
            let range = |row: usize| if list.is_null(row) { 0..0 } else { offsets[row] as usize..offsets[row + 1] as usize };
            let is_match = |row: usize, j: usize| {
                let needle_null = needles.is_null(row);
                if needle_null || values.is_null(j) {
                    needle_null && values.is_null(j)
                } else {
                    equal(j, row)
                }
            };
            let found = |row: usize| range(row).position(|j| is_match(row, j));
            if how == Lookup::IndexOfSorted {
                // NULLs sort last, as in ClickHouse's arrays.
                let options = datafusion::arrow::compute::SortOptions { descending: false, nulls_first: false };
                let order = make_comparator(values.as_ref(), needles.as_ref(), options)?;
                let positions = (0..ctx.len).map(|row| {
                    let r = range(row);
                    let (mut low, mut high) = (r.start, r.end);
                    while low < high {
                        let mid = low + (high - low) / 2;
                        if order(mid, row).is_lt() {
                            low = mid + 1;
                        } else {
                            high = mid;
                        }
                    }
                    if low < r.end && is_match(row, low) { (low - r.start) as u64 + 1 } else { 0 }
                });
                return Ok(Arc::new(UInt64Array::from_iter_values(positions)));
            }
            Ok(match how {
                Lookup::Has => Arc::new(UInt8Array::from_iter_values((0..ctx.len).map(|row| u8::from(found(row).is_some())))),
                Lookup::NotHas => Arc::new(UInt8Array::from_iter_values((0..ctx.len).map(|row| u8::from(found(row).is_none())))),
                Lookup::IndexOf | Lookup::IndexOfSorted => Arc::new(UInt64Array::from_iter_values((0..ctx.len).map(|row| found(row).map_or(0, |p| p as u64 + 1)))),
                Lookup::Count => Arc::new(UInt64Array::from_iter_values((0..ctx.len).map(|row| range(row).filter(|j| is_match(row, *j)).count() as u64))),
            })
        },
    )
    .custom_nulls()
    .build()
}

/// Equality of `a[i]` and `b[j]` (both valid) as ClickHouse compares values: floats by
/// IEEE rules (NaN equals nothing, -0 equals 0), everything else by value.
pub(crate) fn element_equality<'a>(a: &'a dyn Array, b: &'a dyn Array) -> DfResult<Box<dyn Fn(usize, usize) -> bool + 'a>> {
    Ok(match (a.data_type(), b.data_type()) {
        (DataType::Float64, DataType::Float64) => {
            let (x, y) = (a.as_primitive::<Float64Type>(), b.as_primitive::<Float64Type>());
            Box::new(move |i, j| x.value(i) == y.value(j))
        }
        (DataType::Float32, DataType::Float32) => {
            let (x, y) = (a.as_primitive::<Float32Type>(), b.as_primitive::<Float32Type>());
            Box::new(move |i, j| x.value(i) == y.value(j))
        }
        _ => {
            let cmp = make_comparator(a, b, Default::default())?;
            Box::new(move |i, j| cmp(i, j).is_eq())
        }
    })
}

/// The element type of an `Array(T)` type (`Nothing` for anything else).
pub(crate) fn element_type(t: &ChType) -> ChType {
    match t.strip_nullable() {
        ChType::Array(inner) => (**inner).clone(),
        _ => ChType::Nothing,
    }
}

/// `t` with every `LowCardinality` inside it removed. ClickHouse runs functions on the
/// full columns of `Array(LowCardinality(T))` arguments, so what they return of the
/// elements (`arraySort`, `arr[1]`, `arrayResize`, ...) is `T`.
pub(crate) fn without_low_cardinality(t: ChType) -> ChType {
    t.without_low_cardinality()
}

/// The item field of a list column.
pub(crate) fn item_field(list: &ListArray) -> Field {
    match list.data_type() {
        DataType::List(f) => f.as_ref().clone(),
        _ => Field::new("item", list.values().data_type().clone(), true),
    }
}

/// `emptyArrayToSingle(arr)`: an empty array becomes one element of the type's default
/// (NULL for Nullable elements); what `LEFT ARRAY JOIN` unnests.
/// `array(x, ...)`, which the front end also makes of `[x, ...]`: an `Array` of the least
/// supertype of the elements, as ClickHouse types it. `[1, 2]` is `Array(UInt8)`, not
/// DataFusion's `make_array` type (`Int64`, elements always nullable): the elements are
/// `Nullable` only when one is, so `sumArray([1, 2])` over no rows is 0, not NULL.
/// `[]` is `Array(Nothing)`.
fn array_fn() -> ScalarUDF {
    ScalarDef::new(
        "array",
        Arity::at_least(0),
        |ctx| {
            let all: Vec<usize> = (0..ctx.arg_count()).collect();
            let element = if all.is_empty() { ChType::Nothing } else { crate::supertype::low_cardinality_if_all(ctx, &all, crate::supertype::least_supertype_of_args(ctx, &all)?) };
            Ok(ChType::Array(Box::new(element)))
        },
        |ctx| {
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("array returns {}", ctx.ret_type())));
            };
            let ChType::Array(element) = ctx.ret_ch() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("array returns {}", ctx.ret_ch())));
            };
            let count = ctx.args.len();
            let columns: Vec<ArrayRef> = (0..count).map(|i| crate::conditional::to_type(ctx, i, &element)).collect::<DfResult<_>>()?;
            let values = if count == 0 {
                datafusion::arrow::array::new_empty_array(item.data_type())
            } else {
                // Row by row, the elements in argument order.
                let indices: Vec<(usize, usize)> = (0..ctx.len).flat_map(|row| (0..count).map(move |i| (i, row))).collect();
                let refs: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
                datafusion::arrow::compute::interleave(&refs, &indices)?
            };
            let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(count, ctx.len));
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), offsets, values, None)?))
        },
    )
    .custom_nulls()
    .build()
}

fn empty_array_to_single() -> ScalarUDF {
    ScalarDef::new(
        "emptyArrayToSingle",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            t @ ChType::Array(_) => Ok(t),
            _ => Err(illegal_type(ctx.name, 0, ctx.field(0))),
        },
        |ctx| {
            let array = ctx.array(0)?;
            let list = array.as_list::<i32>();
            let DataType::List(item) = list.data_type() else { return Err(illegal_type(ctx.name, 0, &ctx.fields[0])) };
            let values = list.values();
            // One default element appended after the values; empty rows point at it.
            let default = if item.is_nullable() {
                datafusion::arrow::array::new_null_array(item.data_type(), 1)
            } else {
                datafusion::common::ScalarValue::new_default(item.data_type())?.to_array_of_size(1)?
            };
            let all = datafusion::arrow::compute::concat(&[values.as_ref(), default.as_ref()])?;
            let default_at = values.len() as u32;
            let offsets = list.value_offsets();
            let mut indices: Vec<u32> = Vec::with_capacity(values.len() + 1);
            let mut new_offsets: Vec<i32> = Vec::with_capacity(list.len() + 1);
            new_offsets.push(0);
            for row in 0..list.len() {
                let (start, end) = (offsets[row] as u32, offsets[row + 1] as u32);
                if list.is_null(row) || start == end {
                    indices.push(default_at);
                } else {
                    indices.extend(start..end);
                }
                new_offsets.push(indices.len() as i32);
            }
            let taken = datafusion::arrow::compute::take(all.as_ref(), &datafusion::arrow::array::UInt32Array::from(indices), None)?;
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), OffsetBuffer::new(new_offsets.into()), taken, None)?))
        },
    )
    .custom_nulls()
    .build()
}

/// `emptyArrayUInt8()`, `emptyArrayString()`, ...: an empty array of the named type.
fn empty_array(name: &'static str, element: ChType) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(0),
        move |_| Ok(ChType::Array(Box::new(element.clone()))),
        |ctx| {
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns a list", ctx.name)));
            };
            let offsets = OffsetBuffer::new_zeroed(ctx.len);
            let values = datafusion::arrow::array::new_empty_array(item.data_type());
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), offsets, values, None)?))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![
        array_fn(),
        range(),
        lookup("has", Lookup::Has),
        lookup("notHas", Lookup::NotHas),
        lookup("indexOf", Lookup::IndexOf),
        lookup("indexOfAssumeSorted", Lookup::IndexOfSorted),
        lookup("countEqual", Lookup::Count),
        empty_array_to_single(),
    ];
    for (name, element) in [
        ("emptyArrayUInt8", ChType::UInt8),
        ("emptyArrayUInt16", ChType::UInt16),
        ("emptyArrayUInt32", ChType::UInt32),
        ("emptyArrayUInt64", ChType::UInt64),
        ("emptyArrayInt8", ChType::Int8),
        ("emptyArrayInt16", ChType::Int16),
        ("emptyArrayInt32", ChType::Int32),
        ("emptyArrayInt64", ChType::Int64),
        ("emptyArrayFloat32", ChType::Float32),
        ("emptyArrayFloat64", ChType::Float64),
        ("emptyArrayDate", ChType::Date),
        ("emptyArrayDateTime", ChType::DateTime(None)),
        ("emptyArrayString", ChType::String),
    ] {
        out.push(empty_array(name, element));
    }
    out
}
