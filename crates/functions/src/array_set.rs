//! Arrays as sets and sequences of values: `hasAll`, `hasAny`, `hasSubstr`,
//! `arrayIntersect`, `arrayUnion`, `arraySymmetricDifference`, `arrayEnumerate`,
//! `arrayEnumerateUniq`, `arrayEnumerateDense`.
//!
//! `has*` compare in the least supertype of the element types (NULL equal to NULL, NaN to
//! nothing, as `has` does). The others hash elements by value (ClickHouse's hash tables):
//! there NaN equals NaN, -0 and 0 differ, NULL is a value of its own.
//! `arrayIntersect` converts every array to the *most subtype* of the element types
//! (`[1, 2]` with `[1.5, 2]` intersect as `UInt8`, as in ClickHouse) and keeps the first
//! array's order; `arrayUnion` keeps first appearances in argument order, where
//! ClickHouse's order is its hash table's (unspecified).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array, UInt64Array, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{concat, take};
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::array::{element_equality, item_field};
use crate::array_access::element_supertype;
use crate::array_aggregate::element_keys;
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::regexp::list_offset;

/// The element type of argument `i`, or ClickHouse's "must be an array" error.
fn array_element(ctx: &RetCtx, i: usize, message: impl Fn(&ChType) -> String) -> DfResult<ChType> {
    match ctx.ch(i) {
        ChType::Array(inner) => Ok(*inner),
        other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message(&other))),
    }
}

/// The values of list `list` converted to the element type `target` (nulls kept).
pub(crate) fn values_as(ctx: &ExecCtx, list: &ListArray, target: &ChType) -> DfResult<ArrayRef> {
    if matches!(target.base(), ChType::Nothing) {
        return Ok(Arc::clone(list.values()));
    }
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    convert(list.values(), &item_field(list), target.strip_nullable(), &cv)
}

/// The argument lists of a call, each expanded to `ctx.len` rows.
pub(crate) fn list_args(ctx: &ExecCtx) -> DfResult<Vec<ListArray>> {
    (0..ctx.args.len()).map(|i| Ok(ctx.array(i)?.as_list::<i32>().clone())).collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Contains {
    All,
    Any,
    Substr,
}

fn has_all_any(name: &'static str, how: Contains) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            let elements = (0..2)
                .map(|i| array_element(ctx, i, |t| format!("Argument {i} for function {} must be an array but it has type {t}", ctx.name)))
                .collect::<DfResult<Vec<_>>>()?;
            element_supertype(&elements)?;
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let lists = list_args(ctx)?;
            let elements: Vec<ChType> = (0..2).map(|i| crate::array::element_type(&ctx.ch(i))).collect();
            let common = element_supertype(&elements)?;
            let (a, b) = (values_as(ctx, &lists[0], &common)?, values_as(ctx, &lists[1], &common)?);
            let typed = a.data_type() != &DataType::Null && b.data_type() != &DataType::Null;
            let equal = if typed { Some(element_equality(a.as_ref(), b.as_ref())?) } else { None };
            // A NULL equals a NULL here (`hasAll([1, NULL], [NULL])` is 1).
            let (na, nb) = (a.logical_nulls(), b.logical_nulls());
            let null = |n: &Option<datafusion::arrow::buffer::NullBuffer>, i: usize| n.as_ref().is_some_and(|n| n.is_null(i));
            let eq = |i: usize, j: usize| -> bool {
                match (null(&na, i), null(&nb, j)) {
                    (true, true) => true,
                    (false, false) => equal.as_ref().is_some_and(|e| e(i, j)),
                    _ => false,
                }
            };
            let (oa, ob) = (lists[0].value_offsets(), lists[1].value_offsets());
            let result = (0..ctx.len).map(|row| {
                let ra = oa[row] as usize..oa[row + 1] as usize;
                let rb = ob[row] as usize..ob[row + 1] as usize;
                let found = match how {
                    Contains::All => rb.clone().all(|j| ra.clone().any(|i| eq(i, j))),
                    Contains::Any => rb.clone().any(|j| ra.clone().any(|i| eq(i, j))),
                    Contains::Substr => {
                        let n = rb.len();
                        n == 0 || (ra.len() >= n && (ra.start..=ra.end - n).any(|s| (0..n).all(|k| eq(s + k, rb.start + k))))
                    }
                };
                u8::from(found)
            });
            Ok(Arc::new(UInt8Array::from_iter_values(result)))
        },
    )
    .build()
}

