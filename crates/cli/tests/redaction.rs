//! What `twinwire tap --record` redacts, end to end: `fake-claude` behind a real tap over real
//! pipes, the host's side read line by line. The relayed bytes are never changed; the
//! recording holds no secret, and what docs/tap-replay.md says is not redacted is recorded as
//! it came, item by item.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;
use common::{fake_claude, twinwire};

const API_KEY: &str =
    "sk-ant-api03-Zx9wVu8tSr7qPo6nMl5kJi4hGf3eDc2bA1-Qq8Rr7Ss6Tt5Uu4Vv3Ww2Xx1Yy0Zz9_AaBbCcDdEeFf";

/// What a session through the tap gave.
struct Tapped {
    /// The lines the host got, as they came.
    host: Vec<String>,
    /// The recording's lines.
    record: Vec<Value>,
    /// The recording as text.
    raw: String,
}

impl Tapped {
    /// The text of the deltas of one block, in order, as the recording holds them.
    fn recorded_deltas(&self, message: usize, index: u64) -> Vec<String> {
        deltas(
            self.record
                .iter()
                .filter(|l| l["dir"] == "out")
                .map(|l| &l["msg"]),
            message,
            index,
        )
    }

    /// The same, as the host got it.
    fn relayed_deltas(&self, message: usize, index: u64) -> Vec<String> {
        let frames: Vec<Value> = self
            .host
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        deltas(frames.iter(), message, index)
    }
}

/// The delta texts of block `index` of the `message`-th streamed message.
fn deltas<'a>(frames: impl Iterator<Item = &'a Value>, message: usize, index: u64) -> Vec<String> {
    let mut seen = 0;
    let mut out = Vec::new();
    for frame in frames {
        let event = &frame["event"];
        if frame["type"] != "stream_event" {
            continue;
        }
        if event["type"] == "message_start" {
            seen += 1;
        }
        if seen == message + 1 && event["type"] == "content_block_delta" && event["index"] == index
        {
            let delta = &event["delta"];
            let text = delta["text"]
                .as_str()
                .or(delta["thinking"].as_str())
                .or(delta["partial_json"].as_str())
                .unwrap();
            out.push(text.to_owned());
        }
    }
    out
}

/// Runs the tap with `script` for the fake and `args` for it, sends one user message, reads
/// up to the result, closes the input and waits for the tap to end.
fn tap_session(script: Value, args: &[&str], env: &[(&str, &str)]) -> Tapped {
    let dir = tempfile::tempdir().unwrap();
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let record = dir.path().join("record.jsonl");
    let mut command = Command::new(twinwire());
    command
        .arg("tap")
        .arg("--record")
        .arg(&record)
        .arg("--")
        .arg(fake_claude())
        .args(args)
        .env_remove("TWINWIRE_TAP_CLI")
        .env_remove("TWINWIRE_TAP_RECORD")
        .env_remove("TWINWIRE_TAP_POLICY")
        .env("TWINWIRE_FAKE_SCRIPT", &script_path)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let user = json!({"type": "user", "message": {"role": "user", "content": "go"}});
    writeln!(stdin, "{user}").unwrap();
    stdin.flush().unwrap();
    let mut host = Vec::new();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a line from the tap");
        let done = line.contains("\"type\":\"result\"");
        host.push(line);
        if done {
            break;
        }
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the tap did not exit");
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    let raw = std::fs::read_to_string(&record).unwrap();
    let record = raw
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    Tapped { host, record, raw }
}

/// A `stream_event` frame around `event`.
fn event(event: Value) -> Value {
    json!({"emit": {"type": "stream_event", "event": event, "session_id": "s",
                    "parent_tool_use_id": null, "uuid": "u"}})
}

