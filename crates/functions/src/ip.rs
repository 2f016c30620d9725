//! IP address functions in their numeric forms: `IPv4StringToNum[OrDefault|OrNull]`,
//! `IPv4NumToString`, `IPv6StringToNum[OrDefault|OrNull]`, `IPv6NumToString`,
//! `isIPv4String`, `isIPv6String` (and the `INET_ATON` family of aliases).
//!
//! These give and take the values ClickHouse's numeric forms use (`UInt32`,
//! `FixedString(16)`), which is also what `IP_TRIE` dictionaries are looked up with; the
//! `IPv4`/`IPv6` types hold the same values (`toIPv4`, `toIPv6` and CAST are conversions,
//! see `conversion`), so these functions take them as they are.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanBufferBuilder, FixedSizeBinaryBuilder, StringBuilder, UInt32Array, UInt8Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, UInt32Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ip::{format_ipv4, format_ipv6, parse_ipv4, parse_ipv6};
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = Vec::new();
    for family in [Family::V4, Family::V6] {
        for missing in [Invalid::Throw, Invalid::Default, Invalid::Null] {
            out.push(string_to_num(family, missing));
        }
        out.push(num_to_string(family));
        out.push(is_ip_string(family));
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    V4,
    V6,
}

/// What a `*StringToNum` function does with text that is not an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Invalid {
    Throw,
    /// The zero address.
    Default,
    Null,
}

impl Family {
    fn number_type(self) -> ChType {
        match self {
            Family::V4 => ChType::UInt32,
            Family::V6 => ChType::FixedString(16),
        }
    }
}

/// The argument as an iterator of optional strings (String and FixedString columns).
fn texts(array: &ArrayRef) -> DfResult<Vec<Option<String>>> {
    Ok(match array.data_type() {
        DataType::FixedSizeBinary(_) => {
            let binary = array.as_fixed_size_binary();
            binary.iter().map(|v| v.map(|bytes| String::from_utf8_lossy(bytes).trim_end_matches('\0').to_string())).collect()
        }
        _ => {
            let utf8 = cast(array, &DataType::Utf8)?;
            utf8.as_string::<i32>().iter().map(|v| v.map(str::to_string)).collect()
        }
    })
}

fn require_string(ctx: &RetCtx) -> DfResult<()> {
    match ctx.dt(0) {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(()),
        _ => Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal type {} of argument of function {}", ctx.ch(0), ctx.name),
        )),
    }
}

fn string_to_num(family: Family, invalid: Invalid) -> ScalarUDF {
    let name: &'static str = match (family, invalid) {
        (Family::V4, Invalid::Throw) => "IPv4StringToNum",
        (Family::V4, Invalid::Default) => "IPv4StringToNumOrDefault",
        (Family::V4, Invalid::Null) => "IPv4StringToNumOrNull",
        (Family::V6, Invalid::Throw) => "IPv6StringToNum",
        (Family::V6, Invalid::Default) => "IPv6StringToNumOrDefault",
        (Family::V6, Invalid::Null) => "IPv6StringToNumOrNull",
    };
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            require_string(ctx)?;
            let t = family.number_type();
            Ok(if invalid == Invalid::Null { t.into_nullable() } else { t })
        },
        move |ctx: &ExecCtx| {
            let values = texts(&ctx.array(0)?)?;
            let failed = |text: &str| match family {
                Family::V4 => ch_error(ErrorCode::CANNOT_PARSE_IPV4, format!("Invalid IPv4 value: {text}")),
                Family::V6 => ch_error(ErrorCode::CANNOT_PARSE_IPV6, format!("Invalid IPv6 value: {text}")),
            };
            // The row of an unparsable value: Some(zero) for OrDefault, None (NULL) for OrNull.
            let mut valid = BooleanBufferBuilder::new(values.len());
            let out: ArrayRef = match family {
                Family::V4 => {
                    let mut numbers = Vec::with_capacity(values.len());
                    for value in &values {
                        let parsed = match value {
                            None => None,
                            Some(text) => match (parse_ipv4(text), invalid) {
                                (Some(n), _) => Some(n),
                                (None, Invalid::Throw) => return Err(failed(text)),
                                (None, Invalid::Default) => Some(0),
                                (None, Invalid::Null) => None,
                            },
                        };
                        valid.append(parsed.is_some());
                        numbers.push(parsed.unwrap_or(0));
                    }
                    Arc::new(UInt32Array::new(numbers.into(), Some(NullBuffer::new(valid.finish()))))
                }
                Family::V6 => {
                    let mut builder = FixedSizeBinaryBuilder::with_capacity(values.len(), 16);
                    for value in &values {
                        let parsed = match value {
                            None => None,
                            Some(text) => match (parse_ipv6(text), invalid) {
                                (Some(bytes), _) => Some(bytes),
                                (None, Invalid::Throw) => return Err(failed(text)),
                                (None, Invalid::Default) => Some([0u8; 16]),
                                (None, Invalid::Null) => None,
                            },
                        };
                        match parsed {
                            Some(bytes) => builder.append_value(bytes)?,
                            None => builder.append_null(),
                        }
                    }
                    Arc::new(builder.finish())
                }
            };
            Ok(out)
        },
    )
    .build()
}

