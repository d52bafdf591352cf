//! Work beside the turn: background tasks stopped by the host, a queued message withdrawn, a
//! subagent.

use serde_json::json;
use twinwire::protocol::system::SystemMessage;
use twinwire::protocol::Message;
use twinwire::protocol::UserMessage;

use crate::{kinds, ok, script, the_result, turn, within, Scenario};

#[tokio::test]
async fn stop_task_ends_a_background_command() {
    let s = Scenario::start(script(
        json!([
            {"when": {"tool_result_contains": "background"}, "reply": {"text": "started it"}},
            {"when": {"last_user_text_contains": "start the server"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": "sleep 45", "description": "Wait",
                                              "run_in_background": true}}}}
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let options = s.builder().allowed_tools(["Bash"]).build().unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "start the server").await;
    assert_eq!(
        the_result(&items).text(),
        Some("started it"),
        "{}\nstderr:\n{}",
        kinds(&items),
        s.stderr()
    );
    let started = ok(&items)
        .into_iter()
        .find_map(|message| match message {
            Message::System(system) => match &**system {
                SystemMessage::TaskStarted(task) => Some(task.task_id.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| panic!("no task_started: {}", kinds(&items)));
    within(client.stop_task(&started)).await.unwrap();
    // The CLI reports the task's end.
    let notification = loop {
        let message = within(client.receive())
            .await
            .expect("the CLI is still there")
            .expect("a message");
        if let Message::System(system) = &message {
            if let SystemMessage::TaskNotification(note) = &**system {
                break note.clone();
            }
        }
    };
    assert_eq!(notification.task_id, started);
    let status = serde_json::to_value(&notification.status).unwrap();
    assert_eq!(status, "stopped", "{notification:?}");
    // A task id the CLI does not know: 2.1.330 answers success, 2.1.112 an error naming it.
    if let Err(error) = within(client.stop_task("no-such-task")).await {
        assert!(error.to_string().contains("no-such-task"), "{error}");
    }
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn cancel_async_message_withdraws_a_queued_prompt() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "tell a long story"},
             "reply": {"slow_text": {"text": "a story that takes a while to tell",
                                     "deltas": 20, "delay_ms": 100}}}
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let client = s.connect(s.options()).await;
    within(client.send("tell a long story")).await.unwrap();
    let mut queued = UserMessage::new("WITHDRAWN-PROMPT-93");
    queued.uuid = Some("6b0a9c1e-0d7e-4e8a-9f57-3c2d1b0a9e8f".to_owned());
    within(client.send_message(queued)).await.unwrap();
    within(client.cancel_async_message("6b0a9c1e-0d7e-4e8a-9f57-3c2d1b0a9e8f"))
        .await
        .unwrap();
    let items = within(futures::StreamExt::collect::<Vec<_>>(
        client.receive_response(),
    ))
    .await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let items = turn(&client, "and now").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let all: Vec<String> = s
        .message_requests()
        .iter()
        .map(crate::conversation)
        .collect();
    assert!(
        all.iter().all(|c| !c.contains("WITHDRAWN-PROMPT-93")),
        "the withdrawn prompt reached the model: {all:?}"
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_subagent_runs_as_a_task_and_completes() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "SUBTASK-71: count the files"},
             "reply": {"text": "there are no files"}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "the helper is done"}},
            {"when": {"last_user_text_contains": "ask a helper"},
             "reply": {"tool_use": {"name": "Task",
                                    "input": {"description": "Count files",
                                              "prompt": "SUBTASK-71: count the files",
                                              "subagent_type": "general-purpose"}}}}
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let options = s
        .builder()
        .allowed_tools(["Task", "Agent"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "ask a helper").await;
    let result = the_result(&items);
    assert_eq!(
        result.text(),
        Some("the helper is done"),
        "{}\nstderr:\n{}",
        kinds(&items),
        s.stderr()
    );
    // The subagent asked the model with the task's prompt, as a background task (2.1.330
    // runs agents asynchronously) that the CLI reports started and then completed.
    assert!(
        !s.requests_for("SUBTASK-71").is_empty(),
        "the subagent asked the model"
    );
    let mut started = None;
    let mut completed = None;
    for message in ok(&items) {
        if let Message::System(system) = message {
            match &**system {
                SystemMessage::TaskStarted(task) => started = Some(task.clone()),
                SystemMessage::TaskNotification(note) => completed = Some(note.clone()),
                _ => {}
            }
        }
    }
    let started = started.unwrap_or_else(|| panic!("no task_started: {}", kinds(&items)));
    let completed = completed.unwrap_or_else(|| panic!("no task_notification: {}", kinds(&items)));
    assert_eq!(completed.task_id, started.task_id);
    assert_eq!(
        serde_json::to_value(&completed.status).unwrap(),
        "completed",
        "{completed:?}"
    );
    within(client.close()).await.unwrap();
}
