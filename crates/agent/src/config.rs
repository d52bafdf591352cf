//! [`Config`]: everything a session is started with, as plain data. The binary reads it from
//! Claude Code's command line ([`Config::from_args`]); a host that runs the agent in its own
//! process fills it in directly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use twinwire_protocol::permission::PermissionMode;

use crate::args::{split_rules, Args};
use crate::settings;

/// The model when neither `--model` nor `ANTHROPIC_MODEL` names one.
pub const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// How a session begins.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SessionStart {
    /// A new session, with this id or a fresh one.
    #[default]
    New,
    /// A new session with the given id (`--session-id`).
    NewWithId(String),
    /// A saved session, by id (`--resume`), up to a message (`--resume-session-at`).
    Resume {
        /// The session's id.
        id: String,
        /// The last message kept.
        at: Option<String>,
        /// Whether the continuation gets a new id (`--fork-session`).
        fork: bool,
    },
    /// The most recent session of the working directory (`--continue`).
    Continue {
        /// Whether the continuation gets a new id.
        fork: bool,
    },
}

/// Bounds on what tools produce and wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most characters of a Bash command's output (stdout and stderr together) given to
    /// the model inline; past it the output is saved whole to a file and shown as a preview
    /// (30,000, as Claude Code).
    pub bash_output_bytes: usize,
    /// A Bash command's time limit when the call names none, in milliseconds.
    pub bash_default_timeout_ms: u64,
    /// The most a call may ask for.
    pub bash_max_timeout_ms: u64,
    /// Not used: `Read` gives whole files within Claude Code's limits (256 KB, 25,000 tokens).
    pub read_lines: usize,
    /// Not used: `Read` shows long lines whole, as Claude Code does.
    pub read_line_chars: usize,
    /// Not used: `Read`, `Edit` and `Write` follow Claude Code's limits.
    pub file_bytes: u64,
    /// Not used: `Glob` lists 100 paths and `Grep` 250 entries unless asked, as Claude Code.
    pub search_results: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            bash_output_bytes: 30_000,
            bash_default_timeout_ms: 120_000,
            bash_max_timeout_ms: 600_000,
            read_lines: 2000,
            read_line_chars: 2000,
            file_bytes: 10 * 1024 * 1024,
            search_results: 1000,
        }
    }
}

/// What a session is started with ([`Config::default`], then fields set; fields may be added).
/// Its `Debug` names the environment's variables, the MCP servers and the settings' keys
/// without their values, which hold credentials.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct Config {
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The model id.
    pub model: String,
    /// The model used when the first is overloaded (529).
    pub fallback_model: Option<String>,
    /// A system prompt replacing the agent's own.
    pub system_prompt: Option<String>,
    /// Text added to the end of the system prompt.
    pub append_system_prompt: Option<String>,
    /// A JSON schema the final answer must follow.
    pub json_schema: Option<Value>,
    /// The most model calls in one turn.
    pub max_turns: Option<u32>,
    /// The most the session may cost, in US dollars.
    pub max_budget_usd: Option<f64>,
    /// The extended thinking budget (`None` or 0: no thinking).
    pub max_thinking_tokens: Option<u32>,
    /// The permission mode at the start.
    pub permission_mode: PermissionMode,
    /// Whether `bypassPermissions` may be switched to later.
    pub allow_bypass: bool,
    /// Whether permissions are asked of the host (`--permission-prompt-tool stdio`).
    pub ask_host: bool,
    /// Allow rules in Claude Code's syntax.
    pub allowed_tools: Vec<String>,
    /// Deny rules.
    pub disallowed_tools: Vec<String>,
    /// Ask rules (`permissions.ask` of the settings): a call they cover is asked even where an
    /// allow rule or the mode would let it run.
    pub ask_rules: Vec<String>,
    /// The built-in tools offered; `None`: all of them.
    pub tools: Option<Vec<String>>,
    /// MCP servers by name (`--mcp-config`'s `mcpServers`).
    pub mcp_servers: BTreeMap<String, Value>,
    /// Whether `stream_event` frames are written.
    pub include_partial_messages: bool,
    /// Whether user messages are echoed back.
    pub replay_user_messages: bool,
    /// How the session begins.
    pub start: SessionStart,
    /// Whether the session is saved.
    pub persist_session: bool,
    /// Whether each entry saved is also sent to the host (`--session-mirror`).
    pub session_mirror: bool,
    /// More directories the file tools may work in.
    pub add_dirs: Vec<PathBuf>,
    /// A first prompt from the command line.
    pub prompt: Option<String>,
    /// The environment the session sees (credentials, `CLAUDE_CONFIG_DIR`, `HOME`, …).
    pub env: BTreeMap<String, String>,
    /// Bounds on tools.
    pub limits: Limits,
    /// Which settings files are read (`--setting-sources`: `user`, `project`, `local`);
    /// `None`: all three.
    pub setting_sources: Option<Vec<String>>,
    /// Settings given on the command line (`--settings`, JSON or a file), over the files'.
    pub settings: Option<Value>,
    /// The host's managed settings (`--managed-settings`, JSON).
    pub managed_settings: Option<String>,
    /// Subagents given on the command line (`--agents`: name → definition), in order.
    pub agents: Vec<Value>,
    /// The settings' `sandbox` block: Bash confined when it is enabled.
    pub sandbox: Option<Value>,
}

