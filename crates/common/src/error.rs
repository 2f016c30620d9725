//! The one error type of Granary: a ClickHouse [`ErrorCode`], a message for the user,
//! and the underlying cause kept as a source chain.
//!
//! Errors cross DataFusion as `DataFusionError::External(Box<Error>)`; converting back
//! with `Error::from(DataFusionError)` digs the original out, so a code chosen deep in
//! a table provider or a UDF survives to the HTTP edge.

use std::fmt;

use datafusion_common::DataFusionError;

use crate::ErrorCode;

pub type Result<T, E = Error> = std::result::Result<T, E>;

type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A Granary error: what went wrong (for the user), its ClickHouse code, and why.
#[derive(thiserror::Error)]
pub struct Error {
    code: ErrorCode,
    message: String,
    #[source]
    source: Option<Source>,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), source: None }
    }

    /// A panic caught at a query's boundary, as ClickHouse reports a logical error.
    pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Error::new(ErrorCode::LOGICAL_ERROR, format!("Internal error (a bug in Granary, please report it): {what}"))
    }

    pub fn with_source(code: ErrorCode, message: impl Into<String>, source: impl Into<Source>) -> Self {
        Error { code, message: message.into(), source: Some(source.into()) }
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// Prefixes the message with context, keeping the code (ClickHouse style: "while ...").
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{}: {context}", self.message);
        self
    }

    /// The text ClickHouse puts in an HTTP error body (without the trailing newline):
    /// `Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)`.
    pub fn to_clickhouse_string(&self) -> String {
        let message = self.message.trim_end_matches('.');
        format!("Code: {}. DB::Exception: {message}. ({})", self.code.number(), self.code.name())
    }

    /// Wraps this error for transport through DataFusion.
    pub fn into_datafusion(self) -> DataFusionError {
        DataFusionError::External(Box::new(self))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.name())?;
        if let Some(source) = &self.source {
            write!(f, ", caused by: {source:?}")?;
        }
        Ok(())
    }
}

/// Shorthands for building errors: `bail!`-like constructors by code.
#[macro_export]
macro_rules! err {
    ($code:ident, $($arg:tt)*) => {
        $crate::Error::new($crate::ErrorCode::$code, format!($($arg)*))
    };
}

/// Returns early with an error of the given code.
#[macro_export]
macro_rules! bail {
    ($code:ident, $($arg:tt)*) => {
        return Err($crate::err!($code, $($arg)*))
    };
}

/// Attaches a code and message to foreign errors.
pub trait ResultExt<T> {
    fn with_code(self, code: ErrorCode, message: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E> ResultExt<T> for std::result::Result<T, E>
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn with_code(self, code: ErrorCode, message: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| {
            let text = format!("{}: {e}", message());
            Error::with_source(code, text, e)
        })
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        // A reader that failed with a Granary error (a download's S3_ERROR) keeps its code.
        if e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            if let Some(Ok(ours)) = e.into_inner().map(|inner| inner.downcast::<Error>()) {
                return *ours;
            }
            return Error::new(ErrorCode::LOGICAL_ERROR, "an I/O error lost its cause");
        }
        let code = match e.kind() {
            std::io::ErrorKind::NotFound => ErrorCode::FILE_DOESNT_EXIST,
            std::io::ErrorKind::UnexpectedEof => ErrorCode::CANNOT_READ_ALL_DATA,
            _ => ErrorCode::STD_EXCEPTION,
        };
        Error::with_source(code, e.to_string(), e)
    }
}

impl From<arrow::error::ArrowError> for Error {
    fn from(e: arrow::error::ArrowError) -> Self {
        use arrow::error::ArrowError as A;
        match e {
            A::ExternalError(inner) => match inner.downcast::<Error>() {
                Ok(ours) => *ours,
                Err(other) => Error::with_source(ErrorCode::STD_EXCEPTION, other.to_string(), other),
            },
            A::CastError(m) => Error::new(ErrorCode::CANNOT_CONVERT_TYPE, m),
            A::ParseError(m) => Error::new(ErrorCode::CANNOT_PARSE_TEXT, m),
            A::DivideByZero => Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Division by zero"),
            A::MemoryError(m) => Error::new(ErrorCode::MEMORY_LIMIT_EXCEEDED, m),
            A::ComputeError(m) | A::InvalidArgumentError(m) => Error::new(ErrorCode::BAD_ARGUMENTS, m),
            other => Error::new(ErrorCode::STD_EXCEPTION, other.to_string()),
        }
    }
}

impl From<DataFusionError> for Error {
    fn from(e: DataFusionError) -> Self {
        classify_datafusion(e)
    }
}

impl From<Error> for DataFusionError {
    fn from(e: Error) -> Self {
        e.into_datafusion()
    }
}

