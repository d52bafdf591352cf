//! Durable approvals with the real CLI offline (`TWINWIRE_CLAUDE_PATH`, else the pinned Claude
//! Code) and twinwire-agent, against the scripted model server.
//!
//! - **Answered from another process**: the host parks the model's Bash call in a directory
//!   store; this binary, run again as a separate process (`ANSWER_ROLE_ENV`), finds the request
//!   there, waits, and writes the answer; the host delivers it, the CLI (which waited, its
//!   request unanswered) runs the command once, and the turn ends. Allowed in one case, denied
//!   in another (the command never runs, and the model reads the reason).
//! - **Stopped while parked**: the host is this binary run again (`HOST_ROLE_ENV`); it parks the
//!   call, then is killed with SIGKILL (its live-session record left) or closes its client
//!   (the session stopped for a long wait). The request is answered in the store, then a new
//!   host resumes the session with `Client::resume_parked` (re-attaching it after the kill),
//!   tells the model, and the model's second request for the same call gets the stored answer
//!   without anyone being asked: the command runs once, the store ends empty, and the session
//!   keeps its history. Once more re-attached (`Client::reattach`) while the request still
//!   waits: asked again, the callback parks it again, which waits on the request parked before
//!   the crash (no second one), answered from here.
#![allow(clippy::unwrap_used)]
// Without libtest, the test reports on stdout, and the host it starts tells it the session id there.
#![allow(clippy::print_stdout)]
// The stopped cases prove through /proc that nothing of the old session runs: Linux only.
#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::host::callbacks::{can_use_tool, hook, HookContext, HookMatcher};
use twinwire::host::parking::{Asked, DirectoryPendingStore, Parking, PendingStore};
use twinwire::host::reattach::AttachRecord;
use twinwire::protocol::hooks::HookEvent;
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire_model_server::{ModelScript, ModelServer};

/// Set when this binary runs as the host that stops: the JSON of a [`HostConfig`].
const HOST_ROLE_ENV: &str = "TWINWIRE_DURABLE_HOST";
/// Set when this binary runs as the answerer: the JSON of an [`AnswerConfig`].
const ANSWER_ROLE_ENV: &str = "TWINWIRE_DURABLE_ANSWER";
/// Every wait of the test: generous for a busy machine; a hang still ends.
const LIMIT: Duration = Duration::from_secs(120);
/// The command the model asks for: it appends a line.
const COMMAND: &str = "echo ran >> ran.txt";
/// The question the model asks, and the answer given (not among its options: typed in).
const QUESTION: &str = "Which color should the banner be?";
const TYPED_ANSWER: &str = "Turquoise";
/// Why the parked hook denied the command.
const HOOK_REASON: &str = "held for review by the security team";

/// How long the answerer waits before it answers: the CLI waits that long, unanswered.
const ANSWER_AFTER: Duration = Duration::from_secs(3);

