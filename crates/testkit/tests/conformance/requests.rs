//! The control requests of `Client` that the other scenarios do not send: each one sent to the
//! real CLI and its answer checked against what the CLI did (the session's cost, a file read,
//! a setting written, a command moved to the background, a tool called without the model), or,
//! where the CLI refuses the request, the refusal.

use std::collections::BTreeMap;

use serde_json::json;
use twinwire::protocol::control::{
    McpCallRequest, ReadFileEncoding, RegisterRepoRootRequest, RenameSource, RuleBehavior,
    UpdateSettingsSource,
};
use twinwire::protocol::mcp::{McpConnectionStatus, McpServerConfig};
use twinwire::protocol::system::SystemMessage;
use twinwire::protocol::Message;
use twinwire::sessions::SavedSessions;

use crate::{cli_version, kinds, ok, script, the_result, tool_results, turn, within, Scenario};

#[tokio::test]
async fn the_session_reports_its_cost_usage_models_and_version_and_takes_a_title() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s.connect(s.options()).await;
    let items = turn(&client, "hello").await;
    let result = the_result(&items);
    // The cost as /cost prints it, and as numbers.
    let cost = within(client.get_session_cost()).await.unwrap();
    let text = cost.text().unwrap_or_default();
    assert!(text.contains("Estimated cost"), "{cost:?}");
    let usage = within(client.get_usage(true)).await.unwrap();
    let total = usage.session.total_cost_usd.as_f64().unwrap();
    assert!(
        (total - result.total_cost_usd).abs() < 1e-9,
        "{usage:?} against {result:?}"
    );
    let model = &result.model_usage;
    assert_eq!(
        usage.session.model_usage.keys().collect::<Vec<_>>(),
        model.keys().collect::<Vec<_>>()
    );
    // The models it offers, its version, and what `initialize` told.
    let models = within(client.list_models()).await.unwrap().models();
    assert!(!models.is_empty(), "no models");
    let version = within(client.get_binary_version()).await.unwrap();
    assert_eq!(
        version.version(),
        Some(cli_version().as_str()),
        "{version:?}"
    );
    assert!(!client.supported_models().is_empty());
    assert!(!client.supported_commands().is_empty());
    assert!(
        client
            .supported_agents()
            .iter()
            .any(|agent| agent.name == "general-purpose"),
        "{:?}",
        client.supported_agents()
    );
    assert!(client.account_info().is_some());
    within(client.set_has_subscribers(true)).await.unwrap();
    // A title given by the host is the saved session's title.
    within(client.rename_session("Renamed by the host", Some(RenameSource::Host)))
        .await
        .unwrap();
    let items = turn(&client, "and again").await;
    let session_id = the_result(&items).session_id.clone();
    within(client.close()).await.unwrap();
    let saved = SavedSessions::at(s.home().join(".claude"));
    let info = saved
        .info(&session_id, Some(&s.work()))
        .expect("the session is saved");
    assert_eq!(info.summary, "Renamed by the host", "{info:?}");
}

