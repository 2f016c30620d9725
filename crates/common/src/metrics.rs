//! Process-wide counters (`system.events`, ClickHouse's ProfileEvents) and gauges
//! (`system.metrics`, CurrentMetrics), exported together with the asynchronous metrics
//! at `/metrics` in Prometheus text format. Updating one is a relaxed atomic add, cheap
//! enough for every query and every part.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

macro_rules! counters {
    ($kind:ident, $atomic:ty, $value:ty, $table:ident, $( $name:ident => $desc:literal ),* $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[allow(non_camel_case_types)]
        pub enum $kind { $( $name ),* }

        static $table: [$atomic; [$( stringify!($name) ),*].len()] = [const { <$atomic>::new(0) }; [$( stringify!($name) ),*].len()];

        impl $kind {
            pub const ALL: &'static [$kind] = &[ $( $kind::$name ),* ];
            pub fn name(self) -> &'static str { match self { $( $kind::$name => stringify!($name) ),* } }
            pub fn description(self) -> &'static str { match self { $( $kind::$name => $desc ),* } }
            pub fn value(self) -> $value { $table[self as usize].load(Ordering::Relaxed) }
            pub fn add(self, delta: $value) { $table[self as usize].fetch_add(delta, Ordering::Relaxed); }
        }
    };
}

counters! {
    Event, AtomicU64, u64, EVENTS,
    Query => "Queries to be interpreted and potentially executed (failed to parse ones included).",
    SelectQuery => "SELECT queries (Query counts them too).",
    InsertQuery => "INSERT queries (Query counts them too).",
    FailedQuery => "Failed queries.",
    FailedSelectQuery => "Failed SELECT queries.",
    FailedInsertQuery => "Failed INSERT queries.",
    QueryTimeMicroseconds => "Total time of all queries.",
    SelectQueryTimeMicroseconds => "Total time of SELECT queries.",
    InsertQueryTimeMicroseconds => "Total time of INSERT queries.",
    SelectedRows => "Rows read from tables and table functions by all queries.",
    SelectedBytes => "Bytes read from tables and table functions by all queries.",
    InsertedRows => "Rows inserted into all tables.",
    InsertedBytes => "Bytes (uncompressed) inserted into all tables.",
    ResultRows => "Rows sent as query results.",
    MergeTreeDataWriterBlocks => "Parts written by INSERTs into MergeTree tables.",
    MergeTreeDataWriterRows => "Rows written by INSERTs into MergeTree tables.",
    Merge => "Merges of MergeTree parts.",
    MergedRows => "Rows read by merges.",
    MergeTotalMilliseconds => "Total time of merges.",
    MutatedParts => "Parts rewritten by mutations (ALTER ... DELETE).",
    RemovedParts => "Parts removed (merged away, dropped or outdated).",
    UncompressedCacheHits => "Reads of a MergeTree block served by the uncompressed cache.",
    UncompressedCacheMisses => "Reads of a MergeTree block through the uncompressed cache that had to decompress it.",
    MarkCacheHits => "Marks of a column of a part found in the mark cache.",
    MarkCacheMisses => "Marks of a column of a part read from its .mrk file because the mark cache had none.",
    HTTPConnectionsAccepted => "Connections accepted on the HTTP and HTTPS ports.",
    FailedAuthentications => "Logins refused (wrong password, unknown user, disallowed network).",
    QuotaExceeded => "Queries refused by a quota.",
    SchemaInferenceCacheHits => "Structures of files read from the schema inference cache.",
    SchemaInferenceCacheMisses => "Structures of files inferred because the schema inference cache had none.",
    SchemaInferenceCacheInvalidations => "Schema inference cache entries dropped because their file changed.",
    QueryPlanCacheHits => "Queries executed with a physical plan kept from an earlier execution of the same text.",
    QueryPlanCacheMisses => "Queries planned and whose physical plan was kept for reuse.",
    PointQueryShapeCacheHits => "Point queries answered from the shape remembered for their normalized text, without parsing.",
}

counters! {
    Metric, AtomicI64, i64, METRICS,
    Query => "Queries running now.",
    HTTPConnection => "Open HTTP and HTTPS connections.",
    Merge => "Merges running now.",
}

/// Prometheus text exposition of events (counters), metrics and asynchronous metrics
/// (gauges), with ClickHouse's metric name prefixes.
pub fn prometheus_text(asynchronous: &[(String, f64, String)]) -> String {
    let mut out = String::with_capacity(8192);
    let mut write = |prefix: &str, name: &str, kind: &str, value: f64, help: &str| {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        out.push_str(&format!("# HELP {prefix}{name} {help}\n# TYPE {prefix}{name} {kind}\n{prefix}{name} {value}\n"));
    };
    for event in Event::ALL {
        write("ClickHouseProfileEvents_", event.name(), "counter", event.value() as f64, event.description());
    }
    for metric in Metric::ALL {
        write("ClickHouseMetrics_", metric.name(), "gauge", metric.value() as f64, metric.description());
    }
    for (name, value, help) in asynchronous {
        let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        write("ClickHouseAsyncMetrics_", &name, "gauge", *value, help);
    }
    out
}

/// Increments a gauge for as long as the guard lives.
pub struct GaugeGuard(Metric);

impl GaugeGuard {
    pub fn new(metric: Metric) -> Self {
        metric.add(1);
        GaugeGuard(metric)
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.add(-1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_add_and_export() {
        let before = Event::MergedRows.value();
        Event::MergedRows.add(5);
        assert_eq!(Event::MergedRows.value(), before + 5);
        {
            let _connection = GaugeGuard::new(Metric::HTTPConnection);
            assert!(Metric::HTTPConnection.value() >= 1);
        }
        let text = prometheus_text(&[("Uptime".into(), 1.5, "Seconds.".into())]);
        assert!(text.contains("# TYPE ClickHouseProfileEvents_MergedRows counter\nClickHouseProfileEvents_MergedRows "));
        assert!(text.contains("# TYPE ClickHouseMetrics_Query gauge\n"));
        assert!(text.contains("ClickHouseAsyncMetrics_Uptime 1.5\n"));
    }
}
