//! IPv4 and IPv6 addresses in ClickHouse's text forms.
//!
//! Granary has no `IPv4` / `IPv6` column types yet; addresses travel as ClickHouse's
//! older functions give them: an IPv4 address as the `UInt32` of its four bytes
//! (`IPv4StringToNum`), an IPv6 address as the 16 bytes of a `FixedString(16)`
//! (`IPv6StringToNum`). This module parses and prints those values exactly as
//! ClickHouse does, for the functions and for `IP_TRIE` dictionaries.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The 16-byte IPv6 form of an IPv4 address: `::ffff:a.b.c.d`.
pub fn ipv4_mapped(address: u32) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    bytes[12..].copy_from_slice(&address.to_be_bytes());
    bytes
}

/// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
pub fn ipv4_of_mapped(bytes: &[u8; 16]) -> Option<u32> {
    let mapped = bytes[..10].iter().all(|&b| b == 0) && bytes[10] == 0xff && bytes[11] == 0xff;
    mapped.then(|| u32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]))
}

/// `IPv4StringToNum`'s strict form: four decimal octets, no leading zeros, nothing else.
pub fn parse_ipv4(text: &str) -> Option<u32> {
    text.parse::<Ipv4Addr>().ok().map(u32::from)
}

/// `IPv6StringToNum`'s form: an IPv6 address (an IPv4 tail allowed), or an IPv4 address,
/// which becomes `::ffff:a.b.c.d`.
pub fn parse_ipv6(text: &str) -> Option<[u8; 16]> {
    if let Ok(v6) = text.parse::<Ipv6Addr>() {
        return Some(v6.octets());
    }
    parse_ipv4(text).map(ipv4_mapped)
}

/// `a.b.c.d`.
pub fn format_ipv4(address: u32) -> String {
    Ipv4Addr::from(address).to_string()
}

/// ClickHouse's `formatIPv6`: lower-case hex groups, the longest run (the first of equal
/// runs) of at least two zero groups as `::`, and the last 32 bits as an IPv4 address
/// when the address is IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`).
pub fn format_ipv6(bytes: &[u8; 16]) -> String {
    let words: Vec<u16> = bytes.chunks_exact(2).map(|w| u16::from_be_bytes([w[0], w[1]])).collect();
    let mut best: Option<(usize, usize)> = None;
    let mut current: Option<(usize, usize)> = None;
    for (i, &word) in words.iter().enumerate() {
        if word == 0 {
            current = Some(current.map_or((i, 1), |(start, len)| (start, len + 1)));
        } else if let Some(run) = current.take() {
            if best.is_none_or(|b| run.1 > b.1) {
                best = Some(run);
            }
        }
    }
    if let Some(run) = current {
        if best.is_none_or(|b| run.1 > b.1) {
            best = Some(run);
        }
    }
    let best = best.filter(|&(_, len)| len >= 2);
    let mut out = String::with_capacity(40);
    for (i, &word) in words.iter().enumerate() {
        if let Some((start, len)) = best {
            if i >= start && i < start + len {
                if i == start {
                    out.push(':');
                }
                continue;
            }
        }
        if i != 0 {
            out.push(':');
        }
        let embeds_ipv4 = matches!(best, Some((0, 6))) || (matches!(best, Some((0, 5))) && words[5] == 0xffff);
        if i == 6 && embeds_ipv4 {
            out.push_str(&Ipv4Addr::new(bytes[12], bytes[13], bytes[14], bytes[15]).to_string());
            return out;
        }
        out.push_str(&format!("{word:x}"));
    }
    if best.is_some_and(|(start, len)| start + len == words.len()) {
        out.push(':');
    }
    out
}

/// An address as the `Poco::Net::IPAddress` text parser reads it, which is what
/// ClickHouse's `IP_TRIE` dictionaries use for their prefixes: IPv4 the `inet_aton` way
/// (`10.1` is `10.0.0.1`, octal and hex parts, trailing white space ignored), IPv6 with an
/// optional `%scope` (ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LenientAddress {
    V4(u32),
    V6([u8; 16]),
}

pub fn parse_lenient_address(text: &str) -> Option<LenientAddress> {
    // Poco takes the empty text and 0.0.0.0 for the wildcard address, and any other text
    // that reads as the all-zero IPv4 address for an error.
    if text.is_empty() || text.trim() == "0.0.0.0" {
        return Some(LenientAddress::V4(0));
    }
    if let Some(v4) = inet_aton(text).filter(|&a| a != 0) {
        return Some(LenientAddress::V4(v4));
    }
    let unscoped = text.split_once('%').map_or(text, |(address, _)| address);
    unscoped.parse::<Ipv6Addr>().ok().map(|a| LenientAddress::V6(a.octets()))
}

