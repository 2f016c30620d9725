//! `printf(format, args...)`: C-style formatting as ClickHouse does it.
//!
//! ClickHouse cuts the format into pieces, each a `%` conversion with the
//! literal text after it, formats every piece with its own argument through fmt's
//! `sprintf`, and concatenates. So the rules are fmt's printf rules: integers take
//! `d i` (as signed 64-bit) and `u o x X` (as unsigned 64-bit) and `c`; floats take
//! `f F e E g G a A`; strings take `s`; anything else is BAD_ARGUMENTS. The pieces of a
//! constant format are parsed once, at planning, and then written row by row without
//! further parsing; a format column's once per distinct format.

use std::collections::HashMap;
use std::fmt::Write as _;

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type, UInt64Type};
use datafusion::common::DataFusionError;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, ordinal, scalar_str, Arity, DfResult};
use crate::func::ScalarDef;
use crate::string::{text_bytes, TextBytes};
use crate::text::ByteStrings;

/// One `%` conversion.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conversion: u8,
}

/// A piece of the format: optional conversion, then literal text (`%%` already made `%`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    spec: Option<Spec>,
    literal: Vec<u8>,
}

/// What an argument is formatted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgKind {
    Signed,
    Unsigned,
    Float,
    Text,
}

fn bad_format(piece: &str, argument: &str) -> DataFusionError {
    ch_error(
        ErrorCode::BAD_ARGUMENTS,
        format!("Bad format {piece} in function printf with {argument} as input argument, reason: invalid format specifier"),
    )
}

fn argument_count_error(passed: usize, format: &str) -> DataFusionError {
    ch_error(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!("Number of arguments for function printf doesn't match: passed {passed}, but format is {format}"),
    )
}

/// Literal text with `%%` read as `%`; a lone `%` is a format error.
fn unescape_literal(text: &[u8], source: &str) -> DfResult<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            if text.get(i + 1) != Some(&b'%') {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Bad format {source} in function printf without input argument, reason: invalid format string"),
                ));
            }
            i += 1;
        }
        out.push(text[i]);
        i += 1;
    }
    Ok(out)
}

/// Parses the conversion at the start of `text` (just after `%`); returns it and its length.
fn parse_spec(text: &[u8], source: &str, argument: &str) -> DfResult<(Spec, usize)> {
    let mut spec = Spec::default();
    let mut i = 0;
    while let Some(flag) = text.get(i) {
        match flag {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alternate = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        i += 1;
    }
    let number = |i: &mut usize| {
        let mut value = 0usize;
        while let Some(d) = text.get(*i).filter(|d| d.is_ascii_digit()) {
            value = value.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        value
    };
    spec.width = number(&mut i);
    if text.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(number(&mut i));
    }
    while matches!(text.get(i), Some(b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't')) {
        i += 1;
    }
    match text.get(i) {
        Some(c) if b"diuoxXcfFeEgGaAs".contains(c) => spec.conversion = *c,
        _ => return Err(bad_format(source, argument)),
    }
    Ok((spec, i + 1))
}

/// Splits the format as ClickHouse does: each `%` that is not `%%` starts a piece that
/// takes one argument; text before the first such `%` is a piece of its own.
fn split_pieces(format: &str, kinds: &[(ArgKind, String)]) -> DfResult<Vec<Piece>> {
    // ClickHouse finds no piece at all in an empty format, which matches no argument
    // count (also the default '' a NULL format row is formatted with).
    if format.is_empty() {
        return Err(argument_count_error(kinds.len() + 1, format));
    }
    let bytes = format.as_bytes();
    let mut starts = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if bytes.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            starts.push(i);
        }
        i += 1;
    }
    if starts.len() != kinds.len() {
        return Err(argument_count_error(kinds.len() + 1, format));
    }
    let mut pieces = Vec::with_capacity(starts.len() + 1);
    let head_end = starts.first().copied().unwrap_or(bytes.len());
    if head_end > 0 {
        let source = &format[..head_end];
        pieces.push(Piece { spec: None, literal: unescape_literal(&bytes[..head_end], source)? });
    }
    for (k, start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(bytes.len());
        let source = &format[*start..end];
        let (argument_kind, argument) = &kinds[k];
        if end - start == 1 {
            // A lone `%` at the end: fmt finds no conversion in it.
            return Err(bad_format(source, argument));
        }
        let (spec, len) = parse_spec(&bytes[start + 1..end], source, argument)?;
        let fits = match spec.conversion {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'c' => matches!(argument_kind, ArgKind::Signed | ArgKind::Unsigned),
            b's' => *argument_kind == ArgKind::Text,
            _ => *argument_kind == ArgKind::Float,
        };
        if !fits {
            return Err(bad_format(source, argument));
        }
        let literal = unescape_literal(&bytes[start + 1 + len..end], source)?;
        pieces.push(Piece { spec: Some(spec), literal });
    }
    Ok(pieces)
}

