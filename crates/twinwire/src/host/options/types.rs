//! The value types of [`Options`](super::Options): system prompt, tools, thinking, structured
//! output, settings, skills, MCP servers.

use std::path::PathBuf;

use serde_json::Value;
use twinwire_protocol::mcp::McpServerConfig;

use crate::mcp::SdkMcpServer;

/// The system prompt.
///
/// The default is an empty custom prompt (`Text("")`), as in both official SDKs: a session
/// gets Claude Code's own system prompt only when it asks for [`SystemPrompt::Preset`].
///
/// | Variant | Wire |
/// |---|---|
/// | `Text(s)` | `initialize.systemPrompt: [s]` |
/// | `Parts(v)` | `initialize.systemPrompt: v` |
/// | `Preset { append }` | `initialize.appendSystemPrompt` when `append` is set; nothing otherwise |
/// | `File(path)` | `--system-prompt-file=<path>` (Python's `{"type":"file"}`) |
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SystemPrompt {
    /// A custom prompt that replaces Claude Code's own.
    Text(String),
    /// A custom prompt in parts. A part equal to [`SystemPrompt::DYNAMIC_BOUNDARY`] separates
    /// the static prefix (cacheable across sessions) from the session-specific rest.
    Parts(Vec<String>),
    /// Claude Code's own system prompt, with optional text appended.
    Preset {
        /// Text added at the end of the default prompt.
        append: Option<String>,
    },
    /// A custom prompt read by the CLI from a file.
    File(PathBuf),
}

impl SystemPrompt {
    /// The marker part between the static and the dynamic parts of a [`SystemPrompt::Parts`]
    /// prompt (the TypeScript SDK's `SYSTEM_PROMPT_DYNAMIC_BOUNDARY`).
    pub const DYNAMIC_BOUNDARY: &'static str = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

    /// A custom prompt.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }

    /// Claude Code's own prompt.
    pub fn preset() -> Self {
        Self::Preset { append: None }
    }

    /// Claude Code's own prompt with `append` added at its end.
    pub fn preset_with_append(append: impl Into<String>) -> Self {
        Self::Preset {
            append: Some(append.into()),
        }
    }
}

/// An empty custom prompt, as in both official SDKs.
impl Default for SystemPrompt {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

impl From<&str> for SystemPrompt {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<String> for SystemPrompt {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

/// The base set of built-in tools the model sees (`--tools`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tools {
    /// All of Claude Code's tools (`{"type":"preset","preset":"claude_code"}`;
    /// `--tools=default`).
    Preset,
    /// Only these tools; an empty list disables every built-in tool (`--tools=a,b`).
    List(Vec<String>),
}

impl Tools {
    /// Only these tools.
    pub fn only<I, S>(tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::List(tools.into_iter().map(Into::into).collect())
    }

    /// No built-in tool at all.
    pub fn none() -> Self {
        Self::List(Vec::new())
    }
}

/// Extended thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model decides when and how much to think (`--thinking=adaptive`).
    Adaptive,
    /// A fixed thinking budget (`--max-thinking-tokens=N`).
    Enabled {
        /// The budget in tokens.
        budget_tokens: u64,
    },
    /// No extended thinking (`--thinking=disabled`).
    Disabled,
}

/// Structured output: the final answer must follow a schema.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// A JSON Schema, which must be a JSON object (`--json-schema` and
    /// `initialize.jsonSchema`).
    JsonSchema(Value),
}

/// Settings for the CLI's flag layer (`--settings`), the highest of the user-controlled
/// layers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Settings {
    /// A settings JSON file. Cannot be combined with
    /// [`sandbox`](super::OptionsBuilder::sandbox).
    File(PathBuf),
    /// Settings given inline; must be a JSON object.
    Inline(Value),
}

/// How configured MCP servers or plugins reach the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Delivery {
    /// On the command line (`--mcp-config`, `--plugin-dir`): works with every CLI version, but
    /// other users of the machine can read the command line (server `env` and `headers`).
    #[default]
    Argv,
    /// In the `initialize` request, with `--await-initialize`: nothing on the command line.
    /// Needs Claude Code 2.1.261 or newer.
    Initialize,
}

/// Skills to enable for the main session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skills {
    /// Every skill found (`Skill` is added to the allowed tools).
    All,
    /// Only these skills, by name (`Skill(name)` is added to the allowed tools for each, and
    /// the list goes in `initialize.skills`).
    Only(Vec<String>),
}

twinwire_protocol::string_enum! {
    /// A settings file the CLI loads (`--setting-sources`).
    pub enum SettingSource {
        /// `~/.claude/settings.json`.
        User = "user",
        /// `.claude/settings.json` in the project (also needed for `CLAUDE.md` files).
        Project = "project",
        /// `.claude/settings.local.json` in the project.
        Local = "local",
    }
}

twinwire_protocol::string_enum! {
    /// Who answers permission prompts (`--permission-prompts`).
    pub enum PermissionPrompts {
        /// This host, through `can_use_tool` or the permission prompt tool (the CLI's default).
        Host = "host",
        /// Nobody: whatever would prompt is denied at once; `can_use_tool` is never called
        /// (`none` on the wire).
        Nobody = "none",
    }
}

twinwire_protocol::string_enum! {
    /// Format of the `preview` of `AskUserQuestion` options
    /// (`CLAUDE_CODE_QUESTION_PREVIEW_FORMAT`).
    pub enum QuestionPreviewFormat {
        /// Markdown or ASCII, the CLI's default.
        Markdown = "markdown",
        /// Self-contained HTML fragments, for web front ends.
        Html = "html",
    }
}

/// An MCP server of the session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum McpServer {
    /// A server the CLI starts or connects to (stdio, SSE, HTTP). Goes in `--mcp-config`, or
    /// in `initialize.mcpServers` with [`Delivery::Initialize`].
    Config(McpServerConfig),
    /// A server in this process, reached over the control channel. Its name goes in
    /// `initialize.sdkMcpServers`.
    InProcess(SdkMcpServer),
}

impl From<McpServerConfig> for McpServer {
    fn from(config: McpServerConfig) -> Self {
        Self::Config(config)
    }
}

impl From<SdkMcpServer> for McpServer {
    fn from(server: SdkMcpServer) -> Self {
        Self::InProcess(server)
    }
}
