#![allow(clippy::unwrap_used)]
mod common;

use std::sync::Arc;
use std::time::Instant;

use arrow::array::*;
use arrow::compute::{cast, concat_batches};
use arrow::datatypes::{DataType, Field};
use arrow::record_batch::RecordBatch;
use common::{meta, Fixture};
use granary_common::{Error, ErrorCode, Settings};
use granary_storage::OptimizeRequest;

fn no_merges() -> (&'static str, &'static str) {
    // Nothing fits in one byte: the selector never merges (OPTIMIZE FINAL still does).
    ("max_bytes_to_merge_at_max_space_in_pool", "1")
}

fn ids_batch(schema: arrow::datatypes::SchemaRef, ids: impl Iterator<Item = u64>) -> RecordBatch {
    let ids: Vec<u64> = ids.collect();
    let vals: Vec<String> = ids.iter().map(|i| format!("v{i}")).collect();
    RecordBatch::try_new(schema, vec![Arc::new(UInt64Array::from(ids)), Arc::new(StringArray::from(vals))]).unwrap()
}

fn u64s(batches: &[RecordBatch], col: usize) -> Vec<u64> {
    batches.iter().flat_map(|b| b.column(col).as_any().downcast_ref::<UInt64Array>().unwrap().values().to_vec()).collect()
}

#[tokio::test]
async fn every_type_round_trips_and_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let cols = [
        ("id", "UInt64"),
        ("i8", "Int8"),
        ("u16", "UInt16"),
        ("i32", "Int32"),
        ("i64", "Int64"),
        ("f32", "Float32"),
        ("f64", "Float64"),
        ("b", "Bool"),
        ("s", "String"),
        ("fs", "FixedString(3)"),
        ("d", "Date"),
        ("d32", "Date32"),
        ("dt", "DateTime"),
        ("dt64", "DateTime64(3)"),
        ("dec", "Decimal(10, 2)"),
        ("dec256", "Decimal(50, 4)"),
        ("ns", "Nullable(String)"),
        ("ni", "Nullable(Int32)"),
        ("lc", "LowCardinality(String)"),
        ("arr", "Array(Nullable(Int64))"),
        ("arrs", "Array(String)"),
    ];
    let m = meta(&cols, Some("id"), None, &[("index_granularity", "100")]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let n = 1000usize;
    // Rows are inserted in reverse so the engine has to sort them.
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values((0..n as i64).rev()));
    let small: ArrayRef = Arc::new(Int64Array::from_iter_values((0..n as i64).rev().map(|i| i % 100)));
    let mut columns: Vec<ArrayRef> = Vec::new();
    for field in schema.fields() {
        let a: ArrayRef = match field.data_type() {
            DataType::FixedSizeBinary(3) => {
                Arc::new(FixedSizeBinaryArray::try_from_iter((0..n).rev().map(|i| format!("{:03}", i % 1000).into_bytes())).unwrap())
            }
            DataType::List(f) if f.data_type() == &DataType::Int64 => {
                let mut b = ListBuilder::new(Int64Builder::new());
                for i in (0..n as i64).rev() {
                    for j in 0..(i % 4) {
                        b.values().append_option(if j == 1 { None } else { Some(i * 10 + j) });
                    }
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            DataType::List(_) => {
                let mut b = ListBuilder::new(StringBuilder::new()).with_field(Field::new("item", DataType::Utf8, false));
                for i in (0..n).rev() {
                    for j in 0..(i % 3) {
                        b.values().append_value(format!("e{i}_{j}"));
                    }
                    b.append(true);
                }
                Arc::new(b.finish())
            }
            DataType::Boolean => Arc::new(BooleanArray::from_iter((0..n).rev().map(|i| Some(i % 3 == 0)))),
            DataType::Utf8 if field.name() != "id" => Arc::new(StringArray::from_iter_values((0..n).rev().map(|i| format!("str-{i}-ü")))),
            other if field.name() == "id" => cast(&ids, other).unwrap(),
            other => cast(&small, other).unwrap(),
        };
        let a = if field.is_nullable() {
            let mask = BooleanArray::from_iter((0..n).rev().map(|i| Some(i % 3 == 1)));
            arrow::compute::nullif(&a, &mask).unwrap()
        } else {
            a
        };
        let f = Field::new(field.name(), a.data_type().clone(), field.is_nullable());
        assert_eq!(f.data_type(), field.data_type());
        columns.push(a);
    }
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    fx.insert(vec![Ok(batch.clone())], Settings::new()).await.unwrap();
    let expected = {
        let idx = UInt32Array::from_iter_values((0..n as u32).rev());
        arrow::compute::take_record_batch(&batch, &idx).unwrap()
    };
    for fx_ref in [&fx] {
        let (got, _) = fx_ref.sql("SELECT * FROM t", 1).await;
        let got = concat_batches(&schema, &got).unwrap();
        assert_eq!(got, expected);
    }
    let fx = fx.reopen();
    let (got, _) = fx.sql("SELECT * FROM t", 1).await;
    assert_eq!(concat_batches(&schema, &got).unwrap(), expected);
    // Codecs: a ZSTD and a NONE column read back the same.
    let dir2 = tempfile::tempdir().unwrap();
    let mut m2 = meta(&[("id", "UInt64"), ("s", "String")], Some("id"), None, &[]);
    m2.columns[0].codec = Some("CODEC(ZSTD(3))".into());
    m2.columns[1].codec = Some("CODEC(NONE)".into());
    let fx2 = Fixture::create(dir2.path(), m2.clone());
    fx2.insert(vec![Ok(ids_batch(m2.schema().unwrap(), 0..5000))], Settings::new()).await.unwrap();
    let (got, _) = fx2.sql("SELECT id FROM t", 1).await;
    assert_eq!(u64s(&got, 0), (0..5000).collect::<Vec<_>>());
}

#[tokio::test]
async fn codec_chains_round_trip_every_number_type_with_nulls() {
    let columns = [
        ("id", "UInt64", "CODEC(Delta, ZSTD(3))"),
        ("i8", "Int8", "CODEC(Delta(1), LZ4)"),
        ("u16", "Nullable(UInt16)", "CODEC(DoubleDelta)"),
        ("i32", "Int32", "CODEC(DoubleDelta, NONE)"),
        ("f32", "Float32", "CODEC(Gorilla)"),
        ("f64", "Nullable(Float64)", "CODEC(Gorilla, ZSTD)"),
        ("d", "Date", "CODEC(Delta, LZ4)"),
        ("ts", "DateTime64(3)", "CODEC(DoubleDelta, LZ4)"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<(&str, &str)> = columns.iter().map(|(n, t, _)| (*n, *t)).collect();
    let mut m = meta(&names, Some("id"), None, &[("index_granularity", "100")]);
    for (column, (_, _, codec)) in m.columns.iter_mut().zip(columns) {
        column.codec = Some(codec.into());
    }
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let n = 1000usize;
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(UInt64Array::from_iter_values((0..n as u64).map(|i| i * 1_000_003))),
        Arc::new(arrow::array::Int8Array::from_iter_values((0..n).map(|i| (i as i8).wrapping_mul(37)))),
        Arc::new(arrow::array::UInt16Array::from_iter((0..n).map(|i| (i % 7 != 0).then_some((i * 977) as u16)))),
        Arc::new(arrow::array::Int32Array::from_iter_values((0..n as i32).map(|i| i * i - 500_000))),
        Arc::new(arrow::array::Float32Array::from_iter_values((0..n).map(|i| (i as f32).sin()))),
        Arc::new(arrow::array::Float64Array::from_iter((0..n).map(|i| (i % 5 != 0).then_some(20.5 + i as f64 * 1e-3)))),
        Arc::new(arrow::array::Date32Array::from_iter_values((0..n as i32).map(|i| 19_000 + i / 10))),
        Arc::new(arrow::array::TimestampMillisecondArray::from_iter_values((0..n as i64).map(|i| 1_700_000_000_000 + i * 250)).with_timezone_opt(None::<String>)),
    ];
    let arrays: Vec<ArrayRef> = arrays.into_iter().zip(schema.fields()).map(|(a, f)| arrow::compute::cast(&a, f.data_type()).unwrap()).collect();
    let expected = RecordBatch::try_new(schema.clone(), arrays).unwrap();
    fx.insert(vec![Ok(expected.clone())], Settings::new()).await.unwrap();
    let (got, _) = fx.sql("SELECT * FROM t", 1).await;
    assert_eq!(concat_batches(&schema, &got).unwrap(), expected);
    // Merged parts are written with the same chains.
    fx.insert(vec![Ok(expected.clone())], Settings::new()).await.unwrap();
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    let (got, _) = fx.sql("SELECT * FROM t WHERE id % 3 = 0", 1).await;
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 2 * n.div_ceil(3));
}

#[tokio::test]
async fn point_lookup_reads_one_granule() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let n = 1_000_000u64;
    let start = Instant::now();
    // Shuffled order (a permutation) so sorting matters.
    let batches: Vec<_> = (0..10).map(|k| Ok(ids_batch(schema.clone(), (0..n / 10).map(move |i| (i * 10 + k) * 7919 % n)))).collect();
    fx.insert(batches, Settings::new()).await.unwrap();
    let insert_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (got, read) = fx.sql("SELECT id, v FROM t WHERE id = 500001", 2).await;
    let lookup = start.elapsed();
    let start = Instant::now();
    for i in 0..20u64 {
        let (got, _) = fx.sql(&format!("SELECT id, v FROM t WHERE id = {}", i * 49_999), 2).await;
        assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    }
    let warm = start.elapsed() / 20;
    eprintln!("insert: {:.0} rows/s; point lookup: first {lookup:?}, then {warm:?} each (SQL planning included); read_rows {read}", n as f64 / insert_s);
    assert_eq!(u64s(&got, 0), vec![500001]);
    assert_eq!(read, 8192, "one granule");
    let (_, read) = fx.sql("SELECT id FROM t WHERE id IN (5, 999999)", 2).await;
    // 1,000,000 rows leave 576 at the end. The part is wide (its rows take more than
    // min_bytes_for_wide_part), so as in ClickHouse they are a granule of their own (only
    // compact parts add a short tail to the previous granule).
    assert_eq!(read, 8192 + 576, "the first granule and the last (576 rows)");
    let (got, read) = fx.sql("SELECT count(*) FROM t WHERE id >= 100000 AND id < 120000", 2).await;
    assert!(read <= 4 * 8192, "{read}");
    assert_eq!(got[0].column(0).as_any().downcast_ref::<Int64Array>().unwrap().value(0), 20000);
    let (_, read) = fx.sql("SELECT count(*) FROM t WHERE id = 3 OR id > 999990", 2).await;
    assert_eq!(read, 8192 + 576, "the first granule and the last");
    assert_eq!(fx.count().await, n);
}