fn main() {
    if let Ok(config) = std::env::var(HOST_ROLE_ENV) {
        host_role(serde_json::from_str(&config).unwrap());
        return;
    }
    if let Ok(config) = std::env::var(ANSWER_ROLE_ENV) {
        answer_role(serde_json::from_str(&config).unwrap());
        return;
    }
    let cases = vec![
        (
            "a_parked_call_allowed_by_another_process_runs_once",
            Case::Answered(true),
            Cli::Claude,
        ),
        (
            "a_parked_call_denied_by_another_process_never_runs",
            Case::Answered(false),
            Cli::Claude,
        ),
        (
            "a_session_killed_while_parked_is_resumed_with_its_answer",
            Case::Stopped(Stop::Kill),
            Cli::Claude,
        ),
        (
            "a_session_killed_while_parked_is_reattached_and_asks_again_its_parked_request",
            Case::Stopped(Stop::KillReask),
            Cli::Claude,
        ),
        (
            "a_session_closed_while_parked_is_resumed_with_its_answer",
            Case::Stopped(Stop::Close),
            Cli::Claude,
        ),
        (
            "a_parked_question_is_answered_by_another_process",
            Case::Question,
            Cli::Claude,
        ),
        (
            "a_parked_pre_tool_use_hook_is_answered_by_another_process",
            Case::Hook,
            Cli::Claude,
        ),
        (
            "twinwire_agent_a_parked_question_is_answered_by_another_process",
            Case::Question,
            Cli::Agent,
        ),
        (
            "twinwire_agent_a_parked_pre_tool_use_hook_is_answered_by_another_process",
            Case::Hook,
            Cli::Agent,
        ),
        (
            "twinwire_agent_a_parked_call_allowed_by_another_process_runs_once",
            Case::Answered(true),
            Cli::Agent,
        ),
        (
            "twinwire_agent_a_session_killed_while_parked_is_resumed_with_its_answer",
            Case::Stopped(Stop::Kill),
            Cli::Agent,
        ),
        (
            "twinwire_agent_a_session_killed_while_parked_is_reattached_and_asks_again_its_parked_request",
            Case::Stopped(Stop::KillReask),
            Cli::Agent,
        ),
        (
            "twinwire_agent_a_session_closed_while_parked_is_resumed_with_its_answer",
            Case::Stopped(Stop::Close),
            Cli::Agent,
        ),
    ];
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let cases = cases
        .into_iter()
        .map(|(name, case, cli)| (name, (case, cli)))
        .collect();
    twinwire_testkit::run_cases(
        cases,
        "the stopped cases look processes up in /proc",
        |(case, cli)| run(&runtime, case, cli),
    );
}

#[derive(Clone, Copy)]
enum Case {
    /// Parked in this host, answered by another process (allowed or not).
    Answered(bool),
    /// An `AskUserQuestion` parked, answered by another process.
    Question,
    /// A `PreToolUse` hook parked, answered (a deny) by another process.
    Hook,
    /// Parked in a host process that then stops.
    Stopped(Stop),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
enum Stop {
    /// SIGKILL.
    Kill,
    /// SIGKILL, then a re-attach that asks again while the request still waits.
    KillReask,
    /// `Client::close`, then exit.
    Close,
}

#[derive(Clone, Copy)]
enum Cli {
    Claude,
    Agent,
}

/// Runs one case (a failure panics); `false` where it cannot run.
fn run(runtime: &tokio::runtime::Runtime, case: Case, cli: Cli) -> bool {
    let cli = match cli {
        Cli::Claude => twinwire_testkit::real_claude(),
        Cli::Agent => {
            let fake = Path::new(env!("CARGO_BIN_EXE_fake-claude"));
            twinwire_testkit::twinwire_agent_in(fake.parent().unwrap())
        }
    };
    match case {
        Case::Answered(allow) => {
            let answer = if allow { Answer::Allow } else { Answer::Deny };
            runtime.block_on(answered_by_another_process(&cli, answer));
            true
        }
        Case::Question => {
            runtime.block_on(answered_by_another_process(&cli, Answer::Question));
            true
        }
        Case::Hook => {
            runtime.block_on(answered_by_another_process(&cli, Answer::HookDeny));
            true
        }
        Case::Stopped(stop) => {
            #[cfg(target_os = "linux")]
            {
                runtime.block_on(stopped_then_resumed(&cli, stop));
                true
            }
            #[cfg(not(target_os = "linux"))]
            {
                let _ = stop;
                false
            }
        }
    }
}

/// The directories of one case.
struct Dirs {
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
    records: PathBuf,
    pending: PathBuf,
}

impl Dirs {
    fn of(root: &Path) -> Self {
        let dirs = Self {
            home: root.join("home"),
            work: root.join("work"),
            tmp: root.join("tmp"),
            records: root.join("records"),
            pending: root.join("pending"),
        };
        for dir in [&dirs.home, &dirs.work, &dirs.tmp] {
            std::fs::create_dir_all(dir).unwrap();
        }
        dirs
    }
}

/// Options for the CLI offline, parking in the case's directory store every Bash call and
/// question (and counting the asks in `asked`).
fn offline(cli: &Path, root: &Path, url: &str, asked: Arc<AtomicUsize>) -> twinwire::Options {
    builder(cli, root, url)
        .can_use_tool(can_use_tool(move |request| {
            asked.fetch_add(1, Ordering::SeqCst);
            async move {
                match request.tool_name() {
                    "Bash" | "AskUserQuestion" => request.park(),
                    _ => Ok(PermissionResult::allow(request.input().clone())),
                }
            }
        }))
        .build()
        .unwrap()
}

/// Options for the CLI offline whose `PreToolUse` hook on Bash parks (its matcher's timeout
/// long enough for the wait); tools are allowed.
fn offline_hooked(cli: &Path, root: &Path, url: &str) -> twinwire::Options {
    builder(cli, root, url)
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching(
                "Bash",
                hook(|_input, cx: HookContext| async move { cx.park() }),
            )
            .timeout(Duration::from_secs(600)),
        )
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        }))
        .build()
        .unwrap()
}

