//! The settings registry: every query-level setting Granary knows, with its type,
//! default and description. `SET x = v`, `SETTINGS x = v`, URL parameters and
//! `system.settings` all go through this table, so an unknown or mistyped setting is
//! rejected the same way everywhere (code 115 UNKNOWN_SETTING, or 36 BAD_ARGUMENTS for
//! a bad value).
//!
//! [`Settings`] is a small copy-on-write overlay over the defaults: a session holds one,
//! a query clones it (cheap: only changed values are stored) and adds its own.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{Error, ErrorCode, Result};

/// The value type of a setting, used to validate and normalise values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    UInt64,
    /// A count that must not be zero (`max_block_size`).
    NonZeroUInt64,
    Int64,
    Float,
    Bool,
    String,
    /// A thread count: `0` or `'auto'` means the number of cores.
    MaxThreads,
    /// Seconds, possibly fractional.
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// `simple`, `iso` or `unix_timestamp`.
    DateTimeOutputFormat,
    /// `basic`, `best_effort` or `best_effort_us`.
    DateTimeInputFormat,
}

impl SettingKind {
    /// The ClickHouse type name shown in `system.settings.type`.
    pub fn type_name(self) -> &'static str {
        match self {
            SettingKind::UInt64 => "UInt64",
            SettingKind::NonZeroUInt64 => "NonZeroUInt64",
            SettingKind::Int64 => "Int64",
            SettingKind::Float => "Float",
            SettingKind::Bool => "Bool",
            SettingKind::String => "String",
            SettingKind::MaxThreads => "MaxThreads",
            SettingKind::Seconds => "Seconds",
            SettingKind::Milliseconds => "Milliseconds",
            SettingKind::DateTimeOutputFormat => "DateTimeOutputFormat",
            SettingKind::DateTimeInputFormat => "DateTimeInputFormat",
        }
    }

    /// The values an enumeration setting takes, in ClickHouse's order for its error text.
    fn allowed_values(self) -> &'static [&'static str] {
        match self {
            SettingKind::DateTimeOutputFormat => &["unix_timestamp", "iso", "simple"],
            SettingKind::DateTimeInputFormat => &["best_effort", "basic", "best_effort_us"],
            _ => &[],
        }
    }
}

/// One row of the registry.
#[derive(Debug)]
pub struct SettingDef {
    pub name: &'static str,
    pub kind: SettingKind,
    pub default: &'static str,
    pub description: &'static str,
}

macro_rules! registry {
    ($( $name:literal : $kind:ident = $default:literal, $desc:literal; )*) => {
        /// Every known setting, sorted by name.
        pub static SETTINGS_REGISTRY: &[SettingDef] = &[
            $( SettingDef { name: $name, kind: SettingKind::$kind, default: $default, description: $desc } ),*
        ];
    };
}

