//! `TabSeparated` (`TSV`), `TabSeparatedRaw`, `CSV`, with optional header lines of names
//! (columns matched by name; unknown ones skipped with `input_format_skip_unknown_fields`,
//! missing ones filled with defaults) and of types (read and ignored).
//!
//! TSV: rows end at a line feed that is not escaped; fields are split at tabs and their
//! backslash escapes decoded; `\N` is NULL. CSV: fields are split at the delimiter,
//! `"..."` (and `'...'` with `format_csv_allow_single_quotes`) quote fields with `""`
//! for a quote, CRLF line ends are accepted, spaces and tabs around unquoted fields are
//! trimmed, an unquoted `\N` is NULL and an empty unquoted field is the default.

use std::borrow::Cow;
use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{shorten, unescape_tsv};
use granary_types::ChType;

use granary_simd::{byte_masks, prefix_xor, BLOCK};

use super::classify::Stops;
use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

/// Rows split before their columns are parsed (see `parse_rows_by_columns`).
const COLUMN_GROUP_ROWS: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Tsv,
    /// TabSeparatedRaw: no escapes.
    TsvRaw,
    Csv,
}

/// Where the CSV scanner stands inside a row it has not finished (offsets from the
/// row's start, so they survive the row being moved to the start of a new buffer).
#[derive(Debug, Clone, Copy, Default)]
struct CsvRowScan {
    /// Bytes of the row already scanned.
    pos: usize,
    /// Where the current field starts (leading blanks included).
    field_start: usize,
    /// Inside a quoted field opened by this quote.
    quote: Option<u8>,
    /// Where the current quoted field's text starts.
    content_start: usize,
    /// The current quoted field has doubled quotes.
    doubled: bool,
    /// The current field's closing quote: its position and the quote.
    closed: Option<(usize, u8)>,
    /// Text after a closing quote: the row is split again by `split_csv`, which
    /// reports it (or, for a bad row that can be skipped, drops it).
    irregular: bool,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

#[derive(Clone)]
struct DelimitedRows {
    dialect: Dialect,
    delimiter: u8,
    allow_double_quotes: bool,
    allow_single_quotes: bool,
    /// Header lines still to read (names, then types).
    header_lines: usize,
    names_read: bool,
    use_header: bool,
    skip_unknown_fields: bool,
    names: HashMap<String, usize>,
    /// For each input field, the target column (None: skipped).
    mapping: Vec<Option<usize>>,
    /// Target columns absent from the input (filled with defaults).
    missing: Vec<usize>,
    /// Target columns of arrays, tuples and maps.
    composite: Vec<bool>,
    /// Bytes of the current row already scanned (resumed on the next push).
    resume: usize,
    csv_row: CsvRowScan,
    /// CSV: the delimiter, line feed and quotes, the bytes the row scanner stops at
    /// outside quoted fields.
    csv_stops: Stops,
    /// CSV: line feed and quotes, the bytes that decide where rows end.
    csv_row_stops: Stops,
    /// CSV: only `"` quotes, and a delimiter that is none of `"`, line feed, carriage
    /// return or a blank: rows can be cut and split 64 bytes at a time.
    regular_quotes: bool,
    /// CSV: the ends of fields quoted with `"` and with `'`.
    double_quote: Stops,
    single_quote: Stops,
    /// TSV: tab, line feed and (unless raw) backslash.
    tsv_stops: Stops,
    /// TSV: where the current field starts (from the row's start) and whether it has a
    /// backslash, in a row not finished yet.
    tsv_field: (usize, bool),
    /// Decoded field bytes (escapes, doubled quotes).
    scratch: Vec<u8>,
    /// Field boundaries of the current row (reused between rows).
    fields: Vec<Field>,
    /// `fields` are those of the row of this length that `scan` just returned (CSV
    /// rows are split while they are scanned).
    fields_of_row: Option<usize>,
}

/// One field of a row: where its text is, and whether it needs decoding.
#[derive(Debug, Clone, Copy)]
struct Field {
    start: usize,
    end: usize,
    /// CSV: the field was quoted (its quotes excluded from start..end).
    quoted: Option<u8>,
    /// The text has escapes to decode: CSV, doubled quotes; TSV, backslashes.
    escaped: bool,
}

impl DelimitedRows {
    /// ClickHouse reads a number as far as it looks like one and then expects the
    /// delimiter, so a bad number (`x`, `3x`) fails as a missing delimiter after the
    /// digits it read (or, for the last CSV field, a missing end of line), not as a
    /// conversion error. A float with no digits at all keeps its CANNOT_PARSE_NUMBER.
    fn number_error(&self, error: Error, ch_type: &ChType, row: &[u8], field: Field, last: bool) -> Error {
        let base = ch_type.base();
        let integer = matches!(base, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64);
        let float = matches!(base, ChType::Float32 | ChType::Float64);
        let text = &row[field.start..field.end];
        let numeric_prefix = text.iter().enumerate().take_while(|(i, b)| b.is_ascii_digit() || (*i == 0 && matches!(b, b'-' | b'+')) || (float && matches!(b, b'.' | b'e' | b'E'))).count();
        let reclassify = (integer && error.code() == ErrorCode::CANNOT_PARSE_TEXT) || (float && error.code() == ErrorCode::CANNOT_PARSE_NUMBER && numeric_prefix > 0);
        if !reclassify {
            return error;
        }
        if let Some(quote) = field.quoted {
            let rest = &row[field.start + numeric_prefix..];
            return Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' before: '{}'", quote as char, shorten(rest)));
        }
        let rest = &row[field.start + numeric_prefix..];
        match (last, self.dialect) {
            (true, Dialect::Csv) => Error::new(ErrorCode::INCORRECT_DATA, "Expected end of line"),
            (true, _) => Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '\\n' before: '{}'", shorten(rest))),
            (false, _) => Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' before: '{}'", self.delimiter_text(), shorten(rest))),
        }
    }

    fn delimiter_text(&self) -> &'static str {
        match self.delimiter {
            b'\t' => "\\t",
            b',' => ",",
            b';' => ";",
            b'|' => "|",
            _ => "the delimiter",
        }
    }

