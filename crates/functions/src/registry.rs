//! The registration table: which ClickHouse names exist, which are aliases of which,
//! which are case-insensitive, and what `system.functions.description` says.
//!
//! Function *implementations* live in the family modules; each exposes
//! `functions() -> Vec<ScalarUDF>` (or `aggregates()`). This module only adds the
//! naming rules on top:
//! * [`ALIASES`]: ClickHouse's `alias_to` pairs for the functions Granary implements;
//! * [`CLICKHOUSE_CASE_INSENSITIVE`]: every name ClickHouse marks `case_insensitive`
//!   (copied from `system.functions` of ClickHouse 26.9 via chdb). The SQL front end
//!   lowercases these names, so each one that Granary registers with capitals also gets
//!   a lowercase spelling (hidden from the catalog, as ClickHouse does not list it);
//! * [`description`]: one line per function for `system.functions`.

/// `(alias, canonical)` pairs, as in ClickHouse's `system.functions.alias_to`.
pub(crate) static ALIASES: &[(&str, &str)] = &[
    // aggregates
    ("any_value", "any"),
    ("max_by", "argMax"),
    ("min_by", "argMin"),
    ("array_agg", "groupArray"),
    ("VAR_POP", "varPop"),
    ("VAR_SAMP", "varSamp"),
    ("STDDEV_POP", "stddevPop"),
    ("STDDEV_SAMP", "stddevSamp"),
    ("STDDEV", "stddevSamp"),
    ("STD", "stddevPop"),
    ("COVAR_POP", "covarPop"),
    ("COVAR_SAMP", "covarSamp"),
    // conversions / misc
    ("DATABASE", "currentDatabase"),
    ("SCHEMA", "currentDatabase"),
    ("current_database", "currentDatabase"),
    ("hostname", "hostName"),
    ("toTimeZone", "toTimezone"),
    ("rand32", "rand"),
    // dates
    ("DATE_DIFF", "dateDiff"),
    ("TIMESTAMP_DIFF", "dateDiff"),
    ("date_diff", "dateDiff"),
    ("timestampDiff", "dateDiff"),
    ("timestamp_diff", "dateDiff"),
    ("current_timestamp", "now"),
    ("localtimestamp", "now"),
    ("timeZone", "timezone"),
    ("DAY", "toDayOfMonth"),
    ("DAYOFMONTH", "toDayOfMonth"),
    ("DAYOFWEEK", "toDayOfWeek"),
    ("HOUR", "toHour"),
    ("MINUTE", "toMinute"),
    ("MONTH", "toMonth"),
    ("SECOND", "toSecond"),
    ("YEAR", "toYear"),
    ("curdate", "today"),
    ("toStartOfFiveMinute", "toStartOfFiveMinutes"),
    ("current_date", "today"),
    ("DATE_FORMAT", "formatDateTime"),
    ("FROM_UNIXTIME", "fromUnixTimestamp"),
    ("YEARWEEK", "toYearWeek"),
    ("WEEK", "toWeek"),
    ("QUARTER", "toQuarter"),
    ("DAYOFYEAR", "toDayOfYear"),
    // strings
    ("CHAR_LENGTH", "lengthUTF8"),
    ("CHARACTER_LENGTH", "lengthUTF8"),
    ("CARDINALITY", "length"),
    ("OCTET_LENGTH", "length"),
    ("lcase", "lower"),
    ("ucase", "upper"),
    ("replace", "replaceAll"),
    ("concat_ws", "concatWithSeparator"),
    ("instr", "position"),
    ("REGEXP_MATCHES", "match"),
    ("REGEXP_REPLACE", "replaceRegexpAll"),
    ("FROM_BASE64", "base64Decode"),
    ("TO_BASE64", "base64Encode"),
    ("byteSlice", "substring"),
    ("mid", "substring"),
    ("substr", "substring"),
    ("trim", "trimBoth"),
    ("ltrim", "trimLeft"),
    ("rtrim", "trimRight"),
    // IP addresses
    ("INET_ATON", "IPv4StringToNum"),
    ("INET_NTOA", "IPv4NumToString"),
    ("INET6_ATON", "IPv6StringToNum"),
    ("INET6_NTOA", "IPv6NumToString"),
    // arithmetic
    ("mod", "modulo"),
    ("caseWithoutExpression", "multiIf"),
    ("caseWithoutExpr", "multiIf"),
];

