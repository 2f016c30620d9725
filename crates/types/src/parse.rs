//! A small recursive-descent parser for ClickHouse type names.

use granary_common::{Error, ErrorCode, Result};

use crate::ChType;

pub(crate) fn parse_type(text: &str) -> Result<ChType> {
    let mut parser = Parser { text, pos: 0 };
    let t = parser.parse()?;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(parser.error("unexpected text after the type"));
    }
    t.validate()?;
    Ok(t)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, what: &str) -> Error {
        Error::new(ErrorCode::UNKNOWN_TYPE, format!("Cannot parse data type '{}': {what} at position {}", self.text, self.pos + 1))
    }

    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(|c: char| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected '{c}'")))
        }
    }

    fn ident(&mut self) -> Result<&'a str> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if len == 0 {
            return Err(self.error("expected a type name"));
        }
        self.pos += len;
        Ok(&rest[..len])
    }

    fn number(&mut self) -> Result<u64> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let n = rest[..len].parse().map_err(|_| self.error("expected a number"))?;
        self.pos += len;
        Ok(n)
    }

    fn quoted(&mut self) -> Result<String> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let body = rest.strip_prefix('\'').ok_or_else(|| self.error("expected a quoted string"))?;
        let end = body.find('\'').ok_or_else(|| self.error("unterminated string"))?;
        self.pos += end + 2;
        Ok(body[..end].to_string())
    }

    fn parse(&mut self) -> Result<ChType> {
        let name = self.ident()?;
        if let Some(t) = self.two_word_alias(name) {
            return Ok(t);
        }
        let simple = match name {
            "UInt8" => Some(ChType::UInt8),
            "UInt16" => Some(ChType::UInt16),
            "UInt32" => Some(ChType::UInt32),
            "UInt64" => Some(ChType::UInt64),
            "Int8" => Some(ChType::Int8),
            "Int16" => Some(ChType::Int16),
            "Int32" => Some(ChType::Int32),
            "Int64" => Some(ChType::Int64),
            "Int128" => Some(ChType::Int128),
            "UInt128" => Some(ChType::UInt128),
            "Int256" => Some(ChType::Int256),
            "UInt256" => Some(ChType::UInt256),
            "Float32" => Some(ChType::Float32),
            "Float64" => Some(ChType::Float64),
            "Bool" => Some(ChType::Bool),
            "String" => Some(ChType::String),
            "UUID" => Some(ChType::Uuid),
            "IPv4" => Some(ChType::IPv4),
            "IPv6" => Some(ChType::IPv6),
            "Date" => Some(ChType::Date),
"Date32" => Some(ChType::Date32),
            "Time" => Some(ChType::Time),
            "Nothing" => Some(ChType::Nothing),
            _ => name
                .strip_prefix("Interval")
                .and_then(|unit| crate::IntervalKind::ALL.into_iter().find(|k| k.name() == unit))
                .map(ChType::Interval)
                .or_else(|| sql_alias(name)),
        };
        if let Some(t) = simple {
            // `VARCHAR(255)`, `CHAR(3)`, `FLOAT(24)`: ClickHouse ignores an alias's length.
            if sql_alias(name).is_some() && self.peek() == Some('(') {
                self.expect('(')?;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == ',') {
                    if !self.eat(',') {
                        self.number()?;
                    }
                }
                self.expect(')')?;
            }
            return Ok(t);
        }
        match name {
            _ if name.eq_ignore_ascii_case("DateTime") => {
                let tz = if self.eat('(') {
                    let tz = self.quoted()?;
                    self.expect(')')?;
                    Some(tz)
                } else {
                    None
                };
                Ok(ChType::DateTime(tz))
            }
            "DateTime64" => {
                self.expect('(')?;
                let precision = self.number()?;
                let tz = if self.eat(',') { Some(self.quoted()?) } else { None };
                self.expect(')')?;
                let precision = u8::try_from(precision).map_err(|_| self.error("precision out of range"))?;
                Ok(ChType::DateTime64(precision, tz))
            }
            "Time64" => {
                self.expect('(')?;
                let precision = self.number()?;
                self.expect(')')?;
                let precision = u8::try_from(precision).map_err(|_| self.error("precision out of range"))?;
                Ok(ChType::Time64(precision))
            }
            "FixedString" => {
                self.expect('(')?;
                let n = self.number()?;
                self.expect(')')?;
                if n == 0 || n > (1 << 30) {
                    return Err(Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("FixedString size {n} is out of bounds")));
                }
                Ok(ChType::FixedString(n as usize))
            }
            _ if ["Decimal", "Numeric", "Dec", "Fixed"].iter().any(|d| d.eq_ignore_ascii_case(name)) => {
                let (mut p, mut s) = (10u64, 0u64);
                if self.eat('(') {
                    p = self.number()?;
                    if self.eat(',') {
                        s = self.number()?;
                    }
                    self.expect(')')?;
                }
                decimal(p, s)
            }
            "Decimal32" | "Decimal64" | "Decimal128" | "Decimal256" => {
                self.expect('(')?;
                let s = self.number()?;
                self.expect(')')?;
                let p = match name {
                    "Decimal32" => 9,
                    "Decimal64" => 18,
                    "Decimal128" => 38,
                    _ => 76,
                };
                decimal(p, s)
            }
            "Nullable" | "LowCardinality" | "Array" => {
                self.expect('(')?;
                let inner = Box::new(self.parse()?);
                self.expect(')')?;
                Ok(match name {
                    "Nullable" => ChType::Nullable(inner),
                    "LowCardinality" => ChType::LowCardinality(inner),
                    _ => ChType::Array(inner),
                })
            }
            "Map" => {
                self.expect('(')?;
                let k = self.parse()?;
                self.expect(',')?;
                let v = self.parse()?;
                self.expect(')')?;
                Ok(ChType::Map(Box::new(k), Box::new(v)))
            }
            "Tuple" => {
                self.expect('(')?;
                let mut items = Vec::new();
                loop {
                    let index = items.len() + 1;
                    items.push(self.tuple_element(index)?);
                    if self.eat(')') {
                        break;
                    }
                    self.expect(',')?;
                }
                Ok(ChType::Tuple(items))
            }
            "AggregateFunction" => {
                self.expect('(')?;
                let function = self.aggregate_function_name()?;
                let mut args = Vec::new();
                while self.eat(',') {
                    args.push(self.parse()?);
                }
                self.expect(')')?;
                Ok(ChType::AggregateFunction(function, args))
            }
            "Enum8" | "Enum16" | "Enum" => {
                self.expect('(')?;
                let mut elements: Vec<(String, i64)> = Vec::new();
                let mut explicit = None;
                loop {
                    let name = self.escaped_string()?;
                    let value = if self.eat('=') {
                        self.skip_ws();
                        let negative = self.eat('-');
                        let n = self.number()? as i64;
                        Some(if negative { -n } else { n })
                    } else {
                        None
                    };
                    // Values are all written or all left out (then numbered from 1).
                    if *explicit.get_or_insert(value.is_some()) != value.is_some() {
                        return Err(self.error("either all or none of the enum values must be given"));
                    }
                    let value = value.unwrap_or(elements.len() as i64 + 1);
                    elements.push((name, value));
                    if self.eat(')') {
                        break;
                    }
                    self.expect(',')?;
                }
                let wide = match name {
                    "Enum8" => Some(false),
                    "Enum16" => Some(true),
                    _ => None,
                };
                ChType::new_enum(elements, wide)
            }
            "Variant" => {
                self.expect('(')?;
                let mut types = vec![self.parse()?];
                while self.eat(',') {
                    types.push(self.parse()?);
                }
                self.expect(')')?;
                Ok(ChType::new_variant(types))
            }
            "SimpleAggregateFunction" => {
                self.expect('(')?;
                let function = self.aggregate_function_name()?;
                self.expect(',')?;
                let inner = self.parse()?;
                self.expect(')')?;
                Ok(ChType::SimpleAggregateFunction(function, Box::new(inner)))
            }
            other => Err(Error::new(ErrorCode::UNKNOWN_TYPE, format!("Unknown data type family: {other}"))),
        }
    }

    /// A single-quoted string with ClickHouse's escapes (`\\'`, `''`, `\\\\`).
    fn escaped_string(&mut self) -> Result<String> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let mut chars = rest.char_indices();
        if !matches!(chars.next(), Some((_, '\''))) {
            return Err(self.error("expected a quoted string"));
        }
        let mut out = String::new();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                },
                '\'' if rest[i + 1..].starts_with('\'') => {
                    chars.next();
                    out.push('\'');
                }
                '\'' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                c => out.push(c),
            }
        }
        Err(self.error("unterminated string"))
    }

    /// `INT UNSIGNED`, `DOUBLE PRECISION`, ...: the alias when `first` and the next word
    /// make one; the position is left alone otherwise.
    fn two_word_alias(&mut self, first: &str) -> Option<ChType> {
        let save = self.pos;
        self.skip_ws();
        if self.pos == save {
            return None;
        }
        let rest = &self.text[self.pos..];
        let len = rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len());
        let second = &rest[..len];
        if ALIAS_SECOND_WORDS.iter().any(|w| w.eq_ignore_ascii_case(second)) {
            if let Some(t) = sql_alias(&format!("{first} {second}")) {
                self.pos += len;
                return Some(t);
            }
        }
        self.pos = save;
        None
    }

    /// `f` or `f(params)` in `AggregateFunction(f(params), T...)`, as written (a leading
    /// version number `AggregateFunction(1, f, T)` is skipped).
    fn aggregate_function_name(&mut self) -> Result<String> {
        self.skip_ws();
        if self.text[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
            self.number()?;
            self.expect(',')?;
        }
        let name = self.ident()?.to_string();
        self.skip_ws();
        if !self.text[self.pos..].starts_with('(') {
            return Ok(name);
        }
        let rest = &self.text[self.pos..];
        let mut depth = 0usize;
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        let params = normalized_params(&rest[1..i]);
                        self.pos += i + 1;
                        return Ok(format!("{name}({params})"));
                    }
                }
                _ => {}
            }
        }
        Err(self.error("unbalanced parentheses in aggregate function parameters"))
    }

    /// A tuple element is `Type` or `name Type`.
    fn tuple_element(&mut self, index: usize) -> Result<(String, ChType)> {
        self.skip_ws();
        // A backquoted element name (`Tuple(`1` UInt8, `x.y` String)`), with backslash escapes.
        if self.text[self.pos..].starts_with('`') {
            let mut name = String::new();
            let mut chars = self.text[self.pos + 1..].char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            name.push(escaped);
                        }
                    }
                    '`' => {
                        end = Some(i);
                        break;
                    }
                    other => name.push(other),
                }
            }
            let Some(end) = end else { return Err(self.error("expected a closing backquote")) };
            self.pos += end + 2;
            return Ok((name, self.parse()?));
        }
        let start = self.pos;
        let first = self.ident()?.to_string();
        self.skip_ws();
        let next = self.text[self.pos..].chars().next();
        if matches!(next, Some(c) if c.is_ascii_alphabetic()) {
            return Ok((first, self.parse()?));
        }
        self.pos = start;
        Ok((index.to_string(), self.parse()?))
    }
}

