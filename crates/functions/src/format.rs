//! ClickHouse's text form of values, as `toString` produces it.
//!
//! This is the one place where Granary functions turn values into text. When
//! `granary_types::text` (the shared value-text rules, `array_to_strings`) lands, the
//! body of [`format_array`] switches to it; callers do not change.
//!
//! Rules (checked against chdb): floats print the shortest round-trip digits, in
//! exponent form outside `1e-7 < |x| < 1e21` (`1e21`, `1e-7`), `nan`, `inf`, `-inf`;
//! `Bool` prints `true`/`false`; `Date` `YYYY-MM-DD`; `DateTime` `YYYY-MM-DD hh:mm:ss`
//! in the value's (or the server's) zone; `DateTime64(p)` adds `p` fraction digits;
//! decimals drop trailing zeros; inside arrays, tuples and maps strings and dates are
//! single-quoted with `\` escapes, and NULL is `NULL`.

use std::fmt::Write;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, GenericListArray, StringArray, StringBuilder,
};
use datafusion::arrow::buffer::{Buffer, OffsetBuffer};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, Decimal256Type, Field, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::common::config::ConfigOptions;
use granary_types::ChType;

use crate::args::DfResult;
use crate::tz::{civil_from_days, SessionTz};

/// Formats a float the way ClickHouse does.
pub(crate) fn fmt_f64(v: f64, out: &mut String) {
    if v.is_nan() {
        out.push_str("nan");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
    } else {
        let exp = format!("{v:e}");
        let e: i32 = exp.rsplit('e').next().and_then(|x| x.parse().ok()).unwrap_or(0);
        if v != 0.0 && !(-7 < e && e < 21) {
            out.push_str(&exp);
        } else {
            let _ = write!(out, "{v}");
        }
    }
}

pub(crate) fn fmt_f32(v: f32, out: &mut String) {
    if v.is_nan() || v.is_infinite() {
        fmt_f64(v as f64, out);
    } else {
        let exp = format!("{v:e}");
        let e: i32 = exp.rsplit('e').next().and_then(|x| x.parse().ok()).unwrap_or(0);
        if v != 0.0 && !(-7 < e && e < 21) {
            out.push_str(&exp);
        } else {
            let _ = write!(out, "{v}");
        }
    }
}

/// `YYYY-MM-DD` of a day number.
pub(crate) fn fmt_date(days: i64, out: &mut String) {
    let (y, m, d) = civil_from_days(days);
    let _ = write!(out, "{y:04}-{m:02}-{d:02}");
}

/// `YYYY-MM-DD hh:mm:ss[.fff]` of local wall-clock seconds plus a fraction.
pub(crate) fn fmt_datetime(local_secs: i64, frac: u64, precision: u8, out: &mut String) {
    let days = local_secs.div_euclid(86_400);
    let sod = local_secs.rem_euclid(86_400);
    fmt_date(days, out);
    let _ = write!(out, " {:02}:{:02}:{:02}", sod / 3600, sod / 60 % 60, sod % 60);
    if precision > 0 {
        let _ = write!(out, ".{:0width$}", frac, width = precision as usize);
    }
}

/// Decimal text without trailing fraction zeros (ClickHouse's default output).
pub(crate) fn fmt_decimal(value: i128, scale: i8, out: &mut String) {
    if scale <= 0 {
        let _ = write!(out, "{value}");
        return;
    }
    let scale = scale as u32;
    let pow = 10i128.pow(scale.min(38));
    let neg = value < 0;
    let abs = value.unsigned_abs();
    let int = abs / pow as u128;
    let mut frac = abs % pow as u128;
    if neg {
        out.push('-');
    }
    let _ = write!(out, "{int}");
    if frac != 0 {
        let mut width = scale as usize;
        while frac.is_multiple_of(10) {
            frac /= 10;
            width -= 1;
        }
        let _ = write!(out, ".{frac:0width$}");
    }
}

fn escape_quoted(s: &str, out: &mut String) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// Context for formatting: the zone of `DateTime` values without their own zone.
pub struct FormatCtx {
    pub(crate) server_tz: SessionTz,
}

