//! The redactor's rules, one case each; docs/tap-replay.md lists the same.

use std::borrow::Cow;

use serde_json::{json, Value};

use super::layers::MAX_LAYERS;
use super::*;

fn redactor() -> Redactor {
    Redactor::from_env([
        ("MY_SERVICE_TOKEN", "hunter2hunter2"),
        ("HOME", "/home/someone"),
        ("SHORT_KEY", "abc"),
    ])
}

#[test]
fn api_keys_and_env_values_in_text() {
    let r = redactor();
    assert_eq!(
        r.text("key sk-ant-api03-AbC_12-x, ok"),
        "key <redacted 21 chars>, ok"
    );
    assert_eq!(
        r.text("pw hunter2hunter2 at /home/someone"),
        "pw <redacted 14 chars> at /home/someone"
    );
    assert!(matches!(r.text("nothing here: 12"), Cow::Borrowed(_)));
    assert_eq!(r.text("abc stays"), "abc stays");
}

#[test]
fn bearer_authorization_and_named_values() {
    let r = Redactor::default();
    assert_eq!(
        r.text("Authorization: Bearer abcdefghijkl"),
        "Authorization: Bearer <redacted 12 chars>"
    );
    assert_eq!(
        r.text("curl -H 'authorization: Basic dXNlcjpwYXNz' x"),
        "curl -H 'authorization: Basic <redacted 12 chars>' x"
    );
    assert_eq!(
        r.text(r#"{\"access_token\": \"ya29.A0xyz\", \"max_tokens\": 100}"#),
        r#"{\"access_token\": \"<redacted 10 chars>\", \"max_tokens\": 100}"#
    );
    assert_eq!(
        r.text("https://x.test/cb?code=1&refresh_token=r3fr3sh&x=1"),
        "https://x.test/cb?code=1&refresh_token=<redacted 7 chars>&x=1"
    );
    // Usage counters and ordinary keys are left alone.
    let usage = r#"{"input_tokens": 100, "output_tokens": 20, "type": "text"}"#;
    assert!(matches!(r.text(usage), Cow::Borrowed(_)));
}

#[test]
fn json_lines_keep_their_shape() {
    let r = redactor();
    let line = r#"{"type":"user","message":{"content":"my key is sk-ant-api03-zzzzzzzz"},"password":"pw1"}"#;
    let out: Value = serde_json::from_str(&r.json_line(line)).unwrap();
    assert_eq!(out["message"]["content"], "my key is <redacted 21 chars>");
    assert_eq!(out["password"], "<redacted 3 chars>");
    let clean = r#"{"type":"keep_alive"}"#;
    assert!(matches!(r.json_line(clean), Cow::Borrowed(_)));
}

#[test]
fn env_values_in_the_meta_line() {
    let r = redactor();
    assert_eq!(r.env_value("SHORT_KEY", "abc"), "<redacted 3 chars>");
    assert_eq!(r.env_value("HOME", "/home/someone"), "/home/someone");
    assert_eq!(
        r.env_value("OTHER", "x sk-ant-oat01-secret"),
        "x <redacted 19 chars>"
    );
}

#[test]
fn redacted_text_matches_any_value_of_that_length() {
    assert!(matches_redacted("key <redacted 3 chars>!", "key abc!"));
    assert!(matches_redacted("<redacted 2 chars>", "é1"));
    assert!(!matches_redacted("key <redacted 3 chars>!", "key abcd!"));
    assert!(!matches_redacted("key <redacted 3 chars>", "key ab"));
    assert!(matches_redacted("plain", "plain"));
    assert!(!matches_redacted("plain", "plains"));
    assert!(matches_redacted("<redacted x chars>", "<redacted x chars>"));
}

/// Every kind of secret the module docs (and docs/reliability.md) list, one case each: the
/// secret must not appear in the recorded text, what is around it must.
#[test]
fn every_listed_secret_is_redacted() {
    let env = [
        ("ANTHROPIC_API_KEY", "plainvalue-0001"),
        ("GH_TOKEN", "plainvalue-0002"),
        ("CLIENT_SECRET", "plainvalue-0003"),
        ("DB_PASSWORD", "plainvalue-0004"),
        ("PROXY_AUTH", "plainvalue-0005"),
    ];
    let r = Redactor::from_env(env);
    let cases = [
        // Tokens with a known prefix.
        ("sk-ant-api03-abcdef", "sk-ant-api03-abcdef"),
        ("sk-ant-oat01-abcdef", "sk-ant-oat01-abcdef"),
        ("sk-proj-abcdef", "sk-proj-abcdef"),
        ("ghp_abcdef123", "ghp_abcdef123"),
        ("gho_abcdef123", "gho_abcdef123"),
        ("github_pat_abc123", "github_pat_abc123"),
        ("xoxb-123-abc", "xoxb-123-abc"),
        ("xoxp-123-abc", "xoxp-123-abc"),
        // Values of secret-named environment variables, found inside frames.
        ("key plainvalue-0001 end", "plainvalue-0001"),
        ("gh plainvalue-0002 end", "plainvalue-0002"),
        ("cs plainvalue-0003 end", "plainvalue-0003"),
        ("db plainvalue-0004 end", "plainvalue-0004"),
        ("px plainvalue-0005 end", "plainvalue-0005"),
        // Bearer tokens, Authorization headers.
        ("bearer tok3n-value", "tok3n-value"),
        ("Authorization: Basic dXNlcjpw", "dXNlcjpw"),
        ("Authorization=opaque-v4lue", "opaque-v4lue"),
        // Values after secret-looking names.
        ("\"access_token\": \"at-value\"", "at-value"),
        ("refresh_token=rt-value&x=1", "rt-value"),
        ("client_secret: cs-value", "cs-value"),
        ("password=pw-value", "pw-value"),
        ("passwd: pd-value", "pd-value"),
        ("?api_key=ak-value", "ak-value"),
        ("apikey=ak2-value", "ak2-value"),
        ("api-key: ak3-value", "ak3-value"),
        ("private_key=pk-value", "pk-value"),
    ];
    for (text, secret) in cases {
        let recorded = r.text(text);
        assert!(
            !recorded.contains(secret),
            "{text:?} recorded as {recorded:?}"
        );
        assert!(
            recorded.contains("<redacted"),
            "{text:?} recorded as {recorded:?}"
        );
    }
    // In the meta line every secret-named variable is redacted, however short.
    for (name, _) in env {
        assert_eq!(r.env_value(name, "x"), "<redacted 1 chars>", "{name}");
    }
    // JSON frames: the string value of a secret-named key, whole.
    let line =
        r#"{"type":"x","headers":{"Authorization":"Basic zz","X":"y"},"client_secret":"s3"}"#;
    let recorded: Value = serde_json::from_str(&r.json_line(line)).unwrap();
    assert_eq!(recorded["headers"]["Authorization"], "<redacted 8 chars>");
    assert_eq!(recorded["headers"]["X"], "y");
    assert_eq!(recorded["client_secret"], "<redacted 2 chars>");
    // Not secrets: names that only look like it.
    let kept = r#"{"type":"result","usage":{"input_tokens":5},"apiKeySource":"none"}"#;
    assert!(matches!(r.json_line(kept), Cow::Borrowed(_)));
}

/// A recorded string `recorded` as a reader of the frame sees it, compared with what it was.
fn assert_redacted_in_place(recorded: &str, original: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(!recorded.contains(secret), "{secret:?} left in {recorded}");
    }
    assert!(recorded.contains("<redacted "), "{recorded}");
    // The markers stand for exactly the characters they replace.
    assert!(
        matches_redacted(recorded, original),
        "{recorded}\n does not match\n{original}"
    );
}

