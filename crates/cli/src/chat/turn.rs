//! One turn of `twinwire chat`: the prompt goes out, messages are shown until its result, with a
//! spinner while the model works; Ctrl-C interrupts the turn, a second Ctrl-C quits.

use std::io::{self, IsTerminal, Write};

use twinwire::protocol::content::{ContentBlock, UserContent};
use twinwire::protocol::result::ResultMessage;
use twinwire::protocol::stream::StreamEvent;
use twinwire::protocol::system::{SystemInit, SystemMessage};
use twinwire::protocol::Message;
use twinwire::Client;

use super::terminal::Spinner;
use crate::run::{self, Renderer, ShownTools, TurnCosts, INTERRUPT_GRACE};
use crate::terminal::{sanitize, wait_interrupt, Interrupts};

/// How a turn ended.
#[derive(Debug)]
pub enum TurnEnd {
    /// Its result came; `interrupted` after a Ctrl-C.
    Done { interrupted: bool },
    /// A second Ctrl-C, or an interrupted turn that did not end in time: quit now.
    Quit,
    /// The CLI's output ended (it exited or failed); the error, if one was reported.
    Ended(Option<twinwire::Error>),
    /// Its result said the CLI has no usable credentials: every prompt would fail the same way.
    NeedsLogin,
}

/// What this session's prompts in the chat cost (`/cost`), and what it last reported.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    /// The model of the latest `init`, or the last `/model` set.
    pub model: Option<String>,
    /// The permission mode of the latest `init`, or the last `/mode` set.
    pub mode: Option<String>,
    /// Prompts answered (each result's `num_turns` counts its steps).
    pub prompts: u64,
    /// The sum of the turns' own costs, in US dollars.
    pub cost_usd: f64,
    /// The session's running total from the CLI: more than `cost_usd` for a session resumed
    /// from an earlier run.
    pub session_cost_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub duration_ms: u64,
    pub api_duration_ms: u64,
    /// The session id of the latest `init` or result (or the one being resumed).
    pub session_id: Option<String>,
    /// Tells each turn's own cost.
    pub(super) costs: TurnCosts,
}

impl Totals {
    fn init(&mut self, init: &SystemInit) {
        self.model = Some(init.model.clone());
        self.mode = Some(init.permission_mode.as_str().to_owned());
        self.session_id = Some(init.session_id.clone());
    }

    /// Counts the turn `result` ends.
    pub fn add(&mut self, result: &ResultMessage) {
        self.prompts += 1;
        self.cost_usd += self.costs.turn(result);
        self.session_cost_usd = result.total_cost_usd;
        self.input_tokens += result.usage.input_tokens;
        self.output_tokens += result.usage.output_tokens;
        self.cache_read_tokens += result.usage.cache_read_input_tokens.unwrap_or_default();
        self.duration_ms += result.duration_ms;
        self.api_duration_ms += result.duration_api_ms;
        self.session_id = Some(result.session_id.clone());
    }
}

/// Shows the messages of one turn until its result.
pub async fn drive<O: Write, E: Write>(
    client: &Client,
    renderer: &mut Renderer<O, E>,
    shown: &ShownTools,
    spinner: &Spinner,
    interrupts: Option<&mut Interrupts>,
    totals: &mut Totals,
) -> TurnEnd {
    let mut interrupts = interrupts;
    let mut interrupted = false;
    spinner.show("thinking");
    let grace = tokio::time::sleep(INTERRUPT_GRACE);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            item = client.receive() => match item {
                None => {
                    spinner.hide();
                    return TurnEnd::Ended(None);
                }
                Some(Ok(message)) => {
                    if shows_something(&message) {
                        spinner.hide();
                    }
                    if run::show(renderer, shown, &message).is_err() {
                        spinner.hide();
                        return TurnEnd::Quit;
                    }
                    match &message {
                        Message::Result(result) => totals.add(result),
                        Message::System(system) => {
                            if let SystemMessage::Init(init) = system.as_ref() {
                                totals.init(init);
                            }
                        }
                        _ => {}
                    }
                    if message.result_is_error().is_some() {
                        spinner.hide();
                        if crate::run::needs_login(&message) {
                            return TurnEnd::NeedsLogin;
                        }
                        return TurnEnd::Done { interrupted };
                    }
                    if has_tool_results(&message) {
                        spinner.show("thinking");
                    }
                }
                Some(Err(err)) if err.is_recoverable() => {
                    spinner.hide();
                    let _ = renderer.note(&format!("twinwire: warning: {}", sanitize(&err.to_string())));
                }
                Some(Err(err)) => {
                    spinner.hide();
                    return TurnEnd::Ended(Some(err));
                }
            },
            () = wait_interrupt(interrupts.as_deref_mut()) => {
                spinner.hide();
                if interrupted {
                    return TurnEnd::Quit;
                }
                interrupted = true;
                renderer.interrupt_sent();
                // `^C` was echoed, maybe mid-line: start a fresh one.
                let fresh = if io::stderr().is_terminal() { "\n" } else { "" };
                let _ = renderer.note(&format!(
                    "{fresh}⏹ interrupting… (Ctrl-C again to quit)"
                ));
                let client = client.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(INTERRUPT_GRACE, client.interrupt()).await;
                });
                grace.as_mut().reset(tokio::time::Instant::now() + INTERRUPT_GRACE);
            },
            () = &mut grace, if interrupted => {
                let _ = renderer.note("twinwire: the interrupted turn did not end; quitting");
                return TurnEnd::Quit;
            }
        }
    }
}

/// Whether the renderer prints anything for `message` (the spinner must clear first).
fn shows_something(message: &Message) -> bool {
    match message {
        Message::Assistant(_) | Message::User(_) | Message::Result(_) => true,
        Message::StreamEvent(event) => matches!(event.event, StreamEvent::ContentBlockDelta(_)),
        _ => false,
    }
}

/// Whether `message` carries tool results (the model works again after them).
fn has_tool_results(message: &Message) -> bool {
    let Message::User(user) = message else {
        return false;
    };
    match &user.message.content {
        UserContent::Blocks(blocks) => blocks
            .iter()
            .any(|block| matches!(block, ContentBlock::ToolResult(_))),
        UserContent::Text(_) => false,
    }
}