#[tokio::test]
async fn partitions_prune_and_are_named_like_clickhouse() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("d", "Date"), ("x", "UInt64")], Some("(d, x)"), Some("toYYYYMM(d)"), &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    // 2024-01-01 is day 19723; 91 days cover January to March.
    let days = Date32Array::from_iter_values((0..91).flat_map(|d| std::iter::repeat_n(19723 + d, 10)));
    let xs = UInt64Array::from_iter_values(0..910);
    let batch = RecordBatch::try_new(schema, vec![Arc::new(days), Arc::new(xs)]).unwrap();
    fx.insert(vec![Ok(batch)], Settings::new()).await.unwrap();
    assert_eq!(fx.part_dirs(), vec!["202401_1_1_0", "202402_2_2_0", "202403_3_3_0"]);
    let (got, read) = fx.sql("SELECT count(*) FROM t WHERE d >= '2024-03-01'", 2).await;
    assert_eq!(got[0].column(0).as_any().downcast_ref::<Int64Array>().unwrap().value(0), 310);
    assert_eq!(read, 310, "only the March part is read");
    // A second insert, then OPTIMIZE PARTITION 202402 FINAL merges only February.
    let days = Date32Array::from_iter_values((0..91).map(|d| 19723 + d));
    let xs = UInt64Array::from_iter_values(1000..1091);
    let batch = RecordBatch::try_new(fx.table().schema(), vec![Arc::new(days), Arc::new(xs)]).unwrap();
    fx.insert(vec![Ok(batch)], Settings::new()).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 6);
    fx.table().engine.optimize(OptimizeRequest { partition: Some("202402".into()), final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    assert_eq!(fx.part_dirs(), vec!["202401_1_1_0", "202401_4_4_0", "202402_2_5_1", "202403_3_3_0", "202403_6_6_0"]);
    assert_eq!(fx.count().await, 1001);
}

#[tokio::test]
async fn failed_insert_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let mut settings = Settings::new();
    settings.set("min_insert_block_size_rows", "100").unwrap();
    // Three blocks are written as parts before the stream fails.
    let batches = vec![
        Ok(ids_batch(schema.clone(), 0..100)),
        Ok(ids_batch(schema.clone(), 100..200)),
        Ok(ids_batch(schema.clone(), 200..300)),
        Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, "bad row")),
    ];
    let e = fx.insert(batches, settings.clone()).await.unwrap_err();
    assert_eq!(e.code(), ErrorCode::CANNOT_PARSE_TEXT);
    assert_eq!(fx.count().await, 0);
    let leftovers: Vec<_> = std::fs::read_dir(fx.data_dir()).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A good multi-part insert becomes visible as a whole, and survives a reopen.
    let good = vec![Ok(ids_batch(schema.clone(), 0..100)), Ok(ids_batch(schema.clone(), 100..200)), Ok(ids_batch(schema.clone(), 200..250))];
    fx.insert(good, settings).await.unwrap();
    // Block numbers are taken at publish (as ClickHouse does): the failed INSERT used none.
    assert_eq!(fx.part_dirs(), vec!["all_1_1_0", "all_2_2_0", "all_3_3_0"]);
    assert_eq!(fx.count().await, 250);
    let fx = fx.reopen();
    assert_eq!(fx.count().await, 250);
    // Block numbers continue after the existing parts.
    fx.insert(vec![Ok(ids_batch(schema.clone(), 0..1))], Settings::new()).await.unwrap();
    assert_eq!(fx.part_dirs().last().unwrap(), "all_4_4_0");
}

