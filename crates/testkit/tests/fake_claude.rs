//! Process-level tests of `fake-claude`: spawn the built binary, drive it with raw JSON lines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/harness.rs"]
mod harness;

use std::path::PathBuf;
use std::time::Duration;

use harness::{id_of, initialize, is_request, is_result, kind, Setup};
use serde_json::{json, Value};

#[test]
fn default_script_echoes() {
    let mut fake = Setup::new("echo").start();
    fake.user("hello");
    let frames = fake.until(is_result);
    let kinds: Vec<_> = frames.iter().map(kind).collect();
    assert_eq!(
        kinds,
        [("system", "init"), ("assistant", ""), ("result", "success")]
    );
    let init = &frames[0];
    assert_eq!(init["claude_code_version"], "2.1.330-fake");
    assert!(init["session_id"].as_str().unwrap().len() == 36);
    let assistant = &frames[1];
    assert_eq!(
        assistant["message"]["content"][0],
        json!({"type": "text", "text": "echo: hello"})
    );
    assert!(assistant["message"]["id"]
        .as_str()
        .unwrap()
        .starts_with("msg_fake_"));
    assert_eq!(assistant["session_id"], init["session_id"]);
    assert_eq!(assistant["parent_tool_use_id"], Value::Null);
    let result = &frames[2];
    assert_eq!(result["result"], "echo: hello");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["num_turns"], 1);
    assert!(result["modelUsage"].is_object() && result["usage"].is_object());
    fake.user("again");
    let frames = fake.until(is_result);
    assert_eq!(frames[1]["message"]["content"][0]["text"], "echo: again");
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn initialize_and_host_requests() {
    let mut fake = Setup::new("init").start();
    let response = initialize(&mut fake, json!({"subtype": "initialize"}));
    assert_eq!(response["subtype"], "success");
    assert_eq!(response["request_id"], "req_1");
    let payload = &response["response"];
    assert_eq!(payload["claude_code_version"], "2.1.330-fake");
    assert!(payload["pid"].as_u64().unwrap() > 0);
    for key in ["commands", "agents", "models"] {
        assert!(!payload[key].as_array().unwrap().is_empty(), "{key}");
    }
    assert!(payload["account"].is_object() && payload["output_style"].is_string());

    fake.send(json!({"type": "keep_alive"}));
    fake.request(
        "req_2",
        json!({"subtype": "set_model", "model": "claude-haiku-4-5"}),
    );
    let r = fake.next();
    assert_eq!(
        r["response"]["response"],
        json!({"model": "claude-haiku-4-5"})
    );
    fake.request(
        "req_3",
        json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
    );
    let r = fake.next();
    assert_eq!(r["response"]["response"], json!({"mode": "acceptEdits"}));
    assert_eq!(kind(&fake.next()), ("system", "status"));
    fake.request("req_4", json!({"subtype": "interrupt"}));
    assert_eq!(
        fake.next()["response"]["response"],
        json!({"still_queued": []})
    );
    fake.request("req_5", json!({"subtype": "definitely_not_a_subtype"}));
    assert_eq!(
        fake.next()["response"],
        json!({"subtype": "error", "request_id": "req_5",
               "error": "Unsupported control request subtype: definitely_not_a_subtype",
               "error_code": "unsupported_request"})
    );
    fake.request("req_6", json!({"subtype": "get_context_usage"}));
    assert!(fake.next()["response"]["response"]["categories"].is_array());

    fake.user("hi");
    let frames = fake.until(is_result);
    let kinds: Vec<_> = frames.iter().map(kind).collect();
    assert_eq!(
        kinds,
        [("system", "init"), ("assistant", ""), ("result", "success")]
    );
    assert_eq!(frames[0]["model"], "claude-haiku-4-5");
    assert_eq!(frames[0]["permissionMode"], "acceptEdits");
    assert_eq!(frames[1]["message"]["model"], "claude-haiku-4-5");
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn tool_permission_allow_and_deny() {
    let script = json!({"turns": [{"steps": [
        {"text": "I will run a command."},
        {"tool": {"name": "Bash", "input": {"command": "touch x", "description": "Touch x"},
                  "ask": true, "output": "done"}}
    ]}]});
    let mut fake = Setup::new("permission").script(script).start();
    let input = json!({"command": "touch x", "description": "Touch x"});

    // 1: allow, input unchanged.
    fake.user("run it");
    let ask = fake.expect_request("can_use_tool");
    let request = &ask["request"];
    assert_eq!(request["tool_name"], "Bash");
    assert_eq!(request["input"], input);
    assert!(request["tool_use_id"]
        .as_str()
        .unwrap()
        .starts_with("toolu_"));
    assert!(!request["permission_suggestions"]
        .as_array()
        .unwrap()
        .is_empty());
    fake.respond(
        &id_of(&ask),
        json!({"behavior": "allow", "updatedInput": input}),
    );
    let frames = fake.until(is_result);
    let tool_result = frames.iter().find(|f| f["type"] == "user").unwrap();
    let block = &tool_result["message"]["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], request["tool_use_id"]);
    assert_eq!(block["content"], "done");
    assert_eq!(block["is_error"], false);
    let result = frames.last().unwrap();
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["num_turns"], 1, "one API message: text + tool_use");
    assert_eq!(result["permission_denials"], json!([]));

    // 2: allow with a changed input.
    fake.user("again");
    let ask = fake.expect_request("can_use_tool");
    let changed = json!({"command": "touch y"});
    fake.respond(
        &id_of(&ask),
        json!({"behavior": "allow", "updatedInput": changed}),
    );
    let frames = fake.until(is_result);
    let tool_result = frames.iter().find(|f| f["type"] == "user").unwrap();
    assert_eq!(
        tool_result["message"]["content"][0]["content"],
        format!("ran with input: {changed}")
    );

    // 3: deny.
    fake.user("and again");
    let ask = fake.expect_request("can_use_tool");
    let tool_use_id = ask["request"]["tool_use_id"].clone();
    fake.respond(
        &id_of(&ask),
        json!({"behavior": "deny", "message": "host says no"}),
    );
    let frames = fake.until(is_result);
    let tool_result = frames.iter().find(|f| f["type"] == "user").unwrap();
    let block = &tool_result["message"]["content"][0];
    assert_eq!(block["content"], "host says no");
    assert_eq!(block["is_error"], true);
    let result = frames.last().unwrap();
    assert_eq!(result["subtype"], "success");
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": tool_use_id, "tool_input": input}])
    );

    // 4: deny with interrupt ends the turn with an error; the exit code follows it.
    fake.user("last");
    let ask = fake.expect_request("can_use_tool");
    fake.respond(
        &id_of(&ask),
        json!({"behavior": "deny", "message": "stop", "interrupt": true}),
    );
    let result = fake.until(is_result).pop().unwrap();
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    assert_eq!(fake.finish().0, Some(1));
}

