//! `extractKeyValuePairs(data [, key_value_delimiter [, pair_delimiters [, quoting_character
//! [, unexpected_quoting_character_strategy]]]])` (aliases `mapFromString`, `str_to_map`) and
//! `extractKeyValuePairsWithEscaping`: ClickHouse's tolerant key-value scanner, a state
//! machine over bytes (`keyvaluepair/impl/StateHandlerImpl.h`), repeated state by state so
//! that noisy input gives ClickHouse's pairs: a pair delimiter inside a key drops the key,
//! a quoting character inside an unquoted key or value is dropped, kept or starts a quoted
//! one ("invalid", "accept", "promote": the default), an unclosed quote ends the row, and
//! duplicate keys stay. The escaping form decodes ClickHouse's escape sequences
//! (`parseComplexEscapeSequence`), and a backslash that starts a value drops the pair.

use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::string::text_bytes;
use crate::text::ByteStrings;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![extract_key_value_pairs("extractKeyValuePairs", false), extract_key_value_pairs("extractKeyValuePairsWithEscaping", true)]
}

/// What to do with a quoting character met inside an unquoted key or value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    /// Drop what was read and wait for the next key.
    Invalid,
    /// Keep it as an ordinary character.
    Accept,
    /// Drop what was read and read a quoted key or value from there.
    Promote,
}

#[derive(Debug, Clone)]
struct Config {
    key_value: u8,
    pairs: Vec<u8>,
    quote: u8,
    strategy: Strategy,
    escaping: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    WaitingKey,
    ReadingKey,
    ReadingQuotedKey,
    ReadingKeyValueDelimiter,
    WaitingValue,
    ReadingValue,
    ReadingQuotedValue,
    FlushPair,
    FlushPairAfterQuotedValue,
    WaitingPairDelimiter,
    End,
}

const ESCAPE: u8 = b'\\';

impl Config {
    fn is_pair(&self, c: u8) -> bool {
        self.pairs.contains(&c)
    }

    fn is_escape(&self, c: u8) -> bool {
        self.escaping && c == ESCAPE
    }

    fn quote_is_special(&self) -> bool {
        self.strategy != Strategy::Accept
    }

    fn is_wait_key_needle(&self, c: u8) -> bool {
        c == self.key_value || self.is_pair(c) || self.is_escape(c)
    }

    fn is_read_key_needle(&self, c: u8) -> bool {
        c == self.key_value || (self.quote_is_special() && c == self.quote) || self.is_pair(c) || self.is_escape(c)
    }

    fn is_read_value_needle(&self, c: u8) -> bool {
        (self.quote_is_special() && c == self.quote) || self.is_pair(c) || self.is_escape(c)
    }

    fn is_read_quoted_needle(&self, c: u8) -> bool {
        c == self.quote || self.is_escape(c)
    }

