//! A host killed with SIGKILL in the middle of a tool turn, then its session re-attached by a
//! new host: the real CLI offline (`TWINWIRE_CLAUDE_PATH`, else the pinned Claude Code) and
//! twinwire-agent, against the scripted model server.
//!
//! The first host is this test binary run again as a separate process (`HOST_ROLE_ENV`): it
//! keeps a live-session record and drives one turn whose Bash command appends a line to a file
//! and sleeps. Once the line is there (or, in the second case, while the host holds the
//! permission request unanswered), the test kills the host with SIGKILL, then re-attaches the
//! session in this process: every process of the old session is gone (looked up in `/proc`),
//! the report names the interrupted tool use (and the permission request that was waiting),
//! the next prompt's model request carries the first turn's prompt, and the command ran once.
//! On Claude Code, once more with the session mirrored into a directory store and the CLI's
//! own files deleted before the re-attach, which then reads the store alone.
#![allow(clippy::unwrap_used)]
// Without libtest, the test reports on stdout, and the host it starts tells it the session id there.
#![allow(clippy::print_stdout)]
// The cases run on Linux only (the fence proves processes through /proc); elsewhere the file
// builds, and reports them ignored.
#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::host::callbacks::can_use_tool;
use twinwire::host::reattach::{AttachRecord, ATTACH_MARK_ENV};
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::sessions::mirror::StoreFlush;
use twinwire::sessions::stores::DirectoryTranscriptStore;
use twinwire_model_server::{ModelScript, ModelServer};

/// Set when this binary runs as the first host: the JSON of a [`HostConfig`].
const HOST_ROLE_ENV: &str = "TWINWIRE_REATTACH_HOST";
/// Every wait of the test: generous for a busy machine; a hang still ends.
const LIMIT: Duration = Duration::from_secs(120);
/// The command the model asks for: it appends a line, then waits to be fenced.
const COMMAND: &str = "echo ran >> ran.txt; sleep 30";
/// The command of the held case: it never runs before the crash, and runs once after the
/// request is asked again and allowed.
const HELD_COMMAND: &str = "echo ran >> ran.txt";

fn main() {
    if let Ok(config) = std::env::var(HOST_ROLE_ENV) {
        host_role(serde_json::from_str(&config).unwrap());
        return;
    }
    let cases = vec![
        (
            "a_host_killed_while_its_tool_runs_is_reattached",
            Hold::No,
            Cli::Claude,
        ),
        (
            "a_host_killed_while_it_holds_a_permission_is_reattached",
            Hold::Yes,
            Cli::Claude,
        ),
        (
            "a_host_killed_while_its_tool_runs_is_reattached_from_its_transcript_store",
            Hold::Mirrored,
            Cli::Claude,
        ),
        (
            "twinwire_agent_a_host_killed_while_its_tool_runs_is_reattached",
            Hold::No,
            Cli::Agent,
        ),
        (
            "twinwire_agent_a_host_killed_while_it_holds_a_permission_is_reattached",
            Hold::Yes,
            Cli::Agent,
        ),
    ];
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let cases = cases
        .into_iter()
        .map(|(name, hold, cli)| (name, (hold, cli)))
        .collect();
    twinwire_testkit::run_cases(
        cases,
        "the fence proves processes through /proc",
        |(hold, cli)| run(&runtime, hold, cli),
    );
}

/// Runs one case (a failure panics); `false` where it cannot run.
fn run(runtime: &tokio::runtime::Runtime, hold: Hold, cli: Cli) -> bool {
    #[cfg(target_os = "linux")]
    {
        let cli = match cli {
            Cli::Claude => twinwire_testkit::real_claude(),
            Cli::Agent => twinwire_agent(),
        };
        runtime.block_on(killed_then_reattached(hold, &cli));
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (runtime, hold, cli);
        false
    }
}

/// Which program plays the CLI.
#[derive(Clone, Copy)]
enum Cli {
    /// `TWINWIRE_CLAUDE_PATH`, else the pinned Claude Code.
    Claude,
    /// twinwire-agent, built from this workspace.
    Agent,
}

