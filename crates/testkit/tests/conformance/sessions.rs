//! Sessions across processes: resume by id, continue the latest, fork.

use serde_json::json;
use twinwire::query;

use crate::{collect, conversation, script, the_result, Scenario};

fn remember_script() -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_user_text_contains": "remember the word"},
             "reply": {"text": "Noted: PELICAN-4417."}},
            {"when": {"last_user_text_contains": "what was the word"},
             "reply": {"text": "It was PELICAN-4417."}}
        ]),
        json!({"text": "unexpected"}),
    )
}

/// Runs the first session to its end (the CLI exits, its transcript is on disk); returns the
/// session id.
async fn first_session(s: &Scenario) -> String {
    let items = collect(query("remember the word PELICAN-4417", s.options())).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert!(!result.session_id.is_empty());
    result.session_id.clone()
}

/// The request of the second session's turn, which must carry the first turn.
fn second_request(s: &Scenario) -> String {
    let requests = s.requests_for("what was the word");
    assert_eq!(requests.len(), 1, "{requests:?}");
    let history = conversation(&requests[0]);
    assert!(
        history.contains("remember the word PELICAN-4417"),
        "the earlier prompt is in the request: {history}"
    );
    assert!(
        history.contains("Noted: PELICAN-4417."),
        "the earlier reply is in the request: {history}"
    );
    history
}

#[tokio::test]
async fn resume_by_session_id_in_a_new_process() {
    let s = Scenario::start(remember_script()).await;
    let session = first_session(&s).await;
    let options = s.builder().resume(&session).build().unwrap();
    let items = collect(query("what was the word?", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("It was PELICAN-4417."));
    assert_eq!(
        result.session_id, session,
        "resume continues the same session"
    );
    second_request(&s);
}

#[tokio::test]
async fn fork_session_gets_a_new_id_with_the_earlier_turn() {
    let s = Scenario::start(remember_script()).await;
    let session = first_session(&s).await;
    let options = s
        .builder()
        .resume(&session)
        .fork_session(true)
        .build()
        .unwrap();
    let items = collect(query("what was the word?", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("It was PELICAN-4417."));
    assert_ne!(result.session_id, session, "a fork has its own id");
    assert!(!result.session_id.is_empty());
    second_request(&s);
}

#[tokio::test]
async fn continue_picks_up_the_latest_session_of_the_directory() {
    let s = Scenario::start(remember_script()).await;
    let session = first_session(&s).await;
    let options = s.builder().continue_conversation(true).build().unwrap();
    let items = collect(query("what was the word?", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("It was PELICAN-4417."));
    assert_eq!(
        result.session_id, session,
        "--continue goes on with that session"
    );
    second_request(&s);
}
