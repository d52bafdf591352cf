//! One case played to one CLI: a fresh tree, a model server playing the case's script, the CLI
//! driven through twinwire's `Client` (every tool call allowed through `can_use_tool`), the
//! tree photographed each time the CLI asks the model (so each step's effect is known), and
//! what the CLI told the model after each step read back from the requests.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::options::Tools;
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::{Client, Options};
use twinwire_model_server::ModelServer;

use crate::case::{step_marker, Case};
use crate::tree::{snapshot, Tree};
use crate::web::WebServer;

/// How long one turn may take.
const TURN_LIMIT: Duration = Duration::from_secs(90);

/// The CLI under test.
#[derive(Debug, Clone)]
pub struct Cli {
    /// Its executable.
    pub path: PathBuf,
}

/// What one run gave.
#[derive(Debug, Default)]
pub struct Run {
    /// The case's root (`work/`, `outside/`, `home/`, `tmp/`), deleted with the run.
    pub root: PathBuf,
    /// The URL of the local web server.
    pub web: String,
    /// Every message request, in order.
    pub requests: Vec<Value>,
    /// The same requests with their paths and headers.
    pub recorded: Vec<twinwire_model_server::RecordedRequest>,
    /// The tree before the first step, and after each step by its label.
    pub trees: Vec<(String, Tree)>,
    /// What went wrong, when the run did not finish.
    pub failure: Option<String>,
    /// The CLI's stderr.
    pub stderr: String,
    /// The host frames of the whole run.
    pub frames: Vec<Value>,
    /// The calls the CLI asked the host about: (tool use id, tool).
    pub asked: Vec<(String, String)>,
    _dir: Option<Arc<tempfile::TempDir>>,
}

/// Plays `case` to `cli`.
pub async fn play(case: &Case, cli: &Cli) -> Run {
    let dir = tempfile::Builder::new()
        .prefix("fidelity-")
        .tempdir()
        .expect("a scratch directory");
    let root = dir.path().canonicalize().expect("the scratch directory");
    for sub in ["work", "outside", "home", "tmp"] {
        std::fs::create_dir_all(root.join(sub)).expect("a directory");
    }
    build_tree(case, &root);
    let certificate = root.join("web-ca.pem");
    let web = WebServer::start(case.pages.clone(), &certificate).await;
    let server = ModelServer::start(case.script(&root, &web.url()))
        .await
        .expect("the model server starts");
    let trees = Arc::new(Mutex::new(vec![("0".to_owned(), snapshot(&root))]));
    {
        let trees = Arc::clone(&trees);
        let root = root.clone();
        let labels: Vec<String> = case.labelled_steps().into_iter().map(|(l, _)| l).collect();
        server.observe(Arc::new(move |body: &Value| {
            let Some(label) = last_step(body, &labels) else {
                return;
            };
            let mut trees = trees.lock().unwrap();
            if trees.iter().all(|(seen, _)| *seen != label) {
                trees.push((label, snapshot(&root)));
            }
        }));
    }
    let stderr = Arc::new(Mutex::new(Vec::<String>::new()));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut run = Run {
        root: root.clone(),
        web: web.url(),
        ..Run::default()
    };
    let options = options(
        case,
        cli,
        &root,
        &certificate,
        &server.url(),
        Arc::clone(&stderr),
        Arc::clone(&asked),
    );
    match drive(case, options).await {
        Ok(frames) => run.frames = frames,
        Err(why) => run.failure = Some(why),
    }
    run.requests = server.message_requests();
    run.recorded = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.split('?').next() == Some("/v1/messages"))
        .collect();
    server.shutdown().await;
    web.stop();
    run.trees = std::mem::take(&mut *trees.lock().unwrap());
    run.stderr = stderr.lock().unwrap().join("\n");
    run.asked = std::mem::take(&mut *asked.lock().unwrap());
    run._dir = Some(Arc::new(dir));
    run
}

/// The case's starting files, their modes and their ages (older first).
fn build_tree(case: &Case, root: &Path) {
    let epoch = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for dir in &case.dirs {
        std::fs::create_dir_all(root.join(dir)).expect("a directory");
    }
    for file in &case.files {
        let path = root.join(&file.path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(&path, &file.content).expect("a file");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(file.mode))
            .expect("a mode");
        let when = epoch + Duration::from_secs(file.age * 60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(when))
            .expect("a modification time");
    }
}

/// The label of the newest step whose reply is in the conversation.
fn last_step(body: &Value, labels: &[String]) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let last = messages.iter().rev().find(|m| m["role"] == "assistant")?;
    let text = last["content"].to_string();
    labels.iter().rev().find_map(|label| {
        let (t, s) = label.split_once('.')?;
        let marker = step_marker(t.parse().ok()?, s.parse().ok()?);
        text.contains(&marker).then(|| label.clone())
    })
}

