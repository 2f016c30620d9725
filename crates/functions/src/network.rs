//! MAC addresses, UUID bytes and address ranges: `MACNumToString`, `MACStringToNum`,
//! `MACStringToOUI`, `UUIDNumToString`, `UUIDStringToNum`, `UUIDToNum`,
//! `IPv4CIDRToRange`, `IPv6CIDRToRange`, `IPv4ToIPv6`, `cutIPv6`, `isIPAddressInRange`,
//! `IPv4NumToStringClassC`.
//!
//! Text is parsed as ClickHouse's fixed-layout parsers do: a MAC address or UUID of
//! the wrong length gives zeros, and a bad hex digit counts as 0xFF, bits and all.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, FixedSizeBinaryBuilder, StringArray, StructArray, UInt32Array, UInt64Array, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Fields, UInt32Type, UInt64Type, UInt8Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ip::{format_ipv4, format_ipv6, ipv4_mapped, ipv4_of_mapped};
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::string::text_bytes;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        mac_num_to_string(),
        mac_string_to("MACStringToNum", 12),
        mac_string_to("MACStringToOUI", 6),
        uuid_num_to_string(),
        uuid_to_bytes("UUIDStringToNum"),
        uuid_to_bytes("UUIDToNum"),
        cidr_to_range("IPv4CIDRToRange", false),
        cidr_to_range("IPv6CIDRToRange", true),
        ipv4_to_ipv6(),
        cut_ipv6(),
        is_ip_address_in_range(),
        ipv4_num_to_string_class_c(),
    ]
}

fn illegal(message: String) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message)
}

/// A UInt8 argument; while a query is planned its integer literals are still Int64 (see
/// `crate::literals`), so a literal that fits counts too.
fn is_uint8(ctx: &RetCtx, i: usize) -> bool {
    ctx.dt(i) == &DataType::UInt8 || ctx.scalar(i).and_then(crate::args::scalar_i128).is_some_and(|v| (0..=255).contains(&v)) && ctx.dt(i) == &DataType::Int64
}

fn require_text_argument(ctx: &RetCtx, i: usize) -> DfResult<()> {
    match ctx.ch(i).base() {
        ChType::String | ChType::FixedString(_) => Ok(()),
        other => Err(illegal(format!("Illegal type {other} of argument of function {}", ctx.name))),
    }
}

/// ClickHouse's `unhex` of one character: 0xFF for a non-hex character.
fn unhex(c: u8) -> u64 {
    match c {
        b'0'..=b'9' => u64::from(c - b'0'),
        b'a'..=b'f' => u64::from(c - b'a' + 10),
        b'A'..=b'F' => u64::from(c - b'A' + 10),
        _ => 0xFF,
    }
}

