//! The `IP_TRIE` layout: rows keyed by network prefixes (`10.0.0.0/8`, `2001:db8::/32`),
//! looked up by address with the longest prefix that contains it.
//!
//! Built as ClickHouse's `IPAddressDictionary` builds it, so that the rows, their order
//! and every answer are the same: prefixes are parsed (as Poco parses addresses), masked,
//! sorted by (network, length) with duplicates dropped (the first source row wins), and
//! each prefix points at the nearest prefix that contains it. A lookup binary-searches the
//! last network not above the address and walks up that chain: O(log n + nesting depth),
//! never a scan.
//!
//! When every prefix is IPv4 the index holds 32-bit networks and the key column prints
//! them as `a.b.c.d/len`; one IPv6 prefix makes the whole index IPv6 and IPv4 prefixes
//! become IPv4-mapped (`::ffff:a.b.c.d/(len + 96)`), as ClickHouse shows them.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringArray, UInt32Array};
use arrow::datatypes::{DataType, FieldRef};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ip::{format_ipv4, format_ipv6, ipv4_mapped, ipv4_of_mapped, parse_ipv6, parse_lenient_address, LenientAddress};

/// The prefixes of an `IP_TRIE` dictionary, sorted, with their containment chains.
#[derive(Debug)]
pub struct IpPrefixIndex {
    /// Masked network addresses, ascending (IPv4 ones in the low 32 bits when `bits` is 32).
    networks: Vec<u128>,
    /// Prefix length of each network.
    lengths: Vec<u8>,
    /// The nearest enclosing prefix of each prefix, or the prefix itself when none.
    parents: Vec<u32>,
    /// 32 (every prefix is IPv4) or 128.
    bits: u32,
}

/// What loading an `IP_TRIE` source gives: the index, and for each indexed prefix (in
/// index order) the source row it came from and its canonical text.
pub struct BuiltPrefixes {
    pub index: IpPrefixIndex,
    pub source_rows: UInt32Array,
    pub texts: StringArray,
}

impl IpPrefixIndex {
    /// Indexes the key column (`String` prefixes). A prefix that does not parse fails the
    /// whole load, with ClickHouse's message.
    pub fn build(keys: &ArrayRef) -> Result<BuiltPrefixes> {
        let keys = keys.as_string_opt::<i32>().ok_or_else(|| {
            Error::new(ErrorCode::BAD_ARGUMENTS, format!("Key attribute of ip_trie dictionary must be of type String, got {}", keys.data_type()))
        })?;
        let mut parsed = Vec::with_capacity(keys.len());
        for (row, text) in keys.iter().enumerate() {
            // A NULL key cannot match any address.
            let Some(text) = text else { continue };
            parsed.push((parse_prefix(text)?, row as u32));
        }
        let bits = if parsed.iter().any(|((address, _), _)| matches!(address, LenientAddress::V6(_))) { 128 } else { 32 };
        let mut records: Vec<(u128, u8, u32)> = parsed
            .into_iter()
            .map(|((address, length), row)| {
                let (value, length) = match (address, bits) {
                    (LenientAddress::V4(v4), 32) => (u128::from(v4), length),
                    (LenientAddress::V4(v4), _) => (u128::from_be_bytes(ipv4_mapped(v4)), length + 96),
                    (LenientAddress::V6(v6), _) => (u128::from_be_bytes(v6), length),
                };
                (value & network_mask(length, bits), length, row)
            })
            .collect();
        records.sort_unstable();
        records.dedup_by(|later, earlier| (later.0, later.1) == (earlier.0, earlier.1));

        let mut parents = Vec::with_capacity(records.len());
        let mut open: Vec<usize> = Vec::new();
        for (i, &(network, _, _)) in records.iter().enumerate() {
            let mut parent = i as u32;
            while let Some(&candidate) = open.last() {
                let (candidate_network, candidate_length, _) = records[candidate];
                if contains(candidate_network, candidate_length, network, bits) {
                    parent = candidate as u32;
                    break;
                }
                open.pop();
            }
            parents.push(parent);
            open.push(i);
        }
        let texts: StringArray = records
            .iter()
            .map(|&(network, length, _)| {
                Some(if bits == 32 {
                    format!("{}/{length}", format_ipv4(network as u32))
                } else {
                    format!("{}/{length}", format_ipv6(&network.to_be_bytes()))
                })
            })
            .collect();
        let source_rows: UInt32Array = records.iter().map(|r| Some(r.2)).collect();
        let index = IpPrefixIndex {
            networks: records.iter().map(|r| r.0).collect(),
            lengths: records.iter().map(|r| r.1).collect(),
            parents,
            bits,
        };
        Ok(BuiltPrefixes { index, source_rows, texts })
    }