#[tokio::test]
async fn damaged_parts_are_detached_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges(), ("min_bytes_for_wide_part", "0")]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    for k in 0..3u64 {
        fx.insert(vec![Ok(ids_batch(schema.clone(), k * 1000..(k + 1) * 1000))], Settings::new()).await.unwrap();
    }
    let data = fx.data_dir();
    // Part 1: truncated .bin. Part 2: one flipped byte, same size.
    let bin1 = data.join("all_1_1_0").join("v.bin");
    let len = std::fs::metadata(&bin1).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&bin1).unwrap().set_len(len - 5).unwrap();
    let bin2 = data.join("all_2_2_0").join("id.bin");
    let mut bytes = std::fs::read(&bin2).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&bin2, bytes).unwrap();
    let fx = fx.reopen();
    // The truncated part is set aside at load (sizes are checked); the flipped byte is
    // found by the block checksum when read (loading does not read column data).
    assert_eq!(fx.part_dirs(), vec!["all_2_2_0", "all_3_3_0"]);
    let detached: Vec<String> =
        std::fs::read_dir(data.join("detached")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    assert_eq!(detached, vec!["broken_all_1_1_0".to_string()]);
    let checks = fx.table().engine.check(None).await.unwrap();
    let failed: Vec<&str> = checks.iter().filter(|c| !c.is_passed).map(|c| c.part_path.as_str()).collect();
    assert_eq!(failed, vec!["all_2_2_0"], "{checks:?}");
    assert!(checks.iter().any(|c| c.message.contains("checksum")), "{checks:?}");
    let config = datafusion::prelude::SessionConfig::new().with_target_partitions(1);
    let ctx = datafusion::prelude::SessionContext::new_with_config(config);
    ctx.register_table("t", Arc::new(granary_storage::EngineTableProvider::new(fx.table()))).unwrap();
    let e = ctx.sql("SELECT sum(id) FROM t").await.unwrap().collect().await.unwrap_err();
    assert!(e.to_string().to_lowercase().contains("checksum"), "{e}");
}

#[tokio::test]
async fn optimize_final_merges_to_one_sorted_part_per_partition() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(
        &[("id", "UInt64"), ("v", "String")],
        Some("id"),
        Some("id % 2"),
        &[no_merges(), ("index_granularity", "64")],
    );
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let mut all = Vec::new();
    for k in 0..8u64 {
        let ids: Vec<u64> = (0..500).map(|i| (i * 7 + k * 13) % 2000 + k * 2000).collect();
        all.extend(ids.iter().copied());
        fx.insert(vec![Ok(ids_batch(schema.clone(), ids.into_iter()))], Settings::new()).await.unwrap();
    }
    assert_eq!(fx.part_dirs().len(), 16);
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    let parts = fx.part_dirs();
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(parts[0].starts_with("0_") && parts[1].starts_with("1_") && parts.iter().all(|p| p.ends_with("_1")), "{parts:?}");
    // Each partition's part is sorted; together they hold every row exactly once.
    let (got, _) = fx.sql("SELECT id, v FROM t", 1).await;
    let ids = u64s(&got, 0);
    let mut expected = all.clone();
    expected.sort();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, expected);
    let evens: Vec<u64> = ids.iter().copied().filter(|i| i % 2 == 0).collect();
    assert!(evens.windows(2).all(|w| w[0] <= w[1]));
    let strings = got.iter().flat_map(|b| b.column(1).as_any().downcast_ref::<StringArray>().unwrap().iter().map(|s| s.unwrap().to_string()).collect::<Vec<_>>());
    assert!(strings.zip(ids.iter()).all(|(s, i)| s == format!("v{i}")));
    // Point lookups still prune after the merge, and a reopen keeps the merged parts.
    let fx = fx.reopen();
    let (got, read) = fx.sql("SELECT id FROM t WHERE id = 4026", 2).await;
    assert_eq!(u64s(&got, 0), vec![4026]);
    assert!(read <= 128, "{read}");
}

#[tokio::test]
async fn background_merges_reduce_parts() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    for k in 0..6u64 {
        fx.insert(vec![Ok(ids_batch(schema.clone(), k * 100..(k + 1) * 100))], Settings::new()).await.unwrap();
    }
    let deadline = Instant::now() + std::time::Duration::from_secs(20);
    while fx.part_dirs().len() > 2 && Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(fx.part_dirs().len() <= 2, "{:?} {:?}", fx.part_dirs(), fx.part_dirs().iter().map(|d| std::fs::read_to_string(fx.data_dir().join(d).join("checksums.txt")).unwrap()).collect::<Vec<_>>());
    assert_eq!(fx.count().await, 600);
}

