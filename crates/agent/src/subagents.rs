//! Subagents: the `Task` tool (Claude Code's `Agent`), which starts one of the session's
//! agents ([`crate::agents`]) on a prompt and returns its report.
//!
//! A subagent runs in the tool call (in the foreground, as Claude Code did up to 2.1.112) on a
//! thread of its own ([`crate::thread`]): its own conversation, its definition's prompt as its
//! system prompt, its model (the definition's, the call's `model`, or the session's), its
//! tools (the definition's, never `Task` itself), the session's permissions and hooks (whose
//! inputs say `agent_id` and `agent_type`). It is a task the host sees start and end
//! (`task_started`, `task_notification`) and may stop (`stop_task`); its frames carry
//! `parent_tool_use_id`; its conversation is saved as Claude Code saves a sidechain
//! (`<session>/subagents/agent-<id>.jsonl`). `SubagentStart` and `SubagentStop` hooks run
//! around it (a `SubagentStop` block sends its reason to the subagent, which goes on). What
//! it costs counts in the session's cost and `modelUsage` (the turn's `usage` is the main
//! conversation's, as in Claude Code).

use std::sync::{Arc, Weak};
use std::time::Instant;

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use twinwire::agent::frames::{self, new_id};
use twinwire::agent::Peer;
use twinwire_protocol::content::{ContentBlock, TextBlock, ToolResultContent, UserContent};
use twinwire_protocol::system::TaskUsage;
use twinwire_protocol::Message;

use crate::agents::{AgentSpec, DEFAULT_AGENT, NOT_FOR_SUBAGENTS};
use crate::config::resolve_alias;
use crate::model::SystemBlock;
use crate::session::Session;
use crate::tasks::{End as TaskEnd, Kind, Start};
use crate::thread::{Sidechain, Thread};
use crate::tools::{Registry, Tool, ToolContext, ToolOutput};
use crate::transcript::Transcript;
use crate::turn::{model_call, tool_calls, End, Tally, TurnContext};

/// The tool's name.
pub const TASK: &str = "Task";

/// The most model calls one subagent makes.
const MAX_CALLS: u32 = 200;
/// How often a `SubagentStop` hook may send a subagent back to work.
const MAX_STOP_BLOCKS: u32 = 3;

/// The `Task` tool of a session.
pub(crate) struct TaskTool {
    session: Weak<Session>,
}

impl TaskTool {
    /// The tool for `session`.
    pub(crate) fn new(session: Weak<Session>) -> Self {
        Self { session }
    }
}

impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK
    }

    fn description(&self) -> String {
        let listing = self
            .session
            .upgrade()
            .map(|s| s.state().agents.listing())
            .unwrap_or_default();
        format!(
            "Starts an agent that carries out a task on its own (several steps, with its own \
             tools) and returns its report. Give it a short `description`, a `prompt` that \
             says everything it needs (it sees nothing of this conversation), and the \
             `subagent_type` to use (default {DEFAULT_AGENT}). The agents:\n{listing}"
        )
    }

    fn input_schema(&self) -> Value {
        crate::tools::schema::task().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        crate::tools::schema::task().check("Agent", input)
    }

    /// It changes nothing itself (each of its subagent's calls is judged on its own): Claude
    /// Code runs it unasked.
    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let session = self.session.upgrade();
        Box::pin(async move {
            let Some(session) = session else {
                return ToolOutput::error("the session has ended");
            };
            let Some(peer) = cx.peer.clone() else {
                return ToolOutput::error("no host to run a subagent for");
            };
            run(&session, &peer, input, cx).await
        })
    }
}

