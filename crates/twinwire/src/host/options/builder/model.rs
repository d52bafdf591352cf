//! Builder methods: model, prompt, thinking, structured output, limits, agents, output.

use std::path::PathBuf;

use serde_json::Value;
use twinwire_protocol::control::{AgentDefinition, EffortLevel, ThinkingDisplay};

use super::OptionsBuilder;
use crate::host::options::{OutputFormat, SystemPrompt, Thinking};

impl OptionsBuilder {
    // --- Model and prompt ------------------------------------------------------------------

    /// The model: an alias (`sonnet`, `opus`) or a full id (`--model`). Default: the CLI's.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.options.model = Some(model.into());
        self
    }

    /// Model(s) tried in order when the model is overloaded or unavailable, comma-separated
    /// (`--fallback-model`). Must differ from `model`.
    pub fn fallback_model(mut self, model: impl Into<String>) -> Self {
        self.options.fallback_model = Some(model.into());
        self
    }

    /// The system prompt (`initialize.systemPrompt`, `appendSystemPrompt`, or
    /// `--system-prompt-file`; see [`SystemPrompt`]). A string is a custom prompt. Default:
    /// an empty custom prompt, as in both official SDKs; use [`SystemPrompt::preset`] for
    /// Claude Code's own.
    pub fn system_prompt(mut self, prompt: impl Into<SystemPrompt>) -> Self {
        self.options.system_prompt = prompt.into();
        self
    }

    /// Claude Code's own system prompt with `text` appended; short for
    /// `system_prompt(SystemPrompt::preset_with_append(text))`.
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.options.system_prompt = SystemPrompt::preset_with_append(text);
        self
    }

    /// Whether the system prompt is recorded once, on the first request, and reused verbatim
    /// for the rest of the conversation, resumes included (`initialize.systemPromptSnapshot`).
    /// Default: the CLI's (recorded).
    pub fn system_prompt_snapshot(mut self, snapshot: bool) -> Self {
        self.options.system_prompt_snapshot = Some(snapshot);
        self
    }

    /// With the preset prompt, moves the per-user sections (working directory, memory, git
    /// status) into the first user message, so the prompt is cacheable across users
    /// (`initialize.excludeDynamicSections`).
    pub fn exclude_dynamic_sections(mut self, exclude: bool) -> Self {
        self.options.exclude_dynamic_sections = Some(exclude);
        self
    }

    /// Replaces the workflow part of the plan-mode reminder
    /// (`initialize.planModeInstructions`).
    pub fn plan_mode_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.options.plan_mode_instructions = Some(instructions.into());
        self
    }

    /// Extended thinking (`--thinking`, `--max-thinking-tokens`). Default: the model's.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.options.thinking = Some(thinking);
        self
    }

    /// The thinking budget in tokens; `0` disables thinking. The official SDKs' deprecated
    /// `max_thinking_tokens`, the same as [`OptionsBuilder::thinking`] with
    /// [`Thinking::Enabled`] or [`Thinking::Disabled`].
    pub fn max_thinking_tokens(self, tokens: u64) -> Self {
        self.thinking(match tokens {
            0 => Thinking::Disabled,
            budget_tokens => Thinking::Enabled { budget_tokens },
        })
    }

    /// How thinking is shown in the output (`--thinking-display`); ignored when thinking is
    /// disabled.
    pub fn thinking_display(mut self, display: ThinkingDisplay) -> Self {
        self.options.thinking_display = Some(display);
        self
    }

    /// Reasoning effort (`--effort`).
    pub fn effort(mut self, effort: EffortLevel) -> Self {
        self.options.effort = Some(effort);
        self
    }

    /// Adds an API beta header, e.g. `context-1m-2025-08-07` (`--betas`).
    pub fn beta(mut self, beta: impl Into<String>) -> Self {
        self.options.betas.push(beta.into());
        self
    }

    /// Replaces the API beta headers (`--betas`).
    pub fn betas<I, S>(mut self, betas: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options.betas = betas.into_iter().map(Into::into).collect();
        self
    }

    /// Structured output (`--json-schema` and `initialize.jsonSchema`, as the TypeScript SDK
    /// sends it); the result then carries `structured_output`.
    pub fn output_format(mut self, format: OutputFormat) -> Self {
        self.options.output_format = Some(format);
        self
    }

    /// Structured output following `schema`, a JSON Schema object; short for
    /// `output_format(OutputFormat::JsonSchema(schema))`.
    pub fn json_schema(self, schema: Value) -> Self {
        self.output_format(OutputFormat::JsonSchema(schema))
    }

    // --- Limits ----------------------------------------------------------------------------

    /// The most agentic turns before the run stops with `error_max_turns` (`--max-turns`).
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.options.max_turns = Some(turns);
        self
    }

    /// The most the run may spend, in USD, before it stops with `error_max_budget_usd`
    /// (`--max-budget-usd`).
    pub fn max_budget_usd(mut self, usd: f64) -> Self {
        self.options.max_budget_usd = Some(usd);
        self
    }

    /// An API-side task budget in tokens, which the model paces itself against
    /// (`--task-budget`).
    pub fn task_budget(mut self, tokens: u64) -> Self {
        self.options.task_budget = Some(tokens);
        self
    }

    // --- Agents ----------------------------------------------------------------------------

    /// The agent that runs the main thread, defined in `agents` or in settings (`--agent`).
    pub fn agent(mut self, name: impl Into<String>) -> Self {
        self.options.agent = Some(name.into());
        self
    }

    /// Adds a custom subagent (`initialize.agents`).
    pub fn agent_definition(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.options.agents.insert(name.into(), agent);
        self
    }

    /// Replaces the custom subagents (`initialize.agents`).
    pub fn agents<I, K>(mut self, agents: I) -> Self
    where
        I: IntoIterator<Item = (K, AgentDefinition)>,
        K: Into<String>,
    {
        self.options.agents = agents
            .into_iter()
            .map(|(name, agent)| (name.into(), agent))
            .collect();
        self
    }

    // --- Output ----------------------------------------------------------------------------

    /// Emits `stream_event` messages as the model's answer streams in
    /// (`--include-partial-messages`).
    pub fn include_partial_messages(mut self, include: bool) -> Self {
        self.options.include_partial_messages = include;
        self
    }

    /// Emits `hook_started`, `hook_progress` and `hook_response` messages for every hook
    /// (`--include-hook-events`).
    pub fn include_hook_events(mut self, include: bool) -> Self {
        self.options.include_hook_events = include;
        self
    }

    /// Forwards subagents' text and thinking as messages with `parent_tool_use_id` set
    /// (`initialize.forwardSubagentText`).
    pub fn forward_subagent_text(mut self, forward: bool) -> Self {
        self.options.forward_subagent_text = forward;
        self
    }

    /// Emits a `prompt_suggestion` after each turn (`initialize.promptSuggestions`).
    pub fn prompt_suggestions(mut self, enable: bool) -> Self {
        self.options.prompt_suggestions = enable;
        self
    }

    /// Emits periodic AI-written progress summaries of running subagents on `task_progress`
    /// (`initialize.agentProgressSummaries`).
    pub fn agent_progress_summaries(mut self, enable: bool) -> Self {
        self.options.agent_progress_summaries = enable;
        self
    }

    /// Declares that the host offers a per-task stop control (`stop_task`), so that an
    /// interrupt spares background tasks (`initialize.perTaskStopAffordance`).
    pub fn per_task_stop_affordance(mut self, offered: bool) -> Self {
        self.options.per_task_stop_affordance = offered;
        self
    }

    /// Debug logging, to stderr or the debug file (`--debug`).
    pub fn debug(mut self, debug: bool) -> Self {
        self.options.debug = debug;
        self
    }

    /// Writes debug logs to `path`; implies debug (`--debug-file`).
    pub fn debug_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.options.debug_file = Some(path.into());
        self
    }
}