    /// Finds the end of the TSV row starting at `from`, splitting it into `fields` at
    /// tabs on the way (only tabs, line feeds and backslashes are looked at). A
    /// backslash escapes the next byte for finding the row's end (an escaped line feed
    /// is part of the field); every tab separates fields, as `split_tsv` splits.
    fn scan_tsv(&mut self, data: &[u8], from: usize, eof: bool) -> Scan {
        if self.resume == 0 {
            self.fields.clear();
            self.tsv_field = (0, false);
        }
        self.fields_of_row = None;
        let (mut field_start, mut escaped) = self.tsv_field;
        let mut i = from + self.resume;
        while let Some(p) = self.tsv_stops.find(data, i) {
            i = p + 1;
            match data[p] {
                b'\t' => {
                    self.fields.push(Field { start: field_start, end: p - from, quoted: None, escaped });
                    field_start = p + 1 - from;
                    escaped = false;
                }
                b'\n' => {
                    self.fields.push(Field { start: field_start, end: p - from, quoted: None, escaped });
                    self.resume = 0;
                    self.fields_of_row = Some(p - from);
                    return Scan::Row { start: from, end: p, next: p + 1 };
                }
                _ => {
                    escaped = true;
                    match data.get(p + 1) {
                        None if !eof => {
                            // The escaped byte has not arrived yet: resume at the backslash.
                            self.resume = p - from;
                            self.tsv_field = (field_start, escaped);
                            return Scan::NeedMore { start: from };
                        }
                        None | Some(b'\t') => {}
                        Some(_) => i = p + 2,
                    }
                }
            }
        }
        if eof {
            self.resume = 0;
            if from >= data.len() {
                return Scan::Skip { next: data.len() };
            }
            self.fields.push(Field { start: field_start, end: data.len() - from, quoted: None, escaped });
            self.fields_of_row = Some(data.len() - from);
            return Scan::Row { start: from, end: data.len(), next: data.len() };
        }
        self.resume = data.len() - from;
        self.tsv_field = (field_start, escaped);
        Scan::NeedMore { start: from }
    }

    fn is_quote(&self, b: u8) -> bool {
        (b == b'"' && self.allow_double_quotes) || (b == b'\'' && self.allow_single_quotes)
    }

    /// Finds the end of the CSV row starting at `from`, splitting it into `fields` on
    /// the way. Only delimiters, quotes and line feeds are looked at (inside a quoted
    /// field, only its quote); a quote opens a quoted field only at the start of a field
    /// (after blanks).
    fn scan_csv(&mut self, data: &[u8], from: usize, eof: bool) -> Scan {
        let mut st = if self.resume == 0 {
            if self.regular_quotes {
                if let Some(scan) = self.scan_csv_blocks(data, from) {
                    return scan;
                }
            }
            self.fields.clear();
            CsvRowScan::default()
        } else {
            self.csv_row
        };
        self.fields_of_row = None;
        let mut i = from + st.pos;
        loop {
            if let Some(q) = st.quote {
                let quotes = if q == b'"' { &self.double_quote } else { &self.single_quote };
                let Some(p) = quotes.find(data, i) else { break };
                match data.get(p + 1) {
                    Some(&next) if next == q => {
                        st.doubled = true;
                        i = p + 2;
                    }
                    None if !eof => {
                        // A doubled quote or the end of the field: known with the next byte.
                        st.pos = p - from;
                        return self.csv_need_more(from, st);
                    }
                    _ => {
                        st.quote = None;
                        st.closed = Some((p - from, q));
                        i = p + 1;
                    }
                }
                continue;
            }
            let Some(p) = self.csv_stops.find(data, i) else { break };
            i = p + 1;
            let b = data[p];
            if b == b'\n' {
                let end = if p > from && data[p - 1] == b'\r' { p - 1 } else { p };
                return self.end_csv_row(data, from, end, p + 1, st);
            }
            if b == self.delimiter {
                self.end_csv_field(&data[from..], p - from, &mut st);
            } else if st.closed.is_none() && data[from + st.field_start..p].iter().all(|c| is_blank(*c)) {
                st.quote = Some(b);
                st.content_start = p + 1 - from;
                st.doubled = false;
            }
        }
        if eof && st.quote.is_none() {
            if from >= data.len() {
                self.resume = 0;
                return Scan::Skip { next: data.len() };
            }
            let end = if data.ends_with(b"\r") { data.len() - 1 } else { data.len() };
            return self.end_csv_row(data, from, end, data.len(), st);
        }
        st.pos = data.len() - from;
        self.csv_need_more(from, st)
    }

    /// The CSV row starting at `from` scanned 64 bytes at a time (see `csv_row_blocks`
    /// for when quotes are regular): the quotes' prefix parity says which delimiters and
    /// line feeds are outside quoted fields, and only those are visited; where quotes
    /// open, close and double is read from the masks.
    /// None, with nothing changed, when the row is not regular (a quote that does not
    /// open a field at its start, text after a closing quote) or does not end 64 bytes
    /// before the data does: the exact scan decides those.
    fn scan_csv_blocks(&mut self, data: &[u8], from: usize) -> Option<Scan> {
        self.fields.clear();
        let mut field_start = from;
        // The current field has a doubled quote.
        let mut escaped = false;
        // What the previous block's last byte was: inside a quoted field, a closing
        // quote, the end of a field (or `from`, a row start).
        let mut inside_carry = 0u64;
        let mut closer_carry = 0u64;
        let mut boundary_carry = 1u64;
        let mut i = from;
        loop {
            let block = data.get(i..i + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())?;
            let [quotes, delimiters, feeds, returns] = byte_masks(block, [b'"', self.delimiter, b'\n', b'\r']);
            let inside = prefix_xor(quotes) ^ inside_carry;
            let (openers, closers) = (quotes & inside, quotes & !inside);
            let ends = (delimiters | feeds) & !inside;
            // The bytes right after closing quotes.
            let after_closers = (closers << 1) | closer_carry;
            let doubled = openers & after_closers;
            // Regular: a quote opens a field at its start or doubles a quote, and a
            // closing quote is followed by a delimiter, a line end or a quote.
            if openers & !doubled & !((ends << 1) | boundary_carry) != 0 || after_closers & !(delimiters | feeds | returns | quotes) != 0 {
                return None;
            }
            let mut doubled_left = doubled;
            let mut events = ends;
            while events != 0 {
                let j = events.trailing_zeros();
                events &= events - 1;
                let at = i + j as usize;
                let before = (1u64 << j) - 1;
                escaped |= doubled_left & before != 0;
                doubled_left &= !before;
                let feed = data[at] == b'\n';
                let end = if feed && at > from && data[at - 1] == b'\r' { at - 1 } else { at };
                let field = if data[field_start] == b'"' {
                    let close = end - 1;
                    if close <= field_start || data[close] != b'"' {
                        return None;
                    }
                    Field { start: field_start + 1 - from, end: close - from, quoted: Some(b'"'), escaped }
                } else {
                    let (mut start, mut stop) = (field_start, end);
                    while start < stop && is_blank(data[start]) {
                        start += 1;
                    }
                    while stop > start && is_blank(data[stop - 1]) {
                        stop -= 1;
                    }
                    Field { start: start - from, end: stop - from, quoted: None, escaped: false }
                };
                self.fields.push(field);
                if feed {
                    self.resume = 0;
                    self.fields_of_row = Some(end - from);
                    return Some(Scan::Row { start: from, end, next: at + 1 });
                }
                field_start = at + 1;
                escaped = false;
            }
            escaped |= doubled_left != 0;
            inside_carry = if inside >> 63 == 1 { u64::MAX } else { 0 };
            closer_carry = closers >> 63;
            boundary_carry = ends >> 63;
            i += BLOCK;
        }
    }

