//! The slash commands of `twinwire chat`. Any other `/command` goes to Claude Code as a prompt
//! (the CLI runs its own, such as `/compact`, when they come as the prompt).

use std::path::Path;

use twinwire::protocol::permission::PermissionMode;
use twinwire::sessions::{ListOptions, SavedSessions};
use twinwire::Client;

use super::turn::Totals;
use crate::connect::PERMISSION_MODES;
use crate::terminal::sanitize;

/// How many sessions `/sessions` lists.
const SESSIONS_LISTED: usize = 10;

/// A command typed at the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    /// Show the model, or switch to one.
    Model(Option<String>),
    /// Show the permission mode, or switch to one.
    Mode(Option<String>),
    Cost,
    Context,
    Interrupt,
    /// Close this session and resume another.
    Resume(Option<String>),
    Sessions,
    /// Claude Code's `/login` is a command of its own terminal: what to do instead.
    Login,
    Quit,
}

/// The command of `line`, or `None` for a prompt (for Claude Code's own commands too).
pub fn parse(line: &str) -> Option<Command> {
    let line = line.trim();
    let rest = line.strip_prefix('/')?;
    let (name, argument) = match rest.split_once(char::is_whitespace) {
        Some((name, argument)) => (name, Some(argument.trim().to_owned())),
        None => (rest, None),
    };
    let argument = argument.filter(|a| !a.is_empty());
    Some(match name {
        "help" | "?" => Command::Help,
        "model" => Command::Model(argument),
        "mode" => Command::Mode(argument),
        "cost" => Command::Cost,
        "context" => Command::Context,
        "interrupt" => Command::Interrupt,
        "resume" => Command::Resume(argument),
        "sessions" => Command::Sessions,
        "login" => Command::Login,
        "quit" | "exit" => Command::Quit,
        _ => return None,
    })
}

/// The text of `/help`.
pub const HELP: &str = "\
/model [NAME]     show the model, or switch to NAME (e.g. sonnet, opus)
/mode [MODE]      show the permission mode, or switch: default, acceptEdits, plan, bypassPermissions, dontAsk, auto
/cost             what this session cost in this chat: prompts, dollars, tokens, time
/context          how full the context window is, by category
/interrupt        interrupt the running turn (Ctrl-C does the same)
/sessions         the latest sessions of this directory
/resume ID        continue a saved session (its conversation, not this one)
/login            how to give Claude Code credentials (its own /login needs its terminal)
/quit             end the chat (Ctrl-D, or Ctrl-C twice at the prompt)
Other /commands go to Claude Code itself (e.g. /compact). Ctrl-R searches the history.";

/// Runs a command that does not change the session; returns the lines to show.
pub async fn run(
    command: &Command,
    client: &Client,
    totals: &mut Totals,
    sessions: Option<&SavedSessions>,
    cwd: &Path,
) -> anyhow::Result<String> {
    Ok(match command {
        Command::Help => HELP.to_owned(),
        Command::Login => crate::connect::login_hint("chat"),
        Command::Model(None) => {
            let current = totals.model.as_deref().unwrap_or("(the CLI's default)");
            let mut text = format!("model: {}", sanitize(current));
            if let Some(init) = client.initialize_response() {
                let names: Vec<&str> = init.models.iter().map(|m| m.value.as_str()).collect();
                if !names.is_empty() {
                    text.push_str(&format!("\navailable: {}", sanitize(&names.join(", "))));
                }
            }
            text
        }
        Command::Model(Some(model)) => {
            client.set_model(Some(model)).await?;
            totals.model = Some(model.clone());
            format!("model set to {}", sanitize(model))
        }
        Command::Mode(None) => format!(
            "permission mode: {}\nmodes: {}",
            totals.mode.as_deref().unwrap_or("default"),
            PERMISSION_MODES.join(", ")
        ),
        Command::Mode(Some(mode)) => {
            if !PERMISSION_MODES.contains(&mode.as_str()) {
                anyhow::bail!(
                    "unknown mode `{}`; one of {}",
                    sanitize(mode),
                    PERMISSION_MODES.join(", ")
                );
            }
            client
                .set_permission_mode(PermissionMode::from(mode.as_str()))
                .await?;
            totals.mode = Some(mode.clone());
            format!("permission mode set to {mode}")
        }
        Command::Cost => cost(totals),
        Command::Context => {
            let usage = client.get_context_usage().await?;
            let mut text = format!(
                "context: {} of {} tokens ({}%) · {}",
                usage.total_tokens,
                usage.max_tokens,
                usage.percentage,
                sanitize(&usage.model)
            );
            for category in usage.categories.iter().filter(|c| c.tokens > 0) {
                text.push_str(&format!(
                    "\n  {:<24} {:>8}",
                    sanitize(&category.name),
                    category.tokens
                ));
            }
            text
        }
        Command::Interrupt => {
            client.interrupt().await?;
            "interrupted (no turn was running)".to_owned()
        }
        Command::Sessions => {
            let Some(store) = sessions.cloned() else {
                return Ok("the sessions are where the CLI runs (--via): not listed here".into());
            };
            let options = ListOptions {
                limit: Some(SESSIONS_LISTED),
                ..ListOptions::for_dir(cwd)
            };
            let listed = tokio::task::spawn_blocking(move || store.list(&options)).await?;
            if listed.is_empty() {
                "no saved sessions in this directory".to_owned()
            } else {
                let mut table = Vec::new();
                crate::sessions::print_table(&listed, &mut table)?;
                let mut text = String::from_utf8_lossy(&table).trim_end().to_owned();
                text.push_str("\n(/resume ID to continue one)");
                text
            }
        }
        Command::Resume(_) | Command::Quit => String::new(),
    })
}

