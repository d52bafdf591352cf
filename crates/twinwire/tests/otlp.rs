//! `examples/otlp.rs` exporting its spans to an OTLP receiver in this process (axum, decoding
//! `ExportTraceServiceRequest` from protobuf): the session, turn, tool, permission, hook and
//! control spans arrive with their names, parents and GenAI attributes, and the CLI got a
//! `TRACEPARENT` naming the session's span. Once against `fake-claude`, which records its
//! environment, and once against the real CLI offline, whose Bash tool prints it.

#![cfg(unix)]
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use axum::Router;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use serde_json::{json, Value};

/// How long one run of the example may take (it builds nothing; a loaded machine is slow).
const RUN_LIMIT: Duration = Duration::from_secs(300);

#[tokio::test(flavor = "multi_thread")]
async fn the_spans_of_a_session_reach_an_otlp_receiver_and_the_cli_gets_their_context() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let record = dir.path().join("record.jsonl");
    std::fs::write(
        &script,
        json!({"turns": [{"steps": [
            {"tool": {"name": "Bash", "input": {"command": "echo hi"}, "ask": true,
                      "output": "hi"}},
            {"text": "done"}
        ]}]})
        .to_string(),
    )
    .unwrap();
    let receiver = Receiver::start().await;
    let output = run(
        tokio::process::Command::new(built_example("otlp"))
            .current_dir(dir.path())
            .env("TWINWIRE_CLI_PATH", fake_claude())
            .env("TWINWIRE_FAKE_SCRIPT", &script)
            .env("TWINWIRE_FAKE_RECORD", &record),
        &receiver,
    )
    .await;
    assert!(output.contains("allowed Bash"), "{output}");

    let spans = receiver.spans();
    let one = |name: &str| -> &Span {
        let found: Vec<&Span> = spans.iter().filter(|s| s.name == name).collect();
        assert_eq!(found.len(), 1, "one `{name}` span in {}", names(&spans));
        found[0]
    };
    let root = one("otlp_example");
    let session = one("session");
    let turn = one("invoke_agent");
    let tool = one("execute_tool");
    let permission = one("can_use_tool");
    let hook = one("hook");
    assert_eq!(session.parent_span_id, root.span_id);
    assert_eq!(turn.parent_span_id, session.span_id);
    assert_eq!(tool.parent_span_id, turn.span_id);
    assert_eq!(permission.parent_span_id, tool.span_id);
    assert_eq!(hook.parent_span_id, tool.span_id);
    for span in &spans {
        assert_eq!(
            span.trace_id, root.trace_id,
            "{} in another trace",
            span.name
        );
    }

    // The GenAI attributes, filled as the session told them.
    let session_id = text(session, "gen_ai.conversation.id");
    assert_eq!(session_id.len(), 36, "a session id: {session_id}");
    assert_eq!(text(session, "gen_ai.provider.name"), "anthropic");
    assert!(!text(session, "gen_ai.response.model").is_empty());
    assert_eq!(text(turn, "gen_ai.operation.name"), "invoke_agent");
    assert_eq!(text(turn, "gen_ai.conversation.id"), session_id);
    assert!(attribute(turn, "gen_ai.usage.input_tokens").is_some());
    assert!(attribute(turn, "gen_ai.usage.output_tokens").is_some());
    assert_eq!(text(tool, "gen_ai.operation.name"), "execute_tool");
    assert_eq!(text(tool, "gen_ai.tool.name"), "Bash");
    let call_id = text(tool, "gen_ai.tool.call.id");
    assert!(!call_id.is_empty());
    assert_eq!(text(permission, "gen_ai.tool.call.id"), call_id);
    assert_eq!(text(permission, "twinwire.permission.behavior"), "allow");
    assert_eq!(text(hook, "twinwire.hook.event"), "PreToolUse");
    assert_eq!(text(hook, "gen_ai.tool.call.id"), call_id);

    // Each control round trip, both ways, under the session.
    let control = |direction: &str, subtype: &str| {
        let found: Vec<&Span> = spans
            .iter()
            .filter(|s| s.name == "control")
            .filter(|s| text(s, "twinwire.control.direction") == direction)
            .filter(|s| text(s, "twinwire.control.subtype") == subtype)
            .collect();
        assert_eq!(found.len(), 1, "{direction} {subtype} in {}", names(&spans));
        assert_eq!(found[0].parent_span_id, session.span_id);
        assert!(!text(found[0], "twinwire.control.request_id").is_empty());
    };
    control("outgoing", "initialize");
    control("incoming", "can_use_tool");
    control("incoming", "hook_callback");

    // The CLI's environment had the session span's context.
    let started: Value = serde_json::from_str(
        std::fs::read_to_string(&record)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let traceparent = started["env"]["TRACEPARENT"].as_str().unwrap_or_default();
    assert_eq!(
        traceparent,
        format!("00-{}-{}-01", hex(&session.trace_id), hex(&session.span_id)),
        "the CLI's TRACEPARENT"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_real_cli_gets_the_session_trace_context_in_its_tools() {
    let receiver = Receiver::start().await;
    // The runner takes the example as built when `TWINWIRE_PREBUILT` is set (`cargo xtask
    // test`): built here with the feature it needs.
    built_example("otlp");
    let output = run(
        tokio::process::Command::new(built_example("offline"))
            .arg("otlp")
            .env("TWINWIRE_CLI_PATH", claude()),
        &receiver,
    )
    .await;
    let spans = receiver.spans();
    let session = spans
        .iter()
        .find(|s| s.name == "session")
        .unwrap_or_else(|| panic!("no session span in {}", names(&spans)));
    let expected = format!(
        "tool result: TRACEPARENT=00-{}-{}-01",
        hex(&session.trace_id),
        hex(&session.span_id)
    );
    assert!(
        output.lines().any(|line| line == expected),
        "{expected:?} in\n{output}"
    );
    let tool = spans
        .iter()
        .find(|s| s.name == "execute_tool")
        .unwrap_or_else(|| panic!("no execute_tool span in {}", names(&spans)));
    assert_eq!(text(tool, "gen_ai.tool.name"), "Bash");
}

#[tokio::test]
async fn a_trace_context_set_in_the_options_wins_over_the_sessions() {
    use opentelemetry::trace::TracerProvider as _;
    use tracing::Instrument as _;
    use tracing_subscriber::layer::SubscriberExt as _;

    // An OpenTelemetry layer, so that the session's span has a context of its own to give.
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let _guard = tracing::subscriber::set_default(subscriber);
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let explicit = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let options = twinwire::Options::builder()
        .cli_path(fake_claude())
        .cwd(dir.path())
        .env("TWINWIRE_FAKE_RECORD", record.clone())
        .env("TRACEPARENT", explicit)
        .env("TRACESTATE", "mine=1")
        .build()
        .unwrap();
    let client = twinwire::Client::connect(options)
        .instrument(tracing::info_span!("root"))
        .await
        .unwrap();
    client.close().await.unwrap();
    let started: Value = serde_json::from_str(
        std::fs::read_to_string(&record)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(started["env"]["TRACEPARENT"], explicit);
    assert_eq!(started["env"]["TRACESTATE"], "mine=1");
}

/// Runs `command` with the receiver as its OTLP endpoint; returns its stdout once it exited 0.
async fn run(command: &mut tokio::process::Command, receiver: &Receiver) -> String {
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().expect("starting the example");
    let output = tokio::time::timeout(RUN_LIMIT, child.wait_with_output())
        .await
        .expect("the example did not finish in time")
        .expect("waiting for the example");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
}

/// An OTLP/HTTP trace receiver: every span of every export, in order.
struct Receiver {
    url: String,
    spans: Arc<Mutex<Vec<Span>>>,
}

impl Receiver {
    async fn start() -> Self {
        let spans = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new()
            .route("/v1/traces", post(export))
            .with_state(Arc::clone(&spans));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { url, spans }
    }

    fn url(&self) -> &str {
        &self.url
    }

    fn spans(&self) -> Vec<Span> {
        self.spans.lock().unwrap().clone()
    }
}

async fn export(
    State(spans): State<Arc<Mutex<Vec<Span>>>>,
    body: Bytes,
) -> ([(&'static str, &'static str); 1], Vec<u8>) {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
    let mut spans = spans.lock().unwrap();
    for resource in request.resource_spans {
        for scope in resource.scope_spans {
            spans.extend(scope.spans);
        }
    }
    (
        [("content-type", "application/x-protobuf")],
        ExportTraceServiceResponse::default().encode_to_vec(),
    )
}

fn attribute<'a>(span: &'a Span, key: &str) -> Option<&'a Any> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|value| value.value.as_ref())
}

/// A string attribute of `span` (empty when it has none).
fn text<'a>(span: &'a Span, key: &str) -> &'a str {
    match attribute(span, key) {
        Some(Any::StringValue(value)) => value,
        _ => "",
    }
}