    fn csv_need_more(&mut self, from: usize, st: CsvRowScan) -> Scan {
        self.resume = st.pos;
        self.csv_row = st;
        Scan::NeedMore { start: from }
    }

    /// The current field ends at `end` (relative to the row's start).
    fn end_csv_field(&mut self, row: &[u8], end: usize, st: &mut CsvRowScan) {
        match st.closed.take() {
            Some((close, q)) => {
                if !row[close + 1..end].iter().all(|c| is_blank(*c)) {
                    st.irregular = true;
                }
                self.fields.push(Field { start: st.content_start, end: close, quoted: Some(q), escaped: st.doubled });
            }
            None => {
                let mut start = st.field_start;
                while start < end && is_blank(row[start]) {
                    start += 1;
                }
                let mut stop = end;
                while stop > start && is_blank(row[stop - 1]) {
                    stop -= 1;
                }
                self.fields.push(Field { start, end: stop, quoted: None, escaped: false });
            }
        }
        st.field_start = end + 1;
        st.doubled = false;
    }

    fn end_csv_row(&mut self, data: &[u8], from: usize, end: usize, next: usize, mut st: CsvRowScan) -> Scan {
        let row = &data[from..end];
        self.end_csv_field(row, row.len(), &mut st);
        self.resume = 0;
        self.fields_of_row = if st.irregular { None } else { Some(row.len()) };
        Scan::Row { start: from, end, next }
    }

    /// How far whole CSV rows go from `from` (see [`RowFormat::whole_rows`]). This pass
    /// runs on one thread before the parallel parsers start, so regular data is cut 64
    /// bytes at a time (`csv_row_blocks`); what it cannot decide goes to the exact scan.
    fn whole_csv_rows(&self, data: &[u8], from: usize, min_bytes: usize) -> (usize, u64) {
        let (row_start, rows, done) = self.csv_row_blocks(data, from, min_bytes);
        if done {
            return (row_start, rows);
        }
        let (end, more) = self.exact_csv_rows(data, row_start, min_bytes.saturating_sub(row_start - from).max(1));
        (end, rows + more)
    }

    /// Whole CSV rows found 64 bytes at a time while the quotes are regular: only `"`
    /// quotes (and a delimiter that is none of `"`, line feed, carriage return, blank),
    /// each quote that opens a field right after a delimiter, a line feed or a closing
    /// quote (a doubled quote). Then whether a byte is inside a quoted field is the
    /// parity of the quotes before it in its row, as the exact scan decides it. Returns
    /// the row start reached, the rows before it, and whether `min_bytes` was reached
    /// (otherwise the exact scan goes on from that row start: a quote elsewhere, the
    /// last block).
    fn csv_row_blocks(&self, data: &[u8], from: usize, min_bytes: usize) -> (usize, u64, bool) {
        let delimiter = self.delimiter;
        if !self.regular_quotes {
            return (from, 0, false);
        }
        let mut rows = 0;
        let mut row_start = from;
        // Inside a quoted field at the block's start: all ones.
        let mut inside_carry = 0u64;
        // The byte before the block lets a quote open a field (`from` is a row start).
        let mut opener_carry = 1u64;
        let mut i = from;
        // A block must end before the data does: a quote as the last byte is undecided.
        while i + BLOCK < data.len() {
            let Some(block) = data.get(i..i + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok()) else { break };
            let [quotes, feeds, delimiters] = byte_masks(block, [b'"', b'\n', delimiter]);
            let inside = prefix_xor(quotes) ^ inside_carry;
            // Opening quotes must follow a delimiter, a line feed or a quote (a doubled one).
            let structural = quotes | feeds | delimiters;
            if quotes & inside & !((structural << 1) | opener_carry) != 0 {
                return (row_start, rows, false);
            }
            let mut ends = feeds & !inside;
            while ends != 0 {
                let at = i + ends.trailing_zeros() as usize;
                ends &= ends - 1;
                if self.counts_as_row(data, row_start, at) {
                    rows += 1;
                }
                row_start = at + 1;
                if row_start - from >= min_bytes {
                    return (row_start, rows, true);
                }
            }
            inside_carry = if inside >> 63 == 1 { u64::MAX } else { 0 };
            opener_carry = structural >> 63;
            i += BLOCK;
        }
        (row_start, rows, false)
    }

    /// How far whole CSV rows go from `from`, byte by byte where it matters: only quotes
    /// and line feeds are looked at; whether a quote starts a field is seen from the
    /// bytes before it (blanks back to a delimiter or the row's start).
    fn exact_csv_rows(&self, data: &[u8], from: usize, min_bytes: usize) -> (usize, u64) {
        let mut rows = 0;
        let mut row_start = from;
        let mut quote: Option<u8> = None;
        let mut i = from;
        loop {
            if let Some(q) = quote {
                let quotes = if q == b'"' { &self.double_quote } else { &self.single_quote };
                let Some(p) = quotes.find(data, i) else { break };
                match data.get(p + 1) {
                    Some(&next) if next == q => i = p + 2,
                    // Unknown yet whether the field ends: this row is not whole.
                    None => break,
                    _ => {
                        quote = None;
                        i = p + 1;
                    }
                }
                continue;
            }
            let Some(p) = self.csv_row_stops.find(data, i) else { break };
            i = p + 1;
            let b = data[p];
            if b == b'\n' {
                if self.counts_as_row(data, row_start, p) {
                    rows += 1;
                }
                row_start = p + 1;
                if row_start - from >= min_bytes {
                    break;
                }
                continue;
            }
            if b == self.delimiter {
                // A delimiter that is also a quote character delimits.
                continue;
            }
            let mut k = p;
            let opens = loop {
                if k == row_start {
                    break true;
                }
                let c = data[k - 1];
                if c == self.delimiter {
                    break true;
                }
                if !is_blank(c) {
                    break false;
                }
                k -= 1;
            };
            if opens {
                quote = Some(b);
            }
        }
        (row_start, rows)
    }

    /// Whether the line `data[start..lf]` is a row for `scan` (empty lines are not,
    /// unless the input has one column).
    fn counts_as_row(&self, data: &[u8], start: usize, lf: usize) -> bool {
        let empty = lf == start || (self.dialect == Dialect::Csv && lf == start + 1 && data[start] == b'\r');
        !empty || self.mapping.len() == 1
    }

    /// How far whole TSV rows go from `from` (see [`RowFormat::whole_rows`]).
    fn whole_tsv_rows(&self, data: &[u8], from: usize, min_bytes: usize) -> (usize, u64) {
        let mut rows = 0;
        let mut row_start = from;
        let mut i = from;
        loop {
            let found = if self.dialect == Dialect::TsvRaw { memchr::memchr(b'\n', &data[i..]) } else { memchr::memchr2(b'\n', b'\\', &data[i..]) };
            let Some(offset) = found else { break };
            let at = i + offset;
            if data[at] == b'\n' {
                if self.counts_as_row(data, row_start, at) {
                    rows += 1;
                }
                row_start = at + 1;
                i = at + 1;
                if row_start - from >= min_bytes {
                    break;
                }
            } else if at + 1 >= data.len() {
                break;
            } else {
                // An escaped byte, an escaped line feed included, is part of the field.
                i = at + 2;
            }
        }
        (row_start, rows)
    }

