//! Quota consumption: counters per quota, key (user or shared) and interval, kept in
//! memory. Intervals are aligned to multiples of their duration since the epoch, as in
//! ClickHouse, so "1 hour" means the current clock hour.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use granary_common::{Error, ErrorCode, Result};
use parking_lot::Mutex;

use crate::entities::{Quota, QuotaLimits};

/// What a query counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    Select,
    Insert,
    Other,
}

/// What a finished query consumed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Consumption {
    pub failed: bool,
    pub result_rows: u64,
    pub read_rows: u64,
    pub execution_seconds: u64,
}

#[derive(Debug, Clone, Default)]
struct IntervalUsage {
    end_unix: u64,
    used: QuotaLimits,
}

/// Usage of one interval, for `system.quota_usage`.
#[derive(Debug, Clone)]
pub struct UsageRow {
    pub quota: String,
    pub key: String,
    pub end_unix: u64,
    pub duration_seconds: u64,
    pub used: QuotaLimits,
    pub limits: QuotaLimits,
}

#[derive(Default)]
pub struct QuotaTracker {
    usage: Mutex<HashMap<(String, String), Vec<IntervalUsage>>>,
}

fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn key_of(quota: &Quota, user: &str) -> (String, String) {
    (quota.name.clone(), if quota.keyed_by_user { user.to_string() } else { String::new() })
}

/// The intervals of `quota` for `key`, rolled over to the current period.
fn current<'a>(usage: &'a mut HashMap<(String, String), Vec<IntervalUsage>>, quota: &Quota, key: (String, String), now: u64) -> &'a mut Vec<IntervalUsage> {
    let intervals = usage.entry(key).or_default();
    intervals.resize(quota.intervals.len(), IntervalUsage::default());
    for (usage, limits) in intervals.iter_mut().zip(&quota.intervals) {
        if now >= usage.end_unix {
            let duration = limits.duration_seconds.max(1);
            *usage = IntervalUsage { end_unix: (now / duration + 1) * duration, used: QuotaLimits::default() };
        }
    }
    intervals
}

impl QuotaTracker {
    /// Counts a query that starts, or refuses it when an interval is used up.
    pub fn start_query(&self, quota: &Quota, user: &str, kind: QueryKind) -> Result<()> {
        let now = now_unix();
        let mut usage = self.usage.lock();
        let intervals = current(&mut usage, quota, key_of(quota, user), now);
        for (usage, limits) in intervals.iter().zip(&quota.intervals) {
            let after = |resource: &str, add: u64| usage.used.get(resource) + add;
            let checks = [
                ("queries", after("queries", 1), true),
                ("query_selects", after("query_selects", 1), kind == QueryKind::Select),
                ("query_inserts", after("query_inserts", 1), kind == QueryKind::Insert),
                // Consumed by earlier queries: refused once over the limit.
                ("errors", after("errors", 0), true),
                ("result_rows", after("result_rows", 0), true),
                ("read_rows", after("read_rows", 0), true),
                ("execution_time", after("execution_time", 0), true),
            ];
            for (resource, value, applies) in checks {
                let max = limits.get(resource);
                if applies && max > 0 && value > max {
                    return Err(exceeded(quota, user, limits.duration_seconds, resource, value, max, usage.end_unix));
                }
            }
        }
        for usage in intervals.iter_mut() {
            usage.used.queries += 1;
            match kind {
                QueryKind::Select => usage.used.query_selects += 1,
                QueryKind::Insert => usage.used.query_inserts += 1,
                QueryKind::Other => {}
            }
        }
        Ok(())
    }

    pub fn finish_query(&self, quota: &Quota, user: &str, consumed: Consumption) {
        let now = now_unix();
        let mut usage = self.usage.lock();
        for usage in current(&mut usage, quota, key_of(quota, user), now).iter_mut() {
            usage.used.errors += u64::from(consumed.failed);
            usage.used.result_rows += consumed.result_rows;
            usage.used.read_rows += consumed.read_rows;
            usage.used.execution_time += consumed.execution_seconds;
        }
    }

    pub fn rows(&self, quotas: &[Quota]) -> Vec<UsageRow> {
        let usage = self.usage.lock();
        let mut rows = Vec::new();
        for ((name, key), intervals) in usage.iter() {
            let Some(quota) = quotas.iter().find(|q| &q.name == name) else { continue };
            for (usage, limits) in intervals.iter().zip(&quota.intervals) {
                rows.push(UsageRow {
                    quota: name.clone(),
                    key: key.clone(),
                    end_unix: usage.end_unix,
                    duration_seconds: limits.duration_seconds,
                    used: usage.used.clone(),
                    limits: limits.clone(),
                });
            }
        }
        rows.sort_by(|a, b| (&a.quota, &a.key, a.duration_seconds).cmp(&(&b.quota, &b.key, b.duration_seconds)));
        rows
    }
}

fn exceeded(quota: &Quota, user: &str, duration: u64, resource: &str, value: u64, max: u64, end_unix: u64) -> Error {
    granary_common::metrics::Event::QuotaExceeded.add(1);
    Error::new(
        ErrorCode::QUOTA_EXCEEDED,
        format!(
            "Quota for user `{user}` for {} has been exceeded: {resource} = {value}/{max}. Interval will end at {}. Name of quota template: `{}`",
            duration_text(duration),
            utc_text(end_unix),
            quota.name
        ),
    )
}

/// `3600` → `3600s` (ClickHouse prints the interval in seconds).
fn duration_text(seconds: u64) -> String {
    format!("{seconds}s")
}

/// `YYYY-MM-DD hh:mm:ss` in UTC (days to civil date after Howard Hinnant's algorithm).
pub fn utc_text(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota(max_queries: u64, max_errors: u64) -> Quota {
        Quota {
            name: "q".into(),
            intervals: vec![QuotaLimits { duration_seconds: 3600, queries: max_queries, errors: max_errors, ..Default::default() }],
            applies_to: Default::default(),
            keyed_by_user: true,
        }
    }

    #[test]
    fn queries_are_counted_per_user_and_refused_over_the_limit() {
        let tracker = QuotaTracker::default();
        let q = quota(2, 0);
        tracker.start_query(&q, "a", QueryKind::Select).unwrap();
        tracker.start_query(&q, "a", QueryKind::Insert).unwrap();
        let e = tracker.start_query(&q, "a", QueryKind::Select).unwrap_err();
        assert_eq!(e.code(), ErrorCode::QUOTA_EXCEEDED);
        assert!(e.message().contains("queries = 3/2"), "{}", e.message());
        tracker.start_query(&q, "b", QueryKind::Select).unwrap();
        let rows = tracker.rows(&[q]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].used.queries, 2);
    }

    #[test]
    fn errors_count_after_the_fact() {
        let tracker = QuotaTracker::default();
        let q = quota(0, 1);
        tracker.start_query(&q, "a", QueryKind::Select).unwrap();
        tracker.finish_query(&q, "a", Consumption { failed: true, ..Default::default() });
        tracker.start_query(&q, "a", QueryKind::Select).unwrap();
        tracker.finish_query(&q, "a", Consumption { failed: true, ..Default::default() });
        assert!(tracker.start_query(&q, "a", QueryKind::Select).is_err());
    }

    #[test]
    fn civil_dates() {
        assert_eq!(utc_text(0), "1970-01-01 00:00:00");
        assert_eq!(utc_text(1_700_000_000), "2023-11-14 22:13:20");
        assert_eq!(utc_text(951_782_400), "2000-02-29 00:00:00");
    }
}
