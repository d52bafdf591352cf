//! `twinwire replay`: play the CLI's side of a recording to a host, and check that the host
//! sends what the recording says it sent.
//!
//! The recording is walked in order. An `out` frame is written to stdout as recorded (a
//! `control_response` to one of the host's requests gets the host's live `request_id`). A run of
//! consecutive `in` frames is read from stdin, each host frame matched against the run's
//! frames still open (so concurrent answers may come in any order within the run) with
//! [`matching`]. The first frame that matches nothing, a host that goes quiet for `--timeout`, or
//! one that closes its input too early ends the replay with a diff on stderr and exit code 1.
//! After the last frame the replay waits up to `--grace` for the host to close its input.
//!
//! Frames the tap answered itself (`"tap"` set) and lines it dropped never reached the host
//! and are skipped. `-v` / `--version` among the CLI arguments prints the recorded CLI's
//! version instead ([`version`]). Without `--strict`, `keep_alive` and `control_cancel_request` frames are
//! spontaneous: the host may send them anywhere (they are ignored) and the recorded ones are
//! not waited for.

mod matching;
mod version;

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::time::Instant;
use twinwire_protocol::framing::{LineDecoder, LineError, DEFAULT_MAX_LINE_LENGTH};

use crate::pipe;
use crate::transcript::{self, warn, Direction, Entry};
use matching::{Frame, FrameRef};

/// Exit code when the host diverged from the recording.
const EXIT_DIVERGED: u8 = 1;
/// Exit code when the recording could not be read.
const EXIT_REPLAY_FAILED: u8 = 2;

/// Options of `twinwire replay`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
MATCHING:
  A host frame matches a recorded one when the kind is the same (type, subtype,
  request.subtype, response.subtype) and so are the key fields: a user message's text; a
  control request's model / mode / max_thinking_tokens / server name / enabled; a control
  response's behavior / decision / continue / permissionDecision / action and whether an MCP
  answer is a result or an error. Ids, uuids, timestamps and session ids never count. A
  recorded <redacted N chars> matches any N characters.

USE AS AN SDK'S CLI PATH:
  #!/bin/sh
  exec twinwire replay /path/to/recording.jsonl \"$@\"
  (the CLI arguments the SDK passes after the transcript are accepted and ignored, except
  -v / --version: that prints the version the recording's CLI reported, as Claude Code
  prints its own (`2.1.330 (Claude Code)`), and exits 0)

EXIT STATUS:
  0 when the host did what the recording says, 1 on the first divergence (a diff goes to
  stderr), 2 when the recording cannot be read.")]
pub struct ReplayArgs {
    /// A recording made by `twinwire tap`, or a reference transcript.
    pub transcript: PathBuf,
    /// Every host frame must be in the recording: keep_alive and control_cancel_request too.
    #[arg(long)]
    pub strict: bool,
    /// How long to wait for each frame the recording expects from the host.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// After the last recorded frame, how long to wait for the host to close its input.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    pub grace: f64,
    /// The CLI arguments a host passes (accepted and ignored; -v or --version prints the
    /// recorded CLI's version).
    #[arg(
        value_name = "CLI ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub cli_args: Vec<OsString>,
}

/// Runs the replay; returns the exit code.
pub fn run(args: ReplayArgs) -> u8 {
    let entries = match transcript::load(&args.transcript) {
        Ok(entries) => entries,
        Err(err) => {
            warn(&format!("replay: {err:#}"));
            return EXIT_REPLAY_FAILED;
        }
    };
    if version::asks_version(&args.cli_args) {
        let line = version::version_line(&entries);
        let mut out = std::io::stdout().lock();
        return match writeln!(out, "{line}").and_then(|()| out.flush()) {
            Ok(()) => 0,
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => pipe::reader_left(),
            Err(err) => {
                warn(&format!("replay: writing the version: {err}"));
                EXIT_REPLAY_FAILED
            }
        };
    }
    let (Some(timeout), Some(grace)) = (seconds(args.timeout), seconds(args.grace)) else {
        warn("replay: --timeout and --grace take a number of seconds");
        return EXIT_REPLAY_FAILED;
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            warn(&format!("replay: starting the async runtime: {err}"));
            return EXIT_REPLAY_FAILED;
        }
    };
    let mut replay = Replay {
        entries: &entries,
        name: args.transcript.display().to_string(),
        strict: args.strict,
        timeout,
        grace,
        host: HostReader::new(tokio::io::stdin()),
        out: BufWriter::new(tokio::io::stdout()),
        ids: HashMap::new(),
    };
    let outcome = runtime.block_on(replay.play());
    // The host may keep our stdin open (a blocking read in flight): do not wait for it.
    drop(replay);
    runtime.shutdown_background();
    match outcome {
        Ok(()) => 0,
        Err(Stop::ReaderLeft) => pipe::reader_left(),
        Err(Stop::Diverged(report)) => {
            let mut err = std::io::stderr().lock();
            let written = err.write_all(report.as_bytes()).and_then(|()| err.flush());
            if written.is_err_and(|err| err.kind() == std::io::ErrorKind::BrokenPipe) {
                pipe::reader_left();
            }
            EXIT_DIVERGED
        }
    }
}

