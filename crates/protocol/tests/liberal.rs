//! The liberal reader on the frames that the official TypeScript SDK accepts without complaint
//! but a strict schema rejects: each is read, typed where it can be, and nothing in it is lost.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use twinwire_protocol::content::ContentBlock;
use twinwire_protocol::control::{ControlRequestBody, InitializeResponse, RequestId};
use twinwire_protocol::permission::PermissionMode;
use twinwire_protocol::system::SystemMessage;
use twinwire_protocol::{from_value, InputMessage, Message, RepairAction};

fn read(line: &str) -> Message {
    Message::from_json(line).unwrap_or_else(|err| panic!("{line}: {err}"))
}

fn result_of(line: &str) -> twinwire_protocol::result::ResultMessage {
    match read(line) {
        Message::Result(result) => *result,
        other => panic!("{line}: read as {other:?}"),
    }
}

#[test]
fn partial_initialize_responses_are_typed() {
    for payload in [
        json!({"commands": [], "models": [], "account": {}}),
        json!({}),
        json!({"commands": [], "account": null}),
        json!({"output_style": 5, "models": "none"}),
    ] {
        let decoded = from_value::<InitializeResponse>(payload.clone())
            .unwrap_or_else(|err| panic!("{payload}: {err}"));
        assert!(decoded.value.commands.is_empty(), "{payload}");
    }
    let decoded = from_value::<InitializeResponse>(json!({"output_style": 5})).unwrap();
    assert_eq!(decoded.value.output_style, "5");
    assert!(matches!(
        decoded.repairs[0].action,
        RepairAction::Replaced(Value::String(_))
    ));
}

