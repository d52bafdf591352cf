//! Usage limits waited out (`OptionsBuilder::usage_limits`): the model server answers the
//! first request with a reached limit that resets in two seconds; the host waits, sends its
//! continue prompt, and the turn ends with the model's answer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use twinwire::host::limits::{reached_limit, LimitPolicy, LimitWait, DEFAULT_CONTINUE_PROMPT};

use crate::{kinds, results, script, turn, within, Scenario};

/// The first request of the prompt meets a limit resetting `reset_in_seconds` later; the
/// continue prompt gets an answer.
fn limited(reset_in_seconds: u64) -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_prompt_contains": "LIMITED-PROMPT"}, "times": 1,
             "reply": {"usage_limit": {"reset_in_seconds": reset_in_seconds}}},
            {"when": {"last_prompt_contains": DEFAULT_CONTINUE_PROMPT},
             "reply": {"text": "went on after the reset"}}
        ]),
        json!({"echo": true}),
    )
}

fn recording_waits() -> (LimitPolicy, Arc<Mutex<Vec<LimitWait>>>) {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&waits);
    let policy = LimitPolicy::wait(Duration::from_secs(30))
        .on_wait(move |wait| seen.lock().unwrap().push(wait.clone()));
    (policy, waits)
}

#[tokio::test]
async fn a_reached_usage_limit_is_waited_out_and_the_turn_goes_on() {
    let s = Scenario::start(limited(2)).await;
    let (policy, waits) = recording_waits();
    let client = s
        .connect(s.builder().usage_limits(policy).build().unwrap())
        .await;
    let started = Instant::now();
    let items = turn(&client, "LIMITED-PROMPT: say something").await;
    let elapsed = started.elapsed();
    let results = results(&items);
    assert_eq!(results.len(), 2, "{}\n{}", kinds(&items), s.stderr());
    let limited = results[0].text().unwrap_or_default();
    assert!(results[0].is_error, "{limited}");
    let reached = reached_limit(limited).unwrap_or_else(|| panic!("not a limit: {limited}"));
    assert!(reached.reset_at.is_some(), "{limited}");
    assert_eq!(results[1].text(), Some("went on after the reset"));
    assert!(!results[1].is_error);

    let waits = waits.lock().unwrap().clone();
    assert_eq!(waits.len(), 1, "{waits:?}");
    assert!(waits[0].wait <= Duration::from_secs(3), "{waits:?}");
    assert!(elapsed >= waits[0].wait, "{elapsed:?} {waits:?}");
    // One limited request: the CLI did not retry it.
    let limited_requests = s
        .message_requests()
        .iter()
        .filter(|body| {
            let text = crate::last_user_text(body);
            text.contains("LIMITED-PROMPT") && !text.contains(DEFAULT_CONTINUE_PROMPT)
        })
        .count();
    assert_eq!(limited_requests, 1, "the CLI retried the limited request");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_reset_beyond_the_longest_wait_ends_the_turn_at_the_limit() {
    let s = Scenario::start(limited(3600)).await;
    let (policy, waits) = recording_waits();
    let client = s
        .connect(s.builder().usage_limits(policy).build().unwrap())
        .await;
    let items = turn(&client, "LIMITED-PROMPT: say something").await;
    let results = results(&items);
    assert_eq!(results.len(), 1, "{}", kinds(&items));
    let text = results[0].text().unwrap_or_default();
    assert!(reached_limit(text).is_some(), "{text}");
    assert!(waits.lock().unwrap().is_empty());
    within(client.close()).await.unwrap();
}
