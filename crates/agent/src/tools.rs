//! The tools the model may call: Claude Code's built-in tools by the same names and input
//! schemas (the typed `ToolInput`s of twinwire-protocol read their inputs), the host's SDK MCP
//! tools, and the tools of external MCP servers.
//!
//! A tool is a [`Tool`]: a name, a description and input schema for the model, whether it
//! only reads (read-only tools run side by side and need no permission inside the session's
//! directories), and `call`, which gets the input and a [`ToolContext`] and gives a
//! [`ToolOutput`]. Add one by implementing the trait and registering it in [`Registry`].

mod ask;
mod bash;
pub(crate) use bash::limit_commands;
mod edit;
mod file_state;
mod files;
mod glob;
mod grep;
pub(crate) mod input;
pub(crate) mod jobs;
pub(crate) mod mcp_resources;
mod notebook;
mod ordered_json;
mod read;
pub mod sandbox;
pub(crate) mod schema;
pub mod sdk_mcp;
mod skill;
mod structured;
mod task_stop;
mod todo;
mod web_fetch;
mod web_search;
mod workspace;
mod write;

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire::agent::Peer;
use twinwire_protocol::content::ToolResultContent;

use crate::model::ToolDefinition;

pub use file_state::{FileStamp, FileState};
pub use jobs::{JobEnd, JobInfo, Jobs};
pub use skill::{discover as discover_skills, SkillFile};
pub use structured::{StructuredOutput, STRUCTURED_OUTPUT};
pub use workspace::Workspace;

pub(crate) use web_fetch::text_of;

/// What Claude Code adds to an edit's result when the model has the whole file in view.
pub(crate) const IN_CONTEXT: &str =
    " (file state is current in your context \u{2014} no need to Read it back)";

/// What a tool call gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The `tool_result` content the model sees.
    pub content: ToolResultContent,
    /// Whether the call failed.
    pub is_error: bool,
    /// The structured result the host sees as the user frame's `tool_use_result`.
    pub result: Option<Value>,
    /// Text that follows the results in the same message (a skill's instructions).
    pub follow_up: Vec<String>,
    /// Notes of the system that follow the results (a file read only in part).
    pub notes: Vec<String>,
}

impl ToolOutput {
    /// A success with text for the model and a structured result for the host.
    pub fn success(text: impl Into<String>, result: Value) -> Self {
        Self {
            content: ToolResultContent::Text(text.into()),
            is_error: false,
            result: Some(result),
            follow_up: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A call refused before it ran (its input checked and found wanting): the text says why,
    /// wrapped as Claude Code wraps such errors (`<tool_use_error>…</tool_use_error>`).
    pub fn error(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            content: ToolResultContent::Text(format!("<tool_use_error>{text}</tool_use_error>")),
            is_error: true,
            result: Some(Value::String(format!("Error: {text}"))),
            follow_up: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A call that ran and failed: the text says why, as it is.
    pub fn failure(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            result: Some(Value::String(format!("Error: {text}"))),
            content: ToolResultContent::Text(text),
            is_error: true,
            follow_up: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// A content block from its JSON (`None` if it does not read as one).
pub(crate) fn block(value: Value) -> Option<twinwire_protocol::content::ContentBlock> {
    serde_json::from_value(value).ok()
}

/// What a call runs with.
#[derive(Clone)]
pub struct ToolContext {
    /// The session's directories, its files read so far, its todo list.
    pub workspace: Arc<Workspace>,
    /// Cancelled when the host interrupts the turn: a tool stops (Bash kills its processes).
    pub cancel: CancellationToken,
    /// The host, for SDK MCP tools.
    pub peer: Option<Peer>,
    /// The call's id.
    pub tool_use_id: String,
    /// The session's id (names its folders for saved output and background jobs).
    pub session_id: String,
    /// The model client and the session's model, for a tool's own questions (WebFetch,
    /// WebSearch).
    pub model: Option<(crate::model::ModelClient, String)>,
}

/// A tool the model may call.
pub trait Tool: Send + Sync + 'static {
    /// Its name, as calls name it.
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> String;
    /// Its input's JSON schema.
    fn input_schema(&self) -> Value;
    /// The input checked as Claude Code checks it, numbers and booleans given as strings
    /// converted; or the error the model is told (`InputValidationError: …`).
    fn check_input(&self, input: &Value) -> Result<Value, String> {
        Ok(input.clone())
    }
    /// Refuses a call before anything is asked about it (hooks, permissions), as Claude
    /// Code's tools refuse one whose input cannot work (`<tool_use_error>…`); `None` lets it
    /// go on.
    fn validate(&self, _input: &Value, _cx: &ToolContext) -> Option<ToolOutput> {
        None
    }
    /// Whether it only reads: it may run beside other read-only calls.
    fn read_only(&self) -> bool {
        false
    }
    /// Whether a call is the user's to answer (a question, a plan to approve): the host is
    /// asked whatever the permission mode (but `dontAsk`, where nobody is), as Claude Code asks
    /// for a tool that needs the user.
    fn asks_the_user(&self) -> bool {
        false
    }
    /// The input as hooks and the host see it, once it passed [`Tool::validate`] (a plan to
    /// approve, read from its file).
    fn prepare(&self, input: Value, _cx: &ToolContext) -> Value {
        input
    }
    /// Runs one call.
    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput>;
}

/// Claude Code's built-in tools this agent implements, by name.
pub const BUILT_IN: &[&str] = &[
    "Bash",
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "NotebookEdit",
    "TodoWrite",
    "TaskStop",
    "AskUserQuestion",
    "Skill",
    "WebFetch",
    "WebSearch",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
];

/// The tools of a session, by name.
#[derive(Clone, Default)]
pub struct Registry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
    /// The order the model is told of them in.
    order: Vec<String>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.order).finish()
    }
}

impl Registry {
    /// The built-in tools, or those of `only` among them (`--tools`), in Claude Code's order
    /// (by name); `env` is the session's environment (`CLAUDE_CODE_ENABLE_TASKS=false` turns
    /// the todo list on, as in Claude Code).
    pub fn built_in(only: Option<&[String]>, env: &BTreeMap<String, String>) -> Self {
        let mut all: Vec<Arc<dyn Tool>> = vec![
            Arc::new(ask::AskUserQuestion),
            Arc::new(bash::Bash),
            Arc::new(edit::Edit),
            Arc::new(glob::Glob),
            Arc::new(grep::Grep),
            Arc::new(notebook::NotebookEdit),
            Arc::new(read::Read),
            Arc::new(skill::Skill),
            Arc::new(task_stop::TaskStop),
            Arc::new(web_fetch::WebFetch),
            Arc::new(web_search::WebSearch),
            Arc::new(write::Write),
        ];
        if todo::enabled(env) {
            all.push(Arc::new(todo::TodoWrite));
        }
        all.sort_by(|a, b| a.name().cmp(b.name()));
        let mut registry = Self::default();
        for tool in all {
            if only.is_none_or(|names| names.iter().any(|n| n == tool.name())) {
                registry.add(tool);
            }
        }
        registry
    }

