//! `SETTINGS` of a MergeTree table (the engine clause, not the query's settings).

use granary_common::{Error, ErrorCode, Result};

/// Engine settings with ClickHouse's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeTreeSettings {
    /// Rows per granule (and so per primary-index entry).
    pub index_granularity: u64,
    /// Granules of blocks with wide rows get fewer rows, so that a granule holds about
    /// this many bytes (adaptive granularity). 0 disables it, and parts are then always
    /// wide, without a final mark, as ClickHouse's non-adaptive parts.
    pub index_granularity_bytes: u64,
    /// Accepted for compatibility; every part is written in the wide format.
    pub min_bytes_for_wide_part: u64,
    /// Parts with fewer rows are compact too (0: only the byte size decides).
    pub min_rows_for_wide_part: u64,
    /// Seconds an outdated part is kept after a merge. Parts are deleted as soon as no
    /// query holds them (readers hold `Arc`s), which is never earlier than safe.
    pub old_parts_lifetime: u64,
    /// Active parts in one partition from which inserts are slowed down.
    pub parts_to_delay_insert: u64,
    /// Active parts in one partition from which inserts fail (TOO_MANY_PARTS).
    pub parts_to_throw_insert: u64,
    /// Largest total size of the parts of one merge.
    pub max_bytes_to_merge_at_max_space_in_pool: u64,
    /// Bytes of encoded granules gathered before a compressed block is cut.
    pub min_compress_block_size: u64,
    /// A compressed block never grows past this (unless a single granule is larger).
    pub max_compress_block_size: u64,
    /// AggregatingMergeTree: allow columns that are neither in the sorting key nor
    /// aggregate measures (they keep the first row's value when rows collapse).
    pub allow_dimensions_outside_sorting_key: u64,
    /// Blocks remembered for insert deduplication (0: none, ClickHouse's default for a
    /// non-replicated table).
    pub non_replicated_deduplication_window: u64,
    /// Rows per block a merge hands the part writer (granules are cut per block, see
    /// `granules.rs`).
    pub merge_max_block_size: u64,
    /// A merge's block also ends once its rows take this many bytes (0: no limit).
    pub merge_max_block_size_bytes: u64,
    /// Fsync an inserted part's files before it is renamed into place (1, Granary's
    /// default; ClickHouse's is 0). Without it an acknowledged INSERT still survives the
    /// server being killed (the kernel has the data) but not a power loss.
    pub fsync_after_insert: u64,
    /// Fsync an inserted part's directory and the table directory around its rename (1,
    /// Granary's default; ClickHouse's is 0).
    pub fsync_part_directory: u64,
    pub allow_experimental_replacing_merge_with_cleanup: u64,
    /// Index into `CLEAN_DELETED_ROWS` (obsolete in ClickHouse: accepted, no effect).
    pub clean_deleted_rows: u64,
    /// Seconds before a partition gets another background merge for expired TTL.
    pub merge_with_ttl_timeout: u64,
    /// TTL removes only whole parts whose every row expired; merges keep expired rows.
    pub ttl_only_drop_parts: u64,
    /// Done mutations whose files are kept (older ones are removed; 0: all are kept).
    pub finished_mutations_to_keep: u64,
    /// Index into `LIGHTWEIGHT_MUTATION_PROJECTION_MODE` (accepted: Granary has no
    /// projections for a lightweight delete to conflict with).
    pub lightweight_mutation_projection_mode: u64,
}

impl Default for MergeTreeSettings {
    fn default() -> Self {
        MergeTreeSettings {
            index_granularity: 8192,
            index_granularity_bytes: 10 * 1024 * 1024,
            min_bytes_for_wide_part: 10 * 1024 * 1024,
            min_rows_for_wide_part: 0,
            old_parts_lifetime: 480,
            parts_to_delay_insert: 1000,
            parts_to_throw_insert: 3000,
            max_bytes_to_merge_at_max_space_in_pool: 150 * 1024 * 1024 * 1024,
            min_compress_block_size: 65536,
            max_compress_block_size: 1024 * 1024,
            allow_dimensions_outside_sorting_key: 0,
            non_replicated_deduplication_window: 0,
            merge_max_block_size: 8192,
            merge_max_block_size_bytes: 10 * 1024 * 1024,
            fsync_after_insert: 1,
            fsync_part_directory: 1,
            allow_experimental_replacing_merge_with_cleanup: 0,
            clean_deleted_rows: 0,
            merge_with_ttl_timeout: 14400,
            ttl_only_drop_parts: 0,
            finished_mutations_to_keep: 100,
            lightweight_mutation_projection_mode: 0,
        }
    }
}