/// The emit steps of one streamed message whose block 0 arrives in `pieces` of `kind`
/// (`text_delta`, `thinking_delta`, `input_json_delta`).
fn streamed(kind: &str, pieces: &[&str]) -> Vec<Value> {
    let field = match kind {
        "text_delta" => "text",
        "thinking_delta" => "thinking",
        _ => "partial_json",
    };
    let mut steps = vec![
        event(json!({"type": "message_start", "message": {"id": "msg_1"}})),
        event(json!({"type": "content_block_start", "index": 0, "content_block": {}})),
    ];
    for piece in pieces {
        steps.push(event(json!({"type": "content_block_delta", "index": 0,
                                "delta": {"type": kind, field: piece}})));
    }
    steps.push(event(json!({"type": "content_block_stop", "index": 0})));
    steps.push(event(json!({"type": "message_stop"})));
    steps
}

/// `text` cut at the byte offsets `cuts`.
fn cut<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(text.len());
    bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

/// Checks that `recorded` (a block's delta texts as recorded) is `original` with the secret
/// at `at` replaced: the text before and after it kept, in its place only markers whose
/// counts add up to its length, one per delta it touched.
fn assert_secret_redacted(recorded: &[String], original: &[&str], secret: &str) {
    assert_eq!(
        recorded.len(),
        original.len(),
        "one recorded delta per delta"
    );
    let whole: String = original.concat();
    let at = whole.find(secret).unwrap();
    let (before, after) = (&whole[..at], &whole[at + secret.len()..]);
    let joined = recorded.concat();
    assert!(joined.starts_with(before), "{joined:?}");
    assert!(joined.ends_with(after), "{joined:?}");
    let middle = &joined[before.len()..joined.len() - after.len()];
    let mut rest = middle;
    let mut counted = 0;
    while !rest.is_empty() {
        let marker = rest.strip_prefix("<redacted ").expect(middle);
        let (count, tail) = marker.split_once(" chars>").expect(middle);
        counted += count.parse::<usize>().unwrap();
        rest = tail;
    }
    assert_eq!(counted, secret.chars().count(), "{middle}");
    // Each recorded delta stands for its own text: a replay shows the same shape.
    for (recorded, original) in recorded.iter().zip(original) {
        assert!(
            matches_with_markers(recorded, original),
            "{recorded:?} for {original:?}"
        );
    }
}

/// Whether `recorded` is `original` with markers for some of its characters.
fn matches_with_markers(recorded: &str, original: &str) -> bool {
    let Some(at) = recorded.find("<redacted ") else {
        return recorded == original;
    };
    let Some(rest) = original.strip_prefix(&recorded[..at]) else {
        return false;
    };
    let (count, tail) = recorded[at + "<redacted ".len()..]
        .split_once(" chars>")
        .unwrap();
    let count: usize = count.parse().unwrap();
    let Some((skip, _)) = rest
        .char_indices()
        .nth(count)
        .or((rest.chars().count() == count).then_some((rest.len(), ' ')))
    else {
        return false;
    };
    matches_with_markers(tail, &rest[skip..])
}

/// No run of 12 characters of `secret` is anywhere in `text`.
fn assert_no_part_of(text: &str, secret: &str) {
    let chars: Vec<char> = secret.chars().collect();
    for window in chars.windows(12) {
        let part: String = window.iter().collect();
        assert!(
            !text.contains(&part),
            "{part:?} of the secret is in the recording"
        );
    }
}

