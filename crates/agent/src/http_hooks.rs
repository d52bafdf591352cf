//! The http hooks of the settings (`hooks.<Event>[].hooks[]` of `type: "http"`): the event's
//! input posted as JSON to the hook's `url`, its answer read as a command hook's output.
//!
//! As Claude Code reads them: a 2xx with an empty body is a hook that had nothing to say; a
//! 2xx with a JSON object is read like a command hook's stdout (`decision`, `continue`,
//! `hookSpecificOutput`); any other answer, a failed connection or the hook's `timeout` (60 s
//! by default) is reported and ignored. A refusal reaches the model as Claude Code words it
//! (`PreToolUse:Bash hook error: <reason>`).
//!
//! Header values may name environment variables (`$NAME`, `${NAME}`): only those the hook
//! lists in `allowedEnvVars` (and the managed `httpHookAllowedEnvVars`, when set) are filled,
//! any other becomes empty. Stronger than Claude Code here: the session's credentials
//! ([`crate::child_env::is_removed`]) are never filled in, whatever the hook lists; a redirect
//! is not followed (the event goes only where the user pointed it); the answer is read up to
//! 64 KiB; and a `url` that `allowedHttpHookUrls` (when set) does not match is not posted to.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Map, Value};

/// How long a hook may take unless it says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The most of an answer read.
const MAX_ANSWER: usize = 64 * 1024;

/// One http hook.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HttpHook {
    pub(crate) url: String,
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) allowed_env: Vec<String>,
    pub(crate) timeout: Option<u64>,
}

/// What the managed settings allow http hooks (`allowedHttpHookUrls`,
/// `httpHookAllowedEnvVars`); `None` where a key is not set.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HttpLimits {
    pub(crate) urls: Option<Vec<String>>,
    pub(crate) env: Option<Vec<String>>,
}

impl HttpLimits {
    /// The limits of the effective settings.
    pub(crate) fn of(settings: &Map<String, Value>) -> Self {
        let list = |key: &str| {
            settings.get(key).and_then(Value::as_array).map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
        };
        Self {
            urls: list("allowedHttpHookUrls"),
            env: list("httpHookAllowedEnvVars"),
        }
    }
}

impl HttpHook {
    /// A settings entry of `type: "http"` with its `url`.
    pub(crate) fn from_entry(entry: &Map<String, Value>) -> Option<Self> {
        if entry.get("type").and_then(Value::as_str) != Some("http") {
            return None;
        }
        let strings = |key: &str| -> Vec<String> {
            entry
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        Some(Self {
            url: entry.get("url")?.as_str()?.to_owned(),
            headers: entry
                .get("headers")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
                .collect(),
            allowed_env: strings("allowedEnvVars"),
            timeout: entry.get("timeout").and_then(Value::as_u64),
        })
    }

    /// Posts `input` (the event's) and returns the hook's answer, as a command hook would have
    /// printed it, for [`crate::hooks::absorb`]; `None` when it had nothing to say or failed.
    pub(crate) async fn post(
        &self,
        event: &str,
        subject: Option<&str>,
        input: &Value,
        env: &BTreeMap<String, String>,
        limits: &HttpLimits,
    ) -> Option<Value> {
        if !limits
            .urls
            .as_ref()
            .is_none_or(|patterns| patterns.iter().any(|p| url_matches(p, &self.url)))
        {
            tracing::warn!(event, url = %self.url, "an http hook whose url allowedHttpHookUrls does not allow: not posted");
            return None;
        }
        let limit = self.timeout.map_or(DEFAULT_TIMEOUT, Duration::from_secs);
        match tokio::time::timeout(limit, self.exchange(input, env, limits)).await {
            Ok(Ok(None)) => None,
            Ok(Ok(Some(answer))) => Some(worded(answer, event, subject)),
            Ok(Err(why)) => {
                tracing::warn!(event, url = %self.url, %why, "an http hook failed");
                None
            }
            Err(_) => {
                tracing::warn!(event, url = %self.url, "an http hook gave no answer in {} s", limit.as_secs());
                None
            }
        }
    }

    async fn exchange(
        &self,
        input: &Value,
        env: &BTreeMap<String, String>,
        limits: &HttpLimits,
    ) -> Result<Option<Value>, String> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| err.to_string())?;
        let mut request = client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(input.to_string());
        for (name, value) in &self.headers {
            let filled = fill(value, |var| {
                let listed = self.allowed_env.iter().any(|v| v == var)
                    && limits
                        .env
                        .as_ref()
                        .is_none_or(|allowed| allowed.iter().any(|v| v == var));
                let secret = crate::child_env::is_removed(var);
                (listed && !secret)
                    .then(|| env.get(var).cloned())
                    .flatten()
                    .unwrap_or_default()
            });
            request = request.header(name.as_str(), filled);
        }
        let response = request.send().await.map_err(|err| err.to_string())?;
        let status = response.status();
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|err| err.to_string())?;
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err(format!("an answer over {MAX_ANSWER} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(format!("status {status}"));
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        match serde_json::from_slice(&body) {
            Ok(answer @ Value::Object(_)) => Ok(Some(answer)),
            _ => Err("an answer that is not a JSON object".to_owned()),
        }
    }
}

/// The answer with its refusal worded as Claude Code words a hook's
/// (`<event>:<subject> hook error: <reason>`).
fn worded(mut answer: Value, event: &str, subject: Option<&str>) -> Value {
    let said = |reason: &str| crate::hooks::hook_error(event, subject, reason);
    let specific = answer
        .get_mut("hookSpecificOutput")
        .and_then(Value::as_object_mut);
    if let Some(specific) = specific {
        if specific.get("permissionDecision").and_then(Value::as_str) == Some("deny") {
            let reason = specific
                .get("permissionDecisionReason")
                .and_then(Value::as_str)
                .unwrap_or("refused")
                .to_owned();
            specific.insert("permissionDecisionReason".into(), said(&reason).into());
        }
    }
    if answer.get("decision").and_then(Value::as_str) == Some("block") {
        let reason = answer["reason"].as_str().unwrap_or("blocked").to_owned();
        answer["reason"] = said(&reason).into();
    }
    answer
}

