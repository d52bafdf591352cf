//! twinwire against the official Python SDK's recorded run.

use serde_json::{json, Value};
use twinwire_protocol::hooks::HookMatchers;

use super::{apply_env, args, initialize_json, pairs};
use crate::host::options::Options;
use crate::mcp::SdkMcpServer;
use twinwire_protocol::permission::PermissionMode;

/// The official Python SDK's run of the peers scenario `mcp` (recorded by `cargo xtask record`
/// through `twinwire tap`) used `system_prompt=""` (its default), `permission_mode="default"`,
/// one SDK MCP server `calc` and `allowed_tools=["mcp__calc__add"]`. Our argv must carry the
/// same flags, except the two that twinwire (like the TypeScript SDK) sends in `initialize`:
/// `--system-prompt` (→ `systemPrompt`) and the SDK server in `--mcp-config` (→
/// `sdkMcpServers`). The `initialize` request must equal Python's plus those two fields.
#[test]
fn argv_matches_the_python_sdk_reference_run() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts/claude-2.1.330/peers.python.mcp.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the recorded Python SDK run");
    let mut lines = text.lines();
    let meta: Value = serde_json::from_str(lines.next().expect("meta line")).expect("json");
    let python_argv: Vec<String> =
        serde_json::from_value(meta["argv"].clone()).expect("argv strings");
    let python_initialize = lines
        .map(|line| serde_json::from_str::<Value>(line).expect("json"))
        .find(|frame| frame["dir"] == "in" && frame["msg"]["request"]["subtype"] == "initialize")
        .expect("initialize")["msg"]["request"]
        .clone();

    let options = Options::builder()
        .system_prompt("")
        .permission_mode(PermissionMode::Default)
        .sdk_mcp_server(SdkMcpServer::builder("calc").build())
        .allowed_tools(["mcp__calc__add"])
        .build()
        .expect("valid");
    let ours = pairs(&args(&options));
    let python = pairs(&python_argv);

    let moved = ["--system-prompt", "--mcp-config"];
    for (flag, value) in &python {
        if moved.contains(&flag.as_str()) {
            assert!(
                !ours.iter().any(|(f, _)| f == flag),
                "{flag} should be in initialize"
            );
        } else {
            assert!(
                ours.contains(&(flag.clone(), value.clone())),
                "missing {flag}={value:?} in {ours:?}"
            );
        }
    }
    for (flag, _) in &ours {
        assert!(
            python.iter().any(|(f, _)| f == flag),
            "{flag} is not in the Python SDK's argv"
        );
    }

    // What moved: the empty system prompt and the SDK server's name.
    let python_prompt = python
        .iter()
        .find(|(f, _)| f == "--system-prompt")
        .and_then(|(_, v)| v.clone())
        .expect("--system-prompt");
    let python_mcp: Value = serde_json::from_str(
        python
            .iter()
            .find(|(f, _)| f == "--mcp-config")
            .and_then(|(_, v)| v.as_deref())
            .expect("--mcp-config"),
    )
    .expect("json");
    let python_sdk_servers: Vec<String> = python_mcp["mcpServers"]
        .as_object()
        .expect("servers")
        .iter()
        .map(|(name, config)| {
            assert_eq!(config["type"], "sdk", "only SDK servers move to initialize");
            name.clone()
        })
        .collect();

    let hooks: Option<HookMatchers> =
        serde_json::from_value(python_initialize["hooks"].clone()).expect("hooks");
    let mut request = initialize_json(&options, hooks, vec!["calc".into()]);
    let object = request.as_object_mut().expect("object");
    assert_eq!(object.remove("systemPrompt"), Some(json!([python_prompt])));
    assert_eq!(
        object.remove("sdkMcpServers"),
        Some(json!(python_sdk_servers))
    );
    let mut python_rest = python_initialize.as_object().expect("object").clone();
    python_rest.remove("subtype");
    // Python writes the fields it has no value for as `null`; twinwire leaves them out.
    python_rest.retain(|_, value| !value.is_null());
    assert_eq!(*object, python_rest);

    // The same identification variables, with our entry point.
    let env = apply_env(&[], options.env());
    for key in [
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_AGENT_SDK_VERSION",
        "CLAUDE_CODE_SDK_READS_SESSION_STATE",
    ] {
        assert!(meta["env"].get(key).is_some(), "{key} not in the reference");
        assert!(env.contains_key(key), "{key} not set");
    }
    assert_eq!(meta["env"]["CLAUDE_CODE_ENTRYPOINT"], "sdk-py");
    assert_eq!(env["CLAUDE_CODE_ENTRYPOINT"], "sdk-rust");
    assert_eq!(
        env["CLAUDE_CODE_SDK_READS_SESSION_STATE"],
        meta["env"]["CLAUDE_CODE_SDK_READS_SESSION_STATE"]
    );
}