#[test]
fn a_key_cut_across_streamed_deltas_is_redacted_in_the_recording_only() {
    let text = format!("my key is {API_KEY} and that is all.\nBye");
    let key_at = text.find(API_KEY).unwrap();
    // One character per delta, then cuts inside the prefix, in the body, one byte before
    // its end, and at its very end.
    let one_char: Vec<&str> = text
        .char_indices()
        .map(|(i, c)| &text[i..i + c.len_utf8()])
        .collect();
    let cuts = [
        vec![key_at + 4],
        vec![key_at + 2, key_at + 9, key_at + 40],
        vec![key_at + API_KEY.len() - 1],
        vec![key_at, key_at + API_KEY.len()],
    ];
    let mut messages: Vec<(String, Vec<&str>)> = vec![("text_delta".into(), one_char)];
    for cuts in &cuts {
        messages.push(("text_delta".into(), cut(&text, cuts)));
    }
    // Thinking, and a tool's input streamed as JSON (the key escaped inside it).
    messages.push(("thinking_delta".into(), cut(&text, &[key_at + 20])));
    let input =
        json!({"command": format!("curl -H \"x-api-key: {API_KEY}\" https://x.test")}).to_string();
    let input_key_at = input.find(API_KEY).unwrap();
    messages.push((
        "input_json_delta".into(),
        cut(&input, &[input_key_at + 3, input_key_at + 50]),
    ));
    let steps: Vec<Value> = messages
        .iter()
        .flat_map(|(kind, pieces)| streamed(kind, pieces))
        .chain([json!({"text": "done"})])
        .collect();
    let tapped = tap_session(json!({"turns": [{"steps": steps}]}), &[], &[]);

    assert_no_part_of(&tapped.raw, API_KEY);
    for (message, (_, pieces)) in messages.iter().enumerate() {
        // The host got every delta as it was sent.
        assert_eq!(
            tapped.relayed_deltas(message, 0),
            *pieces,
            "message {message}"
        );
        let recorded = tapped.recorded_deltas(message, 0);
        assert_secret_redacted(&recorded, pieces, API_KEY);
    }
    // The recording keeps the order of the relay: its times never go back.
    let times: Vec<f64> = tapped.record[1..]
        .iter()
        .map(|l| l["t"].as_f64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        tapped.record.iter().filter(|l| l["dir"] == "out").count(),
        tapped.host.len()
    );
}