#[test]
fn results_with_odd_fields_still_end_the_turn() {
    let base = r#""type":"result","subtype":"success","is_error":false"#;
    for (odd, check) in [
        (r#""total_cost_usd":"0.25""#, 0.25),
        (r#""total_cost_usd":null"#, 0.0),
        (r#""total_cost_usd":0.5,"duration_ms":10.0"#, 0.5),
        (
            r#""total_cost_usd":1,"num_turns":18446744073709551616"#,
            1.0,
        ),
        (r#""total_cost_usd":2,"usage":null,"modelUsage":"n/a""#, 2.0),
        (r#""total_cost_usd":3,"session_id":7"#, 3.0),
        (r#""total_cost_usd":4,"total_cost_usd":5"#, 5.0),
    ] {
        let line = format!("{{{base},{odd}}}");
        let result = result_of(&line);
        assert_eq!(result.total_cost_usd, check, "{line}");
        assert_eq!(read(&line).result_is_error(), Some(false), "{line}");
    }
    assert_eq!(
        result_of(&format!("{{{base},\"duration_ms\":10.0}}")).duration_ms,
        10
    );
    assert_eq!(
        result_of(&format!("{{{base},\"session_id\":7}}")).session_id,
        "7"
    );
    let bare = result_of(r#"{"type":"result","subtype":"success","is_error":true}"#);
    assert!(bare.is_error);
    assert!(bare.session_id.is_empty());
}

#[test]
fn odd_parts_of_known_kinds_are_delivered() {
    let Message::Assistant(reply) = read(
        r#"{"type":"assistant","message":{"id":"m","role":"assistant","content":"plain text"},"session_id":"s"}"#,
    ) else {
        panic!("not an assistant frame")
    };
    assert_eq!(reply.message.text(), "plain text");

    let Message::Assistant(empty) = read(r#"{"type":"assistant","session_id":"s","uuid":"u"}"#)
    else {
        panic!("not an assistant frame")
    };
    assert!(empty.message.content.is_empty());

    let Message::Assistant(reply) = read(
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":null},{"text":"no type"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}"#,
    ) else {
        panic!("not an assistant frame")
    };
    let blocks = &reply.message.content;
    assert!(matches!(&blocks[0], ContentBlock::Text(text) if text.text.is_empty()));
    let malformed = blocks[1]
        .as_malformed()
        .expect("a block without a type is kept raw");
    assert_eq!(malformed.raw, json!({"text": "no type"}));
    assert!(matches!(&blocks[2], ContentBlock::ToolUse(_)));

    let Message::System(system) = read(
        r#"{"type":"system","subtype":"init","tools":null,"permissionMode":"yolo","session_id":"s"}"#,
    ) else {
        panic!("not a system frame")
    };
    let SystemMessage::Init(init) = *system else {
        panic!("not init: {system:?}")
    };
    assert!(init.tools.is_empty());
    assert_eq!(init.permission_mode, PermissionMode::Other("yolo".into()));
}

#[test]
fn numeric_request_ids_are_read_and_kept_numeric() {
    let line = r#"{"type":"control_request","request_id":42,"request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}"#;
    let Message::ControlRequest(request) = read(line) else {
        panic!("not a control request")
    };
    assert_eq!(request.request_id, RequestId::from(42));
    assert!(matches!(request.request, ControlRequestBody::CanUseTool(_)));
    let written = serde_json::to_value(&request).unwrap();
    assert_eq!(written["request_id"], json!(42));
}

#[test]
fn frames_without_a_route_are_malformed_not_lost() {
    let message = read(r#"{"type":"control_request","request":{"subtype":"interrupt"}}"#);
    let malformed = message.as_malformed().expect("no request_id: malformed");
    assert_eq!(message.kind(), "control_request/interrupt");
    assert!(malformed.message.contains("request_id"), "{malformed}");
    assert_eq!(
        message.to_value(),
        json!({"type":"control_request","request":{"subtype":"interrupt"}})
    );
    let untyped = read(r#"{"hello":"world"}"#);
    assert_eq!(untyped.kind(), "?");
    assert!(Message::from_json("[1,2]").is_err());
    assert!(Message::from_json("not json").is_err());
    let input = InputMessage::from_json(r#"{"type":"control_request","request_id":1,"request":{"subtype":"initialize","hooks":"none"}}"#).unwrap();
    assert_eq!(input.kind(), "control_request/initialize");
}

/// The decode policy, checked on the strict (fast) path for every kind this version knows: a
/// frame that carries only its routing fields reads as a typed value, so no field but those
/// that route is required. (Union-typed payloads with no sensible default are the exceptions,
/// listed here; on the lenient path they are kept raw, see `odd_parts_of_known_kinds_are_delivered`.)
#[test]
fn only_routing_fields_are_required() {
    use twinwire_protocol::content::ContentBlock;
    use twinwire_protocol::control::ControlRequestBody;
    use twinwire_protocol::hooks::{HookInput, HookSpecificOutput};
    use twinwire_protocol::permission::{PermissionResult, PermissionUpdate};
    use twinwire_protocol::stream::StreamEvent;
    use twinwire_protocol::system::SystemMessage;

    fn minimal<T: serde::de::DeserializeOwned>(
        what: &str,
        field: &str,
        tags: &[&str],
        except: &[&str],
    ) {
        for tag in tags.iter().filter(|tag| !except.contains(tag)) {
            let value = json!({ field: tag });
            if let Err(err) = serde_json::from_value::<T>(value) {
                panic!("{what} `{tag}` with only `{field}` did not read: {err}");
            }
        }
    }
    minimal::<ContentBlock>(
        "content block",
        "type",
        ContentBlock::KNOWN_TAGS,
        &[
            // Their `content` is itself a union of result shapes.
            "web_search_tool_result",
            "web_fetch_tool_result",
            "code_execution_tool_result",
            "bash_code_execution_tool_result",
            // Their `source` is a union of source shapes.
            "image",
            "document",
        ],
    );
    minimal::<StreamEvent>(
        "stream event",
        "type",
        StreamEvent::KNOWN_TAGS,
        &["content_block_start", "content_block_delta"],
    );
    minimal::<SystemMessage>("system message", "subtype", SystemMessage::KNOWN_TAGS, &[]);
    minimal::<ControlRequestBody>(
        "control request",
        "subtype",
        ControlRequestBody::KNOWN_TAGS,
        &["hook_callback"],
    );
    minimal::<HookInput>("hook input", "hook_event_name", HookInput::KNOWN_TAGS, &[]);
    minimal::<HookSpecificOutput>(
        "hook output",
        "hookEventName",
        HookSpecificOutput::KNOWN_TAGS,
        &[],
    );
    minimal::<PermissionUpdate>(
        "permission update",
        "type",
        PermissionUpdate::KNOWN_TAGS,
        &[],
    );
    minimal::<PermissionResult>(
        "permission result",
        "behavior",
        PermissionResult::KNOWN_TAGS,
        &[],
    );
    minimal::<Message>(
        "message",
        "type",
        Message::KNOWN_TAGS,
        &[
            // Routed by their ids and subtypes.
            "control_request",
            "control_response",
            "control_cancel_request",
            "system",
            // The event is the frame.
            "stream_event",
        ],
    );
    minimal::<InputMessage>(
        "input message",
        "type",
        InputMessage::KNOWN_TAGS,
        &[
            "control_request",
            "control_response",
            "control_cancel_request",
        ],
    );
    // Every typed control response reads from an empty payload, but the two that are unions
    // (a permission decision needs its `behavior`).
    let unions = ["can_use_tool", "request_user_dialog"];
    for subtype in ControlRequestBody::KNOWN_TAGS
        .iter()
        .filter(|s| !unions.contains(s))
    {
        if let Some(read) = twinwire_protocol::control::reencode_response(subtype, &json!({})) {
            read.unwrap_or_else(|err| panic!("`{subtype}` response from {{}}: {err}"));
        }
    }
}

#[test]
fn a_repeated_tag_is_read_as_json_parse_reads_it_the_last_one_wins() {
    // Found by the fuzzer: the first tag used to pick the variant while the raw JSON kept the
    // last, and a known variant wrote the second tag back from its extra fields.
    let cases = [
        (
            r#"{"type":"result","subtype":"success","is_error":false,"type":"result"}"#,
            "result/success",
        ),
        (
            r#"{"type":"bogus","subtype":"success","is_error":false,"type":"result"}"#,
            "result/success",
        ),
        (
            r#"{"type":"result","subtype":"success","is_error":false,"type":"bogus"}"#,
            "bogus",
        ),
    ];
    for (line, kind) in cases {
        let message = read(line);
        assert_eq!(message.kind(), kind, "{line}");
        let written = serde_json::to_string(&message).unwrap();
        assert_eq!(written.matches("\"type\"").count(), 1, "{written}");
        assert_eq!(read(&written), message, "{written}");
    }
    let input = r#"{"type":"control_request","request_id":"r","request":{"subtype":"interrupt"},"type":"keep_alive"}"#;
    let decoded = InputMessage::decode(input).unwrap().value;
    assert!(matches!(decoded, InputMessage::KeepAlive(_)), "{decoded:?}");
}
