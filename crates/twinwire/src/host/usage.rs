//! Cost and usage per subagent and per tool call: the frames of a turn folded by
//! `parent_tool_use_id` into a [`TurnUsage`] when its `result` arrives (read with
//! [`Client::turn_usage`](crate::Client::turn_usage)), and recorded on the turn's and the tool
//! uses' spans.
//!
//! What is exact and what is shared out:
//! - **tokens**: each model request's input and cache tokens are the ones its `assistant`
//!   frames carry; its output tokens are exact with `include_partial_messages` (the stream's
//!   `message_delta`), else the CLI writes a placeholder there. The main thread's total is the
//!   `result`'s own `usage`; a subagent's is its task's report (the `Task` tool's result, or
//!   `task_notification`'s `total_tokens`, the rest of which is output). What a total has
//!   beyond the requests' counts is shared out among that agent's requests.
//! - **cost**: the CLI prices each model of the turn (`model_usage_since_last_result`, or the
//!   difference of the session totals on CLIs before 2.1.330); each request gets its model's
//!   cost in proportion to its tokens weighted as the list prices weigh them (output 5×, cache
//!   writes 1.25×, cache reads 0.1× an input token), so the shares add up to the CLI's cost.
//! - **unattributed**: what the CLI counted that no frame showed (title generation, side
//!   requests, a subagent whose frames were not forwarded), per model, with its cost: the
//!   shares and it add up to the turn's totals.
//! - **tool calls**: a tool call is given the request that chose it (shared evenly among the
//!   calls that request made) and, when it ran a subagent, that subagent's usage.

use std::collections::{BTreeMap, HashMap, VecDeque};

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::usage::{ModelUsage, Usage};

/// Model requests followed in one turn, at most (a turn with more leaves the rest to
/// [`TurnUsage::unattributed`]).
const MAX_REQUESTS: usize = 10_000;
/// Tool calls followed in one turn, at most.
const MAX_TOOL_CALLS: usize = 10_000;
/// Turns kept for [`Client::turn_usage`](crate::Client::turn_usage).
pub(crate) const TURNS_KEPT: usize = 256;

/// Tokens of one kind of use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Tokens {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens (thinking included).
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
}

impl Tokens {
    /// Every token, of every kind.
    pub fn total(&self) -> u64 {
        self.input_tokens
            + self.output_tokens
            + self.cache_read_input_tokens
            + self.cache_creation_input_tokens
    }

    /// Input with the cache's reads and writes, as OpenTelemetry's GenAI conventions count
    /// `gen_ai.usage.input_tokens`.
    pub fn all_input(&self) -> u64 {
        self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens
    }

    pub(crate) fn of_usage(usage: &Usage) -> Self {
        Self {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens.unwrap_or(0),
            cache_creation_input_tokens: usage.cache_creation_input_tokens.unwrap_or(0),
        }
    }

    fn of_model(usage: &ModelUsage) -> Self {
        Self {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
        }
    }

    /// From a usage object as the `Task` tool's result reports it (`input_tokens`, …).
    fn of_value(value: &Value) -> Option<Self> {
        let field = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
        value.as_object()?;
        Some(Self {
            input_tokens: field("input_tokens"),
            output_tokens: field("output_tokens"),
            cache_read_input_tokens: field("cache_read_input_tokens"),
            cache_creation_input_tokens: field("cache_creation_input_tokens"),
        })
    }