impl Config {
    /// Where the settings of this session are read from.
    pub(crate) fn settings_sources(&self) -> crate::settings::Sources<'_> {
        crate::settings::Sources {
            cwd: &self.cwd,
            env: &self.env,
            setting_sources: self.setting_sources.as_deref(),
            flag: self.settings.as_ref(),
            managed: self.managed_settings.as_deref(),
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = |value: &Option<Value>| -> Option<Vec<String>> {
            value.as_ref().map(|v| {
                v.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
                    .collect()
            })
        };
        f.debug_struct("Config")
            .field("cwd", &self.cwd)
            .field("model", &self.model)
            .field("fallback_model", &self.fallback_model)
            .field("system_prompt", &self.system_prompt)
            .field("append_system_prompt", &self.append_system_prompt)
            .field("json_schema", &self.json_schema)
            .field("max_turns", &self.max_turns)
            .field("max_budget_usd", &self.max_budget_usd)
            .field("max_thinking_tokens", &self.max_thinking_tokens)
            .field("permission_mode", &self.permission_mode)
            .field("allow_bypass", &self.allow_bypass)
            .field("ask_host", &self.ask_host)
            .field("allowed_tools", &self.allowed_tools)
            .field("disallowed_tools", &self.disallowed_tools)
            .field("ask_rules", &self.ask_rules)
            .field("tools", &self.tools)
            .field("mcp_servers", &self.mcp_servers.keys().collect::<Vec<_>>())
            .field("include_partial_messages", &self.include_partial_messages)
            .field("replay_user_messages", &self.replay_user_messages)
            .field("start", &self.start)
            .field("persist_session", &self.persist_session)
            .field("session_mirror", &self.session_mirror)
            .field("add_dirs", &self.add_dirs)
            .field("prompt", &self.prompt)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .field("setting_sources", &self.setting_sources)
            .field("settings", &keys(&self.settings))
            .field(
                "managed_settings",
                &self.managed_settings.as_ref().map(|_| "…"),
            )
            .field("agents", &self.agents.len())
            .field("sandbox", &self.sandbox)
            .finish()
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            model: DEFAULT_MODEL.to_owned(),
            fallback_model: None,
            system_prompt: None,
            append_system_prompt: None,
            json_schema: None,
            max_turns: None,
            max_budget_usd: None,
            max_thinking_tokens: None,
            permission_mode: PermissionMode::Default,
            allow_bypass: false,
            ask_host: false,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            ask_rules: Vec::new(),
            tools: None,
            mcp_servers: BTreeMap::new(),
            include_partial_messages: false,
            replay_user_messages: false,
            start: SessionStart::New,
            persist_session: true,
            session_mirror: false,
            add_dirs: Vec::new(),
            prompt: None,
            env: BTreeMap::new(),
            limits: Limits::default(),
            setting_sources: None,
            settings: None,
            managed_settings: None,
            agents: Vec::new(),
            sandbox: None,
        }
    }
}