/// twinwire-agent beside this package's binaries, current.
fn twinwire_agent() -> PathBuf {
    let fake = Path::new(env!("CARGO_BIN_EXE_fake-claude"));
    twinwire_testkit::twinwire_agent_in(fake.parent().unwrap())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
enum Hold {
    /// The host allows the command at once.
    No,
    /// The host never answers the permission request.
    Yes,
    /// The host allows the command at once; the session is mirrored into a directory store
    /// as each entry is written, and the CLI's own files are gone before the re-attach.
    Mirrored,
}

impl Hold {
    /// Whether the command is allowed to run.
    fn runs(self) -> bool {
        self != Self::Yes
    }
}

/// What the first host is told.
#[derive(serde::Serialize, serde::Deserialize)]
struct HostConfig {
    cli: PathBuf,
    root: PathBuf,
    url: String,
    hold: Hold,
}

/// The directories of one case.
struct Dirs {
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
    records: PathBuf,
    store: PathBuf,
}

impl Dirs {
    fn of(root: &Path) -> Self {
        Self {
            home: root.join("home"),
            work: root.join("work"),
            tmp: root.join("tmp"),
            records: root.join("records"),
            store: root.join("store"),
        }
    }
}

/// Options for the real CLI offline, keeping live-session records (and mirroring the session
/// into a directory store when `hold` says so).
fn offline(cli: &Path, root: &Path, url: &str, hold: Hold) -> twinwire::options::OptionsBuilder {
    let dirs = Dirs::of(root);
    let builder = twinwire::Options::builder();
    let builder = match hold {
        Hold::Mirrored => builder
            .transcript_store(Arc::new(DirectoryTranscriptStore::new(&dirs.store)))
            .transcript_store_flush(StoreFlush::Eager),
        Hold::No | Hold::Yes => builder,
    };
    builder
        .cli_path(cli)
        .cwd(&dirs.work)
        .env("HOME", &dirs.home)
        .env("CLAUDE_CONFIG_DIR", dirs.home.join(".claude"))
        .env("TMPDIR", &dirs.tmp)
        .env("CLAUDE_CODE_TMPDIR", &dirs.tmp)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "reattach-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .attach_records(&dirs.records)
}

/// The first host: starts the session, prints its id, sends the prompt, reads until killed.
fn host_role(config: HostConfig) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let hold = config.hold;
        let options = offline(&config.cli, &config.root, &config.url, hold)
            .can_use_tool(can_use_tool(move |request| async move {
                if !hold.runs() {
                    std::future::pending::<()>().await;
                }
                Ok(PermissionResult::allow(request.input().clone()))
            }))
            .build()
            .unwrap();
        let client = twinwire::Client::connect(options).await.unwrap();
        let records = AttachRecord::list(&Dirs::of(&config.root).records).unwrap();
        println!("session {}", records[0].session_id);
        let prompt = if hold.runs() {
            "RUN the tool please; remember PELICAN"
        } else {
            "RUN the tool held please; remember PELICAN"
        };
        client.send(prompt).await.unwrap();
        let mut all = std::pin::pin!(client.receive_all());
        while all.next().await.is_some() {}
        // Not reached: the test kills this process in the middle of the turn.
        std::process::exit(3);
    });
}

/// The model: asks for the command, and again when told it was approved.
fn script() -> ModelScript {
    let bash = |command: &str| {
        json!({"tool_use": {"name": "Bash", "text": "Running it.",
        "input": {"command": command, "description": "append and wait"}}})
    };
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "The tool is done."}},
        {"when": {"last_user_text_contains": "RUN the tool held"}, "times": 1,
         "reply": bash(HELD_COMMAND)},
        {"when": {"last_user_text_contains": "RUN the tool"}, "times": 1, "reply": bash(COMMAND)},
        {"when": {"last_user_text_contains": "run it again"}, "times": 1,
         "reply": bash(HELD_COMMAND)}
    ], "default": {"echo": true}}))
    .unwrap()
}

