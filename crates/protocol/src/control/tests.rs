//! Control-plane tests against the recorded transcripts and small hand-written frames.

use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

use super::kinds::reencode_response;
use super::*;
use crate::hooks::ElicitationAction;

/// `msg` without its outer `type`.
fn without_type(msg: &Value) -> Value {
    let mut object = msg.as_object().expect("frame is an object").clone();
    object.remove("type");
    Value::Object(object)
}

fn roundtrip<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value, what: &str) -> T {
    let parsed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{what}: does not parse: {e}\n{value}"));
    let back = serde_json::to_value(&parsed).expect("serializes");
    assert_eq!(&back, value, "{what}: round trip differs");
    parsed
}

#[test]
fn every_transcript_control_frame_round_trips() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for path in crate::test_fixtures::files() {
        let file = crate::test_fixtures::short_name(&path);
        let mut subtypes: HashMap<RequestId, String> = HashMap::new();
        for msg in crate::test_fixtures::of_file(&file).map(|f| &f.msg) {
            let kind = msg.get("type").and_then(Value::as_str).unwrap_or("");
            let body = without_type(msg);
            match kind {
                "control_request" => {
                    let request: ControlRequest = roundtrip(&body, &file);
                    let tag = request.request.tag().to_owned();
                    // The deliberate probe, and `claim_session`, which the CLI's schema marks
                    // internal: the pool sends it as it is.
                    if tag == "definitely_not_a_subtype" || tag == "claim_session" {
                        assert!(request.request.as_unknown().is_some(), "{file}");
                        assert_eq!(request.request.direction(), None);
                    } else {
                        assert!(request.request.as_unknown().is_none(), "{file}: {tag}");
                        assert!(request.request.direction().is_some());
                    }
                    match &request.request {
                        ControlRequestBody::HookCallback(hook) => {
                            assert!(hook.input.as_unknown().is_none(), "{file}: hook input");
                        }
                        ControlRequestBody::CanUseTool(ask) => {
                            for update in ask.permission_suggestions.iter().flatten() {
                                assert!(update.as_unknown().is_none(), "{file}: suggestion");
                            }
                        }
                        _ => {}
                    }
                    *counts.entry(format!("request {tag}")).or_default() += 1;
                    subtypes.insert(request.request_id, tag);
                }
                "control_response" => {
                    let response: ControlResponse = roundtrip(&body, &file);
                    let id = response.request_id().expect("request_id").to_owned();
                    let subtype = subtypes.get(&id).cloned().unwrap_or_default();
                    match &response.response {
                        ControlResponseBody::Success(success) => {
                            *counts.entry(format!("success {subtype}")).or_default() += 1;
                            // `claim_session`'s answer is read by the pool, field by field.
                            if subtype == "claim_session" {
                                continue;
                            }
                            if let Some(payload) = &success.response {
                                let again = reencode_response(&subtype, payload)
                                    .unwrap_or_else(|| panic!("{file}: no kind for {subtype}"))
                                    .unwrap_or_else(|e| {
                                        panic!("{file}: {subtype} payload: {e}\n{payload}")
                                    });
                                assert_eq!(&again, payload, "{file}: {subtype} payload");
                                *counts.entry(format!("typed {subtype}")).or_default() += 1;
                            }
                        }
                        ControlResponseBody::Error(error) => {
                            // Refusals: an unknown subtype (and, on older CLIs, subtypes
                            // they do not have yet), an unknown server, resource or task.
                            assert!(!error.error.is_empty(), "{file}: {subtype}");
                            if subtype == "definitely_not_a_subtype" {
                                assert!(error.error.contains("definitely_not_a_subtype"));
                            }
                            *counts.entry(format!("error {subtype}")).or_default() += 1;
                        }
                        ControlResponseBody::Unknown(_) | ControlResponseBody::Malformed(_) => {
                            panic!("{file}: response not typed: {response:?}")
                        }
                    }
                }
                "control_cancel_request" => {
                    roundtrip::<ControlCancelRequest>(&body, &file);
                    *counts.entry("cancel".to_owned()).or_default() += 1;
                }
                _ => {}
            }
        }
    }
    for key in [
        "request initialize",
        "request can_use_tool",
        "request hook_callback",
        "request mcp_message",
        "request set_model",
        "request set_permission_mode",
        "request mcp_status",
        "request get_context_usage",
        "request interrupt",
        "request definitely_not_a_subtype",
        "typed initialize",
        "typed can_use_tool",
        "typed hook_callback",
        "typed mcp_message",
        "typed get_context_usage",
        "typed mcp_status",
        "typed interrupt",
        "typed set_model",
        "typed set_permission_mode",
        "error definitely_not_a_subtype",
    ] {
        assert!(
            counts.contains_key(key),
            "no `{key}` frame seen: {counts:?}"
        );
    }
}

