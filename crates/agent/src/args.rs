//! The command line, as the official SDKs and twinwire write it for `claude`: the same flags, in
//! both spellings the SDKs use (`--flag value` and `--flag=value`), so that `cli_path` /
//! `pathToClaudeCodeExecutable` can name this binary unchanged.
//!
//! Flags of Claude Code that this agent has no use for are accepted and ignored (they are
//! listed in [`IGNORED`] and logged), so a host that sends them still starts a session; a
//! flag Claude Code does not have either is an error, as it is for `claude`.

use std::path::PathBuf;

use clap::Parser;

/// Flags accepted and ignored: they change nothing this agent implements.
pub const IGNORED: &[&str] = &[
    "agent",
    "await-initialize",
    "betas",
    "channels",
    "debug",
    "debug-file",
    "effort",
    "hard-fail",
    "include-hook-events",
    "initialize-fields",
    "managed-settings-in-initialize",
    "no-optional-locks",
    "permission-prompts",
    "plugin-dir",
    "plugin-dir-no-mcp",
    "porcelain",
    "project-config-root",
    "resume-drops-turn",
    "sdk-url",
    "task-budget",
    "thinking-display",
];

/// `twinwire-agent`'s command line: Claude Code's, as hosts write it.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "twinwire-agent",
    about = "A coding agent that speaks Claude Code's stream-json protocol on stdin and stdout",
    disable_version_flag = true
)]
#[non_exhaustive]
pub struct Args {
    /// A first prompt (with `-p`): sent as the session's first user message.
    pub prompt: Option<String>,

    /// Print the version and exit.
    #[arg(short = 'v', long = "version")]
    pub version: bool,
    /// Accepted for Claude Code's `-p`: this agent always runs headless.
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// `stream-json` (the only format served).
    #[arg(long = "output-format")]
    pub output_format: Option<String>,
    /// `stream-json` (a prompt on the command line is also taken).
    #[arg(long = "input-format")]
    pub input_format: Option<String>,
    /// Accepted for Claude Code's `--verbose`, which stream-json requires.
    #[arg(long = "verbose")]
    pub verbose: bool,
    /// Logs to stderr at debug level.
    #[arg(long = "debug-to-stderr")]
    pub debug_to_stderr: bool,

    /// The model (an id or an alias: `sonnet`, `opus`, `haiku`).
    #[arg(long = "model")]
    pub model: Option<String>,
    /// The model used when the first one is overloaded.
    #[arg(long = "fallback-model")]
    pub fallback_model: Option<String>,
    /// Extended thinking budget in tokens (0: off).
    #[arg(long = "max-thinking-tokens")]
    pub max_thinking_tokens: Option<u32>,
    /// `adaptive`, `enabled` or `disabled`.
    #[arg(long = "thinking")]
    pub thinking: Option<String>,
    /// The most model calls in one turn.
    #[arg(long = "max-turns")]
    pub max_turns: Option<u32>,
    /// The most a session may cost, in US dollars.
    #[arg(long = "max-budget-usd")]
    pub max_budget_usd: Option<f64>,

    /// The system prompt, replacing the agent's own.
    #[arg(long = "system-prompt")]
    pub system_prompt: Option<String>,
    /// A file holding the system prompt.
    #[arg(long = "system-prompt-file")]
    pub system_prompt_file: Option<PathBuf>,
    /// Text added to the end of the system prompt.
    #[arg(long = "append-system-prompt")]
    pub append_system_prompt: Option<String>,
    /// A file whose text is added to the end of the system prompt.
    #[arg(long = "append-system-prompt-file")]
    pub append_system_prompt_file: Option<PathBuf>,
    /// A JSON schema the final answer must follow (structured output).
    #[arg(long = "json-schema")]
    pub json_schema: Option<String>,

    /// `stdio`: ask the host with `can_use_tool`.
    #[arg(long = "permission-prompt-tool")]
    pub permission_prompt_tool: Option<String>,
    /// `default`, `acceptEdits`, `bypassPermissions`, `plan`, `dontAsk`.
    #[arg(long = "permission-mode")]
    pub permission_mode: Option<String>,
    /// Same as `--permission-mode bypassPermissions`.
    #[arg(long = "dangerously-skip-permissions")]
    pub dangerously_skip_permissions: bool,
    /// Lets `set_permission_mode` switch to `bypassPermissions` later.
    #[arg(long = "allow-dangerously-skip-permissions")]
    pub allow_dangerously_skip_permissions: bool,
    /// Allow rules, comma or space separated (`Bash(git log:*)`, `Read`).
    #[arg(long = "allowedTools", alias = "allowed-tools", num_args = 1..)]
    pub allowed_tools: Vec<String>,
    /// Deny rules, comma or space separated.
    #[arg(long = "disallowedTools", alias = "disallowed-tools", num_args = 1..)]
    pub disallowed_tools: Vec<String>,
    /// The built-in tools offered (`default`, `""` for none, or names).
    #[arg(long = "tools")]
    pub tools: Option<String>,

