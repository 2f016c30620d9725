//! URL functions with ClickHouse's deliberately simple (non-RFC) parsing: `protocol`,
//! `domain`, `domainWithoutWWW`, `topLevelDomain`, `port`, `path`, `pathFull`,
//! `queryString`, `fragment`, `queryStringAndFragment`, `netloc`, `cutWWW`,
//! `cutQueryString`, `cutFragment`, `cutQueryStringAndFragment`, `extractURLParameter`,
//! `extractURLParameters`, `extractURLParameterNames`, `decodeURLComponent`,
//! `encodeURLComponent` and the `Form` variants, `firstSignificantSubdomain`,
//! `cutToFirstSignificantSubdomain[WithWWW]`, `URLHierarchy`, `URLPathHierarchy`,
//! `cutURLParameter`.
//!
//! Each extractor maps the URL's bytes to a byte range of it (empty when the URL has no
//! such part); the `cut*` functions return the URL without that range. The rules follow
//! ClickHouse's scanners character by character, including their quirks (a host needs a
//! dot, `port` starts from the default port, a scheme is looked for in the first 16
//! bytes only), because users compare results with ClickHouse's.

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt16Array};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{illegal_type, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};
use crate::string::require_string;
use crate::text::{utf8_array, ByteStrings};

/// Byte `i` of `s`, 0 past the end (ClickHouse's strings are zero-terminated and its
/// scanners peek one byte ahead).
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn is_restricted(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'<' | b'>' | b'%' | b'{' | b'}' | b'|' | b'\\' | b'^' | b'~' | b'[' | b']' | b';' | b'=' | b'&')
}

/// Where the host part starts: after `//` or `scheme://` (a scheme within the first 16
/// bytes), else at 0. `None` when a restricted character appears in the scheme.
fn after_scheme(s: &[u8]) -> Option<usize> {
    if at(s, 0) == b'/' && at(s, 1) == b'/' {
        return Some(2);
    }
    after_scheme_name(s)
}

/// [`after_scheme`] without the `//` case.
fn after_scheme_name(s: &[u8]) -> Option<usize> {
    let scheme_end = s.len().min(16);
    let mut pos = 1;
    while pos < scheme_end {
        let c = s[pos];
        if !c.is_ascii_alphanumeric() {
            if matches!(c, b'.' | b'-' | b'+') {
                pos += 1;
                continue;
            }
            if is_restricted(c) {
                return None;
            }
            break;
        }
        pos += 1;
    }
    if scheme_end > pos + 2 && s[pos] == b':' && s[pos + 1] == b'/' && s[pos + 2] == b'/' {
        Some(pos + 3)
    } else {
        Some(0)
    }
}

/// The host of a URL as ClickHouse's `domain` sees it; empty when there is none (no dot,
/// nothing after the last dot, restricted characters).
fn url_host(s: &[u8]) -> Range<usize> {
    let Some(mut pos) = after_scheme(s) else { return 0..0 };
    let mut dot: Option<usize> = None;
    let mut start = pos;
    let check = |pos: usize, dot: Option<usize>, start: usize| -> Range<usize> {
        let Some(dot) = dot else { return 0..0 };
        if start >= pos || pos - dot == 1 {
            return 0..0;
        }
        if matches!(at(s, dot + 1), b':' | b'/' | b'?' | b'#') {
            return 0..0;
        }
        start..pos
    };
    while pos < s.len() {
        match s[pos] {
            b'.' => dot = Some(pos),
            b':' | b'/' | b'?' | b'#' => return check(pos, dot, start),
            b'@' => start = pos + 1,
            c if is_restricted(c) => return 0..0,
            _ => {}
        }
        pos += 1;
    }
    check(pos, dot, start)
}

fn domain(s: &[u8]) -> Range<usize> {
    url_host(s)
}

fn domain_without_www(s: &[u8]) -> Range<usize> {
    let h = url_host(s);
    if h.len() > 4 && &s[h.start..h.start + 4] == b"www." {
        h.start + 4..h.end
    } else {
        h
    }
}

fn top_level_domain(s: &[u8]) -> Range<usize> {
    let mut h = url_host(s);
    if h.is_empty() {
        return 0..0;
    }
    if s[h.end - 1] == b'.' {
        h.end -= 1;
    }
    let Some(last_dot) = s[h.clone()].iter().rposition(|c| *c == b'.').map(|p| h.start + p) else { return 0..0 };
    // An IPv4 address has no top-level domain.
    if at(s, last_dot + 1).is_ascii_digit() {
        return 0..0;
    }
    last_dot + 1..h.end
}

