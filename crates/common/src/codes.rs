//! ClickHouse error codes: one table, so a number, its name and its HTTP status
//! can never disagree. Numbers and names are ClickHouse's (src/Common/ErrorCodes.cpp);
//! statuses follow ClickHouse's exceptionCodeToHTTPStatus.

macro_rules! error_codes {
    ($( $variant:ident = $num:literal, $status:literal; )*) => {
        /// A ClickHouse error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        pub enum ErrorCode { $( $variant ),* }

        impl ErrorCode {
            /// The ClickHouse number of this code.
            pub fn number(self) -> i32 { match self { $( ErrorCode::$variant => $num ),* } }
            /// The ClickHouse name, as printed in `(NAME)` at the end of an exception.
            pub fn name(self) -> &'static str { match self { $( ErrorCode::$variant => stringify!($variant) ),* } }
            /// The HTTP status ClickHouse answers with for this code.
            pub fn http_status(self) -> u16 { match self { $( ErrorCode::$variant => $status ),* } }
            /// Every code, for `system.errors` and tests.
            pub fn all() -> &'static [ErrorCode] { &[ $( ErrorCode::$variant ),* ] }
            /// Looks a code up by its number.
            pub fn from_number(n: i32) -> Option<ErrorCode> {
                match n { $( $num => Some(ErrorCode::$variant), )* _ => None }
            }
        }
    };
}

