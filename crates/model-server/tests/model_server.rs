//! HTTP-level tests of the fake Messages API, with a plain HTTP client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// In a module so that `cargo test model_server` selects these tests.
mod model_server {
    use std::time::{Duration, Instant};

    use serde_json::{json, Value};
    use twinwire_model_server::{ModelScript, ModelServer, Reply, Rule, When};

    fn client() -> reqwest::Client {
        reqwest::Client::builder().no_proxy().build().unwrap()
    }

    /// A CLI-like request body: a reminder block, then the prompt, then a `role: "system"` message.
    fn user_turn(text: &str, stream: bool) -> Value {
        json!({
            "model": "claude-opus-5-5",
            "max_tokens": 128000,
            "stream": stream,
            "system": [{"type": "text", "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK."}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>\nAs you answer, SECRET_WORD applies.\n</system-reminder>"},
                    {"type": "text", "text": text}
                ]},
                {"role": "system", "content": "extra"}
            ],
            "tools": [{"name": "Bash", "input_schema": {"type": "object"}}, {"name": "Read", "defer_loading": true}],
            "thinking": {"type": "adaptive", "display": "updates"},
            "context_management": {"edits": []},
            "metadata": {"user_id": "{}"}
        })
    }

    /// The follow-up after a tool call: assistant `tool_use`, then a user `tool_result`.
    fn tool_result_turn(result: &str, is_error: bool) -> Value {
        json!({
            "model": "claude-opus-5-5",
            "max_tokens": 128000,
            "stream": true,
            "messages": [
                {"role": "user", "content": "Please run TOOL_TOUCH"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "touch x"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": result, "is_error": is_error}
                ]}
            ]
        })
    }

    async fn post(server: &ModelServer, path: &str, body: &Value) -> reqwest::Response {
        client()
            .post(format!("{}{path}", server.url()))
            .header("x-api-key", "sk-ant-secret")
            .header("anthropic-version", "2023-06-01")
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// Parses an SSE body into `(event, data)` pairs, checking the `event:`/`data:` framing.
    fn parse_sse(text: &str) -> Vec<(String, Value)> {
        assert!(text.ends_with("\n\n"), "unterminated stream: {text:?}");
        text.trim_end_matches('\n')
            .split("\n\n")
            .map(|event| {
                let lines: Vec<&str> = event.split('\n').collect();
                assert_eq!(lines.len(), 2, "event is not two lines: {event:?}");
                let name = lines[0].strip_prefix("event: ").expect("event line");
                let data: Value =
                    serde_json::from_str(lines[1].strip_prefix("data: ").expect("data line"))
                        .unwrap();
                assert_eq!(data["type"], name, "event name and data type differ");
                (name.to_owned(), data)
            })
            .collect()
    }

    async fn stream(server: &ModelServer, body: &Value) -> Vec<(String, Value)> {
        let response = post(server, "/v1/messages?beta=true", body).await;
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        parse_sse(&response.text().await.unwrap())
    }

    fn names(events: &[(String, Value)]) -> Vec<&str> {
        events.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// The text of all `text_delta`s.
    fn streamed_text(events: &[(String, Value)]) -> String {
        events
            .iter()
            .filter(|(_, d)| d["delta"]["type"] == "text_delta")
            .map(|(_, d)| d["delta"]["text"].as_str().unwrap())
            .collect()
    }

    #[tokio::test]
    async fn streams_a_text_reply_like_the_real_api() {
        let script = ModelScript::new(Reply::text(
            "Hello from the fake model, streamed in pieces.",
        ));
        let server = ModelServer::start(script).await.unwrap();
        let events = stream(&server, &user_turn("hello", true)).await;

        let names = names(&events);
        assert_eq!(names[..3], ["message_start", "ping", "content_block_start"]);
        assert_eq!(
            names[names.len() - 3..],
            ["content_block_stop", "message_delta", "message_stop"]
        );
        assert!(names[3..names.len() - 3]
            .iter()
            .all(|n| *n == "content_block_delta"));

        let start = &events[0].1["message"];
        assert!(start["id"].as_str().unwrap().starts_with("msg_fake_"));
        assert_eq!(start["model"], "claude-opus-5-5");
        assert_eq!(start["role"], "assistant");
        assert_eq!(start["content"], json!([]));
        assert_eq!(start["usage"]["input_tokens"], 100);
        assert_eq!(start["usage"]["cache_read_input_tokens"], 0);
        assert_eq!(
            events[2].1["content_block"],
            json!({"type": "text", "text": ""})
        );
        assert_eq!(
            streamed_text(&events),
            "Hello from the fake model, streamed in pieces."
        );
        let delta = &events[events.len() - 2].1;
        assert_eq!(delta["delta"]["stop_reason"], "end_turn");
        assert_eq!(delta["usage"]["output_tokens"], 20);
    }

    #[tokio::test]
    async fn non_streaming_request_gets_one_json_message() {
        let script = ModelScript {
            model: Some("claude-fake-override".into()),
            ..ModelScript::default()
        };
        let server = ModelServer::start(script).await.unwrap();
        let response = post(&server, "/v1/messages", &user_turn("Hi", false)).await;
        assert_eq!(response.status(), 200);
        assert!(response.headers()["request-id"]
            .to_str()
            .unwrap()
            .starts_with("req_fake_"));
        let message: Value = response.json().await.unwrap();
        assert_eq!(message["type"], "message");
        assert_eq!(message["model"], "claude-fake-override");
        assert_eq!(message["stop_reason"], "end_turn");
        assert_eq!(
            message["content"],
            json!([{"type": "text", "text": "You said: Hi"}])
        );
        assert_eq!(message["usage"]["output_tokens"], 20);
    }

    #[tokio::test]
    async fn tool_use_input_arrives_in_json_deltas() {
        let input = json!({"command": "touch touched.txt && echo touched", "description": "Create touched.txt"});
        let script = ModelScript::default().rule(Rule::new(
            When::LastUserTextContains("TOOL_TOUCH".into()),
            Reply::ToolUse(twinwire_model_server::ToolUseReply {
                name: "Bash".into(),
                input: input.clone(),
                text: Some("I will create a file with Bash.".into()),
            }),
        ));
        let server = ModelServer::start(script).await.unwrap();
        let events = stream(&server, &user_turn("Please run TOOL_TOUCH", true)).await;

        let starts: Vec<&Value> = events
            .iter()
            .filter(|(n, _)| n == "content_block_start")
            .map(|(_, d)| d)
            .collect();
        assert_eq!(starts.len(), 2);
        assert_eq!(starts[0]["content_block"]["type"], "text");
        let tool = &starts[1]["content_block"];
        assert_eq!(
            (tool["type"].as_str(), tool["name"].as_str()),
            (Some("tool_use"), Some("Bash"))
        );
        assert!(tool["id"].as_str().unwrap().starts_with("toolu_"));
        assert_eq!(starts[1]["index"], 1);

        let pieces: Vec<&str> = events
            .iter()
            .filter(|(_, d)| d["delta"]["type"] == "input_json_delta")
            .map(|(_, d)| {
                assert_eq!(d["index"], 1);
                d["delta"]["partial_json"].as_str().unwrap()
            })
            .collect();
        assert!(pieces.len() > 1, "input should be split: {pieces:?}");
        let joined: Value = serde_json::from_str(&pieces.concat()).unwrap();
        assert_eq!(joined, input);
        assert_eq!(streamed_text(&events), "I will create a file with Bash.");
        let delta = &events[events.len() - 2].1;
        assert_eq!(delta["delta"]["stop_reason"], "tool_use");

        // Two calls get two ids.
        let again = stream(&server, &user_turn("Please run TOOL_TOUCH", true)).await;
        let id = |events: &[(String, Value)]| {
            events
                .iter()
                .find(|(_, d)| d["content_block"]["type"] == "tool_use")
                .map(|(_, d)| d["content_block"]["id"].clone())
                .unwrap()
        };
        assert_ne!(id(&events), id(&again));
    }

    #[tokio::test]
    async fn tool_result_rules_see_the_result() {
        let script = ModelScript::new(Reply::text("default"))
            .rule(Rule::new(
                When::All(vec![
                    When::LastIsToolResult(true),
                    When::ToolResultContains("touched".into()),
                ]),
                Reply::text("Tool result seen: touched"),
            ))
            .rule(Rule::new(
                When::ToolResultIsError(true),
                Reply::text("denied"),
            ))
            .rule(Rule::new(
                When::LastUserTextContains("TOOL_TOUCH".into()),
                Reply::tool_use("Bash", json!({"command": "touch x"})),
            ));
        let server = ModelServer::start(script).await.unwrap();

        let events = stream(&server, &tool_result_turn("touched", false)).await;
        assert_eq!(streamed_text(&events), "Tool result seen: touched");
        let events = stream(&server, &tool_result_turn("host says no", true)).await;
        assert_eq!(streamed_text(&events), "denied");
        let events = stream(&server, &tool_result_turn("something else", false)).await;
        assert_eq!(streamed_text(&events), "default");
    }

    #[tokio::test]
    async fn error_reply_has_status_and_anthropic_shape() {
        let script = ModelScript::default()
            .rule(Rule::new(
                When::LastUserTextContains("API_500".into()),
                Reply::Error(twinwire_model_server::ErrorReply {
                    status: 500,
                    error_type: Some("api_error".into()),
                    message: Some("fake 500".into()),
                }),
            ))
            .rule(Rule::new(
                When::LastUserTextContains("API_529".into()),
                Reply::error(529),
            ));
        let server = ModelServer::start(script).await.unwrap();

        let response = post(
            &server,
            "/v1/messages?beta=true",
            &user_turn("trigger API_500", true),
        )
        .await;
        assert_eq!(response.status(), 500);
        assert_eq!(
            response.json::<Value>().await.unwrap(),
            json!({"type": "error", "error": {"type": "api_error", "message": "fake 500"}})
        );
        let response = post(
            &server,
            "/v1/messages?beta=true",
            &user_turn("trigger API_529", false),
        )
        .await;
        assert_eq!(response.status(), 529);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "overloaded_error");
    }

    #[tokio::test]
    async fn a_usage_limit_is_a_429_naming_its_reset_in_headers() {
        let script = ModelScript::new(Reply::text("after the reset"))
            .rule(Rule::new(When::Always(true), Reply::usage_limit(30)).times(1));
        let server = ModelServer::start(script).await.unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();

        let response = post(&server, "/v1/messages", &user_turn("hi", true)).await;
        assert_eq!(response.status(), 429);
        let header = |name: &str| response.headers()[name].to_str().unwrap().to_owned();
        assert_eq!(header("anthropic-ratelimit-unified-status"), "rejected");
        assert_eq!(
            header("anthropic-ratelimit-unified-representative-claim"),
            "five_hour"
        );
        assert_eq!(header("x-should-retry"), "false");
        let reset: u64 = header("anthropic-ratelimit-unified-reset").parse().unwrap();
        assert!(
            (now + 29..=now + 32).contains(&reset),
            "reset {reset}, now {now}"
        );
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "rate_limit_error");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("You've hit your limit · resets 20"),
            "{message}"
        );

        let response = post(&server, "/v1/messages", &user_turn("hi", false)).await;
        assert_eq!(response.status(), 200, "the rule is used up");
    }

    #[tokio::test]
    async fn slow_text_sends_n_deltas_with_pauses() {
        let script = ModelScript::new(Reply::SlowText(twinwire_model_server::SlowTextReply {
            text: "one two three four five".into(),
            deltas: 5,
            delay_ms: 60,
        }));
        let server = ModelServer::start(script).await.unwrap();
        let began = Instant::now();
        let mut response = post(&server, "/v1/messages", &user_turn("Please be SLOW", true)).await;
        let mut first_chunk = None;
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.unwrap() {
            first_chunk.get_or_insert_with(|| began.elapsed());
            body.extend_from_slice(&chunk);
        }
        let total = began.elapsed();
        let events = parse_sse(std::str::from_utf8(&body).unwrap());
        let deltas = events
            .iter()
            .filter(|(_, d)| d["delta"]["type"] == "text_delta")
            .count();
        assert_eq!(deltas, 5);
        assert_eq!(streamed_text(&events), "one two three four five");
        assert!(
            total >= Duration::from_millis(4 * 60),
            "too fast: {total:?}"
        );
        // The start arrived before the end was written: the reply is streamed, not buffered.
        let first_chunk = first_chunk.unwrap();
        assert!(
            first_chunk + Duration::from_millis(120) < total,
            "{first_chunk:?} vs {total:?}"
        );
    }

    #[tokio::test]
    async fn count_tokens_and_models() {
        let server = ModelServer::start(ModelScript::default()).await.unwrap();
        let body =
            json!({"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "foo"}]});
        let response = post(&server, "/v1/messages/count_tokens?beta=true", &body).await;
        assert_eq!(response.status(), 200);
        let counted: Value = response.json().await.unwrap();
        assert!(counted["input_tokens"].as_u64().unwrap() > 0);

        let response = client()
            .get(format!("{}/v1/models", server.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let models: Value = response.json().await.unwrap();
        assert!(models["data"].as_array().unwrap().len() >= 2);
        assert_eq!(models["data"][0]["type"], "model");
        // count_tokens is not a message request.
        assert!(server.message_requests().is_empty());
        assert_eq!(server.requests().len(), 2);
    }

    #[tokio::test]
    async fn unknown_paths_get_a_404_in_anthropic_shape() {
        let server = ModelServer::start(ModelScript::default()).await.unwrap();
        for (method, path) in [
            (reqwest::Method::GET, "/"),
            (reqwest::Method::POST, "/v1/complete"),
            (reqwest::Method::GET, "/v1/messages"),
        ] {
            let response = client()
                .request(method.clone(), format!("{}{path}", server.url()))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 404, "{method} {path}");
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["type"], "error");
            assert_eq!(body["error"]["type"], "not_found_error");
            assert!(body["error"]["message"].as_str().unwrap().contains(path));
        }
        let response = client()
            .head(format!("{}/api/hello", server.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
        assert_eq!(server.requests().len(), 4);
    }

    #[tokio::test]
    async fn records_requests_with_secrets_redacted() {
        let server = ModelServer::start(ModelScript::default()).await.unwrap();
        post(&server, "/v1/messages?beta=true", &user_turn("first", true)).await;
        client()
            .post(format!("{}/v1/messages", server.url()))
            .header("authorization", "Bearer tok-secret")
            .body("not json")
            .send()
            .await
            .unwrap();

        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0].method, "POST");
        assert_eq!(requests[0].path, "/v1/messages?beta=true");
        assert_eq!(
            requests[0].body["messages"][0]["content"][1]["text"],
            "first"
        );
        let header = |i: usize, name: &str| {
            requests[i]
                .headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(header(0, "x-api-key").as_deref(), Some("<redacted>"));
        assert_eq!(
            header(0, "anthropic-version").as_deref(),
            Some("2023-06-01")
        );
        assert_eq!(header(1, "authorization").as_deref(), Some("<redacted>"));
        assert_eq!(requests[1].body, Value::Null);
        let all = format!("{requests:?}");
        assert!(!all.contains("secret"), "a secret leaked: {all}");
        assert_eq!(server.message_requests().len(), 2);
    }

    #[tokio::test]
    async fn rules_ignore_system_reminders_and_read_the_system_prompt() {
        let script = ModelScript::new(Reply::text("default"))
            .rule(Rule::new(
                When::LastUserTextContains("SECRET_WORD".into()),
                Reply::text("matched a reminder"),
            ))
            .rule(Rule::new(
                When::All(vec![
                    When::SystemContains("Claude Agent SDK".into()),
                    When::LastUserTextContains("hello".into()),
                ]),
                Reply::text("matched the prompt"),
            ));
        let server = ModelServer::start(script).await.unwrap();
        let events = stream(&server, &user_turn("hello", true)).await;
        assert_eq!(streamed_text(&events), "matched the prompt");
    }

    /// After an API error the CLI resends the failed prompt as an earlier text block.
    #[tokio::test]
    async fn last_prompt_sees_only_the_newest_of_merged_prompts() {
        let script = ModelScript::default().rule(Rule::new(
            When::LastPromptContains("API_529".into()),
            Reply::error(529),
        ));
        let server = ModelServer::start(script).await.unwrap();
        let response = post(&server, "/v1/messages", &user_turn("trigger API_529", true)).await;
        assert_eq!(response.status(), 529);

        let mut body = user_turn("trigger API_529\n", true);
        body["messages"][0]["content"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "text", "text": "hello after"}));
        let events = stream(&server, &body).await;
        assert_eq!(streamed_text(&events), "You said: hello after");
    }

    #[tokio::test]
    async fn times_limits_a_rule() {
        let script = ModelScript::new(Reply::text("after"))
            .rule(Rule::new(When::Always(true), Reply::text("once")).times(1))
            .rule(Rule::new(When::LastUserTextContains("x".into()), Reply::text("twice")).times(2));
        let server = ModelServer::start(script).await.unwrap();
        let mut replies = Vec::new();
        for _ in 0..5 {
            replies.push(streamed_text(&stream(&server, &user_turn("x", true)).await));
        }
        assert_eq!(replies, ["once", "twice", "twice", "after", "after"]);
    }

    #[tokio::test]
    async fn odd_bodies_fall_back_to_the_default() {
        let script = ModelScript::new(Reply::Json(json!({"title": "Fake"})))
            .rule(Rule::new(When::Always(true), Reply::error(400)));
        let server = ModelServer::start(script).await.unwrap();
        for body in ["", "[1,2", "[]"] {
            let response = client()
                .post(format!("{}/v1/messages", server.url()))
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200, "body {body:?}");
            let message: Value = response.json().await.unwrap();
            assert_eq!(message["content"][0]["text"], r#"{"title":"Fake"}"#);
            assert_eq!(message["model"], "claude-fake");
        }
    }

    #[tokio::test]
    async fn demo_script_writes_then_summarizes() {
        let server = ModelServer::start(ModelScript::demo()).await.unwrap();
        let events = stream(&server, &user_turn("do the demo", true)).await;
        let tool = events
            .iter()
            .find(|(_, d)| d["content_block"]["type"] == "tool_use")
            .map(|(_, d)| d["content_block"].clone())
            .unwrap();
        assert_eq!(tool["name"], "Bash");
        let input: String = events
            .iter()
            .filter(|(_, d)| d["delta"]["type"] == "input_json_delta")
            .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap())
            .collect();
        let input: Value = serde_json::from_str(&input).unwrap();
        assert_eq!(
            input["command"],
            "echo 'hello from twinwire' > twinwire-demo.txt"
        );
        assert_eq!(
            input["description"],
            "Write a greeting to twinwire-demo.txt"
        );
        assert!(!streamed_text(&events).is_empty());

        let done = streamed_text(&stream(&server, &tool_result_turn("", false)).await);
        assert!(done.starts_with("I wrote twinwire-demo.txt"), "{done}");
        let denied = streamed_text(&stream(&server, &tool_result_turn("host says no", true)).await);
        assert!(
            denied.starts_with("The command was not allowed"),
            "{denied}"
        );

        // A side request without tools is echoed, not answered with a tool call.
        let side = json!({"model": "claude-haiku-4-5", "max_tokens": 1,
                          "messages": [{"role": "user", "content": "Hi"}]});
        let message: Value = post(&server, "/v1/messages", &side)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(message["content"][0]["text"], "You said: Hi");
    }

    #[tokio::test]
    async fn a_refusal_stops_with_its_reason_and_details_streamed_or_not() {
        let script = ModelScript::new(Reply::text("fine")).rule(Rule::new(
            When::ModelIs("claude-opus-5-5".into()),
            serde_json::from_value(json!({"refusal": {
                "text": "I can't help with that.",
                "category": "cyber",
                "explanation": "flagged by a test"
            }}))
            .unwrap(),
        ));
        let server = ModelServer::start(script).await.unwrap();
        let details =
            json!({"type": "refusal", "category": "cyber", "explanation": "flagged by a test"});

        let events = stream(&server, &user_turn("scan that host", true)).await;
        assert_eq!(streamed_text(&events), "I can't help with that.");
        let delta = &events[events.len() - 2].1["delta"];
        assert_eq!(delta["stop_reason"], "refusal");
        assert_eq!(delta["stop_details"], details);

        let message: Value = post(&server, "/v1/messages", &user_turn("again", false))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(message["stop_reason"], "refusal");
        assert_eq!(message["stop_details"], details);
        assert_eq!(
            message["content"],
            json!([{"type": "text", "text": "I can't help with that."}])
        );

        // Another model is served as usual, without stop details; a refusal without a
        // category sends nulls.
        let mut other = user_turn("scan that host", true);
        other["model"] = json!("claude-opus-4-8");
        let events = stream(&server, &other).await;
        let delta = &events[events.len() - 2].1["delta"];
        assert_eq!(delta["stop_reason"], "end_turn");
        assert!(delta.get("stop_details").is_none(), "{delta}");
        let bare: Reply = serde_json::from_value(json!({"refusal": {"text": "no"}})).unwrap();
        let server = ModelServer::start(ModelScript::new(bare)).await.unwrap();
        let events = stream(&server, &user_turn("x", true)).await;
        assert_eq!(
            events[events.len() - 2].1["delta"]["stop_details"],
            json!({"type": "refusal", "category": null, "explanation": null})
        );
    }

    #[tokio::test]
    async fn shutdown_and_drop_stop_the_server() {
        let server = ModelServer::start(ModelScript::default()).await.unwrap();
        let url = server.url();
        assert_eq!(url, format!("http://127.0.0.1:{}", server.port()));
        server.shutdown().await;
        assert!(client()
            .get(format!("{url}/v1/models"))
            .send()
            .await
            .is_err());

        let server = ModelServer::start(ModelScript::default()).await.unwrap();
        let url = server.url();
        drop(server);
        let mut refused = false;
        for _ in 0..50 {
            if client()
                .get(format!("{url}/v1/models"))
                .send()
                .await
                .is_err()
            {
                refused = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(refused, "server still answering after drop");
    }
}