fn protocol(s: &[u8]) -> Range<usize> {
    if s.is_empty() || !s[0].is_ascii_alphabetic() {
        return 0..0;
    }
    let len = 1 + s[1..].iter().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')).count();
    if s.len() - len < 4 || s[len] != b':' {
        return 0..0;
    }
    0..len
}

fn find_any(s: &[u8], from: usize, set: &[u8]) -> usize {
    s[from.min(s.len())..].iter().position(|c| set.contains(c)).map_or(s.len(), |p| from + p)
}

fn path_impl(s: &[u8], with_query: bool) -> Range<usize> {
    let mut pos = find_any(s, 0, b"/");
    if pos == s.len() {
        return 0..0;
    }
    if at(s, pos + 1) == b'/' {
        pos = find_any(s, pos + 2, b"/");
        if pos == s.len() {
            return 0..0;
        }
    }
    if with_query {
        pos..s.len()
    } else {
        pos..find_any(s, pos, b"?#")
    }
}

fn query_string(s: &[u8], with_mark: bool) -> Range<usize> {
    let q = find_any(s, 0, b"?");
    if q == s.len() {
        return 0..0;
    }
    let f = find_any(s, q, b"#");
    q + usize::from(!with_mark)..f
}

fn fragment(s: &[u8], with_mark: bool) -> Range<usize> {
    let f = find_any(s, 0, b"#");
    if f == s.len() {
        return 0..0;
    }
    f + usize::from(!with_mark)..s.len()
}

fn query_string_and_fragment(s: &[u8], with_mark: bool) -> Range<usize> {
    let q = find_any(s, 0, b"?");
    if q != s.len() {
        return q + usize::from(!with_mark)..s.len();
    }
    let f = find_any(s, 0, b"#");
    if f != s.len() {
        // Without a query string the '#' is kept, as ClickHouse does.
        return f..s.len();
    }
    0..0
}

/// The `www.` that `cutWWW` removes: only right after `scheme://` or `//`.
fn www(s: &[u8]) -> Range<usize> {
    let slash = find_any(s, 0, b"/");
    if slash == s.len() {
        return 0..0;
    }
    if slash != 0 && slash != protocol(s).len() + 1 {
        return 0..0;
    }
    if s.len() - slash < 2 || s[slash + 1] != b'/' {
        return 0..0;
    }
    let mut pos = slash + 2;
    let mut start = pos;
    while pos < s.len() {
        match s[pos] {
            b'@' => start = pos + 1,
            b':' | b'/' | b'?' | b'#' => break,
            _ => {}
        }
        pos += 1;
    }
    if start + 4 < s.len() && &s[start..start + 4] == b"www." {
        start..start + 4
    } else {
        0..0
    }
}

/// `netloc`: user info, host and port. As in ClickHouse, a '/' or '?' ends it only after
/// user info was seen; otherwise it ends at the first '#', or at the last '/' (or the
/// first '?', or a sub-delimiter such as '=') when the URL ends.
fn netloc(s: &[u8]) -> Range<usize> {
    let skipped = if s.len() > 2 && s[0] == b'/' && s[1] == b'/' { Some(2) } else { after_scheme_name(s) };
    let Some(mut pos) = skipped else { return 0..0 };
    let start = pos;
    let mut has_userinfo = false;
    let mut host_end = s.len();
    let mut question = s.len();
    let mut slash = s.len();
    while pos < s.len() {
        match s[pos] {
            b'/' => {
                if has_userinfo {
                    return start..pos;
                }
                slash = pos;
            }
            b'?' => {
                if has_userinfo {
                    return start..pos;
                }
                question = pos;
            }
            b'#' => return start..pos,
            b'@' => {
                has_userinfo = true;
                host_end = s.len();
            }
            b';' | b'=' | b'&' | b'~' | b'%' if !has_userinfo => host_end = pos,
            c if is_restricted(c) => {
                return if pos > start { start..pos.min(question).min(slash) } else { 0..0 };
            }
            _ => {}
        }
        pos += 1;
    }
    if has_userinfo {
        start..pos
    } else {
        start..pos.min(question).min(slash).min(host_end)
    }
}