/// ClickHouse's `getMostSubtype` for the element types of `arrayIntersect`: Nullable only
/// when all are; integers before floats, the narrowest first, unsigned on a tie;
/// `FixedString` before `String`, `Date` before `DateTime`.
fn most_subtype(types: &[ChType]) -> DfResult<ChType> {
    let nullable = types.iter().all(|t| t.is_nullable());
    let bases: Vec<ChType> = types.iter().map(|t| t.base().clone()).collect();
    let wrap = |t: ChType| if nullable { t.into_nullable() } else { t };
    if bases.iter().any(|t| matches!(t, ChType::Nothing)) {
        return Ok(wrap(ChType::Nothing));
    }
    if bases.windows(2).all(|w| w[0] == w[1]) {
        return Ok(wrap(bases[0].clone()));
    }
    fn rank(t: &ChType) -> Option<(u8, u8, u8)> {
        // (class, width, signedness): the smallest tuple wins.
        Some(match t {
            ChType::UInt8 => (0, 1, 0),
            ChType::Int8 => (0, 1, 1),
            ChType::UInt16 => (0, 2, 0),
            ChType::Int16 => (0, 2, 1),
            ChType::UInt32 => (0, 4, 0),
            ChType::Int32 => (0, 4, 1),
            ChType::UInt64 => (0, 8, 0),
            ChType::Int64 => (0, 8, 1),
            ChType::Float32 => (1, 4, 1),
            ChType::Float64 => (1, 8, 1),
            _ => return None,
        })
    }
    if let Some(ranks) = bases.iter().map(rank).collect::<Option<Vec<_>>>() {
        let best = ranks.iter().enumerate().min_by_key(|(_, r)| **r).map_or(0, |(i, _)| i);
        return Ok(wrap(bases[best].clone()));
    }
    let all = |f: fn(&ChType) -> bool| bases.iter().all(f);
    if all(|t| matches!(t, ChType::String | ChType::FixedString(_))) {
        if let Some(fixed) = bases.iter().find(|t| matches!(t, ChType::FixedString(_))) {
            return Ok(wrap(fixed.clone()));
        }
    }
    if all(|t| matches!(t, ChType::Date | ChType::DateTime(_))) {
        return Ok(wrap(ChType::Date));
    }
    let names: Vec<String> = bases.iter().map(|t| t.to_string()).collect();
    let text = |t: &ChType| matches!(t, ChType::String | ChType::FixedString(_));
    let why = if bases.iter().any(text) && !bases.iter().all(text) {
        " because some of them are String/FixedString and some of them are not"
    } else {
        ""
    };
    Err(ch_error(ErrorCode::NO_COMMON_TYPE, format!("There is no subtype for types {}{why}", names.join(", "))))
}

/// The element types of all arguments, each of which must be an array.
fn all_array_elements(ctx: &RetCtx) -> DfResult<Vec<ChType>> {
    if ctx.arg_count() == 0 {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Function {} requires at least one argument", ctx.name)));
    }
    (0..ctx.arg_count())
        .map(|i| array_element(ctx, i, |t| format!("Argument {i} for function {} must be an array but it has type {t}", ctx.name)))
        .collect()
}

/// Each argument's values converted to `target`, concatenated, with each argument's
/// start in the concatenation.
fn concatenated(ctx: &ExecCtx, lists: &[ListArray], target: &ChType) -> DfResult<(ArrayRef, Vec<usize>)> {
    let converted: Vec<ArrayRef> = lists.iter().map(|l| values_as(ctx, l, target)).collect::<DfResult<_>>()?;
    let mut starts = Vec::with_capacity(converted.len());
    let mut at = 0;
    for c in &converted {
        starts.push(at);
        at += c.len();
    }
    let refs: Vec<&dyn Array> = converted.iter().map(|c| c.as_ref()).collect();
    Ok((concat(&refs)?, starts))
}

/// The argument lists, and all their values in the result's element type, concatenated
/// (see [`concatenated`]).
fn all_values(ctx: &ExecCtx) -> DfResult<(Vec<ListArray>, ArrayRef, Vec<usize>)> {
    let lists = list_args(ctx)?;
    let target = crate::array::element_type(&ctx.ret_ch());
    let (values, starts) = concatenated(ctx, &lists, &target)?;
    Ok((lists, values, starts))
}

/// Builds a list column with item type `ctx.ret_type()` from `values` picked by `indices`.
fn list_from(ctx: &ExecCtx, values: &ArrayRef, indices: Vec<u64>, offsets: Vec<i32>) -> DfResult<ArrayRef> {
    let DataType::List(item) = ctx.ret_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns a list", ctx.name)));
    };
    let taken = take(values.as_ref(), &UInt64Array::from(indices), None)?;
    let taken = if taken.data_type() == item.data_type() { taken } else { datafusion::arrow::compute::cast(&taken, item.data_type())? };
    Ok(Arc::new(ListArray::try_new(Arc::clone(item), OffsetBuffer::new(offsets.into()), taken, None)?))
}

