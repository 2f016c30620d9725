//! Splitting a script into statements the way clickhouse-client does in multi-query mode.
//!
//! Statements end at a `;` (or at `\G`, which asks for the `Vertical` format) outside
//! quoted strings, quoted identifiers, heredocs and comments. INSERT statements are special because their data may follow them inline:
//!
//! * `INSERT ... VALUES (...)` (and `FORMAT Values`): the data is SQL-like, so it is
//!   tokenized as usual and ends at the next `;`; it may span lines and blank lines.
//! * `INSERT ... FORMAT X` for any other format: the data starts after the format name
//!   (on the same line, or on the next line when the name ends its line) and ends at the
//!   first blank line or at the end of the script. A `;` inside it is data, not a
//!   terminator: a CSV row can hold one. This is ClickHouse's rule since 24.x.
//!
//! Only the text's structure is examined here; the server parses the statements.

/// One statement of a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Statement<'a> {
    /// What is sent to the server: from the first token to the last (leading and trailing
    /// comments dropped), without the `;`, with the inline data of an INSERT included.
    pub text: &'a str,
    pub insert: InsertData,
    /// Ended by `\G` instead of `;`: the result is shown in the `Vertical` format.
    pub vertical: bool,
}

/// Where the data of a statement comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InsertData {
    /// Not an INSERT that reads data: any other statement, `INSERT ... SELECT`,
    /// `INSERT ... FROM INFILE`.
    None,
    /// `INSERT ... VALUES`/`FORMAT X` followed by its data in the text itself.
    Inline { values: bool },
    /// `INSERT ... VALUES`/`FORMAT X` with nothing after it: the data must come from
    /// elsewhere (stdin when the statement was given by `--query`).
    Expected,
}

impl Statement<'_> {
    /// `INSERT ... FORMAT X <data>` with X not Values: its data runs to a blank line,
    /// so a `;` at its end is data.
    pub fn has_format_data(&self) -> bool {
        self.insert == InsertData::Inline { values: false }
    }
}

/// The statements of a script.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// Statements ended by `;` (or, for INSERT format data, by a blank line).
    pub complete: Vec<Statement<'a>>,
    /// A statement at the end of the text with no terminator yet.
    pub last: Option<Statement<'a>>,
    /// The text ends inside a quoted string or identifier, a heredoc or a block comment:
    /// at the prompt, more lines are needed even if the line ends with `;`.
    pub open: bool,
}

impl<'a> Split<'a> {
    /// Every statement, the unterminated last one included: a script from `--query` or
    /// stdin runs it as well (the server reports it if it is cut short).
    pub fn all(&self) -> impl Iterator<Item = Statement<'a>> + '_ {
        self.complete.iter().copied().chain(self.last)
    }
}

pub(crate) fn split(script: &str) -> Split<'_> {
    let mut out = Split::default();
    let mut pos = 0;
    while pos < script.len() {
        let scanned = scan_statement(script, pos);
        pos = scanned.next;
        out.open |= scanned.open;
        let Some(statement) = scanned.statement else { continue };
        if scanned.terminated {
            out.complete.push(statement);
        } else {
            out.last = Some(statement);
        }
    }
    out
}

