//! `ccwire check`: parse every frame of NDJSON files or recorded transcripts and report what
//! did not parse, and what came back as a kind this version does not know; with `--coverage`,
//! also the fields and hook events the typed schema does not know yet ([`untyped`]).

pub mod untyped;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use ccwire_protocol::framing::{LineError, LineReader, DEFAULT_MAX_LINE_LENGTH};
use ccwire_protocol::recording::{self, RecordLine};
use ccwire_protocol::{coverage, DecodeError, InputMessage, Message};
use serde::Serialize;
use serde_json::Value;

/// Which side wrote the frames of a file without direction markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Frames the CLI wrote (stdout).
    Out,
    /// Frames a host wrote (the CLI's stdin).
    In,
}

/// Options of `ccwire check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// NDJSON files of one direction, or transcripts of `{"dir","t","msg"}` lines. A directory
    /// stands for every `*.jsonl` file below it except `*.api.jsonl` (HTTP request logs).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Direction of plain NDJSON files (transcripts carry their own).
    #[arg(long, value_enum, default_value = "out")]
    pub direction: Direction,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also report the fields the typed schema keeps untyped and the hook events seen.
    #[arg(long)]
    pub coverage: bool,
    /// Longest line accepted, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_LENGTH)]
    pub max_line_length: usize,
}

/// One frame that failed, or came back unknown.
#[derive(Debug, Serialize)]
pub struct Finding {
    file: String,
    line: u64,
    direction: Direction,
    kind: String,
    message: String,
}

/// The whole report.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    files: usize,
    frames: usize,
    /// `out kind` / `in kind` → count.
    counts: BTreeMap<String, usize>,
    errors: Vec<Finding>,
    /// Unknown kinds that the official TypeScript SDK's type file lists: a schema gap.
    unknown_listed: Vec<Finding>,
    /// Unknown kinds nobody lists (new CLI features, deliberate probes): forward-compatible.
    unknown_unlisted: Vec<Finding>,
    /// Typed control responses checked against the request they answer.
    responses_checked: usize,
    /// With `--coverage`: what the schema does not type.
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<untyped::Coverage>,
}

impl Report {
    /// Whether the check failed: a frame did not parse, or a listed kind came back unknown.
    pub fn failed(&self) -> bool {
        !self.errors.is_empty() || !self.unknown_listed.is_empty()
    }
}

/// Runs the check and prints the report; returns whether it passed.
pub fn run(args: &CheckArgs, out: &mut impl Write) -> anyhow::Result<bool> {
    let mut report = Report {
        coverage: args.coverage.then(untyped::Coverage::default),
        ..Report::default()
    };
    for path in expand(&args.files)? {
        check_file(&path, args, &mut report)
            .with_context(|| format!("reading {}", path.display()))?;
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        print_table(&report, out)?;
    }
    Ok(!report.failed())
}

/// Lists the files to read: files as given (whatever their kind: a pipe or a device named
/// on the command line is read), directories walked in sorted order (`walkdir`: symbolic links
/// followed, loops reported and skipped, only regular `*.jsonl` files, not `*.api.jsonl`).
fn expand(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let walk = walkdir::WalkDir::new(path)
            .follow_links(true)
            .sort_by_file_name();
        for entry in walk {
            let entry = match entry {
                Ok(entry) => entry,
                // A loop (a link to an ancestor, or links to each other) or an entry that
                // cannot be read is skipped with a warning; the directory given must be read.
                Err(err) if err.depth() > 0 => {
                    let at = err
                        .path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default();
                    let why = if err.loop_ancestor().is_some() {
                        "a symbolic link loop".to_owned()
                    } else {
                        err.to_string()
                    };
                    crate::transcript::warn(&format!("check: skipped {at}: {why}"));
                    continue;
                }
                Err(err) => return Err(err).with_context(|| format!("listing {}", path.display())),
            };
            let name = entry.file_name().to_str().unwrap_or_default();
            if entry.file_type().is_file()
                && name.ends_with(".jsonl")
                && !name.ends_with(".api.jsonl")
            {
                files.push(entry.into_path());
            }
        }
    }
    Ok(files)
}

