//! The official SDKs as peers: the Python SDK (`claude-agent-sdk` 0.2.189) and the TypeScript
//! SDK (`@anthropic-ai/claude-agent-sdk` 0.3.332), unmodified, run scenario programs
//! (`peers/python/scenarios.py`, `peers/node/scenarios.mjs`) against three CLIs:
//!
//! * (a) `tap`: `twinwire tap --record` in front of the real pinned Claude Code, offline against
//!   an in-process scripted model server. The SDK's checks pass, the real tools had their
//!   effects, and the recording equals what a witness between the tap and the CLI saw (see
//!   [`witness`]).
//! * (b) `fake`: `fake-claude` playing the same conversation from a script.
//! * (c) `replay`: `twinwire replay` of the recording of (a). The SDK's checks pass and the
//!   replay exits 0: the SDK sent what it sent to the real CLI.
//! * (d) `agent`: a Rust agent served by `twinwire::agent` (`examples/echo_agent.rs`) in place of
//!   the CLI, in its own scenario (`echo_agent`): an echo turn, then a turn where the agent
//!   asks the SDK's `can_use_tool` and reports the denial.
//!
//! * (e) `coding_agent`: `twinwire-agent` (`crates/agent`), a coding agent with its own model
//!   loop, in place of the CLI, against the model server of (a): see [`coding_agent`].
//!
//! Tests are named `SDK::SCENARIO::MODE`. (c) uses the recording of (a), made once per SDK and
//! scenario by whichever of the two tests gets there first. Every run has its own directories
//! (and, in (a), its own model server), so runs are independent and may go concurrently.
//!
//! The SDKs come from `cargo xtask test`, which installs them under `target/sdks` and names
//! them in `TWINWIRE_PEERS_PYTHON` (the venv's `python`) and `TWINWIRE_PEERS_TS_SDK` (the SDK's
//! `sdk.mjs`); `cargo xtask install-sdks` prints both. When `TWINWIRE_PEERS_REPORT` names a file,
//! each run appends one JSON line to it (SDK, scenario, mode, outcome, seconds).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod coding_agent;
#[path = "../common/mod.rs"]
mod common;
mod limits;
mod scenarios;
mod sessions;
mod settings;
mod stores;
mod tools;
mod witness;
mod world;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::json;
use twinwire_model_server::ModelServer;

use scenarios::Scenario;
use world::{tail, World};

/// An official SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Sdk {
    Python,
    Node,
}

