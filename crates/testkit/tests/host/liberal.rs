//! The liberal reader end to end: a CLI that writes frames the official TypeScript SDK accepts
//! without complaint, but that do not fit a strict schema. Every session starts, every frame
//! reaches the caller (typed, or kept raw as malformed), every turn ends, nothing is left
//! running.

use std::sync::Arc;

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::host::callbacks::can_use_tool;
use twinwire::protocol::content::ContentBlock;
use twinwire::protocol::permission::{PermissionMode, PermissionResult};
use twinwire::protocol::system::SystemMessage;
use twinwire::protocol::Message;
use twinwire::{query, Client};

use crate::{alive, collect, within, Fake};

/// A script whose `initialize` is answered with `response` (the whole `response` object of the
/// control response, `request_id` filled in) instead of the built-in answer.
fn initialize_answered_with(response: Value) -> Value {
    let mut response = response;
    response["subtype"] = json!("success");
    // twinwire's first request is `initialize`, with id `req_1`.
    response["request_id"] = json!("req_1");
    json!({
        "requests": {"initialize": {"respond": "never"}},
        "initialize": {"before_response": [{"control_response": response}]},
    })
}

#[tokio::test]
async fn partial_initialize_responses_start_the_session() {
    for response in [
        json!({"response": {"commands": [], "models": [], "account": {}}}),
        json!({"response": {}}),
        json!({"response": null}),
        json!({}),
        json!({"response": {"commands": [], "account": null}}),
        json!({"response": {"output_style": 3, "models": "none", "pid": "12"}}),
    ] {
        let fake = Fake::new(initialize_answered_with(response.clone()));
        let client = within(10, Client::connect(fake.options()))
            .await
            .unwrap_or_else(|err| panic!("{response}: {err}"));
        let init = client.initialize_response().expect("a typed answer");
        assert!(init.commands.is_empty(), "{response}");
        client.send("still works").await.unwrap();
        let turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
        let last = turn.last().unwrap().as_ref().unwrap();
        assert_eq!(last.kind(), "result/success", "{response}");
        let pid = client.pid().unwrap();
        within(10, client.close()).await.unwrap();
        assert!(!alive(pid));
    }
}

