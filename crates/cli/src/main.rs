//! `twinwire`: use, inspect and test Claude Code's stream-json protocol from the terminal.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod chat;
mod check;
mod connect;
mod explain;
mod install;
mod offline;
mod pipe;
mod replay;
mod rules;
mod run;
mod sessions;
mod tap;
mod terminal;
mod transcript;
mod view;

/// Use, inspect and test Claude Code sessions through twinwire.
#[derive(Debug, Parser)]
#[command(name = "twinwire", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse every frame of NDJSON files or recorded transcripts and report failures, frames
    /// as real peers write them (warnings) and unknown kinds, the first 20 of each per file
    /// (--all: every one). Exits 1 if a frame fails to parse or a kind the official TypeScript
    /// SDK declares comes back unknown.
    Check(check::CheckArgs),
    /// Run a prompt through Claude Code and show the session as it happens: text, tool calls
    /// and their results, thinking, and a summary line. Exits 1 on an error result or a
    /// failure to start, 130 on Ctrl-C.
    Run(run::RunArgs),
    /// Talk with Claude Code in the terminal: prompts with history, streamed answers, tool
    /// permissions asked as they come, Ctrl-C to interrupt, slash commands (/help).
    Chat(chat::ChatArgs),
    /// Serve a scripted model (the Anthropic Messages API) until Ctrl-C, printing its URL;
    /// point the CLI at it with ANTHROPIC_BASE_URL.
    ModelServer(offline::ModelServerArgs),
    /// Run your own program (`-- COMMAND ARGS…`) with no account and no network: every Claude
    /// Code CLI it starts answers from a scripted model server, in a private HOME. The CLI is
    /// found as `run` finds it and given to the command as `claude` on PATH and as
    /// $TWINWIRE_CLI_PATH. Exits with the command's exit code.
    Offline(offline::command::OfflineArgs),
    /// Sit between a host and `claude` as a proxy: relay every line both ways in order, its
    /// bytes as they came (line endings made `\n`, blank lines dropped), record the session
    /// (--record, secrets redacted), answer tool permissions from a policy (--policy). Exits
    /// with the CLI's exit code.
    Tap(tap::TapArgs),
    /// List, show, rename, tag, fork, archive and delete Claude Code's saved sessions (the
    /// official SDKs' session functions, on the same files).
    Sessions(sessions::SessionsArgs),
    /// Show a session as one self-contained HTML page: a tap recording, a `run --output jsonl`
    /// or stream-json capture, or a saved session (--session ID). Prints the page's path.
    View(view::ViewArgs),
    /// Would this call be allowed here, and why: a command line (or --tool and --input) judged
    /// against a directory's settings files, the command line's allowed and disallowed tools
    /// and the permission mode, in Claude Code's order, naming the rule and the file it came
    /// from. Exits 0 when the call would run without asking, 1 when it would be asked about
    /// or denied.
    Explain(explain::ExplainArgs),
    /// Play the CLI's side of a recording to a host and check that the host sends what the
    /// recording says. Exits 1 with a diff on the first divergence.
    Replay(replay::ReplayArgs),
    /// Permission rules: `rules check` lints those of a directory's settings and the command
    /// line (rules wider than they look, deny rules that cannot hold, shadowed rules).
    Rules(rules::RulesArgs),
    /// Download Claude Code from the npm registry (its sha512 integrity checked) into twinwire's
    /// cache, where the other subcommands find it when `claude` is not on PATH; a no-op when it
    /// is there. Prints the executable's path.
    InstallClaude(install::InstallArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every subcommand ends with its exit code or an error (exit 2); the session tools
    // (run, chat, tap, replay) choose their codes themselves (1 for an error result, 130 for
    // Ctrl-C, the CLI's own through tap), the reports pass (0) or fail (1).
    let outcome: anyhow::Result<ExitCode> = match cli.command {
        Command::Check(args) => printing(|out| check::run(&args, out)),
        Command::Run(args) => Ok(ExitCode::from(run::run(&args))),
        Command::Chat(args) => Ok(ExitCode::from(chat::run(&args))),
        Command::Tap(args) if tap::answers_help(&args) => printing(|out| long_help("tap", out)),
        Command::Tap(args) => Ok(ExitCode::from(tap::run(args))),
        Command::Replay(args) => Ok(ExitCode::from(replay::run(args))),
        Command::Sessions(args) => printing(|out| sessions::run(&args, out)),
        Command::View(args) => printing(|out| view::run(&args, out)),
        Command::Explain(args) => printing(|out| explain::run(&args, out)),
        Command::InstallClaude(args) => printing(|out| install::run(&args, out)),
        Command::Rules(args) => printing(|out| rules::run(&args, out)),
        Command::Offline(args) => Ok(offline::command::run(&args)),
        Command::ModelServer(args) => {
            offline::model_server(&args, &mut std::io::stdout()).map(|()| ExitCode::SUCCESS)
        }
    };
    match outcome {
        Ok(code) => code,
        Err(err) if pipe::is_broken_pipe(&err) => pipe::reader_left(),
        Err(err) => {
            let written = writeln!(std::io::stderr().lock(), "twinwire: {err:#}");
            if written.is_err_and(|err| err.kind() == std::io::ErrorKind::BrokenPipe) {
                pipe::reader_left();
            }
            ExitCode::from(2)
        }
    }
}

/// Prints the long help of the subcommand `name` (for one that answers `--help` itself).
fn long_help(name: &str, out: &mut impl Write) -> anyhow::Result<bool> {
    let mut cli = Cli::command();
    cli.build();
    let command = cli
        .find_subcommand_mut(name)
        .ok_or_else(|| anyhow::anyhow!("no subcommand {name}"))?;
    write!(out, "{}", command.render_long_help())?;
    Ok(true)
}

/// Runs a subcommand that prints its report to stdout and says whether it passed, and
/// flushes what it printed.
fn printing(
    report: impl FnOnce(&mut std::io::StdoutLock<'static>) -> anyhow::Result<bool>,
) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let outcome = report(&mut stdout);
    let flushed = stdout.flush();
    let passed = outcome?;
    flushed?;
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