impl Sdk {
    fn from_name(name: &str) -> Self {
        match name {
            "python" => Self::Python,
            "node" => Self::Node,
            other => panic!("no SDK `{other}`"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::Node => "node",
        }
    }

    /// The command that runs this SDK's scenario program (the scenario name goes last).
    fn command(self) -> Command {
        let peers = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../peers");
        match self {
            Self::Python => {
                let mut command = Command::new(installed("TWINWIRE_PEERS_PYTHON"));
                command.arg(peers.join("python/scenarios.py"));
                command
            }
            Self::Node => {
                // The program imports the SDK from this path; checked here for a clear hint.
                installed("TWINWIRE_PEERS_TS_SDK");
                let mut command = Command::new("node");
                command.arg(peers.join("node/scenarios.mjs"));
                command
            }
        }
    }
}

/// The path in `$name`, which `cargo xtask test` sets; fails with the hint when it is not.
fn installed(name: &str) -> PathBuf {
    let path = std::env::var_os(name).filter(|p| !p.is_empty());
    let problem = match &path {
        None => "is not set".to_owned(),
        Some(path) if !Path::new(path).exists() => format!("names {path:?}, which does not exist"),
        Some(path) => return PathBuf::from(path),
    };
    panic!(
        "${name} {problem}: the official SDKs are installed by `cargo xtask test`, which runs \
         this suite (or run `cargo xtask install-sdks` and export what it prints)"
    )
}

/// What mode (a) gave for one SDK and scenario.
struct TapRun {
    /// The whole verdict: the SDK's checks, the real effects, the tap's exit, the witness.
    verdict: Result<(), String>,
    /// The recording, when the SDK's checks passed on it (mode (c) replays it).
    recording: Option<String>,
}

/// Mode (a), run once per SDK and scenario and shared with mode (c).
fn tap_run(sdk: Sdk, scenario: Scenario) -> Arc<TapRun> {
    type Cells = Mutex<HashMap<(Sdk, Scenario), Arc<OnceLock<Arc<TapRun>>>>>;
    static RUNS: OnceLock<Cells> = OnceLock::new();
    let cell = {
        let mut runs = RUNS.get_or_init(Cells::default).lock().unwrap();
        Arc::clone(runs.entry((sdk, scenario)).or_default())
    };
    Arc::clone(cell.get_or_init(|| Arc::new(run_tap(sdk, scenario))))
}

fn run_tap(sdk: Sdk, scenario: Scenario) -> TapRun {
    let world = World::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime
        .block_on(ModelServer::start(scenario.model_script()))
        .expect("the model server starts");
    let cli = world.tap_wrapper(&world.witness(&twinwire_testkit::real_claude()));
    let mut env = world.env(&cli);
    env.push(("ANTHROPIC_BASE_URL".into(), server.url().into()));
    let run = world.run_sdk(sdk, scenario.name(), &env);
    let sdk_passed = run.passed();
    let tap_exit = world.exit_code("tap");
    world.kill_witness();
    let recording = world.read("record.jsonl");
    let verdict = sdk_passed
        .clone()
        .and_then(|()| scenario.effects(&world.path("work"), &server.message_requests()))
        .and_then(|()| match tap_exit {
            Ok(0) => Ok(()),
            Ok(code) => Err(format!("the tap exited with {code}")),
            Err(err) => Err(err),
        })
        .and_then(|()| spawned(&world, scenario.spawns()))
        .and_then(|()| {
            let (input, output) = (world.read("witness.in"), world.read("witness.out"));
            witness::check(&recording, &input, &output, &world.read("witness.env"))
        })
        .map_err(|why| {
            format!(
                "{why}\n--- tap stderr (tail)\n{}\n--- recording (tail)\n{}",
                tail(&world.read("tap.stderr"), 4000),
                tail(&recording, 4000)
            )
        });
    report(
        sdk,
        scenario.name(),
        "tap",
        &verdict,
        run.seconds,
        run.checks(),
    );
    keep_recording(sdk, scenario, &verdict, &recording);
    runtime.block_on(server.shutdown());
    TapRun {
        verdict,
        recording: sdk_passed.is_ok().then_some(recording),
    }
}

/// With `$TWINWIRE_RECORD_DIR` set (`cargo xtask record`), a recording whose run passed is kept
/// there as `peers.SDK.SCENARIO/tap.jsonl`: the official SDKs' own frames, for the fixtures.
fn keep_recording(sdk: Sdk, scenario: Scenario, verdict: &Result<(), String>, recording: &str) {
    let Some(dir) = std::env::var_os("TWINWIRE_RECORD_DIR").filter(|d| !d.is_empty()) else {
        return;
    };
    if verdict.is_ok() {
        let into = Path::new(&dir).join(format!("peers.{}.{}", sdk.name(), scenario.name()));
        std::fs::create_dir_all(&into).unwrap();
        std::fs::write(into.join("tap.jsonl"), recording).unwrap();
    }
}

/// Mode (a): see the crate docs.
fn check_tap(sdk: &str, scenario: &str) {
    let (sdk, scenario) = (Sdk::from_name(sdk), Scenario::from_name(scenario));
    if let Err(why) = &tap_run(sdk, scenario).verdict {
        panic!("{} {} through the tap: {why}", sdk.name(), scenario.name());
    }
}

/// Mode (b): the SDK against `fake-claude` playing the scenario's script.
fn check_fake(sdk: &str, scenario: &str) {
    let (sdk, scenario) = (Sdk::from_name(sdk), Scenario::from_name(scenario));
    let world = World::new();
    let script = world.path("fake-script.json");
    std::fs::write(&script, scenario.fake_script().to_string()).unwrap();
    let mut env = world.env(common::fake_claude());
    env.push(("TWINWIRE_FAKE_SCRIPT".into(), script));
    let run = world.run_sdk(sdk, scenario.name(), &env);
    let verdict = run.passed();
    report(
        sdk,
        scenario.name(),
        "fake",
        &verdict,
        run.seconds,
        run.checks(),
    );
    if let Err(why) = verdict {
        panic!(
            "{} {} against fake-claude: {why}",
            sdk.name(),
            scenario.name()
        );
    }
}

/// Mode (c): the SDK against `twinwire replay` of the recording of mode (a).
fn check_replay(sdk: &str, scenario: &str) {
    let (sdk, scenario) = (Sdk::from_name(sdk), Scenario::from_name(scenario));
    let tapped = tap_run(sdk, scenario);
    let Some(recording) = &tapped.recording else {
        let why = tapped.verdict.as_ref().err().cloned().unwrap_or_default();
        panic!(
            "{} {}: no recording to replay: the SDK failed in mode (a): {why}",
            sdk.name(),
            scenario.name()
        );
    };
    let world = World::new();
    let file = world.path("recording.jsonl");
    std::fs::write(&file, recording).unwrap();
    let cli = world.replay_wrapper(&file);
    let run = world.run_sdk(sdk, scenario.name(), &world.env(&cli));
    let verdict = run
        .passed()
        .and_then(|()| match world.exit_code("replay")? {
            0 => Ok(()),
            code => Err(format!("the replay exited with {code}")),
        })
        .and_then(|()| spawned(&world, scenario.spawns()))
        .map_err(|why| {
            format!(
                "{why}\n--- replay stderr\n{}",
                tail(&world.read("replay.stderr"), 6000)
            )
        });
    report(
        sdk,
        scenario.name(),
        "replay",
        &verdict,
        run.seconds,
        run.checks(),
    );
    if let Err(why) = verdict {
        panic!(
            "{} {} against the replay: {why}",
            sdk.name(),
            scenario.name()
        );
    }
}

/// Mode (d): the SDK against twinwire's example agent.
fn check_agent(sdk: &str) {
    let sdk = Sdk::from_name(sdk);
    let world = World::new();
    let run = world.run_sdk(sdk, "echo_agent", &world.env(common::echo_agent()));
    let verdict = run.passed();
    report(
        sdk,
        "echo_agent",
        "agent",
        &verdict,
        run.seconds,
        run.checks(),
    );
    if let Err(why) = verdict {
        panic!("{} against the example agent: {why}", sdk.name());
    }
}

/// The SDK started its CLI as often as the scenario says: once for every scenario but
/// `resume` (`three_turns` depends on it).
fn spawned(world: &World, expected: usize) -> Result<(), String> {
    match world.spawns() {
        n if n == expected => Ok(()),
        n => Err(format!("the SDK started its CLI {n} times, not {expected}")),
    }
}

/// One line on stderr (shown with `--nocapture`) and in `$TWINWIRE_PEERS_REPORT`.
#[allow(clippy::print_stderr)] // a test's output, captured by libtest
fn report(
    sdk: Sdk,
    scenario: &str,
    mode: &str,
    verdict: &Result<(), String>,
    seconds: f64,
    checks: u64,
) {
    let outcome = if verdict.is_ok() { "passed" } else { "FAILED" };
    eprintln!(
        "peers: {} {scenario} {mode}: {outcome} in {seconds:.1} s ({checks} SDK checks)",
        sdk.name(),
    );
    let Some(path) = std::env::var_os("TWINWIRE_PEERS_REPORT").filter(|p| !p.is_empty()) else {
        return;
    };
    let line = json!({"sdk": sdk.name(), "scenario": scenario, "mode": mode,
                      "ok": verdict.is_ok(), "seconds": seconds, "checks": checks});
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut file) = file {
        // One write per line: concurrent runs append whole lines.
        let _ = file.write_all(format!("{line}\n").as_bytes());
    }
}

