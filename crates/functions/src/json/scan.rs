//! A small JSON scanner for the JSON string functions: it validates a document in one
//! pass, then walks it by skipping values, without building a DOM or copying strings.
//!
//! ClickHouse parses the whole document with simdjson before it looks at the path, so
//! a document is accepted only as a whole: trailing garbage, a lone surrogate escape, a
//! number that overflows a double or nesting deeper than 1024 make every function see
//! "invalid JSON" (and return its default). Integers that fit neither Int64 nor UInt64
//! are strings to ClickHouse (simdjson's big integers): [`Kind::String`] here too.

/// simdjson's default maximum depth, which ClickHouse keeps.
const MAX_DEPTH: usize = 1024;

/// The type of a JSON value, with ClickHouse's `JSONType` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Null = 0,
    String = 34,
    Array = 91,
    Bool = 98,
    Double = 100,
    Int64 = 105,
    UInt64 = 117,
    Object = 123,
}

impl Kind {
    /// `JSONType`'s Enum8 elements.
    pub const NAMES: [(&'static str, i16); 8] = [
        ("Null", 0),
        ("String", 34),
        ("Array", 91),
        ("Bool", 98),
        ("Double", 100),
        ("Int64", 105),
        ("UInt64", 117),
        ("Object", 123),
    ];
}

/// One value of a validated document: exactly its bytes, without surrounding spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Value<'a> {
    text: &'a [u8],
}

/// The document's value, or `None` when the text is not one valid JSON value.
pub(crate) fn parse_document(doc: &[u8]) -> Option<Value<'_>> {
    let mut validator = Validator { bytes: doc, pos: 0, depth: 0 };
    validator.skip_spaces();
    let start = validator.pos;
    validator.value()?;
    let end = validator.pos;
    validator.skip_spaces();
    (validator.pos == doc.len()).then_some(Value { text: &doc[start..end] })
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

struct Validator<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Validator<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.peek() == Some(b)).then(|| self.pos += 1)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end) == Some(word)).then(|| self.pos = end)
    }

    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'{' => self.container(b'}', true),
            b'[' => self.container(b']', false),
            b'"' => self.string(),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn container(&mut self, close: u8, object: bool) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_spaces();
        if self.peek() == Some(close) {
            self.pos += 1;
            self.depth -= 1;
            return Some(());
        }
        loop {
            if object {
                self.string()?;
                self.skip_spaces();
                self.expect(b':')?;
                self.skip_spaces();
            }
            self.value()?;
            self.skip_spaces();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.skip_spaces();
                }
                b if b == close => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn hex4(&mut self) -> Option<u16> {
        let digits = self.bytes.get(self.pos..self.pos + 4)?;
        let mut v: u16 = 0;
        for d in digits {
            v = v * 16 + (*d as char).to_digit(16)? as u16;
        }
        self.pos += 4;
        Some(v)
    }

    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            let b = self.peek()?;
            self.pos += 1;
            match b {
                b'"' => return Some(()),
                b'\\' => {
                    let e = self.peek()?;
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let unit = self.hex4()?;
                            if (0xDC00..0xE000).contains(&unit) {
                                return None;
                            }
                            if (0xD800..0xDC00).contains(&unit) {
                                self.expect(b'\\')?;
                                self.expect(b'u')?;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return None;
                                }
                            }
                        }
                        _ => return None,
                    }
                }
                0..=0x1F => return None,
                _ => {}
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        let mut fractional = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            fractional = true;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            fractional = true;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        // simdjson rejects numbers a double cannot hold.
        if fractional && !parse_f64(&self.bytes[start..self.pos])?.is_finite() {
            return None;
        }
        Some(())
    }
}

fn parse_f64(text: &[u8]) -> Option<f64> {
    std::str::from_utf8(text).ok()?.parse::<f64>().ok()
}

