//! The checks [`OptionsBuilder::build`](super::OptionsBuilder::build) runs: combinations the
//! official SDKs or the CLI refuse, and values the CLI would reject at start.

use twinwire_protocol::control::{InitializeRequest, SdkPluginConfig};
use twinwire_protocol::mcp::McpServerConfig;

use super::initialize::with_fields;
use super::{McpServer, Options, OutputFormat, PermissionPrompts, Settings, Skills, Thinking};
use crate::error::{Error, Result};

/// Flags twinwire sets itself and that must not be overridden through `extra_args`.
const RESERVED_FLAGS: &[&str] = &["output-format", "input-format"];

impl Options {
    /// Checks that the options can work together.
    pub(crate) fn validate(&self) -> Result<()> {
        self.validate_permissions()?;
        self.validate_session()?;
        self.validate_model()?;
        self.validate_mcp()?;
        self.validate_settings()?;
        self.validate_process()?;
        Ok(())
    }

    fn validate_permissions(&self) -> Result<()> {
        if !self.supported_dialog_kinds.is_empty() && !self.answers_dialogs() {
            return invalid(
                "supported_dialog_kinds needs on_user_dialog: the CLI would send dialogs nobody \
                 answers",
            );
        }
        if self.answers_permissions() && self.permission_prompt_tool_name.is_some() {
            return invalid(
                "can_use_tool and permission_prompt_tool_name cannot be used together: \
                 can_use_tool answers permission prompts itself (--permission-prompt-tool=stdio)",
            );
        }
        if self.answers_permissions() && self.permission_prompts == Some(PermissionPrompts::Nobody)
        {
            return invalid(
                "permission_prompts(Nobody) means can_use_tool would never be called; \
                 remove one of them",
            );
        }
        for (event, matchers) in &self.hooks {
            if matchers.iter().any(|matcher| matcher.hooks.is_empty()) {
                return invalid(format!("a {event} hook matcher has no callback"));
            }
        }
        if let Some(Skills::Only(names)) = &self.skills {
            for name in names {
                check_skill_name(name)?;
            }
        }
        Ok(())
    }

    fn validate_session(&self) -> Result<()> {
        if self.continue_conversation && self.resume.is_some() {
            return invalid("continue_conversation and resume are mutually exclusive");
        }
        if let Some(id) = &self.session_id {
            if !is_uuid(id) {
                return invalid(format!("session_id must be a UUID, got {id:?}"));
            }
            if (self.continue_conversation || self.resume.is_some()) && !self.fork_session {
                return invalid(
                    "session_id with continue_conversation or resume also needs fork_session \
                     (the id is then the forked session's)",
                );
            }
        }
        if self.resume_session_at.is_some() && self.resume.is_none() {
            return invalid("resume_session_at needs resume");
        }
        if self.resume_drops_turn.is_some() && self.resume_session_at.is_none() {
            return invalid("resume_drops_turn needs resume_session_at");
        }
        Ok(())
    }

    fn validate_model(&self) -> Result<()> {
        if let (Some(model), Some(fallback)) = (&self.model, &self.fallback_model) {
            if model == fallback {
                return invalid(format!(
                    "fallback_model cannot be the same as model ({model:?})"
                ));
            }
        }
        if self.thinking == Some(Thinking::Enabled { budget_tokens: 0 }) {
            return invalid("a thinking budget of 0 tokens: use Thinking::Disabled");
        }
        if let Some(OutputFormat::JsonSchema(schema)) = &self.output_format {
            if !schema.is_object() {
                return invalid("the JSON schema of output_format must be a JSON object");
            }
        }
        if self.max_turns == Some(0) {
            return invalid("max_turns must be at least 1");
        }
        if let Some(budget) = self.max_budget_usd {
            if !budget.is_finite() || budget < 0.0 {
                return invalid(format!(
                    "max_budget_usd must be a non-negative number, got {budget}"
                ));
            }
        }
        if self.task_budget == Some(0) {
            return invalid("task_budget must be at least 1 token");
        }
        Ok(())
    }

