//! The tools the model may call: Claude Code's built-in tools by the same names and input
//! schemas (the typed `ToolInput`s of twinwire-protocol read their inputs), the host's SDK MCP
//! tools, and the tools of external MCP servers.
//!
//! A tool is a [`Tool`]: a name, a description and input schema for the model, whether it
//! only reads (read-only tools run side by side and need no permission inside the session's
//! directories), and `call`, which gets the input and a [`ToolContext`] and gives a
//! [`ToolOutput`]. Add one by implementing the trait and registering it in [`Registry`].

mod bash;
mod edit;
mod files;
mod glob;
mod grep;
mod read;
mod schema;
pub mod sdk_mcp;
mod structured;
mod todo;
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

pub use structured::{StructuredOutput, STRUCTURED_OUTPUT};
pub use workspace::Workspace;

/// What a tool call gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The `tool_result` content the model sees.
    pub content: ToolResultContent,
    /// Whether the call failed.
    pub is_error: bool,
    /// The structured result the host sees as the user frame's `tool_use_result`.
    pub result: Option<Value>,
}

impl ToolOutput {
    /// A success with text for the model and a structured result for the host.
    pub fn success(text: impl Into<String>, result: Value) -> Self {
        Self {
            content: ToolResultContent::Text(text.into()),
            is_error: false,
            result: Some(result),
        }
    }

    /// A failure: the text says why.
    pub fn error(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            content: ToolResultContent::Text(format!("<tool_use_error>{text}</tool_use_error>")),
            is_error: true,
            result: Some(Value::String(format!("Error: {text}"))),
        }
    }
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
}

/// A tool the model may call.
pub trait Tool: Send + Sync + 'static {
    /// Its name, as calls name it.
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> String;
    /// Its input's JSON schema.
    fn input_schema(&self) -> Value;
    /// Whether it only reads: it may run beside other read-only calls.
    fn read_only(&self) -> bool {
        false
    }
    /// Runs one call.
    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput>;
}

/// Claude Code's built-in tools this agent implements, by name.
pub const BUILT_IN: &[&str] = &["Bash", "Read", "Write", "Edit", "Glob", "Grep", "TodoWrite"];

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
    /// The built-in tools, or those of `only` among them (`--tools`).
    pub fn built_in(only: Option<&[String]>) -> Self {
        let all: Vec<Arc<dyn Tool>> = vec![
            Arc::new(bash::Bash),
            Arc::new(glob::Glob),
            Arc::new(grep::Grep),
            Arc::new(read::Read),
            Arc::new(edit::Edit),
            Arc::new(write::Write),
            Arc::new(todo::TodoWrite),
        ];
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

/// Reads a tool's input as its typed form, or says what is wrong with it.
pub(crate) fn typed_input<T: serde::de::DeserializeOwned>(
    tool: &str,
    input: &Value,
) -> Result<T, ToolOutput> {
    serde_json::from_value(input.clone())
        .map_err(|err| ToolOutput::error(format!("InputValidationError: {tool}: {err}")))
}