fn num_to_string(family: Family) -> ScalarUDF {
    let name = match family {
        Family::V4 => "IPv4NumToString",
        Family::V6 => "IPv6NumToString",
    };
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            let ok = match family {
                // Int64: an integer literal before its ClickHouse type is known (see
                // `crate::literals`); values are checked to fit when the function runs.
                Family::V4 => matches!(ctx.dt(0), DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::Int64),
                Family::V6 => matches!(ctx.dt(0), DataType::FixedSizeBinary(16)) && ctx.ch(0) != ChType::Uuid,
            };
            if !ok {
                let expected = match family {
                    Family::V4 => "first argument of function IPv4NumToString, expected IPv4 or UInt8 or UInt16 or UInt32",
                    Family::V6 => "argument of function IPv6NumToString, expected IPv6 or FixedString(16)",
                };
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of {expected}", ctx.ch(0))));
            }
            Ok(ChType::String)
        },
        move |ctx: &ExecCtx| {
            let array = ctx.array(0)?;
            let mut builder = StringBuilder::with_capacity(array.len(), array.len() * 16);
            match family {
                Family::V4 => {
                    let options = datafusion::arrow::compute::CastOptions { safe: false, ..Default::default() };
                    let numbers = datafusion::arrow::compute::cast_with_options(&array, &DataType::UInt32, &options).map_err(|_| {
                        ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of first argument of function IPv4NumToString, expected IPv4 or UInt8 or UInt16 or UInt32", ctx.ch(0)))
                    })?;
                    for value in numbers.as_primitive::<UInt32Type>().iter() {
                        match value {
                            Some(n) => builder.append_value(format_ipv4(n)),
                            None => builder.append_null(),
                        }
                    }
                }
                Family::V6 => {
                    for value in array.as_fixed_size_binary().iter() {
                        match value.and_then(|bytes| <[u8; 16]>::try_from(bytes).ok()) {
                            Some(bytes) => builder.append_value(format_ipv6(&bytes)),
                            None => builder.append_null(),
                        }
                    }
                }
            }
            Ok(Arc::new(builder.finish()) as ArrayRef)
        },
    )
    .build()
}

fn is_ip_string(family: Family) -> ScalarUDF {
    let name = match family {
        Family::V4 => "isIPv4String",
        Family::V6 => "isIPv6String",
    };
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_string(ctx)?;
            Ok(ChType::UInt8)
        },
        move |ctx: &ExecCtx| {
            let values = texts(&ctx.array(0)?)?;
            let is_address = |text: &str| match family {
                Family::V4 => parse_ipv4(text).is_some(),
                // An IPv4 address is not IPv6 text, though IPv6StringToNum accepts it.
                Family::V6 => text.parse::<std::net::Ipv6Addr>().is_ok(),
            };
            let flags: UInt8Array = values.iter().map(|v| v.as_deref().map(|t| u8::from(is_address(t)))).collect();
            Ok(Arc::new(flags) as ArrayRef)
        },
    )
    .build()
}
