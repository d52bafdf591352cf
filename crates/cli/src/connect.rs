//! The flags that start a Claude Code session, shared by `twinwire run` and `twinwire chat`, and
//! the [`Options`] they make.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

use twinwire::host::callbacks::CanUseTool;
use twinwire::options::{OptionsBuilder, SystemPrompt};
use twinwire::protocol::permission::PermissionMode;
use twinwire::sessions::SavedSessions;
use twinwire::Options;
use twinwire_model_server::ModelScript;

use crate::offline::stores::{config_dir_of, Origin};
use crate::offline::Offline;
use crate::terminal::{sanitize, Style};
use twinwire_policy::{Base, PermissionPolicy, Rule};

/// How to start the session: which CLI, model, mode, prompt, rules, and whether offline.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectArgs {
    /// The `claude` executable (default: $TWINWIRE_CLI_PATH, PATH, the usual install places,
    /// then the pinned CLI of `cargo xtask install-claude`).
    #[arg(long, value_name = "PATH")]
    pub cli_path: Option<PathBuf>,
    /// The model: an alias (`sonnet`, `opus`) or a full model id.
    #[arg(long)]
    pub model: Option<String>,
    /// The permission mode at start.
    #[arg(long, value_name = "MODE", value_parser = PERMISSION_MODES)]
    pub permission_mode: Option<String>,
    /// The most steps per prompt (a step: one model call and the tools it asks for) before it
    /// stops with `error_max_turns`.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
    /// Resume the session with this id (or custom title); `twinwire sessions list` shows them.
    /// Offline sessions are resumed with --offline.
    #[arg(long, value_name = "SESSION_ID")]
    pub resume: Option<String>,
    /// The working directory of the session (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Replace Claude Code's system prompt.
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Append text to the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// Allow tool calls matching PATTERN without asking (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub allow: Vec<Rule>,
    /// Deny tool calls matching PATTERN, whatever else allows them (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub deny: Vec<Rule>,
    /// Run against a scripted model server in this process, with a private HOME: no account
    /// or network needed. The demo script asks to run a Bash command that writes
    /// `twinwire-demo.txt` in the working directory, then echoes. Sessions are kept in
    /// $XDG_STATE_HOME/twinwire/offline (else ~/.local/state/twinwire/offline), listed by
    /// `twinwire sessions list`.
    #[arg(long)]
    pub offline: bool,
    /// With --offline: the model script instead of the demo (JSON rules: which reply for which
    /// request; the format and an example: `twinwire model-server --help`).
    #[arg(long, value_name = "FILE", requires = "offline")]
    pub model_script: Option<PathBuf>,
    /// Set a variable in the CLI's environment (repeatable). Through --via it travels on the
    /// launcher's stdin, not on a command line.
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// Run the CLI through a program that carries stdio, e.g. "ssh build@host" or
    /// "docker exec -i ctr"; --cli-path is then the path on that side (default: claude).
    /// Only the variables Claude Code reads (ANTHROPIC_*, CLAUDE_*, DISABLE_*, proxies, CA
    /// files) and --env are sent.
    #[arg(long, value_name = "COMMAND")]
    pub via: Option<String>,
    /// Show what the CLI writes to stderr.
    #[arg(long)]
    pub verbose: bool,
    /// Print text from the model, tools and the CLI as it is. By default their control
    /// characters and escape sequences are shown (`^[`), not obeyed by the terminal. JSON
    /// output is never changed.
    #[arg(long)]
    pub raw: bool,
}

/// The values of `--permission-mode` (and of chat's `/mode`).
pub const PERMISSION_MODES: [&str; 6] = [
    "default",
    "acceptEdits",
    "bypassPermissions",
    "plan",
    "dontAsk",
    "auto",
];

impl ConnectArgs {
    /// The permission rules of `--allow` and `--deny`, paths relative to the session's cwd.
    pub fn rules(&self) -> PermissionPolicy {
        PermissionPolicy::new(self.allow.clone(), self.deny.clone())
            .with_base(Base::session(self.cwd.as_deref()))
    }

    /// Starts the offline model server when `--offline` asks for it.
    pub async fn offline(&self) -> anyhow::Result<Option<Offline>> {
        if !self.offline {
            return Ok(None);
        }
        let script = match &self.model_script {
            Some(path) => crate::offline::read_script(path)?,
            None => ModelScript::demo(),
        };
        Offline::start(script).await.map(Some)
    }

