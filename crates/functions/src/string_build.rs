//! Functions that build a string out of others: `leftPad`, `rightPad` (`lpad`/`rpad`
//! are DataFusion's, not these) and their UTF8 variants, `format`,
//! `concatWithSeparator` (`concat_ws`), `arrayStringConcat`.
//!
//! Non-string arguments are written as `toString` writes them; a FixedString keeps its
//! trailing zero bytes here, as in ClickHouse (only `toString` itself drops them).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int64Type};
use datafusion::common::config::ConfigOptions;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, scalar_str, Arity, DfResult};
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{ch_type_of_field, ScalarDef};
use crate::string::{is_plain_string, require_const_string, require_text};
use crate::text::{utf8_array, ByteStrings};

/// ClickHouse's limit on a padded length (`leftPad` and friends).
const MAX_PADDED_LENGTH: i64 = 1_000_000;

/// The text of a column of any type (NULL rows stay NULL).
pub(crate) fn as_text(array: &ArrayRef, field: &Field, config: &ConfigOptions) -> DfResult<StringArray> {
    let ch = ch_type_of_field(field);
    let text = match (array.data_type(), ch.base()) {
        (DataType::Utf8, _) => Arc::clone(array),
        (DataType::FixedSizeBinary(_), ChType::FixedString(_)) | (DataType::LargeUtf8 | DataType::Utf8View, _) => utf8_array(Arc::clone(array))?,
        _ => {
            let cv = Conv { func: "", mode: Mode::Throw, config };
            convert(array, field, &ChType::String, &cv)?
        }
    };
    Ok(text.as_string::<i32>().clone())
}