/// `result` frames with one odd field each, the turn's last frame before a clean exit: each is
/// delivered typed, ends the turn and the query.
#[tokio::test]
async fn results_with_odd_fields_end_the_turn_and_the_query() {
    let base = json!({"type": "result", "subtype": "success", "is_error": false,
        "duration_ms": 5, "duration_api_ms": 4, "num_turns": 1, "result": "done",
        "session_id": "s", "total_cost_usd": 0.01, "usage": {"input_tokens": 1,
        "output_tokens": 1}, "modelUsage": {}, "permission_denials": [], "uuid": "u"});
    let mut odd = Vec::new();
    for (field, value) in [
        ("total_cost_usd", json!("0.25")),
        ("total_cost_usd", Value::Null),
        ("duration_ms", json!(10.0)),
        ("num_turns", json!(18_446_744_073_709_551_616.0)),
        ("session_id", json!(7)),
        ("usage", json!("n/a")),
    ] {
        let mut frame = base.clone();
        frame[field] = value;
        odd.push(frame.to_string());
    }
    for missing in ["usage", "modelUsage", "session_id"] {
        let mut frame = base.clone();
        frame.as_object_mut().unwrap().remove(missing);
        odd.push(frame.to_string());
    }
    // A duplicated key (the last one counts, as in JavaScript), and a bare minimum.
    odd.push(base.to_string().replacen('{', r#"{"is_error":true,"#, 1));
    odd.push(r#"{"type":"result","subtype":"success","is_error":false}"#.to_owned());

    for line in odd {
        let frame: Value = serde_json::from_str(&line).unwrap();
        let script = json!({"turns": [{"steps": [
            {"text": "working"},
            {"emit": frame},
            {"crash": {"code": 0}},
        ]}]});
        let fake = Fake::new(script);
        let items = collect(query("go", fake.options())).await;
        let results: Vec<_> = items
            .iter()
            .filter_map(|item| item.as_ref().ok())
            .filter(|message| matches!(message, Message::Result(_)))
            .collect();
        assert_eq!(results.len(), 1, "{line}: {items:?}");
        assert!(
            items.iter().all(Result::is_ok),
            "{line}: a clean exit after the result is no error: {items:?}"
        );

        // The same through a `Client`: the turn ends at the odd result.
        let fake = Fake::new(
            json!({"turns": [{"steps": [{"text": "working"}, {"emit": frame},
            {"sleep_ms": 60_000}]}]}),
        );
        let client = within(10, Client::connect(fake.options())).await.unwrap();
        client.send("go").await.unwrap();
        let turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
        assert!(
            matches!(turn.last(), Some(Ok(Message::Result(_)))),
            "{line}: {turn:?}"
        );
        drop(client);
    }
}

#[tokio::test]
async fn odd_parts_of_known_kinds_are_delivered_in_order() {
    let frames = [
        json!({"type": "system", "subtype": "init", "tools": null, "permissionMode": "yolo",
            "session_id": "s", "uuid": "i"}),
        json!({"type": "assistant", "message": {"id": "m1", "role": "assistant",
            "content": "plain text"}, "session_id": "s", "uuid": "a1"}),
        json!({"type": "assistant", "session_id": "s", "uuid": "a2"}),
        json!({"type": "assistant", "message": {"content": [{"type": "text", "text": null},
            {"text": "no type"}]}, "session_id": "s", "uuid": "a3"}),
        json!({"type": "system", "session_id": "s", "uuid": "no-subtype"}),
    ];
    let mut steps: Vec<Value> = frames.iter().map(|f| json!({"emit": f})).collect();
    steps.push(json!({"result": {"subtype": "success"}}));
    let fake = Fake::new(json!({"turns": [{"steps": steps}]}));
    let items = collect(query("go", fake.options())).await;
    let messages: Vec<&Message> = items.iter().map(|i| i.as_ref().unwrap()).collect();
    // The fake's own frames come around ours: find ours by uuid, in order.
    let ours: Vec<&Message> = messages
        .iter()
        .copied()
        .filter(|m| {
            let value = m.to_value();
            ["i", "a1", "a2", "a3", "no-subtype"].contains(&value["uuid"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(ours.len(), 5, "{messages:?}");
    let Message::System(init) = ours[0] else {
        panic!("{:?}", ours[0])
    };
    let SystemMessage::Init(init) = &**init else {
        panic!("{init:?}")
    };
    assert!(init.tools.is_empty());
    assert_eq!(init.permission_mode, PermissionMode::Other("yolo".into()));
    let Message::Assistant(plain) = ours[1] else {
        panic!("{:?}", ours[1])
    };
    assert_eq!(plain.message.text(), "plain text");
    assert!(matches!(ours[2], Message::Assistant(a) if a.message.content.is_empty()));
    let Message::Assistant(blocks) = ours[3] else {
        panic!("{:?}", ours[3])
    };
    assert!(matches!(&blocks.message.content[0], ContentBlock::Text(t) if t.text.is_empty()));
    let kept = blocks.message.content[1].as_malformed().expect("kept raw");
    assert_eq!(kept.raw, json!({"text": "no type"}));
    assert_eq!(ours[4].kind(), "system/?");
    assert_eq!(ours[4].to_value(), frames[4]);
}

/// A control request whose `request_id` is a number gets its answer, with the id a number.
#[tokio::test]
async fn numeric_request_ids_are_answered_in_kind() {
    let request = json!({"type": "control_request", "request_id": 42, "request": {
        "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "touch x"}}});
    let fake = Fake::new(
        json!({"turns": [{"steps": [{"emit": request}, {"sleep_ms": 300},
        {"text": "done"}]}]}),
    );
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.request.input))
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(items.iter().all(Result::is_ok), "{items:?}");
    let answers: Vec<Value> = fake
        .record()
        .into_iter()
        .filter_map(|line| line.get("ignored_response").cloned())
        .collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["response"]["request_id"], json!(42));
    assert_eq!(answers[0]["response"]["subtype"], "success");
    assert_eq!(answers[0]["response"]["response"]["behavior"], "allow");
}

/// A control request the host cannot even route (no subtype) is answered with an error at
/// once, so the CLI does not wait for its timeout; the frame still reaches the caller.
#[tokio::test]
async fn an_unroutable_request_is_refused_and_delivered() {
    let request = json!({"type": "control_request", "request_id": "odd", "request": {
        "tool_name": "Bash"}});
    let fake = Fake::new(
        json!({"turns": [{"steps": [{"emit": request}, {"sleep_ms": 300},
        {"text": "done"}]}]}),
    );
    let seen = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = Arc::clone(&seen);
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(move |request| {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            async move { Ok(PermissionResult::allow(request.request.input)) }
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(
        !seen.load(std::sync::atomic::Ordering::SeqCst),
        "never reaches a callback"
    );
    let delivered = items
        .iter()
        .filter_map(|item| item.as_ref().ok())
        .find(|m| matches!(m, Message::ControlRequest(_)))
        .expect("the odd request reaches the caller");
    assert_eq!(delivered.to_value(), request);
    let answer = fake
        .record()
        .into_iter()
        .find_map(|line| line.get("ignored_response").cloned())
        .expect("answered");
    assert_eq!(answer["response"]["subtype"], "error");
    assert_eq!(answer["response"]["request_id"], "odd");
}