    /// The pairs of one text.
    fn extract(&self, data: &[u8], pairs: &mut Vec<(Vec<u8>, Vec<u8>)>) {
        let (mut state, mut pos) = (State::WaitingKey, 0usize);
        let (mut key, mut value) = (Vec::new(), Vec::new());
        let find = |from: usize, needle: &dyn Fn(u8) -> bool| data[from..].iter().position(|c| needle(*c)).map(|i| from + i);
        while state != State::End {
            let (advance_to, next) = match state {
                State::WaitingKey => match data[pos..].iter().position(|c| !self.is_wait_key_needle(*c)) {
                    Some(i) if data[pos + i] == self.quote => (pos + i + 1, State::ReadingQuotedKey),
                    Some(i) => (pos + i, State::ReadingKey),
                    None => (data.len(), State::End),
                },
                State::ReadingKey => {
                    key.clear();
                    self.read_unquoted(data, pos, &find, &mut key, true)
                }
                State::ReadingQuotedKey => {
                    key.clear();
                    match self.read_quoted(data, pos, &find, &mut key) {
                        Some(end) if key.is_empty() => (end, State::WaitingKey),
                        Some(end) => (end, State::ReadingKeyValueDelimiter),
                        None => (data.len(), State::End),
                    }
                }
                State::ReadingKeyValueDelimiter => match data.get(pos) {
                    Some(c) if *c == self.key_value => (pos + 1, State::WaitingValue),
                    _ => (pos, State::WaitingKey),
                },
                State::WaitingValue => match data.get(pos) {
                    Some(c) if *c == self.quote => (pos + 1, State::ReadingQuotedValue),
                    Some(c) if self.is_escape(*c) => (pos, State::WaitingKey),
                    _ => (pos, State::ReadingValue),
                },
                State::ReadingValue => {
                    value.clear();
                    self.read_unquoted(data, pos, &find, &mut value, false)
                }
                State::ReadingQuotedValue => {
                    value.clear();
                    match self.read_quoted(data, pos, &find, &mut value) {
                        Some(end) => (end, State::FlushPairAfterQuotedValue),
                        None => (data.len(), State::End),
                    }
                }
                State::FlushPair | State::FlushPairAfterQuotedValue => {
                    pairs.push((std::mem::take(&mut key), std::mem::take(&mut value)));
                    let next = if pos >= data.len() {
                        State::End
                    } else if state == State::FlushPair {
                        State::WaitingKey
                    } else {
                        State::WaitingPairDelimiter
                    };
                    (pos, next)
                }
                State::WaitingPairDelimiter => match find(pos, &|c| self.is_pair(c)) {
                    Some(at) => (at + 1, State::WaitingKey),
                    None => (data.len(), State::End),
                },
                State::End => (pos, State::End),
            };
            pos = advance_to.min(data.len());
            state = next;
        }
    }

    /// Reads an unquoted key (up to the key-value delimiter) or value (up to a pair
    /// delimiter or the end) into `out`: where to go on from, and the next state.
    fn read_unquoted(&self, data: &[u8], pos: usize, find: &dyn Fn(usize, &dyn Fn(u8) -> bool) -> Option<usize>, out: &mut Vec<u8>, is_key: bool) -> (usize, State) {
        let mut start = pos;
        let needle = |c: u8| if is_key { self.is_read_key_needle(c) } else { self.is_read_value_needle(c) };
        while let Some(at) = find(start, &needle) {
            let c = data[at];
            if self.is_escape(c) {
                out.extend_from_slice(&data[start..at]);
                let (ok, length) = unescape(&data[at..], out);
                if !ok {
                    // A broken escape sequence ends a value as it is, and drops a key.
                    return (at + length, if is_key { State::WaitingKey } else { State::FlushPair });
                }
                start = at + length;
                continue;
            }
            if is_key && c == self.key_value {
                out.extend_from_slice(&data[start..at]);
                return (at + 1, State::WaitingValue);
            }
            if self.is_pair(c) {
                if is_key {
                    return (at + 1, State::WaitingKey);
                }
                out.extend_from_slice(&data[start..at]);
                return (at + 1, State::FlushPair);
            }
            // The quoting character (not a needle under Accept).
            let quoted = if is_key { State::ReadingQuotedKey } else { State::ReadingQuotedValue };
            return (at + 1, if self.strategy == Strategy::Promote { quoted } else { State::WaitingKey });
        }
        if is_key {
            return (data.len(), State::End);
        }
        out.extend_from_slice(&data[start..]);
        (data.len(), State::FlushPair)
    }

    /// Reads up to the closing quote into `out`: the position after it, or None when the
    /// text ends first or an escape sequence is broken (then the row's scan waits for a key).
    fn read_quoted(&self, data: &[u8], pos: usize, find: &dyn Fn(usize, &dyn Fn(u8) -> bool) -> Option<usize>, out: &mut Vec<u8>) -> Option<usize> {
        let mut start = pos;
        while let Some(at) = find(start, &|c| self.is_read_quoted_needle(c)) {
            if self.is_escape(data[at]) {
                out.extend_from_slice(&data[start..at]);
                let (ok, length) = unescape(&data[at..], out);
                if !ok {
                    // Only the end of the text breaks a sequence: nothing is left to scan.
                    return None;
                }
                start = at + length;
                continue;
            }
            out.extend_from_slice(&data[start..at]);
            return Some(at + 1);
        }
        None
    }
}

