//! `twinwire chat`: a conversation with Claude Code in the terminal, on one [`Client`].
//!
//! Each line typed is a prompt (or a slash command, [`commands`]); its turn is shown as
//! `twinwire run` shows one ([`turn`]), streamed, with tool permissions asked at the terminal.
//! Ctrl-C interrupts a turn, a second one quits; at the prompt, Ctrl-D (or Ctrl-C twice) quits.
//! On the way out the CLI is closed (stdin, then signals) so that nothing is left running.

mod commands;
mod terminal;
mod turn;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use twinwire::Client;

use crate::connect::{offline_note, on_runtime, start_failure, ConnectArgs};
use crate::offline::Offline;
use crate::run::permission::Permissions;
use crate::run::{OutputMode, Renderer, ShownTools, EXIT_INTERRUPTED};
use crate::terminal::{sanitize, Interrupts, Style};
use commands::Command;
use terminal::{Read, Terminal};
use turn::{Totals, TurnEnd};

/// How long a quitting chat waits for the CLI to close before killing it.
const QUIT_WAIT: Duration = Duration::from_secs(3);

/// Options of `twinwire chat`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
At the prompt: Enter sends, Ctrl-R searches the history, Ctrl-D quits. During a turn: Ctrl-C
interrupts it, a second Ctrl-C quits. Tool calls that no --allow/--deny pattern decides are
asked: [y]es once, [a]lways (the rule shown, for the rest of the chat), [n]o.
Type /help for the commands.

EXAMPLES:
  twinwire chat
  twinwire chat --allow 'Bash(cargo test:*)' --allow 'Edit(./src/**)'
  twinwire chat --offline")]
pub struct ChatArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The history file (default: $XDG_STATE_HOME/twinwire/chat-history, else
    /// ~/.local/state/twinwire/chat-history); created readable by you only.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Keep no history file.
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
}

/// Runs the chat; returns the exit code: 0 after a normal end, 1 after a failure, 130 after
/// a quit by Ctrl-C during a turn.
pub fn run(args: &ChatArgs) -> u8 {
    if !io::stdin().is_terminal() {
        let _ = writeln!(
            io::stderr(),
            "twinwire: chat needs a terminal on stdin; for a prompt from a script, use `twinwire run`"
        );
        return 2;
    }
    on_runtime(chat(args))
}

/// One connected session and what belongs to it.
struct Session {
    client: Client,
    /// Keeps the offline model server and private home alive while the session runs.
    _offline: Option<Arc<Offline>>,
}