    /// Adds a tool (replacing one of the same name).
    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        let name = tool.name().to_owned();
        if self.tools.insert(name.clone(), tool).is_none() {
            self.order.push(name);
        }
    }

    /// Adds a tool among the others by its name, as Claude Code orders its built-in tools
    /// (replacing one of the same name).
    pub fn add_by_name(&mut self, tool: Arc<dyn Tool>) {
        let name = tool.name().to_owned();
        if self.tools.insert(name.clone(), tool).is_none() {
            let at = self
                .order
                .iter()
                .position(|other| *other > name)
                .unwrap_or(self.order.len());
            self.order.insert(at, name);
        }
    }

    /// Removes the tools whose names `remove` says.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.order.retain(|name| keep(name));
        self.tools.retain(|name, _| keep(name));
    }

    /// A tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.get(name).cloned()
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<String> {
        self.order.clone()
    }

    /// What the model is told of them.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.order
            .iter()
            .filter_map(|name| self.tools.get(name))
            .map(|tool| ToolDefinition {
                name: tool.name().to_owned(),
                description: tool.description(),
                input_schema: tool.input_schema(),
                cache_control: None,
            })
            .collect()
    }
}

/// The notes the model is given before its next step, in Claude Code's words: a new working
/// directory, files it edited that changed on disk since, background jobs that ended (in one
/// note), and, when the todo list has not been touched for a while, a reminder of it.
pub fn between_steps(
    workspace: &Workspace,
    conversation: &[twinwire_protocol::content::MessageParam],
    tools: &Registry,
) -> Vec<String> {
    let mut notes = Vec::new();
    notes.extend(workspace.cwd_note());
    notes.extend(workspace.files.change_notes());
    let ended: Vec<String> = workspace
        .jobs
        .take_ended()
        .into_iter()
        .map(|(info, end)| jobs::notice(&info, end))
        .collect();
    if !ended.is_empty() {
        notes.push(ended.join("\n\n"));
    }
    if tools.get("TodoWrite").is_some() {
        notes.extend(todo::reminder(conversation, &workspace.todos()));
    }
    notes
}

/// What a call of a tool the session does not offer gets, in Claude Code's words.
pub fn unavailable(name: &str) -> String {
    if name == "TodoWrite" {
        return todo::DISABLED.to_owned();
    }
    format!("Error: No such tool available: {name}")
}
