//! Writing and reading recordings (the format is [`ccwire_protocol::recording`]'s), with the
//! tap's redaction applied to everything written.

pub mod redact;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};
use ccwire_protocol::framing::{LineReader, DEFAULT_MAX_LINE_LENGTH};
use ccwire_protocol::recording::{self, RecordLine};
use serde_json::Value;

pub use ccwire_protocol::recording::Direction;
pub use redact::Redactor;

/// Writes a recording. Shared by the relay tasks; each line is written whole and flushed. A
/// failing write is reported once and ends the recording, never the relay.
#[derive(Debug)]
pub struct Recorder {
    file: Mutex<Option<BufWriter<File>>>,
    start: Instant,
    redactor: Redactor,
}

impl Recorder {
    /// Creates (or truncates) `path`, readable and writable by its owner only (`0600`): a
    /// recording holds whole conversations. An existing file is narrowed to `0600` too.
    pub fn create(path: &Path, redactor: Redactor) -> anyhow::Result<Self> {
        let file = private_file(path)
            .with_context(|| format!("creating the recording {}", path.display()))?;
        Ok(Self {
            file: Mutex::new(Some(BufWriter::new(file))),
            start: Instant::now(),
            redactor,
        })
    }

    /// The first line: the CLI, its arguments and its environment, secrets redacted.
    pub fn meta(&self, cli: &str, argv: &[String], env: &[(String, String)]) {
        let env: serde_json::Map<String, Value> = env
            .iter()
            .map(|(name, value)| {
                let value = self.redactor.env_value(name, value);
                (name.clone(), Value::String(value))
            })
            .collect();
        let argv: Vec<String> = argv
            .iter()
            .map(|arg| self.redactor.text(arg).into_owned())
            .collect();
        let line = recording::meta_line(&self.redactor.text(cli), argv, env);
        self.write(&line);
    }

    /// One relayed line, as `msg` when it is JSON and `raw` when it is not.
    pub fn frame(&self, dir: Direction, line: &str) {
        self.frame_marked(dir, line, None, None);
    }

    /// A frame the tap handled itself (`tap`: why, e.g. `policy`; `rule`: the policy rule).
    pub fn frame_marked(&self, dir: Direction, line: &str, tap: Option<&str>, rule: Option<&str>) {
        let frame = if serde_json::from_str::<&serde_json::value::RawValue>(line).is_ok() {
            self.redactor.json_line(line)
        } else {
            self.redactor.text(line)
        };
        let out = recording::frame_line(dir, self.seconds(), &frame, tap, rule);
        self.write(&out);
    }

    /// A line that could not be relayed, and why.
    pub fn dropped(&self, dir: Direction, reason: &str) {
        let out = recording::dropped_line(dir, self.seconds(), reason);
        self.write(&out);
    }

    fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn write(&self, line: &str) {
        let mut guard = match self.file.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let Some(file) = guard.as_mut() else { return };
        let written = file
            .write_all(line.as_bytes())
            .and_then(|()| file.write_all(b"\n"))
            .and_then(|()| file.flush());
        if let Err(err) = written {
            warn(&format!("tap: recording stopped: {err}"));
            *guard = None;
        }
    }
}

/// Creates or truncates `path` with mode `0600`, and narrows an existing file to it.
pub fn private_file(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

/// One `in` or `out` line of a recording.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its 1-based line number in the file.
    pub line: u64,
    /// Which way it went.
    pub dir: Direction,
    /// The frame's text: the JSON of `msg` as written, or the `raw` line.
    pub text: String,
    /// The parsed frame, when it is JSON (`msg`).
    pub value: Option<Value>,
    /// The `tap` marker: the frame never reached the host.
    pub tap: Option<String>,
    /// The line was dropped by the tap (`dropped`): nothing reached the other side.
    pub dropped: bool,
}

/// Reads the `in` and `out` lines of a recording (the `meta` line and other directions are
/// skipped).
pub fn load(path: &Path) -> anyhow::Result<Vec<Entry>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut reader = LineReader::new(file, DEFAULT_MAX_LINE_LENGTH).ending_at_oversized();
    let mut entries = Vec::new();
    let reading = || format!("reading {}", path.display());
    while let Some(item) = reader.next_line().with_context(reading)? {
        let (number, text) = item.with_context(reading)?;
        let record = RecordLine::parse(&text)
            .with_context(|| format!("{}:{number}: not a recording line", path.display()))?;
        let Some(dir) = record.direction() else {
            continue;
        };
        let (text, value) = match (record.msg, &record.raw) {
            (Some(msg), _) => {
                let value = serde_json::from_str(msg.get())
                    .with_context(|| format!("{}:{number}: bad msg", path.display()))?;
                (msg.get().to_owned(), Some(value))
            }
            (None, Some(raw)) => (raw.clone(), None),
            (None, None) if record.dropped.is_some() => (String::new(), None),
            (None, None) => bail!("{}:{number}: neither msg nor raw", path.display()),
        };
        entries.push(Entry {
            line: number,
            dir,
            text,
            value,
            tap: record.tap,
            dropped: record.dropped.is_some(),
        });
    }
    Ok(entries)
}

/// Writes `ccwire <message>` to stderr; the message starts with the subcommand (`tap: …`).
pub fn warn(message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "ccwire {message}");
}