    fn add(&mut self, other: &Tokens) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
    }

    fn saturating_sub(&self, other: &Tokens) -> Tokens {
        Tokens {
            input_tokens: self.input_tokens.saturating_sub(other.input_tokens),
            output_tokens: self.output_tokens.saturating_sub(other.output_tokens),
            cache_read_input_tokens: self
                .cache_read_input_tokens
                .saturating_sub(other.cache_read_input_tokens),
            cache_creation_input_tokens: self
                .cache_creation_input_tokens
                .saturating_sub(other.cache_creation_input_tokens),
        }
    }

    /// The larger of each kind (frames of one request repeat its usage, some more complete).
    fn max(&self, other: &Tokens) -> Tokens {
        Tokens {
            input_tokens: self.input_tokens.max(other.input_tokens),
            output_tokens: self.output_tokens.max(other.output_tokens),
            cache_read_input_tokens: self
                .cache_read_input_tokens
                .max(other.cache_read_input_tokens),
            cache_creation_input_tokens: self
                .cache_creation_input_tokens
                .max(other.cache_creation_input_tokens),
        }
    }

    /// Tokens weighted as the list prices weigh them, in input-token units.
    fn weight(&self) -> f64 {
        self.input_tokens as f64
            + 5.0 * self.output_tokens as f64
            + 1.25 * self.cache_creation_input_tokens as f64
            + 0.1 * self.cache_read_input_tokens as f64
    }

    /// `self` split into `parts` shares, the remainders on the first.
    fn split(&self, parts: usize, index: usize) -> Tokens {
        let parts = parts.max(1) as u64;
        let share = |n: u64| n / parts + if index == 0 { n % parts } else { 0 };
        Tokens {
            input_tokens: share(self.input_tokens),
            output_tokens: share(self.output_tokens),
            cache_read_input_tokens: share(self.cache_read_input_tokens),
            cache_creation_input_tokens: share(self.cache_creation_input_tokens),
        }
    }
}

impl std::ops::Add for Tokens {
    type Output = Tokens;

    fn add(mut self, other: Tokens) -> Tokens {
        Tokens::add(&mut self, &other);
        self
    }
}

/// The usage of one agent of a turn: the main thread, or one subagent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AgentUsage {
    /// The tool call that started the subagent (`parent_tool_use_id` of its frames); `None`
    /// for the main thread.
    pub tool_use_id: Option<String>,
    /// The subagent's type (`subagent_type`), when known.
    pub agent_type: Option<String>,
    /// What it was asked to do (the task's description), when known.
    pub description: Option<String>,
    /// Its tokens.
    pub tokens: Tokens,
    /// Its share of the turn's cost, in US dollars.
    pub cost_usd: f64,
    /// Model requests it made (as its frames show them).
    pub requests: u32,
    /// Tool calls it made.
    pub tool_calls: u32,
    /// Whether `tokens` is the CLI's own count for this agent (the result's usage, the task's
    /// report) rather than only the sum of its frames.
    pub exact: bool,
}

/// The usage of one tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolCallUsage {
    /// The `tool_use` block's id.
    pub tool_use_id: String,
    /// The tool's name.
    pub name: String,
    /// The agent that called it (its `parent_tool_use_id`); `None`: the main thread.
    pub agent: Option<String>,
    /// Its share of the model request that chose it (shared evenly among the calls of that
    /// request).
    pub tokens: Tokens,
    /// The cost of that share.
    pub cost_usd: f64,
    /// What the subagent it started used, when it started one (`Task`, `Agent`).
    pub subagent: Option<AgentUsage>,
}

/// What one turn used, from its prompt to its `result`, folded by agent and by tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TurnUsage {
    /// The `uuid` of the result that ended the turn.
    pub result_uuid: String,
    /// The session.
    pub session_id: String,
    /// The main thread.
    pub main: AgentUsage,
    /// Each subagent, in the order it began.
    pub subagents: Vec<AgentUsage>,
    /// Each tool call, in the order it was made, subagents' calls included.
    pub tool_calls: Vec<ToolCallUsage>,
    /// What the CLI counted that no frame showed (side requests such as titles, a subagent
    /// whose frames were not forwarded), and its cost.
    pub unattributed: Tokens,
    /// The cost of [`TurnUsage::unattributed`].
    pub unattributed_cost_usd: f64,
    /// The turn's tokens as the CLI counts them (every model, every agent).
    pub total: Tokens,
    /// The turn's cost as the CLI counts it (the growth of `total_cost_usd`).
    pub total_cost_usd: f64,
    /// The turn's tokens and cost per model, as the CLI counts them.
    pub by_model: BTreeMap<String, ModelUsage>,
}

