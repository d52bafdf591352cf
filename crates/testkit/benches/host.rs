#![allow(clippy::unwrap_used)]
//! What twinwire costs a host, over real pipes: `fake-claude` driven by `twinwire::query`, beside a
//! bare blocking loop on the same fake, with the same script, in the same run.
//!
//! * `flood`: 100,000 `stream_event` and 1,000 `assistant` frames (the `flood` step), then the
//!   result, consumed until the stream ends. Baselines: a `serde_json::Value` parse of every
//!   line, and the pipe read alone (no framing, no parse).
//! * `round_trips`: 2,000 `tool` steps with `ask`, each one `can_use_tool` answered "allow".
//! * `startup`: one text turn, i.e. the fixed cost (spawn, `initialize`, exit) inside the two
//!   above.
//! * `decode`: no process, no pipe: the exact stdout of one bare `flood` and one bare
//!   `round_trips` session, framed and parsed in 64 KiB pieces as twinwire's reader does, typed
//!   (`Message::from_json`) or as `serde_json::Value`, in the fake's key order (the real
//!   CLI's: `type` first in every object). This splits the end-to-end figures into decoding and
//!   everything else.
//!
//! The bare loops replay exactly what twinwire does to the fake: before any timing, one probe run
//! of twinwire with `TWINWIRE_FAKE_RECORD` captures the argv, the environment and the stdin frames
//! (`initialize`, then the user message); the bare loops start the fake with the same argv and
//! environment, write the same frames, and close stdin after the result as twinwire does. Both
//! sides read until the fake's stdout ends and reap the process.
//!
//! Each sample is one whole session (`sample_size = 1`).
//!
//! Run with `cargo bench -p twinwire-testkit --bench host`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{LazyLock, OnceLock};

use divan::counter::ItemsCount;
use divan::Bencher;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::runtime::Runtime;
use twinwire::host::callbacks::can_use_tool;
use twinwire::protocol::framing::LineDecoder;
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::Options;

fn main() {
    divan::main();
    if let Some(dir) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(dir.path());
    }
}

const FAKE: &str = env!("CARGO_BIN_EXE_fake-claude");
const FLOOD_EVENTS: usize = 100_000;
const FLOOD_ASSISTANTS: usize = 1_000;
const ROUND_TRIPS: usize = 2_000;
/// The bare loops read stdout in pieces this big, like twinwire's reader.
const READ_CHUNK: usize = 64 * 1024;

mod flood {
    use super::*;

    /// `twinwire::query` on a multi-thread runtime (what `#[tokio::main]` gives).
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn twinwire_multi_thread(bencher: Bencher) {
        run_twinwire(bencher, flood(), multi_thread());
    }

    /// `twinwire::query` on a current-thread runtime (what `#[tokio::test]` gives).
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn twinwire_current_thread(bencher: Bencher) {
        run_twinwire(bencher, flood(), current_thread());
    }

    /// `BufReader::read_line` + `serde_json::from_str::<Value>` per line.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn bare_value_parse(bencher: Bencher) {
        run_bare(bencher, flood());
    }

    /// stdout read to EOF in 64 KiB pieces, nothing else.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn bare_pipe_read(bencher: Bencher) {
        let session = flood();
        bencher.bench(|| {
            let bytes = pipe_read(session);
            assert!(bytes > FLOOD_EVENTS * 100, "only {bytes} bytes");
        });
    }
}

mod round_trips {
    use super::*;

    /// `twinwire::query` with a `can_use_tool` closure that allows, multi-thread runtime.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn twinwire_multi_thread(bencher: Bencher) {
        let bencher = bencher.counter(ItemsCount::new(ROUND_TRIPS));
        run_twinwire(bencher, round_trips(), multi_thread());
    }

    /// The same on a current-thread runtime.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn twinwire_current_thread(bencher: Bencher) {
        let bencher = bencher.counter(ItemsCount::new(ROUND_TRIPS));
        run_twinwire(bencher, round_trips(), current_thread());
    }

    /// A blocking loop that answers each `can_use_tool` as soon as its line is parsed.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn bare_blocking(bencher: Bencher) {
        let bencher = bencher.counter(ItemsCount::new(ROUND_TRIPS));
        run_bare(bencher, round_trips());
    }
}