    /// Splits a TSV row at tabs.
    fn split_tsv(&mut self, row: &[u8]) {
        self.fields.clear();
        let mut start = 0;
        let escapes = self.dialect == Dialect::Tsv;
        let escaped = |text: &[u8]| escapes && memchr::memchr(b'\\', text).is_some();
        for at in memchr::memchr_iter(b'\t', row) {
            self.fields.push(Field { start, end: at, quoted: None, escaped: escaped(&row[start..at]) });
            start = at + 1;
        }
        self.fields.push(Field { start, end: row.len(), quoted: None, escaped: escaped(&row[start..]) });
    }

    /// Splits a CSV row at delimiters outside quotes.
    fn split_csv(&mut self, row: &[u8]) -> Result<()> {
        self.fields.clear();
        let mut i = 0;
        loop {
            // Leading spaces of a field are not part of it.
            while i < row.len() && (row[i] == b' ' || row[i] == b'\t') && row[i] != self.delimiter {
                i += 1;
            }
            if i < row.len() && self.is_quote(row[i]) {
                let q = row[i];
                let start = i + 1;
                let mut j = start;
                let mut doubled = false;
                loop {
                    match memchr::memchr(q, &row[j..]) {
                        Some(offset) if row.get(j + offset + 1) == Some(&q) => {
                            doubled = true;
                            j += offset + 2;
                        }
                        Some(offset) => {
                            j += offset;
                            break;
                        }
                        None => {
                            return Err(Error::new(
                                ErrorCode::CANNOT_PARSE_QUOTED_STRING,
                                format!("Cannot parse input: unterminated quoted field: '{}'", shorten(&row[i..])),
                            ))
                        }
                    }
                }
                self.fields.push(Field { start, end: j, quoted: Some(q), escaped: doubled });
                i = j + 1;
                while i < row.len() && (row[i] == b' ' || row[i] == b'\t') && row[i] != self.delimiter {
                    i += 1;
                }
                match row.get(i) {
                    None => return Ok(()),
                    Some(b) if *b == self.delimiter => i += 1,
                    Some(_) => {
                        return Err(Error::new(
                            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                            format!("Cannot parse input: expected '{}' before: '{}'", self.delimiter_text(), shorten(&row[i..])),
                        ))
                    }
                }
            } else {
                let start = i;
                let end = memchr::memchr(self.delimiter, &row[i..]).map_or(row.len(), |o| i + o);
                let mut trimmed_end = end;
                while trimmed_end > start && (row[trimmed_end - 1] == b' ' || row[trimmed_end - 1] == b'\t') {
                    trimmed_end -= 1;
                }
                self.fields.push(Field { start, end: trimmed_end, quoted: None, escaped: false });
                if end == row.len() {
                    return Ok(());
                }
                i = end + 1;
            }
        }
    }

    fn split(&mut self, row: &[u8]) -> Result<()> {
        match self.dialect {
            Dialect::Csv => self.split_csv(row),
            _ => {
                self.split_tsv(row);
                Ok(())
            }
        }
    }