/// A tool result line whose text is `inner`.
fn tool_result(inner: &str) -> String {
    json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": inner}
    ]}})
    .to_string()
}

fn tool_result_text(line: &str) -> String {
    let value: Value = serde_json::from_str(line).unwrap();
    value["message"]["content"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn secrets_inside_json_held_by_a_string_are_redacted() {
    let r = Redactor::default();
    // A tool's output that is a JSON document: a password with spaces, a PEM key, and a
    // short value of a secret-named key.
    let inner = json!({
        "user": "ada",
        "password": "correct horse battery staple",
        "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
        "passwd": "12",
    })
    .to_string();
    let line = tool_result(&inner);
    let recorded = r.json_line(&line);
    let text = tool_result_text(&recorded);
    assert_redacted_in_place(&text, &inner, &["horse", "battery", "MIIEvQ", "\"12\""]);
    // The document is still JSON, with its other members as they were.
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["user"], "ada");
    assert_eq!(doc["passwd"], "<redacted 2 chars>");
    // Everything outside the strings keeps its bytes: the line is edited in place.
    let prefix = &line[..line.find("\"content\":\"").unwrap()];
    assert!(recorded.starts_with(prefix), "{recorded}");
}

/// A secret under any number of layers of JSON held in strings, up to the limit.
#[test]
fn secrets_under_many_layers_of_escaping_are_redacted() {
    let r = Redactor::from_env([("DB_PASSWORD", "pa\"ss\\word-value")]);
    for layers in 1..=MAX_LAYERS - 1 {
        let mut doc = json!({
            "note": "kept",
            "clientSecret": "a secret with spaces",
            "token": {"nested": ["deep value", 424242]},
            "dsn": "postgres://u:pa\"ss\\word-value@db/x",
        })
        .to_string();
        for _ in 0..layers {
            doc = json!({"layer": doc}).to_string();
        }
        let line = tool_result(&doc);
        let recorded = r.json_line(&line);
        // The variable's value holds a quote and a backslash: its string must be unescaped
        // once more than the document holding it, which the deepest layer is not.
        let env_leak = if layers + 1 < MAX_LAYERS {
            "ss\\"
        } else {
            "deep value"
        };
        for leak in [
            "a secret with spaces",
            "with spaces",
            "deep value",
            "424242",
            env_leak,
        ] {
            let mut text = tool_result_text(&recorded);
            // Peel the layers and look at each.
            for _ in 0..layers {
                assert!(!text.contains(leak), "{layers} layers: {leak:?} in {text}");
                let value: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|err| panic!("{layers} layers: {err}: {text}"));
                text = value["layer"].as_str().unwrap().to_owned();
            }
            assert!(!text.contains(leak), "{layers} layers: {leak:?} in {text}");
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["note"], "kept");
            assert_eq!(value["token"]["nested"][1], "<redacted 6 chars>");
            assert!(matches_redacted(
                value["clientSecret"].as_str().unwrap(),
                "a secret with spaces"
            ));
        }
    }
}

