//! `LIMIT n [OFFSET m] BY columns`: keeps, for each distinct value of the BY columns, the
//! rows from m+1 to m+n in stream order (the stream is already ORDER BY-sorted). Applied
//! to the result stream because DataFusion has no such operator.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::StreamExt;

use arrow::array::{BooleanArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::row::{RowConverter, SortField};
use granary_common::{Error, ErrorCode, Result};
use granary_sql::rewrite::LimitBy;

pub struct LimitByState {
    spec: LimitBy,
    key_columns: Vec<usize>,
    converter: RowConverter,
    seen: HashMap<Box<[u8]>, u64>,
    /// Rows LIMIT BY kept so far (for a following `LIMIT m OFFSET k`).
    kept: u64,
}

impl LimitByState {
    pub fn new(spec: LimitBy, schema: &arrow::datatypes::Schema) -> Result<Self> {
        let key_columns = spec
            .columns
            .iter()
            .map(|name| {
                schema.index_of(name).map_err(|_| {
                    Error::new(ErrorCode::UNKNOWN_IDENTIFIER, format!("LIMIT BY column {name} must be one of the result columns"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let fields = key_columns.iter().map(|i| SortField::new(schema.field(*i).data_type().clone())).collect();
        Ok(LimitByState { spec, key_columns, converter: RowConverter::new(fields)?, seen: HashMap::new(), kept: 0 })
    }

    pub fn apply(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let keys: Vec<_> = self.key_columns.iter().map(|i| batch.column(*i).clone()).collect();
        let rows = self.converter.convert_columns(&keys)?;
        let (offset, limit) = (self.spec.offset, self.spec.limit);
        let keep: BooleanArray = (0..batch.num_rows())
            .map(|i| {
                let count = self.seen.entry(rows.row(i).as_ref().into()).or_insert(0);
                *count += 1;
                if *count <= offset || *count > offset + limit {
                    return Some(false);
                }
                let Some((then_limit, then_offset)) = self.spec.then else { return Some(true) };
                self.kept += 1;
                Some(self.kept > then_offset && self.kept <= then_offset + then_limit)
            })
            .collect();
        Ok(filter_record_batch(batch, &keep)?)
    }
}

/// The stream with LIMIT BY applied.
pub fn apply_to_stream(stream: SendableRecordBatchStream, spec: LimitBy) -> Result<SendableRecordBatchStream> {
    let schema = stream.schema();
    let mut state = LimitByState::new(spec, &schema)?;
    let limited = stream.map(move |batch| Ok(state.apply(&batch?).map_err(Error::into_datafusion)?));
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, limited)))
}

/// The stream without the helper columns the SQL front end added for LIMIT BY keys that
/// are not selected (`LIMIT 2 BY x % 4`) and for WITH TIES; unchanged when it has none.
pub fn without_hidden_columns(stream: SendableRecordBatchStream) -> Result<SendableRecordBatchStream> {
    let input_schema = stream.schema();
    let visible: Vec<usize> =
        (0..input_schema.fields().len()).filter(|i| !input_schema.field(*i).name().starts_with(granary_sql::rewrite::LIMIT_BY_HIDDEN_PREFIX)).collect();
    if visible.len() == input_schema.fields().len() {
        return Ok(stream);
    }
    let schema = Arc::new(input_schema.project(&visible)?);
    let projected = stream.map(move |batch| Ok(batch?.project(&visible)?));
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, projected)))
}