/// `2 prompts · $0.0016 · 200 input + 40 output tokens · 1.2 s (0.3 s in the API)`, with
/// the session's total when it began in an earlier run.
fn cost(totals: &Totals) -> String {
    let mut text = format!(
        "{} prompt{} · ${:.4}",
        totals.prompts,
        if totals.prompts == 1 { "" } else { "s" },
        totals.cost_usd,
    );
    // Shown to the 4 decimals of the dollars: a difference below is rounding.
    if totals.session_cost_usd - totals.cost_usd >= 0.00005 {
        text.push_str(&format!(
            " (session total ${:.4}, earlier runs included)",
            totals.session_cost_usd
        ));
    }
    text.push_str(&format!(
        " · {} input + {} output tokens",
        totals.input_tokens, totals.output_tokens
    ));
    if totals.cache_read_tokens > 0 {
        text.push_str(&format!(" ({} read from cache)", totals.cache_read_tokens));
    }
    text.push_str(&format!(
        " · {:.1} s ({:.1} s in the API)",
        totals.duration_ms as f64 / 1000.0,
        totals.api_duration_ms as f64 / 1000.0
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_prompts() {
        assert_eq!(parse("/help"), Some(Command::Help));
        assert_eq!(
            parse(" /model  opus "),
            Some(Command::Model(Some("opus".into())))
        );
        assert_eq!(parse("/model"), Some(Command::Model(None)));
        assert_eq!(
            parse("/mode plan"),
            Some(Command::Mode(Some("plan".into())))
        );
        assert_eq!(
            parse("/resume abc"),
            Some(Command::Resume(Some("abc".into())))
        );
        assert_eq!(parse("/exit"), Some(Command::Quit));
        // Claude Code's own commands and plain text are prompts.
        assert_eq!(parse("/compact"), None);
        assert_eq!(parse("what is /model?"), None);
    }

    #[test]
    fn cost_line() {
        let totals = Totals {
            prompts: 2,
            cost_usd: 0.0123,
            session_cost_usd: 0.0123,
            input_tokens: 200,
            output_tokens: 40,
            duration_ms: 2500,
            api_duration_ms: 1000,
            ..Totals::default()
        };
        assert_eq!(
            cost(&totals),
            "2 prompts · $0.0123 · 200 input + 40 output tokens · 2.5 s (1.0 s in the API)"
        );
        let resumed = Totals {
            prompts: 1,
            cost_usd: 0.0008,
            session_cost_usd: 0.0024,
            ..totals
        };
        assert!(
            cost(&resumed).starts_with(
                "1 prompt · $0.0008 (session total $0.0024, earlier runs included) · "
            ),
            "{}",
            cost(&resumed)
        );
    }
}
