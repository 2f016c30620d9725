//! Virtual columns of table engines (MergeTree's `_part`, `_part_offset`, ...).
//!
//! ClickHouse lets a query read them by name while keeping them out of `SELECT *`,
//! `DESCRIBE` and INSERT column lists. DataFusion has no hidden columns, so a table
//! shows them to the planner only while a query that names one of them is planned: the
//! query layer runs such a query inside [`scope`], and [`crate::EngineTableProvider`]
//! appends the engine's [`crate::TableEngine::virtual_columns`] to the schema it reports
//! then. Their fields carry [`VIRTUAL_METADATA_KEY`], by which the query layer leaves
//! them out of the `*` of the table's own SELECT.

use std::cell::Cell;
use std::future::Future;

/// Field metadata marking a virtual column.
pub const VIRTUAL_METADATA_KEY: &str = "granary.virtual";

/// Field metadata with a virtual column's comment and codec, for DESCRIBE.
pub const COMMENT_METADATA_KEY: &str = "granary.virtual.comment";
pub const CODEC_METADATA_KEY: &str = "granary.virtual.codec";

/// Every virtual column name an engine may have (the query text is checked for them).
pub const NAMES: [&str; 22] = [
    "_part",
    "_part_index",
    "_part_starting_offset",
    "_part_uuid",
    "_partition_id",
    "_sample_factor",
    "_part_offset",
    "_part_granule_offset",
    "_part_data_version",
    "_disk_name",
    "_distance",
    "_table",
    "_database",
    "_partition_value",
    "_row_exists",
    "_block_number",
    "_block_offset",
    // File, URL and S3 tables.
    "_path",
    "_file",
    "_size",
    "_time",
    "_etag",
];

tokio::task_local! {
    static VISIBLE: Cell<bool>;
}

/// Runs `future` (the execution of one query) with virtual columns shown to the planner
/// when `visible`.
pub async fn scope<F: Future>(visible: bool, future: F) -> F::Output {
    VISIBLE.scope(Cell::new(visible), future).await
}

/// Shows virtual columns for the rest of the current query: a view it reads names one.
pub fn show() {
    let _ = VISIBLE.try_with(|v| v.set(true));
}

/// Whether tables planned now show their virtual columns.
pub fn visible() -> bool {
    VISIBLE.try_with(|v| v.get()).unwrap_or(false)
}

/// Whether a query text names a virtual column (a token check: a false positive only
/// shows the columns to the planner, and `*` still leaves them out).
pub fn mentioned_in(sql: &str) -> bool {
    let bytes = sql.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    sql.match_indices('_').any(|(start, _)| {
        if start > 0 && is_word(bytes[start - 1]) {
            return false;
        }
        let end = start + bytes[start..].iter().position(|&b| !is_word(b)).unwrap_or(bytes.len() - start);
        NAMES.contains(&&sql[start..end])
    })
}

/// The field of virtual column `name` of type `ch_type`, with the comment and codec
/// DESCRIBE shows for it (empty: none).
pub fn field(name: &str, ch_type: &granary_types::ChType, comment: &str, codec: &str) -> arrow::datatypes::FieldRef {
    let field = ch_type.to_arrow_field(name);
    let mut metadata = field.metadata().clone();
    metadata.insert(VIRTUAL_METADATA_KEY.to_string(), "1".to_string());
    for (key, value) in [(COMMENT_METADATA_KEY, comment), (CODEC_METADATA_KEY, codec)] {
        if !value.is_empty() {
            metadata.insert(key.to_string(), value.to_string());
        }
    }
    std::sync::Arc::new(field.with_metadata(metadata))
}

/// The comment and codec DESCRIBE shows for virtual column `field`.
pub fn description(field: &arrow::datatypes::Field) -> (&str, &str) {
    let get = |key: &str| field.metadata().get(key).map_or("", |v| v.as_str());
    (get(COMMENT_METADATA_KEY), get(CODEC_METADATA_KEY))
}

/// Whether `field` is a virtual column.
pub fn is_virtual(field: &arrow::datatypes::Field) -> bool {
    field.metadata().contains_key(VIRTUAL_METADATA_KEY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_whole_names_only() {
        assert!(mentioned_in("SELECT _part, count() FROM t GROUP BY _part"));
        assert!(mentioned_in("SELECT * FROM t WHERE _partition_id='1'"));
        assert!(mentioned_in("select t._part_offset from t"));
        assert!(mentioned_in("SELECT _block_number, _row_exists FROM t"));
        assert!(mentioned_in("SELECT count() FROM t WHERE _sample_factor=1"));
        assert!(!mentioned_in("SELECT my_part, _parts, x_table, a_block_number FROM t"));
        assert!(!mentioned_in("SELECT * FROM _partitions"));
    }

    #[tokio::test]
    async fn visible_only_inside_a_scope() {
        assert!(!visible());
        assert!(scope(true, async { visible() }).await);
        assert!(!scope(false, async { visible() }).await);
        assert!(scope(false, async {
            show();
            visible()
        })
        .await);
    }
}