    /// MCP servers: JSON text or a file, `{"mcpServers": {...}}`; may be repeated.
    #[arg(long = "mcp-config", num_args = 1..)]
    pub mcp_config: Vec<String>,
    /// Accepted: only the servers of `--mcp-config` are used anyway.
    #[arg(long = "strict-mcp-config")]
    pub strict_mcp_config: bool,

    /// Continue the most recent session of this directory.
    #[arg(short = 'c', long = "continue")]
    pub continue_: bool,
    /// Resume a session by id.
    #[arg(short = 'r', long = "resume")]
    pub resume: Option<String>,
    /// With `--resume` or `--continue`: a new session id for the continuation.
    #[arg(long = "fork-session")]
    pub fork_session: bool,
    /// With `--resume`: the conversation up to this message only.
    #[arg(long = "resume-session-at")]
    pub resume_session_at: Option<String>,
    /// The id of the new session (a UUID).
    #[arg(long = "session-id")]
    pub session_id: Option<String>,
    /// Write no session file.
    #[arg(long = "no-session-persistence")]
    pub no_session_persistence: bool,

    /// Stream partial messages (`stream_event` frames).
    #[arg(long = "include-partial-messages")]
    pub include_partial_messages: bool,
    /// Echo each user message back (with `isReplay`).
    #[arg(long = "replay-user-messages")]
    pub replay_user_messages: bool,
    /// More directories the file tools may work in.
    #[arg(long = "add-dir", num_args = 1..)]
    pub add_dir: Vec<PathBuf>,

    /// Claude Code's flags that change nothing here (see [`IGNORED`]).
    #[arg(long = "agent", hide = true)]
    pub agent: Option<String>,
    /// Subagents for the `Task` tool: JSON, name → definition (`description`, `prompt`,
    /// `tools`, `model`).
    #[arg(long = "agents")]
    pub agents: Option<String>,
    #[arg(long = "await-initialize", hide = true)]
    #[doc(hidden)]
    pub await_initialize: bool,
    #[arg(long = "betas", hide = true, num_args = 1..)]
    #[doc(hidden)]
    pub betas: Vec<String>,
    #[arg(long = "channels", hide = true)]
    #[doc(hidden)]
    pub channels: Option<String>,
    #[arg(long = "debug", hide = true, num_args = 0..=1, require_equals = true)]
    #[doc(hidden)]
    pub debug: Option<Option<String>>,
    #[arg(long = "debug-file", hide = true)]
    #[doc(hidden)]
    pub debug_file: Option<String>,
    #[arg(long = "effort", hide = true)]
    #[doc(hidden)]
    pub effort: Option<String>,
    #[arg(long = "hard-fail", hide = true)]
    #[doc(hidden)]
    pub hard_fail: bool,
    #[arg(long = "include-hook-events", hide = true)]
    #[doc(hidden)]
    pub include_hook_events: bool,
    #[arg(long = "initialize-fields", hide = true)]
    #[doc(hidden)]
    pub initialize_fields: Option<String>,
    /// The host's managed settings (JSON): the policy source when the machine has no managed
    /// file; only their restrictive keys count.
    #[arg(long = "managed-settings", hide = true)]
    pub managed_settings: Option<String>,
    #[arg(long = "managed-settings-in-initialize", hide = true)]
    #[doc(hidden)]
    pub managed_settings_in_initialize: bool,
    #[arg(long = "no-optional-locks", hide = true)]
    #[doc(hidden)]
    pub no_optional_locks: bool,
    #[arg(long = "permission-prompts", hide = true)]
    #[doc(hidden)]
    pub permission_prompts: Option<String>,
    #[arg(long = "plugin-dir", hide = true)]
    #[doc(hidden)]
    pub plugin_dir: Vec<String>,
    #[arg(long = "plugin-dir-no-mcp", hide = true)]
    #[doc(hidden)]
    pub plugin_dir_no_mcp: Vec<String>,
    #[arg(long = "porcelain", hide = true)]
    #[doc(hidden)]
    pub porcelain: bool,
    #[arg(long = "project-config-root", hide = true)]
    #[doc(hidden)]
    pub project_config_root: Option<String>,
    #[arg(long = "resume-drops-turn", hide = true)]
    #[doc(hidden)]
    pub resume_drops_turn: bool,
    #[arg(long = "sdk-url", hide = true)]
    #[doc(hidden)]
    pub sdk_url: Option<String>,
    /// Every entry saved to the session's file also goes to the host as a `transcript_mirror`
    /// frame (for the host's transcript store).
    #[arg(long = "session-mirror", hide = true)]
    pub session_mirror: bool,
    /// Which settings files are read: `user`, `project`, `local`, joined by commas (the
    /// SessionEnd hooks are read from them).
    #[arg(long = "setting-sources", hide = true)]
    pub setting_sources: Option<String>,
    /// Settings over the files': JSON, or a file holding it.
    #[arg(long = "settings", hide = true)]
    pub settings: Option<String>,
    #[arg(long = "task-budget", hide = true)]
    #[doc(hidden)]
    pub task_budget: Option<String>,
    #[arg(long = "thinking-display", hide = true)]
    #[doc(hidden)]
    pub thinking_display: Option<String>,
}