    /// Distinct prefixes.
    pub fn len(&self) -> usize {
        self.networks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    pub fn allocated_bytes(&self) -> usize {
        self.networks.capacity() * size_of::<u128>() + self.lengths.capacity() + self.parents.capacity() * size_of::<u32>()
    }

    /// The index of the longest prefix containing `address` (in this index's width).
    fn longest_match(&self, address: u128) -> Option<u32> {
        let after = self.networks.partition_point(|&network| network <= address);
        let mut i = after.checked_sub(1)?;
        loop {
            if contains(self.networks[i], self.lengths[i], address, self.bits) {
                return Some(i as u32);
            }
            let parent = self.parents[i] as usize;
            if parent == i {
                return None;
            }
            i = parent;
        }
    }

    fn lookup_ipv4(&self, address: u32) -> Option<u32> {
        if self.bits == 32 {
            self.longest_match(u128::from(address))
        } else {
            self.longest_match(u128::from_be_bytes(ipv4_mapped(address)))
        }
    }

    fn lookup_ipv6(&self, bytes: &[u8; 16]) -> Option<u32> {
        if self.bits == 128 {
            self.longest_match(u128::from_be_bytes(*bytes))
        } else {
            // Only IPv4 prefixes: an IPv6 address matches through its IPv4-mapped form.
            ipv4_of_mapped(bytes).and_then(|v4| self.longest_match(u128::from(v4)))
        }
    }

    /// The row of every address of `keys`: `UInt32` (IPv4, ClickHouse's `IPv4`),
    /// `FixedString(16)` (IPv6) or, as a Granary extension while it has no IP types,
    /// address text. `field` is the argument's field, to tell a query literal.
    pub fn lookup_column(&self, keys: &ArrayRef, field: Option<&FieldRef>) -> Result<UInt32Array> {
        let mismatch = || Error::new(ErrorCode::TYPE_MISMATCH, "Key does not match, expected either IPv4 (or UInt32) or IPv6 (or FixedString(16))");
        match keys.data_type() {
            DataType::UInt32 => Ok(keys.as_primitive::<arrow::datatypes::UInt32Type>().iter().map(|a| a.and_then(|a| self.lookup_ipv4(a))).collect()),
            // An integer literal arrives as Int64 before it gets its ClickHouse type: it is
            // an IPv4 address when that type is UInt32, as in ClickHouse.
            DataType::Int64 if field.is_some_and(|f| is_query_literal(f)) => {
                let values = keys.as_primitive::<arrow::datatypes::Int64Type>();
                if values.iter().flatten().any(|v| !(i64::from(u16::MAX) + 1..=i64::from(u32::MAX)).contains(&v)) {
                    return Err(mismatch());
                }
                Ok(values.iter().map(|a| a.and_then(|a| self.lookup_ipv4(a as u32))).collect())
            }
            DataType::FixedSizeBinary(16) => Ok(keys
                .as_fixed_size_binary()
                .iter()
                .map(|bytes| bytes.and_then(|b| <&[u8; 16]>::try_from(b).ok()).and_then(|b| self.lookup_ipv6(b)))
                .collect()),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                let texts = arrow::compute::cast(keys, &DataType::Utf8)?;
                texts
                    .as_string::<i32>()
                    .iter()
                    .map(|text| match text {
                        None => Ok(None),
                        Some(text) => parse_ipv6(text)
                            .map(|bytes| self.lookup_ipv6(&bytes))
                            .ok_or_else(|| Error::new(ErrorCode::CANNOT_PARSE_IPV6, format!("Cannot parse IP address '{text}' to look it up in an ip_trie dictionary"))),
                    })
                    .collect()
            }
            _ => Err(mismatch()),
        }
    }
}

/// Whether `field` is an integer literal written in the query (granary-functions marks
/// them so that functions see ClickHouse's literal types).
fn is_query_literal(field: &FieldRef) -> bool {
    field.metadata().get("granary.literal").is_some_and(|v| v == "1")
}

fn network_mask(length: u8, bits: u32) -> u128 {
    let all = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
    if length == 0 {
        0
    } else {
        (all << (bits - u32::from(length))) & all
    }
}

fn contains(network: u128, length: u8, address: u128, bits: u32) -> bool {
    (address & network_mask(length, bits)) == network
}

/// `address[/length]` as ClickHouse's `IP_TRIE` reads its keys: a plain address is a
/// full-length prefix.
fn parse_prefix(text: &str) -> Result<(LenientAddress, u8)> {
    let error = |reason: &str| Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Can't parse address \"{text}\": {reason}"));
    let (address_text, mask_text) = match text.split_once('/') {
        Some((address, mask)) => (address, Some(mask)),
        None => (text, None),
    };
    let address = parse_lenient_address(address_text).ok_or_else(|| error("Invalid address"))?;
    let max_length = match address {
        LenientAddress::V4(_) => 32,
        LenientAddress::V6(_) => 128,
    };
    let Some(mask_text) = mask_text else { return Ok((address, max_length)) };
    let digits_end = mask_text.find(|c: char| !c.is_ascii_digit()).unwrap_or(mask_text.len());
    let (digits, rest) = mask_text.split_at(digits_end);
    if digits.is_empty() && !rest.is_empty() {
        return Err(error("Extra characters at the end of IP address"));
    }
    let length: u8 = digits.parse().map_err(|_| error("Mask for IP address is not a valid number"))?;
    if !rest.is_empty() {
        return Err(error("Extra characters at the end of IP address"));
    }
    if length > max_length {
        return Err(error("Invalid argument"));
    }
    Ok((address, length))
}