/// `SDK::SCENARIO::{tap, fake, replay, coding_agent}` for every SDK and scenario.
macro_rules! peers {
    ($($sdk:ident: [$($scenario:ident),* $(,)?]),* $(,)?) => {$(
        mod $sdk {$(
            mod $scenario {
                #[test]
                fn tap() {
                    crate::check_tap(stringify!($sdk), stringify!($scenario));
                }

                #[test]
                fn fake() {
                    crate::check_fake(stringify!($sdk), stringify!($scenario));
                }

                #[test]
                fn replay() {
                    crate::check_replay(stringify!($sdk), stringify!($scenario));
                }

                #[test]
                fn coding_agent() {
                    crate::coding_agent::check(stringify!($sdk), stringify!($scenario));
                }
            }
        )*}
    )*};
}

peers! {
    python: [text, permission_allow, permission_deny, hooks, mcp, interrupt, three_turns],
    node: [text, permission_allow, permission_deny, hooks, mcp, interrupt, three_turns],
}

/// `SDK::SCENARIO::{tap, coding_agent}`: scenarios of saved sessions across processes, which
/// `fake-claude` (no sessions) and a replay (one process) cannot play.
macro_rules! peers_across_processes {
    ($($sdk:ident: [$($scenario:ident),* $(,)?]),* $(,)?) => {$(
        mod $sdk {$(
            mod $scenario {
                #[test]
                fn tap() {
                    crate::check_tap(stringify!($sdk), stringify!($scenario));
                }

                #[test]
                fn coding_agent() {
                    crate::coding_agent::check(stringify!($sdk), stringify!($scenario));
                }
            }
        )*}
    )*};
}

/// Under `sessions::` (the module names of `peers!` are taken).
mod sessions_across_processes {
    peers_across_processes! {
        python: [resume],
        node: [resume],
    }
}

/// Mode (d), once per SDK: `agent::python`, `agent::node`.
mod agent {
    #[test]
    fn python() {
        crate::check_agent("python");
    }

    #[test]
    fn node() {
        crate::check_agent("node");
    }
}
