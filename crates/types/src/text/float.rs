//! Floats as ClickHouse prints them: the shortest digits that read back to the same
//! value (of the value's own width: `toFloat32(0.1)` is `0.1`), positional when the
//! decimal exponent is in `-6..=20`, else `d.ddde±x` (`1e21`, `1.5e-7`); `nan`, `inf`,
//! `-inf`, `-0`.
//!
//! Rust's `{:e}` formatting already yields the shortest round-trip digits (and exactly
//! ClickHouse's exponent spelling), so it is used to get digits and exponent into a stack
//! buffer; the positional layout is done here, without allocating.

use std::fmt::Write as _;

/// A small fixed buffer that `write!` can target without a heap allocation.
struct StackBuf {
    bytes: [u8; 40],
    len: usize,
}

impl StackBuf {
    fn new() -> Self {
        StackBuf { bytes: [0; 40], len: 0 }
    }
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Appends the text of a `Float64`.
pub fn write_f64(value: f64, out: &mut Vec<u8>) {
    if !write_special(value, out) {
        let mut buf = StackBuf::new();
        // `{:e}` of a finite f64 is at most 24 bytes; the buffer cannot overflow.
        let _ = write!(buf, "{value:e}");
        layout(buf.as_bytes(), out);
    }
}

/// Appends the text of a `Float32` (digits of Float32 precision).
pub fn write_f32(value: f32, out: &mut Vec<u8>) {
    if !write_special(value as f64, out) {
        let mut buf = StackBuf::new();
        let _ = write!(buf, "{value:e}");
        layout(buf.as_bytes(), out);
    }
}

/// The text of a `Float64` as a `String` (for messages and statistics).
pub fn f64_to_string(value: f64) -> String {
    let mut out = Vec::with_capacity(24);
    write_f64(value, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// nan, inf, -inf, 0 and -0; returns whether the value was one of them.
fn write_special(value: f64, out: &mut Vec<u8>) -> bool {
    if value.is_nan() {
        out.extend_from_slice(b"nan");
    } else if value.is_infinite() {
        out.extend_from_slice(if value > 0.0 { b"inf" } else { b"-inf" });
    } else if value == 0.0 {
        out.extend_from_slice(if value.is_sign_negative() { b"-0" } else { b"0" });
    } else {
        return false;
    }
    true
}

/// Lays out `[-]d[.ddd]e[-]x` (Rust's `{:e}`) the ClickHouse way.
fn layout(sci: &[u8], out: &mut Vec<u8>) {
    let (negative, body) = match sci.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, sci),
    };
    let Some(e_pos) = body.iter().position(|b| *b == b'e') else {
        out.extend_from_slice(sci);
        return;
    };
    let (mantissa, exp_text) = (&body[..e_pos], &body[e_pos + 1..]);
    let exponent = parse_exponent(exp_text);
    if !(-6..=20).contains(&exponent) {
        // Rust spells the exponent form exactly as ClickHouse does: `1e21`, `1.5e-7`.
        out.extend_from_slice(sci);
        return;
    }
    if negative {
        out.push(b'-');
    }
    // The significant digits without the point.
    let mut digits = [0u8; 24];
    let mut n = 0;
    for &b in mantissa {
        if b != b'.' && n < digits.len() {
            digits[n] = b;
            n += 1;
        }
    }
    let digits = &digits[..n];
    if exponent >= 0 {
        let int_len = exponent as usize + 1;
        if digits.len() <= int_len {
            out.extend_from_slice(digits);
            out.resize(out.len() + int_len - digits.len(), b'0');
        } else {
            out.extend_from_slice(&digits[..int_len]);
            out.push(b'.');
            out.extend_from_slice(&digits[int_len..]);
        }
    } else {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-exponent - 1) as usize, b'0');
        out.extend_from_slice(digits);
    }
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let value = digits.iter().fold(0i32, |acc, d| acc * 10 + (d - b'0') as i32);
    if negative {
        -value
    } else {
        value
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn f64s(v: f64) -> String {
        f64_to_string(v)
    }

    fn f32s(v: f32) -> String {
        let mut out = Vec::new();
        write_f32(v, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn float64_like_clickhouse() {
        // Expected values are chdb's output for the same literals.
        let cases: &[(f64, &str)] = &[
            (1e15, "1000000000000000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1.2345e-5, "0.000012345"),
            (0.0001, "0.0001"),
            (1.5e-6, "0.0000015"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (0.1 + 0.2, "0.30000000000000004"),
            (100.0, "100"),
            (1e6, "1000000"),
            (12345.678, "12345.678"),
            (-1e-7, "-1e-7"),
            (2.5e-7, "2.5e-7"),
            (1e-6, "0.000001"),
            (9.99e-7, "9.99e-7"),
            (9.99e20, "999000000000000000000"),
            (1.0 / 3.0, "0.3333333333333333"),
            (-0.0, "-0"),
            (0.0, "0"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (-1.5, "-1.5"),
        ];
        for (v, expected) in cases {
            assert_eq!(f64s(*v), *expected, "{v:e}");
        }
    }

    #[test]
    fn float32_like_clickhouse() {
        let cases: &[(f32, &str)] = &[
            (1e15, "1000000000000000"),
            (1.2345e-5, "0.000012345"),
            (3.4e38, "3.4e38"),
            (1e-7, "1e-7"),
            (16777216.0, "16777216"),
            (0.3, "0.3"),
            (0.1, "0.1"),
            (1e20, "100000000000000000000"),
            (1e21, "1e21"),
            (123456.79, "123456.79"),
            (1.0 / 3.0, "0.33333334"),
        ];
        for (v, expected) in cases {
            assert_eq!(f32s(*v), *expected, "{v:e}");
        }
    }
}