    fn validate_mcp(&self) -> Result<()> {
        for (name, server) in &self.mcp_servers {
            if name.is_empty() {
                return invalid("an MCP server has an empty name");
            }
            match server {
                McpServer::InProcess(server) if server.name() != name => {
                    return invalid(format!(
                        "the in-process MCP server {:?} is registered under another name, {name:?}",
                        server.name()
                    ));
                }
                McpServer::Config(McpServerConfig::Sdk(_)) => {
                    return invalid(format!(
                        "the MCP server {name:?} has type `sdk` but no server behind it: \
                         register an in-process server with sdk_mcp_server()"
                    ));
                }
                _ => {}
            }
        }
        for plugin in &self.plugins {
            if let SdkPluginConfig::Unknown(unknown) = plugin {
                return invalid(format!("unsupported plugin type {:?}", unknown.tag));
            }
        }
        Ok(())
    }

    fn validate_settings(&self) -> Result<()> {
        match &self.settings {
            Some(Settings::File(_)) if self.sandbox.is_some() => invalid(
                "a settings file cannot be combined with sandbox: put the sandbox block in the \
                 file, or give the settings inline",
            ),
            Some(Settings::Inline(value)) if !value.is_object() => {
                invalid("inline settings must be a JSON object")
            }
            _ => Ok(()),
        }
    }

    fn validate_process(&self) -> Result<()> {
        for (key, value) in &self.env {
            let key_ok = !key.is_empty()
                && !key.as_encoded_bytes().contains(&b'=')
                && !key.as_encoded_bytes().contains(&0);
            if !key_ok {
                return invalid(format!("invalid environment variable name {key:?}"));
            }
            if value
                .as_ref()
                .is_some_and(|value| value.as_encoded_bytes().contains(&0))
            {
                return invalid(format!("the value of {key:?} contains a NUL byte"));
            }
        }
        for (key, _) in &self.extra_args {
            let malformed = key.is_empty()
                || key.starts_with('-')
                || key.contains(|c: char| c == '=' || c.is_whitespace() || c.is_control());
            if malformed {
                return invalid(format!(
                    "extra_args key {key:?}: give the flag name without leading dashes, \
                     and the value separately"
                ));
            }
            if RESERVED_FLAGS.contains(&key.as_str()) {
                return invalid(format!(
                    "--{key} is set by twinwire and cannot be overridden"
                ));
            }
        }
        if self.max_buffered_bytes == 0 {
            return invalid("max_buffered_bytes must be at least 1");
        }
        if self.max_line_length == 0 {
            return invalid("max_line_length must be at least 1");
        }
        for key in self.initialize_extra.keys() {
            if key.is_empty() || key == "subtype" {
                return invalid(format!("invalid initialize field name {key:?}"));
            }
        }
        if !self.initialize_extra.is_empty() {
            let base = InitializeRequest::default();
            if let Err(err) = with_fields(&base, &self.initialize_extra) {
                return invalid(format!("initialize fields do not fit the request: {err}"));
            }
        }
        Ok(())
    }
}

fn invalid<T>(message: impl Into<String>) -> Result<T> {
    Err(Error::InvalidOptions(message.into()))
}

/// The checks the TypeScript SDK applies to skill names.
fn check_skill_name(name: &str) -> Result<()> {
    let problem = if name.trim().is_empty() {
        Some("skill names must not be empty")
    } else if name != name.trim() {
        Some("leading or trailing whitespace is not allowed")
    } else if name.contains(|c: char| matches!(c, '(' | ')' | ',') || c.is_control()) {
        Some("parentheses, commas and control characters are not allowed")
    } else if name == "*" {
        Some("use Skills::All to enable every skill")
    } else if name.ends_with(":*") || name.ends_with(" *") {
        Some("wildcards are not allowed; list each skill by name")
    } else if name.starts_with('/') {
        Some("give the skill's name, without the leading slash")
    } else {
        None
    };
    match problem {
        Some(problem) => invalid(format!("invalid skill name {name:?}: {problem}")),
        None => Ok(()),
    }
}

/// Whether `id` is a UUID in its canonical 8-4-4-4-12 hexadecimal form.
fn is_uuid(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}