/// Each secret-named key of the list, at depth, with each shape of value.
#[test]
fn secret_named_keys_are_matched_by_normalized_name_at_any_depth() {
    let r = Redactor::default();
    let names = [
        "privateKey",
        "secretKey",
        "private_key",
        "password",
        "token",
        "Proxy-Authorization",
        "Proxy-Auth",
        "apiKey",
        "clientSecret",
        "accessToken",
        "refreshToken",
        "cookie",
        "Cookie",
        "cookies",
        "Set-Cookie",
        "x-api-key",
        "X-API-KEY",
        "api_key",
        "passphrase",
        "credentials",
    ];
    let shapes = [
        json!("s3cr3t value one"),
        json!(["s3cr3t value one", "s3cr3t-two"]),
        json!({"inner": "s3cr3t value one", "more": {"deeper": ["s3cr3t-two", 987654]}}),
        json!(987654),
    ];
    for name in names {
        for shape in &shapes {
            let frame = json!({"type": "control_request", "request": {"subtype": "x",
                "config": {"servers": [{"name": "kept-name", name: shape}]}}});
            let line = frame.to_string();
            let recorded = r.json_line(&line);
            for leak in ["s3cr3t", "987654"] {
                assert!(!recorded.contains(leak), "{name}: {leak} in {recorded}");
            }
            let value: Value = serde_json::from_str(&recorded).unwrap();
            let server = &value["request"]["config"]["servers"][0];
            assert_eq!(server["name"], "kept-name", "{recorded}");
            // The structure under the key stays: arrays stay arrays, objects objects;
            // numbers become markers (strings).
            let under = &server[name];
            match shape {
                Value::Array(items) => {
                    assert_eq!(under.as_array().map(Vec::len), Some(items.len()))
                }
                Value::Object(_) => assert!(under["more"]["deeper"].is_array(), "{recorded}"),
                _ => assert!(
                    under.as_str().unwrap().starts_with("<redacted "),
                    "{recorded}"
                ),
            }
        }
    }
    // Names that only look like one stay.
    let kept = json!({"usage": {"input_tokens": 5, "max_tokens": 9, "cache_read_input_tokens": 1},
        "apiKeySource": "none", "author": "ada", "keyboard": "qwerty", "keys": ["a", "b"]})
    .to_string();
    assert!(matches!(r.json_line(&kept), Cow::Borrowed(_)));
}

#[test]
fn headers_and_cookies_in_text_are_redacted_whole() {
    let r = Redactor::default();
    let cases = [
        (
            "Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "dXNlcjpwYXNzd29yZA",
        ),
        ("x-api-key: abcd1234efgh", "abcd1234efgh"),
        (
            "Cookie: session=abc123def; csrftoken=zzz999yyy",
            "zzz999yyy",
        ),
        ("Set-Cookie: sid=q1w2e3r4t5; Path=/; HttpOnly", "q1w2e3r4t5"),
        ("apiKey=plain-value-1", "plain-value-1"),
        ("clientSecret: plain-value-2", "plain-value-2"),
    ];
    for (text, secret) in cases {
        let recorded = r.text(text);
        assert!(
            !recorded.contains(secret),
            "{text:?} recorded as {recorded:?}"
        );
    }
}

