//! Reading chosen Parquet string columns as Arrow dictionaries.
//!
//! Parquet writers dictionary-encode string columns with few distinct values
//! (names, countries, tags). DataFusion decodes them into string views, so an
//! operator that could work once per distinct value (a GROUP BY key, a filter on
//! the key) pays per row instead. [`with_dictionary_columns`] rebuilds a Parquet
//! scan so that the named columns come out as `Dictionary(Int32, Utf8)`, keeping
//! the dictionary of each column chunk: batches of one row group share one values
//! array, which the consumer can recognise with `Arc::ptr_eq`.
//!
//! The Arrow reader picks a dictionary type when the file's embedded Arrow schema
//! (the `ARROW:schema` key of the footer) asks for one. The files were not written
//! that way, so the scan's reader factory hands out footers whose embedded schema
//! is the file's own with those columns' types changed: each file keeps its own
//! column list, and a column that is not a string, or is absent, is left alone.
//!
//! [`with_plain_string_columns`] rebuilds a scan the same way to read chosen string
//! columns as `Utf8` where the plan would read views and cast them back.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema};
use bytes::Bytes;
use datafusion::datasource::physical_plan::parquet::ParquetFileReaderFactory;
use datafusion::datasource::physical_plan::{FileScanConfigBuilder, FileSource, ParquetSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use futures::future::BoxFuture;
use futures::FutureExt;
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::arrow::{encode_arrow_schema, parquet_to_arrow_schema, ARROW_SCHEMA_META_KEY};
use parquet::file::metadata::{FileMetaData, KeyValue, ParquetMetaData, ParquetMetaDataBuilder};

/// The type the chosen columns are read as.
pub fn dictionary_string_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// `scan` (a Parquet `DataSourceExec`) rebuilt so that the file columns named in
/// `columns` are read as [`dictionary_string_type`]. None when `scan` is not a
/// Parquet scan, or a named column is not a string column of the files (partition
/// and virtual columns included).
pub fn with_dictionary_columns(scan: &DataSourceExec, columns: &[&str]) -> Option<Arc<DataSourceExec>> {
    let names: Arc<HashSet<String>> = Arc::new(columns.iter().map(|c| c.to_string()).collect());
    with_file_column_type(scan, columns, dictionary_string_type(), |inner| Arc::new(TypeHintReaderFactory { inner, columns: names, hint: TypeHint::Dictionary }))
}

/// `scan` (a Parquet `DataSourceExec`) rebuilt so that the file columns named in
/// `columns`, read as `Utf8View`, come out as `Utf8`. DataFusion's Parquet opener reads
/// a string column as the scan's schema types it, so the reader decodes plain-encoded
/// ones straight into offsets and bytes; a plan that casts the views back to `Utf8`
/// (every query's output, see `granary_types::without_views`) would copy each string
/// again. A column chunk that is dictionary-encoded in every row group of a file is
/// still read as views there (and cast by the opener): the reader copies each row's
/// string out of the dictionary into a buffer it grows by reallocation, dearer than
/// views plus one cast. None as for [`with_dictionary_columns`], and when the scan's
/// predicate reads a named column (it was planned for views).
pub fn with_plain_string_columns(scan: &DataSourceExec, columns: &[&str]) -> Option<Arc<DataSourceExec>> {
    let (_, source) = scan.downcast_to_file_source::<ParquetSource>()?;
    if let Some(predicate) = source.filter() {
        if datafusion::physical_expr::utils::collect_columns(&predicate).iter().any(|c| columns.contains(&c.name())) {
            return None;
        }
    }
    let names: Arc<HashSet<String>> = Arc::new(columns.iter().map(|c| c.to_string()).collect());
    with_file_column_type(scan, columns, DataType::Utf8, |inner| Arc::new(TypeHintReaderFactory { inner, columns: names, hint: TypeHint::ViewsWhereDictionaryEncoded }))
}

/// `scan` rebuilt with the file columns named in `columns` (string columns) typed
/// `data_type`, its reader factory wrapped by `factory`.
fn with_file_column_type(
    scan: &DataSourceExec,
    columns: &[&str],
    data_type: DataType,
    factory: impl FnOnce(Arc<dyn ParquetFileReaderFactory>) -> Arc<dyn ParquetFileReaderFactory>,
) -> Option<Arc<DataSourceExec>> {
    let (config, source) = scan.downcast_to_file_source::<ParquetSource>()?;
    let table_schema = source.table_schema();
    let file_schema = table_schema.file_schema();
    let mut fields: Vec<Field> = file_schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for name in columns {
        let field = fields.iter_mut().find(|f| f.name() == name)?;
        if !matches!(field.data_type(), DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8) {
            return None;
        }
        *field = field.clone().with_data_type(data_type.clone());
    }
    let new_file_schema = Arc::new(Schema::new_with_metadata(fields, file_schema.metadata().clone()));
    let new_table_schema = TableSchema::builder(new_file_schema)
        .with_table_partition_cols(table_schema.table_partition_cols().clone())
        .with_virtual_columns(table_schema.virtual_columns().clone())
        .build();
    let inner_factory = source.parquet_file_reader_factory()?.clone();
    let mut new_source = ParquetSource::new(new_table_schema)
        .with_table_parquet_options(source.table_parquet_options().clone())
        .with_parquet_file_reader_factory(factory(inner_factory));
    if let Some(predicate) = source.filter() {
        new_source = new_source.with_predicate(predicate.clone());
    }
    let new_source: Arc<dyn FileSource> = Arc::new(new_source);
    let new_source = match source.projection() {
        Some(projection) => new_source.try_pushdown_projection(projection).ok()??,
        None => new_source,
    };
    let new_config = FileScanConfigBuilder::from(config.clone()).with_source(new_source).build();
    Some(DataSourceExec::from_data_source(new_config))
}

/// What the footers handed out ask the reader for.
#[derive(Debug, Clone, Copy)]
enum TypeHint {
    /// The columns as [`dictionary_string_type`].
    Dictionary,
    /// The columns whose chunks are dictionary-encoded in every row group as `Utf8View`.
    ViewsWhereDictionaryEncoded,
}

/// Hands out the readers of `inner` with footers whose embedded Arrow schema types
/// `columns` as `hint` says.
#[derive(Debug)]
struct TypeHintReaderFactory {
    inner: Arc<dyn ParquetFileReaderFactory>,
    columns: Arc<HashSet<String>>,
    hint: TypeHint,
}

impl ParquetFileReaderFactory for TypeHintReaderFactory {
    fn create_reader(
        &self,
        partition_index: usize,
        partitioned_file: PartitionedFile,
        metadata_size_hint: Option<usize>,
        metrics: &ExecutionPlanMetricsSet,
    ) -> datafusion::common::Result<Box<dyn AsyncFileReader + Send>> {
        let inner = self.inner.create_reader(partition_index, partitioned_file, metadata_size_hint, metrics)?;
        Ok(Box::new(TypeHintReader { inner, columns: self.columns.clone(), hint: self.hint }))
    }
}

struct TypeHintReader {
    inner: Box<dyn AsyncFileReader + Send>,
    columns: Arc<HashSet<String>>,
    hint: TypeHint,
}

impl AsyncFileReader for TypeHintReader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        self.inner.get_bytes(range)
    }

    fn get_byte_ranges(&mut self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        self.inner.get_byte_ranges(ranges)
    }

    fn get_metadata<'a>(&'a mut self, options: Option<&'a ArrowReaderOptions>) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        let (columns, hint) = (self.columns.clone(), self.hint);
        self.inner.get_metadata(options).map(move |metadata| with_type_hint(metadata?, &columns, hint)).boxed()
    }
}