fn arg_kind(t: &ChType) -> Option<ArgKind> {
    Some(match t {
        ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => ArgKind::Signed,
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 => ArgKind::Unsigned,
        ChType::Float32 | ChType::Float64 => ArgKind::Float,
        ChType::String | ChType::FixedString(_) => ArgKind::Text,
        _ => return None,
    })
}

/// Writes `body` (sign and prefix already split off) padded to the spec's width.
fn pad(spec: &Spec, sign: &str, body: &[u8], zero_pad: bool, out: &mut ByteStrings) {
    let len = sign.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend(sign.as_bytes());
        out.extend(body);
        (0..fill).for_each(|_| out.push_byte(b' '));
    } else if zero_pad {
        out.extend(sign.as_bytes());
        (0..fill).for_each(|_| out.push_byte(b'0'));
        out.extend(body);
    } else {
        (0..fill).for_each(|_| out.push_byte(b' '));
        out.extend(sign.as_bytes());
        out.extend(body);
    }
}

fn sign_of(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// An integer conversion; `value` is the argument's bits as a 64-bit integer.
fn write_integer(spec: &Spec, value: u64, scratch: &mut String, out: &mut ByteStrings) {
    scratch.clear();
    let (negative, prefix) = match spec.conversion {
        b'd' | b'i' => {
            let signed = value as i64;
            let _ = write!(scratch, "{}", signed.unsigned_abs());
            (signed < 0, "")
        }
        b'u' => {
            let _ = write!(scratch, "{value}");
            (false, "")
        }
        b'o' => {
            let _ = write!(scratch, "{value:o}");
            (false, if spec.alternate && value != 0 { "0" } else { "" })
        }
        b'x' => {
            let _ = write!(scratch, "{value:x}");
            (false, if spec.alternate && value != 0 { "0x" } else { "" })
        }
        b'X' => {
            let _ = write!(scratch, "{value:X}");
            (false, if spec.alternate && value != 0 { "0X" } else { "" })
        }
        _ => {
            // `c`: the low byte as a character.
            pad(spec, "", &[value as u8], false, out);
            return;
        }
    };
    let mut digits = scratch.as_bytes().to_vec();
    if let Some(precision) = spec.precision {
        if digits.len() < precision {
            let mut padded = vec![b'0'; precision - digits.len()];
            padded.extend_from_slice(&digits);
            digits = padded;
        }
    }
    // `%#o` only makes sure the number starts with 0.
    let prefix = if prefix == "0" && digits.first() == Some(&b'0') { "" } else { prefix };
    if !prefix.is_empty() {
        let mut with_prefix = prefix.as_bytes().to_vec();
        with_prefix.extend_from_slice(&digits);
        digits = with_prefix;
    }
    let zero_pad = spec.zero && !spec.left && spec.precision.is_none();
    if zero_pad && prefix.len() == 2 {
        // `%#08x`: zeros go between `0x` and the digits.
        let fill = spec.width.saturating_sub(digits.len() + usize::from(negative));
        let mut body = prefix.as_bytes().to_vec();
        body.extend(std::iter::repeat_n(b'0', fill));
        body.extend_from_slice(&digits[2..]);
        pad(spec, sign_of(negative, spec), &body, false, out);
        return;
    }
    pad(spec, sign_of(negative, spec), &digits, zero_pad, out);
}

/// `d.ddde±XX` with `precision` digits after the point.
fn exponent_form(value: f64, precision: usize, alternate: bool) -> String {
    let text = format!("{value:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut out = mantissa.to_string();
    if alternate && precision == 0 {
        out.push('.');
    }
    let _ = write!(out, "e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
    out
}

fn trim_fraction_zeros(text: &str) -> String {
    if !text.contains('.') {
        return text.to_string();
    }
    let (number, exponent) = match text.find('e') {
        Some(p) => (&text[..p], &text[p..]),
        None => (text, ""),
    };
    let trimmed = number.trim_end_matches('0').trim_end_matches('.');
    format!("{trimmed}{exponent}")
}

/// C's `%g`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general_form(value: f64, precision: usize, alternate: bool) -> String {
    let precision = precision.max(1);
    if value == 0.0 {
        let text = format!("{:.*}", precision - 1, value);
        return if alternate { text } else { trim_fraction_zeros(&text) };
    }
    let probe = format!("{:.*e}", precision - 1, value);
    let exponent: i64 = probe.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let text = if exponent < -4 || exponent >= precision as i64 {
        exponent_form(value, precision - 1, alternate)
    } else {
        format!("{:.*}", (precision as i64 - 1 - exponent) as usize, value)
    };
    if alternate {
        text
    } else {
        trim_fraction_zeros(&text)
    }
}

/// C's `%a`: `0x1.hhhp±d`, the fraction rounded half up to `precision` hex digits.
fn hex_form(value: f64, precision: Option<usize>) -> String {
    let bits = value.to_bits();
    let exponent_bits = ((bits >> 52) & 0x7FF) as i64;
    let mut mantissa = bits & ((1u64 << 52) - 1);
    if exponent_bits == 0 && mantissa == 0 {
        // fmt writes zero with the exponent of the subnormals.
        let digits = precision.filter(|p| *p > 0).map(|p| format!(".{}", "0".repeat(p))).unwrap_or_default();
        return format!("0x0{digits}p-1022");
    }
    let (mut lead, exponent) = if exponent_bits == 0 { (0u64, -1022) } else { (1u64, exponent_bits - 1023) };
    let mut nibbles = 13usize;
    if let Some(p) = precision.filter(|p| *p < 13) {
        let shift = 4 * (13 - p);
        let dropped_top = (mantissa >> (shift - 4)) & 0xF;
        mantissa >>= shift;
        if dropped_top >= 8 {
            mantissa += 1;
            if mantissa >> (4 * p) != 0 {
                mantissa &= (1u64 << (4 * p)) - 1;
                lead += 1;
            }
        }
        nibbles = p;
    }
    let mut digits = if nibbles == 0 { String::new() } else { format!("{mantissa:0nibbles$x}") };
    if precision.is_none() {
        digits = digits.trim_end_matches('0').to_string();
    } else if let Some(p) = precision.filter(|p| *p > 13) {
        digits.extend(std::iter::repeat_n('0', p - 13));
    }
    let point = if digits.is_empty() { "" } else { "." };
    format!("0x{lead:x}{point}{digits}p{}{}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs())
}

fn write_float(spec: &Spec, value: f64, out: &mut ByteStrings) {
    let upper = spec.conversion.is_ascii_uppercase();
    let negative = value.is_sign_negative() && !value.is_nan();
    let magnitude = value.abs();
    let sign = sign_of(negative, spec);
    if !value.is_finite() {
        let text = if value.is_nan() { "nan" } else { "inf" };
        let text = if upper { text.to_ascii_uppercase() } else { text.to_string() };
        pad(spec, sign, text.as_bytes(), false, out);
        return;
    }
    let precision = spec.precision.unwrap_or(6);
    let text = match spec.conversion.to_ascii_lowercase() {
        b'f' => {
            let mut text = format!("{magnitude:.precision$}");
            if spec.alternate && precision == 0 {
                text.push('.');
            }
            text
        }
        b'e' => exponent_form(magnitude, precision, spec.alternate),
        b'g' => general_form(magnitude, precision, spec.alternate),
        _ => hex_form(magnitude, spec.precision),
    };
    let text = if upper { text.to_ascii_uppercase() } else { text };
    let zero_pad = spec.zero && !spec.left;
    if zero_pad && text.starts_with("0x") {
        let fill = spec.width.saturating_sub(text.len() + sign.len());
        let mut body = b"0x".to_vec();
        if upper {
            body = b"0X".to_vec();
        }
        body.extend(std::iter::repeat_n(b'0', fill));
        body.extend_from_slice(&text.as_bytes()[2..]);
        pad(spec, sign, &body, false, out);
        return;
    }
    pad(spec, sign, text.as_bytes(), zero_pad, out);
}

fn write_text(spec: &Spec, bytes: &[u8], out: &mut ByteStrings) {
    let shown = spec.precision.map_or(bytes, |p| &bytes[..p.min(bytes.len())]);
    pad(spec, "", shown, false, out);
}

/// The values of one argument column, read once.
enum Values {
    Integers(Vec<u64>),
    Floats(Vec<f64>),
    Texts(TextBytes),
}

fn argument_kinds(fields: &[ChType]) -> DfResult<Vec<(ArgKind, String)>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let kind = arg_kind(t).ok_or_else(|| {
                ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as {} argument 'sub' to function 'printf'. Expected: Native number or String, got: {t}", ordinal(i + 2)),
                )
            })?;
            Ok((kind, t.to_string()))
        })
        .collect()
}

