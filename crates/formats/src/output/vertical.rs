//! `Vertical` (clickhouse-client's `\G`): each row as `Row N:`, an underline of `─`, and
//! one `name: value` line per column, names padded to the widest (names that are not
//! identifiers cut in the middle as in Pretty), values as `toString` writes them (NULL
//! `ᴺᵁᴸᴸ`, nothing escaped), numbers followed by the readable tip of large values
//! (` -- 12.35 million`). Rows past `output_format_pretty_max_rows` are left out and
//! `Showed first N.` ends the output; `WITH TOTALS` adds a `Totals:` block.

use arrow::array::{Array, Float64Array};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::{ColumnWriter, TextOptions, TextStyle};
use granary_types::ChType;

use super::column_writers;
use super::pretty::{as_float64, is_number, truncate_name, write_number_tip};
use crate::{FormatSettings, OutputFormat, QueryStatistics};

pub struct Vertical {
    schema: SchemaRef,
    /// `name: ` padded to the widest name, per column.
    names: Vec<Vec<u8>>,
    /// Columns whose values get the readable tip.
    numbers: Vec<bool>,
    max_rows: u64,
    tip_threshold: u64,
    rows: u64,
    options: TextOptions,
}

impl Vertical {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        let cut: Vec<(String, usize)> = schema
            .fields()
            .iter()
            .map(|f| truncate_name(f.name(), settings.pretty_name_cut_to as usize, settings.pretty_name_min_chars_to_cut as usize))
            .collect();
        let widest = cut.iter().map(|(_, w)| *w).max().unwrap_or(0);
        let names = cut
            .into_iter()
            .map(|(name, width)| {
                let mut padded = name.into_bytes();
                padded.extend_from_slice(b": ");
                padded.resize(padded.len() + widest - width, b' ');
                padded
            })
            .collect();
        let numbers = schema.fields().iter().map(|f| is_number(&ChType::from_field(f))).collect();
        Vertical {
            schema,
            names,
            numbers,
            max_rows: settings.pretty_max_rows,
            tip_threshold: settings.pretty_number_tip_threshold,
            rows: 0,
            options: settings.text.clone(),
        }
    }

    /// The `name: value` lines of row `row` of `batch`.
    fn write_fields(&self, columns: &[ColumnWriter], numbers: &[Option<Float64Array>], row: usize, out: &mut Vec<u8>) {
        for (i, writer) in columns.iter().enumerate() {
            out.extend_from_slice(&self.names[i]);
            writer.write(row, out);
            if let Some(values) = &numbers[i] {
                write_number_tip(values.is_valid(row).then(|| values.value(row)), self.tip_threshold, out);
            }
            out.push(b'\n');
        }
    }

    /// The number columns of `batch` as Float64 (ClickHouse's `getFloat64`), for the tip.
    fn numbers(&self, batch: &RecordBatch) -> Vec<Option<Float64Array>> {
        batch
            .columns()
            .iter()
            .zip(batch.schema().fields())
            .zip(&self.numbers)
            .map(|((column, field), number)| if *number { as_float64(field, column) } else { None })
            .collect()
    }
}

impl OutputFormat for Vertical {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if batch.num_rows() == 0 || self.rows >= self.max_rows {
            self.rows += batch.num_rows() as u64;
            return Ok(());
        }
        let columns = column_writers(&self.schema, batch, TextStyle::Pretty, &self.options)?;
        let numbers = self.numbers(batch);
        for row in 0..batch.num_rows() {
            self.rows += 1;
            if self.rows > self.max_rows {
                continue;
            }
            if self.rows > 1 {
                out.push(b'\n');
            }
            out.extend_from_slice(format!("Row {}:\n", self.rows).as_bytes());
            // ClickHouse sizes the underline by the digits of the next row number.
            let width = ((self.rows + 1) as f64).log10() as usize + 1 + "Row :".len();
            out.extend_from_slice("─".repeat(width).as_bytes());
            out.push(b'\n');
            self.write_fields(&columns, &numbers, row, out);
        }
        Ok(())
    }

    fn write_totals(&mut self, totals: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if totals.num_rows() == 0 {
            return Ok(());
        }
        out.extend_from_slice("\n\nTotals:\n───────\n".as_bytes());
        let columns = column_writers(&self.schema, totals, TextStyle::Pretty, &self.options)?;
        self.write_fields(&columns, &self.numbers(totals), 0, out);
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if self.rows > self.max_rows {
            // The row separator before the first row left out is still written.
            out.extend_from_slice(format!("\nShowed first {}.\n", self.max_rows).as_bytes());
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::pretty::display_width;
    use super::*;

    #[test]
    fn names_are_padded_by_display_width() {
        let schema = std::sync::Arc::new(arrow::datatypes::Schema::new(vec![
            ChType::String.to_arrow_field("имя"),
            ChType::UInt8.to_arrow_field("x"),
        ]));
        let v = Vertical::new(schema, &FormatSettings::default());
        assert_eq!(String::from_utf8(v.names[0].clone()).unwrap(), "имя: ");
        assert_eq!(String::from_utf8(v.names[1].clone()).unwrap(), "x:   ");
        assert_eq!(display_width("имя".as_bytes(), 0), 3);
    }
}
