//! Functions that see a String as code points: `lowerUTF8`, `upperUTF8` (Unicode's full
//! case mappings, so `upperUTF8('straße')` is `STRASSE` and a final sigma lowers to `ς`,
//! as ClickHouse's ICU does), `substringUTF8` (ClickHouse's `substring` rules counted in
//! code points) and `reverseUTF8`.
//!
//! ClickHouse counts a code point at every byte that does not continue a UTF-8
//! sequence; Granary's strings are valid UTF-8, where that is the same as Rust's `char`s.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_float, is_integer, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};
use crate::string::{is_plain_string, substring_range, utf8};
use crate::text::ByteStrings;

fn case_utf8(name: &'static str, upper: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0);
            if matches!(t.base(), ChType::FixedString(_)) {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Functions lowerUTF8 and upperUTF8 cannot work with FixedString argument"));
            }
            if !is_plain_string(&t) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let s = utf8(ctx, 0)?;
            let s = s.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                let v = s.value(row);
                if v.is_ascii() {
                    let mapped = if upper { v.to_ascii_uppercase() } else { v.to_ascii_lowercase() };
                    out.push_value(mapped.as_bytes())?;
                } else {
                    let mapped = if upper { v.to_uppercase() } else { v.to_lowercase() };
                    out.push_value(mapped.as_bytes())?;
                }
            }
            out.finish(None)
        },
    )
    .build()
}

/// An offset or length argument: an integer, or a float (truncated, as ClickHouse does).
pub(crate) fn require_offset(ctx: &RetCtx, i: usize) -> DfResult<()> {
    if is_integer(ctx.dt(i)) || is_float(ctx.dt(i)) {
        Ok(())
    } else {
        Err(illegal_type(ctx.name, i, ctx.field(i)))
    }
}

/// `substringUTF8(s, offset[, length])`.
fn substring_utf8() -> ScalarUDF {
    ScalarDef::new(
        "substringUTF8",
        Arity::range(2, 3),
        |ctx| {
            if !is_plain_string(&ctx.ch(0)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            for i in 1..ctx.arg_count() {
                require_offset(ctx, i)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let s = utf8(ctx, 0)?;
            let s = s.as_string::<i32>();
            let offsets = cast(&ctx.array(1)?, &DataType::Int64)?;
            let offsets = offsets.as_primitive::<Int64Type>();
            let lengths = if ctx.args.len() > 2 { Some(cast(&ctx.array(2)?, &DataType::Int64)?) } else { None };
            let lengths = lengths.as_ref().map(|l| l.as_primitive::<Int64Type>());
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                let v = s.value(row);
                let chars = v.chars().count();
                let (begin, end) = substring_range(chars as i64, offsets.value(row), lengths.map(|l| l.value(row)));
                if begin < end {
                    let mut boundaries = v.char_indices().map(|(i, _)| i).chain(std::iter::once(v.len()));
                    let from = boundaries.nth(begin).unwrap_or(v.len());
                    let to = if end > begin { boundaries.nth(end - begin - 1).unwrap_or(v.len()) } else { from };
                    out.extend(&v.as_bytes()[from..to]);
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `reverseUTF8(s)`: the code points in reverse order.
fn reverse_utf8() -> ScalarUDF {
    ScalarDef::new(
        "reverseUTF8",
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0);
            if matches!(t.base(), ChType::FixedString(_)) {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, "Cannot apply function reverseUTF8 to fixed string"));
            }
            if !is_plain_string(&t) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let s = utf8(ctx, 0)?;
            let s = s.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            let mut buf = [0u8; 4];
            for row in 0..s.len() {
                for c in s.value(row).chars().rev() {
                    out.extend(c.encode_utf8(&mut buf).as_bytes());
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![case_utf8("lowerUTF8", false), case_utf8("upperUTF8", true), substring_utf8(), reverse_utf8()]
}
