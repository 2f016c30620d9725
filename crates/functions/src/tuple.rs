//! `tuple(a, b, ...)`: an unnamed `Tuple(T1, T2, ...)` of its arguments (elements keep
//! their own types and NULLs; the tuple itself is never NULL). `tupleElement(t, n |
//! 'name' [, default])`: one element (`t.1` in SQL), also of each tuple of an array.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, StructArray};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::logical_expr::ScalarUDF;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, Arity};
use crate::func::ScalarDef;

fn tuple() -> ScalarUDF {
    ScalarDef::new(
        "tuple",
        Arity::at_least(1),
        |ctx| Ok(ChType::Tuple((0..ctx.arg_count()).map(|i| ((i + 1).to_string(), ctx.ch(i))).collect())),
        |ctx| {
            let DataType::Struct(fields) = ctx.ret_type() else {
                return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "tuple() must return a Struct"));
            };
            let columns = (0..ctx.args.len()).map(|i| ctx.array(i)).collect::<Result<Vec<ArrayRef>, _>>()?;
            Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?))
        },
    )
    .custom_nulls()
    .build()
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
            let Some((items, in_array)) = tuple_items(&t) else { return Err(illegal_type(ctx.name, 0, ctx.field(0))) };
            let element = match element_position(items, ctx)? {
                Some(i) => items[i].1.clone(),
                None => return Ok(ctx.ch(2)),
            };
            Ok(if in_array { ChType::Array(Box::new(element)) } else { element })
        },
        |ctx| {
            let t = ctx.ch(0);
            let Some((items, in_array)) = tuple_items(&t) else { return Err(ch_error(granary_common::ErrorCode::LOGICAL_ERROR, "tupleElement of a non-tuple")) };
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
                let item = Arc::new(Field::new(item.name(), values.data_type().clone(), true).with_metadata(item.metadata().clone()));
                return Ok(Arc::new(ListArray::try_new(item, list.offsets().clone(), values, list.nulls().cloned())?));
            }
            Ok(source.as_struct().column(position).clone())
        },
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![tuple(), tuple_element()]
}
