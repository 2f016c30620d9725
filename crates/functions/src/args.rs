//! Shared helpers for checking arguments and raising ClickHouse errors.
//!
//! Every function reports wrong argument counts as `NUMBER_OF_ARGUMENTS_DOESNT_MATCH`
//! (42) and unsupported argument types as `ILLEGAL_TYPE_OF_ARGUMENT` (43), worded the
//! way ClickHouse words them, so clients that match on codes see the same thing.
//! Errors travel through DataFusion as `DataFusionError::External(granary_common::Error)`
//! (see [`granary_common::Error::into_datafusion`]); the lead's error mapping digs the
//! code back out.

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{DataFusionError, ScalarValue};
use granary_common::{Error, ErrorCode};
use granary_types::ChType;

/// DataFusion's result type, used by everything that crosses the UDF boundary.
pub(crate) type DfResult<T> = std::result::Result<T, DataFusionError>;

/// A ClickHouse error, wrapped for DataFusion.
pub(crate) fn ch_error(code: ErrorCode, message: impl Into<String>) -> DataFusionError {
    Error::new(code, message).into_datafusion()
}

/// How many arguments a function takes: `min..=max` (`max = None`: variadic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Arity {
    pub min: usize,
    pub max: Option<usize>,
}

impl Arity {
    pub const fn exact(n: usize) -> Self {
        Arity { min: n, max: Some(n) }
    }
    pub const fn range(min: usize, max: usize) -> Self {
        Arity { min, max: Some(max) }
    }
    pub const fn at_least(min: usize) -> Self {
        Arity { min, max: None }
    }

    /// Checks `n` against the arity with ClickHouse's wording.
    pub fn check(&self, name: &str, n: usize) -> DfResult<()> {
        let ok = n >= self.min && self.max.is_none_or(|max| n <= max);
        if ok {
            return Ok(());
        }
        let expected = match self.max {
            Some(max) if max == self.min => format!("{max}"),
            Some(max) => format!("{} to {max}", self.min),
            None => format!("at least {}", self.min),
        };
        Err(ch_error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Number of arguments for function {name} doesn't match: passed {n}, should be {expected}"),
        ))
    }
}

/// `ILLEGAL_TYPE_OF_ARGUMENT` for argument `index` (0-based) of `name`.
pub(crate) fn illegal_type(name: &str, index: usize, field: &Field) -> DataFusionError {
    ch_error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument #{} of function {name}",
            ChType::from_field(field),
            index + 1
        ),
    )
}

/// `n` as ClickHouse's messages name argument positions: "1st", "2nd", "11th", ...
/// ClickHouse's message for an argument that fails a function's declared signature
/// (`FunctionArgumentDescriptor`): code 43 for a wrong type, 44 for a column where a
/// constant is required.
pub(crate) fn illegal_argument(code: ErrorCode, name: &str, index: usize, what: &str, expected: &str, got: &ChType) -> DataFusionError {
    ch_error(
        code,
        format!("A value of illegal type was provided as {} argument '{what}' to function '{name}'. Expected: {expected}, got: {got}", ordinal(index + 1)),
    )
}

pub(crate) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The error ClickHouse raises when an argument that must be a constant is not.
pub(crate) fn must_be_constant(name: &str, index: usize, what: &str) -> DataFusionError {
    ch_error(
        ErrorCode::ILLEGAL_COLUMN,
        format!("Argument #{} ({what}) of function {name} must be a constant", index + 1),
    )
}

/// Numeric type classes used by the type rules of ClickHouse functions.
pub(crate) fn is_integer(t: &DataType) -> bool {
    t.is_integer()
}

pub(crate) fn is_signed_int(t: &DataType) -> bool {
    matches!(t, DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64)
}

pub(crate) fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
}

pub(crate) fn is_numeric(t: &DataType) -> bool {
    is_integer(t) || is_float(t) || is_decimal(t) || matches!(t, DataType::Boolean)
}

pub(crate) fn is_decimal(t: &DataType) -> bool {
    matches!(t, DataType::Decimal32(..) | DataType::Decimal64(..) | DataType::Decimal128(..) | DataType::Decimal256(..))
}

pub(crate) fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// Byte width of an integer or float type (ClickHouse's `sizeof`).
pub(crate) fn byte_width(t: &DataType) -> usize {
    match t {
        DataType::Int8 | DataType::UInt8 | DataType::Boolean => 1,
        DataType::Int16 | DataType::UInt16 | DataType::Float16 => 2,
        DataType::Int32 | DataType::UInt32 | DataType::Float32 | DataType::Date32 => 4,
        _ => 8,
    }
}

/// The integer type with the given signedness and byte width.
pub(crate) fn int_type(signed: bool, width: usize) -> DataType {
    match (signed, width) {
        (false, 1) => DataType::UInt8,
        (false, 2) => DataType::UInt16,
        (false, 4) => DataType::UInt32,
        (false, _) => DataType::UInt64,
        (true, 1) => DataType::Int8,
        (true, 2) => DataType::Int16,
        (true, 4) => DataType::Int32,
        (true, _) => DataType::Int64,
    }
}

/// A constant string argument, if the value is one.
pub(crate) fn scalar_str(value: &ScalarValue) -> Option<&str> {
    match value {
        ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)) => Some(s),
        _ => None,
    }
}

/// A constant integer argument (any integer type), if the value is one.
pub(crate) fn scalar_i128(value: &ScalarValue) -> Option<i128> {
    Some(match value {
        ScalarValue::Int8(Some(v)) => *v as i128,
        ScalarValue::Int16(Some(v)) => *v as i128,
        ScalarValue::Int32(Some(v)) => *v as i128,
        ScalarValue::Int64(Some(v)) => *v as i128,
        ScalarValue::UInt8(Some(v)) => *v as i128,
        ScalarValue::UInt16(Some(v)) => *v as i128,
        ScalarValue::UInt32(Some(v)) => *v as i128,
        ScalarValue::UInt64(Some(v)) => *v as i128,
        _ => return None,
    })
}