#[tokio::test]
async fn too_many_parts_fails_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(
        &[("id", "UInt64"), ("v", "String")],
        Some("id"),
        None,
        &[no_merges(), ("parts_to_delay_insert", "2"), ("parts_to_throw_insert", "3")],
    );
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    for k in 0..3u64 {
        fx.insert(vec![Ok(ids_batch(schema.clone(), k..k + 1))], Settings::new()).await.unwrap();
    }
    let e = fx.insert(vec![Ok(ids_batch(schema.clone(), 9..10))], Settings::new()).await.unwrap_err();
    assert_eq!(e.code(), ErrorCode::TOO_MANY_PARTS);
    assert!(e.message().contains("Too many parts (3") && e.message().contains("partition all"), "{}", e.message());
    fx.table().engine.truncate().await.unwrap();
    assert_eq!(fx.count().await, 0);
    assert!(fx.part_dirs().is_empty());
    let fx = fx.reopen();
    assert_eq!(fx.count().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_inserts_and_scans_see_whole_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[]);
    let schema = m.schema().unwrap();
    let fx = Arc::new(Fixture::create(dir.path(), m));
    let writer = {
        let fx = fx.clone();
        tokio::spawn(async move {
            let mut settings = Settings::new();
            settings.set("min_insert_block_size_rows", "300").unwrap();
            for k in 0..20u64 {
                fx.insert(vec![Ok(ids_batch(schema.clone(), k * 1000..(k + 1) * 1000))], settings.clone()).await.unwrap();
            }
        })
    };
    let mut seen = 0;
    while !writer.is_finished() {
        let c = fx.count().await;
        assert_eq!(c % 1000, 0, "an INSERT was seen half done: {c}");
        assert!(c >= seen);
        seen = c;
    }
    writer.await.unwrap();
    assert_eq!(fx.count().await, 20_000);
}

#[test]
fn engine_clause_is_validated() {
    let registry = {
        let mut r = granary_storage::EngineRegistry::new();
        granary_mergetree::register_engines(&mut r);
        r
    };
    let factory = registry.get("MergeTree").unwrap();
    let cols = [("id", "UInt64"), ("ts", "DateTime")];
    let code = |m: granary_storage::TableMeta| factory.validate(&m).map_err(|e| e.code());
    assert_eq!(code(meta(&cols, None, None, &[])), Err(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH));
    assert_eq!(code(meta(&cols, Some("(toDate(ts), id)"), Some("toYYYYMM(ts)"), &[])), Ok(()));
    assert_eq!(code(meta(&cols, Some("tuple()"), Some("tuple()"), &[])), Ok(()));
    assert_eq!(code(meta(&cols, Some("id"), None, &[("index_granularityy", "1")])), Err(ErrorCode::UNKNOWN_SETTING));
    assert_eq!(code(meta(&cols, Some("nope"), None, &[])).unwrap_err(), ErrorCode::UNKNOWN_IDENTIFIER);
    let mut pk = meta(&cols, Some("(id, ts)"), None, &[]);
    pk.engine.primary_key = Some("ts".into());
    let e = factory.validate(&pk).unwrap_err();
    assert_eq!(e.code(), ErrorCode::BAD_ARGUMENTS);
    assert!(e.message().contains("prefix of the sorting key"));
    pk.engine.primary_key = Some("id".into());
    assert!(factory.validate(&pk).is_ok());
    let mut codec = meta(&cols, Some("id"), None, &[]);
    codec.columns[0].codec = Some("CODEC(Delta)".into());
    assert_eq!(factory.validate(&codec).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
}

#[tokio::test]
async fn load_removes_leftovers_and_covered_parts() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    for k in 0..2u64 {
        fx.insert(vec![Ok(ids_batch(schema.clone(), k * 10..(k + 1) * 10))], Settings::new()).await.unwrap();
    }
    let data = fx.data_dir();
    let saved = dir.path().join("saved");
    std::fs::create_dir(&saved).unwrap();
    for p in fx.part_dirs() {
        copy_dir(&data.join(&p), &saved.join(&p));
    }
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    assert_eq!(fx.part_dirs(), vec!["all_1_2_1"]);
    // A crash after the merge commit but before the sources were deleted, and a crash
    // in the middle of writing a part.
    for p in ["all_1_1_0", "all_2_2_0"] {
        copy_dir(&saved.join(p), &data.join(p));
    }
    copy_dir(&saved.join("all_1_1_0"), &data.join("tmp_insert_all_3_3_0"));
    let fx = fx.reopen();
    assert_eq!(fx.part_dirs(), vec!["all_1_2_1"]);
    assert!(!data.join("tmp_insert_all_3_3_0").exists());
    assert_eq!(fx.count().await, 20);
    assert_eq!(fx.table().engine.total_rows(), Some(20));
    assert!(fx.table().engine.total_bytes().unwrap() > 0);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[tokio::test]
async fn replacing_merge_tree_keeps_the_latest_row_per_key() {
    for with_version in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut m = meta(&[("id", "UInt64"), ("v", "String"), ("ver", "UInt32")], Some("id"), None, &[no_merges(), ("index_granularity", "16")]);
        m.engine.name = "ReplacingMergeTree".into();
        if with_version {
            m.engine.args = vec!["ver".into()];
        }
        let schema = m.schema().unwrap();
        let fx = Fixture::create(dir.path(), m);
        assert_eq!(fx.table().engine.engine_name(), "ReplacingMergeTree");
        // Three inserts over overlapping keys; in the second the versions go down, so
        // with a version column the first insert's rows win for those keys.
        for (k, ver) in [(0u64, 5u32), (1, 1), (2, 9)] {
            let ids: Vec<u64> = (0..100).map(|i| i + k * 50).chain(std::iter::once(k)).collect();
            let n = ids.len();
            let vals: Vec<String> = ids.iter().map(|i| format!("{i}@{k}")).collect();
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(UInt64Array::from(ids)), Arc::new(StringArray::from(vals)), Arc::new(UInt32Array::from(vec![ver; n]))],
            )
            .unwrap();
            fx.insert(vec![Ok(batch)], Settings::new()).await.unwrap();
        }
        // Each insert was collapsed when written: key 0 is twice in insert 0 (100 rows),
        // inserts 1 and 2 have 101 distinct keys each.
        assert_eq!(fx.count().await, 302);
        fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
        // Collapsed inserts are level-1 parts, as in ClickHouse.
        assert_eq!(fx.part_dirs(), vec!["all_1_3_2"]);
        let (got, _) = fx.sql("SELECT id, v FROM t", 1).await;
        let ids = u64s(&got, 0);
        assert_eq!(ids, (0..200).collect::<Vec<_>>(), "one row per key, sorted");
        let vals: Vec<String> =
            got.iter().flat_map(|b| b.column(1).as_any().downcast_ref::<StringArray>().unwrap().iter().map(|s| s.unwrap().to_string()).collect::<Vec<_>>()).collect();
        // Inserts cover 0..100 (ver 5), 50..150 (ver 1), 100..200 (ver 9), plus key k once more.
        // Key 60: inserts 0 and 1; the version keeps insert 0's row, else the last insert wins.
        assert_eq!(vals[60], if with_version { "60@0" } else { "60@1" });
        assert_eq!(vals[120], "120@2");
        assert_eq!(vals[150], "150@2");
        // Key 1 is in insert 0 (ver 5) and, appended, in insert 1 (ver 1).
        assert_eq!(vals[1], if with_version { "1@0" } else { "1@1" });
        // Key 2 is in insert 0 (ver 5) and insert 2 (ver 9).
        assert_eq!(vals[2], "2@2");
    }
    let mut bad = meta(&[("id", "UInt64"), ("s", "String")], Some("id"), None, &[]);
    bad.engine.name = "ReplacingMergeTree".into();
    bad.engine.args = vec!["s".into()];
    let mut registry = granary_storage::EngineRegistry::new();
    granary_mergetree::register_engines(&mut registry);
    assert_eq!(registry.get("ReplacingMergeTree").unwrap().validate(&bad).unwrap_err().code(), ErrorCode::BAD_TYPE_OF_FIELD);
}