/// Checks one file, adding to `report`.
pub fn check_file(path: &Path, args: &CheckArgs, report: &mut Report) -> anyhow::Result<()> {
    let file = File::open(path)?;
    let name = path.display().to_string();
    // An over-long line ends the file: an endless one (`/dev/zero`) must not hold `check`.
    let mut reader = LineReader::new(file, args.max_line_length).ending_at_oversized();
    let mut session = Correlation::default();
    report.files += 1;
    while let Some(item) = reader.next_line()? {
        let (number, text) = match item {
            Ok(line) => line,
            Err(err) => {
                let line = match err {
                    LineError::TooLong { number, .. }
                    | LineError::InvalidUtf8 { number, .. }
                    | LineError::Unfinished { number, .. } => number,
                    _ => 0,
                };
                report
                    .errors
                    .push(finding(&name, line, args.direction, "?", err));
                continue;
            }
        };
        let (direction, frame) = match split_transcript_line(&text) {
            Transcript::Frame(direction, frame) => (direction, frame),
            Transcript::Meta => continue,
            Transcript::Plain => (args.direction, text),
        };
        report.frames += 1;
        let at = Location {
            file: &name,
            line: number,
            direction,
        };
        check_frame(&frame, at, &mut session, report);
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct Location<'a> {
    file: &'a str,
    line: u64,
    direction: Direction,
}

fn check_frame(frame: &str, at: Location<'_>, session: &mut Correlation, report: &mut Report) {
    // The liberal reader reads every JSON object; what it had to repair, or keep raw, does
    // not fit the schema and is reported as an error.
    let parsed = match at.direction {
        Direction::Out => Message::decode(frame).map(|m| {
            (
                m.value.kind(),
                m.value.unknown_kind(),
                m.value.to_value(),
                m.repairs,
            )
        }),
        Direction::In => InputMessage::decode(frame).map(|m| {
            (
                m.value.kind(),
                m.value.unknown_kind(),
                m.value.to_value(),
                m.repairs,
            )
        }),
    };
    let (kind, unknown, value, repairs) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            let kind = err.kind().unwrap_or("?").to_owned();
            report
                .errors
                .push(finding(at.file, at.line, at.direction, &kind, err));
            return;
        }
    };
    for repair in &repairs {
        report
            .errors
            .push(finding(at.file, at.line, at.direction, &kind, repair));
    }
    let label = match at.direction {
        Direction::Out => "out",
        Direction::In => "in",
    };
    *report.counts.entry(format!("{label} {kind}")).or_default() += 1;
    if let Some(coverage) = &mut report.coverage {
        if repairs.is_empty() && unknown.is_none() {
            coverage.add(at.direction, &kind, &value);
        }
    }
    if let Some(unknown) = unknown {
        let listed = coverage::is_listed(&unknown);
        let found = finding(at.file, at.line, at.direction, &unknown, "unknown kind");
        if listed {
            report.unknown_listed.push(found);
        } else {
            report.unknown_unlisted.push(found);
        }
    }
    if let Err(err) = session.observe(at.direction, &value, report) {
        report
            .errors
            .push(finding(at.file, at.line, at.direction, &kind, err));
    }
}

/// Remembers the subtype of each control request so that the success response to it can be
/// parsed as that subtype's typed response.
#[derive(Default)]
struct Correlation {
    pending: HashMap<(bool, String), String>,
}

impl Correlation {
    fn observe(
        &mut self,
        direction: Direction,
        frame: &Value,
        report: &mut Report,
    ) -> Result<(), DecodeError> {
        let from_host = direction == Direction::In;
        match frame.get("type").and_then(Value::as_str) {
            Some("control_request") => {
                let id = frame.get("request_id").and_then(Value::as_str);
                let subtype = frame.pointer("/request/subtype").and_then(Value::as_str);
                if let (Some(id), Some(subtype)) = (id, subtype) {
                    self.pending
                        .insert((from_host, id.to_owned()), subtype.to_owned());
                }
                Ok(())
            }
            Some("control_response") => {
                let Some(id) = frame
                    .pointer("/response/request_id")
                    .and_then(Value::as_str)
                else {
                    return Ok(());
                };
                // The response travels the other way from its request.
                let Some(subtype) = self.pending.remove(&(!from_host, id.to_owned())) else {
                    return Ok(());
                };
                let is_success =
                    frame.pointer("/response/subtype").and_then(Value::as_str) == Some("success");
                let payload = frame.pointer("/response/response");
                match (is_success, payload) {
                    (true, Some(payload)) => {
                        if let Some(result) = coverage::check_response(&subtype, payload) {
                            report.responses_checked += 1;
                            result?;
                        }
                        Ok(())
                    }
                    _ => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

enum Transcript {
    Frame(Direction, String),
    Meta,
    Plain,
}

/// Recognises the recording format (`ccwire_protocol::recording`).
fn split_transcript_line(text: &str) -> Transcript {
    let Ok(recorded) = RecordLine::parse(text) else {
        return Transcript::Plain;
    };
    let direction = match recorded.direction() {
        Some(recording::Direction::Out) => Direction::Out,
        Some(recording::Direction::In) => Direction::In,
        None => return Transcript::Meta,
    };
    match recorded.msg {
        Some(msg) => Transcript::Frame(direction, msg.get().to_owned()),
        None => Transcript::Meta,
    }
}

fn finding(
    file: &str,
    line: u64,
    direction: Direction,
    kind: &str,
    message: impl std::fmt::Display,
) -> Finding {
    Finding {
        file: file.to_owned(),
        line,
        direction,
        kind: kind.to_owned(),
        message: message.to_string(),
    }
}

fn print_table(report: &Report, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{:<58} {:>7}", "kind", "frames")?;
    for (kind, count) in &report.counts {
        writeln!(out, "{kind:<58} {count:>7}")?;
    }
    writeln!(
        out,
        "\n{} files, {} frames, {} typed control responses checked",
        report.files, report.frames, report.responses_checked
    )?;
    let sections = [
        ("errors", &report.errors),
        (
            "unknown kinds listed by the TypeScript SDK",
            &report.unknown_listed,
        ),
        (
            "unknown kinds not listed anywhere (kept as Unknown)",
            &report.unknown_unlisted,
        ),
    ];
    for (title, findings) in sections {
        writeln!(out, "{title}: {}", findings.len())?;
        for f in findings {
            writeln!(out, "  {}:{}: {} {}", f.file, f.line, f.kind, f.message)?;
        }
    }
    if let Some(coverage) = &report.coverage {
        writeln!(
            out,
            "fields kept untyped (in extra maps or as raw JSON): {}",
            coverage.untyped_fields.len()
        )?;
        for (field, count) in &coverage.untyped_fields {
            writeln!(out, "  {field:<70} {count:>7}")?;
        }
        writeln!(out, "hook events (? = not in the schema):")?;
        for (event, count) in &coverage.hook_events {
            writeln!(out, "  {event:<70} {count:>7}")?;
        }
    }
    Ok(())
}
