//! A reply the API's safeguards stopped (`stop_reason: "refusal"`), handled as Claude Code
//! handles it: the model is told once that its reply was stopped and asked again on the same
//! model; refused again, the request goes to the refusing model's fallback — at once when the
//! settings' `switchModelsOnFlag` is on (the default), or after asking the host with
//! `request_user_dialog` (`refusal_fallback_prompt`) when it is off and the host declared that
//! it renders that dialog (`supportedDialogKinds`). The fallback then serves the rest of the
//! session. Without a fallback, with the dialog cancelled, or with no way to ask, the turn
//! ends with the refusal as an error.

use std::time::Duration;

use serde_json::{json, Map, Value};
use twinwire::agent::frames::{self, new_id};
use twinwire::agent::Peer;
use twinwire_protocol::content::{ApiMessage, UserContent};
use twinwire_protocol::control::{RequestUserDialogRequest, UserDialogResponse};
use twinwire_protocol::system::{
    Informational, InformationalLevel, ModelRefusalFallback, ModelRefusalNoFallback, RefusalScope,
    SystemMessage,
};
use twinwire_protocol::Message;

use crate::session::Session;

/// The dialog kind asked before falling back.
const DIALOG: &str = "refusal_fallback_prompt";

/// How long the host may take to answer the dialog.
const DIALOG_WAIT: Duration = Duration::from_secs(3600);

/// What the model is told of its stopped reply before it is asked again.
const TOLD: &str = "Your reply above was stopped by the API's safety classifier (this is not \
a tool error). What followed was not delivered and tool calls in it did not run. Do not write \
that content again, in any form.";

/// The models a refused model falls back to, when the session names none
/// (`--fallback-model`).
const FALLBACKS: &[(&str, &str)] = &[("claude-opus-5", "claude-opus-4-8")];

/// What the turn does after a refused reply.
pub(crate) enum Next {
    /// Ask the same model again (the model was told).
    Again,
    /// Ask again on the fallback model, now the session's.
    Fallback,
    /// End the turn: the refusal, as the result's text.
    Fail(String),
}

/// Whether a reply was refused.
pub(crate) fn refused(reply: &ApiMessage) -> bool {
    reply
        .stop_reason
        .as_ref()
        .is_some_and(|r| r.as_str() == "refusal")
}

/// Decides what follows the `count`th refusal in a row of `reply` (on `model`).
pub(crate) async fn after(
    session: &Session,
    peer: &Peer,
    reply: &ApiMessage,
    model: &str,
    count: u32,
    request_id: Option<&str>,
) -> Next {
    let details = serde_json::to_value(&reply.stop_details).unwrap_or(Value::Null);
    let category = details["category"].as_str().map(str::to_owned);
    let explanation = details["explanation"].as_str().map(str::to_owned);
    if count == 1 {
        emit(
            peer,
            SystemMessage::Informational(Informational {
                content: format!(
                    "{model}'s safeguards stopped the reply above; asking once more, with that said"
                ),
                level: InformationalLevel::Notice,
                session_id: peer.session_id().to_owned(),
                uuid: new_id(),
                ..Informational::default()
            }),
        );
        let uuid = new_id();
        let mut frame = frames::user(peer.session_id(), &uuid, UserContent::Text(TOLD.into()));
        frame.is_synthetic = Some(true);
        let _ = peer.emit(&Message::User(Box::new(frame)));
        session.record_user(&uuid, UserContent::Text(TOLD.into()), Map::new());
        return Next::Again;
    }
    let fallback = fallback_of(session, model);
    let (switch, kinds) = {
        let state = session.state();
        let switch = state
            .flag_settings
            .get("switchModelsOnFlag")
            .or_else(|| session.config.settings.as_ref()?.get("switchModelsOnFlag"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        (switch, state.dialog_kinds.clone())
    };
    let retracted = session.state().conversation.last().map(|_| new_id());
    let take = match &fallback {
        None => false,
        Some(_) if switch => true,
        Some(fallback) if kinds.iter().any(|k| k == DIALOG) => {
            let mut payload = Map::new();
            payload.insert("originalModel".into(), json!(model));
            payload.insert("fallbackModel".into(), json!(fallback));
            payload.insert("apiRefusalCategory".into(), json!(category));
            payload.insert(
                "retractedMessageUuids".into(),
                json!(retracted.iter().collect::<Vec<_>>()),
            );
            let asked = RequestUserDialogRequest {
                dialog_kind: DIALOG.to_owned(),
                payload,
                ..RequestUserDialogRequest::default()
            };
            match peer.request_with_timeout(asked, DIALOG_WAIT).await {
                Ok(UserDialogResponse::Completed(done)) => done.result == "retry_fallback",
                Ok(_) => false,
                Err(err) => {
                    tracing::warn!(%err, "the refusal dialog was not answered");
                    false
                }
            }
        }
        Some(_) => false,
    };
    match fallback.filter(|_| take) {
        Some(fallback) => {
            {
                let mut state = session.state();
                // The second refused reply is taken back: the fallback answers in its place.
                if state
                    .conversation
                    .last()
                    .is_some_and(|m| m.role == "assistant")
                {
                    state.conversation.pop();
                }
                state.model = fallback.clone();
            }
            emit(
                peer,
                SystemMessage::ModelRefusalFallback(ModelRefusalFallback {
                    trigger: "refusal".to_owned(),
                    scope: Some(RefusalScope::Session),
                    original_model: model.to_owned(),
                    fallback_model: fallback.clone(),
                    request_id: request_id.map(str::to_owned),
                    api_refusal_category: Some(category),
                    api_refusal_explanation: Some(explanation),
                    retracted_message_uuids: Some(retracted.into_iter().collect()),
                    content: format!(
                        "{model}'s safeguards flagged this message; switched to {fallback}."
                    ),
                    session_id: peer.session_id().to_owned(),
                    uuid: new_id(),
                    ..ModelRefusalFallback::default()
                }),
            );
            Next::Fallback
        }
        None => {
            emit(
                peer,
                SystemMessage::ModelRefusalNoFallback(ModelRefusalNoFallback {
                    original_model: model.to_owned(),
                    request_id: request_id.map(str::to_owned),
                    api_refusal_category: Some(category.clone()),
                    api_refusal_explanation: Some(explanation),
                    session_id: peer.session_id().to_owned(),
                    uuid: new_id(),
                    ..ModelRefusalNoFallback::default()
                }),
            );
            let details = category.map(|c| format!(" [{c}]")).unwrap_or_default();
            Next::Fail(format!(
                "API Error: {model}'s safeguards flagged this message{details}; it cannot be \
                 answered with {model}. Rephrase the request or change the model."
            ))
        }
    }
}

/// The model a refused `model` falls back to.
fn fallback_of(session: &Session, model: &str) -> Option<String> {
    session
        .config
        .fallback_model
        .clone()
        .filter(|f| f != model)
        .or_else(|| {
            FALLBACKS
                .iter()
                .find(|(from, _)| *from == model)
                .map(|(_, to)| (*to).to_owned())
        })
}

fn emit(peer: &Peer, message: SystemMessage) {
    if let Err(err) = peer.emit(&Message::System(Box::new(message))) {
        tracing::debug!(%err, "a frame the host will not see");
    }
}