/// The pieces of each row's format: parsed once when the format is a constant, else
/// once per distinct format of the column.
struct RowFormats {
    parsed: Vec<Vec<Piece>>,
    of_row: Vec<usize>,
}

impl RowFormats {
    fn new(ctx: &crate::func::ExecCtx, kinds: &[(ArgKind, String)]) -> DfResult<Self> {
        if let Some(format) = ctx.scalar(0).and_then(scalar_str) {
            return Ok(RowFormats { parsed: vec![split_pieces(format, kinds)?], of_row: vec![0; ctx.len] });
        }
        let array = ctx.array(0)?;
        let formats = text_bytes(&array);
        let mut parsed = Vec::new();
        let mut seen: HashMap<&[u8], usize> = HashMap::new();
        let mut of_row = Vec::with_capacity(ctx.len);
        for row in 0..ctx.len {
            // A NULL row is formatted with the type's default, as ClickHouse does.
            let format = if array.is_null(row) { &[][..] } else { formats.value(row) };
            let index = match seen.get(format) {
                Some(&index) => index,
                None => {
                    parsed.push(split_pieces(&String::from_utf8_lossy(format), kinds)?);
                    seen.insert(format, parsed.len() - 1);
                    parsed.len() - 1
                }
            };
            of_row.push(index);
        }
        Ok(RowFormats { parsed, of_row })
    }

