//! Usage limits waited out (`OptionsBuilder::usage_limits`): the model server answers the
//! first request with a reached limit that resets in two seconds; the host waits, sends its
//! continue prompt, and the turn ends with the model's answer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use twinwire::host::limits::{reached_limit, LimitPolicy, LimitWait, DEFAULT_CONTINUE_PROMPT};

use crate::{kinds, results, script, turn, within, Scenario};

/// Every request of the prompt meets a limit resetting `reset_in_seconds` later (older CLIs
/// send a side request with the prompt first, which a `times: 1` would give the limit to);
/// the continue prompt, the last block of the next request, gets an answer.
fn limited(reset_in_seconds: u64) -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_prompt_contains": "LIMITED-PROMPT"},
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
    // Each generation's wording of an API key's 429 (twinwire-agent words it as 2.1.x).
    let version = crate::cli_version();
    let wording = if version.starts_with("1.") || version.starts_with("2.0.") {
        "API Error: 429 {"
    } else {
        "API Error: Request rejected (429) · You've hit your limit · resets "
    };
    assert!(limited.starts_with(wording), "{limited}");
    assert_eq!(results[1].text(), Some("went on after the reset"));
    assert!(!results[1].is_error);

    let waits = waits.lock().unwrap().clone();
    assert_eq!(waits.len(), 1, "{waits:?}");
    assert!(waits[0].wait <= Duration::from_secs(3), "{waits:?}");
    assert!(elapsed >= waits[0].wait, "{elapsed:?} {waits:?}");
    // The CLI did not spin in retries: one limited request of the main thread (the one
    // offering tools), two on 2.0.77 and 1.0.128, which send it once more with a lower
    // `max_tokens` (32000, then 21333) before they give up.
    let limited_requests = s
        .message_requests()
        .iter()
        .filter(|body| {
            let text = crate::last_user_text(body);
            let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
            offers_tools
                && text.contains("LIMITED-PROMPT")
                && !text.contains(DEFAULT_CONTINUE_PROMPT)
        })
        .count();
    assert!(
        (1..=2).contains(&limited_requests),
        "the CLI retried the limited request: {limited_requests} requests"
    );
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
