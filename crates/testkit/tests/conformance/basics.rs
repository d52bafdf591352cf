//! Turns, prompts, agents, authentication and start-up failures.

use serde_json::json;
use twinwire::options::AgentDefinition;
use twinwire::protocol::Message;
use twinwire::{query, Client};

use crate::{
    assistant_text, cli_version, collect, conversation, inits, kinds, last_user_text, ok, results,
    script, the_result, turn, within, Scenario,
};

#[tokio::test]
async fn a_text_turn() {
    let s = Scenario::start(script(
        json!([{"when": {"last_user_text_contains": "hello"},
                "reply": {"text": "Hello from the model server"}}]),
        json!({"text": "unexpected request"}),
    ))
    .await;
    let items = collect(query("hello", s.options())).await;
    let messages = ok(&items);
    assert_eq!(assistant_text(&items), "Hello from the model server");
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.subtype.as_str(), "success");
    assert_eq!(result.text(), Some("Hello from the model server"));
    assert_eq!(result.num_turns, 1);
    // system/init comes before the reply and names the pinned version and the working dir.
    let init = inits(&items);
    assert!(!init.is_empty(), "{}", kinds(&items));
    assert_eq!(
        init[0].claude_code_version.as_deref(),
        Some(cli_version().as_str())
    );
    assert_eq!(
        std::fs::canonicalize(&init[0].cwd).unwrap(),
        std::fs::canonicalize(s.work()).unwrap()
    );
    let first_init = messages.iter().position(|m| m.kind() == "system/init");
    let first_reply = messages.iter().position(|m| m.kind() == "assistant");
    assert!(first_init < first_reply, "{}", kinds(&items));
    // After the result, only the session going idle.
    let result_at = messages.iter().position(|m| m.kind() == "result/success");
    let after: Vec<_> = messages[result_at.unwrap() + 1..]
        .iter()
        .map(|m| m.kind())
        .collect();
    assert!(
        after.iter().all(|k| k == "system/session_state_changed"),
        "{after:?}"
    );
    // Exactly one model request, carrying the prompt and the key.
    let requests = s.requests_for("hello");
    assert_eq!(requests.len(), 1, "{:?}", s.message_requests());
    assert_eq!(requests[0]["stream"], true);
    let keyed = s.server.requests().iter().all(|r| {
        !r.path.starts_with("/v1/messages") || r.headers.iter().any(|(name, _)| name == "x-api-key")
    });
    assert!(keyed, "the API key reached the server");
    // The CLI ran in the private HOME.
    assert!(s.home().join(".claude").exists() || s.home().join(".claude.json").exists());
}

#[tokio::test]
async fn four_turns_on_one_process() {
    let rules: Vec<_> = (0..4)
        .map(|n| {
            json!({"when": {"last_user_text_contains": format!("turn number {n}")},
                   "reply": {"text": format!("reply number {n}")}})
        })
        .collect();
    let s = Scenario::start(script(json!(rules), json!({"text": "unexpected"}))).await;
    let client = s.connect(s.options()).await;
    assert!(client.initialize_response().is_some());
    let pid = client.pid().expect("a pid");
    let mut session = None;
    for n in 0..4 {
        let items = turn(&client, &format!("turn number {n}")).await;
        let result = the_result(&items);
        assert!(!result.is_error, "{result:?}");
        assert_eq!(result.text(), Some(format!("reply number {n}").as_str()));
        assert_eq!(
            client.pid(),
            Some(pid),
            "the same process serves every turn"
        );
        let id = session.get_or_insert_with(|| result.session_id.clone());
        assert_eq!(&result.session_id, id, "one session");
    }
    // The fourth request carries the whole conversation.
    let last = s.requests_for("turn number 3");
    assert_eq!(last.len(), 1);
    let history = conversation(&last[0]);
    for n in 0..3 {
        assert!(history.contains(&format!("turn number {n}")), "{history}");
        assert!(history.contains(&format!("reply number {n}")), "{history}");
    }
    let status = within(client.close()).await.unwrap();
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

#[tokio::test]
async fn an_appended_system_prompt_reaches_the_api() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let options = s
        .builder()
        .append_system_prompt("Always answer like a ZEBRA-7731.")
        .build()
        .unwrap();
    let items = collect(query("who are you", options)).await;
    assert!(!the_result(&items).is_error);
    let requests = s.requests_for("who are you");
    assert_eq!(requests.len(), 1);
    let system = requests[0]["system"].to_string();
    assert!(
        system.contains("Always answer like a ZEBRA-7731."),
        "{system}"
    );
    // The preset prompt is there too: the text was appended, not substituted.
    assert!(system.contains("Claude"), "{system}");
    assert!(!last_user_text(&requests[0]).contains("ZEBRA-7731"));
}