fn builder(cli: &Path, root: &Path, url: &str) -> twinwire::options::OptionsBuilder {
    let dirs = Dirs::of(root);
    twinwire::Options::builder()
        .cli_path(cli)
        .cwd(&dirs.work)
        .env("HOME", &dirs.home)
        .env("CLAUDE_CONFIG_DIR", dirs.home.join(".claude"))
        .env("TMPDIR", &dirs.tmp)
        .env("CLAUDE_CODE_TMPDIR", &dirs.tmp)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "durable-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .attach_records(&dirs.records)
        .parking(
            Parking::new(Arc::new(DirectoryPendingStore::new(&dirs.pending)))
                .poll(Duration::from_millis(50)),
        )
}

/// The model: asks for the command, and again when told it was approved.
fn script() -> ModelScript {
    let bash = json!({"tool_use": {"name": "Bash", "text": "Running it.",
        "input": {"command": COMMAND, "description": "append a line"}}});
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "The tool is done."}},
        {"when": {"last_user_text_contains": "RUN the tool"}, "times": 1, "reply": bash.clone()},
        {"when": {"last_user_text_contains": "ASK me"}, "times": 1,
         "reply": {"tool_use": {"name": "AskUserQuestion", "text": "A question.",
                   "input": {"questions": [{"question": QUESTION, "header": "Color",
                     "options": [{"label": "Blue", "description": "calm"},
                                 {"label": "Red", "description": "bold"}],
                     "multiSelect": false}]}}}},
        {"when": {"last_user_text_contains": "run it again"}, "times": 1, "reply": bash}
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
async fn until<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    mut check: impl FnMut() -> F,
) -> T {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the answerer gives.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
enum Answer {
    /// Allows the Bash call.
    Allow,
    /// Denies the Bash call.
    Deny,
    /// Answers the question (an allow whose input carries the answer).
    Question,
    /// The hook's output: deny the Bash call.
    HookDeny,
}

/// What the answerer is told.
#[derive(serde::Serialize, serde::Deserialize)]
struct AnswerConfig {
    pending: PathBuf,
    answer: Answer,
}

/// The answerer: waits for a parked Bash call in the store, then answers it.
fn answer_role(config: AnswerConfig) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let store = DirectoryPendingStore::new(&config.pending);
        let request = until("a parked request", || async {
            store
                .list()
                .await
                .unwrap()
                .into_iter()
                .find(|r| !r.is_answered())
        })
        .await;
        let answer = match (&request.asked, config.answer) {
            (
                Asked::Permission {
                    tool_name, input, ..
                },
                Answer::Allow | Answer::Deny,
            ) => {
                assert_eq!(tool_name, "Bash");
                assert_eq!(input["command"], COMMAND);
                if config.answer == Answer::Allow {
                    json!({"behavior": "allow"})
                } else {
                    json!({"behavior": "deny", "message": "not on a Friday"})
                }
            }
            (
                Asked::Permission {
                    tool_name, input, ..
                },
                Answer::Question,
            ) => {
                assert_eq!(tool_name, "AskUserQuestion");
                let mut answered = input.clone();
                answered["answers"] = json!({QUESTION: TYPED_ANSWER});
                json!({"behavior": "allow", "updatedInput": answered})
            }
            (Asked::Hook { event, input, .. }, Answer::HookDeny) => {
                assert_eq!(event, "PreToolUse");
                assert_eq!(input["tool_input"]["command"], COMMAND);
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny", "permissionDecisionReason": HOOK_REASON}})
            }
            (asked, answer) => panic!("{answer:?} for {asked:?}"),
        };
        twinwire::host::parking::check_answer(&request.asked, &answer).unwrap();
        std::thread::sleep(ANSWER_AFTER);
        assert!(store
            .answer(request.id.clone(), answer.clone())
            .await
            .unwrap());
        assert!(
            !store.answer(request.id.clone(), answer).await.unwrap(),
            "a second answer is refused"
        );
        println!("answered {}", request.id);
    });
}

