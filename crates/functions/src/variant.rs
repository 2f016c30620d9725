//! `Variant` functions: `variantType(v)` (the type of each value, an `Enum8` of the
//! type names with `'None' = -1` for NULL) and `variantElement(v, 'T'[, default])` (the
//! values of type `T`, NULL, or the default, elsewhere); `v.T` subcolumns are rewritten
//! to `variantElement` by the query layer. A `Variant` column is a struct with one
//! nullable child per type (see `granary_types::ChType::Variant`), so both are a look at
//! the children.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, Int8Array};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};

/// The types of the Variant argument `i`, or ILLEGAL_TYPE_OF_ARGUMENT.
fn variant_types(ctx: &RetCtx, i: usize) -> DfResult<Vec<ChType>> {
    match ctx.ch(i).variant_types() {
        Some(types) => Ok(types.to_vec()),
        None => Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("First argument for function {} must be Variant or array of Variants. Actual {}", ctx.name, ctx.ch(i)),
        )),
    }
}

/// `variantType`'s result: `Enum8('None' = -1, 'T1' = 0, ...)`.
fn variant_type_enum(types: &[ChType]) -> DfResult<ChType> {
    let mut elements = vec![("None".to_string(), -1)];
    elements.extend(types.iter().enumerate().map(|(i, t)| (t.to_string(), i as i64)));
    ChType::new_enum(elements, Some(false)).map_err(|e| ch_error(e.code(), e.message().to_string()))
}

fn variant_type() -> ScalarUDF {
    ScalarDef::new(
        "variantType",
        Arity::exact(1),
        |ctx| variant_type_enum(&variant_types(ctx, 0)?),
        |ctx| {
            let v = ctx.array(0)?;
            let parts = v.as_struct();
            let mut which = vec![-1i8; v.len()];
            for (i, column) in parts.columns().iter().enumerate() {
                for (row, slot) in which.iter_mut().enumerate() {
                    if column.is_valid(row) {
                        *slot = i as i8;
                    }
                }
            }
            Ok(Arc::new(Int8Array::from(which)))
        },
    )
    .custom_nulls()
    .build()
}

/// The index of the type named by argument 1 of `variantElement`.
fn element_index(ctx: &RetCtx, types: &[ChType]) -> DfResult<usize> {
    let name = ctx.const_str(1, "type name")?;
    let wanted = ChType::parse(name).map_err(|e| ch_error(e.code(), e.message().to_string()))?;
    types.iter().position(|t| *t == wanted).ok_or_else(|| {
        ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Variant type {} doesn't contain type {wanted}", ChType::Variant(types.to_vec())))
    })
}

fn variant_element() -> ScalarUDF {
    ScalarDef::new(
        "variantElement",
        Arity::range(2, 3),
        |ctx| {
            let types = variant_types(ctx, 0)?;
            let t = types[element_index(ctx, &types)?].clone();
            Ok(if ctx.arg_count() == 3 { t } else { t.into_nullable() })
        },
        |ctx| {
            let types = ctx.ch(0).variant_types().map(<[ChType]>::to_vec).unwrap_or_default();
            let wanted = ChType::parse(ctx.const_str(1, "type name")?).map_err(|e| ch_error(e.code(), e.message().to_string()))?;
            let index = types.iter().position(|t| *t == wanted).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("{wanted} is not a type of the Variant")))?;
            let v = ctx.array(0)?;
            let child = Arc::clone(v.as_struct().column(index));
            // Types that cannot be inside Nullable (arrays, maps) show their default.
            let nullable = ctx.ret_ch().is_nullable();
            // The other rows of an array or map child are empty (see the text builder and
            // `to_variant`): without their nulls they read as the type's default.
            let values = if nullable { child } else { datafusion::arrow::array::make_array(child.to_data().into_builder().nulls(None).build()?) };
            if ctx.args.len() == 3 {
                let default = ctx.array(2)?;
                let valid = datafusion::arrow::compute::is_not_null(v.as_struct().column(index).as_ref())?;
                let default = datafusion::arrow::compute::cast(&default, values.data_type())?;
                return Ok(datafusion::arrow::compute::kernels::zip::zip(&valid, &values, &default)?);
            }
            Ok(values)
        },
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![variant_type(), variant_element()]
}
