//! TTL clauses as text: a table's `TTL rule, ...` split into rules, and expressions put
//! in the form ClickHouse shows them (`INTERVAL 1 DAY` is `toIntervalDay(1)`), so that
//! SHOW CREATE, `system.tables` and the stored metadata agree with ClickHouse.
//!
//! The engine plans the expressions itself; this module only cuts text, outside quotes
//! and brackets, at commas and at the rule keywords.

use granary_common::{Error, ErrorCode, Result};

/// What happens to a row once its TTL expression is in the past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TtlAction {
    Delete,
    /// `TO DISK 'name'` / `TO VOLUME 'name'`: the keyword and the name as written.
    Move { volume: bool, name: String },
    /// `RECOMPRESS CODEC(...)`: the codec parts whose rows are all past the expression
    /// are written with at their next merge.
    Recompress(String),
    /// `GROUP BY k1, ... [SET c = agg(c), ...]`: expired rows with equal keys (a prefix
    /// of the primary key) become one row; `set` as written, formatted.
    GroupBy { keys: Vec<String>, set: Vec<(String, String)> },
}

/// One rule of a table's TTL: `expression [DELETE | TO DISK | TO VOLUME | RECOMPRESS] [WHERE condition]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TtlRule {
    pub expression: String,
    pub action: TtlAction,
    pub condition: Option<String>,
}

impl TtlRule {
    /// The rule as ClickHouse formats it (`DELETE`, the default, is not written).
    pub fn text(&self) -> String {
        let mut out = self.expression.clone();
        match &self.action {
            TtlAction::Delete => {}
            TtlAction::Move { volume, name } => out.push_str(&format!(" TO {} {name}", if *volume { "VOLUME" } else { "DISK" })),
            TtlAction::Recompress(codec) => out.push_str(&format!(" RECOMPRESS {codec}")),
            TtlAction::GroupBy { keys, set } => {
                out.push_str(&format!(" GROUP BY {}", keys.join(", ")));
                if !set.is_empty() {
                    let assignments: Vec<String> = set.iter().map(|(c, e)| format!("{c} = {e}")).collect();
                    out.push_str(&format!(" SET {}", assignments.join(", ")));
                }
            }
        }
        if let Some(condition) = &self.condition {
            out.push_str(&format!(" WHERE {condition}"));
        }
        out
    }
}