#[tokio::test]
async fn granules_end_early_on_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[("index_granularity_bytes", "10000")]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let ids: Vec<u64> = (0..5000).collect();
    let vals: Vec<String> = ids.iter().map(|i| format!("{i:0>1000}")).collect();
    let batch = RecordBatch::try_new(schema, vec![Arc::new(UInt64Array::from(ids)), Arc::new(StringArray::from(vals))]).unwrap();
    fx.insert(vec![Ok(batch)], Settings::new()).await.unwrap();
    // About 1 KiB per row: granules of ~10 rows instead of 8192.
    let (got, read) = fx.sql("SELECT id FROM t WHERE id = 2500", 1).await;
    assert_eq!(u64s(&got, 0), vec![2500]);
    assert!(read > 0 && read <= 10, "{read}");
}

#[tokio::test]
async fn scans_keep_replaced_parts_until_done() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    for k in 0..3u64 {
        fx.insert(vec![Ok(ids_batch(schema.clone(), k * 100..(k + 1) * 100))], Settings::new()).await.unwrap();
    }
    let ctx = datafusion::prelude::SessionContext::new();
    let state = ctx.state();
    let table = fx.table();
    let plan = table.engine.scan(&state, None, &[], None).await.unwrap();
    table.engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    // The old parts are still on disk: the plan holds them.
    assert!(fx.data_dir().join("all_1_1_0").exists());
    let batches = datafusion::physical_plan::collect(plan.clone(), ctx.task_ctx()).await.unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 300);
    drop(plan);
    assert_eq!(fx.part_dirs(), vec!["all_1_3_1"]);
    assert!(!fx.data_dir().join("all_1_1_0").exists());
}

#[tokio::test]
async fn summing_merge_tree_sums_per_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = meta(&[("k", "String"), ("hits", "UInt64"), ("amount", "Int32"), ("note", "String")], Some("k"), None, &[no_merges(), ("index_granularity", "4")]);
    m.engine.name = "SummingMergeTree".into();
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    assert_eq!(fx.table().engine.engine_name(), "SummingMergeTree");
    let rows = |data: &[(&str, u64, i32, &str)]| {
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(StringArray::from_iter_values(data.iter().map(|r| r.0))),
                Arc::new(UInt64Array::from_iter_values(data.iter().map(|r| r.1))),
                Arc::new(Int32Array::from_iter_values(data.iter().map(|r| r.2))),
                Arc::new(StringArray::from_iter_values(data.iter().map(|r| r.3))),
            ],
        )
        .unwrap()
    };
    fx.insert(vec![Ok(rows(&[("a", 1, 10, "first"), ("b", 2, 5, "b1"), ("z", 1, 1, "z1"), ("a", 1, 1, "second")]))], Settings::new()).await.unwrap();
    fx.insert(vec![Ok(rows(&[("a", 3, -1, "third"), ("b", 0, -5, "b2"), ("b", 0, 0, "b3"), ("c", 7, 7, "c1")]))], Settings::new()).await.unwrap();
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    let (got, _) = fx.sql("SELECT k, hits, amount, note FROM t", 1).await;
    let got = concat_batches(&got[0].schema(), &got).unwrap();
    let text = arrow::util::pretty::pretty_format_batches(&[got]).unwrap().to_string();
    // b: hits 2, amount 0 (not all sums zero: kept); a: summed, note of the first row.
    let expected = "\
+---+------+--------+-------+
| k | hits | amount | note  |
+---+------+--------+-------+
| a | 5    | 10     | first |
| b | 2    | 0      | b1    |
| c | 7    | 7      | c1    |
| z | 1    | 1      | z1    |
+---+------+--------+-------+";
    assert_eq!(text, expected);
    // A key whose sums all reach zero disappears.
    fx.insert(vec![Ok(rows(&[("z", u64::MAX, -1, "gone")]))], Settings::new()).await.unwrap();
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    let (got, _) = fx.sql("SELECT k FROM t", 1).await;
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
}

/// The table of the golden part in `tests/data/format_v1` (written by format version 1).
fn golden_meta() -> granary_storage::TableMeta {
    meta(
        &[("id", "UInt64"), ("s", "String"), ("d", "Date"), ("n", "Nullable(Int32)"), ("a", "Array(String)")],
        Some("id"),
        None,
        &[no_merges(), ("index_granularity", "3")],
    )
}

fn golden_batch(schema: arrow::datatypes::SchemaRef) -> RecordBatch {
    let mut a = ListBuilder::new(StringBuilder::new()).with_field(Field::new("item", DataType::Utf8, false));
    for i in 0..7 {
        for j in 0..i % 3 {
            a.values().append_value(format!("a{i}{j}"));
        }
        a.append(true);
    }
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(UInt64Array::from_iter_values(0..7)),
            Arc::new(StringArray::from_iter_values((0..7).map(|i| format!("s{i}")))),
            Arc::new(Date32Array::from_iter_values((0..7).map(|i| 19723 + i))),
            Arc::new(Int32Array::from_iter((0..7).map(|i| if i % 2 == 0 { Some(i) } else { None }))),
            Arc::new(a.finish()),
        ],
    )
    .unwrap()
}

