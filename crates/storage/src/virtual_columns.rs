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

/// Every virtual column name an engine may have (the query text is checked for them).
pub const NAMES: [&str; 8] = ["_part", "_part_index", "_part_offset", "_partition_id", "_partition_value", "_part_uuid", "_table", "_database"];

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
    sql.match_indices("_part").chain(sql.match_indices("_table")).chain(sql.match_indices("_database")).any(|(start, _)| {
        if start > 0 && is_word(bytes[start - 1]) {
            return false;
        }
        let end = start + bytes[start..].iter().position(|&b| !is_word(b)).unwrap_or(bytes.len() - start);
        NAMES.contains(&&sql[start..end])
    })
}

/// The field of virtual column `name` of type `ch_type`.
pub fn field(name: &str, ch_type: &granary_types::ChType) -> arrow::datatypes::FieldRef {
    let field = ch_type.to_arrow_field(name);
    let mut metadata = field.metadata().clone();
    metadata.insert(VIRTUAL_METADATA_KEY.to_string(), "1".to_string());
    std::sync::Arc::new(field.with_metadata(metadata))
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
        assert!(!mentioned_in("SELECT my_part, _parts, x_table FROM t"));
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