/// The rows in index order with the key column replaced by the canonical prefix texts.
pub fn reorder_rows(rows: &arrow::record_batch::RecordBatch, key_column: usize, built: &BuiltPrefixes) -> Result<arrow::record_batch::RecordBatch> {
    let columns = rows
        .columns()
        .iter()
        .enumerate()
        .map(|(i, column)| {
            if i == key_column {
                Ok(Arc::new(built.texts.clone()) as ArrayRef)
            } else {
                Ok(arrow::compute::take(column.as_ref(), &built.source_rows, None)?)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(arrow::record_batch::RecordBatch::try_new(rows.schema(), columns)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(prefixes: &[&str]) -> BuiltPrefixes {
        let keys: ArrayRef = Arc::new(StringArray::from(prefixes.to_vec()));
        IpPrefixIndex::build(&keys).unwrap()
    }

    fn v4(text: &str) -> u32 {
        granary_types::ip::parse_ipv4(text).unwrap()
    }

    #[test]
    fn longest_prefix_wins_and_duplicates_keep_the_first_row() {
        let built = build(&["10.1.0.0/16", "10.0.0.0/8", "10.1.2.3/8", "192.168.0.1/24", "1.2.3.4", "0.0.0.0/0"]);
        let texts: Vec<&str> = built.texts.iter().flatten().collect();
        assert_eq!(texts, ["0.0.0.0/0", "1.2.3.4/32", "10.0.0.0/8", "10.1.0.0/16", "192.168.0.0/24"]);
        assert_eq!(built.source_rows.values().to_vec(), vec![5, 4, 1, 0, 3]);
        let index = &built.index;
        assert_eq!(index.lookup_ipv4(v4("10.1.9.9")), Some(3));
        assert_eq!(index.lookup_ipv4(v4("10.200.0.1")), Some(2));
        assert_eq!(index.lookup_ipv4(v4("11.0.0.1")), Some(0));
        assert_eq!(index.lookup_ipv4(v4("192.168.0.77")), Some(4));
        assert_eq!(index.lookup_ipv6(&parse_ipv6("::ffff:10.1.2.3").unwrap()), Some(3));
        assert_eq!(index.lookup_ipv6(&parse_ipv6("::10.1.2.3").unwrap()), None);
    }

    #[test]
    fn one_ipv6_prefix_maps_every_ipv4_prefix() {
        let built = build(&["10.0.0.0/8", "2001:db8::/32", "10.1.2.3"]);
        let texts: Vec<&str> = built.texts.iter().flatten().collect();
        assert_eq!(texts, ["::ffff:10.0.0.0/104", "::ffff:10.1.2.3/128", "2001:db8::/32"]);
        let index = &built.index;
        assert_eq!(index.lookup_ipv4(v4("10.1.2.3")), Some(1));
        assert_eq!(index.lookup_ipv4(v4("10.1.2.4")), Some(0));
        assert_eq!(index.lookup_ipv6(&parse_ipv6("2001:db8:ffff::1").unwrap()), Some(2));
        assert_eq!(index.lookup_ipv6(&parse_ipv6("2001:db9::1").unwrap()), None);
    }

    #[test]
    fn sibling_prefixes_do_not_hide_their_parent() {
        // 10.2.0.0/16 sorts just below 10.3.0.1 but does not contain it; its parent does.
        let built = build(&["10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16", "10.2.5.0/24", "11.0.0.0/8"]);
        let index = &built.index;
        assert_eq!(index.lookup_ipv4(v4("10.3.0.1")), Some(0));
        assert_eq!(index.lookup_ipv4(v4("10.2.5.1")), Some(3));
        assert_eq!(index.lookup_ipv4(v4("10.2.6.1")), Some(2));
        assert_eq!(index.lookup_ipv4(v4("9.255.255.255")), None);
    }

    #[test]
    fn bad_prefixes_fail_with_clickhouse_messages() {
        for (text, reason) in [
            ("10.0.0.0/33", "Invalid argument"),
            ("10.0.0.0/256", "Mask for IP address is not a valid number"),
            ("10.0.0.0/", "Mask for IP address is not a valid number"),
            ("10.0.0.0/-1", "Extra characters at the end of IP address"),
            ("10.0.0.0/8x", "Extra characters at the end of IP address"),
            ("hello", "Invalid address"),
            ("2001:db8::/129", "Invalid argument"),
        ] {
            let keys: ArrayRef = Arc::new(StringArray::from(vec![text]));
            let error = IpPrefixIndex::build(&keys).err().unwrap();
            assert_eq!(error.code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
            assert_eq!(error.message(), format!("Can't parse address \"{text}\": {reason}"));
        }
        let ok = build(&["10.0.0.0 /8", "10.0.0.0/08", "2001:db8::1/0"]);
        let texts: Vec<&str> = ok.texts.iter().flatten().collect();
        assert_eq!(texts, ["::/0", "::ffff:10.0.0.0/104"]);
    }
}