#[test]
fn hook_callbacks_round_trip() {
    let script = json!({"turns": [{"steps": [
        {"hook": {"event": "UserPromptSubmit", "input": {"prompt": "{{prompt}}"}}},
        {"tool": {"name": "Write", "input": {"file_path": "a"}, "output": "written"}},
        {"tool": {"name": "Bash", "input": {"command": "rm -rf /"}, "output": "gone"}}
    ]}]});
    let mut fake = Setup::new("hooks").script(script).start();
    let hooks = json!({
        "UserPromptSubmit": [{"matcher": null, "hookCallbackIds": ["hook_0"]}],
        "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_1"], "timeout": 5}]
    });
    let response = initialize(&mut fake, json!({"subtype": "initialize", "hooks": hooks}));
    assert_eq!(response["subtype"], "success");
    fake.user("with hooks");

    let call = fake.expect_request("hook_callback");
    let request = &call["request"];
    assert_eq!(request["callback_id"], "hook_0");
    let input = &request["input"];
    assert_eq!(input["hook_event_name"], "UserPromptSubmit");
    assert_eq!(input["prompt"], "with hooks");
    for key in ["session_id", "transcript_path", "cwd"] {
        assert!(input[key].is_string(), "{key}");
    }
    let answer = json!({"continue": true, "hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit", "additionalContext": "ctx"}});
    fake.respond(&id_of(&call), answer.clone());
    let seen = fake
        .until(|f| kind(f) == ("system", "fake_hook_answer"))
        .pop()
        .unwrap();
    assert_eq!(seen["hook_event"], "UserPromptSubmit");
    assert_eq!(seen["output"], answer);

    // The Write tool does not match "Bash": no hook; the Bash one does and is denied by it.
    let frames = fake.until(|f| is_request(f, "hook_callback"));
    assert!(frames
        .iter()
        .any(|f| f["type"] == "user" && f["message"]["content"][0]["content"] == "written"));
    let call = frames.last().unwrap();
    let input = &call["request"]["input"];
    assert_eq!(call["request"]["callback_id"], "hook_1");
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"], json!({"command": "rm -rf /"}));
    assert_eq!(call["request"]["tool_use_id"], input["tool_use_id"]);
    fake.respond(
        &id_of(call),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "deny", "permissionDecisionReason": "not that"}}),
    );
    let frames = fake.until(is_result);
    assert!(
        !frames.iter().any(|f| is_request(f, "can_use_tool")),
        "a hook deny needs no prompt"
    );
    let block = &frames.iter().find(|f| f["type"] == "user").unwrap()["message"]["content"][0];
    assert_eq!(block["content"], "not that");
    assert_eq!(block["is_error"], true);
    let result = frames.last().unwrap();
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn sdk_mcp_call_sequence() {
    let script = json!({
        "initialize": {"before_response": [{"mcp_initialize": {"server": "calc", "notify": false}}]},
        "turns": [{"steps": [
            {"mcp_call": {"server": "calc", "tool": "add", "arguments": {"a": 2, "b": 3}}},
            {"text": "the sum is 5"}
        ]}]
    });
    let mut fake = Setup::new("mcp").script(script).start();
    fake.request(
        "req_1",
        json!({"subtype": "initialize", "sdkMcpServers": ["calc"]}),
    );
    // 2.1.330 asks before it answers.
    let first = fake.next();
    assert!(is_request(&first, "mcp_message"), "{first}");
    assert_eq!(first["request"]["server_name"], "calc");
    let message = &first["request"]["message"];
    assert_eq!(message["method"], "initialize");
    assert_eq!(message["jsonrpc"], "2.0");
    let rpc_id = message["id"].clone();
    fake.respond(
        &id_of(&first),
        json!({"mcp_response": {"jsonrpc": "2.0", "id": rpc_id, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "calc", "version": "1.0.0"}}}}),
    );
    let response = fake.next();
    assert_eq!(response["type"], "control_response");
    assert_eq!(response["response"]["request_id"], "req_1");

    fake.request("req_2", json!({"subtype": "mcp_status"}));
    let status = fake.next();
    assert_eq!(
        status["response"]["response"]["mcpServers"][0]["name"],
        "calc"
    );

    fake.user("add 2 and 3");
    let frames = fake.until(|f| is_request(f, "mcp_message"));
    let init = &frames[0];
    assert_eq!(
        init["mcp_servers"],
        json!([{"name": "calc", "status": "connected", "source": "sdk"}])
    );
    let tool_use =
        &frames.iter().find(|f| f["type"] == "assistant").unwrap()["message"]["content"][0];
    assert_eq!(tool_use["type"], "tool_use");
    assert_eq!(tool_use["name"], "mcp__calc__add");
    let note = frames.last().unwrap();
    assert_eq!(
        note["request"]["message"],
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    fake.respond(
        &id_of(note),
        json!({"mcp_response": {"jsonrpc": "2.0", "result": {}}}),
    );
    let call = fake.expect_request("mcp_message");
    let message = &call["request"]["message"];
    assert_eq!(message["method"], "tools/call");
    assert_eq!(message["params"]["name"], "add");
    assert_eq!(message["params"]["arguments"], json!({"a": 2, "b": 3}));
    assert_eq!(
        message["params"]["_meta"]["claudecode/toolUseId"],
        tool_use["id"]
    );
    let content = json!([{"type": "text", "text": "5"}]);
    fake.respond(
        &id_of(&call),
        json!({"mcp_response": {"jsonrpc": "2.0", "id": message["id"],
               "result": {"content": content}}}),
    );
    let frames = fake.until(is_result);
    let block = &frames[0]["message"]["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], tool_use["id"]);
    assert_eq!(block["content"], content);
    assert_eq!(frames.last().unwrap()["result"], "the sum is 5");
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn interrupt_during_stream() {
    let script = json!({"turns": [
        {"steps": [{"stream": {"text": "one two three four five six", "deltas": 6,
                               "delay_ms": 150}}]},
        {"steps": [{"stream": {"text": "after", "deltas": 2}}]}
    ]});
    let mut fake = Setup::new("interrupt").script(script).start();
    fake.user("be slow");
    let frames = fake.until(|f| f["event"]["type"] == "content_block_delta");
    let kinds: Vec<_> = frames.iter().map(|f| f["event"]["type"].clone()).collect();
    assert_eq!(
        kinds[1..],
        [
            json!("message_start"),
            json!("content_block_start"),
            json!("content_block_delta")
        ]
    );
    fake.request("req_i", json!({"subtype": "interrupt"}));
    let frames = fake.until(is_result);
    let ack = frames
        .iter()
        .find(|f| f["type"] == "control_response")
        .unwrap();
    assert_eq!(ack["response"]["request_id"], "req_i");
    assert_eq!(ack["response"]["response"], json!({"still_queued": []}));
    assert!(frames.iter().any(|f| f["type"] == "user"
        && f["message"]["content"][0]["text"] == "[Request interrupted by user]"));
    let result = frames.last().unwrap();
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    assert_eq!(result["is_error"], true);
    let deltas = frames
        .iter()
        .filter(|f| f["event"]["type"] == "content_block_delta")
        .count();
    assert!(
        deltas < 5,
        "the stream stopped early ({deltas} more deltas)"
    );

    fake.user("next");
    let frames = fake.until(is_result);
    let assistant = frames.iter().find(|f| f["type"] == "assistant").unwrap();
    assert_eq!(assistant["message"]["content"][0]["text"], "after");
    assert_eq!(frames.last().unwrap()["subtype"], "success");
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn crash_mid_turn_and_at_initialize() {
    let script = json!({"turns": [{"steps": [
        {"text": "before"},
        {"crash": {"code": 3, "stderr": "boom"}},
        {"text": "never"}
    ]}]});
    let mut fake = Setup::new("crash").script(script).start();
    fake.user("go");
    let frames = fake.until(|f| f["type"] == "assistant");
    assert_eq!(
        frames.last().unwrap()["message"]["content"][0]["text"],
        "before"
    );
    let (code, stderr) = fake.finish();
    assert_eq!(code, Some(3));
    assert!(stderr.contains("boom"), "{stderr}");

    let script = json!({"exit_at_initialize": {"code": 2, "stderr": "bad flag"}});
    let mut fake = Setup::new("crash-init").script(script).start();
    fake.request("req_1", json!({"subtype": "initialize"}));
    let (code, stderr) = fake.finish();
    assert_eq!(code, Some(2));
    assert!(stderr.contains("bad flag"));
}

#[test]
fn flood_writes_every_frame() {
    let script = json!({"turns": [{"steps": [
        {"flood": {"stream_events": 100_000, "assistants": 1000}}
    ]}]});
    let mut fake = Setup::new("flood").script(script).start();
    fake.user("flood");
    let (mut events, mut assistants) = (0, 0);
    loop {
        let line = fake.line();
        if line.contains(r#""type":"stream_event""#) {
            events += 1;
        } else if line.contains(r#""type":"assistant""#) {
            assistants += 1;
        } else if line.contains(r#""type":"result""#) {
            break;
        }
    }
    assert_eq!((events, assistants), (100_000, 1000));
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn oversized_line_has_the_exact_length() {
    let bytes = 3 * 1024 * 1024 + 7;
    let script = json!({"turns": [{"steps": [{"oversized": {"bytes": bytes}}]}]});
    let mut fake = Setup::new("oversized").script(script).start();
    fake.user("big");
    let _init = fake.next();
    let line = fake.line();
    assert_eq!(line.len(), bytes);
    let frame: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(frame["type"], "assistant");
    assert!(
        frame["message"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .len()
            > bytes - 1000
    );
    assert!(is_result(&fake.next()));
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn record_file_captures_argv_env_and_input() {
    let record = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("fake-claude-record-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&record);
    let mut fake = Setup::new("record")
        .env("TWINWIRE_FAKE_RECORD", record.to_string_lossy())
        .env("TWINWIRE_TEST_MARKER", "marker-value")
        .start();
    let dir = fake.dir.clone();
    initialize(&mut fake, json!({"subtype": "initialize"}));
    fake.user("recorded");
    fake.until(is_result);
    fake.respond("no-such-request", json!({}));
    fake.send(json!({"type": "keep_alive"}));
    assert_eq!(fake.finish().0, Some(0));

    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = &lines[0];
    let argv = start["argv"].as_array().unwrap();
    assert!(argv[0].as_str().unwrap().ends_with("fake-claude"));
    assert_eq!(
        argv[1..],
        [
            json!("--output-format"),
            json!("stream-json"),
            json!("--input-format"),
            json!("stream-json"),
            json!("--verbose")
        ]
    );
    assert_eq!(start["env"]["TWINWIRE_TEST_MARKER"], "marker-value");
    assert_eq!(
        PathBuf::from(start["cwd"].as_str().unwrap()),
        dir.canonicalize().unwrap()
    );
    let inputs: Vec<&Value> = lines.iter().filter_map(|l| l.get("in")).collect();
    let kinds: Vec<_> = inputs.iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["control_request", "user", "control_response", "keep_alive"]
    );
    assert_eq!(inputs[1]["message"]["content"][0]["text"], "recorded");
    assert!(lines
        .iter()
        .any(|l| l["ignored_response"]["response"]["request_id"] == "no-such-request"));
}

#[test]
fn session_state_and_background_steps() {
    let script = json!({"turns": [{"steps": [
        {"text": "foreground"},
        {"background": {"delay_ms": 100, "steps": [
            {"request": {"subtype": "elicitation", "message": "late?"}}
        ]}}
    ]}]});
    let mut fake = Setup::new("background")
        .script(script)
        .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")
        .start();
    fake.user("go");
    let frames = fake.until(is_result);
    assert_eq!(
        kind(&frames[0]),
        ("system", "session_state_changed"),
        "{}",
        frames[0]
    );
    assert_eq!(frames[0]["state"], "running");
    // The background request comes after the result, and idle only after it is answered.
    let late = fake.next();
    assert!(is_request(&late, "elicitation"), "{late}");
    fake.respond(&id_of(&late), json!({"action": "accept"}));
    let observed = fake.next();
    assert_eq!(kind(&observed), ("system", "fake_observed"));
    assert_eq!(
        observed["response"]["response"],
        json!({"action": "accept"})
    );
    let idle = fake.next();
    assert_eq!(kind(&idle), ("system", "session_state_changed"));
    assert_eq!(idle["state"], "idle");
    assert_eq!(fake.finish().0, Some(0));
}

#[test]
fn scripted_request_answers_and_odd_output() {
    let script = json!({
        "requests": {
            "set_model": {"respond": "duplicate"},
            "mcp_status": {"respond": "never"},
            "get_context_usage": {"respond": "error", "error": "nope"},
            "interrupt": {"respond": "wrong_id"}
        },
        "turns": [{"steps": [
            {"garbage": "[SandboxDebug] not json"},
            {"emit": {"type": "rate_limit_event", "x": 1}},
            {"stderr_flood": {"bytes": 300_000}},
            {"cancel_after_ms": {"ms": 50, "request": {"subtype": "can_use_tool",
                                 "tool_name": "Bash", "input": {}}}},
            {"text": "done"}
        ]}]
    });
    let mut fake = Setup::new("odd").script(script).start();
    fake.request("a", json!({"subtype": "set_model", "model": "m"}));
    assert_eq!(fake.next()["response"]["request_id"], "a");
    assert_eq!(fake.next()["response"]["request_id"], "a");
    fake.request("b", json!({"subtype": "mcp_status"}));
    fake.request("c", json!({"subtype": "get_context_usage"}));
    let error = fake.next();
    assert_eq!(error["response"]["request_id"], "c", "b is never answered");
    assert_eq!(error["response"]["error"], "nope");
    fake.request("d", json!({"subtype": "interrupt"}));
    assert_eq!(fake.next()["response"]["request_id"], "d-wrong");

    fake.user("odd");
    assert_eq!(kind(&fake.next()), ("system", "init"));
    assert_eq!(fake.line(), "[SandboxDebug] not json");
    assert_eq!(fake.next()["type"], "rate_limit_event");
    let ask = fake.next();
    assert!(is_request(&ask, "can_use_tool"));
    let cancel = fake.next();
    assert_eq!(
        cancel,
        json!({"type": "control_cancel_request", "request_id": ask["request_id"]})
    );
    let observed = fake.next();
    assert_eq!(observed["cancelled"], true);
    assert_eq!(observed["outcome"], "timeout");
    let frames = fake.until(is_result);
    assert_eq!(frames.last().unwrap()["result"], "done");
    let (code, stderr) = fake.finish();
    assert_eq!(code, Some(0));
    assert!(stderr.len() >= 300_000);
}

#[test]
fn hang_stops_everything() {
    let script = json!({"turns": [{"steps": [{"text": "about to hang"}, {"hang": true}]}]});
    let mut fake = Setup::new("hang").script(script).start();
    fake.user("go");
    fake.until(|f| f["type"] == "assistant");
    // The hang step follows the assistant frame at once; give it a moment to start.
    std::thread::sleep(Duration::from_millis(200));
    fake.request("x", json!({"subtype": "interrupt"}));
    assert!(
        fake.stdout
            .recv_timeout(Duration::from_millis(300))
            .is_err(),
        "a hung fake writes nothing"
    );
    fake.close_stdin();
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        fake.child.try_wait().unwrap().is_none(),
        "still running after stdin closed"
    );
    // Drop kills it.
}

#[test]
fn every_line_starts_with_its_type() {
    let script = json!({
        "auto_hooks": true,
        "requests": {"set_model": {"respond": "duplicate"}, "mcp_status": {"respond": "wrong_id"}},
        "initialize": {"before_response": [{"mcp_initialize": {"server": "calc", "notify": false}}]},
        "turns": [{"steps": [
            {"text": "hello"},
            {"stream": {"text": "one two", "deltas": 2}},
            {"tool": {"name": "Bash", "input": {"command": "touch x"}, "ask": true, "output": "ok"}},
            {"hook": {"event": "Notification"}},
            {"request": {"subtype": "elicitation", "message": "?"}},
            {"cancel_after_ms": {"ms": 30, "request": {"subtype": "can_use_tool",
                                 "tool_name": "Bash", "input": {}}, "grace_ms": 10}},
            {"emit": {"x": 1, "type": "rate_limit_event"}},
            {"control_response": {"subtype": "success", "request_id": "nobody"}},
            {"flood": {"stream_events": 50, "assistants": 2}},
            {"oversized": {"bytes": 5000}},
            {"background": {"delay_ms": 10, "steps": [{"text": "late"}]}},
            {"result": {"subtype": "error_max_turns"}}
        ]}]
    });
    let mut fake = Setup::new("type-first")
        .script(script)
        .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")
        .start();
    let hooks = json!({"UserPromptSubmit": [{"matcher": null, "hookCallbackIds": ["h0"]}],
                       "PreToolUse": [{"matcher": null, "hookCallbackIds": ["h1"]}],
                       "Notification": [{"matcher": null, "hookCallbackIds": ["h2"]}]});
    fake.request(
        "init",
        json!({"subtype": "initialize", "hooks": hooks, "sdkMcpServers": ["calc"]}),
    );
    let mut lines = Vec::new();
    let next = |fake: &harness::Fake, lines: &mut Vec<String>| {
        let line = fake.line();
        lines.push(line.clone());
        serde_json::from_str::<Value>(&line).unwrap()
    };
    let mcp = next(&fake, &mut lines);
    fake.respond(
        &id_of(&mcp),
        json!({"mcp_response": {"jsonrpc": "2.0", "result": {}}}),
    );
    assert_eq!(next(&fake, &mut lines)["response"]["request_id"], "init");
    for (id, subtype) in [
        ("a", "set_model"),
        ("b", "mcp_status"),
        ("c", "interrupt"),
        ("d", "nope"),
    ] {
        fake.request(id, json!({"subtype": subtype}));
    }
    for _ in 0..5 {
        next(&fake, &mut lines);
    }
    fake.request(
        "e",
        json!({"subtype": "set_permission_mode", "mode": "default"}),
    );
    next(&fake, &mut lines);
    next(&fake, &mut lines);
    fake.user("go");
    let mut results = 0;
    while results == 0 {
        let frame = next(&fake, &mut lines);
        if frame["type"] == "control_request" {
            let payload = match frame["request"]["subtype"].as_str().unwrap() {
                "can_use_tool" if frame["request"]["input"] == json!({}) => continue,
                "can_use_tool" => {
                    json!({"behavior": "allow", "updatedInput": {"command": "touch x"}})
                }
                "elicitation" => json!({"action": "decline"}),
                _ => json!({}),
            };
            fake.respond(&id_of(&frame), payload);
        }
        results += usize::from(frame["type"] == "result");
    }
    // The background step and the idle state come after the result.
    while !lines.last().unwrap().contains(r#""state":"idle""#) {
        next(&fake, &mut lines);
    }
    assert_eq!(fake.finish().0, Some(1));
    let mut kinds = std::collections::BTreeSet::new();
    for line in &lines {
        assert!(line.starts_with(r#"{"type":""#), "{line}");
        // Nested objects too (stream events, deltas, content blocks), as the CLI writes them.
        for (at, _) in line.match_indices(r#""type":"#) {
            assert_eq!(
                &line[at - 1..at],
                "{",
                "`type` is not first at {at}: {line}"
            );
        }
        let frame: Value = serde_json::from_str(line).unwrap();
        kinds.insert(frame["type"].as_str().unwrap().to_owned());
        if frame["type"] == "system" {
            let subtype = format!(
                r#"{{"type":"system","subtype":"{}""#,
                frame["subtype"].as_str().unwrap()
            );
            assert!(line.starts_with(&subtype), "{line}");
        }
    }
    for kind in [
        "assistant",
        "control_cancel_request",
        "control_request",
        "control_response",
        "rate_limit_event",
        "result",
        "stream_event",
        "system",
        "user",
    ] {
        assert!(kinds.contains(kind), "no {kind} line in {kinds:?}");
    }
}
