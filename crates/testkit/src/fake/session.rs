//! The session: state shared by all threads, the stdin reader, and the main loop that plays
//! one turn per user message.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};

use super::control::{self, Router};
use super::frames::{self, Meta};
use super::io::{self, stderr_line, Output, Recorder};
use super::steps::Runner;
use crate::script::{Script, Turn};

/// One registered hook matcher from `initialize`.
#[derive(Clone, Debug)]
pub(crate) struct HookMatcher {
    pub(crate) matcher: Option<String>,
    pub(crate) callback_ids: Vec<String>,
    pub(crate) timeout: Option<Duration>,
}

/// Handshake progress with one SDK MCP server.
#[derive(Clone, Debug, Default)]
pub(crate) struct McpServer {
    pub(crate) initialized: bool,
    pub(crate) notified: bool,
    pub(crate) next_id: u64,
}

/// What host requests can change.
pub(crate) struct State {
    pub(crate) model: String,
    pub(crate) permission_mode: String,
    pub(crate) max_thinking_tokens: Value,
    pub(crate) hooks: BTreeMap<String, Vec<HookMatcher>>,
    pub(crate) sdk_mcp_servers: Vec<String>,
    pub(crate) mcp: HashMap<String, McpServer>,
}

/// Background step threads and the `idle` state they hold back.
#[derive(Default)]
struct Background {
    running: usize,
    turn_active: bool,
    idle_owed: bool,
}

/// Fixed facts about the process, read from argv and the environment.
pub(crate) struct Config {
    pub(crate) session_id: String,
    pub(crate) cwd: String,
    pub(crate) home: String,
    pub(crate) model: String,
    pub(crate) permission_mode: String,
    pub(crate) reads_session_state: bool,
    pub(crate) request_timeout: Duration,
}

/// Everything the threads of the fake share.
pub(crate) struct Shared {
    pub(crate) out: Output,
    pub(crate) rec: Recorder,
    pub(crate) router: Router,
    pub(crate) script: Script,
    pub(crate) config: Config,
    state: Mutex<State>,
    /// Number of user messages the reader has received.
    users_received: AtomicU64,
    /// 1 + `users_received` when the last unconsumed interrupt arrived (0: none).
    interrupt_at: AtomicU64,
    background: Mutex<Background>,
    background_done: Condvar,
    last_result_error: AtomicBool,
}

/// What the reader hands to the main loop, in arrival order.
enum Event {
    User(Value),
    Initialize { id: String, request: Value },
    Eof,
}

impl Shared {
    pub(crate) fn new(script: Script, config: Config, rec: Recorder) -> Self {
        let state = State {
            model: config.model.clone(),
            permission_mode: config.permission_mode.clone(),
            max_thinking_tokens: Value::Null,
            hooks: BTreeMap::new(),
            sdk_mcp_servers: Vec::new(),
            mcp: HashMap::new(),
        };
        Self {
            out: Output::new(),
            rec,
            router: Router::new(),
            script,
            config,
            state: Mutex::new(state),
            users_received: AtomicU64::new(0),
            interrupt_at: AtomicU64::new(0),
            background: Mutex::new(Background::default()),
            background_done: Condvar::new(),
            last_result_error: AtomicBool::new(false),
        }
    }

    /// The mutable session state.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn background(&self) -> MutexGuard<'_, Background> {
        match self.background.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Session id and current model, for building frames.
    pub(crate) fn meta(&self) -> Meta {
        Meta {
            session_id: self.config.session_id.clone(),
            model: self.state().model.clone(),
        }
    }

    /// Write `system/session_state_changed` if the host asked for them.
    pub(crate) fn session_state(&self, state: &str) {
        if self.config.reads_session_state {
            self.out.frame(&frames::session_state(&self.meta(), state));
        }
    }

    /// An `interrupt` request arrived: it hits the turn of the newest user message received.
    pub(crate) fn request_interrupt(&self) {
        let seen = self.users_received.load(Ordering::SeqCst);
        self.interrupt_at.store(seen + 1, Ordering::SeqCst);
    }