/// The end of the value starting at `pos` in validated text.
fn skip_value(text: &[u8], mut pos: usize) -> usize {
    match text[pos] {
        b'"' => skip_string(text, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            while pos < text.len() {
                match text[pos] {
                    b'"' => {
                        pos = skip_string(text, pos);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return pos + 1;
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
            pos
        }
        _ => {
            while pos < text.len() && !matches!(text[pos], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                pos += 1;
            }
            pos
        }
    }
}

/// The end of the string starting (at its quote) at `pos` in validated text.
fn skip_string(text: &[u8], mut pos: usize) -> usize {
    pos += 1;
    while pos < text.len() {
        match text[pos] {
            b'"' => return pos + 1,
            b'\\' => pos += 2,
            _ => pos += 1,
        }
    }
    pos
}

fn skip_spaces_from(text: &[u8], mut pos: usize) -> usize {
    while pos < text.len() && is_space(text[pos]) {
        pos += 1;
    }
    pos
}

/// A JSON string's content as written (escapes not decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawStr<'a> {
    pub escaped: &'a [u8],
}

impl<'a> RawStr<'a> {
    /// Appends the decoded text (UTF-8).
    pub fn decode_into(&self, out: &mut Vec<u8>) {
        let bytes = self.escaped;
        if !bytes.contains(&b'\\') {
            out.extend_from_slice(bytes);
            return;
        }
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b != b'\\' {
                out.push(b);
                i += 1;
                continue;
            }
            let e = bytes.get(i + 1).copied().unwrap_or(b'\\');
            i += 2;
            let simple = match e {
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => {
                    let unit = hex_at(bytes, i);
                    i += 4;
                    let code = if (0xD800..0xDC00).contains(&unit) {
                        let low = hex_at(bytes, i + 2);
                        i += 6;
                        0x10000 + ((unit - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                    } else {
                        unit
                    };
                    let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    continue;
                }
                other => other,
            };
            out.push(simple);
        }
    }

    /// Whether the decoded text equals `key`; `scratch` holds decoded text when the
    /// string has escapes.
    pub fn equals(&self, key: &[u8], scratch: &mut Vec<u8>, case_insensitive: bool) -> bool {
        let decoded = if self.escaped.contains(&b'\\') {
            scratch.clear();
            self.decode_into(scratch);
            scratch.as_slice()
        } else {
            self.escaped
        };
        if case_insensitive {
            decoded.eq_ignore_ascii_case(key)
        } else {
            decoded == key
        }
    }
}

/// The value of four hex digits at `at` in validated text (0 past the end).
fn hex_at(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |digits| digits.iter().fold(0, |v, d| v * 16 + (*d as char).to_digit(16).unwrap_or(0)))
}

/// The members of an object: `(key, value)` pairs in document order.
pub(crate) struct Members<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (RawStr<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let text = self.text;
        let pos = skip_spaces_from(text, self.pos);
        if pos >= text.len() || text[pos] != b'"' {
            return None;
        }
        let key_end = skip_string(text, pos);
        let key = RawStr { escaped: &text[pos + 1..key_end - 1] };
        // Past the colon.
        let value_start = skip_spaces_from(text, skip_spaces_from(text, key_end) + 1);
        let value_end = skip_value(text, value_start);
        let after = skip_spaces_from(text, value_end);
        // Past the comma, or at the closing brace (where the next call stops).
        self.pos = if after < text.len() && text[after] == b',' { after + 1 } else { text.len() };
        Some((key, Value { text: &text[value_start..value_end] }))
    }
}

/// The elements of an array in order.
pub(crate) struct Elements<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        let text = self.text;
        let start = skip_spaces_from(text, self.pos);
        if start >= text.len() || text[start] == b']' {
            return None;
        }
        let end = skip_value(text, start);
        let after = skip_spaces_from(text, end);
        self.pos = if after < text.len() && text[after] == b',' { after + 1 } else { text.len() };
        Some(Value { text: &text[start..end] })
    }
}

/// One step of a path: a key, or a 1-based (negative: from the end) position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<'p> {
    Key(&'p [u8]),
    Index(i64),
}