#[allow(clippy::too_many_arguments)]
fn options(
    case: &Case,
    cli: &Cli,
    root: &Path,
    certificate: &Path,
    model_url: &str,
    stderr: Arc<Mutex<Vec<String>>>,
    asked: Arc<Mutex<Vec<(String, String)>>>,
) -> Options {
    let home = root.join("home");
    let tmp = root.join("tmp");
    let allow_all = can_use_tool(move |request: PermissionRequest| {
        asked.lock().unwrap().push((
            request.request.tool_use_id.clone().unwrap_or_default(),
            request.tool_name().to_owned(),
        ));
        let input = answered(request.tool_name(), request.input());
        async move { Ok(PermissionResult::allow(input)) }
    });
    let mut builder = Options::builder()
        .cli_path(&cli.path)
        .cwd(root.join("work"))
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("ANTHROPIC_BASE_URL", model_url)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env("NODE_EXTRA_CA_CERTS", certificate)
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("ANTHROPIC_MODEL")
        .env_remove("ANTHROPIC_SMALL_FAST_MODEL")
        .env_remove("ANTHROPIC_CUSTOM_HEADERS")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_USE_BEDROCK")
        .env_remove("CLAUDE_CODE_USE_VERTEX")
        .env_remove("IS_SANDBOX")
        .tools(Tools::only(case.tools.clone()))
        .can_use_tool(allow_all)
        .request_timeout(Duration::from_secs(60))
        .initialize_timeout(Duration::from_secs(60))
        .stderr(move |line: &str| stderr.lock().unwrap().push(line.to_owned()));
    for (key, value) in &case.env {
        builder = builder.env(key, value);
    }
    if case.preset_prompt {
        builder = builder.system_prompt(twinwire::options::SystemPrompt::preset());
    }
    for (key, value) in &case.args {
        let value = value
            .as_ref()
            .map(|v| v.replace("{memo}", &memo_mcp().display().to_string()));
        builder = builder.extra_arg(key.trim_start_matches('-'), value);
    }
    builder.build().expect("valid options")
}

/// `memo-mcp` (twinwire-testkit's MCP server with a resource), built once beside this test.
pub fn memo_mcp() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let agent = PathBuf::from(env!("CARGO_BIN_EXE_twinwire-agent"));
            let path = agent.with_file_name("memo-mcp");
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "-p", "twinwire-testkit", "--bin", "memo-mcp"])
                .status()
                .expect("cargo runs");
            assert!(status.success(), "building memo-mcp failed");
            path
        })
        .clone()
}

/// The host's answer to `AskUserQuestion`: each question answered with its first option.
fn answered(tool: &str, input: &Value) -> Value {
    if tool != "AskUserQuestion" {
        return input.clone();
    }
    let mut answers = serde_json::Map::new();
    for question in input["questions"].as_array().into_iter().flatten() {
        if let (Some(text), Some(label)) = (
            question["question"].as_str(),
            question["options"][0]["label"].as_str(),
        ) {
            answers.insert(text.to_owned(), json!(label));
        }
    }
    let mut input = input.clone();
    input["answers"] = Value::Object(answers);
    input
}

/// Every turn of the case, each to its result; the frames the host read.
async fn drive(case: &Case, options: Options) -> Result<Vec<Value>, String> {
    let client = tokio::time::timeout(TURN_LIMIT, Client::connect(options))
        .await
        .map_err(|_| "connect timed out".to_owned())?
        .map_err(|err| format!("connect failed: {err}"))?;
    let mut frames = Vec::new();
    let mut failure = None;
    for t in 1..=case.turns.len() {
        let turn = async {
            client
                .send(case.prompt(t))
                .await
                .map_err(|err| format!("send: {err}"))?;
            let mut stream = std::pin::pin!(client.receive_response());
            let mut seen = Vec::new();
            while let Some(message) = stream.next().await {
                match message {
                    Ok(message) => {
                        let done = matches!(message, Message::Result(_));
                        seen.push(message.to_value());
                        if done {
                            return Ok(seen);
                        }
                    }
                    Err(err) => return Err(format!("turn {t}: {err}")),
                }
            }
            Err(format!("turn {t}: the stream ended without a result"))
        };
        match tokio::time::timeout(TURN_LIMIT, turn).await {
            Ok(Ok(seen)) => frames.extend(seen),
            Ok(Err(why)) => {
                failure = Some(why);
                break;
            }
            Err(_) => {
                failure = Some(format!("turn {t} timed out"));
                break;
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(20), client.close()).await;
    match failure {
        Some(why) => Err(why),
        None => Ok(frames),
    }
}

/// What the CLI told the model right after step `label`: the messages after that step's
/// reply in the first request that has it.
pub fn after_step(run: &Run, label: &str) -> Option<(Value, Vec<Value>)> {
    let (t, s) = label.split_once('.')?;
    let marker = step_marker(t.parse().ok()?, s.parse().ok()?);
    for body in &run.requests {
        let Some(messages) = body["messages"].as_array() else {
            continue;
        };
        let at = messages
            .iter()
            .position(|m| m["role"] == "assistant" && m["content"].to_string().contains(&marker));
        if let Some(at) = at {
            return Some((messages[at].clone(), messages[at + 1..].to_vec()));
        }
    }
    None
}

/// The first request of the conversation (not one of the CLI's own questions).
pub fn first_request(run: &Run) -> Option<&twinwire_model_server::RecordedRequest> {
    run.recorded.iter().find(|request| {
        let messages = request.body["messages"].as_array();
        messages.is_some_and(|m| {
            m.iter().all(|m| m["role"] != "assistant")
                && m.iter()
                    .any(|m| m["content"].to_string().contains("⟨turn 1⟩"))
        })
    })
}

/// The trees before and after `label`.
pub fn trees_around<'a>(run: &'a Run, label: &str) -> Option<(&'a Tree, &'a Tree)> {
    let at = run.trees.iter().position(|(seen, _)| seen == label)?;
    let before = &run.trees[..at];
    // The tree after the step before: the newest earlier photograph.
    let (_, previous) = before.last()?;
    Some((previous, &run.trees[at].1))
}