/// One MergeTree setting as `system.merge_tree_settings` shows it; the same table
/// drives `SETTINGS` parsing, so the list and the parser cannot drift apart.
pub struct SettingInfo {
    pub name: &'static str,
    /// ClickHouse's type name for the setting (`UInt64`, `Bool`, `Seconds`, ...).
    pub type_name: &'static str,
    /// Fixed once the table exists (ClickHouse's `readonly` column).
    pub readonly: bool,
    pub description: &'static str,
    /// The names of an enumeration setting's values (its slot holds the index); empty
    /// for a number.
    values: &'static [&'static str],
    slot: fn(&mut MergeTreeSettings) -> &mut u64,
}

const CLEAN_DELETED_ROWS: &[&str] = &["Never", "Always"];
const LIGHTWEIGHT_MUTATION_PROJECTION_MODE: &[&str] = &["throw", "drop", "rebuild"];

impl SettingInfo {
    /// The setting's value in `settings`, as text (a Bool as 0 or 1, as ClickHouse shows it).
    pub fn value_in(&self, settings: &MergeTreeSettings) -> String {
        let mut copy = settings.clone();
        let value = *(self.slot)(&mut copy);
        match self.values.get(value as usize) {
            Some(name) => name.to_string(),
            None => value.to_string(),
        }
    }