registry! {
    "allow_asynchronous_read_from_io_pool_for_merge_tree": Bool = "0", "Accepted for compatibility: ClickHouse reads MergeTree through a background I/O pool; Granary has no separate I/O pool, so the value changes nothing.";
    "allow_deprecated_error_prone_window_functions": Bool = "0", "Allows runningAccumulate, whose result depends on how rows are split into blocks.";
    "allow_experimental_funnel_functions": Bool = "0", "Allows sequenceNextNode (ClickHouse's alias of enable_funnel_functions; either one enables it).";
    "allow_introspection_functions": Bool = "0", "Allows the introspection functions (addressToSymbol, addressToLine, addressToLineWithInlines, demangle) that read system.trace_log's stacks.";
    "allow_named_collection_override_by_default": Bool = "1", "Keys of a named collection without [NOT] OVERRIDABLE may be overridden by the arguments of a table function.";
    "apply_deleted_mask": Bool = "1", "Leave out the rows a lightweight DELETE masked (0: show them, with _row_exists = 0).";
    "asterisk_include_alias_columns": Bool = "0", "SELECT *: also the table's ALIAS columns.";
    "asterisk_include_materialized_columns": Bool = "0", "SELECT *: also the table's MATERIALIZED columns.";
    "async_insert": Bool = "0", "Queue INSERTs that carry their data (VALUES, FORMAT with a body) and write the queued INSERTs of one table, column list and settings as one part (ClickHouse's asynchronous inserts; off by default, as in ClickHouse 24.8). INSERT ... SELECT is never queued.";
    "async_insert_busy_timeout_max_ms": Milliseconds = "200", "Asynchronous inserts: the longest time the first queued INSERT of a batch waits before the batch is written.";
    "async_insert_busy_timeout_ms": Milliseconds = "200", "Asynchronous inserts: the time the first queued INSERT of a batch waits before the batch is written (when set, instead of async_insert_busy_timeout_max_ms).";
    "async_insert_deduplicate": Bool = "0", "Accepted for compatibility: ClickHouse deduplicates asynchronous inserts of Replicated tables only; Granary has no Replicated tables.";
    "async_insert_max_data_size": UInt64 = "10485760", "Asynchronous inserts: a batch is written once its queued data reaches this many bytes; a single INSERT with more data is written synchronously.";
    "async_insert_max_query_number": UInt64 = "450", "Asynchronous inserts: a batch is written once this many INSERTs are queued in it.";
    "azure_connect_timeout_ms": UInt64 = "1000", "Connection timeout of Azure Blob Storage requests.";
    "azure_create_new_file_on_insert": Bool = "0", "INSERT INTO FUNCTION azureBlobStorage(): write a new numbered blob when the name exists.";
    "azure_ignore_file_doesnt_exist": Bool = "0", "azureBlobStorage(): return no rows instead of an error when the blob does not exist.";
    "azure_max_inflight_parts_for_one_file": UInt64 = "20", "Blocks of one blob upload sent concurrently.";
    "azure_max_single_part_upload_size": UInt64 = "33554432", "Blobs up to this size are uploaded in one request.";
    "azure_min_upload_part_size": UInt64 = "16777216", "Block size of larger blob uploads.";
    "azure_request_timeout_ms": UInt64 = "30000", "Timeout of one Azure Blob Storage request.";
    "azure_sdk_max_retries": UInt64 = "10", "Retries of a failed Azure Blob Storage request.";
    "azure_sdk_retry_initial_backoff_ms": UInt64 = "10", "The wait before the first retry of an Azure Blob Storage request, in milliseconds.";
    "azure_sdk_retry_max_backoff_ms": UInt64 = "1000", "The longest wait between retries of an Azure Blob Storage request, in milliseconds.";
    "azure_skip_empty_files": Bool = "0", "azureBlobStorage(): skip empty blobs.";
    "azure_throw_on_zero_files_match": Bool = "0", "azureBlobStorage(): error when a glob matches no blob.";
    "azure_truncate_on_insert": Bool = "0", "INSERT INTO FUNCTION azureBlobStorage(): overwrite an existing blob instead of failing.";
    "background_pool_size": UInt64 = "16", "Accepted for compatibility: ClickHouse's user-level setting is deprecated (the server configuration sets the merge pool); Granary's merges are scheduled by the MergeTree engine, not by this value.";
    "check_query_single_value_result": Bool = "0", "CHECK TABLE returns one 0/1 value instead of a row per part.";
    "client_protocol_version": UInt64 = "0", "HTTP: the protocol revision of the client; changes the Native format (block info, serialization kinds).";
    "connect_timeout": Seconds = "10", "Connection timeout if there are no replicas.";
    "date_time_input_format": DateTimeInputFormat = "basic", "How DateTime values are parsed from text input: 'basic' or 'best_effort'.";
    "date_time_output_format": DateTimeOutputFormat = "simple", "How DateTime values are printed: 'simple', 'iso' or 'unix_timestamp'.";
    "default_table_engine": String = "MergeTree", "The engine of CREATE TABLE without an ENGINE clause (a MergeTree gets ORDER BY tuple()).";
    "default_temporary_table_engine": String = "Memory", "The engine of CREATE TEMPORARY TABLE without an ENGINE clause.";
    "describe_compact_output": Bool = "0", "DESCRIBE: only the name and type of each column.";
    "describe_include_virtual_columns": Bool = "0", "DESCRIBE: also list the table's virtual columns (_part, ...), and an is_virtual column.";
    "enable_funnel_functions": Bool = "0", "Allows sequenceNextNode, experimental in ClickHouse.";
    "enable_http_compression": Bool = "0", "Compress the HTTP response when the client accepts it.";
    "enable_time_time64_type": Bool = "1", "Allows columns of types Time and Time64 in CREATE TABLE (ClickHouse's switch; on by default).";
    "engine_file_allow_create_multiple_files": Bool = "0", "INSERT INTO FUNCTION file(): write a new numbered file when the file exists and its format cannot be appended to.";
    "engine_file_empty_if_not_exists": Bool = "0", "file(): return no rows instead of an error when the file does not exist.";
    "engine_file_skip_empty_files": Bool = "0", "file(): skip empty files instead of parsing them.";
    "engine_file_truncate_on_insert": Bool = "0", "INSERT INTO FUNCTION file(): truncate an existing file instead of failing.";
    "engine_url_skip_empty_files": Bool = "0", "url(): skip empty files instead of parsing them.";
    "extremes": Bool = "0", "Also compute extreme values (minimums and maximums) of result columns.";
    "file_like_engine_default_partition_strategy": String = "hive", "INSERT INTO FUNCTION s3()/azureBlobStorage() ... PARTITION BY into a path without {_partition_id}: 'hive' writes name=value/ directories, 'wildcard' ignores PARTITION BY.";
    "final": Bool = "0", "Apply FINAL (merge at read time) to every table of the query.";
    "force_data_skipping_indices": String = "", "Comma-separated names of data-skipping indexes every MergeTree read with a condition must use (INDEX_NOT_USED otherwise).";
    "format_csv_allow_double_quotes": Bool = "1", "Accept strings in double quotes in CSV input.";
    "format_csv_allow_single_quotes": Bool = "0", "Accept strings in single quotes in CSV input.";
    "format_csv_delimiter": String = ",", "The field delimiter of CSV input and output.";
    "format_custom_escaping_rule": String = "Escaped", "CustomSeparated formats: how values are escaped (Escaped, Quoted, CSV, JSON, XML, Raw).";
    "format_custom_field_delimiter": String = "\t", "CustomSeparated formats: the text between fields.";
    "format_custom_result_after_delimiter": String = "", "CustomSeparated formats: the text after the result.";
    "format_custom_result_before_delimiter": String = "", "CustomSeparated formats: the text before the result.";
    "format_custom_row_after_delimiter": String = "\n", "CustomSeparated formats: the text after each row.";
    "format_custom_row_before_delimiter": String = "", "CustomSeparated formats: the text before each row.";
    "format_custom_row_between_delimiter": String = "", "CustomSeparated formats: the text between rows.";
    "format_json_object_each_row_column_for_object_name": String = "", "JSONObjectEachRow: the String column whose values are the names of the row objects.";
    "format_regexp": String = "", "Regexp input format: the regular expression (RE2 syntax) each line must match in full; its capture groups are the columns.";
    "format_regexp_escaping_rule": String = "Raw", "Regexp input format: how captured values are escaped (Escaped, Quoted, CSV, JSON, Raw).";
    "format_regexp_skip_unmatched": Bool = "0", "Regexp input format: skip lines that do not match instead of failing.";
    "group_by_use_nulls": Bool = "0", "ROLLUP, CUBE and GROUPING SETS: NULL (not the type's default) in the keys a row does not group by.";
    "http_connection_timeout": UInt64 = "1", "url(): connection timeout in seconds.";
    "http_headers_progress_interval_ms": Milliseconds = "100", "How often X-ClickHouse-Progress headers are sent.";
    "http_max_tries": UInt64 = "10", "url(): attempts of one HTTP read.";
    "http_native_compression_disable_checksumming_on_decompress": Bool = "0", "decompress=1: do not verify the checksums of the request blocks.";
    "http_receive_timeout": UInt64 = "30", "url(): timeout of one HTTP request in seconds.";
    "http_retry_initial_backoff_ms": UInt64 = "100", "url(): the wait before the first retry of a failed HTTP read, in milliseconds (doubling up to http_retry_max_backoff_ms).";
    "http_retry_max_backoff_ms": UInt64 = "10000", "url(): the longest wait between retries of a failed HTTP read, in milliseconds.";
    "http_zlib_compression_level": Int64 = "3", "Compression level of HTTP responses with gzip or deflate.";
    "ignore_data_skipping_indices": String = "", "Comma-separated names of data-skipping indexes MergeTree reads do not use.";
    "input_format_allow_errors_num": UInt64 = "0", "How many bad rows of text input may be skipped.";
    "input_format_allow_errors_ratio": Float = "0", "Which share of bad rows of text input may be skipped.";
    "input_format_csv_detect_header": Bool = "1", "Detect a header line of names in CSV input.";
    "input_format_max_bytes_to_read_for_schema_inference": UInt64 = "33554432", "Bytes read at most to infer a schema.";
    "input_format_max_rows_to_read_for_schema_inference": UInt64 = "25000", "Rows read at most to infer a schema.";
    "input_format_null_as_default": Bool = "1", "Insert the column default for NULL input into non-Nullable columns.";
    "input_format_parallel_parsing": Bool = "1", "Split text input into chunks and parse them in parallel.";
    "input_format_skip_unknown_fields": Bool = "1", "Skip fields of JSONEachRow and *WithNames input that the table does not have.";
    "input_format_try_infer_dates": Bool = "1", "Infer Date from text values in schema inference.";
    "input_format_try_infer_datetimes": Bool = "1", "Infer DateTime from text values in schema inference.";
    "input_format_try_infer_integers": Bool = "1", "Infer Int64 rather than Float64 for integers in schema inference.";
    "input_format_tsv_detect_header": Bool = "1", "Detect a header line of names in TSV input.";
    "input_format_with_names_use_header": Bool = "1", "*WithNames input: map columns by the header names.";
    "insert_deduplicate": Bool = "1", "Deduplicate inserted blocks by their checksum.";
    "insert_deduplication_token": String = "", "A user-supplied token that makes a retried insert idempotent.";
    "join_algorithm": String = "default", "Which join algorithm to use.";
    "join_use_nulls": Bool = "0", "Fill non-matched rows of outer joins with NULL instead of the type's default.";
    "lightweight_deletes_sync": UInt64 = "2", "Wait for a lightweight DELETE to finish (0: run it in the background).";
    "log_comment": String = "", "A comment stored in system.query_log for this query.";
    "log_queries": Bool = "1", "Record queries in system.query_log.";
    "materialize_ttl_after_modify": Bool = "1", "ALTER ... MODIFY TTL (and MODIFY COLUMN ... TTL) also applies the new TTL to existing parts, as MATERIALIZE TTL.";
    "max_block_size": NonZeroUInt64 = "65409", "The preferred number of rows in a block of query processing.";
    "max_bytes_to_read": UInt64 = "0", "Limit on bytes read from tables by one query (0: none).";
    "max_concurrent_queries_for_user": UInt64 = "0", "Limit on queries running at once for one user (0: none).";
    "max_download_buffer_size": UInt64 = "10485760", "Buffer of one parallel download thread; files over twice this are downloaded in ranges.";
    "max_download_threads": MaxThreads = "4", "Threads for parallel ranged downloads of one remote file.";
    "max_execution_time": Seconds = "0", "Limit on the running time of a query in seconds (0: none).";
    "max_insert_block_size": UInt64 = "1048449", "Rows of the blocks formed for insertion into a table.";
    "max_insert_delayed_streams_for_parallel_write": UInt64 = "0", "How many streams may wait for their parts to be written in parallel.";
    "max_insert_threads": MaxThreads = "0", "Pipelines that write an INSERT in parallel (0: max_threads, as ClickHouse's auto).";
    "max_memory_usage": UInt64 = "0", "Limit on memory used by one query in bytes (0: none).";
    "max_query_size": UInt64 = "262144", "Limit on the size of the query text parsed by the SQL parser.";
    "max_result_bytes": UInt64 = "0", "Limit on bytes of the result (0: none).";
    "max_result_rows": UInt64 = "0", "Limit on rows of the result (0: none).";
    "max_rows_to_read": UInt64 = "0", "Limit on rows read from tables by one query (0: none).";
    "max_streams_to_max_threads_ratio": Float = "1", "How many read streams per thread.";
    "max_threads": MaxThreads = "0", "Threads that process one query (0: the number of cores).";
    "merge_tree_max_bytes_to_use_cache": UInt64 = "2013265920", "MergeTree reads of more uncompressed bytes than this (estimated from the columns' types) bypass the uncompressed cache.";
    "merge_tree_max_rows_to_use_cache": UInt64 = "1048576", "MergeTree reads of more rows than this bypass the uncompressed cache (a big scan would only evict hot blocks).";
    "min_chunk_bytes_for_parallel_parsing": UInt64 = "10485760", "Minimum chunk size of parallel text parsing.";
    "min_insert_block_size_bytes": UInt64 = "268402944", "Squash inserted blocks until they hold this many bytes.";
    "min_insert_block_size_rows": UInt64 = "1048449", "Squash inserted blocks until they hold this many rows.";
    "mutations_sync": UInt64 = "0", "Wait for ALTER ... DELETE mutations to finish (0: run them in the background).";
    "network_compression_method": String = "LZ4", "Compression of compress=1 HTTP responses: LZ4, ZSTD or NONE.";
    "network_zstd_compression_level": Int64 = "1", "ZSTD level of compress=1 HTTP responses.";
    "optimize_move_to_prewhere": Bool = "1", "Move selective WHERE conditions to PREWHERE automatically.";
    "optimize_on_insert": Bool = "1", "Apply the table engine's merge logic to each inserted block.";
    "optimize_skip_merged_partitions": Bool = "0", "OPTIMIZE ... FINAL skips a partition whose only part is already merged (level > 0).";
    "output_format_arrow_string_as_string": Bool = "1", "Arrow output: String columns as Arrow Utf8 rather than Binary.";
    "output_format_avro_codec": String = "", "Avro output: the block codec (null, deflate, snappy, zstd; empty: snappy).";
    "output_format_avro_sync_interval": UInt64 = "16384", "Avro output: accepted for compatibility; Granary writes one block per result batch.";
    "output_format_compression_level": UInt64 = "3", "Compression level of files written by INSERT INTO FUNCTION (gzip, zstd).";
    "output_format_csv_crlf_end_of_line": Bool = "0", "CSV output lines end with CR LF instead of LF.";
    "output_format_decimal_trailing_zeros": Bool = "0", "Print trailing zeros of Decimal values.";
    "output_format_json_array_of_rows": Bool = "0", "JSONEachRow output: all rows in one JSON array.";
    "output_format_json_escape_forward_slashes": Bool = "1", "Escape / as \\/ in JSON output.";
    "output_format_json_named_tuples_as_objects": Bool = "1", "Print named tuples as JSON objects.";
    "output_format_json_quote_64bit_integers": Bool = "0", "Print 64-bit integers in quotes in JSON formats.";
    "output_format_json_quote_decimals": Bool = "0", "Print decimals in quotes in JSON formats.";
    "output_format_json_quote_denormals": Bool = "0", "Print nan and inf as strings in JSON formats.";
    "output_format_markdown_escape_special_characters": Bool = "0", "Markdown output: escape ASCII punctuation in String values with a backslash.";
    "output_format_pretty_display_footer_column_names": Bool = "1", "Pretty formats: repeat column names below long results.";
    "output_format_pretty_display_footer_column_names_min_rows": UInt64 = "50", "Pretty formats: rows from which the footer is shown.";
    "output_format_pretty_max_column_name_width_cut_to": UInt64 = "24", "Pretty and Vertical formats: column names that are not identifiers are cut to this width (0: never).";
    "output_format_pretty_max_column_name_width_min_chars_to_cut": UInt64 = "4", "Pretty and Vertical formats: a name is cut only when this many characters or more would go.";
    "output_format_pretty_max_column_pad_width": UInt64 = "250", "Pretty formats: pad columns to at most this width.";
    "output_format_pretty_max_rows": UInt64 = "10000", "Rows printed at most by Pretty formats.";
    "output_format_pretty_max_value_width": UInt64 = "10000", "Pretty formats: cut values longer than this.";
    "output_format_pretty_row_numbers": Bool = "1", "Pretty formats: number the rows.";
    "output_format_pretty_single_large_number_tip_threshold": UInt64 = "1000000", "Pretty formats: show a readable tip next to a single large number.";
    "output_format_sql_insert_include_column_names": Bool = "1", "SQLInsert output: list the column names in the INSERT.";
    "output_format_sql_insert_max_batch_size": UInt64 = "65409", "SQLInsert output: rows per INSERT statement.";
    "output_format_sql_insert_quote_names": Bool = "1", "SQLInsert output: column names in backquotes.";
    "output_format_sql_insert_table_name": String = "table", "SQLInsert output: the table name written in the INSERT.";
    "output_format_sql_insert_use_replace": Bool = "0", "SQLInsert output: REPLACE INTO instead of INSERT INTO.";
    "output_format_write_statistics": Bool = "1", "Write the statistics object in JSON output formats.";
    "parallel_distributed_insert_select": UInt64 = "0", "Run INSERT ... SELECT on every shard in parallel.";
    "preferred_block_size_bytes": UInt64 = "1000000", "The preferred size of a block in bytes.";
    "query_profiler_cpu_time_period_ns": UInt64 = "1000000000", "Period of the query profiler's CPU-time timer per query thread, in nanoseconds (at least 1 ms; 0 turns it off): stacks go to system.trace_log as trace_type 'CPU'.";
    "query_profiler_real_time_period_ns": UInt64 = "1000000000", "Period of the query profiler's wall-clock timer per query thread, in nanoseconds (at least 1 ms; 0 turns it off): stacks go to system.trace_log as trace_type 'Real'.";
    "readonly": UInt64 = "0", "0: all queries; 1: only reads; 2: reads and changing settings.";
    "remote_filesystem_read_method": String = "threadpool", "How remote files are read: 'read' or 'threadpool'.";
    "result_overflow_mode": String = "throw", "What to do when a result limit is exceeded: 'throw' or 'break'.";
    "s3_connect_timeout_ms": UInt64 = "1000", "Connection timeout of S3 requests.";
    "s3_create_new_file_on_insert": Bool = "0", "INSERT INTO FUNCTION s3(): write a new numbered object when the key exists.";
    "s3_ignore_file_doesnt_exist": Bool = "0", "s3(): return no rows instead of an error when the key does not exist.";
    "s3_max_connections": UInt64 = "1024", "Connections per S3 endpoint.";
    "s3_max_get_rps": UInt64 = "0", "Limit of S3 GET requests per second (0: none).";
    "s3_max_inflight_parts_for_one_file": UInt64 = "20", "Parts of one multipart upload sent concurrently.";
    "s3_max_put_rps": UInt64 = "0", "Limit of S3 PUT requests per second (0: none).";
    "s3_max_single_part_upload_size": UInt64 = "33554432", "Objects up to this size are uploaded in one PUT.";
    "s3_max_single_read_retries": UInt64 = "4", "Retries of one S3 read.";
    "s3_min_upload_part_size": UInt64 = "16777216", "Minimum part size of multipart uploads.";
    "s3_request_timeout_ms": UInt64 = "30000", "Timeout of one S3 request.";
    "s3_retry_attempts": UInt64 = "500", "Retries of a failed S3 request.";
    "s3_skip_empty_files": Bool = "1", "s3(): skip empty objects.";
    "s3_throw_on_zero_files_match": Bool = "0", "s3(): error when a glob matches no object.";
    "s3_truncate_on_insert": Bool = "0", "INSERT INTO FUNCTION s3(): overwrite an existing object instead of failing.";
    "s3_use_adaptive_timeouts": Bool = "1", "Shorter timeouts for first attempts of S3 requests.";
    "schema_inference_make_columns_nullable": UInt64 = "3", "Make inferred columns Nullable (0: never).";
    "schema_inference_use_cache_for_azure": Bool = "1", "Cache inferred schemas of azureBlobStorage().";
    "schema_inference_use_cache_for_file": Bool = "1", "Cache inferred schemas of file().";
    "schema_inference_use_cache_for_s3": Bool = "1", "Cache inferred schemas of s3().";
    "schema_inference_use_cache_for_url": Bool = "1", "Cache inferred schemas of url().";
    "send_logs_level": String = "fatal", "Send server logs of this level and higher to the client.";
    "send_progress_in_http_headers": Bool = "0", "Send X-ClickHouse-Progress headers while the query runs.";
    "session_timezone": String = "", "The time zone of this session (empty: the server's).";
    "use_hive_partitioning": Bool = "1", "file(), s3(), url(), azureBlobStorage(): `name=value` directories in the matched paths are columns of the table (and prune the files read by WHERE).";
    "use_skip_indexes": Bool = "1", "MergeTree reads skip granules by the table's data-skipping indexes.";
    "use_top_k_dynamic_filtering": Bool = "1", "ORDER BY ... LIMIT n: the scan drops rows that cannot be among the n best found so far, before reading their other columns.";
    "use_uncompressed_cache": Bool = "0", "Read MergeTree blocks through the server's uncompressed-block cache (uncompressed_cache_size): short queries on hot data skip reading and decompressing.";
    "use_variant_as_common_type": Bool = "0", "Granary has no Variant type: UNION branches (and if/multiIf) of types without a common supertype fail with NO_COMMON_TYPE, as ClickHouse with this setting at 0; 1 is not supported.";
    "wait_end_of_query": Bool = "0", "Buffer the whole response on the server before sending it.";
    "wait_for_async_insert": Bool = "1", "Asynchronous inserts: 1 acknowledges an INSERT only once its batch is durable in a part; 0 acknowledges it when queued (its rows are lost if the server dies before the batch is written).";
    "wait_for_async_insert_timeout": Seconds = "120", "Asynchronous inserts: how long an INSERT waits for its batch to be written before it fails with TIMEOUT_EXCEEDED (the batch is still written).";
}