/// Aggregate function parameters as ClickHouse prints them: separated by `, `
/// (`quantiles(0.5,0.9)` is `quantiles(0.5, 0.9)`).
fn normalized_params(text: &str) -> String {
    let mut items = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0usize, false, false, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '\'' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth = depth.saturating_sub(1),
            ',' if !quoted && depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(text[start..].trim());
    items.join(", ")
}

fn decimal(p: u64, s: u64) -> Result<ChType> {
    if p == 0 || p > 76 || s > p {
        return Err(Error::new(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("Precision {p} and scale {s} are out of bounds for Decimal"),
        ));
    }
    Ok(ChType::Decimal(p as u8, s as u8))
}

/// SQL-standard spellings ClickHouse accepts case-insensitively (its `registerAlias(...,
/// CaseInsensitive)` list); `INT8`, `INT2`, `FLOAT32` are not among them.
fn sql_alias(name: &str) -> Option<ChType> {
    Some(match name.to_ascii_uppercase().as_str() {
        "TINYINT" | "INT1" | "BYTE" | "TINYINT SIGNED" | "INT1 SIGNED" => ChType::Int8,
        "SMALLINT" | "SMALLINT SIGNED" => ChType::Int16,
        "INT" | "INTEGER" | "MEDIUMINT" | "INT SIGNED" | "INTEGER SIGNED" | "MEDIUMINT SIGNED" => ChType::Int32,
        "BIGINT" | "SIGNED" | "BIGINT SIGNED" | "TIME" => ChType::Int64,
        "TINYINT UNSIGNED" | "INT1 UNSIGNED" => ChType::UInt8,
        "SMALLINT UNSIGNED" | "YEAR" => ChType::UInt16,
        "INT UNSIGNED" | "INTEGER UNSIGNED" | "MEDIUMINT UNSIGNED" => ChType::UInt32,
        "UNSIGNED" | "BIGINT UNSIGNED" | "BIT" | "SET" => ChType::UInt64,
        "FLOAT" | "REAL" | "SINGLE" => ChType::Float32,
        "DOUBLE" | "DOUBLE PRECISION" => ChType::Float64,
        "BOOLEAN" | "BOOL" => ChType::Bool,
        "TEXT" | "VARCHAR" | "CHAR" | "BLOB" | "CLOB" | "TINYTEXT" | "MEDIUMTEXT" | "LONGTEXT" | "TINYBLOB" | "MEDIUMBLOB" | "LONGBLOB"
        | "VARCHAR2" | "NVARCHAR" | "NCHAR" | "CHARACTER" | "CHAR VARYING" | "CHARACTER VARYING" | "NATIONAL CHAR" | "NATIONAL CHARACTER"
        | "BINARY" | "VARBINARY" | "BYTEA" | "NCHAR VARYING" | "BINARY VARYING" | "CHARACTER LARGE OBJECT" | "BINARY LARGE OBJECT" => ChType::String,
        "TIMESTAMP" => ChType::DateTime(None),
        "DATE" => ChType::Date,
        _ => return None,
    })
}

