//! `twinwire check`: parse every frame of NDJSON files or recorded transcripts and report what
//! did not parse, and what came back as a kind this version does not know; with `--coverage`,
//! also the fields and hook events the typed schema does not know yet ([`untyped`]).
//!
//! A file that is not text ([`text`]) or not NDJSON is one finding, and each file shows the
//! first [`SHOWN_PER_FILE`] findings of a section, with the count of the rest ([`findings`]).

mod correlation;
mod findings;
mod text;
pub mod untyped;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde_json::Value;
use twinwire_protocol::framing::{LineError, LineReader, DEFAULT_MAX_LINE_LENGTH};
use twinwire_protocol::recording::{self, RecordLine};
use twinwire_protocol::{coverage, DecodeError, InputMessage, Message, Repair};

use correlation::Correlation;
use findings::{thousands, FileFindings, Finding, NotShown, Section, SHOWN_PER_FILE};

/// Which side wrote the frames of a file without direction markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Frames the CLI wrote (stdout).
    Out,
    /// Frames a host wrote (the CLI's stdin).
    In,
}

/// Options of `twinwire check`.
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
    /// Show every finding; without it, each file shows the first 20 of each section and
    /// counts the rest.
    #[arg(long)]
    pub all: bool,
    /// Longest line accepted, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_LENGTH)]
    pub max_line_length: usize,
}

/// How many findings each section holds, shown or not.
#[derive(Debug, Default, Serialize)]
pub struct Found {
    errors: usize,
    warnings: usize,
    unknown_listed: usize,
    unknown_unlisted: usize,
}

/// The whole report.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    files: usize,
    frames: usize,
    /// `out kind` / `in kind` → count.
    counts: BTreeMap<String, usize>,
    errors: Vec<Finding>,
    /// Frames that do not fit the schema the way a real peer writes them (the reason says
    /// which), read anyway.
    warnings: Vec<Finding>,
    /// Unknown kinds that the official TypeScript SDK's type file lists: a schema gap.
    unknown_listed: Vec<Finding>,
    /// Unknown kinds nobody lists (new CLI features, deliberate probes): forward-compatible.
    unknown_unlisted: Vec<Finding>,
    /// Per section, the findings in all (the lists above may show fewer).
    found: Found,
    /// Findings left out of the lists above, per file and section (without `--all`).
    not_shown: Vec<NotShown>,
    /// Typed control responses checked against the request they answer.
    responses_checked: usize,
    /// With `--coverage`: what the schema does not type.
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<untyped::Coverage>,
}

impl Report {
    /// Whether the check failed: a frame did not parse, or a listed kind came back unknown.
    pub fn failed(&self) -> bool {
        self.found.errors > 0 || self.found.unknown_listed > 0
    }

    /// Takes the findings of a file that has been read.
    fn add(&mut self, file: FileFindings) {
        let name = file.file().to_owned();
        for part in file.join() {
            let (list, total) = match part.section {
                Section::Errors => (&mut self.errors, &mut self.found.errors),
                Section::Warnings => (&mut self.warnings, &mut self.found.warnings),
                Section::UnknownListed => {
                    (&mut self.unknown_listed, &mut self.found.unknown_listed)
                }
                Section::UnknownUnlisted => {
                    (&mut self.unknown_unlisted, &mut self.found.unknown_unlisted)
                }
            };
            *total += part.total;
            let hidden = part.total - part.shown.len();
            list.extend(part.shown);
            if hidden > 0 {
                self.not_shown.push(NotShown {
                    file: name.clone(),
                    section: part.section,
                    count: hidden,
                });
            }
        }
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
                    // walkdir's own message names the path again: only its cause is added.
                    let why = match (err.loop_ancestor(), err.io_error()) {
                        (Some(_), _) => "a symbolic link loop".to_owned(),
                        (None, Some(io)) => io.to_string(),
                        (None, None) => err.to_string(),
                    };
                    crate::transcript::warn(&format!("check: skipped {at}: {why}"));
                    continue;
                }
                Err(err) => {
                    let listing = format!("listing {}", path.display());
                    return match err.into_io_error() {
                        Some(io) => Err(io).context(listing),
                        None => Err(anyhow::anyhow!("{listing}: cannot be read")),
                    };
                }
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
    let mut file = File::open(path)?;
    let name = path.display().to_string();
    let mut findings = FileFindings::new(&name, (!args.all).then_some(SHOWN_PER_FILE));
    report.files += 1;
    let head = text::read_head(&mut file)?;
    if let Some(why) = text::not_text(&head) {
        let size = file
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|meta| format!(" ({} bytes)", thousands(meta.len() as usize)))
            .unwrap_or_default();
        let message = format!("not a text file: {why}; not read{size}");
        findings.push(
            Section::Errors,
            Finding::new(&name, 0, args.direction, "file", message),
        );
        report.add(findings);
        return Ok(());
    }
    // An over-long line ends the file: an endless one must not hold `check`.
    let input = std::io::Cursor::new(head).chain(file);
    let mut reader = LineReader::new(input, args.max_line_length).ending_at_oversized();
    let mut session = Correlation::default();
    while let Some(item) = reader.next_line()? {
        findings.line_read();
        let (number, text) = match item {
            Ok(line) => line,
            Err(err) => {
                let (number, message) = line_fault(&err);
                let finding = Finding::new(&name, number, args.direction, "?", message);
                if matches!(err, LineError::InvalidUtf8 { .. }) {
                    findings.not_json(finding);
                } else {
                    findings.push(Section::Errors, finding);
                }
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
        check_frame(&frame, at, &mut session, report, &mut findings);
    }
    report.add(findings);
    Ok(())
}

/// A line the reader could not hand out: its number, and why (without the number again).
fn line_fault(err: &LineError) -> (u64, String) {
    match *err {
        LineError::TooLong { len, max, number } => (
            number,
            format!("{len} bytes long, over the limit of {max} bytes (--max-line-length)"),
        ),
        LineError::Unfinished { read, max, number } => (
            number,
            format!(
                "over the limit of {max} bytes ({read} read without a newline); the rest of \
                 the file was not read"
            ),
        ),
        LineError::InvalidUtf8 { offset, number } => (
            number,
            format!("not valid UTF-8 (first bad byte at offset {offset})"),
        ),
        _ => (0, err.to_string()),
    }
}

#[derive(Clone, Copy)]
struct Location<'a> {
    file: &'a str,
    line: u64,
    direction: Direction,
}

