//! The bitmap functions over `AggregateFunction(groupBitmap, T)` values: `bitmapBuild`,
//! `bitmapToArray`, `bitmapSubsetInRange`, `bitmapSubsetLimit`, `subBitmap`,
//! `bitmapContains`, `bitmapHasAny`, `bitmapHasAll`, `bitmapCardinality`, `bitmapMin`,
//! `bitmapMax`, `bitmapTransform`, `bitmapAnd`/`Or`/`Xor`/`Andnot` and their
//! `Cardinality` forms.
//!
//! Every bitmap result is built as ClickHouse builds it (values added one by one into a
//! new small set, or the set operations of [`BitmapSet`]), so its bytes and its order in
//! `bitmapToArray` are ClickHouse's. Values are compared by their unsigned bits, as
//! CRoaring holds them: in an `Int8` bitmap -1 is 255.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder, Int64Array, ListArray, UInt64Array, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::bitmap_set::{value_shape, BitmapSet, SetOp};
use crate::bits_more::{list_item, lists_of};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::group_bitmap::bitmap_value_type;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![
        bitmap_build(),
        bitmap_to_array(),
        bitmap_cardinality(),
        bitmap_extreme("bitmapMin", BitmapSet::min),
        bitmap_extreme("bitmapMax", BitmapSet::max),
        bitmap_contains(),
        bitmap_has("bitmapHasAny", BitmapSet::intersects),
        bitmap_has("bitmapHasAll", BitmapSet::contains_all),
        bitmap_subset("bitmapSubsetInRange", subset_in_range),
        bitmap_subset("bitmapSubsetLimit", subset_limit),
        bitmap_subset("subBitmap", sub_bitmap),
        bitmap_transform(),
    ];
    for (name, cardinality, op) in [
        ("bitmapAnd", "bitmapAndCardinality", SetOp::And),
        ("bitmapOr", "bitmapOrCardinality", SetOp::Or),
        ("bitmapXor", "bitmapXorCardinality", SetOp::Xor),
        ("bitmapAndnot", "bitmapAndnotCardinality", SetOp::AndNot),
    ] {
        out.push(bitmap_op(name, op));
        out.push(bitmap_op_cardinality(cardinality, op));
    }
    out
}

fn capitalized_ordinal(i: usize) -> &'static str {
    ["First", "Second", "Third"].get(i).copied().unwrap_or("An")
}

/// The value type of bitmap argument `i`.
fn bitmap_arg(ctx: &RetCtx, i: usize) -> DfResult<ChType> {
    let t = ctx.ch(i);
    bitmap_value_type(&t).cloned().ok_or_else(|| {
        ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{} argument for function {} must be a bitmap but it has type {t}", capitalized_ordinal(i), ctx.name))
    })
}

/// The value type of two bitmap arguments, which must be the same.
fn bitmap_pair(ctx: &RetCtx) -> DfResult<ChType> {
    let (left, right) = (bitmap_arg(ctx, 0)?, bitmap_arg(ctx, 1)?);
    // While the SQL is planned, a bitmap built from integer literals is still of Int64
    // (see `crate::literals`): only the types they get afterwards can be compared.
    if left == ChType::Int64 {
        return Ok(right);
    }
    if left != right && right != ChType::Int64 {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("The nested type in bitmaps must be the same, but one is {left}, and the other is {right}"),
        ));
    }
    Ok(left)
}

fn bitmap_type(value: ChType) -> ChType {
    ChType::AggregateFunction("groupBitmap".to_string(), vec![value])
}

/// The bitmaps of argument `i`, row by row (an empty set at a NULL row).
struct Bitmaps {
    binary: BinaryArray,
    width: usize,
    signed: bool,
}

impl Bitmaps {
    fn of(ctx: &ExecCtx, i: usize) -> DfResult<Bitmaps> {
        let t = ctx.ch(i);
        let (width, signed) = bitmap_value_type(&t)
            .and_then(value_shape)
            .ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument of function {} must be a bitmap but it has type {t}", ctx.name)))?;
        let array = ctx.array(i)?;
        let binary = array.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "A bitmap column must be Binary"))?.clone();
        Ok(Bitmaps { binary, width, signed })
    }

    fn empty(&self) -> BitmapSet {
        BitmapSet::new(self.width, self.signed)
    }

    fn at(&self, row: usize) -> DfResult<BitmapSet> {
        if self.binary.is_null(row) {
            return Ok(self.empty());
        }
        let mut input = self.binary.value(row);
        let set = BitmapSet::read(self.width, self.signed, &mut input)?;
        if !input.is_empty() {
            return Err(ch_error(ErrorCode::CORRUPTED_DATA, format!("A groupBitmap state has {} extra bytes", input.len())));
        }
        Ok(set)
    }
}