#[tokio::test]
async fn a_custom_agent_appears_in_system_init() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let options = s
        .builder()
        .agent_definition(
            "pelican-reviewer",
            AgentDefinition {
                description: "Reviews pelican drawings".into(),
                prompt: "You review drawings of pelicans.".into(),
                tools: Some(vec!["Read".into()]),
                ..AgentDefinition::default()
            },
        )
        .build()
        .unwrap();
    let items = collect(query("list agents", options)).await;
    let init = inits(&items);
    assert!(!init.is_empty(), "{}", kinds(&items));
    let agents = init[0].agents.clone().unwrap_or_default();
    assert!(agents.iter().any(|a| a == "pelican-reviewer"), "{agents:?}");
    assert!(agents.iter().any(|a| a == "general-purpose"), "{agents:?}");
}

#[tokio::test]
async fn no_api_key_is_an_error_result_and_no_request() {
    let s = Scenario::start(script(json!([]), json!({"text": "should not be asked"}))).await;
    let options = s.builder().env_remove("ANTHROPIC_API_KEY").build().unwrap();
    let items = collect(query("hello without a key", options)).await;
    let result = the_result(&items);
    assert!(result.is_error, "{result:?}");
    let text = result.text().unwrap_or_default();
    assert!(text.contains("Not logged in"), "{text}");
    assert!(
        s.server.requests().is_empty(),
        "no request without credentials: {:?}",
        s.server.requests()
    );
}

#[tokio::test]
async fn a_missing_cli_is_cli_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-claude");
    let options = twinwire::Options::builder()
        .cli_path(&missing)
        .build()
        .unwrap();
    let items = collect(query("hello", options.clone())).await;
    assert_eq!(items.len(), 1, "{}", kinds(&items));
    let err = items[0].as_ref().unwrap_err();
    assert!(err.is_cli_not_found(), "{err}");
    assert!(err.to_string().contains("no-such-claude"), "{err}");
    let err = within(Client::connect(options)).await.unwrap_err();
    assert!(err.is_cli_not_found(), "{err}");
}

#[tokio::test]
async fn an_api_500_is_an_error_result_and_the_next_turn_works() {
    let s = Scenario::start(script(
        // The failed turn left no assistant message, so the CLI sends the next prompt in the
        // same user message as the failed one: match the new prompt first.
        json!([
            {"when": {"last_user_text_contains": "and now"},
             "reply": {"text": "recovered"}},
            {"when": {"last_user_text_contains": "please fail"},
             "reply": {"error": {"status": 500, "type": "api_error", "message": "scripted outage"}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let client = s.connect(s.options()).await;
    let items = turn(&client, "please fail").await;
    let result = the_result(&items);
    assert!(result.is_error, "{result:?}");
    assert_eq!(result.api_error_status, Some(Some(500)), "{result:?}");
    assert_eq!(
        result.terminal_reason.as_ref().map(|r| r.as_str()),
        Some("api_error")
    );
    assert!(
        result.text().unwrap_or_default().contains("500"),
        "{result:?}"
    );
    // As an error value: the official SDKs' words, the status and the reason; no usage limit.
    let error = twinwire::Error::from(result.error().expect("a failed turn"));
    assert!(
        error
            .to_string()
            .starts_with("Claude Code returned an error result: "),
        "{error}"
    );
    assert!(error.to_string().contains("500"), "{error}");
    assert!(!error.is_usage_limit());
    let twinwire::Error::Result(failed) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(failed.api_error_status, Some(500));
    assert_eq!(failed.session_id, result.session_id);
    // CLAUDE_CODE_MAX_RETRIES=0: asked once, not retried.
    assert_eq!(s.requests_for("please fail").len(), 1);

    let items = turn(&client, "and now").await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.text(), Some("recovered"));
    assert!(matches!(items.last(), Some(Ok(Message::Result(_)))));
    assert_eq!(results(&items).len(), 1);
    within(client.close()).await.unwrap();
}