    /// The session's options: these flags, the permission callback, and the offline setup.
    pub fn options(
        &self,
        can_use_tool: Arc<dyn CanUseTool>,
        offline: Option<&Offline>,
        err_style: Style,
        extra: impl FnOnce(OptionsBuilder) -> OptionsBuilder,
    ) -> twinwire::Result<Options> {
        let mut builder = Options::builder()
            .can_use_tool(can_use_tool)
            .system_prompt(self.system_prompt())
            .client_app(concat!("twinwire-cli/", env!("CARGO_PKG_VERSION")));
        if let Some(path) = &self.cli_path {
            builder = builder.cli_path(path);
        }
        if let Some(model) = &self.model {
            builder = builder.model(model);
        }
        if let Some(mode) = &self.permission_mode {
            builder = builder.permission_mode(PermissionMode::from(mode.as_str()));
        }
        if let Some(turns) = self.max_turns {
            builder = builder.max_turns(turns);
        }
        if let Some(session) = &self.resume {
            builder = builder.resume(session);
        }
        if let Some(dir) = &self.cwd {
            builder = builder.cwd(dir);
        }
        if self.verbose {
            let raw = self.raw;
            let shown = move |line: &str| -> String {
                if raw {
                    line.to_owned()
                } else {
                    sanitize(line).into_owned()
                }
            };
            builder = builder.stderr(move |line| {
                let _ = writeln!(
                    io::stderr(),
                    "{}",
                    err_style.dim(&format!("[claude] {}", shown(line)))
                );
            });
        }
        if let Some(offline) = offline {
            for key in Offline::env_removed() {
                builder = builder.env_remove(key);
            }
            builder = builder.envs(offline.env());
        }
        builder = builder.envs(self.env.iter().cloned());
        if let Some(via) = &self.via {
            builder = builder.via(via)?;
        }
        extra(builder).build()
    }

    /// Where the CLI keeps its sessions in this setup: `--env CLAUDE_CONFIG_DIR`, else the
    /// offline directory, else the user's own. `None` through `--via`: they are on the far
    /// side.
    pub fn session_store(&self, offline: Option<&Offline>) -> Option<SavedSessions> {
        if self.via.is_some() {
            return None;
        }
        let configured = self
            .env
            .iter()
            .rev()
            .find(|(key, value)| key == "CLAUDE_CONFIG_DIR" && !value.is_empty());
        Some(match (configured, offline) {
            (Some((_, dir)), _) => SavedSessions::at(dir),
            (None, Some(offline)) => SavedSessions::at(offline.config_dir()),
            (None, None) => SavedSessions::from_env(),
        })
    }

    /// Why session `id` cannot be resumed in this setup, when it is a session id (a UUID)
    /// that is not saved where the CLI looks: the CLI would only exit. A title, or a setup
    /// whose sessions are out of reach (`--via`), is left to the CLI.
    pub fn unresumable(&self, id: &str, offline: Option<&Offline>) -> Option<String> {
        let store = self.session_store(offline)?;
        if !is_uuid(id) || store.transcript_path(id, None).is_some() {
            return None;
        }
        let elsewhere = crate::offline::session_stores(None)
            .places()
            .iter()
            .find(|place| place.store.transcript_path(id, None).is_some())
            .map(|place| place.origin);
        let hint = match (elsewhere, offline.is_some()) {
            (Some(Origin::Offline), false) => {
                "it is a session of --offline: resume it with --offline"
            }
            (Some(Origin::Own), true) => {
                "it is one of your own sessions: resume it without --offline"
            }
            _ => "`twinwire sessions list --all` lists the saved sessions",
        };
        Some(format!(
            "no saved session {} in {}; {hint}",
            sanitize(id),
            sanitize(&config_dir_of(&store).display().to_string())
        ))
    }

    /// The command that continues session `id` (`run` or `chat`), with the flags that find
    /// it (`--offline`) and answer as before (`--model-script`).
    pub fn resume_command(&self, command: &str, id: &str) -> String {
        let mut text = format!("twinwire {command}");
        if self.offline {
            text.push_str(" --offline");
        }
        if let Some(script) = &self.model_script {
            text.push_str(" --model-script ");
            text.push_str(&shell_word(&script.display().to_string()));
        }
        text.push_str(" --resume ");
        text.push_str(&shell_word(id));
        sanitize(&text).into_owned()
    }

    /// Claude Code's own system prompt unless replaced, with `--append-system-prompt` at its
    /// end.
    fn system_prompt(&self) -> SystemPrompt {
        match (&self.system_prompt, &self.append_system_prompt) {
            (None, None) => SystemPrompt::preset(),
            (None, Some(append)) => SystemPrompt::preset_with_append(append),
            (Some(text), None) => SystemPrompt::text(text),
            (Some(text), Some(append)) => SystemPrompt::text(format!("{text}\n\n{append}")),
        }
    }
}

/// Runs a session's future on a multi-thread runtime and returns its exit code (1 when the
/// runtime cannot start). Tasks still waiting on a terminal read at the end (a pending
/// permission question) are not waited for.
pub fn on_runtime(session: impl std::future::Future<Output = u8>) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            let _ = writeln!(
                io::stderr(),
                "twinwire: cannot start the async runtime: {err}"
            );
            return 1;
        }
    };
    let code = runtime.block_on(session);
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

/// `KEY=VALUE` of `--env`.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got `{text}`")),
    }
}