include!("case_insensitive.rs");

/// Whether ClickHouse resolves `name` case-insensitively.
pub(crate) fn clickhouse_case_insensitive(name: &str) -> bool {
    CLICKHOUSE_CASE_INSENSITIVE.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// The `system.functions.description` of a Granary function.
pub(crate) fn description(name: &str) -> &'static str {
    match name {
        "count" => "Counts rows, or non-NULL values of its argument. Returns UInt64.",
        "sum" => "Sum of the values; integers widen to Int64/UInt64, floats to Float64, decimals to Decimal(38, S).",
        "avg" => "Arithmetic mean as Float64 (nan for an empty set).",
        "min" => "Smallest value.",
        "max" => "Largest value.",
        "any" => "The first non-NULL value met.",
        "anyLast" => "The last non-NULL value met.",
        "argMin" => "The value of the first argument at the smallest value of the second.",
        "argMax" => "The value of the first argument at the largest value of the second.",
        "uniqExact" => "Exact number of distinct non-NULL values. Returns UInt64.",
        "groupArray" => "Array of the non-NULL values met.",
        "varPop" | "varSamp" | "stddevPop" | "stddevSamp" => "Population or sample variance / standard deviation from running power sums, as ClickHouse (nan for too few rows).",
        "covarPop" | "covarSamp" | "corr" => "Covariance or Pearson correlation of two columns from running power sums, as ClickHouse (nan for too few rows).",
        "varPopStable" | "varSampStable" | "stddevPopStable" | "stddevSampStable" | "covarPopStable" | "covarSampStable" | "corrStable" => {
            "Numerically stable (Welford) variant; Float64, inf for too few rows, as ClickHouse."
        }
        "toString" => "Converts a value to its text form.",
        "toTypeName" => "The ClickHouse type name of the argument.",
        "CAST" | "_CAST" => "Converts a value to the type named by the second argument.",
        "materialize" => "Turns a constant into a full column.",
        "identity" => "Returns its argument unchanged.",
        "ignore" => "Accepts any arguments and returns 0.",
        "toFixedString" => "Converts a String to FixedString(N), padding with zero bytes.",
        "now" => "The current time (constant within a query) as DateTime.",
        "now64" => "The current time with sub-second precision as DateTime64(p).",
        "today" => "The current date in the server time zone.",
        "yesterday" => "The day before today.",
        "timezone" => "The server time zone.",
        "dateDiff" => "Difference between two dates or times in the given unit.",
        "toUnixTimestamp" => "Seconds since the Unix epoch as UInt32.",
        "version" => "The server version.",
        "arrayMap" => "arrayMap(x -> expr, arr, ...): the lambda applied to each element (of several arrays of equal sizes).",
        "arrayFilter" => "arrayFilter(x -> cond, arr, ...): the elements of the first array for which the lambda is true.",
        "arrayJoin" => "Turns each element of an array into a row of its own.",
        "arrayFirst" => "arrayFirst(x -> cond, arr, ...): the first element for which the lambda is true, else the default value.",
        "arrayLast" => "arrayLast(x -> cond, arr, ...): the last element for which the lambda is true, else the default value.",
        "arrayFirstOrNull" => "arrayFirstOrNull(x -> cond, arr, ...): the first element for which the lambda is true, else NULL.",
        "arrayLastOrNull" => "arrayLastOrNull(x -> cond, arr, ...): the last element for which the lambda is true, else NULL.",
        "arrayFirstIndex" => "arrayFirstIndex(x -> cond, arr, ...): the 1-based position of the first element for which the lambda is true, else 0.",
        "arrayLastIndex" => "arrayLastIndex(x -> cond, arr, ...): the 1-based position of the last element for which the lambda is true, else 0.",
        "addressToSymbol" => "The mangled name of the function at an address of the server process (system.trace_log); needs allow_introspection_functions.",
        "addressToLine" => "The source file and line of an address of the server process; needs allow_introspection_functions.",
        "addressToLineWithInlines" => "addressToLine and the chain of inlined functions at an address; needs allow_introspection_functions.",
        "demangle" => "A mangled Rust or C++ symbol name made readable; needs allow_introspection_functions.",
        "currentDatabase" => "The current database.",
        "hostName" => "The host name of the server.",
        "uptime" => "Seconds since the server started.",
        "rand" => "A pseudo-random UInt32.",
        "rand64" => "A pseudo-random UInt64.",
        "generateUUIDv4" => "A random version 4 UUID.",
        "if" => "Returns the second argument where the condition is true, else the third.",
        "multiIf" => "CASE WHEN as a function: cond1, then1, cond2, then2, ..., else.",
        "__condition" => "Internal: a number or Bool as a filter condition (non-zero is true).",
        "__named_tuple" => "Internal: the value of a scalar subquery of several columns, a Tuple named after them.",
        "__nested" => "Internal: a Nested column made from its subcolumns, Array(Tuple(...)) or, after ARRAY JOIN, Tuple(...).",
        "isNull" => "1 if the argument is NULL.",
        "isNotNull" => "1 if the argument is not NULL.",
        "ifNull" => "The first argument unless it is NULL, else the second.",
        "nullIf" => "NULL if both arguments are equal, else the first.",
        "assumeNotNull" => "The argument as a non-Nullable type (NULL becomes the default value).",
        "toNullable" => "The argument as a Nullable type.",
        "length" => "Length of a string in bytes, or of an array.",
        "array" => "An array of the arguments, of their least common type; `[x, ...]` is the same.",
        "substring" => "Substring by 1-based byte offset and length.",
        _ if name.starts_with("to") && name.contains("OrZero") => "Conversion returning the zero value when the text cannot be parsed.",
        _ if name.starts_with("to") && name.contains("OrNull") => "Conversion returning NULL when the text cannot be parsed.",
        _ if name.starts_with("toStartOf") => "Rounds a date or time down to the start of the period.",
        _ if name.starts_with("add") || name.starts_with("subtract") => "Adds or subtracts an interval to a date or time.",
        _ if name.starts_with("to") => "Type conversion or date/time component.",
        "IPv4StringToNum" => "The UInt32 of an IPv4 address in dotted text; error 675 for other text.",
        "IPv4NumToString" => "The dotted text of an IPv4 address held as UInt32.",
        "IPv6StringToNum" => "The 16 bytes (FixedString(16)) of an IPv6 address in text; IPv4 text gives ::ffff:a.b.c.d; error 676 for other text.",
        "IPv6NumToString" => "The text of an IPv6 address held as FixedString(16), as ClickHouse prints it.",
        "domain" => "The host of a URL (ClickHouse's non-RFC parsing); empty when there is none.",
        "protocol" => "The scheme of a URL (http, https, ...); empty when there is none.",
        "port" => "The port of a URL as UInt16, or the optional default_port (0) when it has none.",
        "extractURLParameter" => "The raw value of the first URL parameter with the given (constant) name; empty when absent.",
        "extractURLParameters" => "The name=value pairs of a URL's query string and fragment.",
        "extractURLParameterNames" => "The parameter names of a URL's query string and fragment.",
        "decodeURLComponent" => "Percent-decodes a string.",
        "encodeURLComponent" => "Percent-encodes every byte except letters, digits and -_.~.",
        _ => "ClickHouse-compatible function.",
    }
}
