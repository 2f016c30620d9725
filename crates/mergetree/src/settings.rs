//! `SETTINGS` of a MergeTree table (the engine clause, not the query's settings).

use granary_common::{Error, ErrorCode, Result};

/// Engine settings with ClickHouse's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeTreeSettings {
    /// Rows per granule (and so per primary-index entry).
    pub index_granularity: u64,
    /// A granule also ends once its uncompressed bytes reach this (adaptive granularity).
    /// 0 disables the byte limit.
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
    /// Rows per block a merge hands the part writer; where a block ends, a short last
    /// granule is its own or joins the previous one (see `writer.rs`).
    pub merge_max_block_size: u64,
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
        }
    }
}

impl MergeTreeSettings {
    /// Builds the settings from `SETTINGS name = value, ...` pairs. Unknown names are an
    /// error (115), as in ClickHouse: a misspelt setting must not be silently ignored.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self> {
        let mut s = MergeTreeSettings::default();
        for (name, value) in pairs {
            let slot = match name.as_str() {
                "index_granularity" => &mut s.index_granularity,
                "index_granularity_bytes" => &mut s.index_granularity_bytes,
                "min_bytes_for_wide_part" => &mut s.min_bytes_for_wide_part,
                "min_rows_for_wide_part" => &mut s.min_rows_for_wide_part,
                "old_parts_lifetime" => &mut s.old_parts_lifetime,
                "parts_to_delay_insert" => &mut s.parts_to_delay_insert,
                "parts_to_throw_insert" => &mut s.parts_to_throw_insert,
                "max_bytes_to_merge_at_max_space_in_pool" => &mut s.max_bytes_to_merge_at_max_space_in_pool,
                "min_compress_block_size" => &mut s.min_compress_block_size,
                "max_compress_block_size" => &mut s.max_compress_block_size,
                "allow_dimensions_outside_sorting_key" => &mut s.allow_dimensions_outside_sorting_key,
                "non_replicated_deduplication_window" => &mut s.non_replicated_deduplication_window,
                "merge_max_block_size" => &mut s.merge_max_block_size,
                _ => {
                    return Err(Error::new(ErrorCode::UNKNOWN_SETTING, format!("Unknown setting '{name}' for storage MergeTree")))
                }
            };
            *slot = parse_u64(value).ok_or_else(|| {
                Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot parse value '{value}' of MergeTree setting {name} as an unsigned integer"))
            })?;
        }
        if s.index_granularity == 0 {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "index_granularity: value 0 makes no sense"));
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
    }
}