#[test]
fn initialize_response_is_typed() {
    let msg = crate::test_fixtures::of_file("claude-2.1.330/basics.a_text_turn.jsonl")
        .map(|f| &f.msg)
        .find(|m| m["type"] == "control_response")
        .expect("initialize response");
    let response: ControlResponse = roundtrip(&without_type(msg), "initialize");
    let ControlResponseBody::Success(success) = &response.response else {
        panic!("not a success");
    };
    assert_eq!(success.pending_permission_requests, Some(vec![]));
    let init = success
        .parse_response::<InitializeRequest>()
        .expect("typed");
    assert!(!init.commands.is_empty());
    assert_eq!(init.output_style, "default");
    assert_eq!(init.claude_code_version.as_deref(), Some("2.1.330"));
    assert_eq!(init.fast_mode_state, Some(FastModeState::Off));
    assert_eq!(
        init.account.api_provider,
        Some(ApiProvider::FirstParty),
        "account"
    );
    assert!(init.models.iter().any(|m| m.value == "haiku"));
    assert!(init.pid.is_some());
}

#[test]
fn unknown_subtype_is_kept_whole() {
    let frame = json!({"request_id": "req_8", "request": {"subtype": "brand_new", "x": [1, 2]}});
    let request: ControlRequest = roundtrip(&frame, "unknown");
    let unknown = request.request.as_unknown().expect("unknown");
    assert_eq!(unknown.tag, "brand_new");
    assert_eq!(request.request.direction(), None);

    let frame = json!({"response": {"subtype": "partial", "request_id": "r1", "n": 1}});
    let response: ControlResponse = roundtrip(&frame, "unknown response");
    assert!(response.response.as_unknown().is_some());
    assert_eq!(response.request_id(), Some(RequestId::from("r1")));
}

#[test]
fn broken_known_request_is_repaired_or_names_the_field() {
    // Only the routing fields are required: a `can_use_tool` without its tool name reads.
    let frame = json!({
        "request_id": "r",
        "request": {"subtype": "can_use_tool", "input": {}, "tool_use_id": "t"}
    });
    let request: ControlRequest = serde_json::from_value(frame).unwrap();
    assert!(
        matches!(&request.request, ControlRequestBody::CanUseTool(c) if c.tool_name.is_empty())
    );
    // Without its request_id a request cannot be answered: that is an error that names it.
    let frame = json!({"request": {"subtype": "interrupt"}});
    let error = serde_json::from_value::<ControlRequest>(frame).expect_err("must fail");
    assert!(error.to_string().contains("request_id"), "{error}");
    let frame = json!({"response": {"subtype": "error", "request_id": "r"}});
    let response: ControlResponse = serde_json::from_value(frame).unwrap();
    assert!(matches!(&response.response, ControlResponseBody::Error(e) if e.error.is_empty()));
}

#[test]
fn success_payload_absent_or_empty_round_trips() {
    let bare = json!({"response": {"subtype": "success", "request_id": "a"}});
    let parsed: ControlResponse = roundtrip(&bare, "bare");
    let ControlResponseBody::Success(success) = &parsed.response else {
        panic!("not a success");
    };
    assert_eq!(success.response, None);
    let interrupt = success.parse_response::<InterruptRequest>().expect("empty");
    assert_eq!(interrupt.still_queued, None);

    let empty = json!({"response": {"subtype": "success", "request_id": "a", "response": {}}});
    let parsed: ControlResponse = roundtrip(&empty, "empty");
    assert_ne!(serde_json::to_value(&parsed).ok(), Some(bare));
}