/// Runs one subagent to its report.
async fn run(session: &Arc<Session>, peer: &Peer, input: Value, cx: ToolContext) -> ToolOutput {
    let started = Instant::now();
    let text = |field: &str| input[field].as_str().unwrap_or_default().to_owned();
    let (description, prompt) = (text("description"), text("prompt"));
    let wanted = Some(text("subagent_type"))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| DEFAULT_AGENT.to_owned());
    let spec = {
        let state = session.state();
        match state.agents.get(&wanted) {
            Some(spec) => spec.clone(),
            None => {
                return ToolOutput::failure(format!(
                    "Agent type '{wanted}' not found. Available agents: {}",
                    state.agents.names().join(", ")
                ))
            }
        }
    };
    if prompt.trim().is_empty() {
        return ToolOutput::error("The task needs a prompt.");
    }
    let stop = cx.cancel.child_token();
    let agent_id = session.tasks.start(
        peer,
        Start {
            kind: Kind::Agent,
            description: description.clone(),
            tool_use_id: cx.tool_use_id.clone(),
            subagent_type: Some(spec.name.clone()),
            prompt: Some(prompt.clone()),
            backgrounded: false,
            stop: stop.clone(),
        },
    );
    let side = Arc::new(sidechain(
        session,
        &spec,
        &agent_id,
        &cx.tool_use_id,
        &input,
    ));
    let thread = Thread::Side(Arc::clone(&side));
    let mut start_cx = TurnContext::read_for(session, peer, thread.clone());
    start_cx.cancel = stop.clone();
    let report = start_cx
        .fire("SubagentStart", Some(&spec.name), Map::new(), None)
        .await;
    let mut first = UserContent::Text(prompt.clone());
    for context in report.context {
        crate::transcript::append(&mut first, UserContent::Text(context));
    }
    let uuid = new_id();
    thread.record_user(session, &uuid, first.clone(), Map::new());
    start_cx.emit(&Message::User(Box::new(frames::user(
        &start_cx.session_id,
        &uuid,
        first,
    ))));
    let mut tally = Tally::new();
    let end = drive(session, peer, &thread, &side, &stop, &mut tally).await;
    let report_text = side.last_text();
    let usage = TaskUsage {
        total_tokens: tally.usage.input_tokens + tally.usage.output_tokens,
        tool_uses: tally.tool_uses,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(0),
        ..TaskUsage::default()
    };
    let file = side.path().unwrap_or_else(|| {
        crate::tasks::output_file(&session.workspace, peer.session_id(), &agent_id)
    });
    let (task_end, failure) = match &end {
        End::Done => (TaskEnd::Completed, None),
        End::Interrupted { .. } => (TaskEnd::Stopped, Some("The agent was stopped.".to_owned())),
        End::Api(err) => (TaskEnd::Failed(err.to_string()), Some(err.to_string())),
        End::MaxTurns(max) => (
            TaskEnd::Failed(format!("more than {max} model calls")),
            Some(format!("The agent made more than {max} model calls.")),
        ),
        End::Stopped(why) => (TaskEnd::Failed(why.clone()), Some(why.clone())),
        _ => (TaskEnd::Completed, None),
    };
    let summary = if report_text.is_empty() {
        description.clone()
    } else {
        report_text.clone()
    };
    session.tasks.finish(
        peer,
        &agent_id,
        &task_end,
        &file,
        &summary,
        Some(usage.clone()),
    );
    if let Some(why) = failure {
        return ToolOutput::error(format!("{why} {report_text}").trim().to_owned());
    }
    let trailer = format!(
        "agentId: {agent_id}\n<usage>total_tokens: {}\ntool_uses: {}\nduration_ms: {}</usage>",
        usage.total_tokens, usage.tool_uses, usage.duration_ms
    );
    let text_block = |text: String| {
        ContentBlock::Text(TextBlock {
            text,
            ..TextBlock::default()
        })
    };
    ToolOutput {
        content: ToolResultContent::Blocks(vec![
            text_block(report_text.clone()),
            text_block(trailer),
        ]),
        is_error: false,
        result: Some(json!({
            "status": "completed",
            "prompt": prompt,
            "agentId": agent_id,
            "agentType": spec.name,
            "content": [{"type": "text", "text": report_text}],
            "totalDurationMs": usage.duration_ms,
            "totalTokens": usage.total_tokens,
            "totalToolUseCount": usage.tool_uses,
            "usage": tally.usage,
        })),
        follow_up: Vec::new(),
        notes: Vec::new(),
    }
}

