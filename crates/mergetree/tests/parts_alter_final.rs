#![allow(clippy::unwrap_used)]
//! system.parts rows, CHECK TABLE, partition commands, DELETE mutations, FINAL,
//! SYSTEM STOP/START MERGES and old_parts_lifetime, through the engine contract.
mod common;

use std::sync::Arc;

use arrow::array::*;
use arrow::record_batch::RecordBatch;
use common::{meta, Fixture};
use granary_common::{ErrorCode, Settings};
use granary_storage::{DeleteRequest, OptimizeRequest, PartitionCommand};

fn no_merges() -> (&'static str, &'static str) {
    ("max_bytes_to_merge_at_max_space_in_pool", "1")
}

/// `(d UInt32, id UInt64, v Int64)` partitioned by `d`.
fn batch(schema: arrow::datatypes::SchemaRef, rows: &[(u32, u64, i64)]) -> RecordBatch {
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.1))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.2))),
        ],
    )
    .unwrap()
}

fn table(dir: &std::path::Path, engine: &str, settings: &[(&str, &str)]) -> (Fixture, arrow::datatypes::SchemaRef) {
    let mut m = meta(&[("d", "UInt32"), ("id", "UInt64"), ("v", "Int64")], Some("id"), Some("d"), settings);
    m.engine.name = engine.into();
    let schema = m.schema().unwrap();
    (Fixture::create(dir, m), schema)
}

fn column_i64(batches: &[RecordBatch], col: usize) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            let c = arrow::compute::cast(b.column(col), &arrow::datatypes::DataType::Int64).unwrap();
            c.as_any().downcast_ref::<Int64Array>().unwrap().values().to_vec()
        })
        .collect()
}

#[tokio::test]
async fn parts_are_described_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (fx, schema) = table(dir.path(), "MergeTree", &[no_merges(), ("index_granularity", "100"), ("min_bytes_for_wide_part", "0")]);
    let rows: Vec<(u32, u64, i64)> = (0..1000).map(|i| (if i < 500 { 1 } else { 2 }, i, i as i64)).collect();
    fx.insert(vec![Ok(batch(schema.clone(), &rows))], Settings::new()).await.unwrap();
    let engine = fx.table().engine.clone();
    let parts = engine.parts();
    assert_eq!(parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), vec!["1_1_1_0", "2_2_2_0"]);
    let p = &parts[0];
    assert_eq!((p.partition.as_str(), p.partition_id.as_str(), p.rows, p.marks, p.level), ("1", "1", 500, 6, 0));
    assert_eq!(p.part_type, "Wide");
    assert!(p.active && p.data_compressed_bytes > 0 && p.data_uncompressed_bytes >= 500 * (4 + 8 + 8));
    assert!(p.bytes_on_disk > p.data_compressed_bytes + p.marks_bytes && p.files == 12, "{p:?}");
    assert!(p.path.ends_with("/1_1_1_0/") && p.modification_time > 0);
    let check = engine.check(None).await.unwrap();
    assert_eq!(check.len(), 2);
    assert!(check.iter().all(|c| c.is_passed && c.message.is_empty()));

    // Damage after load: CHECK TABLE names the part and why; a read fails clearly
    // instead of serving wrong rows.
    let bin = fx.data_dir().join("2_2_2_0").join("v.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&bin, bytes).unwrap();
    let check = engine.check(None).await.unwrap();
    assert!(check[0].is_passed);
    assert!(!check[1].is_passed && check[1].message.contains("checksum of v.bin doesn't match"), "{check:?}");
    assert_eq!(engine.check(Some("2".into())).await.unwrap().len(), 1);
    let table = fx.table();
    let scan = async {
        let ctx = datafusion::prelude::SessionContext::new();
        ctx.register_table("t", Arc::new(granary_storage::EngineTableProvider::new(table))).unwrap();
        ctx.sql("SELECT sum(v) FROM t").await.unwrap().collect().await
    };
    let err = scan.await.unwrap_err().to_string();
    assert!(err.contains("hecksum") || err.contains("CHECKSUM"), "{err}");
    // Truncated column file: CHECK TABLE reports the size.
    let bin = fx.data_dir().join("1_1_1_0").join("id.bin");
    let len = std::fs::metadata(&bin).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&bin).unwrap().set_len(len - 3).unwrap();
    let check = engine.check(None).await.unwrap();
    assert!(!check[0].is_passed && check[0].message.contains("id.bin has"), "{check:?}");
    assert_eq!(engine.check(Some("(1, 2)".into())).await.unwrap_err().code(), ErrorCode::INVALID_PARTITION_VALUE);
}