/// `metadata` with an embedded Arrow schema that types the string columns among
/// `columns` as `hint` says (the same `metadata` when that changes no column).
fn with_type_hint(metadata: Arc<ParquetMetaData>, columns: &HashSet<String>, hint: TypeHint) -> parquet::errors::Result<Arc<ParquetMetaData>> {
    let file = metadata.file_metadata();
    let schema = parquet_to_arrow_schema(file.schema_descr(), file.key_value_metadata())?;
    let dictionary_encoded = |name: &str| {
        let Some(leaf) = file.schema_descr().columns().iter().position(|c| c.path().parts() == [name.to_string()]) else { return false };
        metadata.row_groups().iter().all(|rg| rg.columns().get(leaf).is_some_and(|chunk| chunk.dictionary_page_offset().is_some()))
    };
    let mut changed = false;
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let string = matches!(f.data_type(), DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8);
            let new_type = match hint {
                _ if !string || !columns.contains(f.name()) => None,
                TypeHint::Dictionary => Some(dictionary_string_type()),
                TypeHint::ViewsWhereDictionaryEncoded => dictionary_encoded(f.name()).then_some(DataType::Utf8View),
            };
            match new_type {
                Some(data_type) if &data_type != f.data_type() => {
                    changed = true;
                    f.as_ref().clone().with_data_type(data_type)
                }
                _ => f.as_ref().clone(),
            }
        })
        .collect();
    if !changed {
        return Ok(metadata);
    }
    // The embedded schema carries the original one's metadata, minus the old copy of itself.
    let mut schema_metadata = schema.metadata().clone();
    schema_metadata.remove(ARROW_SCHEMA_META_KEY);
    let encoded = encode_arrow_schema(&Schema::new_with_metadata(fields, schema_metadata));
    let mut key_values: Vec<KeyValue> = file.key_value_metadata().cloned().unwrap_or_default();
    key_values.retain(|kv| kv.key != ARROW_SCHEMA_META_KEY);
    key_values.push(KeyValue::new(ARROW_SCHEMA_META_KEY.to_string(), encoded));
    let new_file = FileMetaData::new(
        file.version(),
        file.num_rows(),
        file.created_by().map(str::to_string),
        Some(key_values),
        file.schema_descr_ptr(),
        file.column_orders().cloned(),
    );
    let mut builder = ParquetMetaDataBuilder::new_from_metadata(metadata.as_ref().clone());
    let row_groups = builder.take_row_groups();
    let column_index = builder.take_column_index();
    let offset_index = builder.take_offset_index();
    let rebuilt = ParquetMetaDataBuilder::new(new_file).set_row_groups(row_groups).set_column_index(column_index).set_offset_index(offset_index).build();
    Ok(Arc::new(rebuilt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, RecordBatch, StringArray};
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::ParquetMetaDataReader;

    fn parquet_file() -> Bytes {
        parquet_file_with(None)
    }

    fn parquet_file_with(properties: Option<parquet::file::properties::WriterProperties>) -> Bytes {
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false), Field::new("name", DataType::Utf8, true)]));
        let names: StringArray = (0..100).map(|i| (i % 10 != 0).then(|| format!("n{}", i % 7))).collect();
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from_iter_values(0..100)), Arc::new(names)]).expect("batch");
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, schema, properties).expect("writer");
        writer.write(&batch).expect("write");
        writer.close().expect("close");
        Bytes::from(out)
    }

    #[test]
    fn hinted_footer_reads_string_columns_as_dictionaries() {
        let file = parquet_file();
        let metadata = Arc::new(ParquetMetaDataReader::new().parse_and_finish(&file).expect("footer"));
        let columns: HashSet<String> = ["name".to_string(), "id".to_string(), "absent".to_string()].into();
        let hinted = with_type_hint(metadata.clone(), &columns, TypeHint::Dictionary).expect("hint");
        let reader_metadata = ArrowReaderMetadata::try_new(hinted, Default::default()).expect("reader metadata");
        // Only the string column changes type; the integer one and the absent one are left alone.
        assert_eq!(reader_metadata.schema().field(0).data_type(), &DataType::Int64);
        assert_eq!(reader_metadata.schema().field(1).data_type(), &dictionary_string_type());
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file.clone(), reader_metadata).build().expect("reader");
        let plain = ParquetRecordBatchReaderBuilder::try_new(file).expect("plain").build().expect("reader");
        for (hinted, plain) in reader.zip(plain) {
            let (hinted, plain) = (hinted.expect("batch"), plain.expect("batch"));
            let decoded = arrow::compute::cast(hinted.column(1), &DataType::Utf8).expect("cast");
            assert_eq!(decoded.as_ref(), plain.column(1).as_ref());
            assert_eq!(hinted.column(1).null_count(), 10);
        }
        // A file without string columns to change keeps its footer.
        let untouched = with_type_hint(metadata.clone(), &["id".to_string()].into(), TypeHint::Dictionary).expect("hint");
        assert!(Arc::ptr_eq(&untouched, &metadata));
    }

    /// Strings stay views where every row group dictionary-encodes them, and become
    /// plain strings where they are plain-encoded.
    #[test]
    fn plain_string_hint_keeps_views_for_dictionary_encoded_chunks() {
        let columns: HashSet<String> = ["name".to_string()].into();
        let schema_of = |file: Bytes| {
            let metadata = Arc::new(ParquetMetaDataReader::new().parse_and_finish(&file).expect("footer"));
            let hinted = with_type_hint(metadata, &columns, TypeHint::ViewsWhereDictionaryEncoded).expect("hint");
            ArrowReaderMetadata::try_new(hinted, Default::default()).expect("reader metadata").schema().field(1).data_type().clone()
        };
        assert_eq!(schema_of(parquet_file()), DataType::Utf8View);
        let plain = parquet::file::properties::WriterProperties::builder().set_dictionary_enabled(false).build();
        assert_eq!(schema_of(parquet_file_with(Some(plain))), DataType::Utf8);
    }
}