/// The type check shared by the URL functions: a String (or LowCardinality(String));
/// a FixedString is an illegal column (44), as in ClickHouse.
fn url_arg(ctx: &RetCtx) -> DfResult<()> {
    require_string(ctx, 0, ErrorCode::ILLEGAL_COLUMN)
}

/// `String`, or `LowCardinality(String)` for a LowCardinality URL.
fn string_like_arg(ctx: &RetCtx, inner: ChType) -> ChType {
    match ctx.ch(0) {
        ChType::LowCardinality(_) => ChType::LowCardinality(Box::new(inner)),
        _ => inner,
    }
}

fn strings_fn(name: &'static str, f: fn(&[u8]) -> Vec<u8>) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            url_arg(ctx)?;
            Ok(string_like_arg(ctx, ChType::String))
        },
        move |ctx| {
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                out.push_value(&f(s.value(row).as_bytes()))?;
            }
            out.finish(s.nulls().cloned())
        },
    )
    .build()
}

fn extract_fn(name: &'static str, f: fn(&[u8]) -> Range<usize>) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            url_arg(ctx)?;
            Ok(string_like_arg(ctx, ChType::String))
        },
        move |ctx| {
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                let v = s.value(row).as_bytes();
                out.push_value(&v[f(v)])?;
            }
            out.finish(s.nulls().cloned())
        },
    )
    .build()
}

fn cut_fn(name: &'static str, f: fn(&[u8]) -> Range<usize>) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            url_arg(ctx)?;
            Ok(string_like_arg(ctx, ChType::String))
        },
        move |ctx| {
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                let v = s.value(row).as_bytes();
                let r = f(v);
                out.extend(&v[..r.start]);
                out.extend(&v[r.end..]);
                out.finish_value()?;
            }
            out.finish(s.nulls().cloned())
        },
    )
    .build()
}

/// `port(url[, default_port])`: a value out of UInt16 range, a non-digit or a missing
/// port give the default.
fn port_of(s: &[u8], default: u16) -> u16 {
    let h = url_host(s);
    if h.is_empty() || h.len() == s.len() {
        return default;
    }
    let mut p = h.end;
    if at(s, p) != b':' {
        return default;
    }
    p += 1;
    let mut port: i64 = 0;
    while p < s.len() {
        let c = s[p];
        if c == b'/' {
            break;
        }
        if !c.is_ascii_digit() {
            return default;
        }
        port = port * 10 + i64::from(c - b'0');
        if port > i64::from(u16::MAX) {
            return default;
        }
        p += 1;
    }
    port as u16
}