/// ClickHouse's `parseComplexEscapeSequence` from the backslash at `s[0]`: whether it
/// parsed, and how many bytes it took. `\xHH` is a byte, `\N` nothing, the C escapes their
/// character; any other escaped character keeps its backslash unless it is a quote, a
/// slash, `=`, a backslash or a control character.
fn unescape(s: &[u8], out: &mut Vec<u8>) -> (bool, usize) {
    let Some(&c) = s.get(1) else { return (false, 1) };
    match c {
        b'x' => {
            let digits = &s[2..s.len().min(4)];
            if digits.len() < 2 {
                return (false, 2 + digits.len());
            }
            // ClickHouse's table maps a non-hex character to 0xFF and keeps the low byte.
            let digit = |d: u8| (d as char).to_digit(16).unwrap_or(0xFF);
            out.push(((digit(digits[0]) << 4).wrapping_add(digit(digits[1])) & 0xFF) as u8);
            (true, 4)
        }
        b'N' => (true, 2),
        _ => {
            let decoded = match c {
                b'a' => 0x07,
                b'b' => 0x08,
                b'e' => 0x1B,
                b'f' => 0x0C,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'v' => 0x0B,
                b'0' => 0,
                other => other,
            };
            if !matches!(decoded, b'\\' | b'\'' | b'"' | b'`' | b'/' | b'=') && decoded > 31 {
                out.push(b'\\');
            }
            out.push(decoded);
            (true, 2)
        }
    }
}

fn is_text(t: &ChType) -> bool {
    matches!(t.strip_nullable().base(), ChType::String | ChType::FixedString(_))
}

fn bad_control(what: &str) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::BAD_ARGUMENTS, format!("Control character argument must either be empty or contain exactly 1 character{what}"))
}

/// One optional control character: the default when empty.
fn control_character(ctx: &ExecCtx, i: usize, default: u8) -> DfResult<u8> {
    if ctx.args.len() <= i {
        return Ok(default);
    }
    match ctx.const_str(i, "control character")?.as_bytes() {
        [] => Ok(default),
        [c] => Ok(*c),
        _ => Err(bad_control("")),
    }
}

fn config(ctx: &ExecCtx, escaping: bool) -> DfResult<Config> {
    let key_value = control_character(ctx, 1, b':')?;
    let pairs = match ctx.args.len() > 2 {
        true => ctx.const_str(2, "pair delimiters")?.as_bytes().to_vec(),
        false => Vec::new(),
    };
    let quote = control_character(ctx, 3, b'"')?;
    let strategy = match ctx.args.len() > 4 {
        false => Strategy::Promote,
        true => {
            let name = ctx.const_str(4, "unexpected_quoting_character_strategy")?;
            match name.to_ascii_lowercase().as_str() {
                "invalid" => Strategy::Invalid,
                "accept" => Strategy::Accept,
                "promote" => Strategy::Promote,
                _ => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Invalid unexpected_quoting_character_strategy argument: {name}"))),
            }
        }
    };
    Ok(Config { key_value, pairs: if pairs.is_empty() { b" ,;".to_vec() } else { pairs }, quote, strategy, escaping })
}

fn check_arguments(ctx: &RetCtx) -> DfResult<()> {
    if !is_text(&ctx.ch(0)) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument data_column. Must be String", ctx.ch(0))));
    }
    for i in 1..ctx.arg_count() {
        if !is_text(&ctx.ch(i)) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument #{} of function {}. Must be String", ctx.ch(i), i + 1, ctx.name)));
        }
        // Literal control characters are checked while planning, as ClickHouse does.
        if let (1 | 3, Some(text)) = (i, ctx.scalar(i).and_then(crate::args::scalar_str)) {
            if text.len() > 1 {
                return Err(bad_control(""));
            }
        }
    }
    Ok(())
}