/// `leftPad(s, length[, pad_string])` and friends: pads with `pad_string` (a space when
/// empty or absent) repeated, or cuts, to `length` bytes (code points for UTF8).
fn pad(name: &'static str, left: bool, code_points: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        |ctx| {
            require_text(ctx, 0)?;
            if !is_integer(ctx.dt(1)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            if ctx.arg_count() == 3 {
                require_const_string(ctx, 2)?;
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let pad = match ctx.args.len() {
                3 => ctx.const_str(2, "pad_string")?,
                _ => " ",
            };
            let pad = if pad.is_empty() { " " } else { pad };
            // The pad's units (bytes, or code points as byte ranges), cycled through.
            let units: Vec<&[u8]> = if code_points {
                pad.char_indices().map(|(i, c)| &pad.as_bytes()[i..i + c.len_utf8()]).collect()
            } else {
                pad.as_bytes().chunks(1).collect()
            };
            let s = utf8_array(ctx.array(0)?)?;
            let s = s.as_string::<i32>();
            // A UInt64 length above Int64's range wraps, as ClickHouse reads it signed.
            let lengths = match ctx.dt(1) {
                DataType::UInt64 => {
                    let raw = ctx.array(1)?;
                    let unsigned = raw.as_primitive::<datafusion::arrow::datatypes::UInt64Type>();
                    Arc::new(datafusion::arrow::array::Int64Array::from_iter_values(unsigned.values().iter().map(|v| *v as i64))) as ArrayRef
                }
                _ => cast(&ctx.array(1)?, &DataType::Int64)?,
            };
            let lengths = lengths.as_primitive::<Int64Type>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                let wanted = lengths.value(row);
                if wanted < 0 {
                    return Err(ch_error(
                        ErrorCode::INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE,
                        format!("New padded length ({wanted}) is negative"),
                    ));
                }
                if wanted > MAX_PADDED_LENGTH {
                    return Err(ch_error(
                        ErrorCode::TOO_LARGE_STRING_SIZE,
                        format!("New padded length ({wanted}) is too big, maximum is: {MAX_PADDED_LENGTH}"),
                    ));
                }
                let wanted = wanted as usize;
                let v = s.value(row);
                let bytes = v.as_bytes();
                let have = if code_points { v.chars().count() } else { bytes.len() };
                if have >= wanted {
                    let cut = if code_points { v.char_indices().nth(wanted).map_or(bytes.len(), |(i, _)| i) } else { wanted };
                    out.push_value(&bytes[..cut])?;
                    continue;
                }
                let missing = wanted - have;
                if !left {
                    out.extend(bytes);
                }
                for unit in units.iter().cycle().take(missing) {
                    out.extend(unit);
                }
                if left {
                    out.extend(bytes);
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// One piece of a `format` pattern.
#[derive(Debug, PartialEq, Eq)]
enum FormatPiece {
    Literal(String),
    Argument(usize),
}

fn format_error(message: impl Into<String>) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::BAD_ARGUMENTS, message)
}

/// ClickHouse's `format` pattern: `{}` (arguments in turn) or `{N}` (argument N), never
/// both; `{{` and `}}` are braces.
fn parse_format(pattern: &str, arguments: usize) -> DfResult<Vec<FormatPiece>> {
    let bytes = pattern.as_bytes();
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut automatic: Option<bool> = None;
    let mut next_automatic = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                literal.push('{');
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                literal.push('}');
                i += 2;
            }
            b'}' => return Err(format_error(format!("Closed curly brace without open one at position {i}"))),
            b'{' => {
                let Some(close) = bytes[i + 1..].iter().position(|b| *b == b'}').map(|p| i + 1 + p) else {
                    return Err(format_error("Last open curly brace is not closed"));
                };
                let inside = &pattern[i + 1..close];
                let index = if inside.is_empty() {
                    if automatic == Some(false) {
                        return Err(format_error("Cannot switch from manual field specification to automatic field numbering"));
                    }
                    automatic = Some(true);
                    next_automatic += 1;
                    if next_automatic > arguments {
                        return Err(format_error("Not enough arguments to fill the placeholders in the format string"));
                    }
                    next_automatic - 1
                } else {
                    if !inside.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(format_error(format!("Not a number in curly braces at position {}", i + 1)));
                    }
                    if automatic == Some(true) {
                        return Err(format_error("Cannot switch from automatic field numbering to manual field specification"));
                    }
                    automatic = Some(false);
                    let n: usize = inside.parse().unwrap_or(usize::MAX);
                    if n >= arguments {
                        return Err(format_error(format!("Too big number for arguments, must be at most {}", arguments.saturating_sub(1))));
                    }
                    n
                };
                if !literal.is_empty() {
                    pieces.push(FormatPiece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(FormatPiece::Argument(index));
                i = close + 1;
            }
            _ => {
                // Copy up to the next brace in one go (the pattern is valid UTF-8).
                let next = bytes[i..].iter().position(|b| *b == b'{' || *b == b'}').map_or(bytes.len(), |p| i + p);
                literal.push_str(&pattern[i..next]);
                i = next;
            }
        }
    }
    if !literal.is_empty() {
        pieces.push(FormatPiece::Literal(literal));
    }
    Ok(pieces)
}

/// The text of every argument from `first` on: constants once, columns as they are.
enum TextArg {
    Constant(String),
    Column(StringArray),
}

impl TextArg {
    fn value(&self, row: usize) -> &str {
        match self {
            TextArg::Constant(text) => text,
            TextArg::Column(column) => column.value(row),
        }
    }
}

fn text_args(ctx: &crate::func::ExecCtx, first: usize) -> DfResult<Vec<TextArg>> {
    (first..ctx.args.len())
        .map(|i| {
            Ok(match &ctx.args[i] {
                ColumnarValue::Scalar(s) => {
                    let one = s.to_array_of_size(1)?;
                    let text = as_text(&one, &ctx.fields[i], ctx.config)?;
                    TextArg::Constant(if text.is_valid(0) { text.value(0).to_string() } else { String::new() })
                }
                ColumnarValue::Array(a) => TextArg::Column(as_text(a, &ctx.fields[i], ctx.config)?),
            })
        })
        .collect()
}