    /// Whether the turn answering user message number `turn` (1-based) is interrupted.
    pub(crate) fn interrupted(&self, turn: u64) -> bool {
        let at = self.interrupt_at.load(Ordering::SeqCst);
        turn > 0 && at > turn
    }

    /// Forget an interrupt that arrived before user message number `turn`.
    fn drop_stale_interrupt(&self, turn: u64) {
        let at = self.interrupt_at.load(Ordering::SeqCst);
        if at != 0 && at <= turn {
            let _ = self
                .interrupt_at
                .compare_exchange(at, 0, Ordering::SeqCst, Ordering::SeqCst);
        }
    }

    /// The turn acted on the interrupt; later turns are not affected by it.
    pub(crate) fn consume_interrupt(&self) {
        self.interrupt_at.store(0, Ordering::SeqCst);
    }

    /// Remember whether the last result was an error (the exit code depends on it).
    pub(crate) fn set_last_result_error(&self, is_error: bool) {
        self.last_result_error.store(is_error, Ordering::SeqCst);
    }

    /// A background step thread starts.
    pub(crate) fn background_started(&self) {
        self.background().running += 1;
    }

    /// A background step thread ended; write the `idle` a finished turn held back.
    pub(crate) fn background_finished(&self) {
        let mut bg = self.background();
        bg.running = bg.running.saturating_sub(1);
        if bg.running == 0 {
            if bg.idle_owed && !bg.turn_active {
                bg.idle_owed = false;
                self.session_state("idle");
            }
            self.background_done.notify_all();
        }
    }

    fn turn_started(&self) {
        let mut bg = self.background();
        bg.turn_active = true;
        bg.idle_owed = false;
    }

    fn turn_finished(&self) {
        let mut bg = self.background();
        bg.turn_active = false;
        if bg.running == 0 {
            self.session_state("idle");
        } else {
            bg.idle_owed = true;
        }
    }

    fn wait_for_background(&self) {
        let mut bg = self.background();
        while bg.running > 0 {
            bg = match self.background_done.wait(bg) {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
    }
}

/// Run the session until stdin closes; returns the exit code.
pub(crate) fn run(shared: Arc<Shared>) -> i32 {
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = Arc::clone(&shared);
    let spawned = std::thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || read_stdin(&reader, &tx));
    if let Err(err) = spawned {
        stderr_line(&format!(
            "fake-claude: cannot start the stdin reader: {err}"
        ));
        return 1;
    }
    main_loop(&shared, &rx);
    shared.wait_for_background();
    i32::from(shared.last_result_error.load(Ordering::SeqCst))
}

fn main_loop(shared: &Arc<Shared>, rx: &Receiver<Event>) {
    let mut turns = 0u64;
    while let Ok(event) = rx.recv() {
        match event {
            Event::User(frame) => {
                turns += 1;
                play_turn(shared, turns, &frame);
            }
            Event::Initialize { id, request } => initialize(shared, &id, &request),
            Event::Eof => return,
        }
    }
}

/// The stdin reader: records every line, routes answers, serves host requests, queues the rest.
fn read_stdin(shared: &Arc<Shared>, tx: &Sender<Event>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = input.read_until(b'\n', &mut buf);
        io::check_hung();
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let frame: Value = match serde_json::from_str(line) {
            Ok(frame) => frame,
            Err(err) => {
                shared.rec.line(&json!({"in_raw": line}));
                stderr_line(&format!(
                    "fake-claude: ignoring a line that is not JSON: {err}"
                ));
                continue;
            }
        };
        shared.rec.line(&json!({"in": frame}));
        let kind = frame
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "control_response" => {
                let response = frame.get("response").cloned().unwrap_or(Value::Null);
                if !shared.router.deliver(&response) {
                    shared.rec.line(&json!({"ignored_response": frame}));
                }
            }
            "control_request" => {
                let subtype = frame.pointer("/request/subtype").and_then(Value::as_str);
                if subtype == Some("initialize") {
                    let id = frame.get("request_id").and_then(Value::as_str);
                    let id = id.unwrap_or_default().to_string();
                    let request = frame.get("request").cloned().unwrap_or(Value::Null);
                    if tx.send(Event::Initialize { id, request }).is_err() {
                        return;
                    }
                } else {
                    control::serve_host_request(shared, &frame);
                }
            }
            "user" => {
                shared.users_received.fetch_add(1, Ordering::SeqCst);
                if tx.send(Event::User(frame)).is_err() {
                    return;
                }
            }
            // keep_alive, control_cancel_request (host requests are answered at once),
            // update_environment_variables and anything unknown: recorded, otherwise ignored.
            _ => {}
        }
    }
    io::check_hung();
    shared.router.close();
    let _ = tx.send(Event::Eof);
}