/// The note shown when `--offline` starts.
pub fn offline_note(offline: &Offline) -> String {
    format!(
        "offline: scripted model at {}, private HOME, sessions kept in {}; no account used",
        offline.url(),
        sanitize(&offline.config_dir().display().to_string())
    )
}

/// Whether `text` is a session id: a UUID (`8-4-4-4-12` hexadecimal digits).
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.chars().all(|c| c.is_ascii_hexdigit()))
}

/// `word` as one word for a POSIX shell: as it is when that is safe, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The message for a session that could not start, with what to do about it: the library's
/// words, but this tool's flag (`--cli-path`) where the library names its option, and the
/// CLI's stderr in it sanitized.
pub fn start_failure(err: &twinwire::Error) -> String {
    const INSTALL: &str = "install the version twinwire is tested against with `twinwire \
                           install-claude`, or Claude Code as usual with `npm install -g \
                           @anthropic-ai/claude-code`";
    match err {
        twinwire::Error::CliNotFound {
            given: Some(path),
            searched,
        } if searched == "PATH" => format!(
            "twinwire: Claude Code CLI `{}` not found on PATH (--cli-path; a path with a \
             directory is taken as it is)\nhint: check the name, or {INSTALL}",
            sanitize(&path.display().to_string())
        ),
        twinwire::Error::CliNotFound {
            given: Some(path), ..
        } => format!(
            "twinwire: Claude Code CLI not found at {} (--cli-path)\nhint: check the path, or \
             {INSTALL}",
            sanitize(&path.display().to_string())
        ),
        twinwire::Error::CliNotFound { searched, .. } => format!(
            "twinwire: Claude Code CLI not found (looked in: {})\nhint: {INSTALL}; or point \
             twinwire at it with --cli-path PATH or {}",
            sanitize(searched),
            twinwire::host::process::CLI_PATH_ENV
        ),
        other => format!("twinwire: {}", sanitize(&other.to_string())),
    }
}

/// What to do when a turn failed for want of credentials (the CLI's own advice, `/login`, is
/// a command of its terminal): said once after the CLI's words. `command` is `run` or `chat`.
pub fn login_hint(command: &str) -> String {
    format!(
        "hint: Claude Code has no usable credentials here. Give it an API key \
         (ANTHROPIC_API_KEY=sk-ant-… twinwire {command} …), or log in once in Claude Code's own \
         terminal (`claude`, then /login); or try twinwire without an account: twinwire \
         {command} --offline"
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        connect: ConnectArgs,
    }

    fn flags(args: &[&str]) -> ConnectArgs {
        let argv = std::iter::once("twinwire").chain(args.iter().copied());
        Flags::try_parse_from(argv).unwrap().connect
    }

    #[test]
    fn the_command_that_resumes_a_session() {
        let id = "97bd062f-c361-4f05-bd6e-357bd5970b74";
        assert_eq!(
            flags(&[]).resume_command("run", id),
            format!("twinwire run --resume {id}")
        );
        assert_eq!(
            flags(&["--offline", "--model-script", "my script.json"]).resume_command("chat", id),
            format!("twinwire chat --offline --model-script 'my script.json' --resume {id}")
        );
        // A title with a quote stays one word, and nothing in it reaches the terminal raw.
        assert_eq!(
            flags(&[]).resume_command("chat", "it's \u{1b}[2Jdone"),
            r"twinwire chat --resume 'it'\''s ^[[2Jdone'"
        );
        assert!(is_uuid(id));
        assert!(!is_uuid("97bd062f"));
        assert!(!is_uuid("97bd062f-c361-4f05-bd6e-357bd5970b7g"));
    }

    #[test]
    fn where_the_cli_keeps_sessions() {
        let configured = flags(&["--env", "CLAUDE_CONFIG_DIR=/somewhere/else"]);
        assert_eq!(
            configured.session_store(None),
            Some(SavedSessions::at("/somewhere/else"))
        );
        // Through --via they are on the far side: not checked here.
        let remote = flags(&["--via", "ssh build@host"]);
        assert_eq!(remote.session_store(None), None);
        assert_eq!(
            remote.unresumable("97bd062f-c361-4f05-bd6e-357bd5970b74", None),
            None
        );
        // A title is for the CLI to look up; an id missing from the directory is said.
        let dir = tempfile::tempdir().unwrap();
        let empty = format!("CLAUDE_CONFIG_DIR={}", dir.path().display());
        let local = flags(&["--env", &empty]);
        assert_eq!(local.unresumable("my title", None), None);
        let problem = local
            .unresumable("97bd062f-c361-4f05-bd6e-357bd5970b74", None)
            .unwrap();
        assert!(
            problem.starts_with(&format!(
                "no saved session 97bd062f-c361-4f05-bd6e-357bd5970b74 in {}",
                dir.path().display()
            )),
            "{problem}"
        );
    }
}