    /// The slot value of `text` (a number, or for an enumeration one of its names).
    fn parse(&self, text: &str) -> Result<u64> {
        if self.values.is_empty() {
            let value = parse_u64(text).ok_or_else(|| {
                Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot parse value '{text}' of MergeTree setting {} as an unsigned integer", self.name))
            })?;
            if self.type_name == "Bool" && value > 1 {
                return Err(Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Field value {value} is out of range of bool type")));
            }
            return Ok(value);
        }
        // The parser unquotes strings, so a number here was written as one.
        if text.trim().parse::<f64>().is_ok() {
            let kind = if parse_u64(text).is_some() { "UInt64" } else { "Float64" };
            return Err(Error::new(ErrorCode::BAD_GET, format!("Bad get: has {kind}, requested String")));
        }
        let name = text.trim().trim_matches('\'');
        self.values.iter().position(|v| *v == name).map(|i| i as u64).ok_or_else(|| {
            let names: Vec<String> = self.values.iter().map(|v| format!("'{v}'")).collect();
            Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unexpected value of {}: '{name}'. Must be one of [{}]", self.type_name, names.join(", ")))
        })
    }
}

/// Every setting Granary's MergeTree accepts, in ClickHouse's names.
pub const SETTINGS: &[SettingInfo] = &[
    SettingInfo {
        name: "allow_dimensions_outside_sorting_key",
        type_name: "Bool",
        readonly: false,
        description: "AggregatingMergeTree: allow columns that are neither in the sorting key nor aggregate functions; when rows collapse they keep the first row's value.",
        values: &[],
        slot: |s| &mut s.allow_dimensions_outside_sorting_key,
    },
    SettingInfo {
        name: "allow_experimental_replacing_merge_with_cleanup",
        type_name: "Bool",
        readonly: false,
        description: "Allow OPTIMIZE ... FINAL CLEANUP on a ReplacingMergeTree with an is_deleted column: the merge also drops the rows whose latest version is deleted.",
        values: &[],
        slot: |s| &mut s.allow_experimental_replacing_merge_with_cleanup,
    },
    SettingInfo {
        name: "clean_deleted_rows",
        type_name: "CleanDeletedRows",
        readonly: false,
        description: "Obsolete setting, does nothing (deleted rows are only removed by OPTIMIZE ... FINAL CLEANUP).",
        values: CLEAN_DELETED_ROWS,
        slot: |s| &mut s.clean_deleted_rows,
    },
    SettingInfo {
        name: "finished_mutations_to_keep",
        type_name: "UInt64",
        readonly: false,
        description: "How many records about mutations that are done to keep. If zero, then keep all of them.",
        values: &[],
        slot: |s| &mut s.finished_mutations_to_keep,
    },
    SettingInfo {
        name: "fsync_after_insert",
        type_name: "Bool",
        readonly: false,
        description: "Fsync the files of every inserted part before it becomes visible (Granary's default 1; ClickHouse's 0). With 0 an acknowledged INSERT survives a killed server but not a power loss.",
        values: &[],
        slot: |s| &mut s.fsync_after_insert,
    },
    SettingInfo {
        name: "fsync_part_directory",
        type_name: "Bool",
        readonly: false,
        description: "Fsync an inserted part's directory and the table directory around its rename (Granary's default 1; ClickHouse's 0).",
        values: &[],
        slot: |s| &mut s.fsync_part_directory,
    },
    SettingInfo {
        name: "index_granularity",
        type_name: "UInt64",
        readonly: true,
        description: "Maximum number of rows between the marks of an index (rows per granule, one primary-key entry each). In a compact part, a block's last granule under half of it joins the previous granule.",
        values: &[],
        slot: |s| &mut s.index_granularity,
    },
    SettingInfo {
        name: "index_granularity_bytes",
        type_name: "UInt64",
        readonly: true,
        description: "Maximum uncompressed bytes of a granule (adaptive granularity): granules of wide rows get fewer rows. 0 disables the limit.",
        values: &[],
        slot: |s| &mut s.index_granularity_bytes,
    },
    SettingInfo {
        name: "lightweight_mutation_projection_mode",
        type_name: "LightweightMutationProjectionMode",
        readonly: false,
        description: "What a lightweight delete does to a table with projections; Granary has none, so every mode is accepted and none changes anything.",
        values: LIGHTWEIGHT_MUTATION_PROJECTION_MODE,
        slot: |s| &mut s.lightweight_mutation_projection_mode,
    },
    SettingInfo {
        name: "max_bytes_to_merge_at_max_space_in_pool",
        type_name: "UInt64",
        readonly: false,
        description: "Largest total size in bytes of the parts of one background merge.",
        values: &[],
        slot: |s| &mut s.max_bytes_to_merge_at_max_space_in_pool,
    },
    SettingInfo {
        name: "max_compress_block_size",
        type_name: "UInt64",
        readonly: false,
        description: "A compressed block of a column file never grows past this many bytes, unless a single granule is larger.",
        values: &[],
        slot: |s| &mut s.max_compress_block_size,
    },
    SettingInfo {
        name: "merge_max_block_size",
        type_name: "NonZeroUInt64",
        readonly: false,
        description: "Rows per block that a merge or mutation hands the part writer, which cuts granules block by block.",
        values: &[],
        slot: |s| &mut s.merge_max_block_size,
    },
    SettingInfo {
        name: "merge_max_block_size_bytes",
        type_name: "UInt64",
        readonly: false,
        description: "Bytes per block that a merge hands the part writer: a block also ends once its rows take this many bytes in memory (0: no limit).",
        values: &[],
        slot: |s| &mut s.merge_max_block_size_bytes,
    },
    SettingInfo {
        name: "min_bytes_for_wide_part",
        type_name: "UInt64",
        readonly: false,
        description: "Parts smaller than this many uncompressed bytes are written in the Compact format (one data file for all columns), larger ones in the Wide format.",
        values: &[],
        slot: |s| &mut s.min_bytes_for_wide_part,
    },
    SettingInfo {
        name: "min_compress_block_size",
        type_name: "UInt64",
        readonly: false,
        description: "Bytes of encoded granules gathered before a compressed block of a column file is cut.",
        values: &[],
        slot: |s| &mut s.min_compress_block_size,
    },
    SettingInfo {
        name: "min_rows_for_wide_part",
        type_name: "UInt64",
        readonly: false,
        description: "Parts with fewer rows are written in the Compact format too (0: only min_bytes_for_wide_part decides).",
        values: &[],
        slot: |s| &mut s.min_rows_for_wide_part,
    },
    SettingInfo {
        name: "non_replicated_deduplication_window",
        type_name: "UInt64",
        readonly: false,
        description: "Number of recent inserted blocks whose hashes are kept to drop repeated inserts (0: no deduplication).",
        values: &[],
        slot: |s| &mut s.non_replicated_deduplication_window,
    },
    SettingInfo {
        name: "merge_with_ttl_timeout",
        type_name: "Int64",
        readonly: false,
        description: "Minimal time in seconds before a merge that deletes expired TTL rows is repeated in the same partition.",
        values: &[],
        slot: |s| &mut s.merge_with_ttl_timeout,
    },
    SettingInfo {
        name: "old_parts_lifetime",
        type_name: "Seconds",
        readonly: false,
        description: "Seconds an outdated part is kept after a merge; parts still read by a query are kept until it ends.",
        values: &[],
        slot: |s| &mut s.old_parts_lifetime,
    },
    SettingInfo {
        name: "ttl_only_drop_parts",
        type_name: "Bool",
        readonly: false,
        description: "Only drop whole parts whose rows have all expired; merges do not remove expired rows.",
        values: &[],
        slot: |s| &mut s.ttl_only_drop_parts,
    },
    SettingInfo {
        name: "parts_to_delay_insert",
        type_name: "UInt64",
        readonly: false,
        description: "Active parts in one partition from which inserts are slowed down to let merges catch up.",
        values: &[],
        slot: |s| &mut s.parts_to_delay_insert,
    },
    SettingInfo {
        name: "parts_to_throw_insert",
        type_name: "UInt64",
        readonly: false,
        description: "Active parts in one partition from which inserts fail with TOO_MANY_PARTS.",
        values: &[],
        slot: |s| &mut s.parts_to_throw_insert,
    },
];

impl MergeTreeSettings {
    /// Builds the settings from `SETTINGS name = value, ...` pairs. Unknown names are an
    /// error (115), as in ClickHouse: a misspelt setting must not be silently ignored.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self> {
        let mut s = MergeTreeSettings::default();
        for (name, value) in pairs {
            let Some(info) = SETTINGS.iter().find(|info| info.name == name.as_str()) else {
                return Err(Error::new(ErrorCode::UNKNOWN_SETTING, format!("Unknown setting '{name}' for storage MergeTree")));
            };
            *(info.slot)(&mut s) = info.parse(value)?;
        }
        if s.index_granularity == 0 {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "index_granularity: value 0 makes no sense"));
        }
        if s.merge_max_block_size == 0 {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "merge_max_block_size: value 0 makes no sense"));
        }
        if s.parts_to_throw_insert > 0 && s.parts_to_delay_insert > s.parts_to_throw_insert {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "parts_to_delay_insert must not be greater than parts_to_throw_insert"));
        }
        Ok(s)
    }
}