/// The result of the turn in flight, waiting up to [`LIMIT`].
async fn turn_result(client: &twinwire::Client) -> Box<twinwire::protocol::result::ResultMessage> {
    let turn = async {
        let mut turn = std::pin::pin!(client.receive_response());
        let mut result = None;
        while let Some(message) = turn.next().await {
            if let Message::Result(r) = message.unwrap() {
                result = Some(r);
            }
        }
        result.unwrap()
    };
    tokio::time::timeout(LIMIT, turn)
        .await
        .expect("the turn ended")
}

/// Waits up to [`LIMIT`] for `check` to give something.
async fn until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every running process whose environment holds `mark`.
#[cfg(target_os = "linux")]
fn marked_processes(mark: &str) -> Vec<u32> {
    let wanted = format!("{ATTACH_MARK_ENV}={mark}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| running(*pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == wanted.as_bytes()))
        })
        .collect()
}

/// Whether `pid` runs (a zombie has exited).
#[cfg(target_os = "linux")]
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().next().map(|state| state != "Z")
        })
        .unwrap_or(false)
}

/// The command line of `pid`, for messages.
fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// The session's transcript under `config` (`<config>/projects/<project>/<id>.jsonl`: the
/// CLI's own, or the directory store's), if it is there.
fn saved(config: &Path, session_id: &str) -> Option<String> {
    let projects = config.join("projects");
    std::fs::read_dir(projects)
        .ok()?
        .filter_map(Result::ok)
        .find_map(|project| {
            std::fs::read_to_string(project.path().join(format!("{session_id}.jsonl"))).ok()
        })
}

fn spawn_host(cli: &Path, root: &Path, url: &str, hold: Hold) -> (Child, String) {
    let config = serde_json::to_string(&HostConfig {
        cli: cli.to_owned(),
        root: root.to_owned(),
        url: url.to_owned(),
        hold,
    })
    .unwrap();
    twinwire_testkit::spawn_and_read(
        Command::new(std::env::current_exe().unwrap()).env(HOST_ROLE_ENV, config),
        "session ",
    )
}

