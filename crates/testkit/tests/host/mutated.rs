//! Mutated sessions: `fake-claude` plays back the CLI's side of every recorded session with one
//! frame mutated (a field removed, nulled, retyped, duplicated, an unknown value or element),
//! and a `Client` drives it. Every session must end within its timeout with a `result` (typed
//! or kept raw) or a clear error, and leave nothing running.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::protocol::Message;
use twinwire::Client;
use twinwire_testkit::fixtures::{frames_of, recording_files, transcripts_dir};
use twinwire_testkit::mutations::mutants;

use crate::{alive, within, Fake};

/// How many mutated sessions each recording is played as.
const PER_RECORDING: usize = 3;

#[tokio::test]
async fn every_mutated_session_ends_with_a_result_or_a_clear_error() {
    let files = recording_files(&transcripts_dir());
    assert!(!files.is_empty());
    let (mut runs, mut with_result, mut with_error) = (0, 0, 0);
    for (file_index, file) in files.iter().enumerate() {
        // The CLI's frames, but the answers to requests this host never sends.
        let frames: Vec<Value> = frames_of(file)
            .into_iter()
            .filter(|f| !f.from_host && f.frame["type"] != "control_response")
            .map(|f| f.frame)
            .collect();
        if frames.is_empty() {
            continue;
        }
        for pick in 0..PER_RECORDING {
            // The first pick mutates the session's last `result`, which ends the turn; the
            // others a frame chosen by position. Each gets a different mutation.
            let last_result = frames.iter().rposition(|f| f["type"] == "result");
            let target = match (pick, last_result) {
                (0, Some(result)) => result,
                _ => (file_index * 7 + pick * 13) % frames.len(),
            };
            let all = mutants(&frames[target]);
            if all.is_empty() {
                continue;
            }
            let mutant = &all[(file_index * 31 + pick * 17) % all.len()];
            let mutated: Value = serde_json::from_str(&mutant.line).unwrap();
            let mut steps: Vec<Value> = frames
                .iter()
                .enumerate()
                .map(|(i, frame)| {
                    let frame = if i == target { &mutated } else { frame };
                    json!({"emit": frame})
                })
                .collect();
            steps.push(json!({"crash": {"code": 0}}));
            let fake = Fake::new(json!({"turns": [{"steps": steps}]}));
            let what = format!(
                "{} frame {target} {} {:?}",
                file.display(),
                mutant.path,
                mutant.mutation
            );
            let client = within(20, Client::connect(fake.options()))
                .await
                .unwrap_or_else(|err| panic!("{what}: {err}"));
            let pid = client.pid().unwrap();
            client.send("go").await.unwrap();
            let items = tokio::time::timeout(
                Duration::from_secs(20),
                client.receive_all().collect::<Vec<_>>(),
            )
            .await
            .unwrap_or_else(|_| panic!("{what}: the session did not end"));
            let result = items.iter().any(|item| {
                item.as_ref()
                    .is_ok_and(|message: &Message| message.result_is_error().is_some())
            });
            let error = items.last().is_some_and(Result::is_err);
            assert!(
                result || error,
                "{what}: neither a result nor an error: {items:?}"
            );
            within(10, client.close()).await.unwrap();
            assert!(!alive(pid), "{what}: the CLI was left running");
            runs += 1;
            with_result += usize::from(result);
            with_error += usize::from(error);
        }
    }
    assert!(runs >= 50, "only {runs} mutated sessions");
    #[allow(clippy::print_stderr)]
    {
        eprintln!("mutated sessions: {runs} played, {with_result} with a result, {with_error} ending in an error");
    }
}
