#![allow(clippy::unwrap_used)]
//! TTL through the engine contract: `ttl.txt` in parts, expired rows kept by INSERT and
//! removed by OPTIMIZE FINAL, column values reset, MATERIALIZE TTL and CLEAR COLUMN as
//! mutations, and parts' TTL ranges read back after a reopen.
mod common;

use std::sync::Arc;

use arrow::array::*;
use arrow::record_batch::RecordBatch;
use common::{meta, Fixture};
use granary_common::Settings;
use granary_storage::{OptimizeRequest, RuleMutation};

const PAST: i64 = 946_684_800; // 2000-01-01
const FUTURE: i64 = 4_102_444_800; // 2100-01-01

fn batch(schema: arrow::datatypes::SchemaRef, rows: &[(i64, u64, &str)]) -> RecordBatch {
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.1))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.2))),
        ],
    )
    .unwrap()
}

async fn rows(fx: &Fixture) -> Vec<(u64, String)> {
    let (batches, _) = fx.sql("SELECT k, v FROM t ORDER BY k", 1).await;
    batches
        .iter()
        .flat_map(|b| {
            let k = b.column(0).as_any().downcast_ref::<UInt64Array>().unwrap().clone();
            let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap().clone();
            (0..b.num_rows()).map(move |i| (k.value(i), v.value(i).to_string()))
        })
        .collect()
}

fn optimize_final() -> OptimizeRequest {
    OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }
}

#[tokio::test]
async fn ttl_applies_on_merge_and_mutations_and_parts_keep_their_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = meta(&[("d", "DateTime"), ("k", "UInt64"), ("v", "String")], Some("k"), None, &[]);
    m.engine.ttl = Some("d + toIntervalDay(1), d + toIntervalYear(1) WHERE k > 100".into());
    m.columns[2].ttl = Some("d + toIntervalHour(1)".into());
    m.columns[2].default_kind = Some("DEFAULT".into());
    m.columns[2].default_expression = Some("'gone'".into());
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let engine = fx.table().engine.clone();
    engine.set_merges_enabled(false);
    fx.insert(vec![Ok(batch(schema.clone(), &[(PAST, 1, "a"), (FUTURE, 2, "b"), (FUTURE, 200, "c")]))], Settings::new()).await.unwrap();
    // An INSERT keeps expired rows until a merge, as ClickHouse does.
    assert_eq!(rows(&fx).await.len(), 3);
    let parts = engine.parts();
    assert_eq!(parts[0].delete_ttl_info, (PAST + 86_400, FUTURE + 86_400));
    let ttl_txt = std::fs::read_to_string(fx.data_dir().join(&parts[0].name).join("ttl.txt")).unwrap();
    assert!(ttl_txt.starts_with("ttl format version: 1\n{\"columns\":[{\"name\":\"v\",\"min\":946688400,"), "{ttl_txt}");
    assert!(ttl_txt.contains("\"rows_where\":[{\"expression\":\"d + toIntervalYear(1)\""), "{ttl_txt}");
    engine.set_merges_enabled(true);
    engine.optimize(optimize_final()).await.unwrap();
    assert_eq!(rows(&fx).await, vec![(2, "b".to_string()), (200, "c".to_string())]);
    assert_eq!(engine.parts()[0].delete_ttl_info, (FUTURE + 86_400, FUTURE + 86_400));
    // A column value expired at insert is reset by MATERIALIZE TTL; the row stays.
    // Two hours ago: past the column's hour, not the row's day.
    let recent = granary_mergetree::ttl::unix_now() - 7200;
    fx.insert(vec![Ok(batch(schema.clone(), &[(recent, 3, "x")]))], Settings::new()).await.unwrap();
    engine.mutate_by_rule(RuleMutation::MaterializeTtl { partition: None }, true).await.unwrap();
    assert_eq!(rows(&fx).await, vec![(2, "b".to_string()), (3, "gone".to_string()), (200, "c".to_string())]);
    engine.mutate_by_rule(RuleMutation::ClearColumn { column: "v".into(), partition: None }, true).await.unwrap();
    assert_eq!(rows(&fx).await.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(), ["gone", "gone", "gone"]);
    let commands: Vec<String> = engine.mutations().into_iter().map(|m| m.command).collect();
    assert_eq!(commands, ["(MATERIALIZE TTL)", "(CLEAR COLUMN v)"]);
    let before: Vec<(i64, i64)> = engine.parts().iter().map(|p| p.delete_ttl_info).collect();
    drop(engine);
    let fx = fx.reopen();
    assert_eq!(fx.table().engine.parts().iter().map(|p| p.delete_ttl_info).collect::<Vec<_>>(), before);
}