async fn answered_by_another_process(cli: &Path, answer: Answer) {
    let root = tempfile::tempdir().unwrap();
    let dirs = Dirs::of(root.path());
    let server = ModelServer::start(script()).await.unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let options = match answer {
        Answer::HookDeny => offline_hooked(cli, root.path(), &server.url()),
        _ => offline(cli, root.path(), &server.url(), Arc::clone(&asked)),
    };
    let client = twinwire::Client::connect(options).await.unwrap();
    let config = serde_json::to_string(&AnswerConfig {
        pending: dirs.pending.clone(),
        answer,
    })
    .unwrap();
    let answerer = Command::new(std::env::current_exe().unwrap())
        .env(ANSWER_ROLE_ENV, config)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let prompt = if answer == Answer::Question {
        "ASK me please"
    } else {
        "RUN the tool please"
    };
    client.send(prompt).await.unwrap();
    let result = turn_result(&client).await;
    let waited = started.elapsed();
    let answered = answerer.wait_with_output().unwrap();
    assert!(answered.status.success(), "the answerer failed");
    assert!(String::from_utf8_lossy(&answered.stdout).starts_with("answered "));
    assert!(!result.is_error, "{result:?}");
    assert!(
        waited >= ANSWER_AFTER,
        "the turn ended before the answer ({waited:?})"
    );
    let asked_count = if answer == Answer::HookDeny { 0 } else { 1 };
    assert_eq!(asked.load(Ordering::SeqCst), asked_count);
    let lines = std::fs::read_to_string(dirs.work.join("ran.txt")).unwrap_or_default();
    let told = |what: &str| {
        server
            .message_requests()
            .iter()
            .map(Value::to_string)
            .any(|body| body.contains("tool_result") && body.contains(what))
    };
    match answer {
        Answer::Allow => assert_eq!(lines, "ran\n", "the command runs once, once allowed"),
        Answer::Deny => {
            assert_eq!(lines, "", "a denied command never runs");
            assert!(
                told("not on a Friday"),
                "the model was not given the reason"
            );
        }
        Answer::Question => assert!(told(TYPED_ANSWER), "the model was not given the answer"),
        Answer::HookDeny => {
            assert_eq!(lines, "", "a command the hook denied never runs");
            assert!(
                told(HOOK_REASON),
                "the model was not given the hook's reason"
            );
        }
    }
    let store = DirectoryPendingStore::new(&dirs.pending);
    assert!(
        store.list().await.unwrap().is_empty(),
        "a delivered answer is removed"
    );
    client.close().await.unwrap();
    server.shutdown().await;
    println!(
        "  parked {:.1} s, answered by another process",
        waited.as_secs_f64()
    );
}