fn array_intersect() -> ScalarUDF {
    ScalarDef::new(
        "arrayIntersect",
        Arity::at_least(0),
        |ctx| Ok(ChType::Array(Box::new(most_subtype(&all_array_elements(ctx)?)?))),
        |ctx| {
            let lists = list_args(ctx)?;
            let target = crate::array::element_type(&ctx.ret_ch());
            let mut indices: Vec<u64> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            if matches!(target.base(), ChType::Nothing) {
                offsets.extend(std::iter::repeat_n(0, ctx.len));
                let empty = datafusion::arrow::array::new_null_array(&DataType::Null, 0);
                return list_from(ctx, &empty, indices, offsets);
            }
            let (values, starts) = concatenated(ctx, &lists, &target)?;
            let keys = element_keys(&values)?;
            let keep_nulls = target.is_nullable();
            let mut others: Vec<HashSet<&[u8]>> = vec![HashSet::new(); lists.len().saturating_sub(1)];
            let mut emitted: HashSet<&[u8]> = HashSet::new();
            for row in 0..ctx.len {
                for (k, set) in others.iter_mut().enumerate() {
                    set.clear();
                    let o = lists[k + 1].value_offsets();
                    set.extend((o[row] as usize..o[row + 1] as usize).map(|j| keys.row(starts[k + 1] + j).data()));
                }
                emitted.clear();
                let o = lists[0].value_offsets();
                for j in o[row] as usize..o[row + 1] as usize {
                    let at = starts[0] + j;
                    if values.is_null(at) && !keep_nulls {
                        continue;
                    }
                    let key = keys.row(at).data();
                    if others.iter().all(|s| s.contains(key)) && emitted.insert(key) {
                        indices.push(at as u64);
                    }
                }
                offsets.push(list_offset(indices.len())?);
            }
            list_from(ctx, &values, indices, offsets)
        },
    )
    .build()
}

fn array_union() -> ScalarUDF {
    ScalarDef::new(
        "arrayUnion",
        Arity::at_least(0),
        |ctx| Ok(ChType::Array(Box::new(element_supertype(&all_array_elements(ctx)?)?))),
        |ctx| {
            let (lists, values, starts) = all_values(ctx)?;
            let mut indices: Vec<u64> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            if values.data_type() == &DataType::Null {
                // Only NULLs (or nothing): one NULL per row that has any.
                for row in 0..ctx.len {
                    if let Some((k, j)) = lists.iter().enumerate().find_map(|(k, l)| {
                        let o = l.value_offsets();
                        (o[row] < o[row + 1]).then_some((k, o[row] as usize))
                    }) {
                        indices.push((starts[k] + j) as u64);
                    }
                    offsets.push(list_offset(indices.len())?);
                }
                return list_from(ctx, &values, indices, offsets);
            }
            let keys = element_keys(&values)?;
            let mut seen: HashSet<&[u8]> = HashSet::new();
            for row in 0..ctx.len {
                seen.clear();
                for (k, l) in lists.iter().enumerate() {
                    let o = l.value_offsets();
                    for j in o[row] as usize..o[row + 1] as usize {
                        let at = starts[k] + j;
                        if seen.insert(keys.row(at).data()) {
                            indices.push(at as u64);
                        }
                    }
                }
                offsets.push(list_offset(indices.len())?);
            }
            list_from(ctx, &values, indices, offsets)
        },
    )
    .build()
}

/// `arraySymmetricDifference(a, ...)`: the distinct elements that are in some of the
/// arrays but not in all, in order of first appearance (ClickHouse's order is its hash
/// table's), compared in the arrays' least supertype.
fn array_symmetric_difference() -> ScalarUDF {
    ScalarDef::new(
        "arraySymmetricDifference",
        Arity::at_least(0),
        |ctx| Ok(ChType::Array(Box::new(element_supertype(&all_array_elements(ctx)?)?))),
        |ctx| {
            let (lists, values, starts) = all_values(ctx)?;
            let mut indices: Vec<u64> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            let keys = element_keys(&values)?;
            // Per distinct element: where it first appears, the last array that had it
            // (1-based) and in how many arrays it is.
            let mut seen: HashMap<&[u8], (usize, usize, usize)> = HashMap::new();
            let mut order: Vec<&[u8]> = Vec::new();
            for row in 0..ctx.len {
                seen.clear();
                order.clear();
                for (k, l) in lists.iter().enumerate() {
                    let o = l.value_offsets();
                    for j in o[row] as usize..o[row + 1] as usize {
                        let at = starts[k] + j;
                        let key = keys.row(at).data();
                        let entry = seen.entry(key).or_insert_with(|| {
                            order.push(key);
                            (at, 0, 0)
                        });
                        if entry.1 != k + 1 {
                            entry.1 = k + 1;
                            entry.2 += 1;
                        }
                    }
                }
                for key in &order {
                    if let Some(&(at, _, arrays)) = seen.get(key) {
                        if arrays < lists.len() {
                            indices.push(at as u64);
                        }
                    }
                }
                offsets.push(list_offset(indices.len())?);
            }
            list_from(ctx, &values, indices, offsets)
        },
    )
    .build()
}

