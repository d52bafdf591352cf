//! Dialogs the CLI asks the host to show (`request_user_dialog`), answered through
//! `on_user_dialog`: the refusal fallback prompt. When the API's safeguards refuse a reply of
//! `claude-opus-5` twice (the CLI retries once on the same model), a CLI whose host declared
//! the kind, with `switchModelsOnFlag` off (else it switches without asking), asks whether to
//! retry on the fallback model; the answer decides the next model request. Without the kind
//! declared it asks nothing.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use twinwire::host::callbacks::on_user_dialog;
use twinwire::options::OptionsBuilder;
use twinwire::protocol::control::{
    RequestUserDialogRequest, UserDialogCancelled, UserDialogCompleted, UserDialogResponse,
};
use twinwire::Options;
use twinwire_model_server::ModelScript;

use crate::{conversation, script, the_result, turn, within, Scenario};

/// The model the safeguards refuse, and the one the CLI offers to retry on.
const REFUSING_MODEL: &str = "claude-opus-5";
const FALLBACK_MODEL: &str = "claude-opus-4-8";
/// The prompt the refusing model refuses.
const FLAGGED_PROMPT: &str = "scan the host FLAGGED_FOR_SAFEGUARDS";

/// `claude-opus-5` refuses every request of the flagged conversation; the fallback model
/// answers it.
fn refusing_script() -> ModelScript {
    script(
        json!([
            {"when": {"all": [{"model_is": REFUSING_MODEL},
                              {"conversation_contains": "FLAGGED_FOR_SAFEGUARDS"}]},
             "reply": {"refusal": {"text": "I can't help with that.", "category": "cyber",
                                   "explanation": "flagged by the safeguards"}}},
            {"when": {"model_is": FALLBACK_MODEL}, "reply": {"text": "served on the fallback model"}}
        ]),
        json!({"echo": true}),
    )
}

/// Options that declare the refusal fallback prompt and answer every dialog with `answer`,
/// recording each request in `seen`.
fn options(
    s: &Scenario,
    seen: &Arc<Mutex<Vec<RequestUserDialogRequest>>>,
    answer: UserDialogResponse,
) -> Options {
    answering(s, seen, answer)
        .supported_dialog_kinds(["refusal_fallback_prompt"])
        .build()
        .unwrap()
}

/// The refusing model, `switchModelsOnFlag` off, and a callback that answers every dialog
/// with `answer`, recording each request in `seen`; no dialog kind declared.
fn answering(
    s: &Scenario,
    seen: &Arc<Mutex<Vec<RequestUserDialogRequest>>>,
    answer: UserDialogResponse,
) -> OptionsBuilder {
    let asked = Arc::clone(seen);
    s.builder()
        .model(REFUSING_MODEL)
        .settings(json!({"switchModelsOnFlag": false}))
        .on_user_dialog(on_user_dialog(move |request, _cancel| {
            asked.lock().unwrap().push(request);
            let answer = answer.clone();
            async move { Ok(answer) }
        }))
}

/// The `model` of every request of the flagged conversation to the refusing or the fallback
/// model, in order (side requests, e.g. for a title, go to other models).
fn flagged_request_models(s: &Scenario) -> Vec<String> {
    s.message_requests()
        .iter()
        .filter(|body| conversation(body).contains("FLAGGED_FOR_SAFEGUARDS"))
        .filter_map(|body| body["model"].as_str().map(str::to_owned))
        .filter(|model| model == REFUSING_MODEL || model == FALLBACK_MODEL)
        .collect()
}

/// The one dialog the host was asked, checked to be the refusal fallback prompt for this
/// conversation.
fn the_refusal_prompt(seen: &Mutex<Vec<RequestUserDialogRequest>>, stderr: &str) {
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        1,
        "one dialog expected: {seen:?}\nstderr:\n{stderr}"
    );
    let dialog = &seen[0];
    assert_eq!(dialog.dialog_kind, "refusal_fallback_prompt");
    let payload = Value::Object(dialog.payload.clone());
    assert_eq!(payload["originalModel"], REFUSING_MODEL, "{payload}");
    assert_eq!(payload["fallbackModel"], FALLBACK_MODEL, "{payload}");
    assert_eq!(payload["apiRefusalCategory"], "cyber", "{payload}");
}

#[tokio::test]
async fn a_refused_reply_asks_the_host_and_a_retry_runs_on_the_fallback_model() {
    let s = Scenario::start(refusing_script()).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let retry = UserDialogResponse::Completed(UserDialogCompleted {
        result: json!("retry_fallback"),
        ..UserDialogCompleted::default()
    });
    let client = s.connect(options(&s, &seen, retry)).await;
    let items = turn(&client, FLAGGED_PROMPT).await;
    the_refusal_prompt(&seen, &s.stderr());

    // The answer is applied: the request after the dialog goes to the fallback model, and its
    // reply ends the turn.
    let models = flagged_request_models(&s);
    assert_eq!(
        models.first().map(String::as_str),
        Some(REFUSING_MODEL),
        "{models:?}"
    );
    assert_eq!(
        models.last().map(String::as_str),
        Some(FALLBACK_MODEL),
        "{models:?}"
    );
    assert_eq!(
        models.iter().filter(|m| *m == FALLBACK_MODEL).count(),
        1,
        "{models:?}"
    );
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.text(), Some("served on the fallback model"));
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_refusal_prompt_the_host_cancels_ends_the_turn_on_the_refusing_model() {
    let s = Scenario::start(refusing_script()).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let cancel = UserDialogResponse::Cancelled(UserDialogCancelled::default());
    let client = s.connect(options(&s, &seen, cancel)).await;
    let items = turn(&client, FLAGGED_PROMPT).await;
    the_refusal_prompt(&seen, &s.stderr());

    // Cancelled: the CLI's default, the refusal as an error, and no request to the fallback.
    let models = flagged_request_models(&s);
    assert!(!models.is_empty(), "no model request");
    assert!(
        models.iter().all(|m| m == REFUSING_MODEL),
        "the fallback model was asked: {models:?}"
    );
    let result = the_result(&items);
    assert!(result.is_error, "{result:?}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn without_the_declared_kind_a_refusal_asks_nothing_and_stays_on_the_refusing_model() {
    // The CLI fails closed: a host that answers dialogs but did not declare this kind gets no
    // dialog, and the turn ends with the refusal instead of falling back.
    let s = Scenario::start(refusing_script()).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let retry = UserDialogResponse::Completed(UserDialogCompleted {
        result: json!("retry_fallback"),
        ..UserDialogCompleted::default()
    });
    let options = answering(&s, &seen, retry).build().unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, FLAGGED_PROMPT).await;
    assert!(
        seen.lock().unwrap().is_empty(),
        "{:?}",
        seen.lock().unwrap()
    );
    let models = flagged_request_models(&s);
    assert!(!models.is_empty(), "no model request");
    assert!(
        models.iter().all(|m| m == REFUSING_MODEL),
        "the fallback model was asked: {models:?}"
    );
    assert!(the_result(&items).is_error, "{}", crate::kinds(&items));
    within(client.close()).await.unwrap();
}