    /// Rows parsed column by column: the rows are split first (as `scan` splits
    /// them), then each column's values of a block's worth of rows go to its builder in
    /// one call, which looks at the type once instead of once per value. Splitting
    /// stops at the first row that `parse_row` would split again or reject (irregular
    /// quoting, a wrong number of fields); a group of rows with a value that does not
    /// parse is dropped and left to `parse_row`, which reports or skips the bad row.
    fn parse_rows_by_columns(&mut self, data: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<usize> {
        let width = self.mapping.len();
        let mut fields: Vec<Field> = Vec::with_capacity(COLUMN_GROUP_ROWS * width);
        let mut pos = 0;
        while pos < data.len() {
            if block.cancelled() {
                return Err(super::rows::cancelled_error());
            }
            // A group of rows split (their fields kept, `width` per row, positions from
            // the start of `data`), small enough to stay in the CPU's cache.
            let group_start = pos;
            let limit = block.room().min(COLUMN_GROUP_ROWS);
            let mut rows = 0;
            let mut irregular = false;
            fields.clear();
            while rows < limit && pos < data.len() {
                match self.scan(data, pos, true)? {
                    Scan::Row { start, end, next } if self.fields_of_row == Some(end - start) && self.fields.len() == width => {
                        fields.extend(self.fields.iter().map(|f| Field { start: f.start + start, end: f.end + start, ..*f }));
                        rows += 1;
                        pos = next;
                    }
                    Scan::Skip { next } => pos = next,
                    _ => {
                        irregular = true;
                        break;
                    }
                }
            }
            self.fields_of_row = None;
            self.resume = 0;
            block.row_number += rows as u64;
            if self.parse_column_group(data, &fields, rows, block).is_err() {
                block.row_number -= rows as u64;
                block.drop_uncommitted();
                return Ok(group_start);
            }
            block.commit_rows(rows, out)?;
            if irregular {
                break;
            }
        }
        Ok(pos)
    }

    /// The values of `rows` rows (their `fields`, row after row) appended column by
    /// column, as `parse_row` appends them row by row.
    fn parse_column_group(&self, data: &[u8], fields: &[Field], rows: usize, block: &mut Block) -> Result<()> {
        let width = self.mapping.len();
        let mut decoded = Vec::new();
        for (position, column) in self.mapping.iter().enumerate() {
            let Some(column) = *column else { continue };
            // TSV arrays, tuples and maps are read from their escaped text (see `parse_row`).
            let raw = self.dialect == Dialect::TsvRaw || (self.dialect == Dialect::Tsv && self.composite[column]);
            let builder = &mut block.builders[column];
            let empty_is_null = self.dialect == Dialect::Csv && builder.is_nullable();
            let column_fields = || fields.iter().skip(position).step_by(width);
            // `\N`, and input_format_csv_empty_as_default (NULL for Nullable).
            let is_null = |field: &Field| {
                let text = &data[field.start..field.end];
                field.quoted.is_none() && (text == b"\\N" || (text.is_empty() && empty_is_null))
            };
            // Fields with escapes are decoded first, into one buffer.
            decoded.clear();
            let mut decoded_ends = Vec::new();
            if !raw {
                for field in column_fields().filter(|f| f.escaped && !is_null(f)) {
                    let mut scratch = Vec::new();
                    let text = self.decode(data, *field, &mut scratch);
                    decoded.extend_from_slice(&text);
                    decoded_ends.push(decoded.len());
                }
            }
            let mut next_decoded = 0;
            let mut values: Vec<Option<&[u8]>> = Vec::with_capacity(rows);
            for field in column_fields() {
                values.push(if is_null(field) {
                    None
                } else if field.escaped && !raw {
                    let start = if next_decoded == 0 { 0 } else { decoded_ends[next_decoded - 1] };
                    next_decoded += 1;
                    Some(&decoded[start..decoded_ends[next_decoded - 1]])
                } else {
                    Some(&data[field.start..field.end])
                });
            }
            builder.append_texts(&values)?;
        }
        for &column in &self.missing {
            for _ in 0..rows {
                block.builders[column].append_default()?;
            }
        }
        Ok(())
    }

    /// The decoded text of a field (borrowed when nothing needs decoding).
    fn decode<'a>(&self, row: &'a [u8], field: Field, scratch: &'a mut Vec<u8>) -> Cow<'a, [u8]> {
        let text = &row[field.start..field.end];
        match (self.dialect, field.quoted) {
            (Dialect::Tsv, _) if field.escaped => {
                scratch.clear();
                unescape_tsv(text, scratch);
                Cow::Borrowed(scratch.as_slice())
            }
            (Dialect::Csv, Some(q)) if field.escaped => {
                scratch.clear();
                let mut start = 0;
                let mut i = 0;
                while let Some(offset) = memchr::memchr(q, &text[i..]) {
                    let at = i + offset;
                    scratch.extend_from_slice(&text[start..=at]);
                    // Skip the second quote of the pair.
                    i = at + 2;
                    start = i;
                }
                scratch.extend_from_slice(&text[start.min(text.len())..]);
                Cow::Borrowed(scratch.as_slice())
            }
            _ => Cow::Borrowed(text),
        }
    }

    fn read_header(&mut self, row: &[u8]) -> Result<()> {
        self.header_lines -= 1;
        if self.names_read {
            // The types line of *WithNamesAndTypes: the table's types are used.
            return Ok(());
        }
        self.names_read = true;
        if !self.use_header {
            return Ok(());
        }
        self.split(row)?;
        let fields = std::mem::take(&mut self.fields);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut mapping = Vec::with_capacity(fields.len());
        let mut used = vec![false; self.names.len()];
        let mut result = Ok(());
        for (position, field) in fields.iter().enumerate() {
            let name = String::from_utf8_lossy(&self.decode(row, *field, &mut scratch)).into_owned();
            match self.names.get(&name) {
                Some(&column) if used[column] => {
                    result = Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Duplicate field found while parsing header: '{name}'")));
                    break;
                }
                Some(&column) => {
                    used[column] = true;
                    mapping.push(Some(column));
                }
                None if self.skip_unknown_fields => mapping.push(None),
                None => {
                    result = Err(Error::new(
                        ErrorCode::INCORRECT_DATA,
                        format!(
                            "Unknown field found in header: '{name}' at position {}. Set the 'input_format_skip_unknown_fields' parameter explicitly to ignore and proceed",
                            position + 1
                        ),
                    ));
                    break;
                }
            }
        }
        self.fields = fields;
        self.scratch = scratch;
        result?;
        self.missing = (0..used.len()).filter(|c| !used[*c]).collect();
        self.mapping = mapping;
        Ok(())
    }
}

impl RowFormat for DelimitedRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        let scan = match self.dialect {
            Dialect::Csv => self.scan_csv(data, from, eof),
            _ => self.scan_tsv(data, from, eof),
        };
        // Empty lines are not rows when they cannot be one (more than one column).
        if let Scan::Row { start, end, next } = scan {
            if start == end && (self.mapping.len() != 1 || self.header_lines > 0) {
                return Ok(Scan::Skip { next });
            }
        }
        Ok(scan)
    }

    fn in_header(&self) -> bool {
        self.header_lines > 0
    }

    fn parse_columns(&mut self, data: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<usize> {
        if self.header_lines > 0 {
            return Ok(0);
        }
        self.parse_rows_by_columns(data, block, out)
    }

    fn whole_rows(&mut self, data: &[u8], from: usize, min_bytes: usize) -> Option<(usize, u64)> {
        // Rows are scanned again by the parallel parsers, from their starts.
        self.resume = 0;
        Some(match self.dialect {
            Dialect::Csv => self.whole_csv_rows(data, from, min_bytes),
            _ => self.whole_tsv_rows(data, from, min_bytes),
        })
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.header_lines > 0 {
            return self.read_header(row);
        }
        if self.fields_of_row != Some(row.len()) {
            self.split(row).map_err(|e| block.row_error(e))?;
        }
        self.fields_of_row = None;
        let expected = self.mapping.len();
        if self.fields.len() != expected {
            let (what, rest) = if self.fields.len() < expected {
                (self.delimiter_text(), &b"\n"[..])
            } else {
                ("\\n", &row[self.fields[expected].start.saturating_sub(1)..])
            };
            return Err(block.row_error(Error::new(
                ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                format!(
                    "Cannot parse input: expected '{what}' before: '{}': the row has {} fields, {} are expected",
                    shorten(rest),
                    self.fields.len(),
                    expected
                ),
            )));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut result = Ok(());
        for (position, field) in self.fields.iter().enumerate() {
            let Some(column) = self.mapping[position] else { continue };
            let text = &row[field.start..field.end];
            let step = if field.quoted.is_none() && text == b"\\N" {
                block.builders[column].append_null()
            } else if self.dialect == Dialect::Csv && field.quoted.is_none() && text.is_empty() && block.builders[column].is_nullable() {
                // input_format_csv_empty_as_default: the default of a Nullable column is NULL.
                block.builders[column].append_null()
            } else if self.dialect == Dialect::TsvRaw
                || (self.dialect == Dialect::Tsv && self.composite[column])
            {
                // Arrays, tuples and maps are read from the escaped text directly: their
                // quoted elements keep their own backslash escapes (`['b\'c']`).
                block.builders[column].parse_text(text)
            } else {
                let decoded = self.decode(row, *field, &mut scratch);
                block.builders[column].parse_text(&decoded)
            };
            if let Err(e) = step {
                let e = self.number_error(e, block.builders[column].ch_type(), row, *field, position + 1 == self.fields.len());
                result = Err(block.column_error(e, column));
                break;
            }
        }
        self.scratch = scratch;
        result?;
        for &column in &self.missing {
            block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
        }
        block.commit_row(out)
    }
}

/// The `TabSeparated*` and `CSV*` input formats.
pub struct DelimitedInput {
    streamer: Streamer<DelimitedRows>,
}

impl DelimitedInput {
    /// `header_lines`: 0, 1 (`WithNames`) or 2 (`WithNamesAndTypes`).
    pub fn new(schema: SchemaRef, dialect: Dialect, header_lines: usize, settings: &FormatSettings) -> Result<Self> {
        let columns = schema.fields().len();
        let names = schema.fields().iter().enumerate().map(|(i, f)| (f.name().clone(), i)).collect();
        let delimiter = if dialect == Dialect::Csv { settings.text.csv_delimiter } else { b'\t' };
        // The delimiter first: `csv_row_stops` are the others.
        let mut stops = vec![delimiter, b'\n'];
        if settings.csv_allow_double_quotes {
            stops.push(b'"');
        }
        if settings.csv_allow_single_quotes {
            stops.push(b'\'');
        }
        let rows = DelimitedRows {
            dialect,
            delimiter,
            allow_double_quotes: settings.csv_allow_double_quotes,
            allow_single_quotes: settings.csv_allow_single_quotes,
            header_lines,
            names_read: false,
            use_header: settings.with_names_use_header,
            skip_unknown_fields: settings.skip_unknown_fields,
            names,
            mapping: (0..columns).map(Some).collect(),
            missing: Vec::new(),
            composite: schema.fields().iter().map(|f| matches!(ChType::from_field(f).base(), ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..))).collect(),
            resume: 0,
            csv_row: CsvRowScan::default(),
            regular_quotes: dialect == Dialect::Csv
                && settings.csv_allow_double_quotes
                && !settings.csv_allow_single_quotes
                && !matches!(delimiter, b'"' | b'\n' | b'\r' | b' ' | b'\t'),
            csv_stops: Stops::new(&stops),
            csv_row_stops: Stops::new(&stops[1..]),
            double_quote: Stops::new(b"\""),
            single_quote: Stops::new(b"'"),
            tsv_stops: Stops::new(if dialect == Dialect::Tsv { b"\t\n\\" } else { b"\t\n" }),
            tsv_field: (0, false),
            scratch: Vec::new(),
            fields: Vec::with_capacity(columns),
            fields_of_row: None,
        };
        Ok(DelimitedInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for DelimitedInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::{DataType, Field as ArrowField, Schema};

    use super::*;

    /// The CSV row scanner before rows were split while scanned (one byte at a time),
    /// kept as the reference for where rows end.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum OldState {
        FieldStart,
        Unquoted,
        Quoted(u8),
        QuoteSeen(u8),
    }

    struct OldScanner {
        delimiter: u8,
        double: bool,
        single: bool,
        resume: usize,
        state: OldState,
    }

    impl OldScanner {
        fn is_quote(&self, b: u8) -> bool {
            (b == b'"' && self.double) || (b == b'\'' && self.single)
        }

        fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Scan {
            let mut i = from + self.resume;
            let mut state = if self.resume == 0 { OldState::FieldStart } else { self.state };
            while i < data.len() {
                let b = data[i];
                match state {
                    OldState::Quoted(q) => match memchr::memchr(q, &data[i..]) {
                        Some(offset) => {
                            i += offset + 1;
                            state = OldState::QuoteSeen(q);
                            continue;
                        }
                        None => break,
                    },
                    OldState::QuoteSeen(q) if b == q => {
                        state = OldState::Quoted(q);
                        i += 1;
                        continue;
                    }
                    _ => {}
                }
                if b == b'\n' {
                    let end = if i > from && data[i - 1] == b'\r' && !matches!(state, OldState::Quoted(_)) { i - 1 } else { i };
                    self.resume = 0;
                    return Scan::Row { start: from, end, next: i + 1 };
                }
                state = if b == self.delimiter {
                    OldState::FieldStart
                } else if state == OldState::FieldStart && self.is_quote(b) {
                    OldState::Quoted(b)
                } else if state == OldState::FieldStart && (b == b' ' || b == b'\t') {
                    OldState::FieldStart
                } else {
                    OldState::Unquoted
                };
                i += 1;
            }
            if eof && !matches!(state, OldState::Quoted(_)) {
                self.resume = 0;
                if from >= data.len() {
                    return Scan::Skip { next: data.len() };
                }
                let end = if data.ends_with(b"\r") { data.len() - 1 } else { data.len() };
                return Scan::Row { start: from, end, next: data.len() };
            }
            self.resume = data.len() - from;
            self.state = state;
            Scan::NeedMore { start: from }
        }
    }

    fn rows(columns: usize, delimiter: u8, single: bool, dialect: Dialect) -> DelimitedRows {
        let schema = Arc::new(Schema::new((0..columns).map(|i| ArrowField::new(format!("c{i}"), DataType::Utf8, false)).collect::<Vec<_>>()));
        let mut settings = FormatSettings::from_settings(&granary_common::Settings::new(), chrono_tz::Tz::UTC);
        settings.text.csv_delimiter = delimiter;
        settings.csv_allow_single_quotes = single;
        DelimitedInput::new(schema, dialect, 0, &settings).unwrap().streamer.format
    }

    /// What a row scan found: the row's bytes and its fields (or the split error).
    type Found = (Vec<u8>, std::result::Result<Vec<(usize, usize, Option<u8>, bool)>, String>);

    fn fields_of(r: &DelimitedRows) -> Vec<(usize, usize, Option<u8>, bool)> {
        r.fields.iter().map(|f| (f.start, f.end, f.quoted, f.escaped)).collect()
    }

    /// Rows of `data` scanned by the new scanner, pushed in `pieces` as the streamer
    /// does (the unfinished row carried over), with the fields it split on the way.
    fn scan_new(r: &mut DelimitedRows, data: &[u8], cuts: &[usize]) -> (Vec<Found>, bool) {
        let mut found = Vec::new();
        let mut buffer: Vec<u8> = Vec::new();
        let mut bounds: Vec<usize> = cuts.to_vec();
        bounds.push(data.len());
        let mut taken = 0;
        for (k, &cut) in bounds.iter().enumerate() {
            buffer.extend_from_slice(&data[taken..cut]);
            taken = cut;
            let eof = k + 1 == bounds.len();
            let mut pos = 0;
            loop {
                match r.scan(&buffer, pos, eof).unwrap() {
                    Scan::Row { start, end, next } => {
                        let row = &buffer[start..end];
                        let fields = if r.fields_of_row == Some(row.len()) {
                            // The fast path gives what the old splitter gives.
                            let fast = fields_of(r);
                            r.split(row).unwrap_or_else(|e| panic!("fast path on a row split_csv rejects: {row:?}: {e}"));
                            assert_eq!(fast, fields_of(r), "fields of {row:?}");
                            Ok(fast)
                        } else {
                            r.split(row).map(|_| fields_of(r)).map_err(|e| e.to_string())
                        };
                        found.push((row.to_vec(), fields));
                        pos = next;
                    }
                    Scan::Skip { next } => {
                        pos = next;
                        if pos >= buffer.len() {
                            break;
                        }
                    }
                    Scan::NeedMore { start } => {
                        pos = start;
                        break;
                    }
                }
            }
            buffer.drain(..pos);
        }
        let complete = buffer.is_empty();
        (found, complete)
    }

    /// The TSV row scanner before rows were split while scanned, the reference.
    fn old_scan_tsv(raw: bool, data: &[u8], from: usize) -> Scan {
        let mut i = from;
        loop {
            let Some(offset) = memchr::memchr2(b'\n', b'\\', &data[i..]) else {
                break;
            };
            let at = i + offset;
            if data[at] == b'\n' {
                return Scan::Row { start: from, end: at, next: at + 1 };
            }
            if raw {
                i = at + 1;
            } else if at + 1 >= data.len() {
                break;
            } else {
                i = at + 2;
            }
        }
        if from < data.len() {
            Scan::Row { start: from, end: data.len(), next: data.len() }
        } else {
            Scan::Skip { next: data.len() }
        }
    }

    /// The same rows found by the old scanner and split by `split_csv` or `split_tsv`.
    fn scan_old(r: &mut DelimitedRows, data: &[u8]) -> (Vec<Found>, bool) {
        let mut old = OldScanner { delimiter: r.delimiter, double: r.allow_double_quotes, single: r.allow_single_quotes, resume: 0, state: OldState::FieldStart };
        let mut found = Vec::new();
        let mut pos = 0;
        loop {
            let scan = if r.dialect == Dialect::Csv { old.scan(data, pos, true) } else { old_scan_tsv(r.dialect == Dialect::TsvRaw, data, pos) };
            match scan {
                Scan::Row { start, end, next } => {
                    let row = &data[start..end];
                    pos = next;
                    if start == end && r.mapping.len() != 1 {
                        continue;
                    }
                    let fields = r.split(row).map(|_| fields_of(r)).map_err(|e| e.to_string());
                    found.push((row.to_vec(), fields));
                }
                Scan::Skip { .. } => return (found, true),
                Scan::NeedMore { start } => return (found, start >= data.len()),
            }
        }
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    fn random_text(rng: &mut Lcg, alphabet: &[&str], len: usize) -> Vec<u8> {
        let mut data = Vec::new();
        for _ in 0..len {
            data.extend_from_slice(alphabet[rng.next(alphabet.len())].as_bytes());
        }
        data
    }

    const ALPHABET: &[&str] = &["a", "bc", ",", ",", "\"", "\"\"", "'", " ", "\t", "\r", "\n", "\r\n", "\\N", "x y", ";"];

    #[test]
    fn csv_scanner_finds_the_rows_and_fields_of_the_old_scanner() {
        let mut rng = Lcg(7);
        for case in 0..3000 {
            let len = 1 + rng.next(if case % 10 == 0 { 200 } else { 30 });
            let data = random_text(&mut rng, ALPHABET, len);
            let (delimiter, single) = [(b',', false), (b',', true), (b';', false), (b' ', false), (b'\t', true)][case % 5];
            let columns = if case % 7 == 0 { 1 } else { 3 };
            let mut reference_rows = rows(columns, delimiter, single, Dialect::Csv);
            let expected = scan_old(&mut reference_rows, &data);
            // A scanner is not used again after input that ends inside a row.
            let fresh = || rows(columns, delimiter, single, Dialect::Csv);
            assert_eq!(scan_new(&mut fresh(), &data, &[]), expected, "case {case}: {:?}", String::from_utf8_lossy(&data));
            // The same rows when the data comes in two pushes, or byte by byte.
            let at = rng.next(data.len() + 1);
            assert_eq!(scan_new(&mut fresh(), &data, &[at]), expected, "case {case} split at {at}: {:?}", String::from_utf8_lossy(&data));
            if case % 10 == 0 {
                let every: Vec<usize> = (1..data.len()).collect();
                assert_eq!(scan_new(&mut fresh(), &data, &every), expected, "case {case} byte by byte: {:?}", String::from_utf8_lossy(&data));
            }
        }
    }

    #[test]
    fn csv_fields_of_typical_rows() {
        let mut r = rows(4, b',', false, Dialect::Csv);
        let data = b"1, \"a,\"\"b\"\" \" ,\\N,\r\n\"x\ny\",,\"\",  z  \n\"tail\",2,\"\"\"\",";
        let (found, complete) = scan_new(&mut r, data, &[]);
        assert!(complete);
        let fields: Vec<_> = found.iter().map(|(_, f)| f.clone().unwrap()).collect();
        assert_eq!(fields[0], vec![(0, 1, None, false), (4, 12, Some(b'"'), true), (15, 17, None, false), (18, 18, None, false)]);
        assert_eq!(fields[1], vec![(1, 4, Some(b'"'), false), (6, 6, None, false), (8, 8, Some(b'"'), false), (12, 13, None, false)]);
        assert_eq!(fields[2], vec![(1, 5, Some(b'"'), false), (7, 8, None, false), (10, 12, Some(b'"'), true), (14, 14, None, false)]);
        // A quoted field crossing a push, its doubled quote cut in the middle.
        for at in 0..data.len() {
            assert_eq!(scan_new(&mut rows(4, b',', false, Dialect::Csv), data, &[at]), (found.clone(), true), "split at {at}");
        }
    }

    #[test]
    fn tsv_scanner_finds_the_rows_and_fields_of_the_old_scanner() {
        let mut rng = Lcg(5);
        let alphabet = ["a", "bc", "\t", "\t", "\\", "\\\\", "\\\t", "\\\n", "\n", "\n\n", "\\N", "\r", "x"];
        for case in 0..3000 {
            let len = 1 + rng.next(if case % 10 == 0 { 200 } else { 30 });
            let data = random_text(&mut rng, &alphabet, len);
            let dialect = if case % 3 == 0 { Dialect::TsvRaw } else { Dialect::Tsv };
            let columns = if case % 7 == 0 { 1 } else { 3 };
            let expected = scan_old(&mut rows(columns, b'\t', false, dialect), &data);
            let fresh = || rows(columns, b'\t', false, dialect);
            assert_eq!(scan_new(&mut fresh(), &data, &[]), expected, "case {case}: {:?}", String::from_utf8_lossy(&data));
            let at = rng.next(data.len() + 1);
            assert_eq!(scan_new(&mut fresh(), &data, &[at]), expected, "case {case} split at {at}: {:?}", String::from_utf8_lossy(&data));
            if case % 10 == 0 {
                let every: Vec<usize> = (1..data.len()).collect();
                assert_eq!(scan_new(&mut fresh(), &data, &every), expected, "case {case} byte by byte: {:?}", String::from_utf8_lossy(&data));
            }
        }
        let mut r = rows(3, b'\t', false, Dialect::Tsv);
        let (found, complete) = scan_new(&mut r, b"a\\tb\tc\\\nd\t\\N\n", &[]);
        assert!(complete);
        assert_eq!(found[0].1, Ok(vec![(0, 4, None, true), (5, 9, None, true), (10, 12, None, true)]));
    }

    /// `whole_rows` stops at row starts the scanner finds and counts the rows it reads.
    fn check_whole_rows(r: &mut DelimitedRows, data: &[u8], min_bytes: usize) {
        let mut boundaries = vec![(0usize, 0u64)];
        let mut rows = 0u64;
        let mut pos = 0;
        loop {
            match r.scan(data, pos, false).unwrap() {
                Scan::Row { next, .. } => {
                    rows += 1;
                    pos = next;
                    boundaries.push((pos, rows));
                }
                Scan::Skip { next } => {
                    pos = next;
                    boundaries.push((pos, rows));
                    if pos >= data.len() {
                        break;
                    }
                }
                Scan::NeedMore { .. } => break,
            }
        }
        r.resume = 0;
        let mut from = 0;
        let mut rows_before = 0;
        loop {
            let (next, rows) = r.whole_rows(data, from, min_bytes).unwrap();
            let at = boundaries.iter().find(|(b, _)| *b == next).unwrap_or_else(|| panic!("{next} is not a row start of {:?}", String::from_utf8_lossy(data)));
            assert_eq!(at.1, rows_before + rows, "rows before {next} in {:?}", String::from_utf8_lossy(data));
            let expected_next = boundaries.iter().find(|(b, _)| *b >= from + min_bytes && *b > from).map_or(boundaries.last().unwrap().0, |b| b.0);
            assert_eq!(next, expected_next, "from {from}, min {min_bytes}: {:?}", String::from_utf8_lossy(data));
            if next == from {
                break;
            }
            rows_before += rows;
            from = next;
        }
    }

    /// CSV rows as ClickHouse writes them (every string quoted, some with delimiters,
    /// doubled quotes, line feeds and carriage returns inside), with `odd` pieces mixed
    /// in one time in `odd_every` (never when 0).
    fn long_csv(rng: &mut Lcg, rows: usize, odd: &[&str], odd_every: usize) -> Vec<u8> {
        let strings = ["\"lorem ipsum\"", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"", "\"cr\r\nlf\"", "\"\"", "\"\"\"\"", "\"<p>x</p>\""];
        let mut data = Vec::new();
        for _ in 0..rows {
            for column in 0..3 {
                if column > 0 {
                    data.push(b',');
                }
                if odd_every > 0 && rng.next(odd_every) == 0 {
                    data.extend_from_slice(odd[rng.next(odd.len())].as_bytes());
                } else if column == 1 {
                    data.extend_from_slice(rng.next(100000).to_string().as_bytes());
                } else {
                    data.extend_from_slice(strings[rng.next(strings.len())].repeat(1 + rng.next(4)).as_bytes());
                }
            }
            data.extend_from_slice(if rng.next(5) == 0 { b"\r\n" } else { b"\n" });
        }
        data
    }

    #[test]
    fn csv_rows_split_by_blocks_as_split_csv_splits() {
        let mut rng = Lcg(17);
        let odd = ["a\"b", " \"x\"", "\"x\" y", "\"x\"  ", "  y ", "\n", "\r\n", "\n\r\n", "\"\"\"", "'q'", "\r", "\"a\"\"\"", ""];
        let mut by_blocks = 0;
        for case in 0..300 {
            let irregular_every = if case % 3 == 0 { 0 } else { 1 + rng.next(40) };
            let row_count = 1 + rng.next(40);
            let data = long_csv(&mut rng, row_count, &odd, irregular_every);
            let mut r = rows(3, b',', false, Dialect::Csv);
            let (old, _) = scan_old(&mut r, &data);
            let (new, _) = scan_new(&mut r, &data, &[]);
            assert_eq!(old, new, "case {case}: {:?}", String::from_utf8_lossy(&data));
            // At each row start, the block scan finds the row and fields the exact scan does.
            let mut exact = r.clone();
            exact.regular_quotes = false;
            exact.resume = 0;
            let mut pos = 0;
            while let Scan::Row { start, end, next } = exact.scan(&data, pos, true).unwrap() {
                r.resume = 0;
                if let Some(scan) = r.scan_csv_blocks(&data, start) {
                    by_blocks += 1;
                    assert!(matches!(scan, Scan::Row { start: s, end: e, next: n } if (s, e, n) == (start, end, next)), "case {case} at {start}");
                    assert_eq!(Some(end - start), exact.fields_of_row, "an irregular row split by blocks at {start}: {:?}", String::from_utf8_lossy(&data[start..end]));
                    assert_eq!(fields_of(&r), fields_of(&exact), "fields of {:?}", String::from_utf8_lossy(&data[start..end]));
                }
                pos = next;
            }
        }
        assert!(by_blocks > 1000, "the block scan decided {by_blocks} rows");
    }

    #[test]
    fn csv_rows_cut_by_blocks_where_the_scanner_does() {
        let mut rng = Lcg(13);
        let odd = ["a\"b", " \"x\"", "\"x\" y", "\n", "\r\n", "\n\r\n", "\"\"\"", "'q'", "\r"];
        for case in 0..200 {
            let regular = case % 2 == 0;
            let row_count = 1 + rng.next(60);
            let irregular_every = if regular { 0 } else { 1 + rng.next(200) };
            let data = long_csv(&mut rng, row_count, &odd, irregular_every);
            let columns = if case % 9 == 0 { 1 } else { 3 };
            for min_bytes in [1, 40, 64, 65, 200, 1000, 1 << 20] {
                check_whole_rows(&mut rows(columns, b',', false, Dialect::Csv), &data, min_bytes);
                // The block pass's cut is the exact scan's whenever it decides one.
                let r = rows(columns, b',', false, Dialect::Csv);
                let (end, count, done) = r.csv_row_blocks(&data, 0, min_bytes);
                let (exact_end, exact_count) = r.exact_csv_rows(&data, 0, min_bytes);
                if done {
                    assert_eq!((end, count), (exact_end, exact_count), "case {case}, min {min_bytes}: {:?}", String::from_utf8_lossy(&data));
                }
                if regular && columns == 3 && exact_end + 64 < data.len() {
                    assert!(done, "case {case}: regular rows stopped the block pass at {end}");
                }
            }
        }
        // Single quotes allowed, or a blank delimiter: the exact scan only.
        let data = long_csv(&mut rng, 50, &odd, 0);
        assert!(!rows(3, b',', true, Dialect::Csv).csv_row_blocks(&data, 0, 100).2);
        assert!(!rows(3, b' ', false, Dialect::Csv).csv_row_blocks(&data, 0, 100).2);
        check_whole_rows(&mut rows(3, b',', true, Dialect::Csv), &data, 100);
    }

    #[test]
    fn whole_rows_cut_where_the_scanner_does() {
        let mut rng = Lcg(11);
        for case in 0..3000 {
            let len = 1 + rng.next(60);
            let (delimiter, single) = [(b',', false), (b',', true), (b' ', false), (b'"', false)][case % 4];
            let columns = if case % 5 == 0 { 1 } else { 2 };
            let data = random_text(&mut rng, ALPHABET, len);
            for min_bytes in [1, 5, 20, 1000] {
                check_whole_rows(&mut rows(columns, delimiter, single, Dialect::Csv), &data, min_bytes);
            }
            let tsv = random_text(&mut rng, &["a", "\t", "\\", "\\\n", "\n", "\n\n", "\\N"], len);
            for dialect in [Dialect::Tsv, Dialect::TsvRaw] {
                for min_bytes in [1, 5, 20, 1000] {
                    check_whole_rows(&mut rows(columns, b'\t', false, dialect), &tsv, min_bytes);
                }
            }
        }
    }
}
