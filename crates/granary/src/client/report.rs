//! What the client tells about a query on stderr: the live progress line and the final
//! `N rows in set. Elapsed: ...` summary, with ClickHouse's number formatting.

use std::io::Write;
use std::time::Duration;

/// The counters of `X-ClickHouse-Progress` and `X-ClickHouse-Summary` headers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    pub read_rows: u64,
    pub read_bytes: u64,
    pub written_rows: u64,
    pub written_bytes: u64,
    pub total_rows_to_read: u64,
    pub result_rows: u64,
}

impl Progress {
    /// Parses the header's JSON. ClickHouse sends the numbers as strings
    /// (`{"read_rows":"10",...}`); plain numbers are accepted too. Missing or malformed
    /// fields count as 0; text that is not a JSON object is `None`.
    pub fn from_json(text: &[u8]) -> Option<Progress> {
        let value: serde_json::Value = serde_json::from_slice(text).ok()?;
        let object = value.as_object()?;
        let field = |name: &str| -> u64 {
            match object.get(name) {
                Some(serde_json::Value::String(s)) => s.trim().parse().unwrap_or(0),
                Some(serde_json::Value::Number(n)) => n.as_u64().unwrap_or(0),
                _ => 0,
            }
        };
        Some(Progress {
            read_rows: field("read_rows"),
            read_bytes: field("read_bytes"),
            written_rows: field("written_rows"),
            written_bytes: field("written_bytes"),
            total_rows_to_read: field("total_rows_to_read"),
            result_rows: field("result_rows"),
        })
    }

    /// Rows and bytes processed: read, or for an INSERT of data (which reads nothing),
    /// written.
    fn processed(&self) -> (u64, u64) {
        if self.read_rows == 0 && self.read_bytes == 0 {
            (self.written_rows, self.written_bytes)
        } else {
            (self.read_rows, self.read_bytes)
        }
    }
}

/// `N rows in set. Elapsed: 0.003 sec. Processed 1.00 million rows, 8.00 MB (314.15 million rows/s., 2.51 GB/s.)`
///
/// As in clickhouse-client: the "Processed" part only from 1000 rows on, rates over the
/// elapsed time measured by the client. The row count is the result's, or for an INSERT
/// the rows written.
pub(crate) fn summary_line(summary: &Progress, elapsed: Duration) -> String {
    let rows = if summary.result_rows > 0 { summary.result_rows } else { summary.written_rows };
    let mut line = format!("{rows} row{} in set. Elapsed: {:.3} sec.", if rows == 1 { "" } else { "s" }, elapsed.as_secs_f64());
    let (processed_rows, processed_bytes) = summary.processed();
    if processed_rows >= 1000 {
        line.push_str(&format!(" Processed {} rows, {}", readable_quantity(processed_rows as f64), readable_size(processed_bytes as f64)));
        let seconds = elapsed.as_secs_f64();
        if seconds > 0.0 {
            line.push_str(&format!(
                " ({} rows/s., {}/s.)",
                readable_quantity(processed_rows as f64 / seconds),
                readable_size(processed_bytes as f64 / seconds)
            ));
        } else {
            line.push('.');
        }
    }
    line
}

/// ClickHouse's formatReadableQuantity: `12.00`, `1.00 million`.
pub(crate) fn readable_quantity(value: f64) -> String {
    readable(value, &["", " thousand", " million", " billion", " trillion", " quadrillion"])
}

/// ClickHouse's formatReadableSizeWithDecimalSuffix: `1.00 B`, `8.00 MB`.
pub(crate) fn readable_size(value: f64) -> String {
    readable(value, &[" B", " KB", " MB", " GB", " TB", " PB", " EB", " ZB", " YB"])
}

/// ClickHouse's formatReadable: divide by 1000 while at least 1000 and a larger unit
/// exists, then two decimals.
fn readable(value: f64, units: &[&str]) -> String {
    let mut v = value;
    let mut unit = 0;
    while unit + 1 < units.len() && v.abs() >= 1000.0 {
        v /= 1000.0;
        unit += 1;
    }
    format!("{}{}", fixed2(v), units[unit])
}