/// Looks a setting up in the registry.
pub fn find_setting(name: &str) -> Option<&'static SettingDef> {
    SETTINGS_INDEX.get(name).copied()
}

/// The registry by name. Every request reads dozens of settings (output format, limits,
/// logging); a hash lookup costs a fraction of a binary search's string compares.
static SETTINGS_INDEX: std::sync::LazyLock<std::collections::HashMap<&'static str, &'static SettingDef, foldhash::fast::FixedState>> =
    std::sync::LazyLock::new(|| SETTINGS_REGISTRY.iter().map(|def| (def.name, def)).collect());

/// Session or query settings: the registry defaults plus the values that were changed.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    changed: Arc<BTreeMap<&'static str, String>>,
}

impl Settings {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a setting after checking its name and normalising its value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let def = find_setting(name).ok_or_else(|| {
            Error::new(ErrorCode::UNKNOWN_SETTING, format!("Setting {name} is neither a builtin setting nor started with the prefix 'custom_' registered for user-defined settings"))
        })?;
        let normalised = normalise(def, value)?;
        Arc::make_mut(&mut self.changed).insert(def.name, normalised);
        Ok(())
    }

    /// Whether `name` is a known setting (used to tell settings from other URL parameters).
    pub fn is_known(name: &str) -> bool {
        find_setting(name).is_some()
    }

    /// The current value as text (defaults included).
    pub fn get(&self, name: &str) -> Option<&str> {
        if let Some(v) = self.changed.get(name) {
            return Some(v.as_str());
        }
        find_setting(name).map(|d| d.default)
    }

    pub fn is_changed(&self, name: &str) -> bool {
        self.changed.contains_key(name)
    }

    /// Changed settings, for logging and `system.settings`.
    pub fn changed(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.changed.iter().map(|(k, v)| (*k, v.as_str()))
    }

    pub fn get_u64(&self, name: &str) -> u64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(0)
    }

    pub fn get_i64(&self, name: &str) -> i64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(0)
    }

    pub fn get_f64(&self, name: &str) -> f64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    }

    pub fn get_bool(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| v == "1")
    }

    pub fn get_str(&self, name: &str) -> &str {
        self.get(name).unwrap_or("")
    }

    /// `max_threads` resolved: 0 means every core.
    pub fn max_threads(&self) -> usize {
        match self.get_u64("max_threads") {
            0 => cores(),
            n => n as usize,
        }
    }

    /// `max_insert_threads` resolved: 0 means `max_threads` (ClickHouse's `auto`).
    pub fn max_insert_threads(&self) -> usize {
        match self.get_u64("max_insert_threads") {
            0 => self.max_threads(),
            n => n as usize,
        }
    }

    /// `max_execution_time` as a duration, `None` when unlimited.
    pub fn max_execution_time(&self) -> Option<std::time::Duration> {
        let secs = self.get_f64("max_execution_time");
        (secs > 0.0).then(|| std::time::Duration::from_secs_f64(secs))
    }
}

