//! The agent's loop over real pipes: `twinwire-agent` started by twinwire's host, its model
//! `twinwire model-server` (offline), real tools on a private directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use support::agent::{json, mentions, result, turn, World};
use twinwire::host::callbacks::{can_use_tool, hook, HookMatcher, PermissionRequest};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput, HookPermissionDecision};
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::result::ResultSubtype;
use twinwire::protocol::Message;
use twinwire::Client;

fn text(reply: &str) -> serde_json::Value {
    json!({"text": reply})
}

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_use": {"name": "Bash", "text": "Running it.",
                        "input": {"command": command, "description": "a command"}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_turn_streams_and_ends_with_a_priced_result() {
    let world = World::new(json!({"rules": [
        {"when": {"last_user_text_contains": "say hello"}, "reply": text("Hello from the model.")}
    ], "default": text("unexpected")}))
    .await;
    let client = Client::connect(
        world
            .options()
            .include_partial_messages(true)
            .build()
            .unwrap(),
    )
    .await
    .unwrap();
    client.send("please say hello").await.unwrap();
    let frames = turn(&client).await;
    let kinds: Vec<String> = frames.iter().map(|m| m.kind()).collect();
    assert_eq!(kinds[0], "system/session_state_changed", "{kinds:?}");
    assert!(kinds.contains(&"system/init".to_owned()), "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "stream_event"), "{kinds:?}");
    let assistant = frames.iter().find_map(|m| match m {
        Message::Assistant(a) => Some(a.message.text()),
        _ => None,
    });
    assert_eq!(assistant.as_deref(), Some("Hello from the model."));
    let result = result(&frames);
    assert_eq!(result.subtype, ResultSubtype::Success);
    assert!(!result.is_error);
    assert_eq!(result.result.as_deref(), Some("Hello from the model."));
    assert_eq!(result.num_turns, 1);
    assert_eq!(result.usage.input_tokens, 100);
    assert_eq!(result.usage.output_tokens, 20);
    // claude-opus-5-5, the default model, at 4 and 20 dollars per million tokens.
    assert!((result.total_cost_usd - (100.0 * 4.0 + 20.0 * 20.0) / 1e6).abs() < 1e-12);
    assert_eq!(result.model_usage["claude-opus-5-5"].input_tokens, 100);
    client.close().await.unwrap();
    assert_eq!(world.sessions(), vec![result.session_id.clone()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn can_use_tool_decides_and_the_tools_run_for_real() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": text("done")},
        {"when": {"last_user_text_contains": "allowed"}, "reply": bash("touch allowed.txt")},
        {"when": {"last_user_text_contains": "denied"}, "reply": bash("touch denied.txt")}
    ], "default": text("unexpected")}))
    .await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        let log = Arc::clone(&log);
        async move {
            let command = request.input()["command"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            log.lock()
                .unwrap()
                .push((request.tool_name().to_owned(), command.clone()));
            Ok(if command.contains("allowed") {
                PermissionResult::allow(request.input().clone())
            } else {
                PermissionResult::deny("not on my watch")
            })
        }
    });
    let client = Client::connect(world.options().can_use_tool(callback).build().unwrap())
        .await
        .unwrap();
    client.send("run the allowed command").await.unwrap();
    let allowed = turn(&client).await;
    assert!(world.path("allowed.txt").is_file(), "Bash ran");
    assert!(result(&allowed).permission_denials.is_empty());
    assert_eq!(result(&allowed).num_turns, 2);
    client.send("run the denied command").await.unwrap();
    let denied = turn(&client).await;
    assert!(!world.path("denied.txt").exists());
    let denials = &result(&denied).permission_denials;
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].tool_name, "Bash");
    assert_eq!(result(&denied).subtype, ResultSubtype::Success);
    assert_eq!(
        *asked.lock().unwrap(),
        vec![
            ("Bash".to_owned(), "touch allowed.txt".to_owned()),
            ("Bash".to_owned(), "touch denied.txt".to_owned())
        ]
    );
    let last = world.model_requests().pop().unwrap();
    assert!(
        mentions(&last["messages"], "not on my watch"),
        "the denial reached the model"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_decide_before_the_host_is_asked() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": text("done")},
        {"when": {"last_user_text_contains": "touch"}, "reply": bash("touch ruled.txt")},
        {"when": {"last_user_text_contains": "remove"}, "reply": bash("rm -f ruled.txt")},
        {"when": {"last_user_text_contains": "look"}, "reply": bash("ls -la")}
    ], "default": text("unexpected")}))
    .await;
    let asked = Arc::new(Mutex::new(0));
    let count = Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        *count.lock().unwrap() += 1;
        async move { Ok(PermissionResult::allow(request.input().clone())) }
    });
    let options = world
        .options()
        .can_use_tool(callback)
        .allowed_tool("Bash(touch:*)")
        .disallowed_tool("Bash(rm:*)")
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    for prompt in ["touch it", "remove it", "look around"] {
        client.send(prompt).await.unwrap();
        turn(&client).await;
    }
    assert!(
        world.path("ruled.txt").is_file(),
        "allowed by a rule, and rm was denied by one"
    );
    assert_eq!(
        *asked.lock().unwrap(),
        0,
        "a read-only command needs no question either"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_add_context_and_deny_before_permissions() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": text("hooks done")},
        {"when": {"last_user_text_contains": "use the shell"}, "reply": bash("touch hooked.txt")}
    ], "default": text("unexpected")}))
    .await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (a, b, c) = (Arc::clone(&seen), Arc::clone(&seen), Arc::clone(&seen));
    let prompt_hook = hook(move |input, _cx| {
        let seen = Arc::clone(&a);
        async move {
            if let HookInput::UserPromptSubmit(prompt) = input {
                seen.lock()
                    .unwrap()
                    .push(format!("prompt:{}", prompt.prompt));
            }
            Ok(HookOutput::proceed().with_specific(
                twinwire::protocol::hooks::HookSpecificOutput::UserPromptSubmit(
                    twinwire::protocol::hooks::UserPromptSubmitOutput {
                        additional_context: Some("context from the hook: 7f3a".into()),
                        ..Default::default()
                    },
                ),
            ))
        }
    });
    let pre_hook = hook(move |input, _cx| {
        let seen = Arc::clone(&b);
        async move {
            if let HookInput::PreToolUse(pre) = input {
                seen.lock()
                    .unwrap()
                    .push(format!("pre:{}", pre.tool_input["command"]));
            }
            Ok(HookOutput::pre_tool_use_decision(
                HookPermissionDecision::Deny,
                "the hook says no shell",
            ))
        }
    });
    let callback = can_use_tool(move |request: PermissionRequest| {
        c.lock().unwrap().push("asked".into());
        async move { Ok(PermissionResult::allow(request.input().clone())) }
    });
    let options = world
        .options()
        .can_use_tool(callback)
        .hook(HookEvent::UserPromptSubmit, HookMatcher::all(prompt_hook))
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching("Bash", pre_hook),
        )
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("use the shell").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("hooks done"));
    assert!(!world.path("hooked.txt").exists());
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            "prompt:use the shell".to_owned(),
            "pre:\"touch hooked.txt\"".to_owned()
        ]
    );
    let requests = world.model_requests();
    assert!(mentions(
        &requests[0]["messages"],
        "context from the hook: 7f3a"
    ));
    assert!(mentions(&requests[1]["messages"], "the hook says no shell"));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_stops_the_stream_and_the_next_turn_works() {
    let world = World::new(json!({"rules": [
        {"when": {"last_user_text_contains": "long story"},
         "reply": {"slow_text": {"text": "once upon a time there was a very long story", "deltas": 40, "delay_ms": 100}}},
        {"when": {"last_user_text_contains": "short one"}, "reply": text("the end")}
    ], "default": text("unexpected")}))
    .await;
    let client = Client::connect(
        world
            .options()
            .include_partial_messages(true)
            .build()
            .unwrap(),
    )
    .await
    .unwrap();
    client.send("tell a long story").await.unwrap();
    let mut frames = Vec::new();
    {
        let mut stream = std::pin::pin!(client.receive_response());
        let mut sent = false;
        while let Some(message) = futures::StreamExt::next(&mut stream).await {
            let message = message.unwrap();
            if !sent
                && matches!(&message, Message::StreamEvent(e) if e.event.text_delta().is_some())
            {
                let receipt = client.interrupt().await.unwrap();
                assert_eq!(receipt.still_queued, Some(Vec::new()));
                sent = true;
            }
            frames.push(message);
        }
    }
    let interrupted = result(&frames);
    assert_eq!(interrupted.subtype, ResultSubtype::ErrorDuringExecution);
    assert_eq!(
        json(&frames).last().unwrap()["terminal_reason"],
        "aborted_streaming"
    );
    let deltas = frames
        .iter()
        .filter(|m| matches!(m, Message::StreamEvent(e) if e.event.text_delta().is_some()))
        .count();
    assert!(deltas < 40, "the stream stopped early ({deltas} deltas)");
    assert!(json(&frames)
        .iter()
        .any(|f| mentions(f, "[Request interrupted by user]")));
    client.send("a short one").await.unwrap();
    let next = turn(&client).await;
    assert_eq!(result(&next).result.as_deref(), Some("the end"));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_mid_turn_is_injected_before_the_next_model_call() {
    let world = World::new(json!({"rules": [
        {"when": {"conversation_contains": "ALSO THIS"}, "reply": text("saw both")},
        {"when": {"last_is_tool_result": true}, "reply": text("only the first")},
        {"when": {"last_user_text_contains": "wait a bit"}, "reply": bash("touch started; sleep 2")}
    ], "default": text("unexpected")}))
    .await;
    let options = world.options().allowed_tool("Bash").build().unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("wait a bit").await.unwrap();
    let marker = world.path("started");
    while !marker.exists() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    client.send("ALSO THIS").await.unwrap();
    let frames = json(&turn(&client).await);
    let queued = frames
        .iter()
        .find(|f| f["subtype"] == "queued")
        .expect("system/queued");
    assert_eq!(queued["position"], 1);
    let injected = frames
        .iter()
        .find(|f| f["subtype"] == "injected")
        .expect("system/injected");
    assert_eq!(injected["message_count"], 1);
    assert_eq!(frames.last().unwrap()["result"], "saw both");
    assert_eq!(
        world.model_requests().len(),
        2,
        "one turn, the message taken into it"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_turns_ends_a_turn_that_keeps_calling_tools() {
    let world = World::new(json!({"rules": [], "default": bash("true")})).await;
    let options = world
        .options()
        .allowed_tool("Bash")
        .max_turns(2)
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("loop forever").await.unwrap();
    let frames = turn(&client).await;
    let result = result(&frames);
    assert_eq!(result.subtype, ResultSubtype::ErrorMaxTurns);
    assert!(result.is_error);
    assert_eq!(result.num_turns, 2);
    assert_eq!(world.model_requests().len(), 2);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_output_comes_from_the_schema_tool() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": text("there it is")},
        {"when": {"has_tool": "StructuredOutput"},
         "reply": {"tool_use": {"name": "StructuredOutput", "input": {"answer": 42}}}}
    ], "default": text("no schema tool offered")}))
    .await;
    let schema = json!({"type": "object", "properties": {"answer": {"type": "integer"}},
                        "required": ["answer"]});
    let options = world.options().json_schema(schema).build().unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("what is the answer").await.unwrap();
    let frames = turn(&client).await;
    let result = result(&frames);
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.structured_output, Some(json!({"answer": 42})));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_error_ends_the_turn_as_claude_code_does_and_the_session_goes_on() {
    let world = World::new(json!({"rules": [
        {"when": {"last_prompt_contains": "API_500"},
         "reply": {"error": {"status": 500, "message": "boom"}}}
    ], "default": {"echo": true}}))
    .await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("trigger API_500").await.unwrap();
    let frames = turn(&client).await;
    let failed = result(&frames);
    assert!(failed.is_error);
    assert_eq!(failed.subtype, ResultSubtype::Success);
    assert_eq!(failed.api_error_status, Some(Some(500)));
    assert!(failed
        .result
        .as_deref()
        .unwrap()
        .starts_with("API Error: 500 boom"));
    client.send("hello again").await.unwrap();
    let next = turn(&client).await;
    assert_eq!(
        result(&next).result.as_deref(),
        Some("You said: hello again")
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_requests_are_answered_truly_or_refused() {
    let world = World::new(json!({"rules": [], "default": {"echo": true}})).await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.set_model(Some("claude-haiku-4-5")).await.unwrap();
    client
        .set_permission_mode(twinwire::protocol::permission::PermissionMode::AcceptEdits)
        .await
        .unwrap();
    client.set_max_thinking_tokens(Some(2048)).await.unwrap();
    let status = client.mcp_status().await.unwrap();
    assert!(mentions(&status, "mcpServers"), "{status:?}");
    let usage = client.get_context_usage().await.unwrap();
    assert!(mentions(&usage, "maxTokens"));
    let reloaded = client
        .request_raw(
            twinwire::protocol::control::ControlRequestBody::ReloadPlugins(Default::default()),
        )
        .await
        .unwrap();
    assert!(mentions(&reloaded, "commands"), "{reloaded:?}");
    let refused = client
        .request_raw(twinwire::protocol::control::ControlRequestBody::SetColor(
            Default::default(),
        ))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("nsupported"), "{refused}");
    client.send("hi").await.unwrap();
    let frames = json(&turn(&client).await);
    let init = frames.iter().find(|f| f["subtype"] == "init").unwrap();
    assert_eq!(init["model"], "claude-haiku-4-5");
    assert_eq!(init["permissionMode"], "acceptEdits");
    let request = world.model_requests().pop().unwrap();
    assert_eq!(request["model"], "claude-haiku-4-5");
    assert_eq!(request["thinking"]["budget_tokens"], 2048);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_goes_back_intact_and_read_only_calls_are_answered_together() {
    use support::http::{Answer, ScriptedServer};
    let start = |id: &str| json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}});
    let tool = |index: u64, id: &str, name: &str, input: &str| {
        vec![
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": input}}),
            json!({"type": "content_block_stop", "index": index}),
        ]
    };
    let mut first = vec![
        start("msg_1"),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "two lookups at once"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2lnbmVkIGJ5IHRoZSBBUEk="}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    first.extend(tool(1, "toolu_a", "Glob", r#"{"pattern": "*.txt"}"#));
    first.extend(tool(2, "toolu_b", "Grep", r#"{"pattern": "needle"}"#));
    first.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}));
    first.push(json!({"type": "message_stop"}));
    let second = vec![
        start("msg_2"),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "found it"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        json!({"type": "message_stop"}),
    ];
    let server = ScriptedServer::start(vec![Answer::events(&first), Answer::events(&second)]).await;
    let world = World::at(server.url.clone());
    std::fs::write(world.path("notes.txt"), "a needle\n").unwrap();
    let options = world
        .options()
        .model("claude-sonnet-4-5")
        .max_thinking_tokens(4096)
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("look twice").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("found it"));
    let seen = server.requests();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[0].body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4096, "display": "updates"})
    );
    // The prompt, the note on the environment, the reply, its results.
    let messages = &seen[1].body["messages"];
    assert_eq!(messages[1]["role"], "system");
    assert_eq!(
        messages[2]["content"][0],
        json!({"type": "thinking", "thinking": "two lookups at once", "signature": "c2lnbmVkIGJ5IHRoZSBBUEk="})
    );
    let results = messages[3]["content"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec!["toolu_a", "toolu_b"],
        "both results, in order, in one message"
    );
    assert!(mentions(&results[0], "notes.txt") && mentions(&results[1], "notes.txt"));
    client.close().await.unwrap();
}