/// A command line that cannot start a session.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Config {
    /// The session Claude Code's command line `args` describes, in the environment `env`.
    pub fn from_args(args: &Args, env: BTreeMap<String, String>) -> Result<Self, ConfigError> {
        let cwd = std::env::current_dir().map_err(|e| ConfigError(e.to_string()))?;
        Self::from_args_in(args, env, cwd)
    }

    /// [`Config::from_args`] for a session in `cwd` (a session run inside a host's process
    /// does not change the process's directory).
    pub fn from_args_in(
        args: &Args,
        mut env: BTreeMap<String, String>,
        cwd: PathBuf,
    ) -> Result<Self, ConfigError> {
        let setting_sources: Option<Vec<String>> = args.setting_sources.as_deref().map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        });
        let flag_settings = args.settings.as_deref().map(read_settings).transpose()?;
        let from_settings = settings::read(
            &settings::effective(&settings::Sources {
                cwd: &cwd,
                env: &env,
                setting_sources: setting_sources.as_deref(),
                flag: flag_settings.as_ref(),
                managed: args.managed_settings.as_deref(),
            }),
            &cwd,
            env.get("HOME").map(Path::new),
        );
        // The settings' `env` is the session's, over the process's (as Claude Code applies it),
        // but for the opt-out of the credentials' removal: a repository's settings file could
        // carry it, so only the environment the agent was started in turns the removal off.
        let scrubbed = crate::child_env::scrubs(&env);
        env.extend(from_settings.env.clone());
        if scrubbed && !crate::child_env::scrubs(&env) {
            tracing::warn!(
                "{} from a settings file is ignored: set it in the environment",
                crate::child_env::SCRUB_VARIABLE
            );
            env.insert(crate::child_env::SCRUB_VARIABLE.to_owned(), "1".to_owned());
        }
        for (flag, value) in [
            ("--output-format", &args.output_format),
            ("--input-format", &args.input_format),
        ] {
            if let Some(value) = value {
                if value != "stream-json" && !(flag == "--input-format" && value == "text") {
                    return Err(ConfigError(format!(
                        "{flag} {value}: only stream-json is served"
                    )));
                }
            }
        }
        let model = args
            .model
            .clone()
            .or_else(|| env.get("ANTHROPIC_MODEL").cloned())
            .or_else(|| from_settings.model.clone())
            .map(|m| resolve_alias(&m))
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
        let system_prompt = match (&args.system_prompt, &args.system_prompt_file) {
            (Some(text), _) => Some(text.clone()),
            (None, Some(file)) => Some(read_text(file)?),
            (None, None) => None,
        };
        let append_system_prompt =
            match (&args.append_system_prompt, &args.append_system_prompt_file) {
                (Some(text), _) => Some(text.clone()),
                (None, Some(file)) => Some(read_text(file)?),
                (None, None) => None,
            };
        let json_schema = args
            .json_schema
            .as_deref()
            .map(|text| {
                serde_json::from_str(text)
                    .map_err(|err| ConfigError(format!("--json-schema is not JSON: {err}")))
            })
            .transpose()?;
        let permission_mode = if args.dangerously_skip_permissions {
            PermissionMode::BypassPermissions
        } else {
            match (
                args.permission_mode.as_deref(),
                from_settings.default_mode.as_deref(),
            ) {
                (Some(text), _) => parse_mode(text)?,
                (None, Some(text)) => parse_mode(text).map_err(|err| {
                    ConfigError(format!("permissions.defaultMode of the settings: {err}"))
                })?,
                (None, None) => PermissionMode::Default,
            }
        };
        if from_settings.bypass_disabled && permission_mode == PermissionMode::BypassPermissions {
            return Err(ConfigError(
                "bypassPermissions is disabled by the settings \
                 (permissions.disableBypassPermissionsMode)"
                    .to_owned(),
            ));
        }
        let ask_host = match args.permission_prompt_tool.as_deref() {
            None => false,
            Some("stdio") => true,
            Some(other) => {
                return Err(ConfigError(format!(
                    "--permission-prompt-tool {other}: only `stdio` is served"
                )))
            }
        };
        let tools = args.tools.as_deref().and_then(|text| match text.trim() {
            "default" => None,
            list => Some(split_rules(&[list.to_owned()])),
        });
        let start = match (&args.resume, args.continue_, &args.session_id) {
            (Some(id), _, _) => SessionStart::Resume {
                id: id.clone(),
                at: args.resume_session_at.clone(),
                fork: args.fork_session,
            },
            (None, true, _) => SessionStart::Continue {
                fork: args.fork_session,
            },
            (None, false, Some(id)) => SessionStart::NewWithId(id.clone()),
            (None, false, None) => SessionStart::New,
        };
        if let SessionStart::NewWithId(id) = &start {
            if uuid::Uuid::parse_str(id).is_err() {
                return Err(ConfigError(format!("--session-id {id}: not a UUID")));
            }
        }
        let mut mcp_servers = BTreeMap::new();
        for config in &args.mcp_config {
            mcp_servers.extend(read_mcp_config(config)?);
        }
        Ok(Self {
            cwd,
            model,
            fallback_model: args.fallback_model.as_deref().map(resolve_alias),
            system_prompt,
            append_system_prompt,
            json_schema,
            max_turns: args.max_turns,
            max_budget_usd: args.max_budget_usd,
            max_thinking_tokens: match args.thinking.as_deref() {
                Some("disabled") => None,
                _ => args.max_thinking_tokens.filter(|n| *n > 0),
            },
            permission_mode,
            allow_bypass: !from_settings.bypass_disabled
                && (args.allow_dangerously_skip_permissions || args.dangerously_skip_permissions),
            ask_host,
            allowed_tools: [split_rules(&args.allowed_tools), from_settings.allow].concat(),
            disallowed_tools: [split_rules(&args.disallowed_tools), from_settings.deny].concat(),
            ask_rules: from_settings.ask,
            tools,
            mcp_servers,
            include_partial_messages: args.include_partial_messages,
            replay_user_messages: args.replay_user_messages,
            start,
            persist_session: !args.no_session_persistence,
            session_mirror: args.session_mirror,
            add_dirs: [args.add_dir.clone(), from_settings.additional_directories].concat(),
            sandbox: from_settings.sandbox,
            prompt: args.prompt.clone().filter(|p| !p.is_empty()),
            env,
            limits: Limits::default(),
            setting_sources,
            settings: flag_settings,
            managed_settings: args.managed_settings.clone(),
            agents: args
                .agents
                .as_deref()
                .map(|text| {
                    serde_json::from_str(text)
                        .map_err(|err| ConfigError(format!("--agents is not JSON: {err}")))
                })
                .transpose()?
                .into_iter()
                .collect(),
        })
    }

    /// A variable of the session's environment.
    pub fn var(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned()
    }
}