/// Format compatibility: a part written by version 1 must keep loading. Regenerate only
/// for a new format version (GRANARY_WRITE_GOLDEN=1), never to make this test pass.
#[tokio::test]
async fn reads_golden_part_of_format_v1() {
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format_v1/all_1_1_0");
    let m = golden_meta();
    let schema = m.schema().unwrap();
    if std::env::var("GRANARY_WRITE_GOLDEN").is_ok() {
        let dir = tempfile::tempdir().unwrap();
        let fx = Fixture::create(dir.path(), m.clone());
        fx.insert(vec![Ok(golden_batch(schema.clone()))], Settings::new()).await.unwrap();
        let _ = std::fs::remove_dir_all(&golden);
        copy_dir(&fx.data_dir().join("all_1_1_0"), &golden);
    }
    let dir = tempfile::tempdir().unwrap();
    let fx = Fixture::create(dir.path(), m);
    copy_dir(&golden, &fx.data_dir().join("all_1_1_0"));
    let fx = fx.reopen();
    assert_eq!(fx.part_dirs(), vec!["all_1_1_0"]);
    let (got, read) = fx.sql("SELECT * FROM t", 1).await;
    assert_eq!(concat_batches(&schema, &got).unwrap(), golden_batch(schema.clone()));
    assert_eq!(read, 7);
    let (got, read) = fx.sql("SELECT s FROM t WHERE id = 4", 1).await;
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    assert_eq!(read, 3, "one granule of 3 rows");
}

#[tokio::test]
async fn summing_a_long_run_of_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = meta(&[("k", "UInt8"), ("x", "UInt64")], Some("k"), None, &[no_merges(), ("index_granularity", "64")]);
    m.engine.name = "SummingMergeTree".into();
    m.engine.args = vec!["(x)".into()];
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let n = 100_000u64;
    let batch = RecordBatch::try_new(
        schema,
        vec![Arc::new(UInt8Array::from_iter_values((0..n).map(|i| (i % 2) as u8))), Arc::new(UInt64Array::from_iter_values(0..n))],
    )
    .unwrap();
    fx.insert(vec![Ok(batch)], Settings::new()).await.unwrap();
    let (got, _) = fx.sql("SELECT k, x FROM t", 1).await;
    let got = concat_batches(&got[0].schema(), &got).unwrap();
    assert_eq!(got.num_rows(), 2);
    let x = got.column(1).as_any().downcast_ref::<UInt64Array>().unwrap();
    assert_eq!(x.value(0) + x.value(1), n * (n - 1) / 2);
}

/// An INSERT still streaming while other INSERTs land and a merge runs must not end up
/// inside the merged part's block range: the next start would drop it as "covered".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_insert_is_not_covered_by_a_merge_that_ran_meanwhile() {
    use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Arc::new(Fixture::create(dir.path(), m));
    fx.insert(vec![Ok(ids_batch(schema.clone(), 0..10))], Settings::new()).await.unwrap();

    // The slow INSERT: its first block is written as a part (min_insert_block_size_rows = 1)
    // while the stream stays open.
    let (tx, rx) = tokio::sync::mpsc::channel::<datafusion::error::Result<RecordBatch>>(1);
    let slow = {
        let table = fx.table();
        let stream = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (b, rx)) });
        let input = Box::pin(RecordBatchStreamAdapter::new(schema.clone(), stream));
        let mut settings = Settings::new();
        settings.set("min_insert_block_size_rows", "1").unwrap();
        tokio::spawn(async move { table.engine.insert(granary_storage::InsertRequest::new(input, settings)).await })
    };
    tx.send(Ok(ids_batch(schema.clone(), 100..110))).await.unwrap();
    let deadline = Instant::now() + std::time::Duration::from_secs(20);
    while !std::fs::read_dir(fx.data_dir()).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with("tmp_insert_")) {
        assert!(Instant::now() < deadline, "the slow INSERT never wrote its first part");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    fx.insert(vec![Ok(ids_batch(schema.clone(), 10..20))], Settings::new()).await.unwrap();
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    tx.send(Ok(ids_batch(schema.clone(), 110..120))).await.unwrap();
    drop(tx);
    slow.await.unwrap().unwrap();
    assert_eq!(fx.count().await, 40);

    let fx = Arc::into_inner(fx).unwrap().reopen();
    assert_eq!(fx.count().await, 40, "parts after restart: {:?}", fx.part_dirs());
}

/// Streams of `count` batches of `size` ids each, stream `i` holding the ids from
/// `i * count * size` on, in order.
fn id_streams(schema: &arrow::datatypes::SchemaRef, streams: u64, count: u64, size: u64) -> Vec<Vec<granary_common::Result<RecordBatch>>> {
    (0..streams)
        .map(|s| (0..count).map(|b| Ok(ids_batch(schema.clone(), (s * count + b) * size..(s * count + b + 1) * size))).collect())
        .collect()
}

fn insert_settings(block_rows: &str, threads: &str) -> Settings {
    let mut settings = Settings::new();
    settings.set("min_insert_block_size_rows", block_rows).unwrap();
    settings.set("max_insert_threads", threads).unwrap();
    settings
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_insert_streams_write_every_row_once() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    // Three streams of 3000 rows, blocks of 1000: each stream writes three full blocks.
    fx.insert_streams(id_streams(&schema, 3, 30, 100), insert_settings("1000", "3")).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 9);
    // Fewer pipelines than streams: streams share pipelines, nothing is lost.
    fx.insert_streams(id_streams(&schema, 4, 5, 100), insert_settings("1000", "2")).await.unwrap();
    let (got, _) = fx.sql("SELECT id FROM t ORDER BY id", 1).await;
    let mut expected: Vec<u64> = (0..9000).collect();
    expected.extend(0..2000);
    expected.sort_unstable();
    assert_eq!(u64s(&got, 0), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_parallel_streams_leave_below_a_block_is_one_part() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    fx.insert_streams(id_streams(&schema, 4, 3, 50), insert_settings("1000", "4")).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 1, "{:?}", fx.part_dirs());
    let (got, _) = fx.sql("SELECT id FROM t", 1).await;
    assert_eq!(u64s(&got, 0), (0..600).collect::<Vec<u64>>(), "the part is sorted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_stream_leaves_nothing_of_the_insert() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let mut streams = id_streams(&schema, 2, 20, 100);
    streams[1].insert(12, Err(granary_common::Error::new(granary_common::ErrorCode::CANNOT_PARSE_TEXT, "bad row")));
    let err = fx.insert_streams(streams, insert_settings("200", "2")).await.unwrap_err();
    assert_eq!(err.code(), granary_common::ErrorCode::CANNOT_PARSE_TEXT, "the cause is reported, not the stopped stream: {err}");
    assert_eq!(fx.count().await, 0);
    let left: Vec<String> = std::fs::read_dir(fx.data_dir()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    assert!(left.iter().all(|n| !n.starts_with("tmp_") && granary_mergetree::part_info::PartInfo::parse(n).is_err()), "{left:?}");
}

#[tokio::test]
async fn marks_leave_the_cache_and_come_back_from_their_files_checked() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges(), ("index_granularity", "100"), ("min_bytes_for_wide_part", "0")]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    fx.insert(vec![Ok(ids_batch(schema.clone(), 0..1000))], Settings::new()).await.unwrap();
    granary_mergetree::cache::mark_cache().clear();
    let (got, read) = fx.sql("SELECT id FROM t WHERE id = 555", 1).await;
    assert_eq!(u64s(&got, 0), vec![555]);
    assert_eq!(read, 100, "the index still selects one granule");
    // A damaged marks file is detected when the marks are next read from it.
    let part = fx.data_dir().join(&fx.part_dirs()[0]);
    let mut bytes = std::fs::read(part.join("v.mrk")).unwrap();
    bytes[30] ^= 0xff;
    std::fs::write(part.join("v.mrk"), bytes).unwrap();
    granary_mergetree::cache::mark_cache().clear();
    let table = fx.table();
    let ctx = datafusion::prelude::SessionContext::new();
    ctx.register_table("t", Arc::new(granary_storage::EngineTableProvider::new(table))).unwrap();
    let err = ctx.sql("SELECT v FROM t").await.unwrap().collect().await.unwrap_err();
    assert!(err.to_string().contains("Checksum doesn't match"), "{err}");
}