mod startup {
    use super::*;

    /// `twinwire::query` on a one-text-turn script, multi-thread runtime.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn twinwire_multi_thread(bencher: Bencher) {
        run_twinwire(bencher, startup(), multi_thread());
    }

    /// The same on a current-thread runtime.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn twinwire_current_thread(bencher: Bencher) {
        run_twinwire(bencher, startup(), current_thread());
    }

    /// The bare loop on the same script.
    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn bare_blocking(bencher: Bencher) {
        run_bare(bencher, startup());
    }
}

mod decode {
    use super::*;

    const CAPTURES: [&str; 2] = ["flood", "round_trips"];

    /// `LineDecoder` + `Message::from_json`.
    #[divan::bench(args = CAPTURES, sample_count = 20, sample_size = 1)]
    fn typed_message(bencher: Bencher, capture: &str) {
        decode_bench(bencher, capture, typed);
    }

    /// `LineDecoder` + `serde_json::Value`.
    #[divan::bench(args = CAPTURES, sample_count = 20, sample_size = 1)]
    fn serde_json_value(bencher: Bencher, capture: &str) {
        decode_bench(bencher, capture, value);
    }

    fn typed(line: &str) {
        divan::black_box(Message::from_json(line).unwrap());
    }

    fn value(line: &str) {
        divan::black_box(serde_json::from_str::<Value>(line).unwrap());
    }

    fn decode_bench(bencher: Bencher, capture: &str, parse: fn(&str)) {
        let session = match capture {
            "flood" => flood(),
            _ => round_trips(),
        };
        let path = session.capture();
        let lines = std::fs::read(path).unwrap().split(|b| *b == b'\n').count() - 1;
        bencher
            .counter(ItemsCount::new(lines))
            .with_inputs(|| std::fs::read(path).unwrap())
            .bench_values(|bytes| {
                let mut decoder = LineDecoder::new();
                let mut count = 0;
                for chunk in bytes.chunks(READ_CHUNK) {
                    decoder.push(chunk);
                    while let Some(line) = decoder.next_line() {
                        parse(line.unwrap().text);
                        count += 1;
                    }
                }
                assert_eq!(count, lines);
            });
    }
}

// --- Sessions ----------------------------------------------------------------------------------

/// One scripted session, and how twinwire starts it, for the bare loops to replay.
struct Session {
    /// What a whole session delivers.
    expect: Tally,
    /// Options for the timed twinwire runs (no record file).
    options: Options,
    /// The argv twinwire passes, without the program.
    args: Vec<String>,
    /// The whole environment the fake saw under twinwire (without the record variable).
    env: Vec<(String, String)>,
    /// The frames twinwire wrote before the first answer: `initialize` and the user message.
    input: Vec<u8>,
    /// What the fake wrote in one bare session.
    capture: OnceLock<PathBuf>,
    name: &'static str,
}

/// Scripts, records and captures; removed at the end of `main` (statics are never dropped).
static SCRATCH: OnceLock<tempfile::TempDir> = OnceLock::new();

fn scratch() -> &'static Path {
    SCRATCH.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

fn flood() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let step =
            json!({"flood": {"stream_events": FLOOD_EVENTS, "assistants": FLOOD_ASSISTANTS}});
        Session::probe("flood", vec![step], false, Tally::flood())
    })
}

fn round_trips() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let step = json!({"tool": {"name": "Bash", "input": {"command": "true"}, "ask": true,
                                   "output": "ok"}});
        Session::probe(
            "round_trips",
            vec![step; ROUND_TRIPS],
            true,
            Tally::round_trips(),
        )
    })
}

fn startup() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let step = json!({"text": "hello"});
        Session::probe("startup", vec![step], false, Tally::startup())
    })
}

