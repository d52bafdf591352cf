//! The CLI's command line.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

use serde_json::Value;
use twinwire_protocol::control::SdkPluginConfig;
use twinwire_protocol::mcp::McpServerConfig;

use super::sandbox::merge_into_settings;
use super::{Delivery, McpServer, Options, Settings, Skills, SystemPrompt, Thinking, Tools};

/// The arguments every session starts with: stream-json both ways. `--verbose` is required
/// with stream-json output.
pub(crate) const FIXED_ARGS: [&str; 5] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
];

impl Options {
    /// The arguments for the CLI, after the program (and its leading arguments).
    ///
    /// Starts with [`FIXED_ARGS`]; every value is bound as one `--flag=value` element, so that
    /// no value is ever read as a flag. The order follows the TypeScript SDK.
    pub(crate) fn command_args(&self) -> Vec<OsString> {
        let mut argv = Argv::default();
        for arg in FIXED_ARGS {
            argv.0.push(arg.into());
        }

        match self.thinking {
            Some(Thinking::Adaptive) => argv.value("--thinking", "adaptive"),
            Some(Thinking::Enabled { budget_tokens }) => {
                argv.value("--max-thinking-tokens", budget_tokens.to_string());
            }
            Some(Thinking::Disabled) => argv.value("--thinking", "disabled"),
            None => {}
        }
        if let Some(display) = &self.thinking_display {
            if self.thinking != Some(Thinking::Disabled) {
                argv.value("--thinking-display", display.as_str());
            }
        }
        if let Some(effort) = &self.effort {
            argv.value("--effort", effort.as_str());
        }
        if let Some(max_turns) = self.max_turns {
            argv.value("--max-turns", max_turns.to_string());
        }
        if let Some(budget) = self.max_budget_usd {
            argv.value("--max-budget-usd", budget.to_string());
        }
        if let Some(tokens) = self.task_budget {
            argv.value("--task-budget", tokens.to_string());
        }
        argv.value_opt("--model", self.model.as_deref());
        argv.value_opt("--agent", self.agent.as_deref());
        // One flag per beta: the CLI takes a bound value whole, so `--betas=a,b` would be a
        // single beta named `a,b`.
        for beta in &self.betas {
            argv.value("--betas", beta);
        }
        if let Some(schema) = self.json_schema() {
            argv.value("--json-schema", schema.to_string());
        }
        if let Some(file) = &self.debug_file {
            argv.value("--debug-file", file);
        } else if self.debug {
            argv.flag("--debug");
        }

        if self.answers_permissions() {
            argv.value("--permission-prompt-tool", "stdio");
        } else {
            argv.value_opt(
                "--permission-prompt-tool",
                self.permission_prompt_tool_name.as_deref(),
            );
        }
        if let Some(prompts) = &self.permission_prompts {
            argv.value("--permission-prompts", prompts.as_str());
        }
        if self.continue_conversation {
            argv.flag("--continue");
        }
        argv.value_opt("--resume", self.resume.as_deref());

        let allowed = self.allowed_tools_with_skills();
        if !allowed.is_empty() {
            argv.value("--allowedTools", allowed.join(","));
        }
        if !self.disallowed_tools.is_empty() {
            argv.value("--disallowedTools", self.disallowed_tools.join(","));
        }
        match &self.tools {
            Some(Tools::Preset) => argv.value("--tools", "default"),
            Some(Tools::List(tools)) => argv.value("--tools", tools.join(",")),
            None => {}
        }

        if self.mcp_servers_delivery == Delivery::Argv {
            let configs = self.configured_mcp_servers();
            if !configs.is_empty() {
                let config = serde_json::json!({ "mcpServers": configs });
                argv.value("--mcp-config", config.to_string());
            }
        }
        for file in &self.mcp_config_files {
            argv.value("--mcp-config", file);
        }
        if let Some(sources) = &self.setting_sources {
            let sources: Vec<_> = sources.iter().map(|s| s.as_str()).collect();
            argv.value("--setting-sources", sources.join(","));
        }
        if self.strict_mcp_config {
            argv.flag("--strict-mcp-config");
        }
        if self.transcript_store.is_some() {
            argv.flag("--session-mirror");
        }
        if let Some(mode) = &self.permission_mode {
            argv.value("--permission-mode", mode.as_str());
        }
        if self.allow_dangerously_skip_permissions {
            argv.flag("--allow-dangerously-skip-permissions");
        }
        argv.value_opt("--fallback-model", self.fallback_model.as_deref());
        if self.include_hook_events {
            argv.flag("--include-hook-events");
        }
        if self.include_partial_messages {
            argv.flag("--include-partial-messages");
        }
        if let Some(root) = &self.project_config_root {
            argv.value("--project-config-root", root);
        }
        for dir in &self.add_dirs {
            argv.value("--add-dir", dir);
        }
        if self.awaits_initialize() {
            argv.flag("--await-initialize");
        }
        if self.plugin_delivery == Delivery::Argv {
            for plugin in &self.plugins {
                if let SdkPluginConfig::Local(local) = plugin {
                    let flag = if local.skip_mcp_discovery == Some(true) {
                        "--plugin-dir-no-mcp"
                    } else {
                        "--plugin-dir"
                    };
                    argv.value(flag, &local.path);
                }
            }
        }
        if self.fork_session {
            argv.flag("--fork-session");
        }
        argv.value_opt("--resume-session-at", self.resume_session_at.as_deref());
        argv.value_opt("--resume-drops-turn", self.resume_drops_turn.as_deref());
        argv.value_opt("--session-id", self.session_id.as_deref());
        if !self.persist_session {
            argv.flag("--no-session-persistence");
        }
        if let Some(managed) = &self.managed_settings {
            argv.value(
                "--managed-settings",
                Value::Object(managed.clone()).to_string(),
            );
        }
        if let SystemPrompt::File(path) = &self.system_prompt {
            argv.value("--system-prompt-file", path);
        }
        match (&self.settings, &self.sandbox) {
            (Some(Settings::File(path)), _) => argv.value("--settings", path),
            (Some(Settings::Inline(settings)), None) => {
                argv.value("--settings", settings.to_string());
            }
            (settings, Some(sandbox)) => {
                let base = match settings {
                    Some(Settings::Inline(Value::Object(map))) => Some(map),
                    _ => None,
                };
                let merged = merge_into_settings(base, sandbox);
                argv.value("--settings", Value::Object(merged).to_string());
            }
            (None, None) => {}
        }

        for (key, value) in &self.extra_args {
            match value {
                Some(value) => argv.value(&format!("--{key}"), value),
                None => argv.flag(&format!("--{key}")),
            }
        }
        argv.0
    }

