//! `arrayEnumerateUniqRanked` and `arrayEnumerateDenseRanked`: `arrayEnumerateUniq` /
//! `arrayEnumerateDense` over nested arrays, looking at elements at a chosen depth.
//!
//! Arguments: an optional `clear_depth` (a positive constant, 1 by default), then arrays,
//! each optionally followed by the depth to look at in it (its full depth by default).
//! The result has the shape of the arrays down to the largest of those depths, holding
//! UInt32. Each element at that depth is keyed by the elements of every array at that
//! array's own depth above or at it (a shallower array's element stands for all its
//! descendants), and is numbered among the elements that share its ancestor at depth
//! `clear_depth - 1` (the row for 1): how many times its key has been met so far (Uniq),
//! or the rank of its key in order of first appearance (Dense).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, scalar_i128, Arity, DfResult};
use crate::array_aggregate::element_keys;
use crate::func::{ExecCtx, ScalarDef};

/// How many Array levels a type has.
fn array_depth(t: &ChType) -> usize {
    match t {
        ChType::Array(inner) => 1 + array_depth(inner),
        _ => 0,
    }
}

/// The parsed arguments: the clear depth and, per array argument, its index and depth.
struct Depths {
    clear: usize,
    arrays: Vec<(usize, usize)>,
    max: usize,
}

fn bad(message: String) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::BAD_ARGUMENTS, message)
}

fn depths(name: &str, types: &[ChType], constant: &dyn Fn(usize) -> Option<i128>) -> DfResult<Depths> {
    if types.is_empty() {
        return Err(ch_error(ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION, format!("Number of arguments for function {name} doesn't match: passed 0, should be at least 1")));
    }
    let mut i = 0;
    let mut clear = 1;
    if array_depth(&types[0]) == 0 {
        match constant(0) {
            Some(v) if v > 0 => clear = v as usize,
            Some(_) => return Err(bad(format!("First argument of {name} must be a positive integer"))),
            None => return Err(bad(format!("First argument of {name} must be Const(UInt64)"))),
        }
        i = 1;
    }
    let mut arrays = Vec::new();
    while i < types.len() {
        let depth = array_depth(&types[i]);
        if depth == 0 {
            return Err(bad(format!("Incorrect argument {} type of function {name}. Expected an Array, got {}", i + 1, types[i])));
        }
        if i + 1 < types.len() && array_depth(&types[i + 1]) == 0 {
            let wanted = match constant(i + 1) {
                Some(v) if v > 0 => v as usize,
                Some(_) => return Err(bad(format!("Incorrect argument {} of function {name}. Expected a positive integer", i + 2))),
                None => return Err(bad(format!("Incorrect argument {} type of function {name}. Expected an Array or Const(UInt64), got {}", i + 2, types[i + 1]))),
            };
            if wanted > depth {
                return Err(bad(format!("Incorrect argument {} of function {name}. Required depth '{wanted}' is larger than the array depth ({depth})", i + 2)));
            }
            arrays.push((i, wanted));
            i += 2;
        } else {
            arrays.push((i, depth));
            i += 1;
        }
    }
    let max = arrays.iter().map(|(_, d)| *d).max().unwrap_or(0);
    if clear > max {
        return Err(bad(format!("Incorrect arguments for function {name}: clear_depth ({clear}) can't be larger than max_array_depth ({max})")));
    }
    Ok(Depths { clear, arrays, max })
}

/// The list levels of an array column down to `depth`: level 0 is the rows' lists.
fn levels(array: &ArrayRef, depth: usize) -> DfResult<Vec<ListArray>> {
    let mut out = Vec::with_capacity(depth);
    let mut current = Arc::clone(array);
    for _ in 0..depth {
        let list = current.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "an array argument is not a list"))?.clone();
        current = Arc::clone(list.values());
        out.push(list);
    }
    Ok(out)
}

/// For each element of level `level`'s values, the index of the list holding it (an
/// element of level `level - 1`'s values, or a row for level 0).
fn parents(list: &ListArray) -> Vec<usize> {
    let offsets = list.value_offsets();
    let mut out = Vec::with_capacity(list.values().len());
    for (i, w) in offsets.windows(2).enumerate() {
        out.extend(std::iter::repeat_n(i, (w[1] - w[0]) as usize));
    }
    out
}

