//! `tuple(a, b, ...)`: an unnamed `Tuple(T1, T2, ...)` of its arguments (elements keep
//! their own types and NULLs; the tuple itself is never NULL).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StructArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_types::ChType;

use crate::args::{ch_error, Arity};
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

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![tuple()]
}