/// The number of cores, read once: `available_parallelism` reads cgroup files, which
/// cost more than planning a small query.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

fn normalise(def: &SettingDef, value: &str) -> Result<String> {
    let raw = value.trim();
    let unquoted = raw.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).unwrap_or(raw);
    let bad = || {
        Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Cannot parse value '{value}' of setting {} as {}", def.name, def.kind.type_name()),
        )
    };
    // ClickHouse reads a number as far as it can and then expects the end of the text.
    let not_a_number = || Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected 'eof' before: '{unquoted}'"));
    Ok(match def.kind {
        // String values keep their blanks: a tab or a line feed is a valid delimiter
        // (`format_csv_delimiter`, `format_custom_*`).
        SettingKind::String if raw.len() >= 2 && raw.starts_with('\'') && raw.ends_with('\'') => unquoted.to_string(),
        SettingKind::String => value.to_string(),
        SettingKind::DateTimeOutputFormat | SettingKind::DateTimeInputFormat => {
            let allowed = def.kind.allowed_values();
            if !allowed.contains(&unquoted) {
                let list = allowed.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ");
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Unexpected value of {}: '{unquoted}'. Must be one of [{list}]", def.kind.type_name()),
                ));
            }
            unquoted.to_string()
        }
        SettingKind::Bool => match unquoted.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" | "enable" => "1".into(),
            "0" | "false" | "no" | "off" | "disable" => "0".into(),
            _ => return Err(Error::new(ErrorCode::CANNOT_PARSE_BOOL, format!("Cannot parse bool from string '{unquoted}'"))),
        },
        SettingKind::UInt64 | SettingKind::Milliseconds => parse_unsigned_setting(unquoted)?.to_string(),
        SettingKind::NonZeroUInt64 => match parse_unsigned_setting(unquoted)? {
            0 => return Err(bad()),
            n => n.to_string(),
        },
        SettingKind::MaxThreads => {
            if unquoted.eq_ignore_ascii_case("auto") || unquoted.starts_with("'auto") {
                "0".into()
            } else if let Some(inner) = unquoted.strip_prefix("auto(").and_then(|v| v.strip_suffix(')')) {
                inner.parse::<u64>().map_err(|_| bad())?.to_string()
            } else {
                parse_unsigned_setting(unquoted)?.to_string()
            }
        }
        SettingKind::Int64 => unquoted.parse::<i64>().map_err(|_| not_a_number())?.to_string(),
        SettingKind::Float | SettingKind::Seconds => {
            let v: f64 = unquoted
                .parse()
                .map_err(|_| Error::new(ErrorCode::CANNOT_PARSE_NUMBER, format!("Cannot read floating point value here: {unquoted}")))?;
            if !v.is_finite() {
                return Err(bad());
            }
            unquoted.to_string()
        }
    })
}

