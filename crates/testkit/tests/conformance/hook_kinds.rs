//! The hook kinds of the settings beside `command` and `prompt`: an `agent` hook (a subagent
//! that may look at the tree before it judges) and an `http` hook (the event posted to a
//! service, whose answer is read as a command hook's output).

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::{script, the_result, tool_results, turn, within, Scenario};

/// The words the agent hook's prompt starts with (they mark its subagent's requests).
const VERIFY: &str = "Verify this call: ";

/// An agent hook of the user's settings verifies each Bash command with a subagent that may
/// use tools (here it reads the policy file) and answers with `StructuredOutput`:
/// the command it refuses does not run (the model is told why, and the turn goes on), the one
/// it lets through runs.
#[tokio::test]
async fn an_agent_hook_in_user_settings_verifies_each_command_with_a_subagent() {
    let verifier = |extra: Value| json!({"all": [{"has_tool": "StructuredOutput"}, extra]});
    let s = Scenario::start_with(|work| {
        script(
            json!([
                {"when": verifier(json!({"last_user_text_contains": "refused.txt"})),
                 "reply": {"tool_use": {"name": "StructuredOutput",
                                        "input": {"ok": false, "reason": "no touching allowed"}}}},
                {"when": verifier(json!({"last_is_tool_result": true})),
                 "reply": {"tool_use": {"name": "StructuredOutput",
                                        "input": {"ok": true, "reason": "the policy allows it"}}}},
                {"when": verifier(json!({"last_user_text_contains": "allowed.txt"})),
                 "reply": {"tool_use": {"name": "Read",
                                        "input": {"file_path": work.join("policy.txt")}}}},
                {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
                {"when": {"last_user_text_contains": "make the refused file"},
                 "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch refused.txt",
                                                                   "description": "Make a file"}}}},
                {"when": {"last_user_text_contains": "make the allowed file"},
                 "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch allowed.txt",
                                                                   "description": "Make a file"}}}}
            ]),
            json!({"text": "unexpected"}),
        )
    })
    .await;
    std::fs::write(
        s.work().join("policy.txt"),
        "touching allowed.txt is fine\n",
    )
    .unwrap();
    write_user_hooks(
        &s,
        json!({"type": "agent", "prompt": format!("{VERIFY}$ARGUMENTS")}),
    );
    let options = s.builder().allowed_tool("Bash").build().unwrap();
    let client = s.connect(options).await;
    let refused = turn(&client, "make the refused file").await;
    assert!(
        !s.work().join("refused.txt").exists(),
        "the refused command ran"
    );
    assert!(
        tool_results(&refused).contains(
            "PreToolUse:Bash hook error: Agent hook condition was not met: no touching allowed"
        ),
        "{}\nstderr:\n{}",
        tool_results(&refused),
        s.stderr()
    );
    assert_eq!(
        the_result(&refused).text(),
        Some("done"),
        "the turn goes on"
    );
    let allowed = turn(&client, "make the allowed file").await;
    assert_eq!(the_result(&allowed).text(), Some("done"));
    assert!(
        s.work().join("allowed.txt").exists(),
        "the allowed command did not run: {}",
        tool_results(&allowed)
    );
    // The subagent looked before it judged: its second request carries what it read.
    let verifier_saw_the_policy = s.message_requests().iter().any(|body| {
        crate::conversation(body).contains(VERIFY)
            && crate::request_tool_results(body).contains("touching allowed.txt is fine")
    });
    assert!(
        verifier_saw_the_policy,
        "the subagent did not read the policy"
    );
    within(client.close()).await.unwrap();
}

/// An http hook of the user's settings posts each Bash call to a service, with the headers
/// it names (environment variables filled only where `allowedEnvVars` lists them); the
/// service's JSON answer refuses one command, its empty answer lets the other run.
#[tokio::test]
async fn an_http_hook_in_user_settings_posts_each_call_and_its_answer_decides() {
    let service = HookService::start().await;
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
            {"when": {"last_user_text_contains": "make the refused file"},
             "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch refused.txt",
                                                               "description": "Make a file"}}}},
            {"when": {"last_user_text_contains": "make the allowed file"},
             "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch allowed.txt",
                                                               "description": "Make a file"}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    write_user_hooks(
        &s,
        json!({"type": "http", "url": format!("{}/hooks/pre-tool", service.url),
               "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Unlisted": "[${NOT_LISTED}]"},
               "allowedEnvVars": ["HOOK_TOKEN"], "timeout": 10}),
    );
    let options = s
        .builder()
        .allowed_tool("Bash")
        .env("HOOK_TOKEN", "token-123")
        .env("NOT_LISTED", "kept-secret")
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let refused = turn(&client, "make the refused file").await;
    assert!(
        !s.work().join("refused.txt").exists(),
        "the refused command ran"
    );
    assert!(
        tool_results(&refused).contains("PreToolUse:Bash hook error: the service said no"),
        "{}\nstderr:\n{}",
        tool_results(&refused),
        s.stderr()
    );
    let allowed = turn(&client, "make the allowed file").await;
    assert_eq!(the_result(&allowed).text(), Some("done"));
    assert!(
        s.work().join("allowed.txt").exists(),
        "the allowed command did not run: {}",
        tool_results(&allowed)
    );
    within(client.close()).await.unwrap();
    let posts = service.posts();
    assert_eq!(posts.len(), 2, "one post per call: {posts:?}");
    for post in &posts {
        assert_eq!(post.path, "/hooks/pre-tool");
        assert_eq!(post.header("authorization"), Some("Bearer token-123"));
        assert_eq!(post.header("x-unlisted"), Some("[]"), "{post:?}");
        assert_eq!(post.body["hook_event_name"], "PreToolUse");
        assert_eq!(post.body["tool_name"], "Bash");
    }
    assert_eq!(posts[0].body["tool_input"]["command"], "touch refused.txt");
}

/// Writes `hook` as the user's only PreToolUse hook for Bash.
fn write_user_hooks(s: &Scenario, hook: Value) {
    let settings = s.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}});
    std::fs::write(&settings, hooks.to_string()).unwrap();
}

/// One request the hook service got.
#[derive(Debug, Clone)]
struct Post {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Post {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A hook service on a local port: it refuses a command that mentions `refused` (a
/// PreToolUse deny) and answers anything else with an empty 200.
struct HookService {
    url: String,
    posts: Arc<Mutex<Vec<Post>>>,
}

impl HookService {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let posts = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&posts);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let kept = Arc::clone(&kept);
                tokio::spawn(async move {
                    let Some(post) = read_post(&mut stream).await else {
                        return;
                    };
                    let refuse = post.body["tool_input"]["command"]
                        .as_str()
                        .is_some_and(|c| c.contains("refused"));
                    kept.lock().unwrap().push(post);
                    let body = if refuse {
                        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                            "permissionDecision": "deny",
                            "permissionDecisionReason": "the service said no"}})
                        .to_string()
                    } else {
                        String::new()
                    };
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: \
                         {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Self { url, posts }
    }

    fn posts(&self) -> Vec<Post> {
        self.posts.lock().unwrap().clone()
    }
}

/// One request, read with the testkit's HTTP reader.
async fn read_post(stream: &mut tokio::net::TcpStream) -> Option<Post> {
    let (head, body) = twinwire_testkit::mcp_http::read_request(stream).await?;
    let mut lines = head.lines();
    let path = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Some(Post {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}