/// `format(pattern, arg, ...)`.
fn format_fn() -> ScalarUDF {
    ScalarDef::new(
        "format",
        Arity::at_least(2),
        |ctx| {
            if !is_plain_string(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::BAD_GET, format!("Bad get: has {}, requested String", ctx.ch(0))));
            }
            if let Some(pattern) = ctx.scalar(0).and_then(scalar_str) {
                parse_format(pattern, ctx.arg_count() - 1)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let pattern = ctx.const_str(0, "pattern")?;
            let pieces = parse_format(pattern, ctx.args.len() - 1)?;
            let args = text_args(ctx, 1)?;
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                for piece in &pieces {
                    match piece {
                        FormatPiece::Literal(text) => out.extend(text.as_bytes()),
                        FormatPiece::Argument(n) => out.extend(args[*n].value(row).as_bytes()),
                    }
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `concatWithSeparator(separator, arg, ...)` (`concat_ws`): NULL when any argument is.
fn concat_with_separator() -> ScalarUDF {
    ScalarDef::new(
        "concatWithSeparator",
        Arity::at_least(1),
        |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::String | ChType::FixedString(_)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let separator = match &ctx.args[0] {
                ColumnarValue::Scalar(s) => {
                    let one = s.to_array_of_size(1)?;
                    let text = utf8_array(one)?;
                    text.as_string::<i32>().value(0).to_string()
                }
                ColumnarValue::Array(_) => {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_COLUMN,
                        format!("Illegal column {} of first argument of function {}. Must be a constant String", ctx.ch(0), ctx.name),
                    ))
                }
            };
            let args = text_args(ctx, 1)?;
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        out.extend(separator.as_bytes());
                    }
                    out.extend(arg.value(row).as_bytes());
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `arrayStringConcat(arr[, separator])`: the elements' text joined; NULL elements are
/// left out (with their separator).
fn array_string_concat() -> ScalarUDF {
    ScalarDef::new(
        "arrayStringConcat",
        Arity::range(1, 2),
        |ctx| {
            if !matches!(ctx.ch(0), ChType::Array(_)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            if ctx.arg_count() == 2 {
                require_const_string(ctx, 1)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let separator = if ctx.args.len() == 2 { ctx.const_str(1, "separator")?.to_string() } else { String::new() };
            let lists = ctx.array(0)?;
            let lists = lists.as_list::<i32>();
            let DataType::List(item) = lists.data_type() else {
                return Err(illegal_type(ctx.name, 0, &ctx.fields[0]));
            };
            let values = as_text(lists.values(), item, ctx.config)?;
            let offsets = lists.value_offsets();
            let mut out = ByteStrings::with_capacity(ctx.len, values.value_data().len());
            for row in 0..ctx.len {
                let mut first = true;
                for i in offsets[row] as usize..offsets[row + 1] as usize {
                    if values.is_null(i) {
                        continue;
                    }
                    if !first {
                        out.extend(separator.as_bytes());
                    }
                    first = false;
                    out.extend(values.value(i).as_bytes());
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        pad("leftPad", true, false),
        pad("rightPad", false, false),
        pad("leftPadUTF8", true, true),
        pad("rightPadUTF8", false, true),
        format_fn(),
        concat_with_separator(),
        array_string_concat(),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn format_patterns() {
        use FormatPiece::*;
        assert_eq!(parse_format("{1} {0}", 2).unwrap(), vec![Argument(1), Literal(" ".into()), Argument(0)]);
        assert_eq!(parse_format("{{}} {}", 1).unwrap(), vec![Literal("{} ".into()), Argument(0)]);
        assert_eq!(parse_format("a}}b{{", 1).unwrap(), vec![Literal("a}b{".into())]);
        for bad in ["{} {}", "{0} {}", "{", "}", "{5}", "{a}", "{ 0}"] {
            assert!(parse_format(bad, 1).is_err(), "{bad}");
        }
    }
}