/// Splits a table TTL clause into its rules, expressions formatted as ClickHouse shows
/// them.
pub fn parse_table_ttl(text: &str) -> Result<Vec<TtlRule>> {
    let mut rules = Vec::new();
    let pieces = split_top_level(text, ',');
    let mut next = 0;
    while next < pieces.len() {
        let piece = pieces[next].trim();
        next += 1;
        if piece.is_empty() {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: empty TTL rule in {text}")));
        }
        let words = top_level_words(piece);
        let find = |kw: &str| words.iter().find(|(_, w)| w.eq_ignore_ascii_case(kw)).map(|&(i, _)| i);
        if let Some(group_at) = find("GROUP") {
            // The key and SET lists go on past commas, as ClickHouse's parser reads them.
            let mut rest = vec![piece[group_at..].to_string()];
            while next < pieces.len() && continues_group_by(&rest, pieces[next]) {
                rest.push(pieces[next].trim().to_string());
                next += 1;
            }
            rules.push(group_by_rule(piece, &piece[..group_at], &rest.join(", "))?);
            continue;
        }
        let where_at = find("WHERE");
        let head_end = where_at.unwrap_or(piece.len());
        let action_at = ["DELETE", "TO", "RECOMPRESS"].iter().filter_map(|k| find(k)).filter(|&i| i < head_end).min();
        let expression = format_expression(&piece[..action_at.unwrap_or(head_end)]);
        let action = match action_at {
            None => TtlAction::Delete,
            Some(at) => {
                let rest = piece[at..head_end].trim();
                let (keyword, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let tail = tail.trim();
                if keyword.eq_ignore_ascii_case("DELETE") && tail.is_empty() {
                    TtlAction::Delete
                } else if keyword.eq_ignore_ascii_case("RECOMPRESS") && !tail.is_empty() {
                    TtlAction::Recompress(tail.to_string())
                } else if keyword.eq_ignore_ascii_case("TO") {
                    let (kind, name) = tail.split_once(char::is_whitespace).unwrap_or((tail, ""));
                    let volume = kind.eq_ignore_ascii_case("VOLUME");
                    if !(volume || kind.eq_ignore_ascii_case("DISK")) || name.trim().is_empty() {
                        return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: expected DISK 'name' or VOLUME 'name' after TO in TTL rule {piece}")));
                    }
                    TtlAction::Move { volume, name: name.trim().to_string() }
                } else {
                    return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: unexpected '{rest}' in TTL rule {piece}")));
                }
            }
        };
        if expression.is_empty() {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: TTL rule without an expression: {piece}")));
        }
        let condition = where_at.map(|at| format_expression(&piece[at + "WHERE".len()..]));
        if condition.as_deref() == Some("") {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: TTL rule with an empty WHERE: {piece}")));
        }
        rules.push(TtlRule { expression, action, condition });
    }
    Ok(rules)
}

/// Whether the comma-separated `piece` after a GROUP BY rule read so far (`rule`) is
/// one more of its keys or SET assignments rather than the next rule.
fn continues_group_by(rule: &[String], piece: &str) -> bool {
    let has_set = rule.iter().any(|p| top_level_words(p).iter().any(|(_, w)| w.eq_ignore_ascii_case("SET")));
    let words = top_level_words(piece);
    if has_set {
        return assignment(piece).is_some();
    }
    !words.iter().any(|(_, w)| ["GROUP", "DELETE", "TO", "RECOMPRESS", "WHERE"].iter().any(|k| w.eq_ignore_ascii_case(k)))
}

/// `name = expression` (not `==`): the column and the expression.
fn assignment(piece: &str) -> Option<(String, String)> {
    let at = top_level_chars(piece).into_iter().find(|&(i, c)| c == '=' && piece.as_bytes().get(i + 1) != Some(&b'=') && i > 0 && !b"=!<>".contains(&piece.as_bytes()[i - 1]))?.0;
    let name = piece[..at].trim().trim_matches('`');
    let value = piece[at + 1..].trim();
    (!name.is_empty() && name.bytes().all(is_word_byte) && !value.is_empty()).then(|| (name.to_string(), format_expression(value)))
}

/// `expression GROUP BY keys [SET assignments]`; `group` starts at GROUP.
fn group_by_rule(piece: &str, expression: &str, group: &str) -> Result<TtlRule> {
    let syntax = |what: &str| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {what} in TTL rule {piece}"));
    let expression = format_expression(expression);
    if expression.is_empty() {
        return Err(syntax("no expression"));
    }
    let words = top_level_words(group);
    if !words.get(1).is_some_and(|(_, w)| w.eq_ignore_ascii_case("BY")) {
        return Err(syntax("expected BY after GROUP"));
    }
    let keys_from = words[1].0 + 2;
    let set_at = words.iter().find(|(_, w)| w.eq_ignore_ascii_case("SET")).map(|&(i, _)| i);
    let keys: Vec<String> = split_top_level(&group[keys_from..set_at.unwrap_or(group.len())], ',').into_iter().map(format_expression).collect();
    if keys.iter().any(String::is_empty) {
        return Err(syntax("empty GROUP BY key"));
    }
    let mut set = Vec::new();
    if let Some(at) = set_at {
        for item in split_top_level(&group[at + "SET".len()..], ',') {
            set.push(assignment(item).ok_or_else(|| syntax("expected column = expression after SET"))?);
        }
    }
    Ok(TtlRule { expression, action: TtlAction::GroupBy { keys, set }, condition: None })
}

/// A table TTL clause as ClickHouse shows it.
pub fn format_table_ttl(text: &str) -> Result<String> {
    Ok(parse_table_ttl(text)?.iter().map(TtlRule::text).collect::<Vec<_>>().join(", "))
}

/// `expr` trimmed, with every `INTERVAL n unit` as `toIntervalUnit(n)`, which is how
/// ClickHouse's formatter prints what its parser made of it.
pub fn format_expression(text: &str) -> String {
    let text = text.trim();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let c = bytes[i];
        if c == b'\'' || c == b'"' || c == b'`' {
            let end = quoted_end(text, i);
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        if is_word_byte(c) {
            let end = word_end(text, i);
            let word = &text[i..end];
            if word.eq_ignore_ascii_case("INTERVAL") && (i == 0 || !is_word_byte(bytes[i - 1])) {
                if let Some((replacement, next)) = interval_call(text, end) {
                    out.push_str(&replacement);
                    i = next;
                    continue;
                }
            }
            out.push_str(word);
            i = end;
            continue;
        }
        out.push(text[i..].chars().next().unwrap_or(' '));
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// `n unit` after an `INTERVAL` keyword ending at `from`: the `toInterval...(n)` call and
/// where the text continues.
fn interval_call(text: &str, from: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let skip_spaces = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let start = skip_spaces(from);
    let value_end = match bytes.get(start)? {
        b'\'' => quoted_end(text, start),
        c if c.is_ascii_digit() || *c == b'-' => {
            let mut i = start + 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            i
        }
        _ => return None,
    };
    let unit_start = skip_spaces(value_end);
    if unit_start == value_end || unit_start >= bytes.len() || !is_word_byte(bytes[unit_start]) {
        return None;
    }
    let unit_end = word_end(text, unit_start);
    let unit = interval_unit(&text[unit_start..unit_end])?;
    Some((format!("toInterval{unit}({})", &text[start..value_end]), unit_end))
}

fn interval_unit(word: &str) -> Option<&'static str> {
    let upper = word.to_ascii_uppercase();
    let singular = upper.strip_suffix('S').filter(|s| !s.is_empty()).unwrap_or(&upper);
    Some(match singular {
        "NANOSECOND" => "Nanosecond",
        "MICROSECOND" => "Microsecond",
        "MILLISECOND" => "Millisecond",
        "SECOND" => "Second",
        "MINUTE" => "Minute",
        "HOUR" => "Hour",
        "DAY" => "Day",
        "WEEK" => "Week",
        "MONTH" => "Month",
        "QUARTER" => "Quarter",
        "YEAR" => "Year",
        _ => return None,
    })
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn word_end(text: &str, start: usize) -> usize {
    text[start..].bytes().position(|c| !is_word_byte(c)).map_or(text.len(), |p| start + p)
}

/// Where the quoted token starting at `start` ends (past its closing quote), escapes
/// and doubled quotes included.
fn quoted_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    text.len()
}

/// `text` cut at `separator` outside quotes and brackets.
fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in top_level_chars(text) {
        if c == separator {
            out.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out
}

/// The words (identifier-like runs) outside quotes and brackets, with their offsets.
fn top_level_words(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (i, _) in top_level_chars(text) {
        if is_word_byte(bytes[i]) && (i == 0 || !is_word_byte(bytes[i - 1])) {
            out.push((i, &text[i..word_end(text, i)]));
        }
    }
    out
}

/// Positions and characters of `text` outside quotes and brackets.
fn top_level_chars(text: &str) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        match c {
            '\'' | '"' | '`' => {
                i = quoted_end(text, i);
                continue;
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if depth == 0 => out.push((i, c)),
            _ => {}
        }
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_formatted_as_clickhouse_shows_them() {
        assert_eq!(format_expression(" d + INTERVAL 1 DAY "), "d + toIntervalDay(1)");
        assert_eq!(format_expression("d + interval 2 years - INTERVAL '3' month"), "d + toIntervalYear(2) - toIntervalMonth('3')");
        assert_eq!(format_expression("x = 'INTERVAL 1 DAY'"), "x = 'INTERVAL 1 DAY'");
        assert_eq!(format_expression("d + 1"), "d + 1");
    }

    #[test]
    fn rules_split_at_top_level_commas() {
        let rules = parse_table_ttl("d + INTERVAL 1 DAY, toDate(d, 'UTC') + INTERVAL 2 MONTH DELETE WHERE x IN (1, 2), d TO DISK 'b', d RECOMPRESS CODEC(ZSTD(1))").unwrap();
        assert_eq!(rules.len(), 4);
        assert_eq!(rules[0], TtlRule { expression: "d + toIntervalDay(1)".into(), action: TtlAction::Delete, condition: None });
        assert_eq!(rules[1].text(), "toDate(d, 'UTC') + toIntervalMonth(2) WHERE x IN (1, 2)");
        assert_eq!(rules[2].action, TtlAction::Move { volume: false, name: "'b'".into() });
        assert_eq!(rules[3].text(), "d RECOMPRESS CODEC(ZSTD(1))");
        let rules = parse_table_ttl("d + 1 DELETE WHERE x = 0, d GROUP BY k1, k2 SET v = sum(v), w = max(w), d + INTERVAL 1 DAY GROUP BY k1").unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[1].action, TtlAction::GroupBy { keys: vec!["k1".into(), "k2".into()], set: vec![("v".into(), "sum(v)".into()), ("w".into(), "max(w)".into())] });
        assert_eq!(rules[1].text(), "d GROUP BY k1, k2 SET v = sum(v), w = max(w)");
        assert_eq!(rules[2].text(), "d + toIntervalDay(1) GROUP BY k1");
        assert!(parse_table_ttl("d GROUP BY k SET v").is_err());
        assert!(parse_table_ttl("d,").is_err());
        assert!(parse_table_ttl("d TO x").is_err());
    }
}