fn array_enumerate() -> ScalarUDF {
    ScalarDef::new(
        "arrayEnumerate",
        Arity::exact(1),
        |ctx| {
            array_element(ctx, 0, |t| format!("First argument for function arrayEnumerate must be an array but it has type {t}"))?;
            Ok(ChType::Array(Box::new(ChType::UInt32)))
        },
        |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let o = list.value_offsets();
            let values: UInt32Array = (0..ctx.len).flat_map(|row| 1..=(o[row + 1] - o[row]) as u32).collect();
            let lengths = (0..ctx.len).map(|row| (o[row + 1] - o[row]) as usize);
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayEnumerate returns a list"));
            };
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), OffsetBuffer::from_lengths(lengths), Arc::new(values), None)?))
        },
    )
    .build()
}

/// `arrayEnumerateUniq` (`dense` false: how many times the element, a tuple of the
/// arrays' elements, has been met so far) and `arrayEnumerateDense` (the 1-based
/// number of its distinct value in order of first appearance).
fn enumerate_uniq(name: &'static str, dense: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() == 0 {
                return Err(ch_error(
                    ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                    format!("Number of arguments for function {} doesn't match: passed 0, should be at least 1", ctx.name),
                ));
            }
            for i in 0..ctx.arg_count() {
                array_element(ctx, i, |t| format!("All arguments for function {} must be arrays but argument {} has type {t}", ctx.name, i + 1))?;
            }
            Ok(ChType::Array(Box::new(ChType::UInt32)))
        },
        move |ctx| {
            let lists = list_args(ctx)?;
            let keys: Vec<datafusion::arrow::row::Rows> = lists.iter().map(|l| element_keys(l.values())).collect::<DfResult<_>>()?;
            let first = lists[0].value_offsets();
            let mut out: Vec<u32> = Vec::with_capacity(lists[0].values().len());
            let mut counts: HashMap<Vec<u8>, u32> = HashMap::new();
            for row in 0..ctx.len {
                let len = (first[row + 1] - first[row]) as usize;
                if lists[1..].iter().any(|l| (l.value_offsets()[row + 1] - l.value_offsets()[row]) as usize != len) {
                    return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, format!("Lengths of all arrays passed to {} must be equal", ctx.name)));
                }
                counts.clear();
                for j in 0..len {
                    let mut key = Vec::new();
                    for (l, k) in lists.iter().zip(&keys) {
                        key.extend_from_slice(k.row(l.value_offsets()[row] as usize + j).as_ref());
                    }
                    let next = counts.len() as u32 + 1;
                    let n = counts.entry(key).or_insert(if dense { next } else { 0 });
                    if !dense {
                        *n += 1;
                    }
                    out.push(*n);
                }
            }
            let lengths = (0..ctx.len).map(|row| (first[row + 1] - first[row]) as usize);
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayEnumerateUniq returns a list"));
            };
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), OffsetBuffer::from_lengths(lengths), Arc::new(UInt32Array::from(out)), None)?))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        has_all_any("hasAll", Contains::All),
        has_all_any("hasAny", Contains::Any),
        has_all_any("hasSubstr", Contains::Substr),
        array_intersect(),
        array_union(),
        array_symmetric_difference(),
        array_enumerate(),
        enumerate_uniq("arrayEnumerateUniq", false),
        enumerate_uniq("arrayEnumerateDense", true),
    ]
}

#[cfg(test)]
mod tests {
    use super::most_subtype;
    use granary_types::ChType;

    #[test]
    fn most_subtype_prefers_narrow_integers() {
        assert_eq!(most_subtype(&[ChType::Int8, ChType::UInt16]).ok(), Some(ChType::Int8));
        assert_eq!(most_subtype(&[ChType::Int32, ChType::UInt8]).ok(), Some(ChType::UInt8));
        assert_eq!(most_subtype(&[ChType::Int8, ChType::UInt8]).ok(), Some(ChType::UInt8));
        assert_eq!(most_subtype(&[ChType::Int64, ChType::Float32]).ok(), Some(ChType::Int64));
        assert_eq!(most_subtype(&[ChType::UInt8.into_nullable(), ChType::UInt8]).ok(), Some(ChType::UInt8));
        assert!(most_subtype(&[ChType::UInt8, ChType::String]).is_err());
    }
}
