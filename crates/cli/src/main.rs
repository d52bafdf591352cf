//! `ccwire`: use, inspect and test Claude Code's stream-json protocol from the terminal.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;

/// Use, inspect and test Claude Code sessions through ccwire.
#[derive(Debug, Parser)]
#[command(name = "ccwire", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse every frame of NDJSON files or recorded transcripts and report failures and
    /// unknown kinds. Exits 1 if a frame fails to parse or a kind the official TypeScript SDK
    /// declares comes back unknown.
    Check(check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = std::io::stdout().lock();
    let outcome = match cli.command {
        Command::Check(args) => check::run(&args, &mut stdout),
    };
    let _ = stdout.flush();
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("ccwire: {err:#}");
            }
            ExitCode::from(2)
        }
    }
}
