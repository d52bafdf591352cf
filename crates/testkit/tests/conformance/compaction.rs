//! Compaction driven from code: `/compact` with instructions sends the conversation to be
//! summarized, calls the host's `PreCompact` hook with them, marks the boundary
//! (`system/compact_boundary`), and the next turn starts from the summary.

use std::sync::{Arc, Mutex};

use serde_json::json;
use twinwire::host::callbacks::{hook, HookMatcher};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput};
use twinwire::protocol::system::SystemMessage;
use twinwire::protocol::Message;

use crate::{conversation, kinds, ok, script, the_result, turn, within, Scenario};

#[tokio::test]
async fn compact_summarizes_calls_pre_compact_and_marks_the_boundary() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "remember MARKER-77"},
             "reply": {"text": "noted the marker"}},
            {"when": {"last_user_text_contains": "what was it"},
             "reply": {"text": "from the summary"}}
        ]),
        json!({"text": "SUMMARY-OF-THE-TALK-91"}),
    ))
    .await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let pre_compact = hook(move |input, _cx| {
        let log = Arc::clone(&log);
        async move {
            if let HookInput::PreCompact(pre) = input {
                log.lock().unwrap().push((
                    format!("{:?}", pre.trigger),
                    pre.custom_instructions.clone().unwrap_or_default(),
                ));
            }
            Ok(HookOutput::proceed())
        }
    });
    let options = s
        .builder()
        .hook(HookEvent::PreCompact, HookMatcher::all(pre_compact))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "remember MARKER-77").await;
    assert_eq!(the_result(&items).text(), Some("noted the marker"));

    let items = turn(&client, "/compact keep the marker").await;
    let boundary = ok(&items)
        .into_iter()
        .find_map(|message| match message {
            Message::System(system) => match &**system {
                SystemMessage::CompactBoundary(boundary) => Some(boundary.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| {
            panic!(
                "no compact_boundary: {}\nstderr:\n{}",
                kinds(&items),
                s.stderr()
            )
        });
    assert_eq!(
        serde_json::to_value(&boundary.compact_metadata).unwrap()["trigger"],
        "manual",
        "{boundary:?}"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [("Manual".to_owned(), "keep the marker".to_owned())]
    );
    // The conversation was sent to be summarized, with the instructions.
    let summarizing = s
        .message_requests()
        .into_iter()
        .filter(|body| body.to_string().contains("keep the marker"))
        .find(|body| conversation(body).contains("noted the marker"));
    assert!(summarizing.is_some(), "no summary request");

    let items = turn(&client, "what was it").await;
    assert_eq!(the_result(&items).text(), Some("from the summary"));
    let after = s.requests_for("what was it");
    let last = conversation(after.last().expect("the turn after the compaction"));
    assert!(last.contains("SUMMARY-OF-THE-TALK-91"), "{last}");
    assert!(
        !last.contains("noted the marker"),
        "the summary replaced the talk: {last}"
    );
    within(client.close()).await.unwrap();
}
