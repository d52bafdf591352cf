//! Every feature of the host API, against the fake CLI.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use twinwire::host::callbacks::{can_use_tool, hook, on_elicitation, HookMatcher};
use twinwire::mcp::{SdkMcpServer, SdkTool, ToolOutput};
use twinwire::protocol::control::{ElicitationResponse, GetContextUsageRequest};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput, HookPermissionDecision};
use twinwire::protocol::permission::{PermissionMode, PermissionResult};
use twinwire::protocol::Message;
use twinwire::{query, Client};

use crate::{collect, of_kind, system_frames, within, Fake};

#[tokio::test]
async fn a_text_turn_through_query_with_the_sdk_environment() {
    let fake = Fake::new(json!({}));
    let items = collect(query(
        "hello",
        fake.builder().env("USER_VAR", "1").build().unwrap(),
    ))
    .await;
    assert!(items.iter().all(Result::is_ok), "{items:?}");
    let replies = of_kind(&items, "assistant");
    let Message::Assistant(reply) = replies[0] else {
        unreachable!()
    };
    assert_eq!(reply.message.text(), "echo: hello");
    let results = of_kind(&items, "result/success");
    assert_eq!(results.len(), 1);
    assert!(!of_kind(&items, "system/init").is_empty());

    let record = fake.record();
    let argv: Vec<&str> = record[0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    for flag in ["--output-format", "--input-format", "--verbose"] {
        assert!(
            argv.iter().any(|a| a.starts_with(flag)),
            "{flag} in {argv:?}"
        );
    }
    let env = &record[0]["env"];
    assert_eq!(env["CLAUDE_CODE_ENTRYPOINT"], "sdk-rust");
    assert_eq!(env["CLAUDE_CODE_SDK_READS_SESSION_STATE"], "1");
    assert_eq!(env["USER_VAR"], "1");
    assert!(env.get("CLAUDECODE").is_none());
    // initialize first, then the user message.
    let received = fake.received();
    assert_eq!(received[0]["request"]["subtype"], "initialize");
    assert_eq!(received[1]["type"], "user");
    assert_eq!(received[1]["message"]["content"], "hello");
}

#[tokio::test]
async fn four_turns_on_one_process_with_the_cached_initialize_response() {
    let fake = Fake::new(json!({}));
    let client = within(10, Client::connect(fake.options())).await.unwrap();
    assert!(client.initialize_response().is_some());
    let pid = client.pid().unwrap();
    for turn in 0..4 {
        client.send(format!("turn {turn}").as_str()).await.unwrap();
        let messages: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
        let last = messages.last().unwrap().as_ref().unwrap();
        let Message::Result(result) = last else {
            panic!("{last:?}")
        };
        assert_eq!(result.text(), Some(format!("echo: turn {turn}").as_str()));
        assert_eq!(client.pid(), Some(pid));
    }
    let status = within(20, client.close()).await.unwrap().unwrap();
    assert!(status.success());
}

fn tool_script(ask: bool) -> serde_json::Value {
    json!({"turns": [{"steps": [
        {"tool": {"name": "Bash", "input": {"command": "touch x"}, "ask": ask, "output": "created x"}},
        {"text": "done"}
    ]}]})
}

fn tool_result_text(items: &[twinwire::Result<Message>]) -> String {
    of_kind(items, "user")
        .into_iter()
        .map(|m| m.to_value()["message"]["content"][0].to_string())
        .collect()
}

#[tokio::test]
async fn can_use_tool_allow_deny_and_updated_input() {
    // Allow as is.
    let fake = Fake::new(tool_script(true));
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(tool_result_text(&items).contains("created x"), "{items:?}");
    let asked = fake
        .received()
        .into_iter()
        .filter(|f| f["type"] == "control_response")
        .count();
    assert_eq!(asked, 1);

    // Deny with a message: listed in permission_denials.
    let fake = Fake::new(tool_script(true));
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(|_| async {
            Ok(PermissionResult::deny("not today"))
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(tool_result_text(&items).contains("not today"));
    let result = of_kind(&items, "result/success")[0].to_value();
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");

    // Allow with a changed input: the changed command runs.
    let fake = Fake::new(tool_script(true));
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(|_| async {
            Ok(PermissionResult::allow(json!({"command": "touch y"})))
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(tool_result_text(&items).contains("touch y"), "{items:?}");
}

#[tokio::test]
async fn a_panicking_or_failing_permission_callback_denies_and_the_session_goes_on() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"tool": {"name": "Bash", "input": {"command": "touch a"}, "ask": true, "output": "ran a"}},
        {"tool": {"name": "Bash", "input": {"command": "touch b"}, "ask": true, "output": "ran b"}},
        {"tool": {"name": "Bash", "input": {"command": "touch c"}, "ask": true, "output": "ran c"}}
    ]}]}));
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(move |request| {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            async move {
                match n {
                    0 => panic!("callback bug"),
                    1 => Err("database down".into()),
                    _ => Ok(PermissionResult::allow(request.input().clone())),
                }
            }
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    let results = tool_result_text(&items);
    assert!(results.contains("callback bug"), "{results}");
    assert!(results.contains("database down"), "{results}");
    assert!(results.contains("ran c"), "{results}");
    assert!(!results.contains("ran a") && !results.contains("ran b"));
    let result = of_kind(&items, "result/success")[0].to_value();
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_request_parked_without_parking_in_the_options_is_denied() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"tool": {"name": "Bash", "input": {"command": "touch a"}, "ask": true, "output": "ran a"}}
    ]}]}));
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(|request| async move { request.park() }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    let results = tool_result_text(&items);
    assert!(results.contains("options set no parking"), "{results}");
    assert!(!results.contains("ran a"), "{results}");
    let result = of_kind(&items, "result/success")[0].to_value();
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn hooks_fire_in_order_and_a_pre_tool_use_hook_can_deny() {
    let fake = Fake::new(json!({"auto_hooks": true, "turns": [{"steps": [
        {"tool": {"name": "Bash", "input": {"command": "touch x"}, "ask": true, "output": "ran"}},
        {"tool": {"name": "Read", "input": {"file_path": "/etc/hostname"}, "ask": true, "output": "read"}}
    ]}]}));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = |seen: &Arc<Mutex<Vec<String>>>| {
        let seen = Arc::clone(seen);
        hook(move |input: HookInput, _cx| {
            let seen = Arc::clone(&seen);
            async move {
                let name = match &input {
                    HookInput::PreToolUse(pre) => format!("PreToolUse:{}", pre.tool_name),
                    HookInput::PostToolUse(post) => format!("PostToolUse:{}", post.tool_name),
                    other => other.tag().to_owned(),
                };
                seen.lock().unwrap().push(name);
                if let HookInput::PreToolUse(pre) = &input {
                    if pre.tool_name == "Bash" {
                        return Ok(HookOutput::pre_tool_use_decision(
                            HookPermissionDecision::Deny,
                            "no shell in hooks test",
                        ));
                    }
                }
                Ok(HookOutput::proceed())
            }
        })
    };
    let options = fake
        .builder()
        .hook(HookEvent::UserPromptSubmit, HookMatcher::all(log(&seen)))
        .hook(HookEvent::PreToolUse, HookMatcher::all(log(&seen)))
        .hook(HookEvent::PostToolUse, HookMatcher::all(log(&seen)))
        .hook(HookEvent::Stop, HookMatcher::all(log(&seen)))
        .can_use_tool(can_use_tool(|r| async move {
            Ok(PermissionResult::allow(r.input().clone()))
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    let order = seen.lock().unwrap().clone();
    assert_eq!(
        order,
        [
            "UserPromptSubmit",
            "PreToolUse:Bash",
            "PreToolUse:Read",
            "PostToolUse:Read",
            "Stop"
        ]
    );
    assert!(tool_result_text(&items).contains("no shell in hooks test"));
    // The matchers went out in initialize with their callback ids.
    let init = &fake.received()[0]["request"];
    assert_eq!(
        init["hooks"]["PreToolUse"][0]["hookCallbackIds"],
        json!(["hook_1"])
    );
}

#[tokio::test]
async fn a_panicking_pre_tool_use_hook_blocks_the_tool() {
    let fake = Fake::new(tool_script(false));
    let options = fake
        .builder()
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching("Bash", hook(|_, _| async { panic!("hook bug") })),
        )
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    let results = tool_result_text(&items);
    assert!(results.contains("hook bug"), "{results}");
    assert!(!results.contains("created x"));
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[tokio::test]
async fn an_in_process_mcp_tool_is_called_and_its_result_reaches_the_model() {
    let fake = Fake::new(json!({
        "initialize": {"before_response": [{"mcp_initialize": {"server": "calc"}}]},
        "turns": [{"steps": [
            {"mcp_call": {"server": "calc", "tool": "add", "arguments": {"a": 2, "b": 40}}},
            {"text": "the sum is known"}
        ]}]
    }));
    let calc = SdkMcpServer::builder("calc")
        .tool(SdkTool::new(
            "add",
            "Adds two integers",
            |args: AddArgs| async move { Ok(ToolOutput::text((args.a + args.b).to_string())) },
        ))
        .build();
    let options = fake.builder().sdk_mcp_server(calc).build().unwrap();
    let items = collect(query("add", options)).await;
    assert!(tool_result_text(&items).contains("42"), "{items:?}");
    let init = &fake.received()[0]["request"];
    assert_eq!(init["sdkMcpServers"], json!(["calc"]));
}

#[tokio::test]
async fn interrupt_mid_stream_then_a_normal_turn() {
    let fake = Fake::new(json!({"turns": [
        {"steps": [{"stream": {"text": "a b c d e f g h i j", "deltas": 10, "delay_ms": 100}}]},
        {"steps": [{"text": "second turn"}]}
    ]}));
    let client = within(
        10,
        Client::connect(
            fake.builder()
                .include_partial_messages(true)
                .build()
                .unwrap(),
        ),
    )
    .await
    .unwrap();
    client.send("stream please").await.unwrap();
    let mut deltas = 0;
    loop {
        let message = within(10, client.receive()).await.unwrap().unwrap();
        if message.kind() == "stream_event" {
            deltas += 1;
            if deltas == 3 {
                within(10, client.interrupt()).await.unwrap();
            }
        }
        if let Message::Result(result) = message {
            assert_eq!(result.subtype.as_str(), "error_during_execution");
            assert_eq!(
                result.terminal_reason.as_ref().map(|r| r.as_str()),
                Some("aborted_streaming")
            );
            break;
        }
    }
    client.send("again").await.unwrap();
    let turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
    let Ok(Message::Result(result)) = turn.last().unwrap() else {
        panic!()
    };
    assert_eq!(result.text(), Some("second turn"));
}

#[tokio::test]
async fn control_requests_reach_the_cli_and_come_back_typed() {
    let fake = Fake::new(json!({}));
    let client = within(10, Client::connect(fake.options())).await.unwrap();
    within(10, client.set_model(Some("claude-haiku-4-5")))
        .await
        .unwrap();
    within(10, client.set_permission_mode(PermissionMode::AcceptEdits))
        .await
        .unwrap();
    within(10, client.set_max_thinking_tokens(Some(1024)))
        .await
        .unwrap();
    within(10, client.mcp_status()).await.unwrap();
    within(10, client.get_context_usage()).await.unwrap();
    within(10, client.request(GetContextUsageRequest::default()))
        .await
        .unwrap();
    client.send("model?").await.unwrap();
    let turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
    let init = system_frames(&turn, "init");
    assert_eq!(init[0]["model"], "claude-haiku-4-5");
    assert_eq!(init[0]["permissionMode"], "acceptEdits");
    let subtypes: Vec<_> = fake
        .received()
        .iter()
        .filter(|f| f["type"] == "control_request")
        .map(|f| f["request"]["subtype"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        subtypes,
        [
            "initialize",
            "set_model",
            "set_permission_mode",
            "set_max_thinking_tokens",
            "mcp_status",
            "get_context_usage",
            "get_context_usage"
        ]
    );
    // An unsupported subtype comes back as a control error with its code.
    let err = within(
        10,
        client.request_raw(serde_json::from_value(json!({"subtype": "not_a_thing"})).unwrap()),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, twinwire::Error::Control { code: Some(code), .. } if code == "unsupported_request"),
        "{err}"
    );
    within(20, client.close()).await.unwrap();
}

#[tokio::test]
async fn elicitation_is_answered_by_the_callback() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"request": {"subtype": "elicitation", "mcp_server_name": "calc", "message": "Your name?",
                     "requested_schema": {"type": "object"}}}
    ]}]}));
    let options = fake
        .builder()
        .on_elicitation(on_elicitation(|request, _cancel| async move {
            assert_eq!(request.message, "Your name?");
            Ok(serde_json::from_value::<ElicitationResponse>(
                json!({"action": "accept", "content": {"name": "Ada"}}),
            )?)
        }))
        .build()
        .unwrap();
    let items = collect(query("ask me", options)).await;
    let observed = system_frames(&items, "fake_observed");
    assert_eq!(
        observed[0]["response"]["response"]["content"]["name"], "Ada",
        "{observed:?}"
    );
}