impl Args {
    /// The flags of [`IGNORED`] this command line used, for a log line.
    pub fn ignored(&self) -> Vec<&'static str> {
        let set = [
            ("agent", self.agent.is_some()),
            ("await-initialize", self.await_initialize),
            ("betas", !self.betas.is_empty()),
            ("channels", self.channels.is_some()),
            ("debug", self.debug.is_some()),
            ("debug-file", self.debug_file.is_some()),
            ("effort", self.effort.is_some()),
            ("hard-fail", self.hard_fail),
            ("include-hook-events", self.include_hook_events),
            ("initialize-fields", self.initialize_fields.is_some()),
            (
                "managed-settings-in-initialize",
                self.managed_settings_in_initialize,
            ),
            ("no-optional-locks", self.no_optional_locks),
            ("permission-prompts", self.permission_prompts.is_some()),
            ("plugin-dir", !self.plugin_dir.is_empty()),
            ("plugin-dir-no-mcp", !self.plugin_dir_no_mcp.is_empty()),
            ("porcelain", self.porcelain),
            ("project-config-root", self.project_config_root.is_some()),
            ("resume-drops-turn", self.resume_drops_turn),
            ("sdk-url", self.sdk_url.is_some()),
            ("task-budget", self.task_budget.is_some()),
            ("thinking-display", self.thinking_display.is_some()),
        ];
        set.into_iter()
            .filter(|(_, used)| *used)
            .map(|(name, _)| name)
            .collect()
    }
}

/// Rules given as one or more words, each a comma-separated list (the SDKs join with `,`;
/// Claude Code also takes spaces), with commas inside parentheses kept (`Bash(a,b)`).
pub fn split_rules(words: &[String]) -> Vec<String> {
    let mut rules = Vec::new();
    for word in words {
        let mut depth = 0usize;
        let mut current = String::new();
        for c in word.chars() {
            match c {
                '(' => {
                    depth += 1;
                    current.push(c);
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    current.push(c);
                }
                ',' | ' ' if depth == 0 => {
                    if !current.trim().is_empty() {
                        rules.push(current.trim().to_owned());
                    }
                    current.clear();
                }
                _ => current.push(c),
            }
        }
        if !current.trim().is_empty() {
            rules.push(current.trim().to_owned());
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(argv: &[&str]) -> Args {
        Args::try_parse_from(std::iter::once("twinwire-agent").chain(argv.iter().copied()))
            .unwrap_or_else(|err| panic!("{argv:?}: {err}"))
    }

    #[test]
    fn the_python_sdks_command_line_is_read() {
        let args = parse(&[
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--permission-prompt-tool",
            "stdio",
            "--mcp-config",
            r#"{"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}"#,
            "--input-format",
            "stream-json",
        ]);
        assert_eq!(args.system_prompt.as_deref(), Some(""));
        assert_eq!(args.permission_prompt_tool.as_deref(), Some("stdio"));
        assert_eq!(args.mcp_config.len(), 1);
    }

    #[test]
    fn values_bound_with_equals_and_a_leading_dash_are_values() {
        let args = parse(&[
            "--output-format=stream-json",
            "--system-prompt=-be brief",
            "--max-turns=3",
            "--allowedTools=Bash(git log:*),Read",
            "--debug",
            "--setting-sources=",
        ]);
        assert_eq!(args.system_prompt.as_deref(), Some("-be brief"));
        assert_eq!(args.max_turns, Some(3));
        assert_eq!(
            split_rules(&args.allowed_tools),
            vec!["Bash(git log:*)", "Read"]
        );
        assert_eq!(args.ignored(), vec!["debug"]);
        assert_eq!(args.setting_sources.as_deref(), Some(""));
    }

    #[test]
    fn an_unknown_flag_is_refused() {
        let argv = ["twinwire-agent", "--no-such-flag"];
        assert!(Args::try_parse_from(argv).is_err());
    }

    #[test]
    fn rules_split_on_commas_and_spaces_outside_parentheses() {
        let words = vec!["Bash(a, b) Read".to_owned(), "Write,Edit".to_owned()];
        assert_eq!(
            split_rules(&words),
            vec!["Bash(a, b)", "Read", "Write", "Edit"]
        );
    }
}