fn bitmaps_out(sets: impl Iterator<Item = DfResult<BitmapSet>>) -> DfResult<ArrayRef> {
    let mut builder = BinaryBuilder::new();
    let mut bytes = Vec::new();
    for set in sets {
        bytes.clear();
        set?.write(&mut bytes);
        builder.append_value(&bytes);
    }
    Ok(Arc::new(builder.finish()))
}

fn counts_out(counts: impl Iterator<Item = DfResult<u64>>) -> DfResult<ArrayRef> {
    Ok(Arc::new(counts.collect::<DfResult<UInt64Array>>()?))
}

fn flags_out(flags: impl Iterator<Item = DfResult<bool>>) -> DfResult<ArrayRef> {
    Ok(Arc::new(flags.map(|f| f.map(u8::from)).collect::<DfResult<UInt8Array>>()?))
}

/// An integer column's values as 64-bit two's complement bits.
fn integer_bits(array: &ArrayRef) -> DfResult<Vec<u64>> {
    let signed = matches!(array.data_type(), DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64);
    Ok(if signed {
        cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|v| *v as u64).collect()
    } else {
        cast(array, &DataType::UInt64)?.as_primitive::<UInt64Type>().values().to_vec()
    })
}

/// `bitmapBuild(arr)`: the array's integers added in order.
fn bitmap_build() -> ScalarUDF {
    ScalarDef::new(
        "bitmapBuild",
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0);
            let ChType::Array(element) = &t else {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("First argument for function {} must be an array but it has type {t}", ctx.name),
                ));
            };
            if element.is_nullable() || value_shape(element).is_none() {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Unexpected type {t} of argument of function {}", ctx.name)));
            }
            Ok(bitmap_type(element.as_ref().clone()))
        },
        |ctx| {
            let ChType::Array(element) = ctx.ch(0) else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "bitmapBuild of a non-array"));
            };
            let set = BitmapSet::of_type(&element).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "bitmapBuild of a non-integer array"))?;
            let array = ctx.array(0)?;
            let lists = array.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "bitmapBuild takes an array"))?;
            let values = integer_bits(lists.values())?;
            let offsets = lists.value_offsets();
            let mask = set.mask();
            bitmaps_out((0..lists.len()).map(|row| {
                let mut built = set.clone();
                let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
                if lists.is_valid(row) {
                    values[start..end].iter().for_each(|v| built.insert(v & mask));
                }
                Ok(built)
            }))
        },
    )
    .build()
}

/// `bitmapToArray(b)`: the values in ClickHouse's order, in the bitmap's type.
fn bitmap_to_array() -> ScalarUDF {
    ScalarDef::new(
        "bitmapToArray",
        Arity::exact(1),
        |ctx| Ok(ChType::Array(Box::new(bitmap_arg(ctx, 0)?))),
        |ctx| {
            let bitmaps = Bitmaps::of(ctx, 0)?;
            let shift = 64 - 8 * bitmaps.width as u32;
            let mut offsets = vec![0i32];
            let mut values: Vec<u64> = Vec::new();
            for row in 0..ctx.len {
                values.extend(bitmaps.at(row)?.values());
                offsets.push(crate::regexp::list_offset(values.len())?);
            }
            let item = list_item(ctx)?;
            let words: ArrayRef = if bitmaps.signed {
                // Sign-extended from the value's width.
                Arc::new(values.iter().map(|v| ((v << shift) as i64) >> shift).collect::<Int64Array>())
            } else {
                Arc::new(UInt64Array::from(values))
            };
            lists_of(Arc::clone(&item), offsets, cast(&words, item.data_type())?)
        },
    )
    .build()
}

fn bitmap_cardinality() -> ScalarUDF {
    ScalarDef::new(
        "bitmapCardinality",
        Arity::exact(1),
        |ctx| {
            bitmap_arg(ctx, 0)?;
            Ok(ChType::UInt64)
        },
        |ctx| {
            let bitmaps = Bitmaps::of(ctx, 0)?;
            counts_out((0..ctx.len).map(|row| Ok(bitmaps.at(row)?.cardinality())))
        },
    )
    .build()
}

/// `bitmapMin`/`bitmapMax`: the extreme value's unsigned bits, as UInt64.
fn bitmap_extreme(name: &'static str, extreme: fn(&BitmapSet) -> u64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            bitmap_arg(ctx, 0)?;
            Ok(ChType::UInt64)
        },
        move |ctx| {
            let bitmaps = Bitmaps::of(ctx, 0)?;
            counts_out((0..ctx.len).map(|row| Ok(extreme(&bitmaps.at(row)?))))
        },
    )
    .build()
}