error_codes! {
    UNSUPPORTED_METHOD = 1, 500;
    UNSUPPORTED_PARAMETER = 2, 500;
    CANNOT_PARSE_TEXT = 6, 400;
    INCORRECT_NUMBER_OF_COLUMNS = 7, 400;
    THERE_IS_NO_COLUMN = 8, 400;
    NOT_FOUND_COLUMN_IN_BLOCK = 10, 500;
    NO_SUCH_COLUMN_IN_TABLE = 16, 404;
    DUPLICATE_COLUMN = 15, 400;
    NUMBER_OF_COLUMNS_DOESNT_MATCH = 20, 400;
    CANNOT_PARSE_ESCAPE_SEQUENCE = 25, 400;
    CANNOT_PARSE_QUOTED_STRING = 26, 400;
    CANNOT_PARSE_INPUT_ASSERTION_FAILED = 27, 400;
    CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER = 28, 500;
    ATTEMPT_TO_READ_AFTER_EOF = 32, 500;
    CANNOT_READ_ALL_DATA = 33, 500;
    TOO_MANY_ARGUMENTS_FOR_FUNCTION = 34, 400;
    TOO_FEW_ARGUMENTS_FOR_FUNCTION = 35, 400;
    BAD_ARGUMENTS = 36, 400;
    CANNOT_PARSE_DATE = 38, 400;
    CHECKSUM_DOESNT_MATCH = 40, 500;
    CANNOT_PARSE_DATETIME = 41, 400;
    PARAMETER_OUT_OF_BOUND = 12, 400;
    NUMBER_OF_ARGUMENTS_DOESNT_MATCH = 42, 400;
    ILLEGAL_TYPE_OF_ARGUMENT = 43, 400;
    ILLEGAL_COLUMN = 44, 400;
    CYCLIC_ALIASES = 174, 400;
    VIOLATED_CONSTRAINT = 469, 400;
    UNKNOWN_FUNCTION = 46, 404;
    UNKNOWN_IDENTIFIER = 47, 404;
    NOT_IMPLEMENTED = 48, 501;
    LOGICAL_ERROR = 49, 500;
    UNKNOWN_TYPE = 50, 404;
    EMPTY_LIST_OF_COLUMNS_QUERIED = 51, 500;
    TYPE_MISMATCH = 53, 400;
    UNKNOWN_STORAGE = 56, 404;
    TABLE_ALREADY_EXISTS = 57, 500;
    ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER = 59, 500;
    UNKNOWN_TABLE = 60, 404;
    SYNTAX_ERROR = 62, 400;
    UNKNOWN_AGGREGATE_FUNCTION = 63, 404;
    ARGUMENT_OUT_OF_BOUND = 69, 400;
    EMPTY_DATA_PASSED = 92, 400;
    CANNOT_CONVERT_TYPE = 70, 400;
    CANNOT_PARSE_NUMBER = 72, 400;
    UNKNOWN_FORMAT = 73, 404;
    CANNOT_READ_FROM_FILE_DESCRIPTOR = 74, 500;
    CANNOT_WRITE_TO_FILE_DESCRIPTOR = 75, 500;
    CANNOT_OPEN_FILE = 76, 503;
    INCORRECT_QUERY = 80, 400;
    UNKNOWN_DATABASE = 81, 404;
    DATABASE_ALREADY_EXISTS = 82, 500;
    FILE_DOESNT_EXIST = 107, 404;
    NO_DATA_TO_INSERT = 108, 500;
    UNKNOWN_SETTING = 115, 404;
    INCORRECT_DATA = 117, 400;
    ILLEGAL_INDEX = 127, 500;
    TOO_LARGE_ARRAY_SIZE = 128, 400;
    TOO_LARGE_STRING_SIZE = 131, 400;
    AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS = 133, 400;
    PARAMETERS_TO_AGGREGATE_FUNCTIONS_MUST_BE_LITERALS = 134, 400;
    BAD_TYPE_OF_FIELD = 169, 400;
    BAD_GET = 170, 500;
    INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE = 353, 400;
    NO_COMMON_TYPE = 386, 400;
    SIZES_OF_ARRAYS_DONT_MATCH = 190, 500;
    MULTIPLE_EXPRESSIONS_FOR_ALIAS = 179, 400;
    CANNOT_READ_ARRAY_FROM_TEXT = 130, 400;
    EMPTY_LIST_OF_COLUMNS_PASSED = 78, 400;
    TOO_MANY_ROWS = 158, 500;
    ENGINE_REQUIRED = 119, 500;
    DATABASE_ACCESS_DENIED = 291, 500;
    ZLIB_INFLATE_FAILED = 354, 500;
    ZSTD_DECODER_FAILED = 562, 500;
    LZMA_STREAM_DECODER_FAILED = 554, 500;
    BZIP2_STREAM_DECODER_FAILED = 594, 500;
    LZ4_DECODER_FAILED = 617, 500;
    BROTLI_READ_FAILED = 448, 500;
    CANNOT_PARSE_BOOL = 467, 400;
    CANNOT_FORMAT_DATETIME = 490, 500;
    SESSION_NOT_FOUND = 372, 404;
    TOO_SLOW = 160, 500;
    SESSION_IS_LOCKED = 373, 500;
    INVALID_SESSION_TIMEOUT = 374, 400;
    TOO_MANY_ROWS_OR_BYTES = 396, 500;
    TIMEOUT_EXCEEDED = 159, 408;
    READONLY = 164, 500;
    CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN = 349, 400;
    UNKNOWN_USER = 192, 403;
    WRONG_PASSWORD = 193, 403;
    REQUIRED_PASSWORD = 194, 401;
    TOO_MANY_SIMULTANEOUS_QUERIES = 202, 500;
    NO_FREE_CONNECTION = 203, 500;
    NETWORK_ERROR = 210, 500;
    NOT_AN_AGGREGATE = 215, 500;
    QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING = 216, 500;
    ABORTED = 236, 500;
    MEMORY_LIMIT_EXCEEDED = 241, 500;
    CORRUPTED_DATA = 246, 500;
    TOO_MANY_PARTS = 252, 500;
    UNION_ALL_RESULT_STRUCTURES_MISMATCH = 258, 500;
    BAD_DATABASE_FOR_TEMPORARY_TABLE = 442, 500;
    WITH_TIES_WITHOUT_ORDER_BY = 476, 500;
    INVALID_USAGE_OF_INPUT = 477, 500;
    INVALID_PARTITION_VALUE = 248, 500;
    CANNOT_ASSIGN_OPTIMIZE = 388, 500;
    UNFINISHED = 341, 500;
    CANNOT_FSYNC = 447, 500;
    BAD_TTL_EXPRESSION = 450, 500;
    SUPPORT_IS_DISABLED = 344, 500;
    FUNCTION_NOT_ALLOWED = 446, 500;
    DEPRECATED_FUNCTION = 721, 500;
    VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE = 321, 500;
    QUERY_WAS_CANCELLED = 394, 500;
    INVALID_LIMIT_EXPRESSION = 440, 400;
    INVALID_WITH_FILL_EXPRESSION = 475, 500;
    UNKNOWN_QUERY_PARAMETER = 456, 400;
    BAD_QUERY_PARAMETER = 457, 400;
    ACCESS_DENIED = 497, 403;
    CANNOT_DECOMPRESS = 271, 500;
    INDEX_NOT_USED = 277, 500;
    UNKNOWN_COMPRESSION_METHOD = 89, 500;
    ACCESS_ENTITY_NOT_FOUND = 492, 404;
    ACCESS_ENTITY_ALREADY_EXISTS = 493, 500;
    ACCESS_STORAGE_READONLY = 495, 500;
    INVALID_GRANT = 509, 500;
    SETTING_CONSTRAINT_VIOLATION = 452, 500;
    UNKNOWN_ROLE = 511, 404;
    QUOTA_EXCEEDED = 201, 500;
    AUTHENTICATION_FAILED = 516, 403;
    UNKNOWN_TYPE_OF_QUERY = 515, 404;
    UNKNOWN_DATABASE_ENGINE = 336, 404;
    UNEXPECTED_DATA_AFTER_PARSED_VALUE = 632, 500;
    CANNOT_EXTRACT_TABLE_STRUCTURE = 636, 500;
    UNKNOWN_ELEMENT_IN_CONFIG = 137, 500;
    INCOMPATIBLE_TYPE_OF_JOIN = 264, 400;
    INFINITE_LOOP = 269, 500;
    DICTIONARY_ALREADY_EXISTS = 387, 500;
    CANNOT_GET_CREATE_TABLE_QUERY = 390, 500;
    TOO_DEEP_RECURSION = 306, 500;
    SAMPLING_NOT_SUPPORTED = 141, 500;
    FUNCTION_ALREADY_EXISTS = 609, 500;
    INCORRECT_RESULT_OF_SCALAR_SUBQUERY = 125, 500;
    ILLEGAL_FINAL = 181, 500;
    ILLEGAL_AGGREGATION = 184, 500;
    ILLEGAL_DIVISION = 153, 400;
    FUNCTION_THROW_IF_VALUE_IS_NON_ZERO = 395, 400;
    INVALID_JOIN_ON_EXPRESSION = 403, 500;
    CANNOT_UPDATE_COLUMN = 420, 400;
    CANNOT_COMPILE_REGEXP = 427, 400;
    DECIMAL_OVERFLOW = 407, 400;
    S3_ERROR = 499, 500;
    CANNOT_SCHEDULE_TASK = 439, 500;
    RECEIVED_ERROR_FROM_REMOTE_IO_SERVER = 86, 500;
    CANNOT_APPEND_TO_FILE = 641, 500;
    AZURE_BLOB_STORAGE_ERROR = 500, 500;
    NAMED_COLLECTION_DOESNT_EXIST = 669, 500;
    NAMED_COLLECTION_ALREADY_EXISTS = 670, 500;
    NAMED_COLLECTION_IS_IMMUTABLE = 671, 500;
    STD_EXCEPTION = 1001, 500;
    CANNOT_PARSE_IPV4 = 675, 400;
    UNKNOWN_ELEMENT_OF_ENUM = 691, 400;
    CANNOT_PARSE_IPV6 = 676, 400;
    CANNOT_LOAD_CONFIG = 347, 500;
    ALTER_OF_COLUMN_IS_FORBIDDEN = 524, 500;
    NO_ELEMENTS_IN_CONFIG = 139, 500;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::all() {
            assert!(seen.insert(code.number()), "duplicate number {}", code.number());
            assert_eq!(ErrorCode::from_number(code.number()), Some(*code));
        }
    }

    #[test]
    fn statuses_follow_clickhouse() {
        assert_eq!(ErrorCode::SYNTAX_ERROR.http_status(), 400);
        assert_eq!(ErrorCode::UNKNOWN_TABLE.http_status(), 404);
        assert_eq!(ErrorCode::UNKNOWN_DATABASE.http_status(), 404);
        assert_eq!(ErrorCode::TIMEOUT_EXCEEDED.http_status(), 408);
        assert_eq!(ErrorCode::LOGICAL_ERROR.http_status(), 500);
        assert_eq!(ErrorCode::UNKNOWN_TABLE.name(), "UNKNOWN_TABLE");
    }
}