#[tokio::test]
async fn drop_detach_attach_partition() {
    let dir = tempfile::tempdir().unwrap();
    let (fx, schema) = table(dir.path(), "MergeTree", &[no_merges()]);
    for k in 0..3u64 {
        let rows: Vec<(u32, u64, i64)> = (0..30).map(|i| ((i % 3) as u32, k * 100 + i, 1)).collect();
        fx.insert(vec![Ok(batch(schema.clone(), &rows))], Settings::new()).await.unwrap();
    }
    let engine = fx.table().engine.clone();
    assert_eq!(fx.count().await, 90);
    engine.alter_partition(PartitionCommand::Drop { partition: "0".into() }).await.unwrap();
    assert_eq!(fx.count().await, 60);
    engine.alter_partition(PartitionCommand::Detach { partition: "1".into() }).await.unwrap();
    assert_eq!(fx.count().await, 30);
    let mut detached: Vec<String> =
        std::fs::read_dir(fx.data_dir().join("detached")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    detached.sort();
    assert_eq!(detached, vec!["1_2_2_0", "1_5_5_0", "1_8_8_0"]);
    // Survives a restart: dropped stays dropped, detached stays detached.
    let fx = fx.reopen();
    assert_eq!(fx.count().await, 30);
    let engine = fx.table().engine.clone();
    engine.alter_partition(PartitionCommand::Attach { partition: "1".into() }).await.unwrap();
    assert_eq!(fx.count().await, 60);
    let names: Vec<String> = engine.parts().iter().filter(|p| p.partition_id == "1").map(|p| p.name.clone()).collect();
    assert_eq!(names, vec!["1_10_10_0", "1_11_11_0", "1_12_12_0"]);
    let fx = fx.reopen();
    assert_eq!(fx.count().await, 60);
    let engine = fx.table().engine.clone();
    let err = engine.alter_partition(PartitionCommand::Drop { partition: "'x'".into() }).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::TYPE_MISMATCH, "{err}");
}

/// Parts `0_1_1_0` and `1_2_2_0`, 50 rows each (`v` 0 to 49), granules of 7 rows.
async fn two_partitions_of_50_rows(dir: &std::path::Path) -> Fixture {
    let (fx, schema) = table(dir, "MergeTree", &[no_merges(), ("index_granularity", "7")]);
    for k in 0..2u64 {
        let rows: Vec<(u32, u64, i64)> = (0..50).map(|i| (k as u32, k * 100 + i, i as i64)).collect();
        fx.insert(vec![Ok(batch(schema.clone(), &rows))], Settings::new()).await.unwrap();
    }
    fx
}

#[tokio::test]
async fn delete_where_gives_every_part_the_mutation_version() {
    let dir = tempfile::tempdir().unwrap();
    let fx = two_partitions_of_50_rows(dir.path()).await;
    let engine = fx.table().engine.clone();
    use std::os::unix::fs::MetadataExt;
    let inode = |part: &str| std::fs::metadata(fx.data_dir().join(part).join("data.bin")).unwrap().ino();
    let (untouched, rewritten) = (inode("0_1_1_0"), inode("1_2_2_0"));
    engine.delete_where(DeleteRequest { predicate: "v % 2 = 1 AND d = 1".into(), sync: true, lightweight: false }).await.unwrap();
    assert_eq!(fx.count().await, 75);
    let active: Vec<String> = engine.parts().iter().filter(|p| p.active).map(|p| p.name.clone()).collect();
    assert_eq!(active, vec!["0_1_1_0_3", "1_2_2_0_3"]);
    // The part without a matching row was not rewritten: its files are the old ones.
    assert_eq!(inode("0_1_1_0_3"), untouched);
    assert_ne!(inode("1_2_2_0_3"), rewritten);
    engine.delete_where(DeleteRequest { predicate: "d = 1".into(), sync: true, lightweight: false }).await.unwrap();
    assert_eq!(fx.count().await, 50);
    let active: Vec<String> = engine.parts().iter().filter(|p| p.active).map(|p| p.name.clone()).collect();
    assert_eq!(active, vec!["0_1_1_0_4"]);
    let fx = fx.reopen();
    assert_eq!(fx.count().await, 50);
    let statuses: Vec<(String, bool)> = fx.table().engine.mutations().into_iter().map(|m| (m.mutation_id, m.is_done)).collect();
    assert_eq!(statuses, vec![("mutation_3.txt".to_string(), true), ("mutation_4.txt".to_string(), true)]);
    let engine = fx.table().engine.clone();
    let err = engine.delete_where(DeleteRequest { predicate: "v + 1".into(), sync: true, lightweight: false }).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT);
    assert!(engine.delete_where(DeleteRequest { predicate: "nope = 1".into(), sync: true, lightweight: false }).await.is_err());
}