/// `bitmapContains(b, x)`: `x` as 64-bit two's complement bits, compared with the stored
/// bits, so `-1` is not in an `Int32` bitmap holding -1 but 4294967295 is, as in ClickHouse.
fn bitmap_contains() -> ScalarUDF {
    ScalarDef::new(
        "bitmapContains",
        Arity::exact(2),
        |ctx| {
            bitmap_arg(ctx, 0)?;
            let t = ctx.literal_ch(1);
            if value_shape(&t).is_none() || matches!(t, ChType::Bool) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Second argument for function {} must be an native integer type but it has type {t}", ctx.name),
                ));
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let bitmaps = Bitmaps::of(ctx, 0)?;
            let values = integer_bits(&ctx.array(1)?)?;
            flags_out((0..ctx.len).map(|row| Ok(bitmaps.at(row)?.contains(values[row]))))
        },
    )
    .build()
}

/// `bitmapHasAny(a, b)`, `bitmapHasAll(a, b)` (every value of `b` in `a`).
fn bitmap_has(name: &'static str, test: fn(&BitmapSet, &BitmapSet) -> bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            bitmap_pair(ctx)?;
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let (left, right) = (Bitmaps::of(ctx, 0)?, Bitmaps::of(ctx, 1)?);
            flags_out((0..ctx.len).map(|row| Ok(test(&left.at(row)?, &right.at(row)?))))
        },
    )
    .build()
}

/// Each row's `a op b`.
fn combined(ctx: &ExecCtx, op: SetOp) -> DfResult<Vec<BitmapSet>> {
    let (left, right) = (Bitmaps::of(ctx, 0)?, Bitmaps::of(ctx, 1)?);
    (0..ctx.len)
        .map(|row| {
            let mut set = left.at(row)?;
            set.apply(op, &right.at(row)?);
            Ok(set)
        })
        .collect()
}

fn bitmap_op(name: &'static str, op: SetOp) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(2), |ctx| Ok(bitmap_type(bitmap_pair(ctx)?)), move |ctx| bitmaps_out(combined(ctx, op)?.into_iter().map(Ok))).build()
}

fn bitmap_op_cardinality(name: &'static str, op: SetOp) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            bitmap_pair(ctx)?;
            Ok(ChType::UInt64)
        },
        move |ctx| counts_out(combined(ctx, op)?.iter().map(|set| Ok(set.cardinality()))),
    )
    .build()
}

/// A subset of a bitmap from two unsigned integers (range, limit or offset).
type Subset = fn(&BitmapSet, u64, u64) -> BitmapSet;

fn is_unsigned(t: &ChType) -> bool {
    matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64)
}

fn bitmap_subset(name: &'static str, subset: Subset) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(3),
        |ctx| {
            let value = bitmap_arg(ctx, 0)?;
            for i in 1..3 {
                let t = ctx.literal_ch(i);
                if !is_unsigned(&t) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("The second and third arguments for function {} must be one of [UInt8, UInt16, UInt32, UInt64] but one of them has type {t}", ctx.name),
                    ));
                }
            }
            Ok(bitmap_type(value))
        },
        move |ctx| {
            let bitmaps = Bitmaps::of(ctx, 0)?;
            let (first, second) = (integer_bits(&ctx.array(1)?)?, integer_bits(&ctx.array(2)?)?);
            bitmaps_out((0..ctx.len).map(|row| Ok(subset(&bitmaps.at(row)?, first[row], second[row]))))
        },
    )
    .build()
}

/// `bitmapSubsetInRange(b, start, end)`: the values in `[start, end)`, in the bitmap's order.
fn subset_in_range(set: &BitmapSet, start: u64, end: u64) -> BitmapSet {
    let mut out = BitmapSet::new(set.width(), set.signed());
    if start < end {
        set.values().into_iter().filter(|v| (start..end).contains(v)).for_each(|v| out.insert(v));
    }
    out
}

