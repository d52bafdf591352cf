//! Writing and reading recordings (the format is [`twinwire_protocol::recording`]'s), with the
//! tap's redaction applied to everything written.

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::Value;
use twinwire_protocol::framing::{LineReader, DEFAULT_MAX_LINE_LENGTH};
use twinwire_protocol::recording::{self, RecordLine};

pub use twinwire::redact;
use twinwire::redact::stream::{self, Blocks, Settled, StreamFrame};
use twinwire::redact::KnownSecrets;
pub use twinwire::redact::Redactor;
pub use twinwire_protocol::recording::Direction;

/// Lines a recording may hold back at most (behind streamed deltas whose block has not shown
/// enough text yet); past either limit everything held is redacted with what is known and
/// written.
const MAX_HELD_LINES: usize = 16 * 1024;
/// Bytes a recording may hold back at most (see [`MAX_HELD_LINES`]).
const MAX_HELD_BYTES: usize = 16 * 1024 * 1024;

/// Writes a recording. Shared by the relay tasks; each line is written whole and flushed. A
/// failing write is reported once and ends the recording, never the relay.
///
/// Streamed text deltas are held back until their block has shown enough text after them to
/// see a secret cut across deltas ([`redact::stream`]), and the lines after them wait in
/// order: the recording lags by at most [`redact::stream::LOOKAHEAD`] bytes of a block's
/// text (and [`MAX_HELD_LINES`] / [`MAX_HELD_BYTES`]), and is complete when the block, the
/// message or the turn ends, or the recorder is dropped.
#[derive(Debug)]
pub struct Recorder {
    state: Mutex<State>,
    start: Instant,
    redactor: Redactor,
}

#[derive(Debug)]
struct State {
    file: Option<BufWriter<File>>,
    /// Lines not written yet, in order; the first has id `next_id - queue.len()`.
    queue: VecDeque<Slot>,
    queued_bytes: usize,
    next_id: u64,
    blocks: Blocks,
}

/// A line of the recording waiting its turn.
#[derive(Debug)]
enum Slot {
    /// The recording line, redacted.
    Ready(String),
    /// A delta whose redaction waits for the text after it.
    Held(HeldDelta),
}

#[derive(Debug)]
struct HeldDelta {
    line: String,
    /// The escaped text of the delta in `line`.
    interior: Range<usize>,
    t: f64,
    tap: Option<String>,
    rule: Option<String>,
}