#[test]
fn every_subtype_has_a_kind() {
    for tag in ControlRequestBody::KNOWN_TAGS {
        assert!(
            reencode_response(tag, &json!({})).is_some(),
            "{tag} has no ControlRequestKind"
        );
    }
    assert_eq!(InterruptRequest::SUBTYPE, "interrupt");
    assert_eq!(McpReadResourceRequest::SUBTYPE, "mcp_read_resource");
}

#[test]
fn built_requests_serialize_as_on_the_wire() {
    let reset = ControlRequest::new(
        "req_1",
        SetModelRequest {
            model: Some(None),
            ..SetModelRequest::default()
        },
    );
    assert_eq!(
        serde_json::to_value(&reset).ok(),
        Some(json!({"request_id": "req_1", "request": {"subtype": "set_model", "model": null}}))
    );
    let toggle = ControlRequest::new(
        "req_2",
        McpToggleRequest {
            server_name: "calc".into(),
            enabled: false,
            ..McpToggleRequest::default()
        },
    );
    assert_eq!(
        serde_json::to_value(&toggle).ok(),
        Some(json!({
            "request_id": "req_2",
            "request": {"subtype": "mcp_toggle", "serverName": "calc", "enabled": false}
        }))
    );
    let answer = ControlResponse::error("req_2", "nope");
    assert_eq!(
        serde_json::to_value(&answer).ok(),
        Some(json!({"response": {"subtype": "error", "request_id": "req_2", "error": "nope"}}))
    );
}

#[test]
fn directions() {
    let cli: ControlRequestBody = ElicitationRequest::default().into();
    assert_eq!(cli.direction(), Some(Direction::CliToHost));
    let host: ControlRequestBody = StopTaskRequest::default().into();
    assert_eq!(host.direction(), Some(Direction::HostToCli));
}

#[test]
fn user_dialog_and_elicitation_answers() {
    let done = json!({"behavior": "completed", "result": {"choice": 2}});
    let parsed: UserDialogResponse = roundtrip(&done, "dialog");
    assert!(matches!(parsed, UserDialogResponse::Completed(_)));
    let cancelled: UserDialogResponse = roundtrip(&json!({"behavior": "cancelled"}), "dialog");
    assert!(matches!(cancelled, UserDialogResponse::Cancelled(_)));

    let accept = json!({"action": "accept", "content": {"name": "x"}});
    let parsed: ElicitationResponse = roundtrip(&accept, "elicitation");
    assert_eq!(parsed.action, ElicitationAction::Accept);
}

#[test]
fn an_mcp_permission_mode_override_is_set_and_cleared() {
    let set = json!({"subtype": "set_mcp_permission_mode_override", "serverName": "notes",
        "mode": "default"});
    let body: ControlRequestBody = serde_json::from_value(set.clone()).unwrap();
    let ControlRequestBody::SetMcpPermissionModeOverride(request) = &body else {
        panic!("not typed: {body:?}");
    };
    assert_eq!(request.mode, Some(McpPermissionModeOverride::Default));
    assert_eq!(body.direction(), Some(Direction::HostToCli));
    assert_eq!(serde_json::to_value(&body).unwrap(), set);
    // Clearing writes `"mode": null`, which the CLI reads as "no override".
    let clear: ControlRequestBody = SetMcpPermissionModeOverrideRequest {
        server_name: "notes".into(),
        mode: None,
        ..Default::default()
    }
    .into();
    assert_eq!(
        serde_json::to_value(&clear).unwrap(),
        json!({"subtype": "set_mcp_permission_mode_override", "serverName": "notes",
            "mode": null})
    );
    let warned: SetMcpPermissionModeOverrideResponse = roundtrip(
        &json!({"warning": "no MCP server named nottes"}),
        "override",
    );
    assert!(warned.warning.is_some());
    let mode: SetPermissionModeResponse = roundtrip(&json!({"mode": "plan"}), "mode");
    assert_eq!(mode.mode, Some(crate::permission::PermissionMode::Plan));
}