fn seconds(value: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(value).ok()
}

/// Why a replay stopped before its end.
enum Stop {
    /// The host diverged from the recording: the report to print.
    Diverged(String),
    /// Nobody reads our stdout any more.
    ReaderLeft,
}

impl From<String> for Stop {
    fn from(report: String) -> Self {
        Self::Diverged(report)
    }
}

/// A replay in progress.
struct Replay<'a, R, W: AsyncWrite> {
    entries: &'a [Entry],
    name: String,
    strict: bool,
    timeout: Duration,
    grace: Duration,
    host: HostReader<R>,
    out: BufWriter<W>,
    /// Recorded request id of a host request → the id the host used this time.
    ids: HashMap<String, String>,
}

/// What reading the host gave.
enum Received {
    Frame(u64, Frame),
    Dropped(LineError),
    Eof,
    Timeout,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Replay<'_, R, W> {
    async fn play(&mut self) -> Result<(), Stop> {
        let entries = self.entries;
        let mut at = 0;
        while at < entries.len() {
            let entry = &entries[at];
            if self.skipped(entry) {
                at += 1;
                continue;
            }
            if entry.dir == Direction::Out {
                self.write_out(entry).await?;
                at += 1;
                continue;
            }
            self.flush().await?;
            let mut pending = Vec::new();
            while at < entries.len()
                && (entries[at].dir == Direction::In || self.skipped(&entries[at]))
            {
                if !self.skipped(&entries[at]) {
                    pending.push(at);
                }
                at += 1;
            }
            self.expect(pending).await?;
        }
        self.flush().await?;
        self.wait_for_close().await
    }

    /// Whether a recorded frame is left out of the replay.
    fn skipped(&self, entry: &Entry) -> bool {
        entry.tap.is_some()
            || entry.dropped
            || (!self.strict && entry.dir == Direction::In && spontaneous(FrameRef::from(entry)))
    }

    /// Reads host frames until each of `pending` (indices of recorded `in` frames) matched one.
    async fn expect(&mut self, mut pending: Vec<usize>) -> Result<(), Stop> {
        let entries = self.entries;
        while let Some(&first) = pending.first() {
            let expected = &entries[first];
            match self.host.next(self.timeout).await {
                Received::Frame(number, frame) => {
                    let found = pending.iter().position(|&index| {
                        matching::matches(FrameRef::from(&entries[index]), frame.view())
                    });
                    if let Some(position) = found {
                        let index = pending.remove(position);
                        self.learn_id(&entries[index], &frame);
                    } else if self.strict || !spontaneous(frame.view()) {
                        let why = "the host sent a different frame";
                        return Err(self
                            .report(why, Some(expected), Some((number, &frame)))
                            .into());
                    }
                }
                Received::Dropped(err) => {
                    let why = format!("the host sent a line that could not be read: {err}");
                    return Err(self.report(&why, Some(expected), None).into());
                }
                Received::Eof => {
                    let why = "the host closed its input before sending this frame";
                    return Err(self.report(why, Some(expected), None).into());
                }
                Received::Timeout => {
                    let why = format!(
                        "no frame from the host within {:.1} s",
                        self.timeout.as_secs_f64()
                    );
                    return Err(self.report(&why, Some(expected), None).into());
                }
            }
        }
        Ok(())
    }