/// glibc's `inet_aton`: one to four parts separated by dots, each decimal, octal (`0`
/// prefix) or hex (`0x` prefix); the last part fills the remaining bytes. Parsing stops
/// at white space.
fn inet_aton(text: &str) -> Option<u32> {
    let text = text.split(|c: char| c.is_ascii_whitespace()).next().unwrap_or_default();
    let parts: Vec<&str> = text.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let values = parts.iter().map(|p| c_number(p)).collect::<Option<Vec<u64>>>()?;
    let (last, leading) = values.split_last()?;
    if leading.iter().any(|&v| v > 0xff) {
        return None;
    }
    let last_bits = 8 * (4 - leading.len() as u32);
    if last_bits < 32 && *last >= 1u64 << last_bits || *last > u64::from(u32::MAX) {
        return None;
    }
    let high = leading.iter().enumerate().fold(0u64, |acc, (i, &v)| acc | (v << (24 - 8 * i as u32)));
    Some((high | last) as u32)
}

/// A C integer literal as `strtoul(s, 0)` reads it, requiring the whole text.
fn c_number(text: &str) -> Option<u64> {
    let (digits, radix) = if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        (hex, 16)
    } else if text.len() > 1 && text.starts_with('0') {
        (&text[1..], 8)
    } else {
        (text, 10)
    };
    if digits.is_empty() && radix != 16 {
        return None;
    }
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(text: &str) -> [u8; 16] {
        parse_ipv6(text).unwrap()
    }

    #[test]
    fn strict_ipv4() {
        assert_eq!(parse_ipv4("10.1.2.3"), Some(167838211));
        assert_eq!(parse_ipv4("255.255.255.255"), Some(u32::MAX));
        for bad in ["01.2.3.4", "1.2.3", "1.2.3.256", "", " 1.2.3.4", "1.2.3.4 "] {
            assert_eq!(parse_ipv4(bad), None, "{bad}");
        }
        assert_eq!(format_ipv4(1), "0.0.0.1");
    }

    #[test]
    fn ipv6_text_round_trips_as_clickhouse_prints_it() {
        for (input, printed) in [
            ("::a01:203", "::10.1.2.3"),
            ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
            ("1.2.3.4", "::ffff:1.2.3.4"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("::", "::"),
            ("::1", "::1"),
            ("1::", "1::"),
            ("1:0:0:1::", "1:0:0:1::"),
            ("1:0::1:0:0:0", "1::1:0:0:0"),
            ("2001:DB8::", "2001:db8::"),
            ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
            ("1:0:3:4:5:6:7:8", "1:0:3:4:5:6:7:8"),
        ] {
            assert_eq!(format_ipv6(&v6(input)), printed, "{input}");
        }
        for bad in ["zz", "", "1:2:3:4:5:6:7:8:9", "[::1]", "::1%eth0"] {
            assert_eq!(parse_ipv6(bad), None, "{bad}");
        }
        assert_eq!(ipv4_of_mapped(&v6("::ffff:10.1.2.3")), Some(167838211));
        assert_eq!(ipv4_of_mapped(&v6("::10.1.2.3")), None);
    }

    #[test]
    fn lenient_addresses_read_like_poco() {
        use LenientAddress::*;
        assert_eq!(parse_lenient_address("1.2.3"), Some(V4(0x01020003)));
        assert_eq!(parse_lenient_address("01.2.3.04"), Some(V4(0x01020304)));
        assert_eq!(parse_lenient_address("0x0a.1"), Some(V4(0x0a000001)));
        assert_eq!(parse_lenient_address("10.0.0.0 "), Some(V4(0x0a000000)));
        assert_eq!(parse_lenient_address(""), Some(V4(0)));
        assert_eq!(parse_lenient_address("0.0.0.0"), Some(V4(0)));
        assert_eq!(parse_lenient_address("::1%eth0"), Some(V6(v6("::1"))));
        assert_eq!(parse_lenient_address("::ffff:1.2.3.4"), Some(V6(v6("::ffff:1.2.3.4"))));
        for bad in [" 10.0.0.0", "hello", "[::1]", "1.2.3.256", "08.1.1.1", "1.2.3.4.5"] {
            assert_eq!(parse_lenient_address(bad), None, "{bad}");
        }
    }
}