/// A model request of the turn, as its frames show it.
#[derive(Debug, Clone, Default)]
struct Request {
    agent: Option<String>,
    model: String,
    tokens: Tokens,
    /// The output count came from the stream's `message_delta` (exact).
    output_final: bool,
    /// Its tool calls, as indices into the turn's calls.
    calls: Vec<usize>,
}

/// What the turn's frames said about one subagent.
#[derive(Debug, Clone, Default)]
struct Agent {
    agent_type: Option<String>,
    description: Option<String>,
    /// The task's full report (the `Task` tool's result `usage`).
    exact: Option<Tokens>,
    /// The task's total (`totalTokens`, `task_notification`'s `total_tokens`).
    total: Option<u64>,
}

#[derive(Debug, Clone)]
struct Call {
    id: String,
    name: String,
    agent: Option<String>,
    request: String,
}

/// The fold of one session: the frames of the turn under way, what came before, and the
/// turns done.
#[derive(Debug, Default)]
pub(crate) struct UsageFold {
    requests: IndexMap<String, Request>,
    /// Subagents by the tool call that started them, in the order they began.
    agents: IndexMap<String, Agent>,
    calls: Vec<Call>,
    /// The message each stream is on (by `parent_tool_use_id`), for `message_delta`.
    streaming: HashMap<Option<String>, String>,
    anonymous: u64,
    /// The session totals of the last result (for CLIs without
    /// `model_usage_since_last_result`).
    previous_models: BTreeMap<String, ModelUsage>,
    previous_cost: f64,
    turns: VecDeque<TurnUsage>,
}

/// A tool use block, as the fold needs it.
pub(crate) struct ToolUse<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub input: Option<&'a Value>,
}