#[tokio::test]
async fn rules_are_checked_when_the_table_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = common::open_catalog(dir.path());
    let cases = [
        ("d + toIntervalDay(1) TO DISK 'other'", granary_common::ErrorCode::BAD_TTL_EXPRESSION),
        ("k", granary_common::ErrorCode::BAD_TTL_EXPRESSION),
        ("toDateTime('2000-01-01 00:00:00')", granary_common::ErrorCode::BAD_ARGUMENTS),
        ("d, d + toIntervalDay(1)", granary_common::ErrorCode::BAD_TTL_EXPRESSION),
        ("d + 1 GROUP BY d", granary_common::ErrorCode::BAD_TTL_EXPRESSION),
        ("d GROUP BY k SET k = 1", granary_common::ErrorCode::BAD_TTL_EXPRESSION),
    ];
    for (ttl, code) in cases {
        let mut m = meta(&[("d", "DateTime"), ("k", "UInt64")], Some("k"), None, &[]);
        m.engine.ttl = Some(ttl.into());
        assert_eq!(catalog.create_table(m, false).unwrap_err().code(), code, "{ttl}");
    }
    let mut m = meta(&[("d", "DateTime"), ("k", "UInt64")], Some("k"), None, &[]);
    m.columns[1].ttl = Some("d + toIntervalDay(1)".into());
    assert_eq!(catalog.create_table(m, false).unwrap_err().code(), granary_common::ErrorCode::ILLEGAL_COLUMN);
}

/// A key's expired rows are collapsed even when they span several merge blocks and
/// parts, and an unexpired row of the key ends the run, as in ClickHouse.
#[tokio::test]
async fn group_by_ttl_collapses_runs_across_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = meta(&[("d", "DateTime"), ("k", "UInt64"), ("v", "String")], Some("k"), None, &[("merge_max_block_size", "2")]);
    m.engine.ttl = Some("d GROUP BY k SET v = max(v)".into());
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let engine = fx.table().engine.clone();
    engine.set_merges_enabled(false);
    fx.insert(vec![Ok(batch(schema.clone(), &[(PAST, 1, "a"), (PAST, 1, "c"), (PAST, 1, "b"), (PAST, 2, "x")]))], Settings::new()).await.unwrap();
    fx.insert(vec![Ok(batch(schema.clone(), &[(PAST, 1, "d"), (FUTURE, 3, "f"), (PAST, 3, "e"), (PAST, 3, "g")]))], Settings::new()).await.unwrap();
    engine.set_merges_enabled(true);
    engine.optimize(optimize_final()).await.unwrap();
    let got = rows(&fx).await;
    let ks: Vec<u64> = got.iter().map(|r| r.0).collect();
    assert_eq!(ks, vec![1, 2, 3, 3], "{got:?}");
    assert!(got.contains(&(1, "d".to_string())) && got.contains(&(2, "x".to_string())) && got.contains(&(3, "f".to_string())) && got.contains(&(3, "g".to_string())), "{got:?}");
    let infos = engine_part_ttl(&fx);
    assert_eq!(infos.len(), 1);
    assert!(infos[0].contains("\"group_by\":[{\"expression\":\"d\""), "{}", infos[0]);
}

fn engine_part_ttl(fx: &Fixture) -> Vec<String> {
    let parts = fx.table().engine.parts();
    parts.iter().filter(|p| p.active).filter_map(|p| std::fs::read_to_string(fx.data_dir().join(&p.name).join("ttl.txt")).ok()).collect()
}
