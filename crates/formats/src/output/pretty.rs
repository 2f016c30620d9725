//! `Pretty`, `PrettyCompact` (`PrettyCompactMonoBlock`) and `PrettySpace`: tables with
//! ClickHouse's box-drawing characters, row numbers, numbers (and dates) right-aligned,
//! multi-line values continued with `↴`/`↳`, long names cut in the middle with `⋯`, the
//! `-- 12.35 million` tip beside a single large number, column names repeated in a
//! footer for long tables, and the `output_format_pretty_max_rows` cut-off (the first
//! and the last rows, a `─ ─ ─` filler between, and `Showed N out of M rows.`).
//!
//! The layout follows ClickHouse's `PrettyBlockOutputFormat`. ClickHouse squashes the
//! blocks of a result that arrive within 50 ms into one table; Granary always writes one
//! table at the end (as `PrettyCompactMonoBlock` does), keeping only the rows that are
//! shown: the first `(max_rows + 1) / 2` and a ring of the last `max_rows / 2`, so memory
//! is bounded whatever the size of the result.
//!
//! Not done: the fallback to the `Vertical` layout for wide tables of few rows
//! (`output_format_pretty_fallback_to_vertical`), colors (never used over HTTP).

use std::collections::VecDeque;

use arrow::array::{Array, AsArray};
use arrow::datatypes::{DataType, Float64Type, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::{TextOptions, TextStyle};
use granary_types::ChType;

use super::column_writers;
use crate::{FormatSettings, OutputFormat, QueryStatistics};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrettyStyle {
    Full,
    Compact,
    Space,
}

/// The text of each cell, and the last column's value as a number (for the tip).
struct Row {
    cells: Vec<Vec<u8>>,
    number: Option<f64>,
}

pub struct Pretty {
    schema: SchemaRef,
    style: PrettyStyle,
    max_rows: u64,
    max_column_pad_width: usize,
    max_value_width: usize,
    row_numbers: bool,
    footer_min_rows: u64,
    tip_threshold: u64,
    /// `output_format_pretty_max_column_name_width_cut_to` / `_min_chars_to_cut`.
    name_cut_to: usize,
    name_min_chars_to_cut: usize,
    /// The first rows of the result, up to `(max_rows + 1) / 2`.
    head: Vec<Row>,
    /// The last rows after the head, up to `max_rows / 2`.
    tail: VecDeque<Row>,
    total_rows: u64,
    /// The WITH TOTALS row, shown as a table of its own after the result.
    totals: Option<Row>,
    align_right: Vec<bool>,
    /// The last column is a number: a large value gets a readable tip beside its row.
    last_column_number: bool,
    options: TextOptions,
}

/// ClickHouse's `shouldAlignRightInPrettyFormats`: numbers, decimals, dates and times
/// (not Bool, whose text is a word).
pub(crate) fn aligns_right(t: &ChType) -> bool {
    matches!(
        t.base(),
        ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Int128
            | ChType::UInt128
            | ChType::Int256
            | ChType::UInt256
            | ChType::Float32
            | ChType::Float64
            | ChType::Decimal(..)
            | ChType::Interval(_)
            | ChType::Date
            | ChType::Date32
            | ChType::DateTime(_)
            | ChType::DateTime64(..)
            | ChType::Time
            | ChType::Time64(_)
    )
}

pub(crate) fn is_number(t: &ChType) -> bool {
    matches!(
        t.base(),
        ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Int128
            | ChType::UInt128
            | ChType::Int256
            | ChType::UInt256
            | ChType::Float32
            | ChType::Float64
            | ChType::Bool
            | ChType::Decimal(..)
    )
}

/// A numeric column as Float64 (ClickHouse's `getFloat64`), for the number tip; wide
/// integers through their own conversion (UInt256 is unsigned).
pub(crate) fn as_float64(field: &arrow::datatypes::Field, column: &arrow::array::ArrayRef) -> Option<arrow::array::Float64Array> {
    if let Some(kind) = granary_types::wide::WideInt::of(ChType::from_field(field).base()) {
        return kind.widen(column.as_ref()).ok().map(|words| words.unary(|v| kind.to_f64(v)));
    }
    arrow::compute::cast(column, &DataType::Float64).ok().and_then(|a| a.as_primitive_opt::<Float64Type>().cloned())
}

impl Pretty {
    pub fn new(schema: SchemaRef, style: PrettyStyle, settings: &FormatSettings) -> Self {
        let types: Vec<ChType> = schema.fields().iter().map(|f| ChType::from_field(f)).collect();
        Pretty {
            align_right: types.iter().map(aligns_right).collect(),
            last_column_number: types.last().is_some_and(is_number),
            schema,
            style,
            max_rows: settings.pretty_max_rows.max(1),
            max_column_pad_width: settings.pretty_max_column_pad_width as usize,
            max_value_width: settings.pretty_max_value_width as usize,
            row_numbers: settings.pretty_row_numbers,
            footer_min_rows: settings.pretty_footer_min_rows,
            tip_threshold: settings.pretty_number_tip_threshold,
            name_cut_to: settings.pretty_name_cut_to as usize,
            name_min_chars_to_cut: settings.pretty_name_min_chars_to_cut as usize,
            head: Vec::new(),
            tail: VecDeque::new(),
            total_rows: 0,
            totals: None,
            options: settings.text.clone(),
        }
    }

    fn head_capacity(&self) -> usize {
        self.max_rows.div_ceil(2) as usize
    }

    fn tail_capacity(&self) -> usize {
        (self.max_rows / 2) as usize
    }
}

impl OutputFormat for Pretty {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_totals(&mut self, totals: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        if totals.num_rows() > 0 {
            self.totals = Some(self.cell_writers(totals)?.row(0));
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let cells = self.cell_writers(batch)?;
        for row in 0..batch.num_rows() {
            self.total_rows += 1;
            if self.head.len() < self.head_capacity() {
                self.head.push(cells.row(row));
            } else if self.tail_capacity() > 0 {
                if self.tail.len() == self.tail_capacity() {
                    self.tail.pop_front();
                }
                self.tail.push_back(cells.row(row));
            }
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        self.write_rows(out);
        if let Some(totals) = self.totals.take() {
            out.extend_from_slice(b"\nTotals:\n");
            self.render(&[(0, &totals)], out);
        }
        Ok(())
    }
}

/// Serializes the cells of a batch's rows, and the last column as a number for the tip.
struct CellWriters {
    columns: Vec<granary_types::text::ColumnWriter>,
    numbers: Option<arrow::array::Float64Array>,
}

impl CellWriters {
    fn row(&self, row: usize) -> Row {
        let cells = self
            .columns
            .iter()
            .map(|w| {
                let mut cell = Vec::new();
                w.write(row, &mut cell);
                cell
            })
            .collect();
        let number = self.numbers.as_ref().filter(|a| a.is_valid(row)).map(|a| a.value(row));
        Row { cells, number }
    }
}

impl Pretty {
    fn cell_writers(&self, batch: &RecordBatch) -> Result<CellWriters> {
        // The last column as Float64 (ClickHouse's getFloat64), for the number tip.
        let numbers = if self.last_column_number {
            let last = batch.num_columns() - 1;
            as_float64(batch.schema().field(last), batch.column(last))
        } else {
            None
        };
        Ok(CellWriters { columns: column_writers(&self.schema, batch, TextStyle::Pretty, &self.options)?, numbers })
    }

    /// The result's table (head and tail rows) and the "Showed" line.
    fn write_rows(&mut self, out: &mut Vec<u8>) {
        if self.total_rows == 0 {
            return;
        }
        let head = std::mem::take(&mut self.head);
        let tail: Vec<Row> = std::mem::take(&mut self.tail).into();
        let rows: Vec<(u64, &Row)> = head
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u64, r))
            .chain(tail.iter().enumerate().map(|(k, r)| (self.total_rows - tail.len() as u64 + k as u64, r)))
            .collect();
        self.render(&rows, out);
        if self.total_rows >= self.max_rows {
            if self.style == PrettyStyle::Space {
                out.push(b'\n');
            }
            out.extend_from_slice(format!("Showed {} out of {} rows.\n", rows.len(), self.total_rows).as_bytes());
        }
    }
}

/// Splits `value` at line feeds (ClickHouse's output_format_pretty_multiline_fields).
fn lines(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value.split(|b| *b == b'\n')
}

impl Pretty {
    fn render(&self, rows: &[(u64, &Row)], out: &mut Vec<u8>) {
        let num_rows = self.total_rows;
        let columns = self.schema.fields().len();
        let row_number_width = (num_rows as f64).log10().floor() as usize + 3;
        let cut = num_rows > self.max_rows;
        let cut_to_width = if num_rows == 1 && columns == 1 { 0 } else { self.max_value_width };

        // Widths: of each displayed value (its widest line) and of each column.
        let mut prefix = row_number_width + if self.style == PrettyStyle::Space { 1 } else { 2 };
        let mut max_widths = vec![0usize; columns];
        let mut names = Vec::with_capacity(columns);
        let mut name_widths = Vec::with_capacity(columns);
        for (i, field) in self.schema.fields().iter().enumerate() {
            for (_, row) in rows {
                let mut value: &[u8] = &row.cells[i];
                if self.max_value_width > 0 && value.len() > self.max_value_width * 4 {
                    value = &value[..self.max_value_width * 4];
                }
                let width = lines(value).map(|line| display_width(line, prefix)).max().unwrap_or(0);
                max_widths[i] = max_widths[i].max(width.min(self.max_column_pad_width).min(self.max_value_width.max(1)));
            }
            let cut_to = if self.name_cut_to == 0 { 0 } else { max_widths[i].max(self.name_cut_to) };
            let (name, width) = truncate_name(field.name(), cut_to, self.name_min_chars_to_cut);
            let name_width = width.min(self.max_column_pad_width);
            max_widths[i] = max_widths[i].max(name_width);
            names.push(name);
            name_widths.push(name_width);
            prefix += max_widths[i] + 3;
        }

        let left_blank = if self.row_numbers { " ".repeat(row_number_width) } else { String::new() };
        let grid_line = |left: &str, fill: &str, mid: &str, right: &str| -> String {
            let mut line = left_blank.clone();
            line.push_str(left);
            for (i, w) in max_widths.iter().enumerate() {
                if i > 0 {
                    line.push_str(mid);
                }
                line.push_str(&fill.repeat(w + 2));
            }
            line.push_str(right);
            line.push('\n');
            line
        };
        let (header_begin, header_end, rows_separator, rows_end, footer_begin, footer_end) = match self.style {
            PrettyStyle::Full => (
                grid_line("┏", "━", "┳", "┓"),
                grid_line("┡", "━", "╇", "┩"),
                grid_line("├", "─", "┼", "┤"),
                grid_line("└", "─", "┴", "┘"),
                grid_line("┢", "━", "╈", "┪"),
                grid_line("┗", "━", "┻", "┛"),
            ),
            PrettyStyle::Compact => (String::new(), String::new(), String::new(), grid_line("└", "─", "┴", "┘"), String::new(), String::new()),
            PrettyStyle::Space => (String::new(), "\n".into(), String::new(), String::new(), "\n".into(), "\n".into()),
        };
        let filler = {
            let mut size: usize = max_widths.iter().map(|w| w + 3).sum();
            if self.style == PrettyStyle::Space {
                size = size.saturating_sub(2);
            } else {
                size += 1;
            }
            let mut line = left_blank.clone();
            for i in 0..size {
                line.push_str(if i % 2 == 1 { " " } else { "─" });
            }
            line.push('\n');
            line
        };

        let write_names = |out: &mut Vec<u8>, top: bool| {
            let mut line = left_blank.clone();
            let (corner_left, cross, corner_right) = if top { ("┌", "┬", "┐") } else { ("└", "┴", "┘") };
            match self.style {
                PrettyStyle::Full => line.push_str("┃ "),
                PrettyStyle::Compact => {
                    line.push_str(corner_left);
                    line.push('─');
                }
                PrettyStyle::Space => line.push(' '),
            }
            for i in 0..columns {
                if i > 0 {
                    match self.style {
                        PrettyStyle::Full => line.push_str(" ┃ "),
                        PrettyStyle::Compact => {
                            line.push('─');
                            line.push_str(cross);
                            line.push('─');
                        }
                        PrettyStyle::Space => line.push_str("   "),
                    }
                }
                let padding = (if self.style == PrettyStyle::Compact { "─" } else { " " }).repeat(max_widths[i] - name_widths[i]);
                if self.align_right[i] {
                    line.push_str(&padding);
                    line.push_str(&names[i]);
                } else {
                    line.push_str(&names[i]);
                    line.push_str(&padding);
                }
            }
            match self.style {
                PrettyStyle::Full => line.push_str(" ┃"),
                PrettyStyle::Compact => {
                    line.push('─');
                    line.push_str(corner_right);
                }
                PrettyStyle::Space => {}
            }
            line.push('\n');
            out.extend_from_slice(line.as_bytes());
        };

        out.extend_from_slice(header_begin.as_bytes());
        write_names(out, true);
        out.extend_from_slice(header_end.as_bytes());

        // ClickHouse measures tabs of every cell from the first column's position.
        let cell_prefix = row_number_width + if self.style == PrettyStyle::Space { 1 } else { 2 };
        let mut filler_written = false;
        for (index, row) in rows.iter() {
            let in_tail = cut && *index >= self.max_rows.div_ceil(2);
            if in_tail && !filler_written {
                out.extend_from_slice(rows_separator.as_bytes());
                out.extend_from_slice(filler.as_bytes());
                filler_written = true;
            }
            if *index != 0 {
                out.extend_from_slice(rows_separator.as_bytes());
            }
            let mut offsets = vec![0usize; columns];
            let mut first_line = true;
            loop {
                if self.row_numbers {
                    if first_line {
                        let number = format!("{}. ", index + 1);
                        out.extend(std::iter::repeat_n(b' ', row_number_width.saturating_sub(number.len())));
                        out.extend_from_slice(number.as_bytes());
                    } else {
                        out.extend_from_slice(left_blank.as_bytes());
                    }
                }
                first_line = false;
                let mut all_printed = true;
                for j in 0..columns {
                    if self.style != PrettyStyle::Space {
                        out.extend_from_slice("│".as_bytes());
                    } else if j != 0 {
                        out.push(b' ');
                    }
                    let value = &row.cells[j];
                    let start = offsets[j];
                    let is_continuation = start > 0 && start < value.len();
                    let (fragment, mut width): (&[u8], usize) = if start >= value.len() {
                        (&[], 0)
                    } else {
                        let end = memchr::memchr(b'\n', &value[start..]).map_or(value.len(), |p| start + p);
                        offsets[j] = end;
                        (&value[start..end], display_width(&value[start..end], cell_prefix))
                    };
                    let mut fragment: std::borrow::Cow<'_, [u8]> = fragment.into();
                    let mut is_cut = false;
                    if cut_to_width > 0 && width > cut_to_width {
                        is_cut = true;
                        let keep = bytes_before_width(&fragment, cell_prefix, self.max_value_width);
                        let mut cut_value = fragment[..keep].to_vec();
                        cut_value.extend_from_slice("⋯".as_bytes());
                        fragment = cut_value.into();
                        width = self.max_value_width;
                    }
                    if is_continuation {
                        out.extend_from_slice("↳".as_bytes());
                    } else {
                        out.push(b' ');
                    }
                    let padding = max_widths[j].saturating_sub(width);
                    if self.align_right[j] {
                        out.extend(std::iter::repeat_n(b' ', padding));
                        out.extend_from_slice(&fragment);
                    } else {
                        out.extend_from_slice(&fragment);
                        out.extend(std::iter::repeat_n(b' ', padding));
                    }
                    if offsets[j] < value.len() {
                        out.extend_from_slice("↴".as_bytes());
                        // Step over the line feed.
                        offsets[j] += 1;
                        all_printed = false;
                    } else if !is_cut {
                        out.push(b' ');
                    }
                }
                if self.style != PrettyStyle::Space {
                    out.extend_from_slice("│".as_bytes());
                }
                self.write_number_tip(row.number, out);
                out.push(b'\n');
                if all_printed {
                    break;
                }
            }
        }
        if self.footer_min_rows > 0 && num_rows >= self.footer_min_rows {
            out.extend_from_slice(footer_begin.as_bytes());
            write_names(out, false);
            out.extend_from_slice(footer_end.as_bytes());
        } else {
            out.extend_from_slice(rows_end.as_bytes());
        }
    }

    /// ` -- 12.35 million` beside a row whose last column is a number above the threshold.
    fn write_number_tip(&self, number: Option<f64>, out: &mut Vec<u8>) {
        write_number_tip(number, self.tip_threshold, out);
    }
}

/// ClickHouse's `writeReadableNumberTip`: ` -- 12.35 million` after a number above
/// `threshold` (0: never), except in the range where most 64-bit hashes fall, which
/// would be noise.
pub(crate) fn write_number_tip(number: Option<f64>, threshold: u64, out: &mut Vec<u8>) {
    let Some(value) = number else { return };
    let abs = value.abs();
    if threshold == 0 || !value.is_finite() || abs <= threshold as f64 || (abs > 1e17 && abs < 1.844675e19) {
        return;
    }
    out.extend_from_slice(b" -- ");
    out.extend_from_slice(readable_quantity(value).as_bytes());
}

/// ClickHouse's `formatReadableQuantity(x, 2)`: `12.35 million`.
pub(crate) fn readable_quantity(mut value: f64) -> String {
    const UNITS: [&str; 22] = [
        "",
        " thousand",
        " million",
        " billion",
        " trillion",
        " quadrillion",
        " quintillion",
        " sextillion",
        " septillion",
        " octillion",
        " nonillion",
        " decillion",
        " undecillion",
        " duodecillion",
        " tredecillion",
        " quattuordecillion",
        " quindecillion",
        " sexdecillion",
        " septendecillion",
        " octodecillion",
        " novemdecillion",
        " vigintillion",
    ];
    let mut unit = 0;
    while unit + 1 < UNITS.len() && value.abs() >= 1000.0 {
        value /= 1000.0;
        unit += 1;
    }
    // double-conversion's ToFixed, which ClickHouse uses, gives up at 10^60 and
    // ClickHouse then prints the shortest form (`1.797693134862315e245 vigintillion`).
    if value.abs() >= 1e60 {
        return format!("{}{}", granary_types::text::float::f64_to_string(value), UNITS[unit]);
    }
    format!("{value:.2}{}", UNITS[unit])
}

/// Whether `name` is an identifier (ClickHouse never cuts those).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A column name cut in the middle to `cut_to` columns (with `⋯`) when it is longer than
/// `cut_to + hysteresis` and not an identifier; with its display width.
pub(crate) fn truncate_name(name: &str, cut_to: usize, hysteresis: usize) -> (String, usize) {
    let width = display_width(name.as_bytes(), 0);
    if cut_to == 0 || width <= cut_to + hysteresis || is_identifier(name) {
        return (name.to_string(), width);
    }
    let prefix_chars = cut_to / 2;
    let suffix_chars = (cut_to - 1) / 2;
    let prefix_bytes = bytes_before_width(name.as_bytes(), 0, prefix_chars);
    let suffix_begin = bytes_before_width(name.as_bytes(), 0, width - suffix_chars);
    let mut cut = String::with_capacity(name.len());
    cut.push_str(&String::from_utf8_lossy(&name.as_bytes()[..prefix_bytes]));
    cut.push('⋯');
    cut.push_str(&String::from_utf8_lossy(&name.as_bytes()[suffix_begin..]));
    (cut, cut_to)
}

/// Terminal columns of a code point (a small `wcwidth`): 0 for control characters and
/// combining marks, 2 for East Asian wide characters and emoji, else 1.
fn char_width(c: u32) -> usize {
    match c {
        0..=0x1F | 0x7F..=0x9F => 0,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A | 0x064B..=0x065F | 0x0E31 | 0x0E34..=0x0E3A
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200B..=0x200F | 0x20D0..=0x20FF | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x2FFFD
        | 0x30000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// Width and byte length of the next character (invalid UTF-8: one byte of width 0).
fn next_char(bytes: &[u8]) -> (u32, usize) {
    let len = match bytes[0] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (u32::MAX, 1),
    };
    match bytes.get(..len).and_then(|s| std::str::from_utf8(s).ok()).and_then(|s| s.chars().next()) {
        Some(c) => (c as u32, len),
        None => (u32::MAX, 1),
    }
}

/// ClickHouse's `UTF8::computeWidth`: the terminal columns of `bytes` printed after
/// `prefix` columns (a tab advances to the next multiple of 8; escape sequences take
/// no room).
pub(crate) fn display_width(bytes: &[u8], prefix: usize) -> usize {
    measure(bytes, prefix, usize::MAX).0
}

/// How many bytes of `bytes` fit in `limit` columns.
fn bytes_before_width(bytes: &[u8], prefix: usize, limit: usize) -> usize {
    measure(bytes, prefix, limit).1
}

/// (width, bytes that fit in `limit`).
fn measure(bytes: &[u8], prefix: usize, limit: usize) -> (usize, usize) {
    let mut width = 0usize;
    let mut i = 0;
    let mut in_escape = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_escape {
            // CSI: parameters and intermediates take no room; a final byte ends it.
            if (0x40..=0x7E).contains(&b) && b != b'[' {
                in_escape = false;
            }
            i += 1;
            continue;
        }
        let (c, len) = next_char(&bytes[i..]);
        let next = match c {
            0x1B => {
                in_escape = true;
                width
            }
            0x09 => width + 8 - (prefix + width) % 8,
            u32::MAX => width,
            c => width + char_width(c),
        };
        if next > limit {
            return (width, i);
        }
        width = next;
        i += len;
    }
    (width, bytes.len())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(display_width("ᴺᵁᴸᴸ".as_bytes(), 0), 4);
        assert_eq!(display_width("абв".as_bytes(), 0), 3);
        assert_eq!(display_width("日本".as_bytes(), 0), 4);
        assert_eq!(display_width(b"a\tb", 0), 9);
        assert_eq!(display_width(b"a\tb", 5), 4);
        assert_eq!(display_width(b"a\x01b", 0), 2);
        assert_eq!(display_width(b"\x1b[1mab\x1b[0m", 0), 2);
        assert_eq!(display_width(&[0xff, b'a'], 0), 1);
        assert_eq!(bytes_before_width("абв".as_bytes(), 0, 2), 4);
    }

    #[test]
    fn names_and_quantities() {
        assert_eq!(truncate_name("a very long column name that is not an identifier!", 24, 4), ("a very long ⋯identifier!".to_string(), 24));
        assert_eq!(truncate_name("very_long_identifier_name_that_is_fine_really_long", 24, 4).1, 50);
        assert_eq!(readable_quantity(12_345_678.0), "12.35 million");
        assert_eq!(readable_quantity(9_999_999.0), "10.00 million");
        assert_eq!(readable_quantity(-1_000_001.0), "-1.00 million");
        assert_eq!(readable_quantity(1e21), "1.00 sextillion");
        assert_eq!(readable_quantity(3.4e38), "340.00 undecillion");
    }
}