impl<'a> Value<'a> {
    /// The exact bytes of the value as written in the document.
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    pub fn kind(&self) -> Kind {
        match self.text[0] {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b't' | b'f' => Kind::Bool,
            b'n' => Kind::Null,
            _ => {
                if self.text.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                    Kind::Double
                } else if self.int_value().is_some() {
                    Kind::Int64
                } else if self.uint_value().is_some() {
                    Kind::UInt64
                } else {
                    Kind::String
                }
            }
        }
    }

    /// The text of a string (or of an integer too big for 64 bits), escapes not decoded.
    pub fn raw_str(&self) -> RawStr<'a> {
        match self.text {
            [b'"', inner @ .., b'"'] => RawStr { escaped: inner },
            digits => RawStr { escaped: digits },
        }
    }

    /// An integer number that fits Int64.
    pub fn int_value(&self) -> Option<i64> {
        std::str::from_utf8(self.text).ok()?.parse::<i64>().ok()
    }

    /// An integer number that fits UInt64.
    pub fn uint_value(&self) -> Option<u64> {
        std::str::from_utf8(self.text).ok()?.parse::<u64>().ok()
    }

    /// Any number as a double.
    pub fn double_value(&self) -> f64 {
        parse_f64(self.text).unwrap_or(0.0)
    }

    pub fn bool_value(&self) -> bool {
        self.text[0] == b't'
    }

    pub fn members(&self) -> Members<'a> {
        let end = if self.text[0] == b'{' { self.text.len() - 1 } else { 0 };
        Members { text: &self.text[..end.max(1)], pos: 1 }
    }

    pub fn elements(&self) -> Elements<'a> {
        let end = if self.text[0] == b'[' { self.text.len() - 1 } else { 0 };
        Elements { text: &self.text[..end.max(1)], pos: 1 }
    }

    /// Members of an object or elements of an array; 0 for other values.
    pub fn len(&self) -> usize {
        match self.text[0] {
            b'{' => self.members().count(),
            b'[' => self.elements().count(),
            _ => 0,
        }
    }

    /// The value a path step leads to: the first member with the key (objects), the
    /// member or element at a 1-based position, counted from the end when negative.
    pub fn child(&self, step: Step<'_>, scratch: &mut Vec<u8>, case_insensitive: bool) -> Option<Value<'a>> {
        match step {
            Step::Key(key) => {
                if self.text[0] != b'{' {
                    return None;
                }
                self.members().find(|(k, _)| k.equals(key, scratch, case_insensitive)).map(|(_, v)| v)
            }
            Step::Index(index) => {
                let position = match index {
                    0 => return None,
                    1.. => index as usize - 1,
                    _ => {
                        let from_end = index.unsigned_abs() as usize;
                        self.len().checked_sub(from_end)?
                    }
                };
                match self.text[0] {
                    b'{' => self.members().nth(position).map(|(_, v)| v),
                    b'[' => self.elements().nth(position),
                    _ => None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(doc: &str) -> Option<Kind> {
        parse_document(doc.as_bytes()).map(|v| v.kind())
    }

    fn decoded(doc: &str) -> String {
        let v = parse_document(doc.as_bytes()).expect("valid");
        let mut out = Vec::new();
        v.raw_str().decode_into(&mut out);
        String::from_utf8(out).expect("utf8")
    }

    #[test]
    fn accepts_what_serde_json_accepts() {
        let docs = [
            "1", "-0", "0.5", "-1.5e-3", "1E+2", "\"\"", "\"a\\\"b\"", "[]", "{}", " [1, [2, [3]], {\"a\": {}}] ", "true",
            "false", "null", "\"\\ud83d\\ude00\"", "{\"a\":1,\"a\":2}", "01", "1.", ".5", "-", "[1,]", "{\"a\":1,}", "{a:1}",
            "[1 2]", "\"\\x\"", "\"\t\"", "nul", "truex", "[1]]", "{\"a\" 1}", "\"\\u12\"", "", "  ", "1 2", "--1", "1e", "1e+",
        ];
        for doc in docs {
            let ours = parse_document(doc.as_bytes()).is_some();
            let reference = serde_json::from_str::<serde_json::Value>(doc).is_ok();
            assert_eq!(ours, reference, "{doc:?}");
        }
    }

    #[test]
    fn rejects_what_simdjson_rejects() {
        // Lone surrogates, doubles out of range, nesting past 1024.
        for doc in ["\"\\ud800\"", "\"\\udc00\\ud800\"", "\"\\ud800x\"", "1e400", "-1e309"] {
            assert!(parse_document(doc.as_bytes()).is_none(), "{doc:?}");
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_document(deep(1024).as_bytes()).is_some());
        assert!(parse_document(deep(1025).as_bytes()).is_none());
        assert!(parse_document(deep(100_000).as_bytes()).is_none());
    }

    #[test]
    fn garbage_never_panics() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let alphabet = b"{}[]\":,\\u0123456789abcdefEe+-.tnrl ";
        for _ in 0..20_000 {
            let len = (seed % 24) as usize;
            let mut doc = Vec::with_capacity(len);
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                doc.push(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            if let Some(v) = parse_document(&doc) {
                let reference = serde_json::from_slice::<serde_json::Value>(&doc);
                assert!(reference.is_ok(), "{:?}", String::from_utf8_lossy(&doc));
                let _ = (v.kind(), v.len(), v.members().count(), v.elements().count());
            }
        }
    }

    #[test]
    fn kinds_and_numbers() {
        assert_eq!(kind_of("{\"a\":1}"), Some(Kind::Object));
        assert_eq!(kind_of("[1]"), Some(Kind::Array));
        assert_eq!(kind_of("-9223372036854775808"), Some(Kind::Int64));
        assert_eq!(kind_of("18446744073709551615"), Some(Kind::UInt64));
        assert_eq!(kind_of("18446744073709551616"), Some(Kind::String));
        assert_eq!(kind_of("1e3"), Some(Kind::Double));
        assert_eq!(kind_of("2.5E-3"), Some(Kind::Double));
        assert_eq!(parse_document(b"2.5E-3").map(|v| v.double_value()), Some(0.0025));
        assert_eq!(parse_document(b"-12").and_then(|v| v.int_value()), Some(-12));
        assert_eq!(kind_of("null"), Some(Kind::Null));
        assert_eq!(kind_of("bad"), None);
    }

    #[test]
    fn escapes_decode_like_serde_json() {
        for doc in ["\"h\\u00e9\\ud83d\\ude00\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u0000x\"", "\"plain é\""] {
            let reference: String = serde_json::from_str(doc).expect("reference");
            assert_eq!(decoded(doc), reference, "{doc:?}");
        }
    }

    #[test]
    fn walks_nested_values() {
        let doc = br#" {"a": {"b": [10, "x,]}", {"c": null}]}, "k\"q": 2, "a": 3} "#;
        let root = parse_document(doc).expect("valid");
        let mut scratch = Vec::new();
        let a = root.child(Step::Key(b"a"), &mut scratch, false).expect("a");
        let b = a.child(Step::Key(b"b"), &mut scratch, false).expect("b");
        assert_eq!(b.len(), 3);
        assert_eq!(b.child(Step::Index(1), &mut scratch, false).map(|v| v.text()), Some(&b"10"[..]));
        assert_eq!(b.child(Step::Index(2), &mut scratch, false).map(|v| v.text()), Some(&br#""x,]}""#[..]));
        assert_eq!(b.child(Step::Index(-1), &mut scratch, false).map(|v| v.text()), Some(&br#"{"c": null}"#[..]));
        assert_eq!(b.child(Step::Index(-4), &mut scratch, false), None);
        assert_eq!(b.child(Step::Index(0), &mut scratch, false), None);
        assert_eq!(root.child(Step::Key(b"k\"q"), &mut scratch, false).map(|v| v.text()), Some(&b"2"[..]));
        assert_eq!(root.child(Step::Key(b"A"), &mut scratch, true).map(|v| v.kind()), Some(Kind::Object));
        assert_eq!(root.child(Step::Index(3), &mut scratch, false).map(|v| v.text()), Some(&b"3"[..]));
        let keys: Vec<&[u8]> = root.members().map(|(k, _)| k.escaped).collect();
        assert_eq!(keys, vec![&b"a"[..], &br#"k\"q"#[..], &b"a"[..]]);
        assert_eq!(parse_document(b"[ ]").map(|v| v.len()), Some(0));
        assert_eq!(parse_document(b"{ }").map(|v| v.members().count()), Some(0));
    }
}