fn parse_u64(text: &str) -> Option<u64> {
    let t = text.trim().trim_matches('\'').replace('_', "");
    match t.to_ascii_lowercase().as_str() {
        "true" => Some(1),
        "false" => Some(0),
        _ => t.parse().ok(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_reject() {
        let s = MergeTreeSettings::from_pairs(&[("index_granularity".into(), "256".into())]).unwrap();
        assert_eq!(s.index_granularity, 256);
        let e = MergeTreeSettings::from_pairs(&[("index_granularty".into(), "256".into())]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UNKNOWN_SETTING);
        assert!(MergeTreeSettings::from_pairs(&[("index_granularity".into(), "0".into())]).is_err());
        let e = MergeTreeSettings::from_pairs(&[("clean_deleted_rows".into(), "always".into())]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::BAD_ARGUMENTS);
        let e = MergeTreeSettings::from_pairs(&[("clean_deleted_rows".into(), "1".into())]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::BAD_GET);
        let e = MergeTreeSettings::from_pairs(&[("allow_experimental_replacing_merge_with_cleanup".into(), "2".into())]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::CANNOT_CONVERT_TYPE);
    }

    #[test]
    fn every_listed_setting_parses_and_reads_back() {
        let defaults = MergeTreeSettings::default();
        for info in SETTINGS {
            let default = info.value_in(&defaults);
            let changed = match info.values {
                [] if info.type_name == "Bool" => (1 - default.parse::<u64>().unwrap()).to_string(),
                [] => (default.parse::<u64>().unwrap() + 1).to_string(),
                names => names.iter().find(|n| **n != default).unwrap().to_string(),
            };
            let s = MergeTreeSettings::from_pairs(&[(info.name.to_string(), changed.clone())]).unwrap();
            assert_eq!(info.value_in(&s), changed, "{}", info.name);
        }
    }
}