/// An unsigned setting's value, with ClickHouse's errors: a negative number is out of
/// range, trailing text is a parse error naming it; a fractional number is truncated.
fn parse_unsigned_setting(text: &str) -> Result<u64> {
    if let Some(n) = parse_number_with_suffix(text) {
        return Ok(n);
    }
    if text.starts_with('-') && text[1..].parse::<f64>().is_ok() {
        return Err(Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Field value {text} is out of range of unsigned long type")));
    }
    if text.contains('.') {
        if let Ok(v) = text.parse::<f64>() {
            if v.is_finite() && v >= 0.0 && v < u64::MAX as f64 {
                return Ok(v as u64);
            }
        }
    }
    let rest = text.trim_start_matches(|c: char| c.is_ascii_digit());
    Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected 'eof' before: '{rest}'")))
}

/// Accepts plain integers and ClickHouse's size suffixes (`10M`, `1Gi`, `1_000`).
fn parse_number_with_suffix(text: &str) -> Option<u64> {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    if let Ok(n) = cleaned.parse::<u64>() {
        return Some(n);
    }
    let split = cleaned.find(|c: char| !c.is_ascii_digit())?;
    let (digits, suffix) = cleaned.split_at(split);
    let base: u64 = digits.parse().ok()?;
    let factor: u64 = match suffix {
        "K" | "k" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        "Ki" | "KiB" => 1 << 10,
        "Mi" | "MiB" => 1 << 20,
        "Gi" | "GiB" => 1 << 30,
        "Ti" | "TiB" => 1 << 40,
        _ => return None,
    };
    base.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_for_binary_search() {
        for pair in SETTINGS_REGISTRY.windows(2) {
            assert!(pair[0].name < pair[1].name, "{} must sort before {}", pair[0].name, pair[1].name);
        }
    }

    #[test]
    fn defaults_are_valid_values_of_their_type() {
        for def in SETTINGS_REGISTRY {
            normalise(def, def.default).unwrap_or_else(|e| panic!("{}: {e}", def.name));
        }
    }

    #[test]
    fn string_values_keep_their_blanks() {
        let mut s = Settings::new();
        s.set("format_csv_delimiter", "\t").unwrap();
        assert_eq!(s.get("format_csv_delimiter"), Some("\t"));
        s.set("format_custom_row_after_delimiter", "'\n'").unwrap();
        assert_eq!(s.get("format_custom_row_after_delimiter"), Some("\n"));
    }

    #[test]
    fn set_validates() {
        let mut s = Settings::new();
        s.set("max_threads", "auto").unwrap();
        assert_eq!(s.get("max_threads"), Some("0"));
        s.set("max_insert_block_size", "10M").unwrap();
        assert_eq!(s.get_u64("max_insert_block_size"), 10_000_000);
        s.set("use_uncompressed_cache", "true").unwrap();
        assert!(s.get_bool("use_uncompressed_cache"));
        assert_eq!(s.set("no_such_setting", "1").unwrap_err().code(), ErrorCode::UNKNOWN_SETTING);
        assert_eq!(s.set("max_threads", "many").unwrap_err().code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
        assert_eq!(s.set("max_block_size", "-1").unwrap_err().code(), ErrorCode::CANNOT_CONVERT_TYPE);
        assert_eq!(s.set("use_uncompressed_cache", "maybe").unwrap_err().code(), ErrorCode::CANNOT_PARSE_BOOL);
        assert_eq!(s.set("max_execution_time", "soon").unwrap_err().code(), ErrorCode::CANNOT_PARSE_NUMBER);
        s.set("max_block_size", "1.5").unwrap();
        assert_eq!(s.get_u64("max_block_size"), 1);
        s.set("date_time_output_format", "iso").unwrap();
        let bad = s.set("date_time_output_format", "bad").unwrap_err();
        assert_eq!(bad.code(), ErrorCode::BAD_ARGUMENTS);
        assert!(bad.message().contains("Unexpected value of DateTimeOutputFormat: 'bad'"), "{}", bad.message());
    }

    #[test]
    fn clones_are_independent() {
        let mut a = Settings::new();
        a.set("max_threads", "2").unwrap();
        let mut b = a.clone();
        b.set("max_threads", "3").unwrap();
        assert_eq!(a.get_u64("max_threads"), 2);
        assert_eq!(b.get_u64("max_threads"), 3);
    }
}