/// What the stopping host is told.
#[derive(serde::Serialize, serde::Deserialize)]
struct HostConfig {
    cli: PathBuf,
    root: PathBuf,
    url: String,
    stop: Stop,
}

/// The host that stops: starts the session, prints its id, sends the prompt, and once the call
/// is parked closes its client (or waits to be killed).
fn host_role(config: HostConfig) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let options = offline(
            &config.cli,
            &config.root,
            &config.url,
            Arc::new(AtomicUsize::new(0)),
        );
        let client = twinwire::Client::connect(options).await.unwrap();
        let records = AttachRecord::list(&Dirs::of(&config.root).records).unwrap();
        println!("session {}", records[0].session_id);
        client
            .send("RUN the tool please; remember PELICAN")
            .await
            .unwrap();
        let store = DirectoryPendingStore::new(Dirs::of(&config.root).pending);
        {
            let mut all = std::pin::pin!(client.receive_all());
            let parked = until("the parked request", || async {
                (!store.list().await.unwrap().is_empty()).then_some(())
            });
            tokio::select! {
                () = async { while all.next().await.is_some() {} } => panic!("the session ended"),
                () = parked => {}
            }
        }
        if config.stop == Stop::Close {
            // The session stopped for a long wait; the request stays parked.
            client.close().await.unwrap();
            std::process::exit(0);
        }
        let mut all = std::pin::pin!(client.receive_all());
        while all.next().await.is_some() {}
        std::future::pending::<()>().await;
    });
}

fn spawn_host(cli: &Path, root: &Path, url: &str, stop: Stop) -> (Child, String) {
    let config = serde_json::to_string(&HostConfig {
        cli: cli.to_owned(),
        root: root.to_owned(),
        url: url.to_owned(),
        stop,
    })
    .unwrap();
    twinwire_testkit::spawn_and_read(
        Command::new(std::env::current_exe().unwrap()).env(HOST_ROLE_ENV, config),
        "session ",
    )
}

/// The session's transcript in the CLI's files, if it is there.
fn saved(config: &Path, session_id: &str) -> Option<String> {
    std::fs::read_dir(config.join("projects"))
        .ok()?
        .filter_map(Result::ok)
        .find_map(|project| {
            std::fs::read_to_string(project.path().join(format!("{session_id}.jsonl"))).ok()
        })
}

#[cfg(target_os = "linux")]
async fn stopped_then_resumed(cli: &Path, stop: Stop) {
    let root = tempfile::tempdir().unwrap();
    let dirs = Dirs::of(root.path());
    let server = ModelServer::start(script()).await.unwrap();
    let (mut host, session_id) = spawn_host(cli, root.path(), &server.url(), stop);
    let store = DirectoryPendingStore::new(&dirs.pending);
    let parked = until("the parked request", || async {
        store.list().await.unwrap().into_iter().next()
    })
    .await;
    assert_eq!(parked.session_id.as_deref(), Some(session_id.as_str()));
    // The CLI saves the tool use a moment after it asks; the session resumes from it.
    until("the tool use in the transcript", || async {
        saved(&dirs.home.join(".claude"), &session_id).filter(|t| t.contains("\"tool_use\""))
    })
    .await;
    match stop {
        Stop::Kill | Stop::KillReask => {
            host.kill().unwrap();
            host.wait().unwrap();
        }
        Stop::Close => {
            let status = tokio::task::spawn_blocking(move || host.wait())
                .await
                .unwrap()
                .unwrap();
            assert!(status.success(), "the host that closes failed: {status}");
            assert!(
                AttachRecord::read(&dirs.records, &session_id)
                    .unwrap()
                    .is_none(),
                "a closed session leaves no record to re-attach"
            );
        }
    }
    let asked = Arc::new(AtomicUsize::new(0));
    let options = offline(cli, root.path(), &server.url(), Arc::clone(&asked));
    let client = if stop == Stop::KillReask {
        reattached_and_asked_again(options, &session_id, &store, &parked.id).await
    } else {
        resumed_with_its_answer(options, &session_id, &store, &parked.id, stop).await
    };
    let result = turn_result(&client).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.session_id, session_id);
    // Asked once, answered from the store: the command ran once.
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(
        std::fs::read_to_string(dirs.work.join("ran.txt")).unwrap(),
        "ran\n"
    );
    assert!(
        store.list().await.unwrap().is_empty(),
        "the answer was delivered and removed"
    );

    // The session goes on, with its history.
    let before = server.message_requests().len();
    client.send("What did I say first?").await.unwrap();
    let result = turn_result(&client).await;
    assert!(!result.is_error, "{result:?}");
    let next = server.message_requests()[before..]
        .iter()
        .map(Value::to_string)
        .find(|body| body.contains("What did I say first?"))
        .expect("the next turn's request");
    assert!(next.contains("PELICAN"), "no history in {next}");
    client.close().await.unwrap();
    server.shutdown().await;
}