fn enumerate_ranked(name: &'static str, dense: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(0),
        |ctx| {
            let types: Vec<ChType> = (0..ctx.arg_count()).map(|i| ctx.ch(i)).collect();
            let d = depths(ctx.name, &types, &|i| ctx.scalar(i).and_then(scalar_i128))?;
            Ok((0..d.max).fold(ChType::UInt32, |t, _| ChType::Array(Box::new(t))))
        },
        move |ctx| {
            let types: Vec<ChType> = (0..ctx.args.len()).map(|i| ctx.ch(i)).collect();
            let d = depths(ctx.name, &types, &|i| ctx.scalar(i).and_then(scalar_i128))?;
            ranked(ctx, &d, dense)
        },
    )
    .build()
}

fn ranked(ctx: &ExecCtx, d: &Depths, dense: bool) -> DfResult<ArrayRef> {
    let mismatch = || ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, format!("Lengths and effective depths of all arrays passed to {} must be equal", ctx.name));
    let mut arrays: Vec<(Vec<ListArray>, usize)> = Vec::with_capacity(d.arrays.len());
    for &(i, depth) in &d.arrays {
        // A copy whose offsets start at 0 at every level, so that positions line up.
        let array = datafusion::arrow::compute::concat(&[ctx.array(i)?.as_ref()])?;
        arrays.push((levels(&array, depth)?, depth));
    }
    // The shape comes from a deepest array; every other one must agree down to its depth.
    let shape = arrays.iter().find(|(_, depth)| *depth == d.max).map(|(l, _)| l.clone()).ok_or_else(mismatch)?;
    for (lists, depth) in &arrays {
        for level in 0..*depth {
            if lists[level].value_offsets() != shape[level].value_offsets() {
                return Err(mismatch());
            }
        }
    }
    let parents: Vec<Vec<usize>> = shape.iter().map(parents).collect();
    // The ancestor at depth `depth` (1-based; 0 is the row) of leaf `leaf`.
    let ancestor = |leaf: usize, depth: usize| -> usize {
        let mut index = leaf;
        for level in (depth..d.max).rev() {
            index = parents[level][index];
        }
        index
    };
    let keys = arrays.iter().map(|(lists, depth)| element_keys(lists[depth - 1].values())).collect::<DfResult<Vec<_>>>()?;
    let leaves = shape[d.max - 1].values().len();
    let mut out: Vec<u32> = Vec::with_capacity(leaves);
    let mut counts: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut group = usize::MAX;
    for leaf in 0..leaves {
        let g = ancestor(leaf, d.clear - 1);
        if g != group {
            counts.clear();
            group = g;
        }
        let mut key = Vec::new();
        for ((_, depth), k) in arrays.iter().zip(&keys) {
            key.extend_from_slice(k.row(ancestor(leaf, *depth)).as_ref());
        }
        let next = counts.len() as u32 + 1;
        let n = counts.entry(key).or_insert(if dense { next } else { 0 });
        if !dense {
            *n += 1;
        }
        out.push(*n);
    }
    // Rebuild the shape around the numbers, innermost level first.
    let mut result: ArrayRef = Arc::new(UInt32Array::from(out));
    let mut item_types = Vec::with_capacity(d.max);
    let mut t = ctx.ret_type().clone();
    for _ in 0..d.max {
        let DataType::List(item) = t else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns nested lists", ctx.name))) };
        item_types.push(Arc::clone(&item));
        t = item.data_type().clone();
    }
    for level in (0..d.max).rev() {
        let offsets = OffsetBuffer::new(shape[level].value_offsets().to_vec().into());
        result = Arc::new(ListArray::try_new(Arc::clone(&item_types[level]), offsets, result, None)?);
    }
    Ok(result)
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![enumerate_ranked("arrayEnumerateUniqRanked", false), enumerate_ranked("arrayEnumerateDenseRanked", true)]
}