#[test]
fn keys_in_two_blocks_streamed_at_once_are_each_redacted() {
    let first = format!("first {API_KEY} one");
    let second = format!("second bearer abcdefghijklmnopqrstuvwxyz0123 {API_KEY} two");
    // Blocks 0 and 1 of one message, their one-character deltas interleaved.
    let mut steps = vec![event(
        json!({"type": "message_start", "message": {"id": "msg_1"}}),
    )];
    let chars = |s: &str| -> Vec<String> { s.chars().map(String::from).collect() };
    let (a, b) = (chars(&first), chars(&second));
    for i in 0..a.len().max(b.len()) {
        for (index, pieces) in [(0, &a), (1, &b)] {
            if let Some(piece) = pieces.get(i) {
                steps.push(event(json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": piece}})));
            }
        }
    }
    steps.push(event(json!({"type": "message_stop"})));
    steps.push(json!({"text": "done"}));
    let tapped = tap_session(json!({"turns": [{"steps": steps}]}), &[], &[]);
    assert_no_part_of(&tapped.raw, API_KEY);
    assert!(!tapped.raw.contains("abcdefghijkl"));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert_secret_redacted(&tapped.recorded_deltas(0, 0), &a, API_KEY);
    let joined = tapped.recorded_deltas(0, 1).concat();
    assert!(joined.starts_with("second bearer <redacted "), "{joined}");
    assert!(joined.ends_with(" two"), "{joined}");
}

#[test]
fn json_in_tool_results_and_secret_named_keys_are_redacted() {
    let inner = json!({
        "status": "ok",
        "config": {"password": ["correct horse", "battery staple"],
                   "token": {"value": "tok-zzz-999", "expires": 1_700_000_000}},
        "raw": json!({"privateKey": "pk-deep-layer-secret"}).to_string(),
    })
    .to_string();
    let headers = json!({"type": "mystery_kind", "request": {"headers": {
        "Proxy-Authorization": "Basic cHJveHk6c2VjcmV0",
        "x-api-key": "xk-123456789",
        "Cookie": "sid=cookie-value-1; other=cookie-value-2",
        "Accept": "text/plain"}, "apiKey": "ak-98765", "clientSecret": "cs-abcdef",
        "accessToken": "at-abcdef", "refreshToken": "rt-abcdef", "secretKey": "sk2-abcdef"}});
    let script = json!({"turns": [{"steps": [
        {"tool": {"name": "Bash", "input": {"command": "cat config.json"}, "output": inner}},
        {"emit": headers},
        {"text": "done"}
    ]}]});
    let tapped = tap_session(script, &[], &[]);
    // Relayed untouched.
    assert!(tapped.host.iter().any(|l| l.contains("correct horse")));
    assert!(tapped.host.iter().any(|l| l.contains("cookie-value-2")));
    for leak in [
        "horse",
        "battery",
        "tok-zzz-999",
        "1700000000",
        "pk-deep-layer-secret",
        "cHJveHk6c2VjcmV0",
        "xk-123456789",
        "cookie-value",
        "ak-98765",
        "cs-abcdef",
        "at-abcdef",
        "rt-abcdef",
        "sk2-abcdef",
    ] {
        assert!(!tapped.raw.contains(leak), "{leak} is in the recording");
    }
    let recorded = tapped
        .record
        .iter()
        .find(|l| l["msg"]["type"] == "mystery_kind")
        .unwrap();
    assert_eq!(
        recorded["msg"]["request"]["headers"]["Accept"],
        "text/plain"
    );
    // The tool result is still a JSON document, its other members as they were.
    let result = tapped
        .record
        .iter()
        .find_map(|l| {
            let block = &l["msg"]["message"]["content"][0];
            (block["type"] == "tool_result").then(|| block["content"].clone())
        })
        .unwrap();
    let text = match &result {
        Value::String(text) => text.clone(),
        other => other[0]["text"].as_str().unwrap().to_owned(),
    };
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["config"]["token"]["expires"], "<redacted 10 chars>");
}

#[test]
fn mcp_server_env_given_in_the_argv_is_redacted() {
    let config = json!({"mcpServers": {"db": {"command": "db-mcp",
        "env": {"DATABASE_URL": "postgres://ada:hunter2@db/x", "REGION": "eu-secret-region"}}}})
    .to_string();
    let tapped = tap_session(
        json!({"turns": [{"steps": [{"text": "done"}]}]}),
        &["--mcp-config", &config, "--mcp-config", "servers.json"],
        &[],
    );
    let argv = tapped.record[0]["argv"].as_array().unwrap();
    assert!(!tapped.raw.contains("hunter2") && !tapped.raw.contains("eu-secret-region"));
    let servers: Value = serde_json::from_str(argv[1].as_str().unwrap()).unwrap();
    assert_eq!(servers["mcpServers"]["db"]["command"], "db-mcp");
    assert_eq!(
        servers["mcpServers"]["db"]["env"]["REGION"],
        "<redacted 16 chars>"
    );
    assert_eq!(argv[3], "servers.json");
}

/// docs/tap-replay.md, "What is redacted and what is not": each thing it says is not
/// redacted is recorded as it came. If one of these starts being redacted, change the docs.
#[test]
fn what_the_docs_say_is_not_redacted_is_recorded_as_it_came() {
    let (head, tail) = API_KEY.split_at(40);
    let base64_key = "c2stYW50LWFwaTAzLVp4OXdWdTh0U3I3cVBvNm5NbDVrSmk0aEdmM2VEYzJiQTE=";
    let aws_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let hex_key: String = API_KEY.bytes().map(|b| format!("{b:02x}")).collect();
    let config_file = tempfile::NamedTempFile::new().unwrap();
    let file_secret = "file-held-secret-value";
    std::fs::write(
        config_file.path(),
        json!({"mcpServers": {"x": {"command": "x", "env": {"K": file_secret}}}}).to_string(),
    )
    .unwrap();
    let config_path = config_file.path().to_str().unwrap();
    let long_value: String = (0..1500)
        .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
        .collect();
    let one_char: Vec<String> = format!("long {long_value} end")
        .chars()
        .map(String::from)
        .collect();
    let mut steps = vec![
        // 1. A key encoded (base64, hex) and secrets in formats nobody lists.
        json!({"text": format!("encoded {base64_key} and aws {aws_secret}")}),
        json!({"text": format!("hex {hex_key} and postgres://ada:pl41n-pass@db/x")}),
        // 2. A key cut across two content blocks of one message.
        event(json!({"type": "message_start", "message": {"id": "msg_1"}})),
        event(json!({"type": "content_block_delta", "index": 0,
                     "delta": {"type": "text_delta", "text": format!("a {head}")}})),
        event(json!({"type": "content_block_stop", "index": 0})),
        event(json!({"type": "content_block_delta", "index": 1,
                     "delta": {"type": "text_delta", "text": format!("{tail} b")}})),
        event(json!({"type": "content_block_stop", "index": 1})),
        event(json!({"type": "message_stop"})),
        // 2. A key cut across two tool results.
        json!({"tool": {"name": "Bash", "input": {"command": "part 1"},
                        "output": format!("x {head}")}}),
        json!({"tool": {"name": "Bash", "input": {"command": "part 2"},
                        "output": format!("{tail} y")}}),
        // 3. A secret variable's value shorter than 8 characters, inside a frame.
        json!({"text": "the pin is 4242xy"}),
        // 4. A secret variable's value longer than the look-ahead (1 KiB), cut into
        //    one-character deltas.
        event(json!({"type": "message_start", "message": {"id": "msg_2"}})),
    ];
    for piece in &one_char {
        steps.push(event(json!({"type": "content_block_delta", "index": 0,
                                "delta": {"type": "text_delta", "text": piece}})));
    }
    steps.push(event(json!({"type": "message_stop"})));
    // 5. Names that only look secret.
    steps.push(
        json!({"emit": {"type": "mystery_kind", "usage": {"input_tokens": 12345},
                               "apiKeySource": "user-visible"}}),
    );
    steps.push(json!({"text": "done"}));
    let tapped = tap_session(
        json!({"turns": [{"steps": steps}]}),
        &["--mcp-config", config_path],
        &[
            ("SHORT_PIN_SECRET", "4242xy"),
            ("LONG_TOKEN", &long_value),
            ("DATABASE_URL", "postgres://ada:pl41n-pass@db/x"),
        ],
    );
    let raw = &tapped.raw;
    assert!(raw.contains(base64_key), "1: base64");
    assert!(raw.contains(&hex_key), "1: hex");
    assert!(raw.contains(aws_secret), "1: unlisted format");
    assert!(
        raw.contains("postgres://ada:pl41n-pass@db/x"),
        "1: connection string"
    );
    assert_eq!(
        tapped.record[0]["env"]["DATABASE_URL"],
        "postgres://ada:pl41n-pass@db/x"
    );
    // 2: each half is recorded (the first half starts with the prefix, so only the
    // prefix and what follows it in its own frame are redacted there).
    assert!(raw.contains(&format!("{tail} b")), "2: second block");
    assert!(raw.contains(&format!("{tail} y")), "2: second tool result");
    assert!(
        !raw.contains(head),
        "the first halves hold the prefix: redacted"
    );
    assert!(raw.contains("the pin is 4242xy"), "3: a short value");
    // ...yet in the meta line every secret variable is redacted, however short.
    assert_eq!(
        tapped.record[0]["env"]["SHORT_PIN_SECRET"],
        "<redacted 6 chars>"
    );
    // 4: the part of the long value written before its end arrived is recorded.
    let recorded = tapped.recorded_deltas(1, 0).concat();
    assert!(
        recorded.contains(&long_value[..200]),
        "4: {}",
        &recorded[..300]
    );
    let mystery = tapped
        .record
        .iter()
        .find(|l| l["msg"]["type"] == "mystery_kind")
        .unwrap();
    assert_eq!(mystery["msg"]["usage"]["input_tokens"], 12345, "5");
    assert_eq!(mystery["msg"]["apiKeySource"], "user-visible", "5");
    // 6: a configuration file is named, not read.
    assert_eq!(tapped.record[0]["argv"][1], config_path, "6");
    assert!(!raw.contains(file_secret), "6");
    // 7: the conversation itself.
    assert!(tapped
        .record
        .iter()
        .any(|l| l["msg"]["message"]["content"][0]["text"] == "done"));
}

/// The recorder's throughput on a 100 MB session of realistic frames (streamed deltas, text,
/// tool results with JSON, usage), measured through the real tap with `cat` as the CLI:
/// relaying only, then relaying and recording, in CPU seconds. A benchmark, not a test: run it with
/// `cargo test --release -p twinwire-cli --test redaction -- --ignored --nocapture
/// recording_throughput`; `TWINWIRE_BENCH_TAP` names another `twinwire` binary to measure.
#[test]
#[ignore = "a benchmark"]
#[allow(clippy::print_stderr)]
fn recording_throughput() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session.jsonl");
    let size = write_session(&session, 100_000_000);
    let tap = std::env::var_os("TWINWIRE_BENCH_TAP")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| twinwire().to_path_buf());
    let run = |record: bool| {
        let mut command = Command::new(&tap);
        command.arg("tap");
        if record {
            command.arg("--record").arg(dir.path().join("record.jsonl"));
        }
        command
            .arg("--")
            .arg("cat")
            .arg(&session)
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        // CPU time (user and system) of the tap and `cat`: the machine may be busy.
        let cpu = || {
            let usage =
                nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
                    .unwrap();
            let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
            seconds(usage.user_time()) + seconds(usage.system_time())
        };
        let (before, started) = (cpu(), Instant::now());
        assert!(command.status().unwrap().success());
        (cpu() - before, started.elapsed().as_secs_f64())
    };
    let megabytes = size as f64 / 1e6;
    for _ in 0..3 {
        let (relay, relay_wall) = run(false);
        let (recorded, recorded_wall) = run(true);
        eprintln!(
            "{megabytes:.0} MB: relay only {relay:.2} s CPU ({relay_wall:.2} s), relay and \
             record {recorded:.2} s CPU ({recorded_wall:.2} s); the recorder alone {:.0} MB/s",
            megabytes / (recorded - relay).max(1e-9)
        );
    }
}