/// The subagent's model calls and tool calls until it answers without a tool call (and no
/// `SubagentStop` hook sends it back).
async fn drive(
    session: &Arc<Session>,
    peer: &Peer,
    thread: &Thread,
    side: &Sidechain,
    stop: &CancellationToken,
    tally: &mut Tally,
) -> End {
    let mut blocks = 0;
    loop {
        if stop.is_cancelled() {
            return End::Interrupted { tools: false };
        }
        if tally.num_turns >= MAX_CALLS {
            return End::MaxTurns(MAX_CALLS);
        }
        let mut cx = TurnContext::read_for(session, peer, thread.clone());
        cx.cancel = stop.clone();
        let reply = match model_call::call(&cx, tally).await {
            Ok(reply) => reply,
            Err(end) => return end,
        };
        tally.num_turns += 1;
        let calls: Vec<_> = reply.tool_uses().cloned().collect();
        if calls.is_empty() {
            let mut fields = Map::new();
            fields.insert("stop_hook_active".into(), json!(blocks > 0));
            let path = side
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            fields.insert("agent_transcript_path".into(), json!(path));
            fields.insert("last_assistant_message".into(), json!(side.last_text()));
            let report = cx
                .fire("SubagentStop", Some(&side.agent_type), fields, None)
                .await;
            match report.block {
                Some(reason) if blocks < MAX_STOP_BLOCKS => {
                    blocks += 1;
                    thread.record_user(session, &new_id(), UserContent::Text(reason), Map::new());
                    continue;
                }
                _ => return End::Done,
            }
        }
        tally.tool_uses += u64::try_from(calls.len()).unwrap_or(0);
        let done = tool_calls::run_all(&cx, calls).await;
        match done.outcome {
            tool_calls::Outcome::Continue => {}
            tool_calls::Outcome::Interrupted => return End::Interrupted { tools: true },
            tool_calls::Outcome::Stopped(reason) => return End::Stopped(reason),
        }
    }
}

/// The subagent's thread: its model, tools, system prompt and file.
fn sidechain(
    session: &Arc<Session>,
    spec: &AgentSpec,
    agent_id: &str,
    tool_use_id: &str,
    input: &Value,
) -> Sidechain {
    let state = session.state();
    let model = input["model"]
        .as_str()
        .filter(|m| !m.is_empty())
        .or(spec.model.as_deref())
        .filter(|m| *m != "inherit")
        .map(resolve_alias)
        .unwrap_or_else(|| state.model.clone());
    let mut tools: Registry = state.tools.clone();
    tools.retain(|name| {
        let listed = spec
            .tools
            .as_ref()
            .is_none_or(|only| only.iter().any(|t| t == name || t == "*"));
        listed
            && !NOT_FOR_SUBAGENTS.contains(&name)
            && !spec.disallowed_tools.iter().any(|t| t == name)
    });
    let system = vec![
        SystemBlock::text(spec.prompt.clone()),
        SystemBlock::text(format!(
            "You were started by another agent for one task; your final answer is your report \
             to it. Working directory: {}",
            session.config.cwd.display()
        )),
    ];
    let file = session.config.persist_session.then(|| {
        let main =
            crate::transcript::file_of(&session.store, &session.config.cwd, &state.session_id);
        let path = main
            .with_extension("")
            .join("subagents")
            .join(format!("agent-{agent_id}.jsonl"));
        Transcript::open_at(
            &session.store,
            path,
            &session.config.cwd,
            &state.session_id,
            None,
            Some(agent_id.to_owned()),
        )
    });
    let file = match file {
        Some(Ok(mut file)) => {
            file.mirror_to(state.mirror.as_ref());
            Some(file)
        }
        Some(Err(err)) => {
            tracing::warn!(%err, "cannot open the subagent's file; it is not saved");
            None
        }
        None => None,
    };
    Sidechain::new(
        agent_id.to_owned(),
        spec.name.clone(),
        tool_use_id.to_owned(),
        model,
        system,
        tools,
        file,
    )
}