fn mac_num_to_string() -> ScalarUDF {
    ScalarDef::new(
        "MACNumToString",
        Arity::exact(1),
        |ctx| {
            if ctx.dt(0) != &DataType::UInt64 {
                return Err(illegal(format!("Illegal type {} of argument of function MACNumToString, expected UInt64", ctx.ch(0))));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let input = ctx.array(0)?;
            let values = input.as_primitive::<UInt64Type>();
            let out: StringArray = values
                .iter()
                .map(|v| {
                    v.map(|v| {
                        let bytes = v.to_be_bytes();
                        bytes[2..].iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(":")
                    })
                })
                .collect();
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

/// `MACStringToNum` (all 12 hex digits) and `MACStringToOUI` (the first 6): the text
/// must be 17 characters, `XX:XX:XX:XX:XX:XX` (separators are not looked at).
fn mac_string_to(name: &'static str, digits: usize) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_text_argument(ctx, 0)?;
            Ok(ChType::UInt64)
        },
        move |ctx| {
            let text = text_bytes(&ctx.array(0)?);
            let values = (0..ctx.len).map(|row| {
                let bytes = text.value(row);
                if bytes.len() != 17 {
                    return 0;
                }
                (0..digits).fold(0u64, |acc, k| {
                    let position = k / 2 * 3 + k % 2;
                    acc | (unhex(bytes[position]) << (4 * (digits - 1 - k)))
                })
            });
            Ok(Arc::new(UInt64Array::from_iter_values(values)) as ArrayRef)
        },
    )
    .build()
}

/// The optional UUID variant argument: 1 (big-endian, the default) or 2 (Microsoft's
/// order, the first three groups little-endian).
fn uuid_variant(ctx: &ExecCtx, i: usize) -> DfResult<bool> {
    if ctx.args.len() <= i {
        return Ok(false);
    }
    match ctx.const_int(i, "variant")? {
        1 => Ok(false),
        2 => Ok(true),
        other => Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Expected UUID variant, got {other}"))),
    }
}

/// The text of each value of a FixedString(16) (UUID, IPv6) column.
fn sixteen_bytes_to_text(input: &ArrayRef, text: impl Fn([u8; 16]) -> String) -> DfResult<ArrayRef> {
    let out: StringArray = input.as_fixed_size_binary().iter().map(|v| v.map(|v| text(v.try_into().unwrap_or([0; 16])))).collect();
    Ok(Arc::new(out) as ArrayRef)
}

fn swap_microsoft(bytes: &mut [u8; 16]) {
    bytes[0..4].reverse();
    bytes[4..6].reverse();
    bytes[6..8].reverse();
}

fn uuid_num_to_string() -> ScalarUDF {
    ScalarDef::new(
        "UUIDNumToString",
        Arity::range(1, 2),
        |ctx| {
            if ctx.dt(0) != &DataType::FixedSizeBinary(16) {
                return Err(illegal(format!("Illegal type {} of argument of function UUIDNumToString, expected FixedString(16)", ctx.ch(0))));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let microsoft = uuid_variant(ctx, 1)?;
            sixteen_bytes_to_text(&ctx.array(0)?, |mut bytes| {
                if microsoft {
                    swap_microsoft(&mut bytes);
                }
                uuid::Uuid::from_bytes(bytes).to_string()
            })
        },
    )
    .build()
}

/// The 16 bytes of `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`; zeros for text of another length.
fn parse_uuid_text(text: &[u8]) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if text.len() != 36 {
        return bytes;
    }
    let digits: Vec<u8> = text.iter().enumerate().filter(|(i, _)| !matches!(i, 8 | 13 | 18 | 23)).map(|(_, c)| *c).collect();
    for (k, byte) in bytes.iter_mut().enumerate() {
        *byte = ((unhex(digits[2 * k]) << 4) | unhex(digits[2 * k + 1])) as u8;
    }
    bytes
}

/// `UUIDStringToNum(text[, variant])` and `UUIDToNum(uuid[, variant])`: the UUID's
/// bytes as `FixedString(16)`.
fn uuid_to_bytes(name: &'static str) -> ScalarUDF {
    let from_text = name == "UUIDStringToNum";
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            let ok = if from_text { matches!(ctx.ch(0).base(), ChType::String | ChType::FixedString(_)) } else { matches!(ctx.ch(0).base(), ChType::Uuid) };
            if !ok {
                return Err(illegal(format!("Illegal type {} of argument of function {}", ctx.ch(0), ctx.name)));
            }
            Ok(ChType::FixedString(16))
        },
        move |ctx| {
            let microsoft = uuid_variant(ctx, 1)?;
            let input = ctx.array(0)?;
            let mut out = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
            let text = from_text.then(|| text_bytes(&input));
            for row in 0..ctx.len {
                if input.is_null(row) {
                    out.append_null();
                    continue;
                }
                let mut bytes = match &text {
                    Some(text) => parse_uuid_text(text.value(row)),
                    None => input.as_fixed_size_binary().value(row).try_into().unwrap_or([0; 16]),
                };
                if microsoft {
                    swap_microsoft(&mut bytes);
                }
                out.append_value(bytes)?;
            }
            Ok(Arc::new(out.finish()) as ArrayRef)
        },
    )
    .build()
}

/// A `Tuple(T, T)` of two address columns.
fn address_pair(t: &ChType, first: ArrayRef, last: ArrayRef) -> DfResult<ArrayRef> {
    let fields: Fields = vec![Arc::new(t.to_arrow_field("1")), Arc::new(t.to_arrow_field("2"))].into();
    Ok(Arc::new(StructArray::try_new(fields, vec![first, last], None)?))
}

