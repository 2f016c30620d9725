//! Functions over `Map(K, V)`: `mapKeys(m)` (`Array(K)`), `mapValues(m)` (`Array(V)`),
//! `mapContains(m, k)` / `mapContainsKey` and `mapContainsValue(m, v)` (UInt8). The
//! entries of an Arrow map are one keys column and one values column cut by the map's
//! offsets, so the keys and values arrays are those columns under the same offsets, and
//! a search compares every entry with its row's needle in one kernel pass.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array, UInt8Array};
use datafusion::arrow::compute::kernels::cmp;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, Arity, DfResult};
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::supertype::least_supertype;

fn map_types(ctx: &RetCtx, name: &str) -> DfResult<(ChType, ChType)> {
    match ctx.ch(0).strip_nullable().clone() {
        ChType::Map(k, v) => Ok((*k, *v)),
        _ => Err(illegal_type(name, 0, ctx.field(0))),
    }
}

/// `mapKeys(m)` (`keys` true) or `mapValues(m)`.
fn map_part(name: &'static str, keys: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            let (k, v) = map_types(ctx, ctx.name)?;
            Ok(ChType::Array(Box::new(if keys { k } else { v })))
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let map = array.as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} takes a Map", ctx.name)))?;
            let DataType::List(field) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return an Array", ctx.name)));
            };
            let part = if keys { map.keys() } else { map.values() };
            Ok(Arc::new(ListArray::try_new(field.clone(), map.offsets().clone(), part.clone(), map.nulls().cloned())?))
        },
    )
    .build()
}

/// `mapContains(m, k)` (`keys` true) or `mapContainsValue(m, v)`.
fn map_contains(name: &'static str, keys: bool, aliases: &[&str]) -> ScalarUDF {
    let mut def = ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let (k, v) = map_types(ctx, ctx.name)?;
            common_type(if keys { &k } else { &v }, &needle_type(ctx.ch(1), ctx.scalar(1)))?;
            Ok(ChType::UInt8)
        },
        move |ctx| contains(ctx, keys),
    );
    def.aliases = aliases.iter().map(|a| a.to_string()).collect();
    def.build()
}

/// An integer literal needle as its narrowest type, as ClickHouse types literals (`5` is
/// UInt8, so it meets UInt64 keys).
fn needle_type(t: ChType, literal: Option<&ScalarValue>) -> ChType {
    match literal {
        Some(value @ ScalarValue::Int64(_)) => crate::literals::narrow(value).map(|n| ChType::from_arrow(&n.data_type(), false)).unwrap_or(t),
        _ => t,
    }
}

/// The type entries and needle are compared in; `None` for an empty map's `Nothing`.
fn common_type(entries: &ChType, needle: &ChType) -> DfResult<Option<ChType>> {
    if matches!(entries.strip_nullable(), ChType::Nothing) {
        return Ok(None);
    }
    Ok(Some(least_supertype(&[entries.clone(), needle.clone()])?))
}

fn contains(ctx: &ExecCtx, keys: bool) -> DfResult<ArrayRef> {
    let array = ctx.array(0)?;
    let map = array.as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} takes a Map", ctx.name)))?;
    let (entries_type, entries) = match ctx.ch(0).strip_nullable() {
        ChType::Map(k, v) => if keys { (k.as_ref().clone(), map.keys().clone()) } else { (v.as_ref().clone(), map.values().clone()) },
        _ => return Err(illegal_type(ctx.name, 0, &ctx.fields[0])),
    };
    let rows = map.len();
    let Some(common) = common_type(&entries_type, &needle_type(ctx.ch(1), ctx.scalar(1)))? else {
        return Ok(Arc::new(UInt8Array::from(vec![0u8; rows])));
    };
    let cv = Conv { func: ctx.name, mode: Mode::Throw, config: ctx.config };
    let common = common.strip_nullable().clone();
    let entries = convert(&entries, &entries_type.to_arrow_field("entries"), &common, &cv)?;
    let needles = convert(&ctx.array(1)?, &ctx.fields[1], &common, &cv)?;
    // Each entry next to its row's needle, then one comparison over all entries.
    let offsets = map.offsets();
    let owner: UInt32Array = (0..rows).flat_map(|row| std::iter::repeat_n(row as u32, (offsets[row + 1] - offsets[row]) as usize)).collect();
    let first = offsets[0] as usize;
    let entries = entries.slice(first, owner.len());
    let spread = datafusion::arrow::compute::take(needles.as_ref(), &owner, None)?;
    let equal = cmp::not_distinct(&entries, &spread)?;
    let found: Vec<u8> = (0..rows)
        .map(|row| {
            let (start, end) = (offsets[row] as usize - first, offsets[row + 1] as usize - first);
            u8::from((start..end).any(|i| equal.value(i)))
        })
        .collect();
    Ok(Arc::new(UInt8Array::new(found.into(), map.nulls().cloned())))
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        map_part("mapKeys", true),
        map_part("mapValues", false),
        map_contains("mapContains", true, &["mapContainsKey"]),
        map_contains("mapContainsValue", false, &[]),
    ]
}