async fn chat(args: &ChatArgs) -> u8 {
    let style = Style::detect(io::stdout().is_terminal());
    let err_style = Style::detect(io::stderr().is_terminal());
    let mut renderer = Renderer::new(io::stdout(), io::stderr(), OutputMode::Text, style)
        .with_raw_text(args.connect.raw)
        .with_verbose(args.connect.verbose);
    let history = if args.no_history {
        None
    } else {
        args.history
            .clone()
            .or_else(|| crate::offline::state_dir().map(|dir| dir.join("chat-history")))
    };
    let terminal = match Terminal::start(history) {
        Ok(terminal) => terminal,
        Err(err) => return fail(&mut renderer, &format!("twinwire: the terminal: {err}")),
    };
    let shown = Arc::new(ShownTools::default());
    let permissions = Arc::new(Permissions::asking(
        args.connect.rules(),
        err_style,
        shown.clone(),
        Box::new(terminal.clone()),
    ));
    let offline = match args.connect.offline().await {
        Ok(offline) => offline.map(Arc::new),
        Err(err) => return fail(&mut renderer, &format!("twinwire: {err:#}")),
    };
    if let Some(offline) = &offline {
        let _ = renderer.note(&err_style.dim(&offline_note(offline)));
    }
    let unresumable = args
        .connect
        .resume
        .as_deref()
        .and_then(|id| args.connect.unresumable(id, offline.as_deref()));
    if let Some(problem) = unresumable {
        return fail(&mut renderer, &format!("twinwire: {problem}"));
    }
    // The sessions the CLI sees (none through --via: they are on the far side).
    let store = args.connect.session_store(offline.as_deref());
    let cwd = twinwire_policy::Base::session(args.connect.cwd.as_deref()).cwd;

    let connect = |resume: Option<String>| {
        let mut connect = args.connect.clone();
        if resume.is_some() {
            connect.resume = resume;
        }
        let permissions = permissions.clone();
        let offline = offline.clone();
        async move {
            let options = connect
                .options(
                    Permissions::callback(&permissions),
                    offline.as_deref(),
                    err_style,
                    |builder| builder.include_partial_messages(true),
                )
                .map_err(|err| format!("twinwire: {err}"))?;
            let client = Client::connect(options)
                .await
                .map_err(|err| start_failure(&err))?;
            Ok::<_, String>(Session {
                client,
                _offline: offline,
            })
        }
    };
    let mut session = match connect(None).await {
        Ok(session) => session,
        Err(message) => return fail(&mut renderer, &message),
    };
    let _ = renderer.note(&err_style.dim(&banner(&session.client)));

    let mut interrupts = match Interrupts::new() {
        Ok(interrupts) => Some(interrupts),
        Err(err) => {
            let _ = renderer.note(&format!("twinwire: warning: Ctrl-C not handled: {err}"));
            None
        }
    };
    let mut totals = Totals {
        session_id: args.connect.resume.clone(),
        ..Totals::default()
    };
    let mut quit_armed = false;
    let mut code = 0;
    loop {
        let line = match terminal.prompt().await {
            Ok(Read::Line(line)) => line,
            Ok(Read::Interrupt) => {
                if quit_armed {
                    break;
                }
                quit_armed = true;
                let _ = renderer.note(&err_style.dim("(Ctrl-C again or Ctrl-D to quit)"));
                continue;
            }
            Ok(Read::End) => break,
            Err(err) => {
                code = fail(
                    &mut renderer,
                    &format!("twinwire: reading the prompt: {err}"),
                );
                break;
            }
        };
        quit_armed = false;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match commands::parse(line) {
            Some(Command::Quit) => break,
            Some(Command::Resume(None)) => {
                let _ = renderer.note("usage: /resume ID (see /sessions)");
            }
            Some(Command::Resume(Some(id))) => {
                if totals.session_id.as_deref() == Some(id.as_str()) {
                    let _ = renderer.note(&format!("already in session {}", sanitize(&id)));
                    continue;
                }
                if let Some(problem) = args.connect.unresumable(&id, offline.as_deref()) {
                    let _ = renderer.note(&format!("twinwire: {problem}\n{}", still_in(&totals)));
                    continue;
                }
                // The new CLI starts before this one closes: if it cannot resume, this
                // session goes on as it was.
                match connect(Some(id.clone())).await {
                    Ok(resumed) => {
                        let previous = std::mem::replace(&mut session, resumed);
                        close(previous, &mut renderer).await;
                        totals = Totals {
                            session_id: Some(id.clone()),
                            ..Totals::default()
                        };
                        let _ =
                            renderer.note(&err_style.dim(&format!("resumed {}", sanitize(&id))));
                    }
                    Err(message) => {
                        let why = message.strip_prefix("twinwire: ").unwrap_or(&message);
                        let _ = renderer.note(&format!(
                            "twinwire: cannot resume {}: {why}\n{}",
                            sanitize(&id),
                            still_in(&totals)
                        ));
                    }
                }
            }
            Some(command) => {
                match commands::run(&command, &session.client, &mut totals, store.as_ref(), &cwd)
                    .await
                {
                    Ok(text) => {
                        let _ = renderer.note(&text);
                    }
                    Err(err) => {
                        let _ =
                            renderer.note(&format!("twinwire: {}", sanitize(&format!("{err:#}"))));
                    }
                }
            }
            None => {
                if let Err(err) = session.client.send(line).await {
                    code = fail(
                        &mut renderer,
                        &format!("twinwire: sending the prompt: {err}"),
                    );
                    break;
                }
                let end = turn::drive(
                    &session.client,
                    &mut renderer,
                    &shown,
                    terminal.spinner(),
                    interrupts.as_mut(),
                    &mut totals,
                )
                .await;
                let _ = renderer.end_line();
                match end {
                    // After an interrupted turn, a second Ctrl-C at the prompt quits.
                    TurnEnd::Done { interrupted } => quit_armed = interrupted,
                    TurnEnd::Quit => {
                        code = EXIT_INTERRUPTED;
                        break;
                    }
                    TurnEnd::NeedsLogin => {
                        code = fail(&mut renderer, &crate::connect::login_hint("chat"));
                        break;
                    }
                    TurnEnd::Ended(err) => {
                        let why = err.map_or_else(
                            || "the CLI ended the session".to_owned(),
                            |err| err.to_string(),
                        );
                        code = fail(&mut renderer, &format!("twinwire: {}", sanitize(&why)));
                        break;
                    }
                }
            }
        }
    }

    terminal.spinner().hide();
    close(session, &mut renderer).await;
    if let Some(id) = &totals.session_id {
        let command = args.connect.resume_command("chat", id);
        let _ = renderer.note(&err_style.dim(&format!(
            "session {} · resume with: {command}",
            sanitize(id)
        )));
    }
    code
}

/// Closes a session's CLI (stdin, then signals), killing it if it does not end in time.
async fn close<O: Write, E: Write>(session: Session, renderer: &mut Renderer<O, E>) {
    if tokio::time::timeout(QUIT_WAIT, session.client.close())
        .await
        .is_err()
    {
        // Dropping the last handle kills the CLI's process group.
        let _ = renderer.note("twinwire: the CLI did not close in time; stopped");
    }
}

/// `(still in session ID)` after a `/resume` that failed.
fn still_in(totals: &Totals) -> String {
    match &totals.session_id {
        Some(id) => format!("(still in session {})", sanitize(id)),
        None => "(still in this session)".to_owned(),
    }
}

/// `Claude Code 2.1.330 · /help for commands, Ctrl-D to quit`; a CLI in Claude Code's place
/// that names itself (`twinwire-agent 0.2.0`) is named as it says.
fn banner(client: &Client) -> String {
    let version = client
        .initialize_response()
        .and_then(|init| init.claude_code_version.clone())
        .map(|v| match v.starts_with(|c: char| c.is_ascii_digit()) {
            true => format!("Claude Code {} · ", sanitize(&v)),
            false => format!("{} · ", sanitize(&v)),
        })
        .unwrap_or_default();
    format!("{version}/help for commands, Ctrl-D to quit")
}

fn fail<O: Write, E: Write>(renderer: &mut Renderer<O, E>, message: &str) -> u8 {
    let _ = renderer.note(message);
    1
}