#[tokio::test]
async fn stdin_stays_open_for_late_callbacks_until_idle() {
    // A background task calls a hook 500 ms after the result; closing stdin at the result
    // would make it fail with "Stream closed".
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"text": "started a background task"},
        {"result": {"subtype": "success"}},
        {"background": {"delay_ms": 500, "steps": [
            {"hook": {"event": "Notification", "input": {"message": "late", "notification_type": "x"}}}
        ]}}
    ]}]}));
    let fired = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&fired);
    let options = fake
        .builder()
        .hook(
            HookEvent::Notification,
            HookMatcher::all(hook(move |_, _| {
                counter.fetch_add(1, Ordering::SeqCst);
                async { Ok(HookOutput::proceed()) }
            })),
        )
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    let kinds: Vec<_> = items
        .iter()
        .map(|i| i.as_ref().map(|m| m.kind()).map_err(|e| e.to_string()))
        .collect();
    assert_eq!(fired.load(Ordering::SeqCst), 1, "{kinds:?}");
    let responses = system_frames(&items, "fake_hook_answer");
    assert!(!responses.is_empty(), "{kinds:?}");
    assert_eq!(responses[0]["outcome"], "success", "{responses:?}");
}

#[tokio::test]
async fn structured_output_partial_messages_and_stderr() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"stderr": "warming up"},
        {"stream": {"text": "one two", "deltas": 2, "delay_ms": 0}},
        {"result": {"subtype": "success", "structured_output": {"answer": 42}}}
    ]}]}));
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    let options = fake
        .builder()
        .include_partial_messages(true)
        .json_schema(json!({"type": "object", "properties": {"answer": {"type": "integer"}}}))
        .stderr(move |line: &str| sink.lock().unwrap().push(line.to_owned()))
        .build()
        .unwrap();
    let items = collect(query("structured", options)).await;
    let Message::Result(result) = of_kind(&items, "result/success")[0] else {
        unreachable!()
    };
    assert_eq!(result.structured_output, Some(json!({"answer": 42})));
    assert!(of_kind(&items, "stream_event").len() >= 4);
    assert!(lines.lock().unwrap().iter().any(|l| l == "warming up"));
    let argv = fake.record()[0]["argv"].to_string();
    assert!(argv.contains("--include-partial-messages"), "{argv}");
    let init = &fake.received()[0]["request"];
    assert_eq!(
        init["jsonSchema"]["properties"]["answer"]["type"],
        "integer"
    );
    let _ = Duration::ZERO;
}