fn port() -> ScalarUDF {
    ScalarDef::new(
        "port",
        Arity::range(1, 2),
        |ctx| {
            if !crate::string::is_plain_string(&ctx.ch(0)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            if ctx.arg_count() == 2 && !matches!(ctx.ch(1).strip_nullable(), ChType::UInt16) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            Ok(string_like_arg(ctx, ChType::UInt16))
        },
        |ctx| {
            let default = if ctx.args.len() == 2 {
                u16::try_from(ctx.const_int(1, "default_port")?).unwrap_or(0)
            } else {
                0
            };
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let out: UInt16Array = (0..s.len()).map(|row| port_of(s.value(row).as_bytes(), default)).collect::<Vec<_>>().into();
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

/// `extractURLParameter(url, name)`: the raw value of the first `name=` that starts the
/// query string or fragment or follows `&`; empty when absent.
fn url_parameter<'a>(s: &'a [u8], name: &[u8]) -> &'a [u8] {
    let q = find_any(s, 0, b"?#");
    if q >= s.len() {
        return b"";
    }
    let mut pattern = name.to_vec();
    pattern.push(b'=');
    let mut from = q + 1;
    loop {
        let Some(found) = memchr::memmem::find(&s[from.min(s.len())..], &pattern).map(|p| from + p) else { return b"" };
        if matches!(s[found - 1], b'?' | b'#' | b'&') {
            let begin = found + pattern.len();
            let end = find_any(s, begin, b"&#");
            return &s[begin..end];
        }
        from = found + pattern.len();
    }
}

fn extract_url_parameter() -> ScalarDef {
    ScalarDef::new(
        "extractURLParameter",
        Arity::exact(2),
        |ctx| {
            url_arg(ctx)?;
            require_string(ctx, 1, ErrorCode::ILLEGAL_COLUMN)?;
            Ok(string_like_arg(ctx, ChType::String))
        },
        |ctx| {
            let a = utf8_array(ctx.array(0)?)?;
            let name = ctx.const_str(1, "name")?.as_bytes().to_vec();
            let s = a.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len() / 4);
            for row in 0..s.len() {
                out.push_value(url_parameter(s.value(row).as_bytes(), &name))?;
            }
            out.finish(None)
        },
    )
}

/// `extractURLParameters`: each `name=value` (or bare `name` followed by `&`/`#`) of
/// the query string and fragment; a last bare name is dropped, as ClickHouse does.
fn url_parameters(s: &[u8], names_only: bool, out: &mut Vec<Range<usize>>) {
    let mut pos = find_any(s, 0, b"?#");
    if pos + 1 >= s.len() {
        return;
    }
    if names_only {
        loop {
            pos += 1;
            let mut begin = pos;
            loop {
                pos = find_any(s, begin, b"=&#?");
                if pos == s.len() {
                    return;
                }
                if s[pos] == b'?' {
                    pos += 1;
                    begin = pos;
                    continue;
                }
                break;
            }
            out.push(begin..pos);
            pos = find_any(s, pos, b"&#");
            if pos + 1 >= s.len() {
                return;
            }
        }
    }
    pos += 1;
    loop {
        let mut begin;
        loop {
            begin = pos;
            pos = find_any(s, pos, b"=&#?");
            if pos == s.len() {
                return;
            }
            if s[pos] == b'?' {
                pos += 1;
                continue;
            }
            break;
        }
        if matches!(s[pos], b'&' | b'#') {
            out.push(begin..pos);
            pos += 1;
        } else {
            pos = find_any(s, pos + 1, b"&#");
            out.push(begin..pos);
            if pos == s.len() {
                return;
            }
            pos += 1;
        }
    }
}

fn parameters_fn(name: &'static str, names_only: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            url_arg(ctx)?;
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        move |ctx| {
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let mut values = ByteStrings::with_capacity(s.len(), s.value_data().len());
            let mut offsets = Vec::with_capacity(s.len() + 1);
            offsets.push(0);
            let mut ranges = Vec::new();
            for row in 0..s.len() {
                let v = s.value(row).as_bytes();
                ranges.clear();
                url_parameters(v, names_only, &mut ranges);
                for r in &ranges {
                    values.push_value(&v[r.clone()])?;
                }
                offsets.push(crate::regexp::list_offset(values.len())?);
            }
            values.finish_list(offsets)
        },
    )
    .build()
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Percent-decoding; `%` not followed by two hex digits stays as it is.
fn decode_url(s: &[u8], plus_as_space: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'+' if plus_as_space => {
                out.push(b' ');
                i += 1;
            }
            b'%' if i + 2 < s.len() => match (hex_value(s[i + 1]), hex_value(s[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.extend_from_slice(&s[i..i + 3]);
                    i += 3;
                }
            },
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn encode_url(s: &[u8], space_as_plus: bool) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len() * 3);
    for &c in s {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~') {
            out.push(c);
        } else if c == b' ' && space_as_plus {
            out.push(b'+');
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        }
    }
    out
}

/// The two-label entries (`co.uk`, `com.tr`, ...) of the Public Suffix List that
/// ClickHouse's built-in `firstSignificantSubdomain` consults; ClickHouse compiles the
/// same selection (comment-free lines with exactly one dot) into a perfect hash.
const SECOND_LEVEL_SUFFIXES: &str = include_str!("url_tld.txt");

fn is_second_level_suffix(host: &[u8]) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static [u8]>> = std::sync::OnceLock::new();
    SET.get_or_init(|| SECOND_LEVEL_SUFFIXES.lines().filter(|l| !l.is_empty()).map(str::as_bytes).collect()).contains(host)
}

