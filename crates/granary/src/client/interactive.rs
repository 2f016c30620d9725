//! The prompt: `granary :) `, statements ending with `;` over as many lines as needed,
//! history in `~/.granary_client_history`, Ctrl-C cancelling the running query.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rustyline::error::ReadlineError;

use super::http::{self, Payload};
use super::report::{self, ProgressLine};
use super::script::{self, InsertData, Statement};
use super::{Client, ClientError, SESSION_LOCK_WAIT};

const PROMPT: &str = "granary :) ";
const CONTINUATION: &str = "        :-] ";

pub(super) async fn run(client: &mut Client) -> Result<(), ClientError> {
    eprintln!("Connecting to {} as user {}.", client.endpoint.authority(), client.endpoint.user);
    // Like clickhouse-client, fail at once when there is no server (or no such user)
    // rather than at the first query.
    let mut version = Vec::new();
    let params = client.params(false);
    http::execute::<_, std::io::Stderr>(&client.endpoint, &params, Payload::Query("SELECT version()".into()), &mut version, None).await?;
    eprintln!("Connected to Granary server version {}.\n", String::from_utf8_lossy(&version).trim());

    let config = rustyline::Config::builder()
        .max_history_size(10_000)
        .map_err(|e| ClientError::Terminal(e.to_string()))?
        .history_ignore_space(true)
        .auto_add_history(false)
        .build();
    let mut editor = rustyline::DefaultEditor::with_config(config).map_err(|e| ClientError::Terminal(e.to_string()))?;
    let history = history_path();
    if let Some(path) = &history {
        // A first run has no history file yet.
        let _ = editor.load_history(path);
    }

    let mut pending = String::new();
    let mut after_cancel = false;
    loop {
        let prompt = if pending.is_empty() { PROMPT } else { CONTINUATION };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            // Ctrl-C at the prompt drops what was typed, as in clickhouse-client.
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(ClientError::Terminal(e.to_string())),
        };
        if pending.is_empty() && is_exit_command(&line) {
            break;
        }
        if pending.is_empty() && line.trim().is_empty() {
            continue;
        }
        pending.push_str(&line);
        pending.push('\n');
        let text = pending.clone();
        let Some(statements) = complete_input(&text) else { continue };
        pending.clear();
        let _ = editor.add_history_entry(text.trim());
        if let Some(path) = &history {
            // Saved at once: a killed client keeps its history. Failing to save (a
            // read-only home) is not worth interrupting anyone for.
            let _ = editor.save_history(path);
        }
        let width = editor.dimensions().map_or(80, |(columns, _)| columns);
        for statement in statements {
            let outcome = run_statement(client, statement, width, after_cancel).await;
            after_cancel = outcome == Outcome::Cancelled;
            // As in a script, what follows a failed or cancelled statement (an INSERT
            // after a failed CREATE, say) is not run.
            if outcome != Outcome::Done {
                break;
            }
        }
    }
    eprintln!("Bye.");
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Done,
    Failed,
    Cancelled,
}

async fn run_statement(client: &mut Client, statement: Statement<'_>, width: usize, after_cancel: bool) -> Outcome {
    if statement.insert == InsertData::Expected {
        eprintln!("{}\n", ClientError::NoData);
        return Outcome::Failed;
    }
    let started = Instant::now();
    let mut stdout = std::io::stdout();
    let result = loop {
        let mut progress = client.progress.then(|| ProgressLine::new(std::io::stderr(), width));
        let query = client.run(&statement, Payload::Query(statement.text.to_string()), &mut stdout, progress.as_mut());
        // Dropping the query's future closes its connection: the server then cancels it.
        let result = tokio::select! {
            result = query => result,
            Ok(()) = tokio::signal::ctrl_c() => {
                drop(progress);
                eprintln!("\nQuery was cancelled.\n");
                return Outcome::Cancelled;
            }
        };
        drop(progress);
        // A query cancelled just before may hold the session until the server notices;
        // wait for it rather than fail.
        if after_cancel && started.elapsed() < SESSION_LOCK_WAIT && matches!(result, Err(ClientError::Server { code: 373, .. })) {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        break result;
    };
    match result {
        Ok(answer) => {
            if answer.output_bytes == 0 {
                println!("Ok.");
            }
            eprintln!("\n{}\n", report::summary_line(&answer.summary, started.elapsed()));
            Outcome::Done
        }
        Err(e) => {
            eprintln!("{e}\n");
            Outcome::Failed
        }
    }
}

/// `~/.granary_client_history`.
fn history_path() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|home| PathBuf::from(home).join(".granary_client_history"))
}