/// `bitmapSubsetLimit(b, start, limit)`: the `limit` smallest values from `start`. A small
/// set keeps its order, cut by ClickHouse's `::nth_element` on the values' own type when
/// it has more than `limit`.
fn subset_limit(set: &BitmapSet, start: u64, limit: u64) -> BitmapSet {
    let mut out = BitmapSet::new(set.width(), set.signed());
    if limit == 0 {
        return out;
    }
    let mut values: Vec<u64> = set.values().into_iter().filter(|v| *v >= start).collect();
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    if !set.is_large() && limit < values.len() {
        let shift = 64 - 8 * set.width() as u32;
        let last = values.len() as isize - 1;
        if set.signed() {
            let less = |a: &u64, b: &u64| ((a << shift) as i64) < ((b << shift) as i64);
            crate::cxx_sort::floyd_rivest(&mut values, 0, last, limit as isize, &less);
        } else {
            crate::cxx_sort::floyd_rivest(&mut values, 0, last, limit as isize, &|a: &u64, b: &u64| a < b);
        }
    }
    values.into_iter().take(limit).for_each(|v| out.insert(v));
    out
}

/// `subBitmap(b, offset, limit)`: `limit` values from position `offset` of the ascending values.
fn sub_bitmap(set: &BitmapSet, offset: u64, limit: u64) -> BitmapSet {
    let mut out = BitmapSet::new(set.width(), set.signed());
    if limit == 0 || offset >= set.cardinality() {
        return out;
    }
    let (offset, limit) = (usize::try_from(offset).unwrap_or(usize::MAX), usize::try_from(limit).unwrap_or(usize::MAX));
    set.sorted_values().into_iter().skip(offset).take(limit).for_each(|v| out.insert(v));
    out
}

/// `bitmapTransform(b, from, to)`: each `from[i]` present replaced by `to[i]`, in order.
fn bitmap_transform() -> ScalarUDF {
    ScalarDef::new(
        "bitmapTransform",
        Arity::exact(3),
        |ctx| {
            let value = bitmap_arg(ctx, 0)?;
            for i in 1..3 {
                let t = ctx.ch(i);
                // Integer literals are Int64 until they get ClickHouse's types.
                if !matches!(&t, ChType::Array(element) if is_unsigned(element) || **element == ChType::Int64) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!(
                            "The second and third arguments for function {} must be an one of [Array(UInt8), Array(UInt16), Array(UInt32), Array(UInt64)] but one of them has type {t}",
                            ctx.name
                        ),
                    ));
                }
            }
            Ok(bitmap_type(value))
        },
        |ctx| {
            let bitmaps = Bitmaps::of(ctx, 0)?;
            let (from, to) = (ctx.array(1)?, ctx.array(2)?);
            let lists = |a: &ArrayRef| -> DfResult<(ListArray, Vec<u64>)> {
                let list = a.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "bitmapTransform takes arrays"))?.clone();
                let values = integer_bits(list.values())?;
                Ok((list, values))
            };
            let ((from, from_values), (to, to_values)) = (lists(&from)?, lists(&to)?);
            bitmaps_out((0..ctx.len).map(|row| {
                let (f, t) = (from.value_offsets(), to.value_offsets());
                let (from_row, to_row) = (&from_values[f[row] as usize..f[row + 1] as usize], &to_values[t[row] as usize..t[row + 1] as usize]);
                if from_row.len() != to_row.len() {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "From array size and to array size mismatch"));
                }
                let mut set = bitmaps.at(row)?;
                set.replace(from_row.iter().copied().zip(to_row.iter().copied()));
                Ok(set)
            }))
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(values: &[u64]) -> BitmapSet {
        let mut set = BitmapSet::new(4, false);
        values.iter().for_each(|v| set.insert(*v));
        set
    }

    /// chdb's `bitmapToArray(bitmapSubsetLimit(..))`, `subBitmap`, `bitmapSubsetInRange`.
    #[test]
    fn subsets_as_clickhouse() {
        let set = built(&[9, 8, 7, 1, 2, 3, 20, 15, 11, 4, 5, 19]);
        assert_eq!(subset_limit(&set, 2, 6).values(), vec![4, 8, 7, 2, 3, 5]);
        assert_eq!(subset_limit(&built(&[9, 8, 7, 1, 2, 3]), 2, 10).values(), vec![9, 8, 7, 2, 3]);
        assert_eq!(sub_bitmap(&built(&[9, 8, 7, 1, 2, 3]), 1, 3).values(), vec![2, 3, 7]);
        assert_eq!(subset_in_range(&built(&[9, 8, 7, 1, 2, 3]), 2, 8).values(), vec![7, 2, 3]);
        let mut signed = BitmapSet::new(4, true);
        [u64::from(u32::MAX), u64::from(u32::MAX) - 4, 3, 2].iter().for_each(|v| signed.insert(*v));
        assert_eq!(sub_bitmap(&signed, 0, 10).values(), vec![2, 3, u64::from(u32::MAX) - 4, u64::from(u32::MAX)]);
    }
}