#[tokio::test]
async fn a_stream_of_user_messages_gets_one_result_each_then_stdin_closes() {
    use twinwire::protocol::UserMessage;
    use twinwire::Prompt;
    let fake = Fake::new(json!({}));
    let (tx, rx) = futures::channel::mpsc::unbounded();
    for text in ["one", "two", "three"] {
        tx.unbounded_send(UserMessage::new(text)).unwrap();
    }
    drop(tx);
    let items = collect(query(Prompt::stream(rx), fake.verbatim_options())).await;
    let texts: Vec<_> = of_kind(&items, "result/success")
        .into_iter()
        .map(|m| m.to_value()["result"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["echo: one", "echo: two", "echo: three"]);
    let sent: Vec<_> = fake
        .received()
        .into_iter()
        .filter(|f| f["type"] == "user")
        .collect();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0]["client_composed"], true);
}

#[tokio::test]
async fn user_dialogs_are_answered_by_the_callback_and_declared_in_initialize() {
    use twinwire::host::callbacks::on_user_dialog;
    use twinwire::protocol::control::{UserDialogCompleted, UserDialogResponse};
    let script = json!({"turns": [{"steps": [
        {"request": {"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt",
                     "payload": {"model": "m"}, "tool_use_id": "toolu_1"}}
    ]}]});
    let fake = Fake::new(script.clone());
    let options = fake
        .builder()
        .on_user_dialog(on_user_dialog(|request, _cancel| async move {
            assert_eq!(request.dialog_kind, "refusal_fallback_prompt");
            assert_eq!(request.tool_use_id.as_deref(), Some("toolu_1"));
            Ok(UserDialogResponse::Completed(UserDialogCompleted {
                result: json!({"choice": "retry"}),
                ..UserDialogCompleted::default()
            }))
        }))
        .supported_dialog_kinds(["refusal_fallback_prompt"])
        .build()
        .unwrap();
    let items = collect(query("refuse", options)).await;
    let observed = system_frames(&items, "fake_observed");
    let answer = &observed[0]["response"]["response"];
    assert_eq!(answer["behavior"], "completed", "{observed:?}");
    assert_eq!(answer["result"]["choice"], "retry");
    let initialize = &fake.received()[0]["request"];
    assert_eq!(
        initialize["supportedDialogKinds"],
        json!(["refusal_fallback_prompt"])
    );

    // A failing callback, or none, cancels: the CLI applies its own default.
    for failing in [true, false] {
        let fake = Fake::new(script.clone());
        let mut builder = fake.builder();
        if failing {
            builder = builder.on_user_dialog(on_user_dialog(|_, _| async move {
                Err::<UserDialogResponse, _>("no screen".into())
            }));
        }
        let items = collect(query("refuse", builder.build().unwrap())).await;
        let observed = system_frames(&items, "fake_observed");
        assert_eq!(
            observed[0]["response"]["response"]["behavior"], "cancelled",
            "{observed:?}"
        );
    }
    // Declaring kinds without a callback is refused at once.
    let fake = Fake::new(script);
    let refused = fake.builder().supported_dialog_kinds(["x"]).build();
    assert!(refused.is_err());
}

#[tokio::test]
async fn a_cli_older_than_the_minimum_fails_at_connect_with_a_clear_error() {
    // The fake reports 2.1.330-fake in its `initialize` answer.
    let fake = Fake::new(json!({}));
    let options = fake
        .builder()
        .minimum_cli_version(Some("9.0.0"))
        .build()
        .unwrap();
    let err = Client::connect(options).await.unwrap_err();
    assert!(
        matches!(&err, twinwire::Error::CliTooOld { found, minimum } if found == "2.1.330-fake" && minimum == "9.0.0"),
        "{err:?}"
    );
    assert!(err.to_string().contains("older than 9.0.0"), "{err}");
    // The default minimum (2.0.0) accepts it, and no check accepts anything.
    for minimum in [Some(twinwire::options::MINIMUM_CLI_VERSION), None] {
        let fake = Fake::new(json!({}));
        let client = Client::connect(fake.builder().minimum_cli_version(minimum).build().unwrap())
            .await
            .unwrap();
        client.close().await.unwrap();
    }
}