/// `firstSignificantSubdomain`: in the host without `www.` (and without a trailing dot),
/// the label before the last one, or the one before that when the last two labels are a
/// known second-level suffix (`news.example.co.uk` gives `example`). The second element
/// is where the host ends (trailing dot included), for the `cutTo...` functions.
fn first_significant_subdomain(s: &[u8], without_www: bool) -> (Range<usize>, usize) {
    let host = if without_www { domain_without_www(s) } else { domain(s) };
    if host.is_empty() {
        return (0..0, 0);
    }
    let domain_end = host.end;
    let begin = host.start;
    let mut end = host.end;
    if s[end - 1] == b'.' {
        end -= 1;
    }
    // The last three dots; `None` before the host's start.
    let mut last: [Option<usize>; 3] = [None; 3];
    for (i, c) in s[begin..end].iter().enumerate() {
        if *c == b'.' {
            last = [Some(begin + i), last[0], last[1]];
        }
    }
    let Some(p0) = last[0] else { return (begin..end, domain_end) };
    let Some(p1) = last[1] else { return (begin..p0, domain_end) };
    // A missing third dot sits just before the host (ClickHouse's `begin - 1`).
    let after_p2 = last[2].map_or(begin, |p| p + 1);
    let level_end = s[p0..end].iter().position(|c| *c == b'/').map_or(end, |i| p0 + i);
    if is_second_level_suffix(&s[p1 + 1..level_end]) {
        (after_p2..p1, domain_end)
    } else {
        (p1 + 1..p0, domain_end)
    }
}

fn cut_to_first_significant_subdomain(s: &[u8], without_www: bool) -> Range<usize> {
    let (r, domain_end) = first_significant_subdomain(s, without_www);
    if r.is_empty() {
        return 0..0;
    }
    r.start..domain_end
}

/// The elements of `URLHierarchy` (`path_only` false: each a prefix of the URL, the first
/// ending after the host) or `URLPathHierarchy` (prefixes of the path). A URL without
/// `scheme://` (lowercase letters and digits) gives itself (URLHierarchy) or nothing.
fn url_hierarchy(s: &[u8], path_only: bool, out: &mut Vec<Range<usize>>) {
    if s.is_empty() {
        return;
    }
    let is_sep = |c: u8| matches!(c, b'/' | b'?' | b'#');
    let end = s.len();
    let mut pos = s.iter().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit()).count();
    if pos == 0 || pos == end || !(pos + 3 < end && &s[pos..pos + 3] == b"://") {
        if !path_only {
            out.push(0..end);
        }
        return;
    }
    pos += 3;
    while pos < end && !is_sep(s[pos]) {
        pos += 1;
    }
    let start = if path_only { pos } else { 0 };
    if pos != end {
        pos += 1;
    }
    if !path_only {
        out.push(0..pos);
    }
    loop {
        while pos < end && is_sep(s[pos]) {
            pos += 1;
        }
        if pos == end {
            return;
        }
        while pos < end && !is_sep(s[pos]) {
            pos += 1;
        }
        if pos != end {
            pos += 1;
        }
        out.push(start..pos);
    }
}

fn hierarchy_fn(name: &'static str, path_only: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            if !crate::string::is_plain_string(&ctx.ch(0)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        move |ctx| {
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let mut values = ByteStrings::with_capacity(s.len(), s.value_data().len() * 2);
            let mut offsets = Vec::with_capacity(s.len() + 1);
            offsets.push(0);
            let mut ranges = Vec::new();
            for row in 0..s.len() {
                let v = s.value(row).as_bytes();
                ranges.clear();
                url_hierarchy(v, path_only, &mut ranges);
                for r in &ranges {
                    values.push_value(&v[r.clone()])?;
                }
                offsets.push(crate::regexp::list_offset(values.len())?);
            }
            values.finish_list(offsets)
        },
    )
    .build()
}

/// The byte range `cutURLParameter` removes for one name: the first `name=value` that
/// follows `?`, `#` or `&`, with the `&` after it (or, for a last parameter, before it).
fn url_parameter_cut(s: &[u8], name: &[u8]) -> Range<usize> {
    let q = find_any(s, 0, b"?#");
    let mut pattern = name.to_vec();
    pattern.push(b'=');
    let mut from = q + 1;
    while from < s.len() {
        let Some(found) = memchr::memmem::find(&s[from..], &pattern).map(|p| from + p) else { break };
        let prev = s[found - 1];
        if !matches!(prev, b'?' | b'#' | b'&') {
            from = found + pattern.len();
            continue;
        }
        let mut begin = found;
        let mut end = find_any(s, found + pattern.len(), b"&#");
        if end < s.len() && s[end] == b'&' {
            end += 1;
        } else if prev == b'&' {
            begin -= 1;
        }
        return begin..end;
    }
    0..0
}