impl FormatCtx {
    pub fn from_config(config: &ConfigOptions) -> DfResult<FormatCtx> {
        Ok(FormatCtx { server_tz: SessionTz::from_config(config)? })
    }
}

/// Appends the text of `array[row]` (which must not be NULL at top level).
/// `quoted`: inside a composite value, where strings and dates are quoted.
pub(crate) fn write_value(
    array: &dyn Array,
    ch: &ChType,
    row: usize,
    quoted: bool,
    ctx: &FormatCtx,
    out: &mut String,
) -> DfResult<()> {
    if array.is_null(row) {
        out.push_str("NULL");
        return Ok(());
    }
    let base = ch.base();
    if let Some(elements) = base.enum_elements() {
        let value = match array.data_type() {
            DataType::Int8 => Some(array.as_primitive::<Int8Type>().value(row) as i16),
            DataType::Int16 => Some(array.as_primitive::<Int16Type>().value(row)),
            _ => None,
        };
        if let Some((name, _)) = value.and_then(|v| elements.iter().find(|(_, e)| *e == v)) {
            push_str(out, name, quoted);
            return Ok(());
        }
    }
    if let Some(kind) = granary_types::wide::WideInt::of(base).filter(|w| w.arrow_type() == *array.data_type()) {
        if let Some(v) = kind.value(array, row) {
            out.push_str(&kind.to_text(v));
            return Ok(());
        }
    }
    match (base, array.data_type()) {
        (ChType::IPv4, DataType::UInt32) => {
            push_str(out, &granary_types::ip::format_ipv4(array.as_primitive::<UInt32Type>().value(row)), quoted);
            return Ok(());
        }
        (ChType::IPv6, DataType::FixedSizeBinary(16)) => {
            let bytes: [u8; 16] = array.as_fixed_size_binary().value(row).try_into().unwrap_or([0; 16]);
            push_str(out, &granary_types::ip::format_ipv6(&bytes), quoted);
            return Ok(());
        }
        _ => {}
    }
    match array.data_type() {
        DataType::Boolean => out.push_str(if array.as_boolean().value(row) { "true" } else { "false" }),
        DataType::Int8 => push_int(out, array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => push_int(out, array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => push_int(out, array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => push_int(out, array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => push_int(out, array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => push_int(out, array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => push_int(out, array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => push_int(out, array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => fmt_f32(array.as_primitive::<Float32Type>().value(row), out),
        DataType::Float64 => fmt_f64(array.as_primitive::<Float64Type>().value(row), out),
        DataType::Utf8 => push_str(out, array.as_string::<i32>().value(row), quoted),
        DataType::LargeUtf8 => push_str(out, array.as_string::<i64>().value(row), quoted),
        DataType::Utf8View => push_str(out, array.as_string_view().value(row), quoted),
        DataType::Binary => push_str(out, &String::from_utf8_lossy(array.as_binary::<i32>().value(row)), quoted),
        DataType::LargeBinary => push_str(out, &String::from_utf8_lossy(array.as_binary::<i64>().value(row)), quoted),
        DataType::FixedSizeBinary(_) => {
            let bytes = array.as_fixed_size_binary().value(row);
            if matches!(base, ChType::Uuid) {
                let text = uuid::Uuid::from_slice(bytes).map(|u| u.to_string()).unwrap_or_default();
                push_str(out, &text, quoted);
            } else {
                push_str(out, &String::from_utf8_lossy(bytes), quoted);
            }
        }
        DataType::Date32 => {
            let mut s = String::with_capacity(10);
            fmt_date(array.as_primitive::<Date32Type>().value(row) as i64, &mut s);
            push_str(out, &s, quoted);
        }
        DataType::Timestamp(unit, tz) => {
            let zone = match tz {
                Some(name) => crate::tz::parse_tz(name)?,
                None => ctx.server_tz,
            };
            let (raw, per_sec) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().value(row), 1i64),
                TimeUnit::Millisecond => (array.as_primitive::<TimestampMillisecondType>().value(row), 1_000),
                TimeUnit::Microsecond => (array.as_primitive::<TimestampMicrosecondType>().value(row), 1_000_000),
                TimeUnit::Nanosecond => (array.as_primitive::<TimestampNanosecondType>().value(row), 1_000_000_000),
            };
            let precision = match base {
                ChType::DateTime64(p, _) => *p,
                _ => match unit {
                    TimeUnit::Second => 0,
                    TimeUnit::Millisecond => 3,
                    TimeUnit::Microsecond => 6,
                    TimeUnit::Nanosecond => 9,
                },
            };
            let secs = raw.div_euclid(per_sec);
            let sub = raw.rem_euclid(per_sec) as u64;
            // Sub-second ticks scaled to `precision` digits.
            let digits_of_unit = (per_sec as f64).log10().round() as u32;
            let frac = if precision as u32 >= digits_of_unit {
                sub * 10u64.pow(precision as u32 - digits_of_unit)
            } else {
                sub / 10u64.pow(digits_of_unit - precision as u32)
            };
            let mut s = String::with_capacity(29);
            fmt_datetime(zone.to_local(secs), frac, precision, &mut s);
            push_str(out, &s, quoted);
        }
        DataType::Decimal128(_, s) => fmt_decimal(array.as_primitive::<Decimal128Type>().value(row), *s, out),
        DataType::Decimal256(_, s) => {
            let v = array.as_primitive::<Decimal256Type>().value(row);
            match v.to_i128() {
                Some(v) => fmt_decimal(v, *s, out),
                None => {
                    let _ = write!(out, "{v}");
                }
            }
        }
        DataType::List(_) => write_list(array.as_list::<i32>(), ch, row, ctx, out)?,
        DataType::LargeList(_) => write_list(array.as_list::<i64>(), ch, row, ctx, out)?,
        DataType::Struct(_) => {
            let st = array.as_struct();
            let elems: Vec<ChType> = match base {
                ChType::Tuple(items) => items.iter().map(|(_, t)| t.clone()).collect(),
                _ => st.fields().iter().map(|f| ChType::from_field(f)).collect(),
            };
            out.push('(');
            for (i, col) in st.columns().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let t = elems.get(i).cloned().unwrap_or(ChType::String);
                write_value(col.as_ref(), &t, row, true, ctx, out)?;
            }
            out.push(')');
        }
        DataType::Map(_, _) => {
            let map = array.as_map();
            let (kt, vt) = match base {
                ChType::Map(k, v) => ((**k).clone(), (**v).clone()),
                _ => (ChType::String, ChType::String),
            };
            let offsets = map.value_offsets();
            let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
            out.push('{');
            for i in start..end {
                if i > start {
                    out.push(',');
                }
                write_value(map.keys().as_ref(), &kt, i, true, ctx, out)?;
                out.push(':');
                write_value(map.values().as_ref(), &vt, i, true, ctx, out)?;
            }
            out.push('}');
        }
        DataType::Null => out.push_str("NULL"),
        other => {
            // Types ClickHouse has no text for: use Arrow's display.
            let formatter = datafusion::arrow::util::display::ArrayFormatter::try_new(array, &Default::default())?;
            let _ = write!(out, "{}", formatter.value(row));
            let _ = other;
        }
    }
    Ok(())
}

fn write_list<O: datafusion::arrow::array::OffsetSizeTrait>(
    list: &GenericListArray<O>,
    ch: &ChType,
    row: usize,
    ctx: &FormatCtx,
    out: &mut String,
) -> DfResult<()> {
    let elem = match ch.base() {
        ChType::Array(inner) => (**inner).clone(),
        _ => ChType::String,
    };
    let offsets = list.value_offsets();
    let (start, end) = (offsets[row].as_usize(), offsets[row + 1].as_usize());
    let values = list.values();
    out.push('[');
    for i in start..end {
        if i > start {
            out.push(',');
        }
        write_value(values.as_ref(), &elem, i, true, ctx, out)?;
    }
    out.push(']');
    Ok(())
}

fn push_int<T: std::fmt::Display>(out: &mut String, v: T) {
    let _ = write!(out, "{v}");
}

fn push_str(out: &mut String, s: &str, quoted: bool) {
    if quoted {
        escape_quoted(s, out);
    } else {
        out.push_str(s);
    }
}

/// `toString` of a whole column: one string per row, NULL stays NULL.
pub(crate) fn format_array(field: &Field, array: &ArrayRef, ctx: &FormatCtx) -> DfResult<ArrayRef> {
    // Integers are most of what is turned into text (`toString(id)`): written straight
    // into one buffer, without a formatter per value (enums and IPv4 are integers
    // shown otherwise).
    let plain_integer = !field.metadata().contains_key(granary_types::CH_TYPE_METADATA_KEY)
        || matches!(ChType::from_field(field).base(), ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64);
    match array.data_type() {
        _ if !plain_integer => {}
        DataType::Int8 => return format_integers::<Int8Type>(array),
        DataType::Int16 => return format_integers::<Int16Type>(array),
        DataType::Int32 => return format_integers::<Int32Type>(array),
        DataType::Int64 => return format_integers::<Int64Type>(array),
        DataType::UInt8 => return format_integers::<UInt8Type>(array),
        DataType::UInt16 => return format_integers::<UInt16Type>(array),
        DataType::UInt32 => return format_integers::<UInt32Type>(array),
        DataType::UInt64 => return format_integers::<UInt64Type>(array),
        _ => {}
    }
    let ch = ChType::from_field(field);
    if let (DataType::FixedSizeBinary(_), ChType::FixedString(_)) = (array.data_type(), ch.base()) {
        // ClickHouse's `toString` of a FixedString drops its trailing zero bytes (the
        // padding); inside arrays and tuples, and in `format` or `concat`, they stay.
        let fixed = array.as_fixed_size_binary();
        let mut builder = StringBuilder::with_capacity(array.len(), fixed.value_data().len());
        for v in fixed.iter() {
            match v {
                None => builder.append_null(),
                Some(bytes) => {
                    let used = bytes.iter().rposition(|b| *b != 0).map_or(0, |p| p + 1);
                    builder.append_value(String::from_utf8_lossy(&bytes[..used]));
                }
            }
        }
        return Ok(std::sync::Arc::new(builder.finish()));
    }
    let mut builder = StringBuilder::with_capacity(array.len(), array.len() * 8);
    let mut buf = String::new();
    for row in 0..array.len() {
        if array.is_null(row) {
            builder.append_null();
            continue;
        }
        buf.clear();
        write_value(array.as_ref(), &ch, row, false, ctx, &mut buf)?;
        builder.append_value(&buf);
    }
    Ok(std::sync::Arc::new(builder.finish()))
}

fn format_integers<T: ArrowPrimitiveType>(array: &ArrayRef) -> DfResult<ArrayRef>
where
    T::Native: DecimalText,
{
    let values = array.as_primitive::<T>();
    let raw = values.values();
    // Two passes: the exact length of every text first, so the digits are then written
    // in place (no per-value copy out of a formatting buffer, which cost more than the
    // digits themselves). NULL rows get empty texts.
    if raw.len().saturating_mul(TEXT_WINDOW) > i32::MAX as usize {
        return Err(datafusion::common::DataFusionError::Execution("toString: block too large".into()));
    }
    // (`from_lengths` cannot overflow now; it also skips the monotonicity check that
    // `OffsetBuffer::new` makes.)
    let offsets: OffsetBuffer<i32> = if values.null_count() == 0 {
        OffsetBuffer::from_lengths(raw.iter().map(|value| value.text_len()))
    } else {
        OffsetBuffer::from_lengths(raw.iter().enumerate().map(|(row, value)| if values.is_valid(row) { value.text_len() } else { 0 }))
    };
    let end = offsets.last().map_or(0, |last| *last as usize);
    // Each text is written into a fixed window of TEXT_WINDOW bytes starting at its
    // offset (the slack at the end keeps the last window inside the buffer): a
    // fixed-size window needs no bounds check per digit and no copy per value.
    let mut data = vec![0u8; end + TEXT_WINDOW];
    for (row, value) in raw.iter().enumerate() {
        let (start, stop) = (offsets[row] as usize, offsets[row + 1] as usize);
        if stop == start {
            continue;
        }
        if let Some(window) = data.get_mut(start..start + TEXT_WINDOW).and_then(|w| <&mut [u8; TEXT_WINDOW]>::try_from(w).ok()) {
            value.write_text(window, stop - start);
        }
    }
    data.truncate(end);
    Ok(std::sync::Arc::new(StringArray::try_new(offsets, Buffer::from_vec(data), values.nulls().cloned())?))
}

/// Bytes a formatted integer may take: 20 digits of u64::MAX, or a sign and 19 digits.
const TEXT_WINDOW: usize = 24;

/// Decimal text of an integer.
trait DecimalText: Copy {
    fn text_len(self) -> usize;
    /// Writes the text into the first `len` (its `text_len`) bytes of `out`.
    fn write_text(self, out: &mut [u8; TEXT_WINDOW], len: usize);
}

const DIGIT_PAIRS: &[u8; 200] = b"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

fn unsigned_text_len(value: u64) -> usize {
    value.checked_ilog10().map_or(1, |digits| digits as usize + 1)
}

/// Writes `value`'s digits so that they end at `out[end]` (exclusive); the digit count
/// must fit between `start` and `end`.
#[inline(always)]
fn write_digits(mut value: u64, out: &mut [u8; TEXT_WINDOW], start: usize, end: usize) {
    let mut pos = end.min(TEXT_WINDOW);
    // Four digits per division: half the dependent divisions of two at a time.
    while value >= 10000 && pos >= start + 4 {
        let four = (value % 10000) as usize;
        value /= 10000;
        let (high, low) = (four / 100 * 2, four % 100 * 2);
        out[pos - 4] = DIGIT_PAIRS[high];
        out[pos - 3] = DIGIT_PAIRS[high + 1];
        out[pos - 2] = DIGIT_PAIRS[low];
        out[pos - 1] = DIGIT_PAIRS[low + 1];
        pos -= 4;
    }
    if value >= 100 && pos >= start + 2 {
        let pair = (value % 100) as usize * 2;
        value /= 100;
        out[pos - 1] = DIGIT_PAIRS[pair + 1];
        out[pos - 2] = DIGIT_PAIRS[pair];
        pos -= 2;
    }
    if value >= 10 && pos >= start + 2 {
        let pair = value as usize * 2;
        out[pos - 1] = DIGIT_PAIRS[pair + 1];
        out[pos - 2] = DIGIT_PAIRS[pair];
    } else if pos > start {
        out[pos - 1] = b'0' + value as u8;
    }
}

macro_rules! decimal_text_unsigned {
    ($($t:ty),*) => {$(
        impl DecimalText for $t {
            #[inline(always)]
            fn text_len(self) -> usize {
                unsigned_text_len(self as u64)
            }
            #[inline(always)]
            fn write_text(self, out: &mut [u8; TEXT_WINDOW], len: usize) {
                write_digits(self as u64, out, 0, len)
            }
        }
    )*};
}

macro_rules! decimal_text_signed {
    ($($t:ty),*) => {$(
        impl DecimalText for $t {
            #[inline(always)]
            fn text_len(self) -> usize {
                unsigned_text_len(self.unsigned_abs() as u64) + usize::from(self < 0)
            }
            #[inline(always)]
            fn write_text(self, out: &mut [u8; TEXT_WINDOW], len: usize) {
                let negative = self < 0;
                out[0] = b'-';
                write_digits(self.unsigned_abs() as u64, out, usize::from(negative), len)
            }
        }
    )*};
}

decimal_text_unsigned!(u8, u16, u32, u64);
decimal_text_signed!(i8, i16, i32, i64);

/// The text of one value, for tests and error messages.
pub fn value_to_string(field: &Field, array: &dyn Array, row: usize, ctx: &FormatCtx) -> DfResult<String> {
    let mut s = String::new();
    write_value(array, &ChType::from_field(field), row, false, ctx, &mut s)?;
    Ok(s)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn f(v: f64) -> String {
        let mut s = String::new();
        fmt_f64(v, &mut s);
        s
    }

    #[test]
    fn integers_to_text() {
        use datafusion::arrow::array::Int64Array;
        let array: ArrayRef = std::sync::Arc::new(Int64Array::from(vec![Some(-12), None, Some(i64::MAX), Some(0)]));
        let field = Field::new("x", DataType::Int64, true);
        let ctx = FormatCtx::from_config(&ConfigOptions::default()).unwrap();
        let out = format_array(&field, &array, &ctx).unwrap();
        let out = out.as_string::<i32>();
        assert_eq!(out.iter().collect::<Vec<_>>(), vec![Some("-12"), None, Some("9223372036854775807"), Some("0")]);
    }

    #[test]
    fn integer_text_matches_std_at_every_digit_count() {
        use datafusion::arrow::array::{Int64Array, Int8Array, UInt64Array};
        let ctx = FormatCtx::from_config(&ConfigOptions::default()).unwrap();
        let mut unsigned = vec![0u64, u64::MAX];
        let mut signed = vec![0i64, i64::MIN, i64::MAX];
        let mut power = 1u64;
        while let Some(next) = power.checked_mul(10) {
            unsigned.extend([power - 1, power, power + 1, next - 1]);
            signed.extend([power as i64 - 1, -(power as i64), -(power as i64) + 1, power as i64]);
            power = next;
        }
        let check = |array: ArrayRef, expected: Vec<String>| {
            let field = Field::new("x", array.data_type().clone(), true);
            let out = format_array(&field, &array, &ctx).unwrap();
            let got: Vec<String> = out.as_string::<i32>().iter().map(|v| v.unwrap().to_string()).collect();
            assert_eq!(got, expected);
        };
        check(std::sync::Arc::new(UInt64Array::from(unsigned.clone())), unsigned.iter().map(u64::to_string).collect());
        check(std::sync::Arc::new(Int64Array::from(signed.clone())), signed.iter().map(i64::to_string).collect());
        let small: Vec<i8> = (i8::MIN..=i8::MAX).collect();
        check(std::sync::Arc::new(Int8Array::from(small.clone())), small.iter().map(i8::to_string).collect());
    }

    #[test]
    fn floats_like_clickhouse() {
        assert_eq!(f(1.1), "1.1");
        assert_eq!(f(1e20), "100000000000000000000");
        assert_eq!(f(1e21), "1e21");
        assert_eq!(f(1e-7), "1e-7");
        assert_eq!(f(0.000001), "0.000001");
        assert_eq!(f(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(f(f64::NAN), "nan");
        assert_eq!(f(f64::NEG_INFINITY), "-inf");
        assert_eq!(f(f64::INFINITY), "inf");
        assert_eq!(f(-0.0), "-0");
        assert_eq!(f(5e-324), "5e-324");
        assert_eq!(f(-1.5e22), "-1.5e22");
        let mut s = String::new();
        fmt_f32(1.0f32 / 3.0, &mut s);
        assert_eq!(s, "0.33333334");
    }

    #[test]
    fn decimals_drop_trailing_zeros() {
        let mut s = String::new();
        fmt_decimal(1500, 3, &mut s);
        assert_eq!(s, "1.5");
        s.clear();
        fmt_decimal(-100, 4, &mut s);
        assert_eq!(s, "-0.01");
        s.clear();
        fmt_decimal(200, 2, &mut s);
        assert_eq!(s, "2");
    }

    #[test]
    fn integers_are_written_with_every_digit_count() {
        let mut values: Vec<u64> = vec![0, u64::MAX];
        let mut p = 1u64;
        while let Some(next) = p.checked_mul(10) {
            values.extend([p - 1, p, p + 1, next / 10 * 3 + 7]);
            p = next;
        }
        values.extend([p - 1, p, p + 1]);
        for v in values {
            let mut out = [b'x'; TEXT_WINDOW];
            let len = v.text_len();
            v.write_text(&mut out, len);
            assert_eq!(std::str::from_utf8(&out[..len]).unwrap(), v.to_string());
            for signed in [v as i64, (v as i64).wrapping_neg(), i64::MIN, i64::MAX] {
                let len = signed.text_len();
                signed.write_text(&mut out, len);
                assert_eq!(std::str::from_utf8(&out[..len]).unwrap(), signed.to_string());
            }
        }
    }
}
