//! The `initialize` request and the engine's settings.

use serde_json::{Map, Value};
use twinwire_protocol::control::InitializeRequest;
use twinwire_protocol::hooks::HookMatchers;

use super::{Delivery, Options, Skills, SystemPrompt};
use crate::engine::EngineConfig;

impl Options {
    /// The `initialize` request: hooks (their wire form, with callback ids the caller
    /// assigned), in-process MCP server names, and everything that goes in `initialize`
    /// rather than on the command line (system prompt, agents, JSON schema, …).
    pub(crate) fn initialize_request(
        &self,
        hooks: Option<HookMatchers>,
        sdk_mcp_servers: Vec<String>,
    ) -> InitializeRequest {
        let mut request = InitializeRequest {
            hooks: hooks.filter(|hooks| !hooks.is_empty()).map(Some),
            sdk_mcp_servers: (!sdk_mcp_servers.is_empty()).then_some(sdk_mcp_servers),
            json_schema: self.json_schema().cloned(),
            system_prompt_snapshot: self.system_prompt_snapshot,
            plan_mode_instructions: self.plan_mode_instructions.clone(),
            tool_aliases: (!self.tool_aliases.is_empty()).then(|| self.tool_aliases.clone()),
            exclude_dynamic_sections: self.exclude_dynamic_sections,
            agents: (!self.agents.is_empty()).then(|| self.agents.clone()),
            title: self.title.clone(),
            skills: match &self.skills {
                Some(Skills::Only(names)) => Some(names.clone()),
                Some(Skills::All) | None => None,
            },
            prompt_suggestions: self.prompt_suggestions.then_some(true),
            agent_progress_summaries: self.agent_progress_summaries.then_some(true),
            forward_subagent_text: self.forward_subagent_text.then_some(true),
            per_task_stop_affordance: self.per_task_stop_affordance.then_some(true),
            supported_dialog_kinds: (!self.supported_dialog_kinds.is_empty())
                .then(|| self.supported_dialog_kinds.clone()),
            ..InitializeRequest::default()
        };
        match &self.system_prompt {
            SystemPrompt::Text(text) => request.system_prompt = Some(vec![text.clone()]),
            SystemPrompt::Parts(parts) => request.system_prompt = Some(parts.clone()),
            SystemPrompt::Preset { append } => request.append_system_prompt = append.clone(),
            // On the command line (`--system-prompt-file`).
            SystemPrompt::File(_) => {}
        }
        // Settings of the in-process servers (a per-call timeout), for those that have any.
        let configs: std::collections::BTreeMap<_, _> = self
            .mcp_servers
            .values()
            .filter_map(|server| match server {
                super::McpServer::InProcess(server) if server.settings() != &Default::default() => {
                    Some((server.name().to_owned(), server.settings().clone()))
                }
                _ => None,
            })
            .collect();
        if !configs.is_empty() {
            request.sdk_mcp_server_configs = Some(configs);
        }
        if self.plugin_delivery == Delivery::Initialize && !self.plugins.is_empty() {
            request.plugins = Some(self.plugins.clone());
        }
        if self.mcp_servers_delivery == Delivery::Initialize {
            let configs = self.configured_mcp_servers();
            if !configs.is_empty() {
                request.mcp_servers = Some(configs);
            }
        }
        if !self.initialize_extra.is_empty() {
            match with_fields(&request, &self.initialize_extra) {
                Ok(extended) => request = extended,
                // Unreachable after `build()`, which checks that the fields fit.
                Err(err) => tracing::warn!(%err, "initialize fields ignored"),
            }
        }
        request
    }

    /// The connection engine's settings.
    pub(crate) fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            request_timeout: self.request_timeout,
            max_line_length: self.max_line_length,
            max_buffered_bytes: self.max_buffered_bytes,
            ..EngineConfig::default()
        }
    }
}

/// `request` with `fields` set over its own, by name as on the wire: a known field takes the
/// value, an unknown one lands in `extra`.
pub(crate) fn with_fields(
    request: &InitializeRequest,
    fields: &Map<String, Value>,
) -> serde_json::Result<InitializeRequest> {
    let mut object = match serde_json::to_value(request)? {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
    serde_json::from_value(Value::Object(object))
}
