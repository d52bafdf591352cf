//! What the host asks of the session itself: its cost as text (`get_session_cost`) and as
//! numbers (`get_usage`), the models it offers (`list_models`), the program's version
//! (`get_binary_version`), and a title for its file (`rename_session`).

use serde_json::{json, Map, Number, Value};
use twinwire::engine::HandlerError;
use twinwire_protocol::control::{
    GetBinaryVersionResponse, GetSessionCostResponse, GetUsageResponse, ListModelsResponse,
    RenameSessionRequest, SessionUsage,
};

use crate::session::Session;
use crate::VERSION;

/// `get_session_cost`: the cost so far, in words, by model.
pub(crate) fn session_cost(session: &Session) -> GetSessionCostResponse {
    let state = session.state();
    let mut text = format!("Estimated cost of this session: ${:.4}", state.cost_usd);
    for (model, usage) in &state.model_usage {
        text.push_str(&format!(
            "\n  {model}: ${:.4} ({} input, {} output tokens; {} read from and {} written to the cache)",
            usage.cost_usd,
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
        ));
    }
    let mut extra = Map::new();
    extra.insert("text".into(), Value::String(text));
    GetSessionCostResponse { extra }
}

/// `get_usage`: the session's cost and usage by model; no plan limits (an API key has none).
pub(crate) fn usage(session: &Session) -> GetUsageResponse {
    let state = session.state();
    GetUsageResponse {
        session: SessionUsage {
            total_cost_usd: Number::from_f64(state.cost_usd).unwrap_or_else(|| Number::from(0)),
            model_usage: state.model_usage.clone(),
            ..SessionUsage::default()
        },
        subscription_type: None,
        rate_limits_available: false,
        rate_limits: None,
        behaviors: None,
        extra: Map::new(),
    }
}

/// `list_models`.
pub(crate) fn list_models(session: &Session) -> ListModelsResponse {
    let mut extra = Map::new();
    extra.insert("models".into(), json!(crate::requests::models(session)));
    ListModelsResponse { extra }
}

/// `get_binary_version`.
pub(crate) fn binary_version() -> GetBinaryVersionResponse {
    let mut extra = Map::new();
    extra.insert("version".into(), Value::String(VERSION.to_owned()));
    GetBinaryVersionResponse { extra }
}

/// `rename_session`: the title goes to the session's file as Claude Code writes one (a
/// `custom-title` entry), where the session lists read it. Refused for another session's id,
/// and when the session is not saved.
pub(crate) fn rename(
    session: &Session,
    request: &RenameSessionRequest,
) -> Result<(), HandlerError> {
    let mut state = session.state();
    if let Some(id) = &request.session_id {
        if *id != state.session_id {
            return Err(HandlerError::new(format!(
                "Session {id} is not this session"
            )));
        }
    }
    match state.transcript(&session.config, &session.store) {
        Some(file) => file
            .title(&request.title)
            .map_err(|err| HandlerError::new(format!("Could not save the title: {err}"))),
        None => Err(HandlerError::new("This session is not saved")),
    }
}