    /// `allowed_tools` plus what `skills` adds (`Skill`, or `Skill(name)` per skill), without
    /// duplicates.
    pub(crate) fn allowed_tools_with_skills(&self) -> Vec<String> {
        let mut allowed = self.allowed_tools.clone();
        let added: Vec<String> = match &self.skills {
            Some(Skills::All) => vec!["Skill".to_owned()],
            Some(Skills::Only(names)) => {
                names.iter().map(|name| format!("Skill({name})")).collect()
            }
            None => Vec::new(),
        };
        for tool in added {
            if !allowed.contains(&tool) {
                allowed.push(tool);
            }
        }
        allowed
    }

    /// The configured (not in-process) MCP servers, by name.
    pub(crate) fn configured_mcp_servers(&self) -> BTreeMap<String, McpServerConfig> {
        self.mcp_servers
            .iter()
            .filter_map(|(name, server)| match server {
                McpServer::Config(config) => Some((name.clone(), config.clone())),
                McpServer::InProcess(_) => None,
            })
            .collect()
    }

    /// Whether any MCP server is configured for the CLI to run (not in process).
    fn has_configured_mcp_servers(&self) -> bool {
        self.mcp_servers
            .values()
            .any(|server| matches!(server, McpServer::Config(_)))
    }

    /// The JSON schema of structured output, if any.
    pub(crate) fn json_schema(&self) -> Option<&Value> {
        match &self.output_format {
            Some(super::OutputFormat::JsonSchema(schema)) => Some(schema),
            None => None,
        }
    }

    /// Whether the CLI must wait for `initialize` before it loads plugins or MCP servers.
    pub(crate) fn awaits_initialize(&self) -> bool {
        (self.plugin_delivery == Delivery::Initialize && !self.plugins.is_empty())
            || (self.mcp_servers_delivery == Delivery::Initialize
                && self.has_configured_mcp_servers())
    }
}

/// Arguments under construction.
#[derive(Default)]
struct Argv(Vec<OsString>);

impl Argv {
    /// A flag without a value.
    fn flag(&mut self, flag: &str) {
        self.0.push(flag.into());
    }

    /// `--flag=value`, as one argument.
    fn value(&mut self, flag: &str, value: impl AsRef<OsStr>) {
        let mut arg = OsString::with_capacity(flag.len() + 1 + value.as_ref().len());
        arg.push(flag);
        arg.push("=");
        arg.push(value);
        self.0.push(arg);
    }

    /// `--flag=value` when there is a value.
    fn value_opt(&mut self, flag: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.value(flag, value);
        }
    }
}