impl Session {
    /// Writes a one-turn script, runs twinwire on it once with a record file, and reads back what
    /// twinwire did to the fake.
    fn probe(name: &'static str, steps: Vec<Value>, ask: bool, expect: Tally) -> Self {
        let script_path = scratch().join(format!("{name}.json"));
        let record_path = scratch().join(format!("{name}.record.jsonl"));
        let script = json!({"turns": [{"steps": steps}]});
        std::fs::write(&script_path, script.to_string()).unwrap();
        let mut builder = Options::builder()
            .cli_path(FAKE)
            .env("TWINWIRE_FAKE_SCRIPT", &script_path);
        if ask {
            builder = builder.can_use_tool(can_use_tool(|r| async move {
                Ok(PermissionResult::allow(r.input().clone()))
            }));
        }
        let options = builder.clone().build().unwrap();
        let probe = builder
            .env("TWINWIRE_FAKE_RECORD", &record_path)
            .build()
            .unwrap();
        let tally = current_thread().block_on(drain(probe));
        expect.check(&tally, "probe");

        let record = std::fs::read_to_string(&record_path).unwrap();
        let mut lines = record
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap());
        let start = lines.next().unwrap();
        let args = start["argv"].as_array().unwrap()[1..]
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect();
        let env = start["env"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| *k != "TWINWIRE_FAKE_RECORD")
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
            .collect();
        let frames: Vec<Value> = lines.filter_map(|l| l.get("in").cloned()).collect();
        assert_eq!(frames[0]["request"]["subtype"], "initialize", "{frames:?}");
        assert_eq!(frames[1]["type"], "user", "{frames:?}");
        let mut input = Vec::new();
        for frame in &frames[..2] {
            serde_json::to_writer(&mut input, frame).unwrap();
            input.push(b'\n');
        }
        let answers: Vec<&Value> = frames[2..]
            .iter()
            .filter(|f| f["type"] == "control_response")
            .collect();
        assert_eq!(
            answers.len(),
            expect.asks,
            "twinwire's answers: {answers:?}"
        );
        if let Some(first) = answers.first() {
            // The bare loop must answer with the same payload, so the fake does the same work.
            let keys = |v: &Value| {
                v.as_object()
                    .unwrap()
                    .keys()
                    .cloned()
                    .collect::<BTreeSet<_>>()
            };
            let ours = allow("x", &json!({}));
            assert_eq!(keys(first), keys(&ours), "{first}");
            assert_eq!(keys(&first["response"]), keys(&ours["response"]), "{first}");
            let payload = &first["response"]["response"];
            assert_eq!(
                keys(payload),
                keys(&ours["response"]["response"]),
                "{first}"
            );
            assert_eq!(payload["behavior"], "allow", "{first}");
        }
        Session {
            expect,
            options,
            args,
            env,
            input,
            capture: OnceLock::new(),
            name,
        }
    }

    /// The stdout of one bare session, byte for byte.
    fn capture(&self) -> &Path {
        self.capture.get_or_init(|| {
            let mut stdout = Vec::new();
            let tally = bare(self, |line| {
                stdout.extend_from_slice(line.as_bytes());
            });
            self.expect.check(&tally, "capture");
            let path = scratch().join(format!("{}.out", self.name));
            std::fs::write(&path, stdout).unwrap();
            path
        })
    }
}

// --- The twinwire side ---------------------------------------------------------------------------

fn multi_thread() -> &'static Runtime {
    static RT: LazyLock<Runtime> = LazyLock::new(|| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap()
    });
    &RT
}

fn current_thread() -> &'static Runtime {
    static RT: LazyLock<Runtime> = LazyLock::new(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    });
    &RT
}

fn run_twinwire(bencher: Bencher, session: &Session, rt: &Runtime) {
    bencher
        .with_inputs(|| session.options.clone())
        .bench_values(|options| {
            let tally = rt.block_on(drain(options));
            session.expect.check(&tally, "twinwire");
        });
}