/// Every column read alone and together, with marks from the cache and from files.
async fn check_rows(fx: &Fixture, expected: &RecordBatch) {
    granary_mergetree::cache::mark_cache().clear();
    for query in ["SELECT * FROM t ORDER BY id", "SELECT n, id FROM t ORDER BY id"] {
        let (got, _) = fx.sql(query, 2).await;
        let got = concat_batches(&got[0].schema(), &got).unwrap();
        for name in ["id", "v", "n"] {
            if let Ok(i) = got.schema().index_of(name) {
                assert_eq!(got.column(i), expected.column(expected.schema().index_of(name).unwrap()), "{query}: {name}");
            }
        }
    }
    let (got, read) = fx.sql("SELECT v FROM t WHERE id = 33", 1).await;
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    assert_eq!(read, 64, "one granule");
}

fn part_files(fx: &Fixture, part: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fx.data_dir().join(part)).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn small_parts_are_compact_and_merge_with_wide_ones() {
    let dir = tempfile::tempdir().unwrap();
    // Compact below 20 KB of rows (uncompressed): 100 rows are, 5000 rows are not.
    let m = meta(&[("id", "UInt64"), ("v", "String"), ("n", "Nullable(Int32)")], Some("id"), None, &[no_merges(), ("index_granularity", "64"), ("min_bytes_for_wide_part", "20000")]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let rows = |ids: std::ops::Range<u64>| {
        let n: Vec<Option<i32>> = ids.clone().map(|i| (i % 3 != 0).then_some(i as i32 * 7)).collect();
        let base = ids_batch(Arc::new(arrow::datatypes::Schema::new(schema.fields()[..2].to_vec())), ids);
        RecordBatch::try_new(schema.clone(), vec![base.column(0).clone(), base.column(1).clone(), Arc::new(Int32Array::from(n))]).unwrap()
    };
    fx.insert(vec![Ok(rows(0..100))], Settings::new()).await.unwrap();
    fx.insert(vec![Ok(rows(100..5100))], Settings::new()).await.unwrap();
    let parts = fx.table().engine.parts();
    assert_eq!(parts.iter().map(|p| p.part_type.as_str()).collect::<Vec<_>>(), vec!["Compact", "Wide"]);
    assert_eq!(part_files(&fx, &parts[0].name), vec!["checksums.txt", "columns.txt", "count.txt", "data.bin", "data.mrk", "format_version.txt", "minmax.idx", "primary.idx"]);
    assert!(part_files(&fx, &parts[1].name).contains(&"v.bin".to_string()));
    let expected = rows(0..5100);
    check_rows(&fx, &expected).await;
    assert!(fx.table().engine.check(None).await.unwrap().iter().all(|c| c.is_passed));
    let fx = fx.reopen();
    check_rows(&fx, &expected).await;
    // Compact + wide merge into a wide part (its size is over the threshold).
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    assert_eq!(fx.table().engine.parts().iter().map(|p| p.part_type.as_str()).collect::<Vec<_>>(), vec!["Wide"]);
    check_rows(&fx, &expected).await;
}

#[tokio::test]
async fn a_damaged_compact_part_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    fx.insert(vec![Ok(ids_batch(schema.clone(), 0..1000))], Settings::new()).await.unwrap();
    let part = fx.data_dir().join(&fx.part_dirs()[0]);
    let mut bytes = std::fs::read(part.join("data.bin")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(part.join("data.bin"), bytes).unwrap();
    let check = fx.table().engine.check(None).await.unwrap();
    assert!(!check[0].is_passed && check[0].message.contains("data.bin"), "{check:?}");
}

#[tokio::test]
async fn batches_sorted_each_but_not_together_are_sorted_into_the_part() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    // Each batch is in order; the second starts below the first's end.
    fx.insert(vec![Ok(ids_batch(schema.clone(), 0..100)), Ok(ids_batch(schema.clone(), 50..150)), Ok(ids_batch(schema.clone(), 150..160))], Settings::new()).await.unwrap();
    // In order across batches: written as they come.
    fx.insert(vec![Ok(ids_batch(schema.clone(), 200..300)), Ok(ids_batch(schema.clone(), 300..400))], Settings::new()).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 2);
    let (got, _) = fx.sql("SELECT id FROM t", 1).await;
    let mut expected: Vec<u64> = (0..100).chain(50..150).chain(150..160).collect();
    expected.sort_unstable();
    expected.extend(200..400);
    assert_eq!(u64s(&got, 0), expected, "parts are read in order and each is sorted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_are_squashed_by_rows_or_bytes_whichever_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("id", "UInt64"), ("v", "String")], Some("id"), None, &[no_merges()]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let batches = || (0..10u64).map(|b| Ok(ids_batch(schema.clone(), b * 100..(b + 1) * 100))).collect::<Vec<_>>();
    let squash = |rows: &str, bytes: String| {
        let mut settings = Settings::new();
        settings.set("min_insert_block_size_rows", rows).unwrap();
        settings.set("min_insert_block_size_bytes", &bytes).unwrap();
        settings.set("max_insert_threads", "1").unwrap();
        settings
    };
    // Both thresholds off: every batch is a part.
    fx.insert(batches(), squash("0", "0".into())).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 10);
    // Bytes first: a block is cut once two batches' bytes are in.
    fx.table().engine.truncate().await.unwrap();
    let one_batch = ids_batch(schema.clone(), 0..100).get_array_memory_size();
    fx.insert(batches(), squash("1000000", (2 * one_batch).to_string())).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 5);
    // Rows first.
    fx.table().engine.truncate().await.unwrap();
    fx.insert(batches(), squash("500", "1000000000".into())).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 2);
    assert_eq!(fx.count().await, 1000);
}