/// `DELETE FROM`: a mask column written into the parts with matching rows (wide and
/// compact), their other files hard links; every read leaves the masked rows out, a
/// merge drops them and the mask, a reopened table keeps it.
#[tokio::test]
async fn lightweight_delete_masks_rows_until_a_merge() {
    let dir = tempfile::tempdir().unwrap();
    let fx = two_partitions_of_50_rows(dir.path()).await;
    let engine = fx.table().engine.clone();
    use std::os::unix::fs::MetadataExt;
    let inode = |part: &str, file: &str| std::fs::metadata(fx.data_dir().join(part).join(file)).unwrap().ino();
    let data = inode("1_2_2_0", "data.bin");
    engine.delete_where(DeleteRequest { predicate: "v % 2 = 1 AND d = 1".into(), sync: true, lightweight: true }).await.unwrap();
    assert_eq!(fx.count().await, 75);
    let parts = engine.parts();
    let active: Vec<(String, u64, bool)> = parts.iter().filter(|p| p.active).map(|p| (p.name.clone(), p.rows, p.has_lightweight_delete)).collect();
    assert_eq!(active, vec![("0_1_1_0_3".to_string(), 50, false), ("1_2_2_0_3".to_string(), 50, true)]);
    assert_eq!(inode("1_2_2_0_3", "data.bin"), data);
    assert_eq!(engine.total_rows(), Some(75));
    let (batches, _) = fx.sql("SELECT v FROM t WHERE d = 1 AND v < 6 ORDER BY v", 1).await;
    assert_eq!(column_i64(&batches, 0), vec![0, 2, 4]);
    let mut shown = Settings::new();
    shown.set("apply_deleted_mask", "0").unwrap();
    let batches = fx.sql_with("SELECT count() FROM t", shown).await;
    assert_eq!(column_i64(&batches, 0), vec![100]);
    // A second delete masks on top of the first.
    engine.delete_where(DeleteRequest { predicate: "v < 10".into(), sync: true, lightweight: true }).await.unwrap();
    assert_eq!(fx.count().await, 60);
    let fx = fx.reopen();
    assert_eq!(fx.count().await, 60);
    let engine = fx.table().engine.clone();
    engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    assert_eq!(fx.count().await, 60);
    let active: Vec<(u64, bool)> = engine.parts().iter().filter(|p| p.active).map(|p| (p.rows, p.has_lightweight_delete)).collect();
    assert_eq!(active, vec![(40, false), (20, false)]);
}