    fn pieces(&self, row: usize) -> &[Piece] {
        &self.parsed[self.of_row[row]]
    }
}

fn printf() -> ScalarUDF {
    ScalarDef::new(
        "printf",
        Arity::at_least(1),
        |ctx| {
            if ctx.ch(0) != ChType::String {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'format' to function 'printf'. Expected: String, got: {}", ctx.ch(0)),
                ));
            }
            let types: Vec<ChType> = (1..ctx.arg_count()).map(|i| ctx.ch(i)).collect();
            let kinds = argument_kinds(&types)?;
            // A format column's formats are checked row by row when they are read.
            if let Some(format) = ctx.scalar(0).and_then(scalar_str) {
                split_pieces(format, &kinds)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let types: Vec<ChType> = (1..ctx.args.len()).map(|i| ctx.ch(i).strip_nullable().clone()).collect();
            let kinds = argument_kinds(&types)?;
            let formats = RowFormats::new(ctx, &kinds)?;
            let mut values = Vec::with_capacity(kinds.len());
            for (i, (kind, _)) in kinds.iter().enumerate() {
                let array = ctx.array(i + 1)?;
                values.push(match kind {
                    ArgKind::Signed => Values::Integers(
                        cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|v| *v as u64).collect(),
                    ),
                    ArgKind::Unsigned => Values::Integers(cast(&array, &DataType::UInt64)?.as_primitive::<UInt64Type>().values().to_vec()),
                    ArgKind::Float => Values::Floats(cast(&array, &DataType::Float64)?.as_primitive::<Float64Type>().values().to_vec()),
                    ArgKind::Text => Values::Texts(text_bytes(&array)),
                });
            }
            let literal_bytes: usize = formats.parsed.first().map_or(0, |pieces| pieces.iter().map(|p| p.literal.len() + 8).sum());
            let mut out = ByteStrings::with_capacity(ctx.len, ctx.len * literal_bytes);
            let mut scratch = String::new();
            for row in 0..ctx.len {
                let mut argument = 0;
                for piece in formats.pieces(row) {
                    if let Some(spec) = &piece.spec {
                        match &values[argument] {
                            Values::Integers(v) => write_integer(spec, v[row], &mut scratch, &mut out),
                            Values::Floats(v) => write_float(spec, v[row], &mut out),
                            Values::Texts(v) => write_text(spec, v.value(row), &mut out),
                        }
                        argument += 1;
                    }
                    out.extend(&piece.literal);
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![printf()]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Spec {
        parse_spec(text.as_bytes(), text, "x").unwrap().0
    }

    fn formatted(text: &str, write: impl FnOnce(&Spec, &mut ByteStrings)) -> String {
        let mut out = ByteStrings::with_capacity(1, 0);
        write(&spec(text), &mut out);
        out.finish_value().unwrap();
        out.finish(None).unwrap().as_string::<i32>().value(0).to_string()
    }

    #[test]
    fn specs_are_parsed() {
        let s = spec("-+ #012.5lld");
        assert!(s.left && s.plus && s.space && s.alternate && s.zero);
        assert_eq!((s.width, s.precision, s.conversion), (12, Some(5), b'd'));
        assert!(parse_spec(b"*d", "%*d", "x").is_err());
        assert!(parse_spec(b"p", "%p", "x").is_err());
        assert!(parse_spec(b"5", "%5", "x").is_err());
    }

    #[test]
    fn pieces_follow_clickhouse_splitting() {
        let kinds = vec![(ArgKind::Signed, "UInt8".to_string()), (ArgKind::Text, "String".to_string())];
        let pieces = split_pieces("a%%b%5d|%s%%", &kinds).unwrap();
        assert_eq!(pieces.len(), 3);
        assert_eq!(pieces[0].literal, b"a%b");
        assert_eq!(pieces[1].literal, b"|");
        assert_eq!(pieces[2].literal, b"%");
        assert!(split_pieces("%d", &kinds).is_err());
        assert!(split_pieces("%s %s", &kinds).is_err());
        assert!(split_pieces("%f %s", &kinds).is_err());
    }

    #[test]
    fn numbers_format_like_fmt_printf() {
        assert_eq!(formatted("5d", |s, o| write_integer(s, 42, &mut String::new(), o)), "   42");
        assert_eq!(formatted("-5d", |s, o| write_integer(s, 42, &mut String::new(), o)), "42   ");
        assert_eq!(formatted("+05d", |s, o| write_integer(s, 5, &mut String::new(), o)), "+0005");
        assert_eq!(formatted("d", |s, o| write_integer(s, u64::MAX, &mut String::new(), o)), "-1");
        assert_eq!(formatted("u", |s, o| write_integer(s, (-5i64) as u64, &mut String::new(), o)), "18446744073709551611");
        assert_eq!(formatted("#x", |s, o| write_integer(s, 255, &mut String::new(), o)), "0xff");
        assert_eq!(formatted("#o", |s, o| write_integer(s, 8, &mut String::new(), o)), "010");
        assert_eq!(formatted(".5d", |s, o| write_integer(s, 5, &mut String::new(), o)), "00005");
        assert_eq!(formatted("10.3f", |s, o| write_float(s, 3.14159, o)), "     3.142");
        assert_eq!(formatted("-10.3e", |s, o| write_float(s, 3.14159, o)), "3.142e+00 ");
        assert_eq!(formatted("e", |s, o| write_float(s, 12345.678, o)), "1.234568e+04");
        assert_eq!(formatted("g", |s, o| write_float(s, 0.0001, o)), "0.0001");
        assert_eq!(formatted("g", |s, o| write_float(s, 1e-5, o)), "1e-05");
        assert_eq!(formatted(".3g", |s, o| write_float(s, 1234567.0, o)), "1.23e+06");
        assert_eq!(formatted("g", |s, o| write_float(s, 100000.0, o)), "100000");
        assert_eq!(formatted("G", |s, o| write_float(s, 1e-10, o)), "1E-10");
        assert_eq!(formatted("a", |s, o| write_float(s, 1.0, o)), "0x1p+0");
        assert_eq!(formatted("a", |s, o| write_float(s, 0.1, o)), "0x1.999999999999ap-4");
        assert_eq!(formatted(".0f", |s, o| write_float(s, 2.5, o)), "2");
        assert_eq!(formatted("f", |s, o| write_float(s, f64::NEG_INFINITY, o)), "-inf");
        assert_eq!(formatted(".2s", |s, o| write_text(s, b"abcdef", o)), "ab");
        assert_eq!(formatted("05s", |s, o| write_text(s, b"ab", o)), "   ab");
    }
}