#[tokio::test]
async fn unsorted_batches_are_sorted_together_keeping_insertion_order_of_equal_keys() {
    // A ReplacingMergeTree without version keeps the last inserted row of each key, so
    // sorting several unsorted batches must keep equal keys in insertion order.
    let dir = tempfile::tempdir().unwrap();
    let mut m = meta(&[("k", "String"), ("n", "UInt64"), ("v", "UInt64")], Some("(k, n)"), None, &[no_merges()]);
    m.engine.name = "ReplacingMergeTree".into();
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let rows = |k: &[&str], n: &[u64], v: &[u64]| {
        RecordBatch::try_new(schema.clone(), vec![Arc::new(StringArray::from(k.to_vec())), Arc::new(UInt64Array::from(n.to_vec())), Arc::new(UInt64Array::from(v.to_vec()))]).unwrap()
    };
    fx.insert(vec![Ok(rows(&["b", "a", "b"], &[2, 1, 2], &[1, 2, 3])), Ok(rows(&["a", "c", "b", "a"], &[1, 0, 2, 0], &[4, 5, 6, 7]))], Settings::new()).await.unwrap();
    let (got, _) = fx.sql("SELECT k, n, v FROM t", 1).await;
    let got = concat_batches(&schema, &got).unwrap();
    assert_eq!(got, rows(&["a", "a", "b", "c"], &[0, 1, 2, 0], &[7, 4, 6, 5]));
}

#[tokio::test]
async fn unsorted_rows_of_several_partitions_are_written_sorted_granule_by_granule() {
    // Rows reach the writer as positions in the inserted batches and are copied granule
    // by granule: every part must still hold exactly its partition's rows, in key order.
    let dir = tempfile::tempdir().unwrap();
    let m = meta(&[("s", "String"), ("x", "UInt64")], Some("(s, x)"), Some("x % 3"), &[no_merges(), ("index_granularity", "4")]);
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let rows = |range: std::ops::Range<u64>| {
        let xs: Vec<u64> = range.map(|i| (i * 7919) % 101).collect();
        let ss: Vec<String> = xs.iter().map(|x| format!("k{}", x % 5)).collect();
        RecordBatch::try_new(schema.clone(), vec![Arc::new(StringArray::from(ss)), Arc::new(UInt64Array::from(xs))]).unwrap()
    };
    fx.insert(vec![Ok(rows(0..40)), Ok(rows(40..101))], Settings::new()).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 3);
    for p in 0..3u64 {
        let (got, _) = fx.sql(&format!("SELECT s, x FROM t WHERE x % 3 = {p}"), 1).await;
        let got = concat_batches(&schema, &got).unwrap();
        let mut expected: Vec<(String, u64)> = (0..101u64).filter(|x| x % 3 == p).map(|x| (format!("k{}", x % 5), x)).collect();
        expected.sort();
        let strings = got.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        let got: Vec<(String, u64)> = (0..got.num_rows()).map(|i| (strings.value(i).to_string(), u64s(std::slice::from_ref(&got), 1)[i])).collect();
        assert_eq!(got, expected, "partition {p}");
    }
}

#[tokio::test]
async fn replacing_is_deleted_survives_merges_until_cleanup() {
    let dir = tempfile::tempdir().unwrap();
    let settings = [no_merges(), ("index_granularity", "16"), ("allow_experimental_replacing_merge_with_cleanup", "1")];
    let mut m = meta(&[("id", "UInt64"), ("ver", "UInt32"), ("del", "UInt8")], Some("id"), None, &settings);
    m.engine.name = "ReplacingMergeTree".into();
    m.engine.args = vec!["ver".into(), "del".into()];
    let schema = m.schema().unwrap();
    let fx = Fixture::create(dir.path(), m);
    let rows = |ids: Vec<u64>, ver: u32, deleted: fn(u64) -> u8| {
        let (n, flags) = (ids.len(), ids.iter().map(|i| deleted(*i)).collect::<Vec<u8>>());
        RecordBatch::try_new(schema.clone(), vec![Arc::new(UInt64Array::from(ids)), Arc::new(UInt32Array::from(vec![ver; n])), Arc::new(UInt8Array::from(flags))]).unwrap()
    };
    // Odd keys are deleted, every third key comes back in version 2, and an older
    // deletion of every fifth key (version 0) changes nothing.
    fx.insert(vec![Ok(rows((0..1000).collect(), 1, |i| (i % 2) as u8))], Settings::new()).await.unwrap();
    fx.insert(vec![Ok(rows((0..1000).step_by(3).collect(), 2, |_| 0))], Settings::new()).await.unwrap();
    fx.insert(vec![Ok(rows((0..1000).step_by(5).collect(), 0, |_| 1))], Settings::new()).await.unwrap();
    let live: Vec<u64> = (0..1000).filter(|i| i % 2 == 0 || i % 3 == 0).collect();
    let mut final_ = Settings::new();
    final_.set("final", "1").unwrap();
    let ids_of = |batches: Vec<RecordBatch>| {
        let mut ids = u64s(&batches, 0);
        ids.sort_unstable();
        ids
    };
    assert_eq!(ids_of(fx.sql_with("SELECT id FROM t", final_.clone()).await), live);
    // A merge keeps the latest version of every key, deleted or not.
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: false, skip_merged_partitions: false }).await.unwrap();
    assert_eq!(fx.count().await, 1000);
    assert_eq!(ids_of(fx.sql_with("SELECT id FROM t", final_.clone()).await), live);
    // CLEANUP merges the single part again, without the deleted rows.
    fx.table().engine.optimize(OptimizeRequest { partition: None, final_: true, cleanup: true, skip_merged_partitions: false }).await.unwrap();
    assert_eq!(fx.part_dirs().len(), 1);
    assert_eq!(ids_of(fx.sql("SELECT id FROM t", 1).await.0), live);
}