fn cut_url_parameter() -> ScalarUDF {
    ScalarDef::new(
        "cutURLParameter",
        Arity::exact(2),
        |ctx| {
            if !matches!(ctx.ch(0), ChType::String) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            match ctx.ch(1) {
                ChType::String => {}
                ChType::Array(item) => {
                    if !matches!(*item, ChType::String | ChType::Nothing) {
                        return Err(crate::args::ch_error(
                            ErrorCode::ILLEGAL_COLUMN,
                            format!("Second argument of function {} must be constant array of strings", ctx.name),
                        ));
                    }
                }
                _ => return Err(illegal_type(ctx.name, 1, ctx.field(1))),
            }
            Ok(ChType::String)
        },
        |ctx| {
            let names: Vec<Vec<u8>> = match ctx.scalar(1) {
                None => {
                    return Err(crate::args::ch_error(
                        ErrorCode::ILLEGAL_COLUMN,
                        format!("Argument at index 1 for function {} must be constant", ctx.name),
                    ))
                }
                Some(datafusion::common::ScalarValue::List(list)) => {
                    let values = utf8_array(Arc::clone(list.values()))?;
                    let values = values.as_string::<i32>();
                    (0..values.len()).map(|i| values.value(i).as_bytes().to_vec()).collect()
                }
                _ => vec![ctx.const_str(1, "name")?.as_bytes().to_vec()],
            };
            let a = utf8_array(ctx.array(0)?)?;
            let s = a.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            let mut cuts: Vec<Range<usize>> = Vec::new();
            for row in 0..s.len() {
                let v = s.value(row).as_bytes();
                cuts.clear();
                cuts.extend(names.iter().map(|n| url_parameter_cut(v, n)).filter(|r| !r.is_empty()));
                cuts.sort_by_key(|r| (r.start, r.end));
                // Overlapping cuts (the same name twice) remove their union.
                let mut kept_to = 0;
                for r in &cuts {
                    if r.start > kept_to {
                        out.extend(&v[kept_to..r.start]);
                    }
                    kept_to = kept_to.max(r.end);
                }
                out.extend(&v[kept_to..]);
                out.finish_value()?;
            }
            out.finish(s.nulls().cloned())
        },
    )
    .build()
}

/// How many bytes of `url` make its hierarchy level `level` (ClickHouse's
/// `URLHierarchyHashImpl::findLevelLength`, with its scheme test that takes only the
/// letters strictly between `a` and `z` and digits strictly between 0 and 9).
fn url_level_length(level: u64, url: &[u8]) -> usize {
    let is_separator = |c: u8| matches!(c, b'/' | b'?' | b'#');
    let end = url.len();
    let mut pos = 0;
    while pos < end && ((url[pos] > b'a' && url[pos] < b'z') || (url[pos] > b'0' && url[pos] < b'9')) {
        pos += 1;
    }
    // Not a URL with a hierarchy (no `scheme://`): no prefix at all, as ClickHouse.
    if pos == 0 || pos == end || !(pos + 3 < end && &url[pos..pos + 3] == b"://") {
        return 0;
    }
    pos += 3;
    while pos < end && !is_separator(url[pos]) {
        pos += 1;
    }
    if pos != end {
        pos += 1;
    }
    if level == 0 {
        return pos;
    }
    let mut current = 0;
    while current != level && pos < end {
        while pos < end && is_separator(url[pos]) {
            pos += 1;
        }
        if pos == end {
            break;
        }
        while pos < end && !is_separator(url[pos]) {
            pos += 1;
        }
        if pos != end {
            pos += 1;
        }
        current += 1;
    }
    if current == level {
        pos
    } else {
        0
    }
}

/// CityHash64 of the URL without a last `/`, `?` or `#`.
fn url_hash_of(url: &[u8]) -> u64 {
    let url = match url.last() {
        Some(b'/' | b'?' | b'#') => &url[..url.len() - 1],
        _ => url,
    };
    granary_common::hash::city_hash64(url)
}