fn cidr_to_range(name: &'static str, v6: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let ok = if v6 { ctx.dt(0) == &DataType::FixedSizeBinary(16) && !matches!(ctx.ch(0).base(), ChType::Uuid) } else { ctx.dt(0) == &DataType::UInt32 };
            if !ok {
                let expected = if v6 { "IPv6 or FixedString(16)" } else { "IPv4 or UInt32" };
                return Err(illegal(format!("Illegal type {} of first argument of function {}, expected {expected}", ctx.ch(0), ctx.name)));
            }
            if !is_uint8(ctx, 1) {
                return Err(illegal(format!("Illegal type {} of second argument of function {}, expected UInt8", ctx.ch(1), ctx.name)));
            }
            let t = if v6 { ChType::IPv6 } else { ChType::IPv4 };
            Ok(ChType::Tuple(vec![("1".into(), t.clone()), ("2".into(), t)]))
        },
        move |ctx| {
            let input = ctx.array(0)?;
            let bits = cast(&ctx.array(1)?, &DataType::UInt8)?;
            let bits = bits.as_primitive::<UInt8Type>();
            if v6 {
                let addresses = input.as_fixed_size_binary();
                let mut first = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
                let mut last = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
                for row in 0..ctx.len {
                    let address = u128::from_be_bytes(addresses.value(row).try_into().unwrap_or([0; 16]));
                    let prefix = u32::from(bits.value(row)).min(128);
                    let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
                    first.append_value((address & mask).to_be_bytes())?;
                    last.append_value((address | !mask).to_be_bytes())?;
                }
                return address_pair(&ChType::IPv6, Arc::new(first.finish()), Arc::new(last.finish()));
            }
            let addresses = input.as_primitive::<UInt32Type>();
            let (mut first, mut last) = (Vec::with_capacity(ctx.len), Vec::with_capacity(ctx.len));
            for row in 0..ctx.len {
                let prefix = u32::from(bits.value(row)).min(32);
                let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
                first.push(addresses.value(row) & mask);
                last.push(addresses.value(row) | !mask);
            }
            address_pair(&ChType::IPv4, Arc::new(UInt32Array::from(first)), Arc::new(UInt32Array::from(last)))
        },
    )
    .build()
}

/// `IPv4ToIPv6(x)`: `::ffff:a.b.c.d`, of type IPv6 for an IPv4 argument and
/// FixedString(16) for a UInt32.
fn ipv4_to_ipv6() -> ScalarUDF {
    ScalarDef::new(
        "IPv4ToIPv6",
        Arity::exact(1),
        |ctx| match ctx.ch(0).base() {
            ChType::IPv4 => Ok(ChType::IPv6),
            ChType::UInt32 => Ok(ChType::FixedString(16)),
            other => Err(illegal(format!("Illegal type {other} of argument of function IPv4ToIPv6"))),
        },
        |ctx| {
            let input = ctx.array(0)?;
            let mut out = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
            for v in input.as_primitive::<UInt32Type>().iter() {
                match v {
                    Some(v) => out.append_value(ipv4_mapped(v))?,
                    None => out.append_null(),
                }
            }
            Ok(Arc::new(out.finish()) as ArrayRef)
        },
    )
    .build()
}

/// `cutIPv6(address, bytes_v6, bytes_v4)`: the text of the address with its last bytes
/// zeroed, `bytes_v4` of them for an IPv4-mapped address, else `bytes_v6`.
fn cut_ipv6() -> ScalarUDF {
    ScalarDef::new(
        "cutIPv6",
        Arity::exact(3),
        |ctx| {
            if ctx.dt(0) != &DataType::FixedSizeBinary(16) || matches!(ctx.ch(0).base(), ChType::Uuid) {
                return Err(illegal(format!("Illegal type {} of argument 1 of function cutIPv6, expected FixedString(16)", ctx.ch(0))));
            }
            for (i, limit) in [(1, 16), (2, 4)] {
                if !is_uint8(ctx, i) {
                    return Err(illegal(format!("Illegal type {} of argument {} of function cutIPv6", ctx.ch(i), i + 1)));
                }
                let n = ctx.const_int(i, "bytes to cut")?;
                if n > limit {
                    return Err(illegal(format!("Illegal value for argument {} UInt8 of function cutIPv6", i + 1)));
                }
            }
            Ok(ChType::String)
        },
        |ctx| {
            let (v6_bytes, v4_bytes) = (ctx.const_int(1, "bytes to cut")? as usize, ctx.const_int(2, "bytes to cut")? as usize);
            sixteen_bytes_to_text(&ctx.array(0)?, |mut bytes| {
                let cut = if ipv4_of_mapped(&bytes).is_some() { v4_bytes } else { v6_bytes };
                bytes[16 - cut..].fill(0);
                format_ipv6(&bytes)
            })
        },
    )
    .build()
}