/// Integer columns are stored bit-packed (sorted ids in delta mode, small numbers against
/// their minimum); reads of every kind give the values back, and `system.parts` reports
/// the data's size unpacked.
#[tokio::test]
async fn packed_integer_columns_read_back_and_report_unpacked_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let (fx, schema) = table(dir.path(), "MergeTree", &[no_merges(), ("index_granularity", "1000"), ("min_bytes_for_wide_part", "0")]);
    let rows: Vec<(u32, u64, i64)> = (0..100_000u64).map(|i| (7, 1_000_000 + i, (i % 100) as i64 - 50)).collect();
    fx.insert(vec![Ok(batch(schema.clone(), &rows))], Settings::new()).await.unwrap();
    let p = &fx.table().engine.parts()[0];
    assert!(p.data_uncompressed_bytes >= 100_000 * (4 + 8 + 8), "{p:?}");
    // Unpacked and LZ4 alone, the ids would take about 800 KB.
    assert!(p.data_compressed_bytes < 150_000, "{p:?}");
    let id = p.columns.iter().find(|c| c.name == "id").unwrap();
    assert!(id.data_compressed_bytes < 10_000 && id.data_uncompressed_bytes >= 800_000 && id.marks_bytes > 0, "{id:?}");
    assert_eq!(p.columns.iter().map(|c| c.data_compressed_bytes).sum::<u64>(), p.data_compressed_bytes);
    assert_eq!(p.columns.iter().map(|c| c.data_uncompressed_bytes).sum::<u64>(), p.data_uncompressed_bytes);
    let got = fx.sql_with("SELECT sum(id), min(v), max(v), sum(v), count() FROM t", Settings::new()).await;
    let sums: Vec<i64> = (0..5).map(|c| column_i64(&got, c)[0]).collect();
    assert_eq!(sums, vec![(1_000_000..1_100_000i64).sum(), -50, 49, -50_000, 100_000]);
    // A point lookup (one granule), a range across granules, and a filter on packed values.
    let got = fx.sql_with("SELECT v FROM t WHERE id = 1012345", Settings::new()).await;
    assert_eq!(column_i64(&got, 0), vec![45 - 50]);
    let got = fx.sql_with("SELECT id FROM t WHERE id BETWEEN 1000990 AND 1001010 ORDER BY id", Settings::new()).await;
    assert_eq!(column_i64(&got, 0), (1_000_990..=1_001_010).collect::<Vec<_>>());
    let got = fx.sql_with("SELECT count() FROM t WHERE v = 7", Settings::new()).await;
    assert_eq!(column_i64(&got, 0), vec![1000]);
    let check = fx.table().engine.check(None).await.unwrap();
    assert!(check.iter().all(|c| c.is_passed), "{check:?}");
}

#[tokio::test]
async fn final_collapses_at_read_time() {
    for engine_name in ["ReplacingMergeTree", "SummingMergeTree"] {
        let dir = tempfile::tempdir().unwrap();
        let (fx, schema) = table(dir.path(), engine_name, &[no_merges(), ("index_granularity", "4")]);
        for k in 0..3i64 {
            let rows: Vec<(u32, u64, i64)> = (0..20).map(|i| ((i % 2) as u32, i, k * 10 + 1)).collect();
            fx.insert(vec![Ok(batch(schema.clone(), &rows))], Settings::new()).await.unwrap();
        }
        assert_eq!(fx.count().await, 60, "{engine_name}: parts are not merged");
        let mut final_ = Settings::new();
        final_.set("final", "1").unwrap();
        let got = fx.sql_with("SELECT id, v FROM t ORDER BY id", final_.clone()).await;
        assert_eq!(column_i64(&got, 0), (0..20).collect::<Vec<_>>(), "{engine_name}");
        let expected = if engine_name == "ReplacingMergeTree" { 21 } else { 1 + 11 + 21 };
        assert!(column_i64(&got, 1).iter().all(|v| *v == expected), "{engine_name}: {:?}", column_i64(&got, 1));
        // Filters on the key still prune, and stay exact.
        let got = fx.sql_with("SELECT v FROM t WHERE id = 7", final_.clone()).await;
        assert_eq!(column_i64(&got, 0), vec![expected]);
        let got = fx.sql_with("SELECT count(*) FROM t WHERE v > 0", final_).await;
        assert_eq!(column_i64(&got, 0), vec![20]);
    }
}

#[tokio::test]
async fn stopped_merges_and_old_parts_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    let (fx, schema) = table(dir.path(), "MergeTree", &[("old_parts_lifetime", "3600")]);
    let engine = fx.table().engine.clone();
    engine.set_merges_enabled(false);
    for k in 0..2u64 {
        fx.insert(vec![Ok(batch(schema.clone(), &[(1, k, 1)]))], Settings::new()).await.unwrap();
    }
    let err = engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ABORTED);
    engine.set_merges_enabled(true);
    engine.optimize(OptimizeRequest { partition: Some("1".into()), final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    let parts: Vec<(String, bool)> = engine.parts().iter().map(|p| (p.name.clone(), p.active)).collect();
    assert_eq!(parts, vec![("1_1_1_0".into(), false), ("1_1_2_1".into(), true), ("1_2_2_0".into(), false)]);
    // Outdated parts are kept on disk for old_parts_lifetime ...
    assert_eq!(fx.part_dirs(), vec!["1_1_1_0", "1_1_2_1", "1_2_2_0"]);
    assert_eq!(fx.count().await, 2);
    // ... and a restart drops them, since the merged part covers them.
    let fx = fx.reopen();
    assert_eq!(fx.part_dirs(), vec!["1_1_2_1"]);
    assert_eq!(fx.count().await, 2);
}