/// The TypeScript SDK writes `initialize` and the first prompt at once; the hooks it
/// registers apply to that prompt's turn (the engine serves the two concurrently).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_written_with_the_first_prompt_applies_to_its_turn() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let world = World::new(json!({"rules": [], "default": {"echo": true}})).await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_twinwire-agent"))
        .args([
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
            "--verbose",
        ])
        .current_dir(&world.work)
        .env("HOME", &world.home)
        .env("ANTHROPIC_BASE_URL", &world.url)
        .env("ANTHROPIC_API_KEY", "sk-offline")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"type": "control_request", "request_id": "init_1",
                      "request": {"subtype": "initialize",
                                  "hooks": {"UserPromptSubmit": [{"matcher": null, "hookCallbackIds": ["hook_0"]}]}}});
    let prompt = json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
                        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}});
    stdin
        .write_all(format!("{init}\n{prompt}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut hooked = false;
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let frame: serde_json::Value = serde_json::from_str(&line).unwrap();
            if frame["type"] == "control_request" && frame["request"]["subtype"] == "hook_callback"
            {
                hooked = true;
                let id = frame["request_id"].clone();
                let answer = json!({"type": "control_response",
                                    "response": {"subtype": "success", "request_id": id, "response": {}}});
                stdin
                    .write_all(format!("{answer}\n").as_bytes())
                    .await
                    .unwrap();
            }
            if frame["type"] == "result" {
                return frame;
            }
        }
        panic!("no result");
    };
    let result = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .unwrap();
    assert!(hooked, "the UserPromptSubmit hook was called");
    assert_eq!(result["result"], "You said: hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_end_callbacks_are_called_when_the_hosts_input_ends() {
    let world = World::new(json!({"rules": [], "default": text("ok")})).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let end_hook = hook(move |input, _cx| {
        let log = Arc::clone(&log);
        async move {
            if let HookInput::SessionEnd(end) = &input {
                log.lock()
                    .unwrap()
                    .push(format!("{}:{}", input.tag(), end.reason));
            }
            Ok(HookOutput::proceed())
        }
    });
    let options = world
        .options()
        .hook(HookEvent::SessionEnd, HookMatcher::all(end_hook))
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("hello").await.unwrap();
    assert_eq!(result(&turn(&client).await).result.as_deref(), Some("ok"));
    assert!(seen.lock().unwrap().is_empty(), "SessionEnd before the end");
    // Closing the input is the end: twinwire's host calls the callback itself (it keeps
    // lifecycle callbacks out of `initialize`, as no Claude Code calls them there), once.
    client.close().await.unwrap();
    assert_eq!(*seen.lock().unwrap(), ["SessionEnd:other"]);
}