/// A `USE db` statement's database name, unquoted.
pub(crate) fn use_database(statement: &str) -> Option<String> {
    let bytes = statement.as_bytes();
    let mut significant = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let token = next_token(bytes, i);
        i = token.end;
        if !matches!(token.kind, Kind::Space | Kind::Comment) {
            significant.push(token);
        }
    }
    match significant.as_slice() {
        [keyword, name] if keyword.kind == Kind::Word && statement[keyword.start..keyword.end].eq_ignore_ascii_case("USE") => {
            let text = &statement[name.start..name.end];
            match name.kind {
                Kind::Word => Some(text.to_string()),
                Kind::Quoted(b'`' | b'"') if !name.open => Some(unquote(text)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The contents of a closed quoted identifier: `\x` escapes and doubled quotes resolved.
fn unquote(text: &str) -> String {
    let mut chars = text.chars();
    let quote = chars.next().unwrap_or('`');
    let inner: Vec<char> = chars.collect();
    let inner = &inner[..inner.len().saturating_sub(1)];
    let mut out = String::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if (c == '\\' || c == quote) && i + 1 < inner.len() {
            out.push(inner[i + 1]);
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

struct Scanned<'a> {
    statement: Option<Statement<'a>>,
    /// Ended by `;` or by the blank line after INSERT format data.
    terminated: bool,
    open: bool,
    /// Where the next statement starts.
    next: usize,
}

/// How far an INSERT's analysis has got.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InsertState {
    NotInsert,
    /// Before VALUES/FORMAT; `input` when the `input()` table function was named (only
    /// then does a FORMAT after SELECT describe data to send).
    Head { after_select: bool, input: bool },
    /// After `FORMAT`, waiting for the format name.
    FormatName,
    /// After VALUES (or FORMAT Values): data tokens follow.
    Values { data: bool },
    /// INSERT ... SELECT ... without FORMAT, FROM INFILE: no data to send.
    NoData,
}

fn scan_statement(script: &str, start: usize) -> Scanned<'_> {
    let bytes = script.as_bytes();
    let mut i = start;
    let mut first: Option<usize> = None;
    let mut last_end = start;
    let mut depth = 0usize;
    let mut state = InsertState::NotInsert;
    // The previous significant token: `INTO values`, `INTO db.format` name tables, not data.
    let mut previous_names_table = false;
    let mut open = false;
    let finish = |first: Option<usize>, end: usize, state: InsertState, terminated: bool, open: bool, next: usize, vertical: bool| {
        let insert = match state {
            InsertState::Values { data: true } => InsertData::Inline { values: true },
            InsertState::Values { data: false } | InsertState::FormatName => InsertData::Expected,
            _ => InsertData::None,
        };
        Scanned { statement: first.map(|s| Statement { text: &script[s..end], insert, vertical }), terminated, open, next }
    };
    while i < bytes.len() {
        let token = next_token(bytes, i);
        i = token.end;
        open |= token.open;
        match token.kind {
            Kind::Space | Kind::Comment => continue,
            Kind::Semicolon => return finish(first, last_end, state, true, open, i, false),
            Kind::Vertical => return finish(first, last_end, state, true, open, i, true),
            _ => {}
        }
        let is_first = first.is_none();
        first.get_or_insert(token.start);
        last_end = token.end;
        let word = (token.kind == Kind::Word).then(|| &script[token.start..token.end]);
        let is = |w: &str| word.is_some_and(|x| x.eq_ignore_ascii_case(w));
        match token.kind {
            Kind::Punct(b'(') => depth += 1,
            Kind::Punct(b')') => depth = depth.saturating_sub(1),
            _ => {}
        }
        let names_table = previous_names_table;
        previous_names_table = is("INTO") || is("TABLE") || token.kind == Kind::Punct(b'.');
        if is_first {
            if is("INSERT") {
                state = InsertState::Head { after_select: false, input: false };
            }
            continue;
        }
        state = match state {
            InsertState::Head { after_select, .. } if is("input") => InsertState::Head { after_select, input: true },
            InsertState::Head { after_select, input } if depth == 0 && !names_table => {
                if is("INFILE") {
                    InsertState::NoData
                } else if is("SELECT") || is("WITH") {
                    InsertState::Head { after_select: true, input }
                } else if is("VALUES") && !after_select {
                    InsertState::Values { data: false }
                } else if is("FORMAT") && (!after_select || input) {
                    // `INSERT ... SELECT ... FROM input() FORMAT X` reads data too; other
                    // INSERT ... SELECT statements have no data to send.
                    InsertState::FormatName
                } else {
                    state
                }
            }
            InsertState::FormatName if word.is_some() => {
                if is("Values") {
                    InsertState::Values { data: false }
                } else {
                    return scan_format_data(script, first, token.end);
                }
            }
            // Something other than a name after FORMAT: let the server report it.
            InsertState::FormatName => InsertState::NoData,
            InsertState::Values { .. } => InsertState::Values { data: true },
            other => other,
        }
    }
    let state = match state {
        InsertState::Head { after_select: true, .. } => InsertState::NoData,
        other => other,
    };
    finish(first, last_end, state, false, open, bytes.len(), false)
}

/// The data of `INSERT ... FORMAT X` (X not Values) after the format name ending at
/// `name_end`: from there to the first blank line.
fn scan_format_data(script: &str, first: Option<usize>, name_end: usize) -> Scanned<'_> {
    let bytes = script.as_bytes();
    let start = first.unwrap_or(name_end);
    let statement = |end: usize, insert: InsertData| Some(Statement { text: &script[start..end], insert, vertical: false });
    let mut i = name_end;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\x0c') {
        i += 1;
    }
    match bytes.get(i) {
        // `--query 'INSERT INTO t FORMAT CSV'`: the data comes from stdin.
        None => return Scanned { statement: statement(name_end, InsertData::Expected), terminated: false, open: false, next: i },
        // `INSERT INTO t FORMAT CSV;`: no data here either; the `;` ends the statement.
        Some(b';') => return Scanned { statement: statement(name_end, InsertData::Expected), terminated: true, open: false, next: i + 1 },
        _ => {}
    }
    if bytes[i..].starts_with(b"\r\n") {
        i += 2;
    } else if bytes[i] == b'\n' {
        i += 1;
    }
    // The format name ended its line: the data is on the following lines, unless the
    // next line is blank or there is none.
    if let Some(after_blank) = blank_line_at(bytes, i) {
        return Scanned { statement: statement(name_end, InsertData::Expected), terminated: true, open: false, next: after_blank };
    }
    if i >= bytes.len() {
        return Scanned { statement: statement(name_end, InsertData::Expected), terminated: false, open: false, next: i };
    }
    let mut line_end = i;
    loop {
        match bytes[line_end..].iter().position(|&c| c == b'\n') {
            None => {
                return Scanned { statement: statement(bytes.len(), InsertData::Inline { values: false }), terminated: false, open: false, next: bytes.len() };
            }
            Some(offset) => {
                let after_newline = line_end + offset + 1;
                if let Some(after_blank) = blank_line_at(bytes, after_newline) {
                    let statement = statement(after_newline, InsertData::Inline { values: false });
                    return Scanned { statement, terminated: true, open: false, next: after_blank };
                }
                line_end = after_newline;
            }
        }
    }
}

/// When the line starting at `i` is blank (spaces, tabs, `\r` only) and ends with a line
/// break, where the next line starts.
fn blank_line_at(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r') {
        j += 1;
    }
    (bytes.get(j) == Some(&b'\n')).then_some(j + 1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Space,
    Comment,
    Word,
    /// A string (`'`), a quoted identifier (`"`, `` ` ``) or a heredoc (`$`).
    Quoted(u8),
    Semicolon,
    /// `\G`: ends a statement like `;`, with the result in the `Vertical` format.
    Vertical,
    Punct(u8),
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
    /// Unterminated at the end of the text.
    open: bool,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The token starting at `i` (< `bytes.len()`). Splits only at ASCII bytes, so every
/// boundary is a char boundary of the UTF-8 text.
fn next_token(bytes: &[u8], i: usize) -> Token {
    let len = bytes.len();
    let token = |kind, end: usize, open| Token { kind, start: i, end: end.min(len), open };
    let b = bytes[i];
    let next = bytes.get(i + 1).copied();
    match b {
        b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => {
            let end = bytes[i..].iter().position(|c| !c.is_ascii_whitespace()).map_or(len, |p| i + p);
            token(Kind::Space, end, false)
        }
        // `--` and, as in ClickHouse's lexer, `# ` and `#!` start line comments.
        b'-' if next == Some(b'-') => token(Kind::Comment, line_end(bytes, i), false),
        b'#' if matches!(next, Some(b' ' | b'!')) => token(Kind::Comment, line_end(bytes, i), false),
        b'/' if next == Some(b'*') => {
            // Block comments nest, as in ClickHouse.
            let mut level = 0usize;
            let mut j = i;
            while j + 1 < len {
                if bytes[j] == b'/' && bytes[j + 1] == b'*' {
                    level += 1;
                    j += 2;
                } else if bytes[j] == b'*' && bytes[j + 1] == b'/' {
                    level -= 1;
                    j += 2;
                    if level == 0 {
                        return token(Kind::Comment, j, false);
                    }
                } else {
                    j += 1;
                }
            }
            token(Kind::Comment, len, true)
        }
        b'\'' | b'"' | b'`' => {
            let mut j = i + 1;
            while j < len {
                if bytes[j] == b'\\' {
                    j += 2;
                } else if bytes[j] == b {
                    if bytes.get(j + 1) == Some(&b) {
                        j += 2;
                    } else {
                        return token(Kind::Quoted(b), j + 1, false);
                    }
                } else {
                    j += 1;
                }
            }
            token(Kind::Quoted(b), len, true)
        }
        b'$' => {
            // A heredoc `$tag$ ... $tag$` (tag possibly empty) is a string literal.
            let tag_end = bytes[i + 1..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).map_or(len, |p| i + 1 + p);
            if bytes.get(tag_end) != Some(&b'$') {
                return token(Kind::Punct(b'$'), i + 1, false);
            }
            let delimiter = &bytes[i..=tag_end];
            match bytes[tag_end + 1..].windows(delimiter.len()).position(|w| w == delimiter) {
                Some(p) => token(Kind::Quoted(b'$'), tag_end + 1 + p + delimiter.len(), false),
                None => token(Kind::Quoted(b'$'), len, true),
            }
        }
        b';' => token(Kind::Semicolon, i + 1, false),
        b'\\' if next == Some(b'G') => token(Kind::Vertical, i + 2, false),
        _ if is_word_byte(b) => {
            let end = bytes[i..].iter().position(|c| !is_word_byte(*c)).map_or(len, |p| i + p);
            token(Kind::Word, end, false)
        }
        _ => token(Kind::Punct(b), i + 1, false),
    }
}

fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(script: &str) -> Vec<&str> {
        split(script).all().map(|s| s.text).collect()
    }

    #[test]
    fn backslash_g_ends_a_vertical_statement() {
        let s = split("SELECT 1\\G SELECT '\\G'; SELECT 3 \\G");
        let all: Vec<(&str, bool)> = s.all().map(|s| (s.text, s.vertical)).collect();
        assert_eq!(all, [("SELECT 1", true), ("SELECT '\\G'", false), ("SELECT 3", true)]);
        assert!(s.last.is_none());
    }

    #[test]
    fn splits_at_semicolons_outside_quotes_and_comments() {
        assert_eq!(texts("SELECT 1; SELECT 2"), ["SELECT 1", "SELECT 2"]);
        assert_eq!(texts("SELECT 'a;b'; SELECT \"c;d\", `e;f`;"), ["SELECT 'a;b'", "SELECT \"c;d\", `e;f`"]);
        assert_eq!(texts("SELECT 'it\\'s;' ; SELECT 'x'';y'"), ["SELECT 'it\\'s;'", "SELECT 'x'';y'"]);
        assert_eq!(texts("SELECT 1 -- one; two\n; SELECT 2 # three; four\n"), ["SELECT 1", "SELECT 2"]);
        assert_eq!(texts("SELECT /* a; /* nested; */ b; */ 1; SELECT 2"), ["SELECT /* a; /* nested; */ b; */ 1", "SELECT 2"]);
        assert_eq!(texts("SELECT $$a;b$$, $tag$c;$$;d$tag$; SELECT 2"), ["SELECT $$a;b$$, $tag$c;$$;d$tag$", "SELECT 2"]);
        assert_eq!(texts("SELECT 'é;ü'; SELECT 2"), ["SELECT 'é;ü'", "SELECT 2"]);
    }

    #[test]
    fn drops_empty_statements_and_comments_around_statements() {
        assert_eq!(texts(";;  ;\n-- only a comment\n/* and another */;"), Vec::<&str>::new());
        assert_eq!(texts("-- lead\nSELECT 1 -- trail\n;\n-- after"), ["SELECT 1"]);
        assert!(split("  \n").last.is_none());
    }

    #[test]
    fn terminated_and_unterminated() {
        let s = split("SELECT 1; SELECT 2");
        assert_eq!(s.complete.len(), 1);
        assert_eq!(s.last.map(|l| l.text), Some("SELECT 2"));
        assert!(!s.open);
        let s = split("SELECT 'abc;\n");
        assert!(s.complete.is_empty());
        assert!(s.open);
        assert_eq!(s.last.map(|l| l.text), Some("SELECT 'abc;\n"));
        assert!(split("SELECT 1 /* still a comment;").open);
        assert!(split("SELECT `col;").open);
    }

    #[test]
    fn insert_values_data_runs_to_semicolon() {
        let s = split("INSERT INTO t VALUES\n(1, 'a;'),\n\n(2, 'b'); SELECT 1");
        assert_eq!(s.complete[0].text, "INSERT INTO t VALUES\n(1, 'a;'),\n\n(2, 'b')");
        assert_eq!(s.complete[0].insert, InsertData::Inline { values: true });
        assert_eq!(s.last.map(|l| l.insert), Some(InsertData::None));
        assert_eq!(split("INSERT INTO t FORMAT Values (1)").last.map(|l| l.insert), Some(InsertData::Inline { values: true }));
    }

    #[test]
    fn insert_without_data_expects_it() {
        for q in ["INSERT INTO t FORMAT CSV", "INSERT INTO t FORMAT CSV;", "insert into t (a, b) values", "INSERT INTO t VALUES;", "INSERT INTO t FORMAT CSV\n", "INSERT INTO t SETTINGS async_insert=1 FORMAT TSV  "] {
            let s = split(q);
            let statement = s.all().next().expect("one statement");
            assert_eq!(statement.insert, InsertData::Expected, "{q}");
            assert!(!statement.text.ends_with(';') && !statement.text.ends_with(' '), "{q}");
        }
        assert_eq!(split("INSERT INTO t FORMAT CSV").last.map(|l| l.text), Some("INSERT INTO t FORMAT CSV"));
    }

    #[test]
    fn insert_without_data_source() {
        for q in [
            "INSERT INTO t SELECT * FROM s",
            "INSERT INTO t WITH 1 AS x SELECT x",
            "INSERT INTO t SELECT * FROM values('a UInt8', 1)",
            "INSERT INTO t FROM INFILE 'data.csv' FORMAT CSV",
            "INSERT INTO values SELECT 1",
            "INSERT INTO db.format SELECT 1",
            "SELECT 1 FORMAT CSV",
            "INSERT INTO t SELECT 1 FORMAT CSV",
        ] {
            assert_eq!(split(q).last.map(|l| l.insert), Some(InsertData::None), "{q}");
        }
        assert_eq!(split("INSERT INTO values VALUES (1)").last.map(|l| l.insert), Some(InsertData::Inline { values: true }));
        assert_eq!(split("INSERT INTO format FORMAT CSV").last.map(|l| l.insert), Some(InsertData::Expected));
        assert_eq!(split("INSERT INTO t SELECT * FROM input('a UInt8') FORMAT CSV").last.map(|l| l.insert), Some(InsertData::Expected));
    }

    #[test]
    fn insert_format_data_runs_to_blank_line() {
        // ClickHouse's own test (03156_default_multiquery_split): the `;` after 2 is data,
        // the blank line ends the data, and `6` is the next (bad) statement.
        let script = "insert into test2 format csv\n1\n2;\n\ninsert into test2 format csv\n3\n4\n\n6\n";
        let s = split(script);
        assert_eq!(s.complete.iter().map(|s| s.text).collect::<Vec<_>>(), ["insert into test2 format csv\n1\n2;\n", "insert into test2 format csv\n3\n4\n"]);
        assert!(s.complete.iter().all(Statement::has_format_data));
        assert_eq!(s.last.map(|l| l.text), Some("6"));

        let s = split("INSERT INTO t FORMAT CSV 1,'a;b'\r\n\r\nSELECT 1;");
        assert_eq!(s.complete.iter().map(|s| s.text).collect::<Vec<_>>(), ["INSERT INTO t FORMAT CSV 1,'a;b'\r\n", "SELECT 1"]);

        let s = split("INSERT INTO t FORMAT TSV\na\tb\n  \t\nSELECT 2");
        assert_eq!(s.complete[0].text, "INSERT INTO t FORMAT TSV\na\tb\n");
        assert_eq!(s.last.map(|l| l.text), Some("SELECT 2"));

        // Data to the end of the script, quotes in it are not tokens.
        let s = split("INSERT INTO t FORMAT CSV\n1,\"x\n2,'y");
        assert!(!s.open);
        assert_eq!(s.last.map(|l| (l.text, l.has_format_data())), Some(("INSERT INTO t FORMAT CSV\n1,\"x\n2,'y", true)));

        // A blank line right after the name: no inline data.
        let s = split("INSERT INTO t FORMAT CSV\n\nSELECT 1");
        assert_eq!(s.complete[0], Statement { text: "INSERT INTO t FORMAT CSV", insert: InsertData::Expected, vertical: false });
        assert_eq!(s.last.map(|l| l.text), Some("SELECT 1"));
    }

    #[test]
    fn use_statements() {
        assert_eq!(use_database("USE db1").as_deref(), Some("db1"));
        assert_eq!(use_database("use `my db`").as_deref(), Some("my db"));
        assert_eq!(use_database("USE \"a\"\"b\" -- c").as_deref(), Some("a\"b"));
        assert_eq!(use_database("USE `a\\`b`").as_deref(), Some("a`b"));
        assert_eq!(use_database("USE"), None);
        assert_eq!(use_database("USE a.b"), None);
        assert_eq!(use_database("SELECT 1"), None);
        assert_eq!(use_database("USE 'db'"), None);
    }
}