fn names(spans: &[Span]) -> String {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for span in spans {
        *counts.entry(&span.name).or_default() += 1;
    }
    format!("{counts:?}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `target/<profile>`, where this test runs from (`deps/otlp-<hash>`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps")
        .to_owned()
}

/// Builds with cargo, in this test's profile.
fn cargo_build(args: &[&str]) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build.args(["build", "--quiet"]).args(args);
    if profile_dir()
        .file_name()
        .is_some_and(|name| name == "release")
    {
        build.arg("--release");
    }
    let status = build.status().expect("running cargo build");
    assert!(status.success(), "cargo build {args:?} failed");
}

/// An example of this crate, built with the feature `opentelemetry` so that it is current.
fn built_example(name: &str) -> PathBuf {
    cargo_build(&[
        "-p",
        "twinwire",
        "--features",
        "opentelemetry",
        "--example",
        name,
    ]);
    profile_dir().join("examples").join(name)
}

/// `fake-claude`, built so that it is current (under `cargo xtask test`, `TWINWIRE_PREBUILT`,
/// it is already, in the selection of the whole workspace, and taken as it is).
fn fake_claude() -> PathBuf {
    if std::env::var_os("TWINWIRE_PREBUILT").is_none() {
        cargo_build(&["-p", "twinwire-testkit", "--bin", "fake-claude"]);
    }
    profile_dir().join("fake-claude")
}

/// The real CLI: `$TWINWIRE_CLAUDE_PATH` (set by `cargo xtask test`), else the pinned one
/// `cargo xtask install-claude` caches.
fn claude() -> PathBuf {
    let path = std::env::var_os("TWINWIRE_CLAUDE_PATH")
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let cache = std::env::var_os("TWINWIRE_CACHE_DIR")
                .map(PathBuf::from)
                .or_else(|| {
                    Some(PathBuf::from(std::env::var_os("HOME")?).join(".cache/twinwire"))
                })?;
            Some(cache.join("claude-code/2.1.330/claude"))
        })
        .expect("no cache directory: set TWINWIRE_CLAUDE_PATH or HOME");
    assert!(
        path.is_file(),
        "no Claude Code CLI at {}: run `cargo xtask install-claude`, or set TWINWIRE_CLAUDE_PATH",
        path.display()
    );
    path
}
