//! Helpers shared by the integration tests: a real `Catalog` in a temp dir with the
//! MergeTree factory registered, SQL through DataFusion with `EngineTableProvider`
//! (so `ScanCounterExec` counts read rows), and inserts from batches.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::prelude::{SessionConfig, SessionContext};
use granary_common::{QueryProgress, Settings};
use granary_storage::{Catalog, ColumnMeta, EngineMeta, EngineRegistry, EngineTableProvider, InsertRequest, Table, TableMeta, TABLE_META_VERSION};
use granary_types::ChType;

pub struct Fixture {
    pub root: PathBuf,
    pub catalog: Catalog,
}

pub fn meta(columns: &[(&str, &str)], order_by: Option<&str>, partition_by: Option<&str>, settings: &[(&str, &str)]) -> TableMeta {
    TableMeta {
        format_version: TABLE_META_VERSION,
        uuid: "0000-test".into(),
        database: "default".into(),
        name: "t".into(),
        columns: columns.iter().map(|(n, t)| ColumnMeta::new(*n, &ChType::parse(t).unwrap())).collect(),
        engine: EngineMeta {
            name: "MergeTree".into(),
            order_by: order_by.map(str::to_string),
            partition_by: partition_by.map(str::to_string),
            // Replaced parts go at once unless a test asks otherwise, so the tests can
            // look at the part directories right after a merge.
            settings: settings
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .chain(settings.iter().all(|(k, _)| *k != "old_parts_lifetime").then(|| ("old_parts_lifetime".to_string(), "0".to_string())))
                .collect(),
            ..Default::default()
        },
        comment: None,
        created_at: 0,
        dictionary: None,
        view: None,
        renamed_columns: Vec::new(),
        constraints: Vec::new(),
        indices: Vec::new(),
    }
}

pub fn open_catalog(root: &Path) -> Catalog {
    let mut registry = EngineRegistry::new();
    granary_mergetree::register_engines(&mut registry);
    Catalog::open(root, registry, Vec::new()).unwrap()
}

impl Fixture {
    pub fn create(root: &Path, meta: TableMeta) -> Fixture {
        let catalog = open_catalog(root);
        catalog.create_table(meta, false).unwrap();
        Fixture { root: root.to_path_buf(), catalog }
    }

    /// Drops the catalog (and the engine with it) and opens everything again.
    pub fn reopen(self) -> Fixture {
        let root = self.root.clone();
        drop(self);
        Fixture { catalog: open_catalog(&root), root }
    }

    pub fn table(&self) -> Arc<Table> {
        self.catalog.table("default", "t").unwrap()
    }

    pub fn data_dir(&self) -> PathBuf {
        self.root.join("store").join(&self.table().meta.uuid)
    }

    /// Active part directories on disk, sorted.
    pub fn part_dirs(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.data_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| granary_mergetree::part_info::PartInfo::parse(n).is_ok())
            .collect();
        names.sort();
        names
    }

    pub async fn insert(&self, batches: Vec<granary_common::Result<RecordBatch>>, settings: Settings) -> granary_common::Result<()> {
        let table = self.table();
        let stream = futures::stream::iter(batches.into_iter().map(|r| r.map_err(|e| e.into_datafusion())));
        let input = Box::pin(RecordBatchStreamAdapter::new(table.schema(), stream));
        table.engine.insert(InsertRequest::new(input, settings)).await.map(|_| ())
    }

    /// Inserts rows arriving on several streams at once (as an `INSERT ... SELECT` with
    /// several partitions does).
    pub async fn insert_streams(&self, streams: Vec<Vec<granary_common::Result<RecordBatch>>>, settings: Settings) -> granary_common::Result<()> {
        let table = self.table();
        let inputs = streams
            .into_iter()
            .map(|batches| {
                let stream = futures::stream::iter(batches.into_iter().map(|r| r.map_err(|e| e.into_datafusion())));
                Box::pin(RecordBatchStreamAdapter::new(table.schema(), stream)) as datafusion::execution::SendableRecordBatchStream
            })
            .collect();
        table.engine.insert(InsertRequest::partitioned(inputs, settings)?).await.map(|_| ())
    }

    /// Runs `query` (table `t`) and returns the batches and the rows the scan read.
    pub async fn sql(&self, query: &str, partitions: usize) -> (Vec<RecordBatch>, u64) {
        let progress = Arc::new(QueryProgress::default());
        let config = SessionConfig::new().with_target_partitions(partitions).with_extension(progress.clone());
        let ctx = SessionContext::new_with_config(config);
        ctx.register_table("t", Arc::new(EngineTableProvider::new(self.table()))).unwrap();
        let batches = ctx.sql(query).await.unwrap().collect().await.unwrap();
        (batches, progress.read_rows.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Runs `query` with query `settings` visible to the engine (as the server passes them).
    pub async fn sql_with(&self, query: &str, settings: Settings) -> Vec<RecordBatch> {
        let config = SessionConfig::new().with_target_partitions(2).with_extension(Arc::new(settings));
        let ctx = SessionContext::new_with_config(config);
        ctx.register_table("t", Arc::new(EngineTableProvider::new(self.table()))).unwrap();
        ctx.sql(query).await.unwrap().collect().await.unwrap()
    }

    pub async fn count(&self) -> u64 {
        let (b, _) = self.sql("SELECT count(*) AS c FROM t", 2).await;
        let c = b[0].column(0).as_any().downcast_ref::<arrow::array::Int64Array>().unwrap();
        c.value(0) as u64
    }
}