/// Maps a DataFusion error to the ClickHouse code a user of ClickHouse would see for
/// the same mistake. DataFusion's plan errors are plain strings, so the mapping reads
/// their wording; the unit tests pin the phrases relied on.
fn classify_datafusion(e: DataFusionError) -> Error {
    // A Granary error anywhere in the chain (a table provider's, or an object store's
    // wrapped by a reader DataFusion owns) carries the code chosen where it happened.
    if !matches!(e, DataFusionError::External(_)) {
        if let Some(found) = coded_source(&e) {
            return found;
        }
    }
    match e {
        DataFusionError::External(inner) => match inner.downcast::<Error>() {
            Ok(ours) => *ours,
            Err(other) => match other.downcast::<arrow::error::ArrowError>() {
                Ok(arrow) => Error::from(*arrow),
                Err(other) => match other.downcast::<DataFusionError>() {
                    Ok(nested) => classify_datafusion(*nested),
                    Err(other) => match coded_source(other.as_ref()) {
                        Some(found) => found,
                        None => Error::new(ErrorCode::STD_EXCEPTION, other.to_string()),
                    },
                },
            },
        },
        DataFusionError::Context(_, inner) => classify_datafusion(*inner),
        DataFusionError::Shared(inner) => match std::sync::Arc::try_unwrap(inner) {
            Ok(owned) => classify_datafusion(owned),
            // Still shared (the plan that raised it is alive, e.g. a scalar subquery's
            // result cell): classified by what it says, as an owned one would be.
            Err(shared) => match shared.as_ref() {
                DataFusionError::Plan(m) | DataFusionError::Execution(m) => classify_message(m.clone()),
                other => coded_source(other).unwrap_or_else(|| classify_message(other.to_string())),
            },
        },
        DataFusionError::ArrowError(inner, _) => Error::from(*inner),
        DataFusionError::SQL(inner, _) => Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {inner}")),
        DataFusionError::ResourcesExhausted(m) => {
            Error::new(ErrorCode::MEMORY_LIMIT_EXCEEDED, format!("Memory limit exceeded: {m}"))
        }
        DataFusionError::NotImplemented(m) => Error::new(ErrorCode::NOT_IMPLEMENTED, m),
        DataFusionError::Plan(m) | DataFusionError::Execution(m) => classify_message(m),
        DataFusionError::SchemaError(inner, _) => classify_message(inner.to_string()),
        DataFusionError::IoError(io) => Error::from(io),
        other => {
            let text = other.to_string();
            classify_message(text)
        }
    }
}