/// `value` with each `$NAME` and `${NAME}` replaced by `lookup(NAME)`.
fn fill(value: &str, lookup: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, used) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        if name.is_empty() || used == 0 {
            out.push('$');
            rest = after;
        } else {
            out.push_str(&lookup(name));
            rest = &after[used..];
        }
    }
    out.push_str(rest);
    out
}

/// Whether `url` matches `pattern`, where `*` stands for any run of characters.
fn url_matches(pattern: &str, url: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == url;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !url.starts_with(first) || !url[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &url[first.len()..url.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn headers_fill_only_what_is_named() {
        let lookup = |name: &str| match name {
            "TOKEN" => "t-1".to_owned(),
            _ => String::new(),
        };
        assert_eq!(fill("Bearer $TOKEN", lookup), "Bearer t-1");
        assert_eq!(fill("[${TOKEN}]-$OTHER.", lookup), "[t-1]-.");
        assert_eq!(fill("cost: 5$ and ${", lookup), "cost: 5$ and ${");
    }

    #[test]
    fn url_patterns_take_stars() {
        assert!(url_matches(
            "https://hooks.example.com/*",
            "https://hooks.example.com/a/b"
        ));
        assert!(url_matches(
            "http://127.0.0.1:*/x",
            "http://127.0.0.1:8080/x"
        ));
        assert!(!url_matches(
            "https://hooks.example.com/*",
            "https://evil.example/hooks.example.com/"
        ));
        assert!(url_matches("https://a.b/c", "https://a.b/c"));
        assert!(!url_matches("https://a.b/c", "https://a.b/cd"));
    }

    #[test]
    fn only_http_entries_with_a_url_are_hooks() {
        let entry = |value: Value| value.as_object().cloned().unwrap();
        let hook = HttpHook::from_entry(&entry(json!({"type": "http", "url": "http://x/h",
            "headers": {"A": "$B", "N": 1}, "allowedEnvVars": ["B"], "timeout": 3})))
        .unwrap();
        assert_eq!(
            hook.headers.len(),
            1,
            "a header that is not text is left out"
        );
        assert_eq!(hook.allowed_env, ["B"]);
        assert_eq!(HttpHook::from_entry(&entry(json!({"type": "http"}))), None);
        assert_eq!(
            HttpHook::from_entry(&entry(json!({"type": "command", "url": "x"}))),
            None
        );
    }

    #[test]
    fn refusals_are_worded_as_hook_errors() {
        let answer = worded(
            json!({"hookSpecificOutput": {"permissionDecision": "deny",
                "permissionDecisionReason": "no"}, "decision": "block", "reason": "stop"}),
            "PreToolUse",
            Some("Bash"),
        );
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecisionReason"],
            "PreToolUse:Bash hook error: no"
        );
        assert_eq!(answer["reason"], "PreToolUse:Bash hook error: stop");
    }

    /// A one-shot service on a local port: the request head it got, and the answer it gave.
    async fn serve_once(answer: &'static str) -> (String, tokio::task::JoinHandle<String>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let served = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut got = Vec::new();
            let mut chunk = [0u8; 4096];
            while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut chunk).await.unwrap();
                got.extend_from_slice(&chunk[..n]);
            }
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
            stream.write_all(reply.as_bytes()).await.unwrap();
            String::from_utf8_lossy(&got).to_lowercase()
        });
        (url, served)
    }

    #[tokio::test]
    async fn a_credential_is_never_filled_in_even_when_listed() {
        let (url, served) = serve_once(r#"{"decision": "block", "reason": "no"}"#).await;
        let hook = HttpHook {
            url,
            headers: BTreeMap::from([
                ("X-Key".to_owned(), "[$ANTHROPIC_API_KEY]".to_owned()),
                ("X-Team".to_owned(), "[$TEAM]".to_owned()),
            ]),
            allowed_env: vec!["ANTHROPIC_API_KEY".into(), "TEAM".into()],
            timeout: Some(10),
        };
        let env = BTreeMap::from([
            ("ANTHROPIC_API_KEY".to_owned(), "sk-secret".to_owned()),
            ("TEAM".to_owned(), "blue".to_owned()),
        ]);
        let answer = hook
            .post("Stop", None, &json!({"x": 1}), &env, &HttpLimits::default())
            .await
            .unwrap();
        assert_eq!(answer["reason"], "Stop hook error: no");
        let head = served.await.unwrap();
        assert!(head.contains("x-team: [blue]"), "{head}");
        assert!(head.contains("x-key: []"), "{head}");
        assert!(!head.contains("sk-secret"), "{head}");
    }

    #[tokio::test]
    async fn nothing_is_posted_to_a_url_the_managed_list_does_not_allow() {
        let (url, served) = serve_once("{}").await;
        let hook = HttpHook {
            url,
            headers: BTreeMap::new(),
            allowed_env: vec![],
            timeout: Some(5),
        };
        let limits = HttpLimits {
            urls: Some(vec!["https://allowed.example/*".into()]),
            env: None,
        };
        let answer = hook
            .post("Stop", None, &json!({}), &BTreeMap::new(), &limits)
            .await;
        assert_eq!(answer, None);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!served.is_finished(), "the hook connected");
        served.abort();
    }
}