impl Recorder {
    /// Creates (or truncates) `path`, readable and writable by its owner only (`0600`): a
    /// recording holds whole conversations. An existing file is narrowed to `0600` too.
    pub fn create(path: &Path, redactor: Redactor) -> anyhow::Result<Self> {
        let file = private_file(path)
            .with_context(|| format!("creating the recording {}", path.display()))?;
        Ok(Self {
            state: Mutex::new(State {
                file: Some(BufWriter::new(file)),
                queue: VecDeque::new(),
                queued_bytes: 0,
                next_id: 0,
                blocks: Blocks::default(),
            }),
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
        let argv = self.redactor.argv(argv);
        let line = recording::meta_line(&self.redactor.text(cli), argv, env);
        self.lock().push(Slot::Ready(line));
    }

    /// One relayed line, as `msg` when it is JSON and `raw` when it is not.
    pub fn frame(&self, dir: Direction, line: &str) {
        self.frame_marked(dir, line, None, None);
    }

    /// A frame the tap handled itself (`tap`: why, e.g. `policy`; `rule`: the policy rule).
    pub fn frame_marked(&self, dir: Direction, line: &str, tap: Option<&str>, rule: Option<&str>) {
        // A frame that means something to a stream was parsed whole: it is JSON.
        let stream = match dir {
            Direction::Out => stream::classify(line),
            Direction::In => None,
        };
        let is_json =
            stream.is_some() || serde_json::from_str::<&serde_json::value::RawValue>(line).is_ok();
        if let Some(StreamFrame::Delta {
            key,
            text,
            interior,
        }) = stream
        {
            let mut state = self.lock();
            let held = HeldDelta {
                line: line.to_owned(),
                interior,
                t: self.seconds(),
                tap: tap.map(str::to_owned),
                rule: rule.map(str::to_owned),
            };
            let id = state.push(Slot::Held(held));
            let mut settled = Vec::new();
            state
                .blocks
                .delta(&self.redactor, key, id, &text, &mut settled);
            self.settle(&mut state, settled);
            return;
        }
        let frame = if is_json {
            self.redactor.json_line(line)
        } else {
            self.redactor.text(line)
        };
        let mut state = self.lock();
        let out = recording::frame_line(dir, self.seconds(), &frame, tap, rule);
        state.push(Slot::Ready(out));
        let mut settled = Vec::new();
        match stream {
            Some(StreamFrame::BlockBoundary(key)) => {
                state.blocks.end_block(&self.redactor, &key, &mut settled);
            }
            Some(StreamFrame::MessageBoundary(parent)) => {
                let parent = parent.as_deref();
                state
                    .blocks
                    .end_message(&self.redactor, parent, &mut settled);
            }
            Some(StreamFrame::TurnEnd) => state.blocks.end_all(&self.redactor, &mut settled),
            Some(StreamFrame::Delta { .. }) | None => {}
        }
        self.settle(&mut state, settled);
    }

    /// A line that could not be relayed, and why.
    pub fn dropped(&self, dir: Direction, reason: &str) {
        let mut state = self.lock();
        let out = recording::dropped_line(dir, self.seconds(), reason);
        state.push(Slot::Ready(out));
        self.settle(&mut state, Vec::new());
    }

    fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Redacts the deltas that are `settled`, holds no more than the limits allow, and writes
    /// the lines that no longer wait.
    fn settle(&self, state: &mut State, mut settled: Vec<Settled>) {
        if state.queue.len() > MAX_HELD_LINES || state.queued_bytes > MAX_HELD_BYTES {
            state.blocks.settle_all(&self.redactor, &mut settled);
        }
        let first = state.next_id - state.queue.len() as u64;
        for delta in settled {
            let Some(slot) = usize::try_from(delta.id - first)
                .ok()
                .and_then(|at| state.queue.get_mut(at))
            else {
                continue;
            };
            if let Slot::Held(held) = slot {
                let known = KnownSecrets {
                    interior: &held.interior,
                    spans: &delta.spans,
                };
                let frame = self.redactor.json_line_with(&held.line, Some(known));
                let line = recording::frame_line(
                    Direction::Out,
                    held.t,
                    &frame,
                    held.tap.as_deref(),
                    held.rule.as_deref(),
                );
                state.queued_bytes = state.queued_bytes - held.line.len() + line.len();
                *slot = Slot::Ready(line);
            }
        }
        state.write_ready();
    }
}

impl Drop for Recorder {
    /// Writes what is still held: the recording ends complete.
    fn drop(&mut self) {
        let mut state = self.lock();
        let mut settled = Vec::new();
        state.blocks.end_all(&self.redactor, &mut settled);
        self.settle(&mut state, settled);
    }
}

impl State {
    /// Queues a line; returns its id.
    fn push(&mut self, slot: Slot) -> u64 {
        self.queued_bytes += match &slot {
            Slot::Ready(line) => line.len(),
            Slot::Held(held) => held.line.len(),
        };
        self.queue.push_back(slot);
        self.next_id += 1;
        if matches!(self.queue.back(), Some(Slot::Ready(_))) && self.queue.len() == 1 {
            self.write_ready();
        }
        self.next_id - 1
    }

    /// Writes the lines at the front that are ready.
    fn write_ready(&mut self) {
        while let Some(Slot::Ready(_)) = self.queue.front() {
            let Some(Slot::Ready(line)) = self.queue.pop_front() else {
                break;
            };
            self.queued_bytes -= line.len();
            self.write(&line);
        }
    }

    fn write(&mut self, line: &str) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let written = file
            .write_all(line.as_bytes())
            .and_then(|()| file.write_all(b"\n"))
            .and_then(|()| file.flush());
        if let Err(err) = written {
            warn(&format!("tap: recording stopped: {err}"));
            self.file = None;
        }
    }
}

/// Creates or truncates `path` with mode `0600`, and narrows an existing file to it.
pub fn private_file(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let file = options.mode(0o600).open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        Ok(file)
    }
    // Elsewhere the file inherits its directory's access list (docs/platforms.md).
    #[cfg(not(unix))]
    options.open(path)
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

/// Writes `twinwire <message>` to stderr; the message starts with the subcommand (`tap: …`).
pub fn warn(message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "twinwire {message}");
}