/// Serve `initialize`: remember hooks and SDK MCP servers, run the scripted steps, answer.
fn initialize(shared: &Arc<Shared>, id: &str, request: &Value) {
    if let Some(exit) = &shared.script.exit_at_initialize {
        io::exit_now(exit.code, &exit.stderr);
    }
    {
        let mut state = shared.state();
        state.hooks = parse_hooks(request.get("hooks"));
        if let Some(servers) = request.get("sdkMcpServers").and_then(Value::as_array) {
            state.sdk_mcp_servers = servers
                .iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect();
        }
    }
    let behaviour = &shared.script.initialize;
    let mut runner = Runner::new(shared, String::new(), 0);
    for step in &behaviour.before_response {
        runner.step(step);
    }
    let over = shared.script.requests.get("initialize");
    let delay = behaviour.delay_ms + over.map_or(0, |o| o.delay_ms);
    if delay > 0 {
        std::thread::sleep(Duration::from_millis(delay));
    }
    let payload = {
        let state = shared.state();
        frames::initialize_payload(&state.model, &state.permission_mode)
    };
    control::respond(shared, id, payload, over);
}

/// `{"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 5}]}`.
fn parse_hooks(hooks: Option<&Value>) -> BTreeMap<String, Vec<HookMatcher>> {
    let mut parsed = BTreeMap::new();
    let Some(Value::Object(events)) = hooks else {
        return parsed;
    };
    for (event, matchers) in events {
        let matchers = matchers.as_array().map(Vec::as_slice).unwrap_or_default();
        let list = matchers
            .iter()
            .map(|m| HookMatcher {
                matcher: m.get("matcher").and_then(Value::as_str).map(str::to_string),
                callback_ids: m
                    .get("hookCallbackIds")
                    .and_then(Value::as_array)
                    .map(|ids| {
                        ids.iter()
                            .filter_map(|id| id.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
                timeout: m
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .filter(|t| *t > 0.0)
                    .map(Duration::from_secs_f64),
            })
            .collect();
        parsed.insert(event.clone(), list);
    }
    parsed
}

/// The text of a user frame (text blocks joined by newlines, or a plain string content).
fn user_text(frame: &Value) -> String {
    match frame.pointer("/message/content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Play the turn answering user message number `turn` (1-based).
fn play_turn(shared: &Arc<Shared>, turn: u64, frame: &Value) {
    shared.drop_stale_interrupt(turn);
    shared.turn_started();
    shared.session_state("running");
    let prompt = user_text(frame);
    let echo;
    let steps = match usize::try_from(turn - 1)
        .ok()
        .and_then(|i| shared.script.turn(i))
    {
        Some(Turn { steps }) => steps,
        None => {
            echo = Script::echo();
            &echo.turns[0].steps
        }
    };
    let mut runner = Runner::new(shared, prompt.clone(), turn);
    if shared.script.auto_hooks {
        runner.auto_hook("UserPromptSubmit", json!({"prompt": prompt}));
    }
    let init = {
        let state = shared.state();
        let info = frames::InitInfo {
            cwd: &shared.config.cwd,
            permission_mode: &state.permission_mode,
            mcp_servers: &state.sdk_mcp_servers,
        };
        frames::system_init(
            &Meta {
                session_id: shared.config.session_id.clone(),
                model: state.model.clone(),
            },
            &info,
        )
    };
    shared.out.frame(&init);
    runner.play(steps);
    shared.turn_finished();
}