/// `twinwire::query("go", options)` until the stream ends.
async fn drain(options: Options) -> Tally {
    let mut tally = Tally::default();
    let mut messages = twinwire::query("go", options);
    while let Some(message) = messages.next().await {
        match message.unwrap() {
            Message::StreamEvent(_) => tally.stream_events += 1,
            Message::Assistant(_) => tally.assistants += 1,
            Message::User(_) => tally.asks += 1,
            Message::Result(_) => tally.results += 1,
            _ => {}
        }
    }
    tally
}

// --- The bare side -----------------------------------------------------------------------------

fn run_bare(bencher: Bencher, session: &Session) {
    bencher.bench(|| {
        let tally = bare(session, |_| {});
        session.expect.check(&tally, "bare");
    });
}

/// Starts the fake as twinwire would.
fn spawn(session: &Session) -> std::process::Child {
    Command::new(FAKE)
        .args(&session.args)
        .env_clear()
        .envs(session.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The bare blocking host: parse every line, answer `can_use_tool` at once, close stdin after
/// the result, read to EOF. `keep` sees every line as read (with its newline).
fn bare(session: &Session, mut keep: impl FnMut(&str)) -> Tally {
    let mut child = spawn(session);
    let mut stdin = child.stdin.take();
    write_all(stdin.as_mut().unwrap(), &session.input);
    let mut stdout = BufReader::with_capacity(READ_CHUNK, child.stdout.take().unwrap());
    let mut tally = Tally::default();
    let mut line = String::new();
    let mut answer = Vec::new();
    loop {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        keep(&line);
        let frame: Value = serde_json::from_str(&line).unwrap();
        match frame["type"].as_str() {
            Some("stream_event") => tally.stream_events += 1,
            Some("assistant") => tally.assistants += 1,
            Some("control_request") if frame["request"]["subtype"] == "can_use_tool" => {
                let id = frame["request_id"].as_str().unwrap();
                answer.clear();
                serde_json::to_writer(&mut answer, &allow(id, &frame["request"]["input"])).unwrap();
                answer.push(b'\n');
                write_all(stdin.as_mut().unwrap(), &answer);
                tally.asks += 1;
            }
            Some("result") => {
                tally.results += 1;
                stdin = None;
            }
            _ => {}
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    tally
}

/// Only the pipe: write the frames, close stdin, read stdout to EOF; returns the byte count.
fn pipe_read(session: &Session) -> usize {
    let mut child = spawn(session);
    let mut stdin = child.stdin.take().unwrap();
    write_all(&mut stdin, &session.input);
    drop(stdin);
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut bytes = 0;
    loop {
        match stdout.read(&mut buf).unwrap() {
            0 => break,
            n => bytes += n,
        }
    }
    assert!(child.wait().unwrap().success());
    bytes
}

/// The allow answer, as twinwire writes it.
fn allow(request_id: &str, input: &Value) -> Value {
    json!({
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": request_id,
            "response": {"behavior": "allow", "updatedInput": input}
        }
    })
}

fn write_all(stdin: &mut ChildStdin, bytes: &[u8]) {
    stdin.write_all(bytes).unwrap();
    stdin.flush().unwrap();
}

/// What a session delivered, to check both sides did all the work.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    stream_events: usize,
    assistants: usize,
    /// Permission round trips (bare) or tool results (twinwire: one per allowed tool).
    asks: usize,
    results: usize,
}

impl Tally {
    fn flood() -> Self {
        Self {
            stream_events: FLOOD_EVENTS,
            assistants: FLOOD_ASSISTANTS,
            asks: 0,
            results: 1,
        }
    }

    fn round_trips() -> Self {
        Self {
            stream_events: 0,
            assistants: ROUND_TRIPS,
            asks: ROUND_TRIPS,
            results: 1,
        }
    }

    fn startup() -> Self {
        Self {
            stream_events: 0,
            assistants: 1,
            asks: 0,
            results: 1,
        }
    }

    fn check(&self, got: &Tally, side: &str) {
        assert_eq!(got, self, "{side} did not see the whole session");
    }
}
