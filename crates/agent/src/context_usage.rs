//! `get_context_usage`: what the context window holds, counted by the API (its
//! `count_tokens` endpoint) for the request the next model call would send: the system
//! prompt, the tools and the conversation, each counted on its own. When the API cannot
//! count, the usage of the last reply stands for the total (`isEstimate` then says so).

use std::sync::Arc;

use serde_json::json;
use twinwire::agent::Peer;
use twinwire::engine::HandlerError;
use twinwire_protocol::content::MessageParam;
use twinwire_protocol::control::GetContextUsageResponse;

use crate::model::pricing::CONTEXT_WINDOW;
use crate::session::Session;
use crate::turn::{model_call, TurnContext};

/// The answer to `get_context_usage`.
pub(crate) async fn context_usage(
    session: &Arc<Session>,
    peer: &Peer,
) -> Result<GetContextUsageResponse, HandlerError> {
    let cx = TurnContext::read(session, peer);
    let request = model_call::request(&cx);
    let client = &session.client;
    // The API counts requests with at least one message: the parts are counted with a one
    // word prompt, which is taken off again.
    let mut bare = request.clone();
    bare.messages = vec![MessageParam::user(".")];
    bare.tools.clear();
    let mut without_tools = request.clone();
    without_tools.tools.clear();
    let mut only_word = bare.clone();
    only_word.system.clear();
    let counted = async {
        let total = client.count_request_tokens(&request).await?;
        let system = client.count_request_tokens(&bare).await?;
        let no_tools = client.count_request_tokens(&without_tools).await?;
        let word = client.count_request_tokens(&only_word).await?;
        Ok::<_, crate::model::ModelError>((total, system.saturating_sub(word), no_tools))
    };
    let (total, system, tools, messages, estimate) = match counted.await {
        Ok((total, system, no_tools)) => {
            let tools = total.saturating_sub(no_tools);
            let messages = no_tools.saturating_sub(system);
            (total, system, tools, messages, false)
        }
        Err(err) => {
            tracing::debug!(%err, "the API could not count the context; the last usage stands");
            let last = session.state().context_tokens.unwrap_or(0);
            (last, 0, 0, last, true)
        }
    };
    let free = CONTEXT_WINDOW.saturating_sub(total);
    let (model, auto_compact) = {
        let state = session.state();
        (
            state.model.clone(),
            crate::compaction::threshold(&session.config).is_some(),
        )
    };
    let payload = json!({
        "categories": [
            {"name": "System prompt", "tokens": system, "color": "promptBorder"},
            {"name": "System tools", "tokens": tools, "color": "inactive"},
            {"name": "Messages", "tokens": messages, "color": "purple"},
            {"name": "Free space", "tokens": free, "color": "promptBorder"}
        ],
        "totalTokens": total,
        "maxTokens": CONTEXT_WINDOW,
        "rawMaxTokens": CONTEXT_WINDOW,
        "percentage": (total * 100) / CONTEXT_WINDOW,
        "gridRows": [],
        "model": model,
        "memoryFiles": [],
        "mcpTools": [],
        "agents": [],
        "isAutoCompactEnabled": auto_compact,
        "isEstimate": estimate,
    });
    twinwire_protocol::from_value(payload)
        .map(|decoded| decoded.value)
        .map_err(|err| HandlerError::new(format!("cannot describe the context: {err}")))
}