fn extract_key_value_pairs(name: &'static str, escaping: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 5),
        |ctx| {
            check_arguments(ctx)?;
            Ok(ChType::Map(Box::new(ChType::String), Box::new(ChType::String)))
        },
        move |ctx| {
            let config = config(ctx, escaping)?;
            let texts = text_bytes(&ctx.array(0)?);
            let (mut keys, mut values) = (ByteStrings::with_capacity(ctx.len, 0), ByteStrings::with_capacity(ctx.len, 0));
            let mut lengths = Vec::with_capacity(ctx.len);
            let mut pairs = Vec::new();
            for row in 0..ctx.len {
                pairs.clear();
                config.extract(texts.value(row), &mut pairs);
                lengths.push(pairs.len());
                for (key, value) in &pairs {
                    keys.push_value(key)?;
                    values.push_value(value)?;
                }
            }
            crate::map_functions::map_from_columns(ctx.ret_type(), keys.finish(None)?, values.finish(None)?, OffsetBuffer::from_lengths(lengths))
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(config: &Config, text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        config.extract(text.as_bytes(), &mut out);
        out.into_iter().map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), String::from_utf8_lossy(&v).into_owned())).collect()
    }

    fn default(escaping: bool) -> Config {
        Config { key_value: b':', pairs: b" ,;".to_vec(), quote: b'"', strategy: Strategy::Promote, escaping }
    }

    fn kv(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// chdb's `extractKeyValuePairs(...)` of the same texts.
    #[test]
    fn pairs_as_clickhouse() {
        let c = default(false);
        assert_eq!(pairs(&c, r#"name:"neymar", "age":31 team:psg,nationality:brazil"#), kv(&[("name", "neymar"), ("age", "31"), ("team", "psg"), ("nationality", "brazil")]));
        assert_eq!(pairs(&c, "a:b c::d e:f"), kv(&[("a", "b"), ("c", ":d"), ("e", "f")]));
        assert_eq!(pairs(&c, " a : b "), kv(&[]));
        assert_eq!(pairs(&c, r#"a:"b c" d:"e"#), kv(&[("a", "b c")]));
        assert_eq!(pairs(&c, r#"a"b:c"#), kv(&[]));
        assert_eq!(pairs(&c, r#"a:b"c d:e"#), kv(&[]));
        assert_eq!(pairs(&c, "a:"), kv(&[("a", "")]));
        assert_eq!(pairs(&c, ":b c:d"), kv(&[("c", "d")]));
        assert_eq!(pairs(&c, "a:1,b:2,a:3"), kv(&[("a", "1"), ("b", "2"), ("a", "3")]));
        let invalid = Config { strategy: Strategy::Invalid, ..default(false) };
        assert_eq!(pairs(&invalid, r#"a"b:c"#), kv(&[("b", "c")]));
        let accept = Config { strategy: Strategy::Accept, ..default(false) };
        assert_eq!(pairs(&accept, r#"a"b:c"#), kv(&[(r#"a"b"#, "c")]));
    }

    #[test]
    fn escapes_as_clickhouse() {
        let c = default(true);
        assert_eq!(pairs(&c, r"a:b\c d:e\x41"), kv(&[("a", r"b\c"), ("d", "eA")]));
        assert_eq!(pairs(&c, r#"a:"x\ny""#), kv(&[("a", "x\ny")]));
        assert_eq!(pairs(&c, r"a:\x4"), kv(&[]));
        assert_eq!(pairs(&c, r"a:b\"), kv(&[("a", "b")]));
        assert_eq!(pairs(&c, r"a\nb:c d:\N\t\0x"), kv(&[("a\nb", "c")]));
        assert_eq!(pairs(&c, r#"name:\"neymar\", age:31"#), kv(&[]));
    }
}