/// A frame as the liberal reader read it.
struct ReadFrame {
    kind: String,
    unknown: Option<String>,
    value: Value,
    repairs: Vec<Repair>,
}

fn read(direction: Direction, frame: &str) -> Result<ReadFrame, DecodeError> {
    match direction {
        Direction::Out => Message::decode(frame).map(|m| ReadFrame {
            kind: m.value.kind(),
            unknown: m.value.unknown_kind(),
            value: m.value.to_value(),
            repairs: m.repairs,
        }),
        Direction::In => InputMessage::decode(frame).map(|m| ReadFrame {
            kind: m.value.kind(),
            unknown: m.value.unknown_kind(),
            value: m.value.to_value(),
            repairs: m.repairs,
        }),
    }
}

fn check_frame(
    frame: &str,
    at: Location<'_>,
    session: &mut Correlation,
    report: &mut Report,
    findings: &mut FileFindings,
) {
    let finding = |kind: &str, message: &dyn std::fmt::Display| {
        Finding::new(at.file, at.line, at.direction, kind, message)
    };
    // The liberal reader reads every JSON object; what it had to repair, or keep raw, does
    // not fit the schema and is reported as an error.
    let mut parsed = match read(at.direction, frame) {
        Ok(parsed) => parsed,
        Err(err) => {
            let kind = err.kind().unwrap_or("?").to_owned();
            let found = finding(&kind, &err);
            match err {
                DecodeError::NotJson { .. } => findings.not_json(found),
                _ => findings.push(Section::Errors, found),
            }
            return;
        }
    };
    // Only a frame that did not fit can be a known deviation (the fast path never asks).
    if !parsed.repairs.is_empty() {
        if let Some(deviation) = session.misplaced_id(at.direction, at.line, &parsed.value) {
            findings.push(Section::Warnings, finding(&parsed.kind, &deviation.reason));
            // The rest of the frame is checked as it would have been.
            match read(at.direction, &deviation.frame.to_string()) {
                Ok(fixed) => parsed = fixed,
                Err(err) => findings.push(Section::Errors, finding(&parsed.kind, &err)),
            }
        }
    }
    let ReadFrame {
        kind,
        unknown,
        value,
        repairs,
    } = parsed;
    for repair in &repairs {
        findings.push(Section::Errors, finding(&kind, repair));
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
        let section = if coverage::is_listed(&unknown) {
            Section::UnknownListed
        } else {
            Section::UnknownUnlisted
        };
        findings.push(section, finding(&unknown, &"unknown kind"));
    }
    if let Err(err) = session.observe(at.direction, &value, &mut report.responses_checked) {
        findings.push(Section::Errors, finding(&kind, &err));
    }
}

enum Transcript {
    Frame(Direction, String),
    Meta,
    Plain,
}

/// Recognises the recording format (`twinwire_protocol::recording`).
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
        (
            Section::Errors,
            "errors",
            &report.errors,
            report.found.errors,
        ),
        (
            Section::Warnings,
            "warnings (frames as real peers write them, read anyway)",
            &report.warnings,
            report.found.warnings,
        ),
        (
            Section::UnknownListed,
            "unknown kinds listed by the TypeScript SDK",
            &report.unknown_listed,
            report.found.unknown_listed,
        ),
        (
            Section::UnknownUnlisted,
            "unknown kinds not listed anywhere (kept as Unknown)",
            &report.unknown_unlisted,
            report.found.unknown_unlisted,
        ),
    ];
    for (section, title, findings, total) in sections {
        writeln!(out, "{title}: {}", thousands(total))?;
        for (index, f) in findings.iter().enumerate() {
            if f.line == 0 {
                writeln!(out, "  {}: {}", f.file, f.message)?;
            } else {
                writeln!(out, "  {}:{}: {} {}", f.file, f.line, f.kind, f.message)?;
            }
            let file_ends = findings
                .get(index + 1)
                .is_none_or(|next| next.file != f.file);
            let hidden = report
                .not_shown
                .iter()
                .find(|n| n.section == section && n.file == f.file);
            if let (true, Some(hidden)) = (file_ends, hidden) {
                writeln!(
                    out,
                    "  … and {} more in {} (--all shows every one)",
                    thousands(hidden.count),
                    f.file
                )?;
            }
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