/// The first Granary error in `e`'s source chain (`e` itself included), with its code
/// and message.
fn coded_source(e: &(dyn std::error::Error + 'static)) -> Option<Error> {
    let mut current = Some(e);
    while let Some(error) = current {
        if let Some(ours) = error.downcast_ref::<Error>() {
            return Some(Error::new(ours.code, ours.message.clone()));
        }
        // `io::Error::source()` skips the error it wraps.
        current = match error.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            Some(wrapped) => Some(wrapped as &(dyn std::error::Error + 'static)),
            None => error.source(),
        };
    }
    None
}

/// How object_store prints the coded failures of Granary's remote stores
/// (`granary-io::coded_store`), by the code they carry: a reader that keeps only the
/// text of an error (DataFusion's Parquet metadata fetch) still reports the right code.
const STORE_ERROR_MARKERS: [(&str, ErrorCode); 3] = [
    ("Generic S3 error: ", ErrorCode::S3_ERROR),
    ("Generic MicrosoftAzure error: ", ErrorCode::AZURE_BLOB_STORAGE_ERROR),
    ("Generic HTTP error: ", ErrorCode::RECEIVED_ERROR_FROM_REMOTE_IO_SERVER),
];

fn classify_message(message: String) -> Error {
    for (marker, code) in STORE_ERROR_MARKERS {
        if let Some(at) = message.rfind(marker) {
            return Error::new(code, message[at + marker.len()..].to_string());
        }
    }
    let lower = message.to_ascii_lowercase();
    let code = if lower.contains("table '") && lower.contains("not found") || lower.contains("table not found") {
        ErrorCode::UNKNOWN_TABLE
    } else if lower.contains("no field named") || lower.contains("unknown identifier") {
        ErrorCode::UNKNOWN_IDENTIFIER
    } else if lower.contains("invalid function") || lower.contains("unknown function") {
        ErrorCode::UNKNOWN_FUNCTION
    } else if lower.contains("projections require unique expression names") {
        // Repeated result columns get unique internal names before planning
        // (granary-sql names::name_repeated_columns); what is left is one alias given
        // to different expressions.
        ErrorCode::MULTIPLE_EXPRESSIONS_FOR_ALIAS
    } else if lower.contains("ambiguous reference") {
        ErrorCode::BAD_ARGUMENTS
    } else if lower.contains("cannot cast") || lower.contains("unsupported cast") {
        ErrorCode::CANNOT_CONVERT_TYPE
    } else if lower.contains("does not support zero arguments")
        || lower.contains("expects")
        || lower.contains("function '")
        || lower.contains("no function matches")
        || lower.contains("failed to coerce arguments")
    {
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH
    } else if lower.contains("cannot coerce arithmetic expression") || lower.contains("cannot get result type") {
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT
    } else if lower.contains("cannot infer common") || lower.contains("type mismatch") {
        ErrorCode::TYPE_MISMATCH
    } else if lower.contains("divide by zero") || lower.contains("division by zero") {
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT
    } else if lower.contains("must appear in the group by clause") || lower.contains("projection references non-aggregate") {
        ErrorCode::NOT_AN_AGGREGATE
    } else if lower.contains("scalar subquery returned more than one row") {
        ErrorCode::INCORRECT_RESULT_OF_SCALAR_SUBQUERY
    } else if lower.contains("aggregate function calls cannot be nested") {
        ErrorCode::ILLEGAL_AGGREGATION
    } else if lower.contains("union queries have different number of columns") {
        ErrorCode::UNION_ALL_RESULT_STRUCTURES_MISMATCH
    } else {
        ErrorCode::BAD_ARGUMENTS
    };
    Error::new(code, strip_datafusion_prefixes(&message))
}

/// DataFusion prefixes messages with "Error during planning: " and the like; ClickHouse
/// users expect the message itself.
fn strip_datafusion_prefixes(message: &str) -> String {
    let mut text = message;
    for prefix in ["Error during planning: ", "Execution error: ", "Schema error: ", "This feature is not implemented: "] {
        if let Some(rest) = text.strip_prefix(prefix) {
            text = rest;
        }
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clickhouse_body() {
        let e = Error::new(ErrorCode::UNKNOWN_TABLE, "Table default.x does not exist.");
        assert_eq!(e.to_clickhouse_string(), "Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)");
    }

    #[test]
    fn code_survives_nesting_and_io() {
        let ours = Error::new(ErrorCode::S3_ERROR, "SlowDown");
        let nested = DataFusionError::External(Box::new(DataFusionError::Context("read".into(), Box::new(ours.into_datafusion()))));
        assert_eq!(Error::from(nested).code(), ErrorCode::S3_ERROR);
        let io = std::io::Error::other(Error::new(ErrorCode::S3_ERROR, "reset"));
        let back = Error::from(io);
        assert_eq!((back.code(), back.message()), (ErrorCode::S3_ERROR, "reset"));
        let arrow = arrow::error::ArrowError::ExternalError(Box::new(std::io::Error::other(Error::new(ErrorCode::S3_ERROR, "deep"))));
        assert_eq!(Error::from(DataFusionError::ArrowError(Box::new(arrow), None)).code(), ErrorCode::S3_ERROR);
    }

    #[test]
    fn stringified_store_errors_keep_their_code() {
        let text = "Parquet error: Failed to fetch metadata for file x: Object Store error: Generic S3 error: SlowDown (b/x.parquet)";
        let e = Error::from(DataFusionError::Execution(text.into()));
        assert_eq!((e.code(), e.message()), (ErrorCode::S3_ERROR, "SlowDown (b/x.parquet)"));
    }

    #[test]
    fn code_survives_datafusion() {
        let ours = Error::new(ErrorCode::TOO_MANY_PARTS, "too many");
        let df = DataFusionError::Context("scan".into(), Box::new(ours.into_datafusion()));
        assert_eq!(Error::from(df).code(), ErrorCode::TOO_MANY_PARTS);
    }

    #[test]
    fn plan_errors_are_classified() {
        let e = Error::from(DataFusionError::Plan("table 'default.nope' not found".into()));
        assert_eq!(e.code(), ErrorCode::UNKNOWN_TABLE);
        let shared = std::sync::Arc::new(DataFusionError::Execution("Scalar subquery returned more than one row".into()));
        let kept = shared.clone();
        let e = Error::from(DataFusionError::Shared(shared));
        assert_eq!(e.code(), ErrorCode::INCORRECT_RESULT_OF_SCALAR_SUBQUERY, "{kept}");
        let e = Error::from(DataFusionError::Plan("UNION queries have different number of columns".into()));
        assert_eq!(e.code(), ErrorCode::UNION_ALL_RESULT_STRUCTURES_MISMATCH);
        let e = Error::from(DataFusionError::Plan("Invalid function 'foo'".into()));
        assert_eq!(e.code(), ErrorCode::UNKNOWN_FUNCTION);
    }
}