/// Writes about `bytes` of a session as the CLI's stdout shows it; returns the size.
fn write_session(path: &Path, bytes: usize) -> usize {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let words = [
        "the",
        "function",
        "returns",
        "a",
        "value",
        "error",
        "file",
        "src/main.rs",
        "let",
        "match",
        "token",
        "input",
        "config",
        "{",
        "}",
        "\"quoted\"",
        "path",
        "line\n",
        "test",
    ];
    let sentence = |n: usize, next: &mut dyn FnMut() -> u64| -> String {
        (0..n)
            .map(|_| words[(next() % words.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut written = 0;
    let mut turn = 0;
    while written < bytes {
        turn += 1;
        let mut lines = vec![
            json!({"type": "stream_event", "session_id": "s", "uuid": "u",
            "parent_tool_use_id": null, "event": {"type": "message_start",
            "message": {"id": format!("msg_{turn}"), "usage": {"input_tokens": 10}}}}),
        ];
        let mut text = String::new();
        for _ in 0..200 {
            let piece = sentence(1 + (next() % 4) as usize, &mut next);
            text.push_str(&piece);
            lines.push(
                json!({"type": "stream_event", "session_id": "s", "uuid": "u",
                "parent_tool_use_id": null, "event": {"type": "content_block_delta",
                "index": 0, "delta": {"type": "text_delta", "text": piece}}}),
            );
        }
        lines.push(json!({"type": "assistant", "session_id": "s", "uuid": "u",
            "message": {"id": format!("msg_{turn}"), "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 1200, "output_tokens": 300}}}));
        lines.push(
            json!({"type": "stream_event", "session_id": "s", "uuid": "u",
            "parent_tool_use_id": null, "event": {"type": "content_block_stop", "index": 0}}),
        );
        lines.push(
            json!({"type": "stream_event", "session_id": "s", "uuid": "u",
            "parent_tool_use_id": null, "event": {"type": "message_stop"}}),
        );
        let document = json!({"files": (0..50).map(|i| json!({"name": format!("f{i}.rs"),
            "body": sentence(60, &mut next)})).collect::<Vec<_>>(), "api_key": "sk-ant-x"})
        .to_string();
        lines.push(json!({"type": "user", "session_id": "s", "uuid": "u",
            "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_1", "content": document}]}}));
        lines.push(
            json!({"type": "result", "subtype": "success", "session_id": "s",
            "result": sentence(30, &mut next), "usage": {"input_tokens": 5, "output_tokens": 9}}),
        );
        for line in lines {
            let text = line.to_string();
            out.write_all(text.as_bytes()).unwrap();
            out.write_all(b"\n").unwrap();
            written += text.len() + 1;
        }
    }
    out.flush().unwrap();
    written
}