/// `exit`, `quit`, `logout`, `q`, `\q`, `:q`, in any case, with or without `;`.
fn is_exit_command(line: &str) -> bool {
    let command = line.trim().trim_end_matches(';').trim_end().to_ascii_lowercase();
    matches!(command.as_str(), "exit" | "quit" | "logout" | "q" | "\\q" | ":q")
}

/// The statements of the input typed so far, once it is complete: it ends with `;`, not
/// inside a string or comment. `None` asks for another line.
fn complete_input(text: &str) -> Option<Vec<Statement<'_>>> {
    if !text.trim_end().ends_with(';') {
        return None;
    }
    let split = script::split(text);
    if split.open {
        return None;
    }
    let mut statements = split.complete;
    if let Some(last) = split.last {
        // Inline INSERT data runs to a blank line, and so swallowed the final `;`: at the
        // prompt that `;` ends the statement. Anything else without a `;` of its own had
        // it in a line comment (`SELECT 1 -- why;`): more is to come.
        if !last.has_format_data() {
            return None;
        }
        let text = last.text.trim_end();
        statements.push(Statement { text: text[..text.len() - 1].trim_end(), ..last });
    }
    Some(statements)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &str) -> Option<Vec<&str>> {
        complete_input(input).map(|s| s.into_iter().map(|s| s.text).collect())
    }

    #[test]
    fn input_completes_at_semicolon() {
        assert_eq!(texts("SELECT 1\n"), None);
        assert_eq!(texts("SELECT 1\n,2;\n"), Some(vec!["SELECT 1\n,2"]));
        assert_eq!(texts("SELECT 1; SELECT 2;\n"), Some(vec!["SELECT 1", "SELECT 2"]));
        assert_eq!(texts(";\n"), Some(vec![]));
        // The `;` is in a string, or a comment: not the end.
        assert_eq!(texts("SELECT 'a;\n"), None);
        assert_eq!(texts("SELECT 1 -- a;\n"), None);
        assert_eq!(texts("SELECT 1 /* a;\n"), None);
        assert_eq!(texts("SELECT 'a;\nb';\n"), Some(vec!["SELECT 'a;\nb'"]));
    }

    #[test]
    fn inline_format_data_ends_at_semicolon_at_the_prompt() {
        assert_eq!(texts("INSERT INTO t FORMAT CSV 1,2;\n"), Some(vec!["INSERT INTO t FORMAT CSV 1,2"]));
        assert_eq!(texts("INSERT INTO t FORMAT CSV\n1,2\n3,4 ;\n"), Some(vec!["INSERT INTO t FORMAT CSV\n1,2\n3,4"]));
        assert_eq!(texts("INSERT INTO t VALUES (1), (2);\n"), Some(vec!["INSERT INTO t VALUES (1), (2)"]));
    }

    #[test]
    fn exit_commands() {
        for command in ["exit", "quit;", " Q ", "logout ;", "\\q", ":q", "EXIT"] {
            assert!(is_exit_command(command), "{command}");
        }
        for command in ["exits", "SELECT 1", "", "q q"] {
            assert!(!is_exit_command(command), "{command}");
        }
    }
}