/// `--settings`: a JSON object, or the path of a file holding one.
fn read_settings(text: &str) -> Result<Value, ConfigError> {
    let json = if text.trim_start().starts_with('{') {
        text.to_owned()
    } else {
        read_text(Path::new(text))?
    };
    match serde_json::from_str(&json) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(ConfigError(format!("--settings {text}: not a JSON object"))),
        Err(err) => Err(ConfigError(format!("--settings {text}: {err}"))),
    }
}

/// A permission mode by its wire name.
pub fn parse_mode(text: &str) -> Result<PermissionMode, ConfigError> {
    let mode: PermissionMode = serde_json::from_value(Value::String(text.to_owned()))
        .map_err(|err| ConfigError(format!("permission mode {text}: {err}")))?;
    match mode {
        PermissionMode::Other(_) | PermissionMode::Delegate => Err(ConfigError(format!(
            "permission mode {text}: not one of default, acceptEdits, bypassPermissions, plan, \
             dontAsk"
        ))),
        mode => Ok(mode),
    }
}

/// The model id of an alias (`sonnet`, `opus`, `haiku`); anything else as given.
pub fn resolve_alias(model: &str) -> String {
    match model {
        "opus" | "default" => "claude-opus-5-5",
        "sonnet" => "claude-sonnet-5-5",
        "haiku" => "claude-haiku-5-5",
        other => other,
    }
    .to_owned()
}

fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|err| ConfigError(format!("cannot read {}: {err}", path.display())))
}

/// The servers of one `--mcp-config` value: JSON text, or a file holding it.
fn read_mcp_config(value: &str) -> Result<BTreeMap<String, Value>, ConfigError> {
    let text = if value.trim_start().starts_with('{') {
        value.to_owned()
    } else {
        read_text(Path::new(value))?
    };
    let parsed: Value = serde_json::from_str(&text)
        .map_err(|err| ConfigError(format!("--mcp-config is not JSON: {err}")))?;
    let servers = parsed
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or_else(|| ConfigError("--mcp-config has no `mcpServers` object".to_owned()))?;
    Ok(servers
        .iter()
        .map(|(name, server)| (name.clone(), server.clone()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn config(argv: &[&str]) -> Result<Config, ConfigError> {
        let args =
            Args::try_parse_from(std::iter::once("twinwire-agent").chain(argv.iter().copied()))
                .unwrap();
        Config::from_args(&args, BTreeMap::new())
    }

    #[test]
    fn debug_names_secrets_without_their_values() {
        let mut config = Config::default();
        config
            .env
            .insert("ANTHROPIC_API_KEY".into(), "sk-ant-secret-1".into());
        config.mcp_servers.insert(
            "web".into(),
            serde_json::json!({"type": "http", "headers": {"Authorization": "Bearer secret-2"}}),
        );
        config.settings = Some(serde_json::json!({"env": {"TOKEN": "secret-3"}}));
        config.managed_settings = Some(r#"{"env": {"TOKEN": "secret-4"}}"#.into());
        let shown = format!("{config:?}");
        assert!(
            shown.contains("ANTHROPIC_API_KEY") && shown.contains("\"web\""),
            "{shown}"
        );
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn the_command_line_becomes_a_session() {
        let config = config(&[
            "--model=opus",
            "--permission-mode",
            "acceptEdits",
            "--resume",
            "0d7a1c9e-1111-4222-8333-944455556666",
            "--fork-session",
            "--mcp-config",
            r#"{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}"#,
            "--json-schema",
            r#"{"type":"object"}"#,
            "--no-session-persistence",
        ])
        .unwrap();
        assert_eq!(config.model, "claude-opus-5-5");
        assert_eq!(config.permission_mode, PermissionMode::AcceptEdits);
        assert!(matches!(
            config.start,
            SessionStart::Resume { fork: true, .. }
        ));
        assert_eq!(config.mcp_servers["calc"]["type"], "sdk");
        assert!(config.json_schema.is_some());
        assert!(!config.persist_session);
    }

    #[test]
    fn what_cannot_be_served_is_refused_with_its_reason() {
        for (argv, says) in [
            (&["--output-format", "text"][..], "only stream-json"),
            (&["--permission-mode", "sideways"][..], "permission mode"),
            (&["--json-schema", "{nope"][..], "not JSON"),
            (&["--session-id", "x"][..], "not a UUID"),
            (&["--mcp-config", "{}"][..], "mcpServers"),
        ] {
            let err = config(argv).unwrap_err().to_string();
            assert!(err.contains(says), "{argv:?}: {err}");
        }
    }
}