/// The env and headers of MCP servers given inline on the command line.
#[test]
fn mcp_server_env_and_headers_in_the_argv_are_redacted() {
    let r = Redactor::default();
    let config = json!({"mcpServers": {
        "db": {"command": "db-mcp", "args": ["--port", "5432"],
               "env": {"DATABASE_URL": "postgres://ada:hunter2@db/x", "PLAIN": "visible-ish"}},
        "web": {"type": "http", "url": "https://mcp.example.test",
                "headers": {"X-Tenant": "tenant-secret-id"}}
    }})
    .to_string();
    let argv: Vec<String> = [
        "--output-format",
        "stream-json",
        "--mcp-config",
        &config,
        "--settings",
        r#"{"env": {"CUSTOM": "settings-env-value"}}"#,
        "--mcp-config",
        "/path/to/servers.json",
    ]
    .map(str::to_owned)
    .to_vec();
    let recorded = r.argv(&argv);
    let joined = recorded.join(" ");
    for leak in [
        "hunter2",
        "visible-ish",
        "tenant-secret-id",
        "settings-env-value",
    ] {
        assert!(!joined.contains(leak), "{leak} in {joined}");
    }
    let servers: Value = serde_json::from_str(&recorded[3]).unwrap();
    assert_eq!(servers["mcpServers"]["db"]["command"], "db-mcp");
    assert_eq!(servers["mcpServers"]["db"]["args"][1], "5432");
    assert_eq!(
        servers["mcpServers"]["web"]["url"],
        "https://mcp.example.test"
    );
    assert_eq!(
        servers["mcpServers"]["db"]["env"]["PLAIN"],
        "<redacted 11 chars>"
    );
    // A path is only a path: the file is not read.
    assert_eq!(recorded[7], "/path/to/servers.json");
    assert_eq!(recorded[..3], argv[..3]);
}

/// Repeated prefixes and names inside one token are read once (a quadratic reading of these
/// would take minutes); the whole run is one secret.
#[test]
fn repeated_prefixes_and_names_are_one_secret() {
    let r = Redactor::default();
    let prefixes = format!("x {} y", "sk-ant-".repeat(20_000));
    assert_eq!(r.text(&prefixes), "x <redacted 140000 chars> y");
    let names = format!("set {}x ok", "password=".repeat(20_000));
    assert_eq!(r.text(&names), "set password=<redacted 179992 chars> ok");
    let keys = format!("{}\n", "-----BEGIN PRIVATE KEY-----\n".repeat(5_000));
    assert!(r
        .text(&keys)
        .starts_with("-----BEGIN PRIVATE KEY-----<redacted "));
}

#[test]
fn redacting_what_was_redacted_changes_nothing() {
    let r = Redactor::from_env([("DB_PASSWORD", "plainvalue-0004")]);
    let texts = [
        "sk-ant-api03-abcdef and ghp_abcdef123 and plainvalue-0004",
        "Authorization: Bearer tok3n-value-long",
        "Authorization: Basic dXNlcjpw",
        "Cookie: sid=abc123456; theme=dark-mode-x",
        "Set-Cookie: a=1234567890; Path=/",
        "refresh_token=rt-value&x=1 password=pw-value ?api_key=ak-value",
        "\"access_token\": \"at-value\", x-api-key: xk-123456789",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----",
        r#"log: {\"password\": \"hunter22\", \"n\": 1}"#,
    ];
    for text in texts {
        let once = r.text(text).into_owned();
        assert_ne!(once, text);
        assert_eq!(r.text(&once), once, "{text:?}");
    }
    let lines = [
        json!({"headers": {"Authorization": "Basic zz", "Cookie": "sid=cookie-value-1"},
               "client_secret": "s3", "token": 12345, "list": {"password": ["a", "b"]}}),
        json!({"content": json!({"privateKey": "pk-deep", "raw":
            json!({"apiKey": "k-in-k"}).to_string()}).to_string()}),
        json!({"text": "curl -H 'x-api-key: xk-123456789' -H 'Authorization: Bearer abcdefgh1234'"}),
    ];
    for line in lines {
        let line = line.to_string();
        let once = r.json_line(&line).into_owned();
        assert_ne!(once, line);
        assert!(
            matches!(r.json_line(&once), Cow::Borrowed(_)),
            "{once} became {}",
            r.json_line(&once)
        );
        let mut value: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(r.value(&mut value), 0, "{once}");
    }
}