/// `URLHash(url[, level])`: a hash of the URL, or of its prefix down to hierarchy level
/// `level` (as `URLHierarchy` cuts it; a level the URL does not have hashes nothing).
fn url_hash() -> ScalarUDF {
    ScalarDef::new(
        "URLHash",
        Arity::range(1, 2),
        |ctx| {
            require_string(ctx, 0, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            if ctx.arg_count() > 1 {
                ctx.const_int(1, "level")?;
            }
            Ok(ChType::UInt64)
        },
        |ctx| {
            let level = if ctx.args.len() > 1 { Some(ctx.const_int(1, "level")?.max(0) as u64) } else { None };
            let urls = utf8_array(ctx.array(0)?)?;
            let urls = urls.as_string::<i32>();
            let hashes = (0..ctx.len).map(|row| {
                let url = urls.value(row).as_bytes();
                match level {
                    Some(level) => url_hash_of(&url[..url_level_length(level, url)]),
                    None => url_hash_of(url),
                }
            });
            Ok(Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values(hashes)) as ArrayRef)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        url_hash(),
        extract_fn("protocol", protocol),
        extract_fn("domain", domain),
        extract_fn("domainWithoutWWW", domain_without_www),
        extract_fn("topLevelDomain", top_level_domain),
        extract_fn("path", |s| path_impl(s, false)),
        extract_fn("pathFull", |s| path_impl(s, true)),
        extract_fn("queryString", |s| query_string(s, false)),
        extract_fn("fragment", |s| fragment(s, false)),
        extract_fn("queryStringAndFragment", |s| query_string_and_fragment(s, false)),
        extract_fn("netloc", netloc),
        cut_fn("cutWWW", www),
        cut_fn("cutQueryString", |s| query_string(s, true)),
        cut_fn("cutFragment", |s| fragment(s, true)),
        cut_fn("cutQueryStringAndFragment", |s| query_string_and_fragment(s, true)),
        strings_fn("decodeURLComponent", |s| decode_url(s, false)),
        strings_fn("decodeURLFormComponent", |s| decode_url(s, true)),
        strings_fn("encodeURLComponent", |s| encode_url(s, false)),
        strings_fn("encodeURLFormComponent", |s| encode_url(s, true)),
        port(),
        extract_url_parameter().build(),
        parameters_fn("extractURLParameters", false),
        parameters_fn("extractURLParameterNames", true),
        extract_fn("firstSignificantSubdomain", |s| first_significant_subdomain(s, true).0),
        extract_fn("cutToFirstSignificantSubdomain", |s| cut_to_first_significant_subdomain(s, true)),
        extract_fn("cutToFirstSignificantSubdomainWithWWW", |s| cut_to_first_significant_subdomain(s, false)),
        hierarchy_fn("URLHierarchy", false),
        hierarchy_fn("URLPathHierarchy", true),
        cut_url_parameter(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(f: fn(&[u8]) -> Range<usize>, s: &str) -> String {
        String::from_utf8(s.as_bytes()[f(s.as_bytes())].to_vec()).unwrap()
    }

    #[test]
    fn hosts_follow_clickhouse() {
        assert_eq!(part(domain, "https://user@www.example.com:8080/a?b#c"), "www.example.com");
        assert_eq!(part(domain, "example.com"), "example.com");
        assert_eq!(part(domain, "localhost"), "");
        assert_eq!(part(domain_without_www, "//www.a.b/"), "a.b");
        assert_eq!(part(top_level_domain, "http://1.2.3.4/"), "");
        assert_eq!(port_of(b"http://a.b:8080/x", 0), 8080);
        assert_eq!(port_of(b"http://a.b:80", 1), 80);
        assert_eq!(port_of(b"http://a.b:x", 7), 7);
    }

    #[test]
    fn significant_subdomains_follow_clickhouse() {
        assert_eq!(part(|s| first_significant_subdomain(s, true).0, "https://news.example.co.uk/a"), "example");
        assert_eq!(part(|s| first_significant_subdomain(s, true).0, "http://www.ya.ru"), "ya");
        assert_eq!(part(|s| cut_to_first_significant_subdomain(s, true), "http://a.b.example.com.tr/x"), "example.com.tr");
        assert_eq!(part(|s| cut_to_first_significant_subdomain(s, false), "http://www.com.tr/"), "www.com.tr");
        assert_eq!(part(|s| url_parameter_cut(s, b"b"), "http://x/?a=1&b=2"), "&b=2");
        let mut out = Vec::new();
        url_hierarchy(b"http://a.b/c/d?e", true, &mut out);
        assert_eq!(out, vec![10..13, 10..15, 10..16]);
    }
}
