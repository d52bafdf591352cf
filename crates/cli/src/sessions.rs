//! `twinwire sessions`: Claude Code's saved sessions, through `twinwire::sessions` (the same
//! results as the official SDKs' session functions on the same files).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use serde_json::Value;
use twinwire::sessions::{
    ForkOptions, ListOptions, MessageReader, MessagesOptions, ScrubReport, SessionInfo, Skipped,
};

use crate::terminal::sanitize;

/// Options of `twinwire sessions`.
#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    command: SessionsCommand,
    /// The CLI's config directory (default: $CLAUDE_CONFIG_DIR, else ~/.claude, and the one of
    /// `run --offline`).
    #[arg(long, global = true, value_name = "DIR")]
    config_dir: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum SessionsCommand {
    /// The sessions of this directory's project (or --dir's, or --all), newest first.
    List {
        /// The project directory (default: the current one).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Every project's sessions.
        #[arg(long, conflicts_with = "dir")]
        all: bool,
        /// At most N sessions.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Skip the N newest.
        #[arg(long, value_name = "N", default_value_t = 0)]
        offset: usize,
        /// Leave out the sessions of the directory's other git worktrees.
        #[arg(long)]
        no_worktrees: bool,
        /// One JSON array (the official SDKs' `SDKSessionInfo` objects).
        #[arg(long)]
        json: bool,
    },
    /// One session: its summary, its messages and its subagents.
    Show {
        /// The session id.
        id: String,
        #[arg(long)]
        dir: Option<PathBuf>,
        /// At most N messages.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Skip the first N messages.
        #[arg(long, value_name = "N", default_value_t = 0)]
        offset: usize,
        /// Include system messages.
        #[arg(long)]
        system: bool,
        /// Only this subagent's messages.
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        /// One JSON object: `info`, `messages`, `subagents`.
        #[arg(long)]
        json: bool,
    },
    /// Set a session's title.
    Rename {
        id: String,
        title: String,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Set (or with --clear, remove) a session's tag.
    Tag {
        id: String,
        #[arg(required_unless_present = "clear")]
        tag: Option<String>,
        #[arg(long, conflicts_with = "tag")]
        clear: bool,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Copy a session into a new one (up to a message with --at); prints the new id.
    Fork {
        id: String,
        /// The last message to keep (its uuid, from `show --json`).
        #[arg(long, value_name = "UUID")]
        at: Option<String>,
        /// The fork's title (default: the session's, with " (fork)").
        #[arg(long)]
        title: Option<String>,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Mark a session archived (it stays listed, with `archived`).
    Archive {
        id: String,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Remove the archive mark.
    Unarchive {
        id: String,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Redact the secrets in saved sessions, in place: a session's transcript, its subagents'
    /// and the JSON files beside them (API keys and tokens, secret-named keys and headers,
    /// private keys, the values of this environment's secret variables), each file written
    /// anew and renamed over the old one. Stop the session first: the CLI may be writing it.
    Scrub {
        /// The session id (or --all).
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Every session (of --dir's project when given).
        #[arg(long)]
        all: bool,
        /// The project directory.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Only report what would be redacted.
        #[arg(long)]
        dry_run: bool,
        /// The report as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Delete a session's transcript and its subagents. Asks first unless --yes.
    Delete {
        id: String,
        #[arg(long)]
        yes: bool,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// Runs the subcommand; returns whether it did what was asked.
pub fn run(args: &SessionsArgs, out: &mut impl Write) -> anyhow::Result<bool> {
    let store = crate::offline::session_stores(args.config_dir.as_deref());
    match &args.command {
        SessionsCommand::List {
            dir,
            all,
            limit,
            offset,
            no_worktrees,
            json,
        } => {
            let dir = match (all, dir) {
                (true, _) => None,
                (false, Some(dir)) => Some(dir.clone()),
                (false, None) => Some(std::env::current_dir().context("the current directory")?),
            };
            let options = ListOptions {
                dir,
                limit: *limit,
                offset: *offset,
                include_worktrees: !no_worktrees,
            };
            let sessions = store.list(&options);
            if *json {
                serde_json::to_writer_pretty(&mut *out, &sessions)?;
                writeln!(out)?;
            } else {
                sessions.write_tables(out, |group, out| print_table(group, out))?;
            }
            Ok(true)
        }
        SessionsCommand::Show {
            id,
            dir,
            limit,
            offset,
            system,
            agent,
            json,
        } => {
            let options = MessagesOptions {
                dir: dir.clone(),
                limit: *limit,
                offset: *offset,
                include_system_messages: *system,
            };
            // Opened first: it says why a session cannot be read.
            let messages = match agent {
                Some(agent) => store.read_subagent_messages(id, agent, &options),
                None => store.read_messages(id, &options),
            }
            .with_context(|| format!("session {id}"))?;
            let Some(info) = store.info(id, dir.as_deref()) else {
                bail!("session {id} not found");
            };
            let subagents = store.subagents(id, dir.as_deref());
            let messages = show(&info, messages, &subagents, *json, out)?;
            report_skipped(messages.skipped(), messages.skipped_count());
            Ok(true)
        }
        SessionsCommand::Rename { id, title, dir } => {
            store.rename(id, title, dir.as_deref())?;
            Ok(true)
        }
        SessionsCommand::Tag {
            id,
            tag,
            clear,
            dir,
        } => {
            let tag = if *clear { None } else { tag.as_deref() };
            store.tag(id, tag, dir.as_deref())?;
            Ok(true)
        }
        SessionsCommand::Fork { id, at, title, dir } => {
            let options = ForkOptions {
                dir: dir.clone(),
                up_to: at.clone(),
                title: title.clone(),
            };
            let forked = store.fork_with_report(id, &options)?;
            writeln!(out, "{}", forked.session_id)?;
            report_skipped(&forked.skipped, forked.skipped_count);
            Ok(true)
        }
        SessionsCommand::Archive { id, dir } => {
            store.archive(id, dir.as_deref())?;
            Ok(true)
        }
        SessionsCommand::Unarchive { id, dir } => {
            store.unarchive(id, dir.as_deref())?;
            Ok(true)
        }
        SessionsCommand::Scrub {
            id,
            all,
            dir,
            dry_run,
            json,
        } => {
            let redactor = twinwire::redact::Redactor::from_process_env();
            let mut report = ScrubReport::default();
            let places = match (all, id) {
                (true, _) | (false, None) => store.places().iter().collect::<Vec<_>>(),
                (false, Some(id)) => vec![store.holding(id, dir.as_deref())],
            };
            for place in places {
                // A place that was never written (no ~/.claude yet) holds nothing to scrub.
                if id.is_none() && !place.dir.exists() {
                    continue;
                }
                let scrubbed = match (all, id) {
                    (false, Some(id)) => place.store.scrub(id, dir.as_deref(), &redactor, *dry_run),
                    _ => place.store.scrub_all(dir.as_deref(), &redactor, *dry_run),
                }
                .with_context(|| format!("scrubbing {}", place.dir.display()))?;
                for mut file in scrubbed.files {
                    file.path = place.dir.join(&file.path);
                    report.files.push(file);
                }
            }
            print_scrub(&report, *dry_run, *json, out)?;
            Ok(report.files.iter().all(|f| !f.busy))
        }
        SessionsCommand::Delete { id, yes, dir } => {
            if !yes && !confirm(&format!("Delete session {id}?"))? {
                crate::transcript::warn("sessions: not deleted");
                return Ok(false);
            }
            store.delete(id, dir.as_deref())?;
            Ok(true)
        }
    }
}

/// Writes a session: as one JSON object (`info`, `messages`, `subagents`) or as a table and
/// a line per message, each message written as it is read. Returns the used-up reader.
fn show(
    info: &SessionInfo,
    messages: MessageReader,
    subagents: &[String],
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<MessageReader> {
    // Whole blocks, not a write per line of a long conversation.
    let mut out = std::io::BufWriter::new(out);
    let messages = if json {
        let shown = Shown {
            info,
            messages: Streamed(std::cell::RefCell::new(messages)),
            subagents,
        };
        serde_json::to_writer_pretty(&mut out, &shown)?;
        writeln!(out)?;
        shown.messages.0.into_inner()
    } else {
        print_table(std::slice::from_ref(info), &mut out)?;
        let mut messages = messages;
        for message in messages.by_ref() {
            let text = message_text(&message.message);
            writeln!(out, "{:>9}  {}", message.kind, sanitize(&text))?;
        }
        if !subagents.is_empty() {
            writeln!(out, "subagents: {}", sanitize(&subagents.join(", ")))?;
        }
        messages
    };
    out.flush()?;
    Ok(messages)
}

/// `show --json`'s object, its messages written as they are read.
#[derive(serde::Serialize)]
struct Shown<'a> {
    info: &'a SessionInfo,
    messages: Streamed,
    subagents: &'a [String],
}

/// A reader serialized as a JSON array, one message at a time; the reader is kept for its
/// report.
struct Streamed(std::cell::RefCell<MessageReader>);

impl serde::Serialize for Streamed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.borrow_mut().by_ref())
    }
}

/// Tells on stderr which lines of the transcript were left out (`count`: all told).
fn report_skipped(skipped: &[Skipped], count: u64) {
    for skipped in skipped {
        crate::transcript::warn(&format!("sessions: {}", sanitize(&skipped.to_string())));
    }
    let untold = count.saturating_sub(skipped.len() as u64);
    if untold > 0 {
        crate::transcript::warn(&format!("sessions: and {untold} more lines skipped"));
    }
}

/// What a scrub did: a line per file that held a secret (or could not be read whole), then
/// the totals; or the report as JSON.
fn print_scrub(
    report: &ScrubReport,
    dry_run: bool,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer_pretty(
            &mut *out,
            &serde_json::json!({
                "dryRun": dry_run,
                "files": report.files,
                "secrets": report.secrets(),
                "rewritten": report.rewritten(),
            }),
        )?;
        writeln!(out)?;
        return Ok(());
    }
    for file in &report.files {
        if file.secrets == 0 && file.unread_lines.is_empty() && !file.busy {
            continue;
        }
        let what = if file.busy {
            "left as it was: it grew while it was scrubbed (the CLI is writing it)".to_owned()
        } else if dry_run {
            "would be rewritten".to_owned()
        } else if file.rewritten {
            "rewritten".to_owned()
        } else {
            "unchanged".to_owned()
        };
        write!(
            out,
            "{}: {} secret(s) in {} of {} lines, {what}",
            sanitize(&file.path.display().to_string()),
            file.secrets,
            file.lines_changed,
            file.lines
        )?;
        if !file.unread_lines.is_empty() {
            write!(
                out,
                "; lines not read (too long or not UTF-8), kept as they were: {:?}",
                file.unread_lines
            )?;
        }
        writeln!(out)?;
    }
    let verb = if dry_run { "would redact" } else { "redacted" };
    writeln!(
        out,
        "{} file(s) read, {verb} {} secret(s), {} file(s) rewritten",
        report.files.len(),
        report.secrets(),
        report.rewritten()
    )?;
    Ok(())
}

/// Asks on the terminal; without one, the answer is no (pass --yes).
fn confirm(question: &str) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        bail!("{question} Not on a terminal: pass --yes to delete");
    }
    let mut err = std::io::stderr().lock();
    write!(err, "{question} [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// The text of a message's content, on one line.
fn message_text(message: &Value) -> String {
    let text = match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().unwrap_or_default().to_owned(),
                Some("tool_use") => format!("⏺ {}", b["name"].as_str().unwrap_or("tool")),
                Some("tool_result") => "⎿ (tool result)".to_owned(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    };
    let line = text.replace('\n', " ");
    crate::run::truncate(&line, 120)
}

/// What a session is called in a list: its title (`/rename`, else the one the CLI gave it),
/// else its first prompt, which stays while the session goes on (the library's `summary`
/// follows the official SDKs and shows the latest prompt), else that summary.
pub fn label(session: &SessionInfo) -> &str {
    [&session.custom_title, &session.first_prompt]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .find(|text| !text.trim().is_empty())
        .unwrap_or(&session.summary)
}

/// The sessions as a table, newest first as given.
pub fn print_table(sessions: &[SessionInfo], out: &mut impl Write) -> std::io::Result<()> {
    if sessions.is_empty() {
        return writeln!(out, "no sessions");
    }
    writeln!(
        out,
        "{:<36}  {:<16}  {:<12}  TITLE OR FIRST PROMPT",
        "ID", "MODIFIED", "TAG"
    )?;
    for session in sessions {
        let mut summary = sanitize(label(session)).replace('\n', " ");
        if session.archived == Some(true) {
            summary.push_str(" (archived)");
        }
        writeln!(
            out,
            "{:<36}  {:<16}  {:<12}  {}",
            session.session_id,
            modified(session.last_modified),
            sanitize(session.tag.as_deref().unwrap_or("")),
            crate::run::truncate(&summary, 80)
        )?;
    }
    Ok(())
}

/// `2026-11-25 19:46` (UTC) for milliseconds since the epoch.
fn modified(millis: i64) -> String {
    let at = time::OffsetDateTime::from_unix_timestamp(millis.div_euclid(1000))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_listed_by_its_title_else_its_first_prompt() {
        let mut session = SessionInfo {
            session_id: "s".to_owned(),
            summary: "the latest prompt".to_owned(),
            last_modified: 0,
            file_size: None,
            custom_title: None,
            first_prompt: Some("the first prompt".to_owned()),
            git_branch: None,
            cwd: None,
            tag: None,
            created_at: None,
            archived: None,
        };
        assert_eq!(label(&session), "the first prompt");
        session.custom_title = Some("Fix the parser".to_owned());
        assert_eq!(label(&session), "Fix the parser");
        session.custom_title = None;
        session.first_prompt = None;
        assert_eq!(label(&session), "the latest prompt");
        let mut table = Vec::new();
        session.first_prompt = Some("the first prompt".to_owned());
        print_table(std::slice::from_ref(&session), &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(table.contains("the first prompt"), "{table}");
        assert!(!table.contains("the latest prompt"), "{table}");
    }
}
