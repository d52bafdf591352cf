//! The work of choosing a conversation, counted step by step: ten times the entries cost
//! about ten times the steps (not a hundred), whatever the shape of the transcript.

use serde_json::{json, Value};

use super::differential::{id, LIMITS};
use super::ID;
use crate::sessions::chain::Chains;
use crate::sessions::index::Index;
use crate::sessions::skipped::Notes;

fn line(kind: &str, uuid: &str, parent: Option<&str>, message: Value) -> String {
    let entry = json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": ID,
                       "timestamp": "2026-01-01T00:00:00.000Z", "message": message});
    format!("{entry}\n")
}

/// `n` messages in one chain.
fn chain(n: usize) -> String {
    (0..n)
        .map(|i| {
            let parent = (i > 0).then(|| id(i - 1));
            let kind = if i % 2 == 0 { "user" } else { "assistant" };
            line(kind, &id(i), parent.as_deref(), json!({"content": "x"}))
        })
        .collect()
}

/// A prompt, `n` progress entries one after the other, and `n / 10` attachments hanging off
/// the last of them: walked anew from each attachment, that is `n² / 10` steps.
fn fan(n: usize) -> String {
    let mut text = line("user", &id(0), None, json!({"content": "x"}));
    for i in 1..=n {
        text += &line("progress", &id(i), Some(&id(i - 1)), json!({}));
    }
    for k in 0..n / 10 {
        text += &line("attachment", &id(n + 1 + k), Some(&id(n)), json!({}));
    }
    text
}

/// `n` tool calls on the chain, each answered on the chain and again by a stray result
/// (hanging off the first prompt, claimed through `sourceToolAssistantUUID`): every
/// response has a stray to weigh against the answers on the chain.
fn strays(n: usize) -> String {
    let mut text = line("user", &id(0), None, json!({"content": "go"}));
    let mut parent = id(0);
    for k in 0..n {
        let (call, result, stray) = (id(3 * k + 1), id(3 * k + 2), id(3 * k + 3));
        let tool = format!("toolu_{k}");
        text += &line(
            "assistant",
            &call,
            Some(&parent),
            json!({"id": format!("msg_{k}"), "content": [{"type": "tool_use", "id": tool}]}),
        );
        let answer = json!({"content": [{"type": "tool_result", "tool_use_id": tool}]});
        text += &line("user", &result, Some(&call), answer.clone());
        let mut stray_line: Value =
            serde_json::from_str(&line("user", &stray, Some(&id(0)), answer)).unwrap();
        stray_line["sourceToolAssistantUUID"] = json!(call);
        text += &format!("{stray_line}\n");
        parent = result;
    }
    text
}

/// The steps of choosing the main conversation of `text`, and its length.
fn steps(text: &str) -> (u64, usize) {
    let index = Index::read(text.as_bytes(), LIMITS, false).unwrap();
    let mut chains = Chains::new(&index);
    let chosen = chains.main(&mut Notes::default());
    (chains.steps, chosen.len())
}

#[test]
fn ten_times_the_entries_cost_ten_times_the_steps() {
    for (shape, make) in [
        ("chain", chain as fn(usize) -> String),
        ("fan", fan),
        ("strays", strays),
    ] {
        let (small, small_len) = steps(&make(2_000));
        let (large, large_len) = steps(&make(20_000));
        assert!(small_len > 0 && large_len >= small_len, "{shape}");
        let ratio = large as f64 / small as f64;
        assert!(
            (9.0..=11.0).contains(&ratio),
            "{shape}: {small} steps for 2,000, {large} for 20,000 (×{ratio:.1})"
        );
        // A few steps per entry.
        assert!(large < 20 * 22_000 * 3, "{shape}: {large} steps");
    }
}