enum Address {
    V4(u32),
    V6(u128),
}

fn parse_address(text: &str) -> Option<Address> {
    if let Ok(v4) = text.parse::<Ipv4Addr>() {
        return Some(Address::V4(u32::from(v4)));
    }
    text.parse::<Ipv6Addr>().ok().map(|v6| Address::V6(u128::from(v6)))
}

fn in_range(address: &str, cidr: &str) -> DfResult<bool> {
    let parsed = parse_address(address).ok_or_else(|| ch_error(ErrorCode::CANNOT_PARSE_TEXT, format!("Neither IPv4 nor IPv6 address: '{address}'")))?;
    let (network, prefix) = cidr.split_once('/').ok_or_else(|| ch_error(ErrorCode::CANNOT_PARSE_TEXT, format!("The text does not contain '/': {cidr}")))?;
    let network = parse_address(network).ok_or_else(|| ch_error(ErrorCode::CANNOT_PARSE_TEXT, format!("Neither IPv4 nor IPv6 address: '{network}'")))?;
    let prefix: u32 = prefix.parse().map_err(|_| ch_error(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse the prefix of {cidr}")))?;
    Ok(match (parsed, network) {
        (Address::V4(a), Address::V4(n)) => {
            let prefix = prefix.min(32);
            let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
            a & mask == n & mask
        }
        (Address::V6(a), Address::V6(n)) => {
            let prefix = prefix.min(128);
            let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
            a & mask == n & mask
        }
        _ => false,
    })
}

fn is_ip_address_in_range() -> ScalarUDF {
    ScalarDef::new(
        "isIPAddressInRange",
        Arity::exact(2),
        |ctx| {
            for i in 0..2 {
                if !matches!(ctx.ch(i).base(), ChType::String) {
                    return Err(illegal(format!("Illegal type {} of argument {} of function isIPAddressInRange", ctx.ch(i), i + 1)));
                }
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let (addresses, ranges) = (ctx.array(0)?, ctx.array(1)?);
            let (addresses, ranges) = (addresses.as_string::<i32>(), ranges.as_string::<i32>());
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let inside = !addresses.is_null(row) && !ranges.is_null(row) && in_range(addresses.value(row), ranges.value(row))?;
                out.push(u8::from(inside));
            }
            Ok(Arc::new(UInt8Array::from(out)) as ArrayRef)
        },
    )
    .build()
}

fn ipv4_num_to_string_class_c() -> ScalarUDF {
    ScalarDef::new(
        "IPv4NumToStringClassC",
        Arity::exact(1),
        |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::UInt32 | ChType::IPv4) {
                return Err(illegal(format!("Illegal type {} of argument of function IPv4NumToStringClassC, expected UInt32", ctx.ch(0))));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let input = cast(&ctx.array(0)?, &DataType::UInt32)?;
            let out: StringArray = input
                .as_primitive::<UInt32Type>()
                .iter()
                .map(|v| v.map(|v| format!("{}.xxx", format_ipv4(v).rsplit_once('.').map_or("", |(head, _)| head))))
                .collect();
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compare_networks_of_one_family() {
        assert!(in_range("127.0.0.1", "127.0.0.0/8").unwrap_or(false));
        assert!(!in_range("128.0.0.1", "127.0.0.0/8").unwrap_or(true));
        assert!(!in_range("127.0.0.1", "ffff::/16").unwrap_or(true));
        assert!(in_range("::ffff:192.168.0.5", "::ffff:192.168.0.4/126").unwrap_or(false));
        assert!(in_range("bad", "127.0.0.0/8").is_err());
    }

    #[test]
    fn uuid_text_needs_the_dashed_layout() {
        assert_eq!(parse_uuid_text(b"00112233-4455-6677-8899-aabbccddeeff")[15], 0xff);
        assert_eq!(parse_uuid_text(b"00112233445566778899aabbccddeeff"), [0; 16]);
    }
}