impl UsageFold {
    /// An `assistant` frame: one content block (or all) of a model request.
    pub(crate) fn assistant(
        &mut self,
        parent: Option<&str>,
        message_id: Option<&str>,
        model: Option<&str>,
        usage: Option<Tokens>,
        tool_uses: &[ToolUse<'_>],
    ) {
        let key = match message_id {
            Some(id) => id.to_owned(),
            None => {
                self.anonymous += 1;
                format!("unnamed-{}", self.anonymous)
            }
        };
        if !self.requests.contains_key(&key) {
            if self.requests.len() >= MAX_REQUESTS {
                return;
            }
            self.requests.insert(
                key.clone(),
                Request {
                    agent: parent.map(str::to_owned),
                    model: model.unwrap_or_default().to_owned(),
                    ..Request::default()
                },
            );
        }
        if let Some(request) = self.requests.get_mut(&key) {
            if let Some(seen) = usage {
                let output = request.tokens.output_tokens;
                request.tokens = request.tokens.max(&seen);
                if request.output_final {
                    request.tokens.output_tokens = output;
                }
            }
        }
        for tool in tool_uses {
            if self.calls.len() >= MAX_TOOL_CALLS || self.calls.iter().any(|c| c.id == tool.id) {
                continue;
            }
            let index = self.calls.len();
            self.calls.push(Call {
                id: tool.id.to_owned(),
                name: tool.name.to_owned(),
                agent: parent.map(str::to_owned),
                request: key.clone(),
            });
            if let Some(request) = self.requests.get_mut(&key) {
                request.calls.push(index);
            }
            if matches!(tool.name, "Task" | "Agent") {
                let field = |name: &str| {
                    tool.input
                        .and_then(|input| input.get(name))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                let agent = self.agents.entry(tool.id.to_owned()).or_default();
                agent.agent_type = agent.agent_type.take().or_else(|| field("subagent_type"));
                agent.description = agent.description.take().or_else(|| field("description"));
            }
        }
    }

    /// A streamed `message_start`: the stream of `parent` is on `message_id` now.
    pub(crate) fn stream_started(&mut self, parent: Option<&str>, message_id: &str) {
        if self.streaming.len() < MAX_REQUESTS {
            self.streaming
                .insert(parent.map(str::to_owned), message_id.to_owned());
        }
    }

    /// A streamed `message_delta` with the request's final output count.
    pub(crate) fn stream_output(&mut self, parent: Option<&str>, output_tokens: u64) {
        let Some(id) = self.streaming.get(&parent.map(str::to_owned)) else {
            return;
        };
        let id = id.clone();
        if !self.requests.contains_key(&id) {
            if self.requests.len() >= MAX_REQUESTS {
                return;
            }
            self.requests.insert(
                id.clone(),
                Request {
                    agent: parent.map(str::to_owned),
                    ..Request::default()
                },
            );
        }
        if let Some(request) = self.requests.get_mut(&id) {
            request.tokens.output_tokens = output_tokens;
            request.output_final = true;
        }
    }

    /// A tool's result: a subagent's report when the call ran one.
    pub(crate) fn tool_result(&mut self, tool_use_id: &str, tool_use_result: Option<&Value>) {
        let (Some(agent), Some(result)) = (self.agents.get_mut(tool_use_id), tool_use_result)
        else {
            return;
        };
        if let Some(exact) = result.get("usage").and_then(Tokens::of_value) {
            if exact.total() > 0 {
                agent.exact = Some(exact);
            }
        }
        if let Some(total) = result.get("totalTokens").and_then(Value::as_u64) {
            agent.total = Some(total);
        }
    }

    /// A task began (`task_started`): what the subagent is.
    pub(crate) fn task_started(
        &mut self,
        tool_use_id: &str,
        agent_type: Option<&str>,
        description: &str,
    ) {
        if self.agents.len() >= MAX_TOOL_CALLS && !self.agents.contains_key(tool_use_id) {
            return;
        }
        let agent = self.agents.entry(tool_use_id.to_owned()).or_default();
        if agent.agent_type.is_none() {
            agent.agent_type = agent_type.map(str::to_owned);
        }
        if agent.description.is_none() && !description.is_empty() {
            agent.description = Some(description.to_owned());
        }
    }

    /// A task ended (`task_notification`) with its total tokens.
    pub(crate) fn task_ended(&mut self, tool_use_id: &str, total_tokens: Option<u64>) {
        if let (Some(agent), Some(total)) = (self.agents.get_mut(tool_use_id), total_tokens) {
            agent.total = Some(total);
        }
    }

    /// The tokens of the subagent started by `tool_use_id` as known now: its report, else the
    /// sum of its requests with the rest of its total as output.
    pub(crate) fn subagent_tokens(&self, tool_use_id: &str) -> Option<Tokens> {
        let agent = self.agents.get(tool_use_id)?;
        let mut seen = Tokens::default();
        for request in self.requests.values() {
            if request.agent.as_deref() == Some(tool_use_id) {
                seen.add(&request.tokens);
            }
        }
        Some(reconciled(agent, seen).0)
    }

    /// The turns done, newest last.
    pub(crate) fn turns(&self) -> &VecDeque<TurnUsage> {
        &self.turns
    }

    /// The turn ends: its frames folded with the result's totals.
    pub(crate) fn result(&mut self, result: &ResultMessage) -> TurnUsage {
        let by_model = self.turn_models(result);
        let total_cost_usd = (result.total_cost_usd - self.previous_cost).max(0.0);
        self.previous_cost = result.total_cost_usd;
        let mut requests = std::mem::take(&mut self.requests);
        let agents = std::mem::take(&mut self.agents);
        let calls = std::mem::take(&mut self.calls);
        self.streaming.clear();

        // Each agent's exact total shared out among its requests.
        let main_exact = Tokens::of_usage(&result.usage);
        let mut exact_of: HashMap<Option<String>, (Tokens, bool)> = HashMap::new();
        exact_of.insert(None, (main_exact, main_exact.total() > 0));
        for (id, agent) in &agents {
            let seen = sum_of(&requests, Some(id));
            exact_of.insert(Some(id.clone()), reconciled(agent, seen));
        }
        for (agent, (exact, is_exact)) in &exact_of {
            if *is_exact {
                share_out(&mut requests, agent.as_ref(), exact);
            }
        }

        let prices = prices(&by_model);
        // Tokens with no request to name their model (a subagent whose frames were not
        // forwarded) are priced as the main thread's, else the costliest model's.
        let fallback_model = requests
            .values()
            .find(|r| r.agent.is_none() && prices.contains_key(&r.model))
            .map(|r| r.model.clone())
            .or_else(|| {
                by_model
                    .iter()
                    .max_by(|a, b| a.1.cost_usd.total_cmp(&b.1.cost_usd))
                    .map(|(model, _)| model.clone())
            })
            .unwrap_or_default();
        let price = |model: &str| {
            prices
                .get(model)
                .or_else(|| {
                    (prices.len() == 1)
                        .then(|| prices.values().next())
                        .flatten()
                })
                .copied()
                .unwrap_or(0.0)
        };
        let mut attributed: BTreeMap<String, Tokens> = BTreeMap::new();
        let mut usage_of = |agent: Option<&String>| -> AgentUsage {
            let mut usage = AgentUsage {
                tool_use_id: agent.cloned(),
                ..AgentUsage::default()
            };
            for request in requests.values().filter(|r| r.agent.as_ref() == agent) {
                usage.tokens.add(&request.tokens);
                usage.cost_usd += price(&request.model) * request.tokens.weight();
                usage.requests += 1;
                usage.tool_calls += request.calls.len() as u32;
                let model = if prices.contains_key(&request.model) {
                    request.model.clone()
                } else {
                    fallback_model.clone()
                };
                attributed.entry(model).or_default().add(&request.tokens);
            }
            // A total with no request to carry it (frames not forwarded): the agent's own.
            let (exact, is_exact) = exact_of.get(&agent.cloned()).copied().unwrap_or_default();
            let missing = exact.saturating_sub(&usage.tokens);
            if is_exact && missing.total() > 0 {
                usage.cost_usd += price(&fallback_model) * missing.weight();
                attributed
                    .entry(fallback_model.clone())
                    .or_default()
                    .add(&missing);
                usage.tokens.add(&missing);
            }
            usage.exact = is_exact;
            usage
        };
        let main = usage_of(None);
        let subagents: Vec<AgentUsage> = agents
            .iter()
            .map(|(id, agent)| {
                let mut usage = usage_of(Some(id));
                usage.agent_type = agent.agent_type.clone();
                usage.description = agent.description.clone();
                usage
            })
            .collect();

        let mut total = Tokens::default();
        let mut unattributed = Tokens::default();
        let mut unattributed_cost_usd = 0.0;
        for (model, usage) in &by_model {
            let counted = Tokens::of_model(usage);
            total.add(&counted);
            let rest = counted.saturating_sub(attributed.get(model).unwrap_or(&Tokens::default()));
            unattributed.add(&rest);
            unattributed_cost_usd += price(model) * rest.weight();
        }
        // Cost the CLI counted outside its per-model totals.
        let models_cost: f64 = by_model.values().map(|m| m.cost_usd).sum();
        unattributed_cost_usd += (total_cost_usd - models_cost).max(0.0);

        let tool_calls = calls
            .iter()
            .map(|call| {
                let request = requests.get(&call.request);
                let (tokens, cost_usd) = match request {
                    Some(request) => {
                        let at = request.calls.iter().position(|&c| {
                            calls.get(c).map(|other| other.id.as_str()) == Some(call.id.as_str())
                        });
                        let share = request.tokens.split(request.calls.len(), at.unwrap_or(0));
                        (share, price(&request.model) * share.weight())
                    }
                    None => (Tokens::default(), 0.0),
                };
                ToolCallUsage {
                    tool_use_id: call.id.clone(),
                    name: call.name.clone(),
                    agent: call.agent.clone(),
                    tokens,
                    cost_usd,
                    subagent: subagents
                        .iter()
                        .find(|agent| agent.tool_use_id.as_deref() == Some(call.id.as_str()))
                        .cloned(),
                }
            })
            .collect();

        let turn = TurnUsage {
            result_uuid: result.uuid.clone(),
            session_id: result.session_id.clone(),
            main,
            subagents,
            tool_calls,
            unattributed,
            unattributed_cost_usd,
            total,
            total_cost_usd,
            by_model,
        };
        if self.turns.len() >= TURNS_KEPT {
            self.turns.pop_front();
        }
        self.turns.push_back(turn.clone());
        turn
    }

    /// The turn's per-model totals: the CLI's own, else the growth of the session's.
    fn turn_models(&mut self, result: &ResultMessage) -> BTreeMap<String, ModelUsage> {
        let cumulative = &result.model_usage;
        let turn = match &result.model_usage_since_last_result {
            Some(since) => since.clone(),
            None => cumulative
                .iter()
                .map(|(model, now)| {
                    let before = self.previous_models.get(model);
                    let mut grown = now.clone();
                    if let Some(before) = before {
                        grown.input_tokens = now.input_tokens.saturating_sub(before.input_tokens);
                        grown.output_tokens =
                            now.output_tokens.saturating_sub(before.output_tokens);
                        grown.cache_read_input_tokens = now
                            .cache_read_input_tokens
                            .saturating_sub(before.cache_read_input_tokens);
                        grown.cache_creation_input_tokens = now
                            .cache_creation_input_tokens
                            .saturating_sub(before.cache_creation_input_tokens);
                        grown.web_search_requests = now
                            .web_search_requests
                            .saturating_sub(before.web_search_requests);
                        grown.cost_usd = (now.cost_usd - before.cost_usd).max(0.0);
                    }
                    (model.clone(), grown)
                })
                .filter(|(_, usage)| usage.cost_usd > 0.0 || Tokens::of_model(usage).total() > 0)
                .collect(),
        };
        self.previous_models = cumulative.clone();
        turn
    }
}

/// The tokens of `agent`'s requests.
fn sum_of(requests: &IndexMap<String, Request>, agent: Option<&String>) -> Tokens {
    let mut sum = Tokens::default();
    for request in requests.values().filter(|r| r.agent.as_ref() == agent) {
        sum.add(&request.tokens);
    }
    sum
}

/// A subagent's tokens from its report and the sum of its requests (`seen`): the full report
/// when there is one; else what was seen, with the rest of a reported total as output (the
/// count the frames leave short); and whether that is the CLI's own count.
fn reconciled(agent: &Agent, seen: Tokens) -> (Tokens, bool) {
    if let Some(exact) = agent.exact {
        return (exact, true);
    }
    match agent.total {
        Some(total) => {
            let mut tokens = seen;
            tokens.output_tokens += total.saturating_sub(seen.total());
            (tokens, true)
        }
        None => (seen, false),
    }
}

/// Shares what `exact` has beyond the requests of `agent` out among them, kind by kind.
fn share_out(requests: &mut IndexMap<String, Request>, agent: Option<&String>, exact: &Tokens) {
    let seen = sum_of(requests, agent);
    let extra = exact.saturating_sub(&seen);
    if extra.total() == 0 {
        return;
    }
    let mine: Vec<&mut Request> = requests
        .values_mut()
        .filter(|r| r.agent.as_ref() == agent)
        .collect();
    let count = mine.len();
    for (index, request) in mine.into_iter().enumerate() {
        request.tokens.add(&extra.split(count, index));
    }
}

/// Each model's price per weighted token: its cost over its weighted tokens.
fn prices(by_model: &BTreeMap<String, ModelUsage>) -> BTreeMap<String, f64> {
    by_model
        .iter()
        .map(|(model, usage)| {
            let weight = Tokens::of_model(usage).weight();
            let price = if weight > 0.0 {
                usage.cost_usd / weight
            } else {
                0.0
            };
            (model.clone(), price)
        })
        .collect()
}

#[cfg(test)]
mod tests;