/// Two decimals like double-conversion's ToFixed, which ClickHouse uses: an exact tie
/// rounds up (1.125 → 1.13), where Rust's formatting rounds it to even (1.12).
fn fixed2(v: f64) -> String {
    let scaled = v * 100.0;
    if v.is_finite() && v >= 0.0 && scaled < 1e15 && scaled.fract() == 0.5 {
        let hundredths = scaled.floor() as u64 + 1;
        return format!("{}.{:02}", hundredths / 100, hundredths % 100);
    }
    format!("{v:.2}")
}

/// The one-line progress indicator clickhouse-client draws on stderr while a query runs.
pub(crate) struct ProgressLine<W: Write> {
    out: W,
    /// The terminal's width: a line that wrapped could not be overwritten with `\r`.
    width: usize,
    tick: usize,
    drawn: bool,
}

impl<W: Write> ProgressLine<W> {
    pub fn new(out: W, width: usize) -> Self {
        ProgressLine { out, width: width.max(20), tick: 0, drawn: false }
    }

    /// Redraws the line. Write errors are ignored: the indicator is decoration.
    pub fn draw(&mut self, progress: &Progress, elapsed: Duration) {
        let text = progress_text(progress, elapsed, self.tick, self.width);
        self.tick += 1;
        let _ = write!(self.out, "\r{text}\x1b[K");
        let _ = self.out.flush();
        self.drawn = true;
    }

    /// What was written (for tests, whose writer is a buffer).
    #[cfg(test)]
    pub fn writer(&self) -> &W {
        &self.out
    }

    /// Erases the line, if drawn, so that output or the summary starts on a clean line.
    pub fn clear(&mut self) {
        if self.drawn {
            let _ = write!(self.out, "\r\x1b[K");
            let _ = self.out.flush();
            self.drawn = false;
        }
    }
}

impl<W: Write> Drop for ProgressLine<W> {
    /// A cancelled query must not leave a half-drawn line behind.
    fn drop(&mut self) {
        self.clear();
    }
}