/// Second words of ClickHouse's two-word type aliases (`INT UNSIGNED`, `DOUBLE PRECISION`).
const ALIAS_SECOND_WORDS: [&str; 5] = ["SIGNED", "UNSIGNED", "PRECISION", "VARYING", "CHAR"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_function_parameters_print_as_clickhouse() {
        let t = parse_type("AggregateFunction(quantiles(0.5,0.9), UInt64)").unwrap();
        assert_eq!(t.to_string(), "AggregateFunction(quantiles(0.5, 0.9), UInt64)");
        assert_eq!(normalized_params(" 'a,b' ,3 "), "'a,b', 3");
    }

    #[test]
    fn parses_nested_and_aliases() {
        assert_eq!(
            parse_type("Nullable( DateTime64(3, 'UTC') )").unwrap(),
            ChType::Nullable(Box::new(ChType::DateTime64(3, Some("UTC".into()))))
        );
        assert_eq!(parse_type("Decimal64(4)").unwrap(), ChType::Decimal(18, 4));
        assert_eq!(parse_type("BIGINT").unwrap(), ChType::Int64);
        assert_eq!(parse_type("varchar").unwrap(), ChType::String);
        assert_eq!(parse_type("INT UNSIGNED").unwrap(), ChType::UInt32);
        assert_eq!(parse_type("double precision").unwrap(), ChType::Float64);
        assert_eq!(parse_type("VARCHAR(10)").unwrap(), ChType::String);
        assert_eq!(parse_type("IntervalDay").unwrap(), ChType::Interval(crate::IntervalKind::Day));
    }

    #[test]
    fn parses_enums_in_value_order() {
        let t = parse_type("Enum8('b' = 2, 'a' = 1, 'it\\'s' = -3)").unwrap();
        assert_eq!(t, ChType::Enum8(vec![("it's".into(), -3), ("a".into(), 1), ("b".into(), 2)]));
        assert_eq!(t.to_string(), "Enum8('it\\'s' = -3, 'a' = 1, 'b' = 2)");
        assert_eq!(parse_type(&t.to_string()).unwrap(), t);
        assert_eq!(parse_type("Enum('x', 'y''z')").unwrap(), ChType::Enum8(vec![("x".into(), 1), ("y'z".into(), 2)]));
        assert_eq!(parse_type("Enum('a' = 1000)").unwrap(), ChType::Enum16(vec![("a".into(), 1000)]));
        assert_eq!(parse_type("Enum8('a' = 1000)").unwrap_err().code(), ErrorCode::ARGUMENT_OUT_OF_BOUND);
        assert_eq!(parse_type("Enum8('a' = 1, 'a' = 2)").unwrap_err().code(), ErrorCode::SYNTAX_ERROR);
        assert_eq!(parse_type("Enum8('a' = 1, 'b' = 1)").unwrap_err().code(), ErrorCode::SYNTAX_ERROR);
        assert_eq!(parse_type("Nullable(IPv4)").unwrap(), ChType::Nullable(Box::new(ChType::IPv4)));
    }

    #[test]
    fn rejects_bad_types() {
        assert_eq!(parse_type("Nope").unwrap_err().code(), ErrorCode::UNKNOWN_TYPE);
        // Not ClickHouse aliases, whatever other SQL dialects say.
        for name in ["INT8", "INT2", "FLOAT32", "INT64", "IntervalFortnight"] {
            assert_eq!(parse_type(name).unwrap_err().code(), ErrorCode::UNKNOWN_TYPE, "{name}");
        }
        assert!(parse_type("Nullable(Array(UInt8))").is_err());
        assert!(parse_type("Array(UInt8").is_err());
        assert!(parse_type("FixedString(0)").is_err());
        assert!(parse_type("DateTime64(12)").is_err());
    }
}