#[cfg(target_os = "linux")]
async fn killed_then_reattached(hold: Hold, cli: &Path) {
    let root = tempfile::tempdir().unwrap();
    let dirs = Dirs::of(root.path());
    for dir in [&dirs.home, &dirs.work, &dirs.tmp] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let server = ModelServer::start(script()).await.unwrap();
    let (mut host, session_id) = spawn_host(cli, root.path(), &server.url(), hold);
    let ran = dirs.work.join("ran.txt");
    let record = match hold {
        Hold::No | Hold::Mirrored => {
            until("the command's line", || {
                std::fs::read_to_string(&ran).ok().filter(|t| !t.is_empty())
            })
            .await;
            AttachRecord::read(&dirs.records, &session_id)
                .unwrap()
                .unwrap()
        }
        Hold::Yes => {
            until("the permission request in the record", || {
                AttachRecord::read(&dirs.records, &session_id)
                    .unwrap()
                    .filter(|r| !r.pending_permissions.is_empty())
            })
            .await
        }
    };
    let mark = record.mark.clone().unwrap();
    let old = marked_processes(&mark);
    assert!(old.contains(&record.cli_pid), "{old:?} {record:?}");
    if hold.runs() {
        // The CLI, and the shell running the command (with its `sleep`).
        let sleeping = old.iter().any(|&pid| cmdline(pid).starts_with("sleep"));
        assert!(
            sleeping,
            "no sleep among {:?}",
            old.iter().map(|&p| cmdline(p)).collect::<Vec<_>>()
        );
    }

    // The CLI saves its transcript a moment after it asks: the tool use must be in it (a
    // crash before that loses the turn, and the session has nothing to resume).
    until("the tool use in the transcript", || {
        saved(&dirs.home.join(".claude"), &session_id).filter(|t| t.contains("\"tool_use\""))
    })
    .await;
    if hold == Hold::Mirrored {
        // The mirror follows the CLI's own file by a moment: what it has not stored when the
        // host dies is lost to the store.
        until("the tool use in the store", || {
            saved(&dirs.store, &session_id).filter(|t| t.contains("\"tool_use\""))
        })
        .await;
    }
    host.kill().unwrap(); // SIGKILL
    host.wait().unwrap();

    let reattach_started = Instant::now();
    if hold == Hold::Mirrored {
        // Only the store has the session now.
        std::fs::remove_dir_all(dirs.home.join(".claude").join("projects")).unwrap();
    }
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let options = offline(cli, root.path(), &server.url(), hold)
        .can_use_tool(can_use_tool(move |request| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move { Ok(PermissionResult::allow(request.input().clone())) }
        }))
        .build()
        .unwrap();
    let reattached = tokio::time::timeout(LIMIT, twinwire::Client::reattach(options, &session_id))
        .await
        .expect("the re-attach ended")
        .unwrap();
    let reattach_took = reattach_started.elapsed();
    let (client, report) = (&reattached.client, &reattached.report);

    // Nothing of the old session runs.
    let left: Vec<u32> = old.iter().copied().filter(|&pid| running(pid)).collect();
    assert!(left.is_empty(), "still running: {left:?}");
    assert!(marked_processes(&mark).is_empty());
    for pid in old.iter().filter(|&&pid| pid != record.cli_pid) {
        assert!(
            report.fenced.found.contains(pid),
            "{pid} not fenced: {:?}",
            report.fenced
        );
    }
    // The command was in flight: reported, not run again.
    assert_eq!(report.interrupted.len(), 1, "{report:?}");
    assert_eq!(report.interrupted[0].name, "Bash");
    let command = if hold.runs() { COMMAND } else { HELD_COMMAND };
    assert_eq!(report.interrupted[0].input["command"], command);
    match hold {
        Hold::No | Hold::Mirrored => {
            assert!(report.pending_permissions.is_empty(), "{report:?}");
        }
        Hold::Yes => {
            assert_eq!(report.pending_permissions.len(), 1, "{report:?}");
            assert_eq!(report.pending_permissions[0].tool_name, "Bash");
            assert_eq!(
                report.pending_permissions[0].tool_use_id.as_deref(),
                Some(report.interrupted[0].tool_use_id.as_str())
            );
            // Asked again, allowed; the model is told and asks for the call again, which is
            // answered from that answer: the user is asked once, and the command runs once.
            let answers = tokio::time::timeout(LIMIT, reattached.reask())
                .await
                .expect("asked again");
            assert_eq!(answers.len(), 1, "{answers:?}");
            assert!(answers[0].allowed(), "{answers:?}");
            assert_eq!(answers[0].input["command"], HELD_COMMAND);
            assert_eq!(asked.load(Ordering::SeqCst), 1);
            client
                .send("The Bash call was approved: run it again.")
                .await
                .unwrap();
            let result = turn_result(client).await;
            assert!(!result.is_error, "{result:?}");
            assert_eq!(asked.load(Ordering::SeqCst), 1, "asked twice");
        }
    }

    // The session goes on, with its history.
    let asked_before = server.message_requests().len();
    client.send("What did I say first?").await.unwrap();
    let result = turn_result(client).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.session_id, session_id);
    let requests = server.message_requests();
    let next = requests[asked_before..]
        .iter()
        .map(Value::to_string)
        .find(|body| body.contains("What did I say first?"))
        .expect("the next turn's request");
    assert!(next.contains("PELICAN"), "no history in {next}");

    // The command ran once (held: once, after it was asked again).
    let lines = std::fs::read_to_string(&ran).unwrap_or_default();
    assert_eq!(lines, "ran\n");

    reattached.client.close().await.unwrap();
    assert!(
        AttachRecord::read(&dirs.records, &session_id)
            .unwrap()
            .is_none(),
        "a clean close removes the record"
    );
    server.shutdown().await;
    println!(
        "  re-attached in {:.2} s; fenced {:?} (killed {:?})",
        reattach_took.as_secs_f64(),
        report.fenced.found,
        report.fenced.killed
    );
}