/// The indicator's text, at most `width - 1` characters on screen (the arrow's colour
/// escapes aside): `↗ Progress: 1.00 million rows, 8.00 MB (314.15 million rows/s., 2.51 GB/s.) 42%`.
pub(crate) fn progress_text(progress: &Progress, elapsed: Duration, tick: usize, width: usize) -> String {
    const ARROWS: [&str; 8] = ["→", "↘", "↓", "↙", "←", "↖", "↑", "↗"];
    const COLOURS: [&str; 8] = ["1;30", "1;31", "1;32", "1;33", "1;34", "1;35", "1;36", "1"];
    let (rows, bytes) = progress.processed();
    let mut main = format!("{} Progress: {} rows, {}", ARROWS[tick % 8], readable_quantity(rows as f64), readable_size(bytes as f64));
    let seconds = elapsed.as_secs_f64();
    let rates = if seconds > 0.0 {
        format!(" ({} rows/s., {}/s.)", readable_quantity(rows as f64 / seconds), readable_size(bytes as f64 / seconds))
    } else {
        String::new()
    };
    let percent = if progress.total_rows_to_read > 0 {
        let total = progress.total_rows_to_read.max(progress.read_rows);
        // Underestimated like ClickHouse's, so that it never shows 100% while running.
        format!(" {}%", 99 * u128::from(progress.read_rows) / u128::from(total))
    } else {
        String::new()
    };
    let room = width.saturating_sub(1);
    let visible = |s: &str| s.chars().count();
    if visible(&main) + visible(&rates) + visible(&percent) <= room {
        main.push_str(&rates);
    }
    main.push_str(&percent);
    let main: String = main.chars().take(room).collect();
    // Colour the arrow (the first character) as clickhouse-client does.
    let mut chars = main.chars();
    let arrow = chars.next().unwrap_or(' ');
    format!("\x1b[{}m{arrow}\x1b[0m{}", COLOURS[tick % 8], chars.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_numbers_like_clickhouse() {
        assert_eq!(readable_quantity(1_000_000.0), "1.00 million");
        assert_eq!(readable_quantity(314_150_000.0), "314.15 million");
        assert_eq!(readable_quantity(12.0), "12.00");
        assert_eq!(readable_quantity(999.0), "999.00");
        assert_eq!(readable_quantity(1000.0), "1.00 thousand");
        // Rounded after the unit is chosen, as ClickHouse does.
        assert_eq!(readable_quantity(999_999.0), "1000.00 thousand");
        assert_eq!(readable_quantity(1125.0), "1.13 thousand");
        assert_eq!(readable_quantity(2e18), "2000.00 quadrillion");
        assert_eq!(readable_size(8_000_000.0), "8.00 MB");
        assert_eq!(readable_size(2_510_000_000.0), "2.51 GB");
        assert_eq!(readable_size(1.0), "1.00 B");
        assert_eq!(readable_size(0.0), "0.00 B");
        assert_eq!(readable_size(1536.0), "1.54 KB");
    }

    #[test]
    fn summary_lines() {
        let summary = Progress { read_rows: 1_000_000, read_bytes: 8_000_000, result_rows: 1, ..Progress::default() };
        assert_eq!(
            summary_line(&summary, Duration::from_micros(3_183_200)),
            "1 row in set. Elapsed: 3.183 sec. Processed 1.00 million rows, 8.00 MB (314.15 thousand rows/s., 2.51 MB/s.)"
        );
        let summary = Progress { read_rows: 314_150_000, read_bytes: 2_510_000_000, result_rows: 10, ..Progress::default() };
        assert_eq!(
            summary_line(&summary, Duration::from_secs(1)),
            "10 rows in set. Elapsed: 1.000 sec. Processed 314.15 million rows, 2.51 GB (314.15 million rows/s., 2.51 GB/s.)"
        );
        // Fewer than 1000 rows read: no "Processed" part, as in clickhouse-client.
        let summary = Progress { read_rows: 3, read_bytes: 24, result_rows: 3, ..Progress::default() };
        assert_eq!(summary_line(&summary, Duration::from_millis(3)), "3 rows in set. Elapsed: 0.003 sec.");
        assert_eq!(summary_line(&Progress::default(), Duration::ZERO), "0 rows in set. Elapsed: 0.000 sec.");
        // An INSERT reads nothing: its written rows are what was processed.
        let summary = Progress { written_rows: 2000, written_bytes: 16000, ..Progress::default() };
        assert_eq!(
            summary_line(&summary, Duration::from_secs(2)),
            "2000 rows in set. Elapsed: 2.000 sec. Processed 2.00 thousand rows, 16.00 KB (1.00 thousand rows/s., 8.00 KB/s.)"
        );
    }

    #[test]
    fn progress_json() {
        let p = Progress::from_json(br#"{"read_rows":"10","read_bytes":"80","written_rows":"0","written_bytes":"0","total_rows_to_read":"100","result_rows":"1","result_bytes":"8","elapsed_ns":"12345"}"#);
        assert_eq!(p, Some(Progress { read_rows: 10, read_bytes: 80, total_rows_to_read: 100, result_rows: 1, ..Progress::default() }));
        assert_eq!(Progress::from_json(br#"{"read_rows":5,"read_bytes":"x"}"#), Some(Progress { read_rows: 5, ..Progress::default() }));
        assert_eq!(Progress::from_json(b"not json"), None);
        assert_eq!(Progress::from_json(b"[1]"), None);
    }

    #[test]
    fn progress_indicator() {
        let p = Progress { read_rows: 1_000_000, read_bytes: 8_000_000, total_rows_to_read: 4_000_000, ..Progress::default() };
        let text = progress_text(&p, Duration::from_secs(2), 0, 200);
        assert_eq!(text, "\x1b[1;30m→\x1b[0m Progress: 1.00 million rows, 8.00 MB (500.00 thousand rows/s., 4.00 MB/s.) 24%");
        // Too narrow for the rates: they go first, the percentage stays.
        let text = progress_text(&p, Duration::from_secs(2), 1, 50);
        assert_eq!(text, "\x1b[1;31m↘\x1b[0m Progress: 1.00 million rows, 8.00 MB 24%");
        // Never wider than the terminal.
        let text = progress_text(&p, Duration::from_secs(2), 2, 20);
        assert_eq!(text, "\x1b[1;32m↓\x1b[0m Progress: 1.00 mi");

        let mut line = ProgressLine::new(Vec::new(), 200);
        line.draw(&Progress::default(), Duration::ZERO);
        line.clear();
        line.clear();
        let out = String::from_utf8(line.out.clone()).unwrap_or_default();
        assert_eq!(out, "\r\x1b[1;30m→\x1b[0m Progress: 0.00 rows, 0.00 B\x1b[K\r\x1b[K");
    }
}