    /// After the last frame: the host should close its input, sending nothing new.
    async fn wait_for_close(&mut self) -> Result<(), Stop> {
        let deadline = Instant::now() + self.grace;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.host.next(left).await {
                Received::Eof | Received::Timeout => return Ok(()),
                Received::Frame(_, frame) if !self.strict && spontaneous(frame.view()) => {}
                Received::Frame(number, frame) => {
                    let why = "the host sent a frame after the end of the recording";
                    return Err(self.report(why, None, Some((number, &frame))).into());
                }
                Received::Dropped(err) => {
                    let why = format!("the host sent a line that could not be read: {err}");
                    return Err(self.report(&why, None, None).into());
                }
            }
        }
    }

    /// Remembers the live id of a host request the recording holds.
    fn learn_id(&mut self, recorded: &Entry, live: &Frame) {
        let recorded_id = FrameRef::from(recorded).request_id();
        if let (Some(recorded_id), Some(live_id)) = (recorded_id, live.view().request_id()) {
            self.ids.insert(recorded_id.to_owned(), live_id.to_owned());
        }
    }

    async fn write_out(&mut self, entry: &Entry) -> Result<(), Stop> {
        let mapped = entry
            .value
            .as_ref()
            .and_then(|value| self.with_live_id(value));
        let text = mapped.as_deref().unwrap_or(&entry.text);
        let written = async {
            self.out.write_all(text.as_bytes()).await?;
            self.out.write_all(b"\n").await
        };
        written.await.map_err(|err| self.io_failure(&err))
    }

    /// A recorded answer to a host request, carrying the host's live id.
    fn with_live_id(&self, value: &Value) -> Option<String> {
        if value.get("type")? != "control_response" {
            return None;
        }
        let recorded = value.pointer("/response/request_id")?.as_str()?;
        let live = self.ids.get(recorded).filter(|live| *live != recorded)?;
        let mut value = value.clone();
        value["response"]["request_id"] = Value::String(live.clone());
        Some(value.to_string())
    }

    async fn flush(&mut self) -> Result<(), Stop> {
        self.out.flush().await.map_err(|err| self.io_failure(&err))
    }

    fn io_failure(&self, err: &std::io::Error) -> Stop {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return Stop::ReaderLeft;
        }
        Stop::Diverged(format!(
            "twinwire replay: writing to the host failed ({err}) while replaying {}\n",
            self.name
        ))
    }

    /// The divergence report: what was expected, what came, the differing fields, both frames.
    fn report(
        &self,
        why: &str,
        expected: Option<&Entry>,
        received: Option<(u64, &Frame)>,
    ) -> String {
        let mut text = format!(
            "twinwire replay: the host diverged from {}: {why}\n",
            self.name
        );
        match expected {
            Some(entry) => {
                let frame = FrameRef::from(entry);
                text += &format!(
                    "  expected: {} (recording line {})\n",
                    frame.kind(),
                    entry.line
                );
            }
            None => text += "  expected: nothing more (the recording has ended)\n",
        }
        if let Some((number, frame)) = received {
            text += &format!("  received: {} (host line {number})\n", frame.view().kind());
        }
        if let (Some(entry), Some((_, frame))) = (expected, received) {
            for diff in matching::diff(FrameRef::from(entry), frame.view()) {
                text += &format!(
                    "  field {}: recorded {}, received {}\n",
                    diff.field, diff.recorded, diff.received
                );
            }
        }
        if let Some(entry) = expected {
            let pretty = FrameRef::from(entry).pretty();
            text += &format!("--- recorded ({}:{})\n{pretty}\n", self.name, entry.line);
        }
        if let Some((number, frame)) = received {
            let pretty = frame.view().pretty();
            text += &format!("+++ received (host line {number})\n{pretty}\n");
        }
        text
    }
}

/// Frames a host may send at any time: `keep_alive`, `control_cancel_request`.
fn spontaneous(frame: FrameRef<'_>) -> bool {
    matches!(
        frame.frame_type(),
        Some("keep_alive" | "control_cancel_request")
    )
}

/// The host's frames, one line at a time, with a time limit per line.
struct HostReader<R> {
    reader: R,
    decoder: LineDecoder,
    eof: bool,
}

impl<R: AsyncRead + Unpin> HostReader<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            decoder: LineDecoder::with_max_line_length(DEFAULT_MAX_LINE_LENGTH),
            eof: false,
        }
    }

    async fn next(&mut self, limit: Duration) -> Received {
        let deadline = Instant::now() + limit;
        loop {
            let item = if self.eof {
                self.decoder.finish()
            } else {
                self.decoder.next_line()
            };
            match item {
                Some(Ok(line)) => return Received::Frame(line.number, Frame::parse(line.text)),
                Some(Err(err)) => return Received::Dropped(err),
                None if self.eof => return Received::Eof,
                None => {}
            }
            let buf = self.decoder.append_buffer();
            buf.reserve(64 * 1024);
            match tokio::time::timeout_at(deadline, self.reader.read_buf(buf)).await {
                Err(_) => return Received::Timeout,
                Ok(Ok(0)) | Ok(Err(_)) => self.eof = true,
                Ok(Ok(_)) => {}
            }
        }
    }
}