/// The parked request, still waiting with no one waiting on it, answered from here; then the
/// session resumed with `resume_parked` and the model told: its second request for the call
/// is answered from the store. The client, its turn in flight.
#[cfg(target_os = "linux")]
async fn resumed_with_its_answer(
    options: twinwire::Options,
    session_id: &str,
    store: &DirectoryPendingStore,
    id: &str,
    stop: Stop,
) -> twinwire::Client {
    let still = store
        .get(id.into())
        .await
        .unwrap()
        .expect("kept while stopped");
    assert!(!still.is_answered());
    assert!(store
        .answer(id.into(), json!({"behavior": "allow"}))
        .await
        .unwrap());
    let resumed = tokio::time::timeout(LIMIT, twinwire::Client::resume_parked(options, session_id))
        .await
        .expect("the resume ended")
        .unwrap();
    assert_eq!(resumed.answered.len(), 1, "{resumed:?}");
    assert!(resumed.waiting.is_empty());
    assert_eq!(
        resumed.reattached.is_some(),
        stop == Stop::Kill,
        "{resumed:?}"
    );
    if let Some(report) = &resumed.reattached {
        // The killed host's CLI was fenced, and its Bash call reported as interrupted.
        assert!(
            report
                .interrupted
                .iter()
                .any(|u| u.input["command"] == COMMAND),
            "{report:?}"
        );
    }
    let message = resumed.message().expect("something to tell the model");
    assert!(message.contains("was approved"), "{message}");
    resumed.client.send(message).await.unwrap();
    resumed.client
}

/// The session re-attached while its request is still parked: asked again (`reask`), the
/// callback parks it again, which waits on the request parked before the crash rather than a
/// new one; answered from here, the answer comes back, and the model's next request for the
/// call is given it. The client, its turn in flight.
#[cfg(target_os = "linux")]
async fn reattached_and_asked_again(
    options: twinwire::Options,
    session_id: &str,
    store: &DirectoryPendingStore,
    id: &str,
) -> twinwire::Client {
    let reattached = tokio::time::timeout(LIMIT, twinwire::Client::reattach(options, session_id))
        .await
        .expect("the re-attach ended")
        .unwrap();
    assert_eq!(reattached.report.pending_permissions.len(), 1);
    let answer_later = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(store.list().await.unwrap().len(), 1, "parked a second time");
        assert!(store
            .answer(id.into(), json!({"behavior": "allow"}))
            .await
            .unwrap());
    };
    let (answers, ()) = tokio::time::timeout(
        LIMIT,
        futures::future::join(reattached.reask(), answer_later),
    )
    .await
    .expect("asked again");
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(answers[0].allowed(), "{answers:?}");
    reattached
        .client
        .send("The Bash call was approved: run it again.")
        .await
        .unwrap();
    reattached.client
}
