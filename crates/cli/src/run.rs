//! `twinwire run`: one prompt through Claude Code, shown as it happens.
//!
//! The session runs on a [`Client`]: the prompt is sent, stdin closes once the CLI is done
//! (after the result, and idle when it reports its state), and every message goes through a
//! [`Renderer`]. Tool permissions come from `--allow` / `--deny` and, on a terminal, from the
//! user ([`permission`]). Ctrl-C interrupts the turn and closes the session (exit 130); a
//! second Ctrl-C stops at once.

mod label;
pub mod permission;
mod render;
mod summary;

use std::io::{self, IsTerminal, Read, Write};
use std::sync::Arc;
use std::time::Duration;

use twinwire::protocol::Message;
use twinwire::Client;

use crate::connect::{login_hint, offline_note, on_runtime, start_failure, ConnectArgs};
use crate::terminal::{sanitize, wait_interrupt, Interrupts, Style};
pub use label::truncate;
use permission::Permissions;
pub use permission::ShownTools;
pub use render::{OutputMode, Renderer};
pub use summary::TurnCosts;

/// Exit code after Ctrl-C, as shells use for SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

/// How long an interrupted turn may take to end before the session is closed anyway.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(5);

/// Options of `twinwire run`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
PATTERNS (--allow, --deny):
  Write               every call of a tool
  mcp__*              tools whose name matches a glob (* any run of characters, ? one)
  Bash(git log*)      Bash commands starting with `git log`
  Bash(npm test:*)    `npm test`, or `npm test` followed by arguments
  Write(/tmp/*)       file tools by path, Grep/Glob by pattern, WebFetch by URL
  Deny wins over allow. A compound command (&&, ||, ;, |, subshells) is allowed only when
  every part is. On a terminal, calls no pattern decides are asked; otherwise they are denied.

EXAMPLES:
  twinwire run 'What does this repository do?'
  twinwire run --allow 'Bash(cargo test*)' --allow Edit 'Fix the failing test'
  twinwire run --offline --allow 'Bash(echo:*)' --allow 'Edit(./twinwire-demo.txt)' 'Try the demo'
  twinwire run --output jsonl 'Summarize README.md' | jq -c 'select(.type == \"result\")'")]
pub struct RunArgs {
    /// The prompt; `-` reads it from stdin.
    pub prompt: String,
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Stream the assistant's text as it is generated.
    #[arg(long)]
    pub include_partial_messages: bool,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputMode,
    /// Never ask on the terminal: what no pattern allows is denied.
    #[arg(long)]
    pub no_prompt: bool,
}

/// Runs the session; returns the exit code: 0 on success, 1 on an error result or a failure,
/// 130 after Ctrl-C.
pub fn run(args: &RunArgs) -> u8 {
    on_runtime(session(args))
}

async fn session(args: &RunArgs) -> u8 {
    let style = Style::detect(io::stdout().is_terminal());
    let err_style = Style::detect(io::stderr().is_terminal());
    let interactive = !args.no_prompt
        && args.prompt != "-"
        && io::stdin().is_terminal()
        && io::stderr().is_terminal();
    let mut renderer = Renderer::new(io::stdout(), io::stderr(), args.output, style)
        .with_denial_hints((!interactive).then(|| args.connect.rules()))
        .with_raw_text(args.connect.raw)
        .with_verbose(args.connect.verbose);

    let prompt = match read_prompt(&args.prompt) {
        Ok(prompt) => prompt,
        Err(err) => {
            return fail(
                &mut renderer,
                &format!("twinwire: reading the prompt: {err}"),
            )
        }
    };
    let rules = args.connect.rules();
    let shown = Arc::new(ShownTools::default());
    let permissions = if interactive {
        Permissions::interactive(rules, err_style, shown.clone())
    } else {
        Permissions::new(rules)
    };
    let offline = match args.connect.offline().await {
        Ok(offline) => offline,
        Err(err) => return fail(&mut renderer, &format!("twinwire: {err:#}")),
    };
    if let Some(offline) = &offline {
        let _ = renderer.note(&err_style.dim(&offline_note(offline)));
    }
    let unresumable = args
        .connect
        .resume
        .as_deref()
        .and_then(|id| args.connect.unresumable(id, offline.as_ref()));
    if let Some(problem) = unresumable {
        return fail(&mut renderer, &format!("twinwire: {problem}"));
    }
    let partial = args.include_partial_messages;
    let options = match args.connect.options(
        permissions.into_callback(),
        offline.as_ref(),
        err_style,
        |builder| builder.include_partial_messages(partial),
    ) {
        Ok(options) => options,
        Err(err) => return fail(&mut renderer, &format!("twinwire: {err}")),
    };
    let client = match Client::connect(options).await {
        Ok(client) => client,
        Err(err) => return fail(&mut renderer, &start_failure(&err)),
    };
    if let Err(err) = client.send(prompt).await {
        let _ = client.close().await;
        let err = sanitize(&err.to_string()).into_owned();
        return fail(
            &mut renderer,
            &format!("twinwire: sending the prompt: {err}"),
        );
    }
    let closer = {
        let client = client.clone();
        tokio::spawn(async move { client.end_input_when_idle().await })
    };

    let outcome = drive(&client, &mut renderer, &shown).await;
    closer.abort();
    let _ = renderer.end_line();
    match outcome.stop {
        Stop::Now => drop(client),
        Stop::Gracefully => {
            let _ = client.close().await;
        }
    }
    drop(offline);
    if let (Some(session), OutputMode::Text) = (&outcome.session_id, args.output) {
        let command = args.connect.resume_command("run", session);
        let _ = renderer.note(&err_style.dim(&format!(
            "session {} · continue it with: {command} PROMPT",
            sanitize(session)
        )));
    }

    if outcome.interrupted {
        return EXIT_INTERRUPTED;
    }
    if let Some(err) = outcome.failure {
        // The error may carry the CLI's stderr.
        return fail(
            &mut renderer,
            &format!("twinwire: {}", sanitize(&err.to_string())),
        );
    }
    match outcome.result_is_error {
        Some(true) if outcome.needs_login => fail(&mut renderer, &login_hint("run")),
        Some(true) => 1,
        Some(false) => 0,
        None => fail(&mut renderer, "twinwire: the CLI ended without a result"),
    }
}

/// How the message loop ended.
struct Outcome {
    /// Whether the last result (typed or not) was an error; `None` before any.
    result_is_error: Option<bool>,
    /// Whether that error was the CLI's want of credentials.
    needs_login: bool,
    /// The session's id, from its first message that names it.
    session_id: Option<String>,
    interrupted: bool,
    failure: Option<twinwire::Error>,
    stop: Stop,
}

enum Stop {
    /// Close stdin, wait, then terminate.
    Gracefully,
    /// Kill the CLI now (a second Ctrl-C).
    Now,
}

/// Shows every message until the CLI's output ends, or an interrupted turn ends.
async fn drive<O: Write, E: Write>(
    client: &Client,
    renderer: &mut Renderer<O, E>,
    shown: &ShownTools,
) -> Outcome {
    let mut outcome = Outcome {
        result_is_error: None,
        needs_login: false,
        session_id: None,
        interrupted: false,
        failure: None,
        stop: Stop::Gracefully,
    };
    let mut interrupts = match Interrupts::new() {
        Ok(interrupts) => Some(interrupts),
        Err(err) => {
            let _ = renderer.note(&format!("twinwire: warning: Ctrl-C not handled: {err}"));
            None
        }
    };
    let grace = tokio::time::sleep(Duration::MAX / 4);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            item = client.receive() => match item {
                None => break,
                Some(Ok(message)) => {
                    if show(renderer, shown, &message).is_err() {
                        // stdout is gone (e.g. piped into `head`): nobody is reading any more.
                        break;
                    }
                    if outcome.session_id.is_none() {
                        outcome.session_id = message
                            .session_id()
                            .filter(|id| !id.is_empty())
                            .map(str::to_owned);
                    }
                    if let Some(is_error) = message.result_is_error() {
                        outcome.result_is_error = Some(is_error);
                        outcome.needs_login = needs_login(&message);
                        if outcome.interrupted {
                            break;
                        }
                    }
                }
                Some(Err(err)) if err.is_recoverable() => {
                    let _ = renderer.note(&format!("twinwire: warning: {}", sanitize(&err.to_string())));
                }
                Some(Err(err)) => {
                    outcome.failure = Some(err);
                    break;
                }
            },
            () = wait_interrupt(interrupts.as_mut()) => {
                if outcome.interrupted {
                    outcome.stop = Stop::Now;
                    break;
                }
                outcome.interrupted = true;
                renderer.interrupt_sent();
                // On a terminal `^C` was echoed, maybe after a question: start a fresh line.
                let fresh = if io::stderr().is_terminal() { "\n" } else { "" };
                let _ = renderer.note(&format!(
                    "{fresh}⏹ interrupting… (Ctrl-C again to stop at once)"
                ));
                let client = client.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(INTERRUPT_GRACE, client.interrupt()).await;
                });
                grace.as_mut().reset(tokio::time::Instant::now() + INTERRUPT_GRACE);
            },
            () = &mut grace, if outcome.interrupted => break,
        }
    }
    outcome
}

/// Shows one message: renders it, records its tool calls as shown (a permission question
/// waits for its call's line) and warns about a frame kept raw. An error means stdout is gone.
pub fn show<O: Write, E: Write>(
    renderer: &mut Renderer<O, E>,
    shown: &ShownTools,
    message: &Message,
) -> io::Result<()> {
    renderer.message(message)?;
    if let Message::Assistant(assistant) = message {
        for tool in assistant.message.tool_uses() {
            shown.mark(&tool.id);
        }
    }
    if let Some(malformed) = message.as_malformed() {
        let kind = message.kind();
        let _ = renderer.note(&format!(
            "twinwire: warning: a `{}` frame could not be read ({}); kept raw",
            sanitize(&kind),
            sanitize(&malformed.to_string())
        ));
    }
    Ok(())
}

/// Whether `message` is a result that failed for want of credentials (`Not logged in ·
/// Please run /login`).
pub fn needs_login(message: &Message) -> bool {
    message
        .result_error()
        .is_some_and(|error| error.needs_login())
}

fn read_prompt(prompt: &str) -> io::Result<String> {
    if prompt != "-" {
        return Ok(prompt.to_owned());
    }
    let mut text = String::new();
    io::stdin().read_to_string(&mut text)?;
    Ok(text)
}

/// Writes `message` to stderr and returns exit code 1.
fn fail<O: Write, E: Write>(renderer: &mut Renderer<O, E>, message: &str) -> u8 {
    let _ = renderer.note(message);
    1
}