#[tokio::test]
async fn files_are_read_and_suggested_by_the_cli() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    std::fs::write(s.work().join("hello.txt"), "hello world\n").unwrap();
    std::fs::create_dir_all(s.work().join("src")).unwrap();
    std::fs::write(s.work().join("src/helper.rs"), "fn helper() {}\n").unwrap();
    let client = s.connect(s.options()).await;
    let whole = within(client.read_file("hello.txt", None, None))
        .await
        .unwrap();
    assert_eq!(whole.contents, "hello world\n");
    assert_eq!(
        whole.abs_path,
        s.work().join("hello.txt").display().to_string()
    );
    let cut = within(client.read_file("hello.txt", Some(5), None))
        .await
        .unwrap();
    assert_eq!(
        (cut.contents.as_str(), cut.truncated),
        ("hello", Some(true))
    );
    let encoded = within(client.read_file("hello.txt", None, Some(ReadFileEncoding::Base64)))
        .await
        .unwrap();
    assert_eq!(encoded.contents, "aGVsbG8gd29ybGQK");
    assert!(within(client.read_file("missing.txt", None, None))
        .await
        .is_err());
    // The index of file names is built on the first question; asked again, it answers.
    let mut suggested = Vec::new();
    for _ in 0..40 {
        let answer = within(client.file_suggestions("hel")).await.unwrap();
        suggested = answer
            .suggestions
            .iter()
            .filter_map(|s| s["path"].as_str().map(str::to_owned))
            .collect();
        if !suggested.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(
        suggested.contains(&"hello.txt".to_owned())
            && suggested.contains(&"src/helper.rs".to_owned()),
        "{suggested:?}"
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn hooks_rules_and_styles_are_listed_and_a_setting_is_written() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let options = s
        .builder()
        .allowed_tools(["Bash(ls:*)"])
        .disallowed_tools(["Bash(rm:*)"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let listing = within(client.get_hooks_listing()).await.unwrap();
    let listing = serde_json::to_value(&listing).unwrap();
    let catalog: Vec<&str> = listing["eventCatalog"]
        .as_array()
        .map(|events| events.iter().filter_map(|e| e["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(catalog.contains(&"PreToolUse"), "{listing}");
    let rules = within(client.list_permission_rules()).await.unwrap();
    let find = |behavior: RuleBehavior| {
        rules
            .state
            .rules
            .iter()
            .filter(|rule| rule.behavior == behavior)
            .map(|rule| serde_json::to_value(rule).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(
        find(RuleBehavior::Allow)
            .iter()
            .any(|rule| rule.contains("ls:*")),
        "{rules:?}"
    );
    assert!(
        find(RuleBehavior::Deny)
            .iter()
            .any(|rule| rule.contains("rm:*")),
        "{rules:?}"
    );
    assert_eq!(
        rules.state.original_cwd,
        std::fs::canonicalize(s.work())
            .unwrap()
            .display()
            .to_string()
    );
    let styles = within(client.reload_output_styles()).await.unwrap();
    assert!(
        styles
            .available_output_styles
            .iter()
            .any(|style| style == "Concise"),
        "{styles:?}"
    );
    // The CLI writes the project's local settings through its own writer.
    let mut settings = serde_json::Map::new();
    settings.insert("outputStyle".into(), json!("Concise"));
    within(client.update_settings(UpdateSettingsSource::LocalSettings, settings))
        .await
        .unwrap();
    let written = std::fs::read_to_string(s.work().join(".claude/settings.local.json"))
        .expect("the local settings file");
    let written: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(written["outputStyle"], "Concise", "{written}");
    // A key it does not take is refused with the key named.
    let mut settings = serde_json::Map::new();
    settings.insert("model".into(), json!("claude-opus-4-8"));
    let refused = within(client.update_settings(UpdateSettingsSource::LocalSettings, settings))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("model"), "{refused}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_repository_cloned_into_the_session_is_registered_and_its_memory_read() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s.connect(s.options()).await;
    turn(&client, "first").await;
    let clone = s.work().join("clone");
    std::fs::create_dir_all(&clone).unwrap();
    std::fs::write(clone.join("CLAUDE.md"), "REPO-MEMORY-57: answer briefly\n").unwrap();
    let request = RegisterRepoRootRequest {
        directory: clone.display().to_string(),
        reload_claude_md: Some(true),
        ..RegisterRepoRootRequest::default()
    };
    within(client.register_repo_root(request)).await.unwrap();
    turn(&client, "after the clone").await;
    let asked = s.requests_for("after the clone");
    assert!(
        asked
            .iter()
            .any(|body| body.to_string().contains("REPO-MEMORY-57")),
        "the clone's CLAUDE.md did not reach the model"
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_running_command_is_moved_to_the_background_and_its_output_read() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "it runs on"}},
            {"when": {"last_user_text_contains": "run the long job"},
             "reply": {"tool_use": {"name": "Bash",
                "input": {"command": "echo JOB-OUTPUT-41; sleep 15", "description": "job"}}}}
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let options = s.builder().allowed_tools(["Bash"]).build().unwrap();
    let client = s.connect(options).await;
    within(client.send("run the long job")).await.unwrap();
    // The command runs in the foreground until the host moves it: moved once, as soon as the
    // CLI says it started (asked before that, the request has nothing to move; asked on a
    // timer, the number of requests, and so the recording, would follow the machine's speed).
    let mut items = Vec::new();
    let mut moving = None;
    let mut turn = std::pin::pin!(client.receive_response());
    while let Some(item) = within(futures::StreamExt::next(&mut turn)).await {
        let started = matches!(&item, Ok(Message::System(system))
            if matches!(&**system, SystemMessage::TaskStarted(_)));
        if started && moving.is_none() {
            let mover = client.clone();
            moving = Some(tokio::spawn(async move {
                let _ = mover.background_tasks(None).await;
            }));
        }
        items.push(item);
    }
    // An older CLI never answers the request: it is not waited for past the turn.
    if let Some(moving) = moving {
        moving.abort();
    }
    assert_eq!(
        the_result(&items).text(),
        Some("it runs on"),
        "{}",
        kinds(&items)
    );
    assert!(
        tool_results(&items).contains("backgrounded"),
        "{}",
        tool_results(&items)
    );
    let task = ok(&items)
        .into_iter()
        .find_map(|message| match message {
            Message::System(system) => match &**system {
                SystemMessage::TaskStarted(task) => Some(task.task_id.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| panic!("no task_started: {}", kinds(&items)));
    let output = within(client.get_task_output(&task)).await.unwrap();
    assert!(output.output.contains("JOB-OUTPUT-41"), "{output:?}");
    assert!(within(client.get_task_output("no-such-task"))
        .await
        .is_err());
    within(client.stop_task(&task)).await.unwrap();
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn an_mcp_tool_is_called_without_the_model() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let mut memo = McpServerConfig::stdio(env!("CARGO_BIN_EXE_memo-mcp"), Vec::new());
    if let McpServerConfig::Stdio(stdio) = &mut memo {
        stdio.env = Some(BTreeMap::from([(
            "MEMO_LABEL".to_owned(),
            "direct".to_owned(),
        )]));
    }
    let options = s.builder().mcp_server("memo", memo).build().unwrap();
    let client = s.connect(options).await;
    // The CLI connects its servers as the session starts; a first turn waits for them, so
    // that how often the status is asked does not follow the machine's speed.
    turn(&client, "hello").await;
    let model_calls = s.message_requests().len();
    for _ in 0..80 {
        let status = within(client.mcp_status()).await.unwrap();
        let connected = status
            .mcp_servers
            .iter()
            .any(|server| server.name == "memo" && server.status == McpConnectionStatus::Connected);
        if connected {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    let mut arguments = serde_json::Map::new();
    arguments.insert("text".into(), json!("CALLED-DIRECTLY-88"));
    let request = McpCallRequest {
        tool: "mcp__memo__note".to_owned(),
        arguments: Some(arguments),
        ..McpCallRequest::default()
    };
    let answer = within(client.mcp_call(request)).await.unwrap();
    let text = serde_json::to_string(&answer).unwrap();
    assert!(
        text.contains("memo(direct)") && text.contains("CALLED-DIRECTLY-88"),
        "{answer:?}"
    );
    // No model request was needed for the call.
    assert_eq!(
        s.message_requests().len(),
        model_calls,
        "the model was called"
    );
    // A server the session does not have is refused.
    let unknown = McpCallRequest {
        tool: "mcp__nosuch__note".to_owned(),
        ..McpCallRequest::default()
    };
    let refused = within(client.mcp_call(unknown)).await;
    assert!(refused.is_err(), "{refused:?}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn set_color_is_refused_as_unsupported() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s.connect(s.options()).await;
    let refused = within(client.set_color("blue")).await.unwrap_err();
    match &refused {
        twinwire::Error::Control { code, .. } => {
            assert_eq!(code.as_deref(), Some("unsupported_request"), "{refused}")
        }
        other => panic!("not a refusal: {other}"),
    }
    // The session goes on.
    let items = turn(&client, "still there?").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    within(client.close()).await.unwrap();
}
