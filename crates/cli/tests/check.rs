//! `twinwire check` as a user runs it: over the recorded transcripts, and over broken input.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn twinwire() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twinwire"))
}

fn transcripts() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts"
    ))
}

#[test]
fn every_recorded_transcript_checks_clean() {
    let output = twinwire()
        .arg("check")
        .arg("--json")
        .arg(transcripts())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = walkdir_jsonl(&transcripts());
    assert_eq!(report["files"], files);
    assert!(
        report["frames"].as_u64().unwrap() > 1000,
        "{}",
        report["frames"]
    );
    assert_eq!(report["errors"], serde_json::json!([]));
    assert_eq!(report["unknown_listed"], serde_json::json!([]));
    // The only unknown kinds recorded are the deliberate probe (a host request the CLI
    // refuses) and `claim_session`, which the CLI's schema marks internal and the pool sends as
    // it is.
    let unknown = report["unknown_unlisted"].as_array().unwrap();
    assert!(
        unknown
            .iter()
            .all(|u| u["kind"] == "control_request/definitely_not_a_subtype"
                || u["kind"] == "control_request/claim_session"),
        "{unknown:?}"
    );
    assert!(report["responses_checked"].as_u64().unwrap() >= 150);
}

/// How many recordings (`*.jsonl`) are under `dir`.
fn walkdir_jsonl(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .map(|path| {
            if path.is_dir() {
                walkdir_jsonl(&path)
            } else {
                usize::from(path.extension().is_some_and(|e| e == "jsonl"))
            }
        })
        .sum()
}

#[test]
fn broken_frames_fail_with_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"type\":\"keep_alive\"}\n",
            "[SandboxDebug] hello\n",
            "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":\"no\"}\n",
            "{\"type\":\"hologram\"}\n",
        ),
    )
    .unwrap();
    let output = twinwire().arg("check").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("errors: 2"), "{text}");
    assert!(text.contains("out.jsonl:2"), "{text}");
    assert!(text.contains("out.jsonl:3: result/success"), "{text}");
    assert!(text.contains("is_error"), "{text}");
    assert!(text.contains("out.jsonl:4: hologram"), "{text}");
}

#[test]
fn a_missing_file_is_an_error_exit() {
    let output = twinwire()
        .args(["check", "/nonexistent.jsonl"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// `twinwire check ARGS…`: exit code and stdout.
fn check(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let output = twinwire().arg("check").args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn a_binary_file_is_one_finding_not_one_per_line() {
    // The `twinwire` binary itself: an ELF file of tens of MB.
    let binary = Path::new(env!("CARGO_BIN_EXE_twinwire"));
    let (code, text) = check(&[binary.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(text.contains("errors: 1\n"), "{text}");
    assert!(
        text.contains(&format!(
            "{}: not a text file: a NUL byte at offset",
            binary.display()
        )),
        "{text}"
    );
    assert!(text.lines().count() < 20, "{text}");

    // UTF-16, as some editors export: not UTF-8 from its first byte.
    let dir = tempfile::tempdir().unwrap();
    let utf16 = dir.path().join("utf16.jsonl");
    let mut bytes = vec![0xff, 0xfe];
    bytes.extend("{\"type\":\"keep_alive\"}\n".bytes().flat_map(|b| [b, 1]));
    std::fs::write(&utf16, bytes).unwrap();
    let (code, text) = check(&[utf16.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("not a text file: its first line is not UTF-8"),
        "{text}"
    );
}

#[test]
fn a_file_mostly_not_json_is_one_finding_with_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.jsonl");
    let mut text = String::from("{\"type\":\"keep_alive\"}\n");
    for n in 0..300 {
        text += &format!("note {n}: this is prose, not a frame\n");
    }
    std::fs::write(&file, text).unwrap();
    let (code, text) = check(&[file.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(text.contains("errors: 1\n"), "{text}");
    assert!(
        text.contains(
            "notes.jsonl: not NDJSON: 300 of 301 lines are not JSON (the first is line 2)"
        ),
        "{text}"
    );
}

#[test]
fn findings_are_bounded_per_file_with_a_flag_for_all() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.jsonl");
    let broken = "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":\"no\"}\n";
    std::fs::write(&file, broken.repeat(50)).unwrap();
    let (code, text) = check(&[file.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(text.contains("errors: 50\n"), "{text}");
    let shown = text.lines().filter(|l| l.contains("broken.jsonl:")).count();
    assert_eq!(shown, 20, "{text}");
    assert!(
        text.contains(&format!(
            "  … and 30 more in {} (--all shows every one)",
            file.display()
        )),
        "{text}"
    );

    let (code, text) = check(&[file.as_os_str(), "--all".as_ref()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        text.lines().filter(|l| l.contains("broken.jsonl:")).count(),
        50,
        "{text}"
    );
    assert!(!text.contains("more in"), "{text}");

    let (_, json) = check(&[file.as_os_str(), "--json".as_ref()]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["found"]["errors"], 50);
    assert_eq!(report["errors"].as_array().unwrap().len(), 20);
    assert_eq!(report["not_shown"][0]["count"], 30);
    assert_eq!(report["not_shown"][0]["section"], "errors");
}

#[test]
fn a_line_fault_names_its_line_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    std::fs::write(
        &file,
        b"{\"type\":\"keep_alive\"}\n\xff\xfe\n{\"type\":\"keep_alive\"}\n",
    )
    .unwrap();
    let (code, text) = check(&[file.as_os_str()]);
    assert_eq!(code, Some(1));
    let line = text.lines().find(|l| l.contains("bad.jsonl:2:")).unwrap();
    assert!(
        line.ends_with("? not valid UTF-8 (first bad byte at offset 0)"),
        "{line}"
    );
    assert!(!line.contains("line 2"), "{line}");
}

/// Recorded through `twinwire tap` from Claude Code 2.1.330 (offline, nothing else changed but
/// paths and the pid): a host sends `initialize` and `mcp_status` with the `request_id` inside
/// `request`, then `mcp_status` as it should be. The CLI answers the first two with no
/// `request_id` at all.
fn nested_request_ids() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/request_id_inside_request.jsonl"
    ))
}

/// Checks a recording of requests with their id inside `request` and their answers: both are
/// warnings with the reason, nothing is an error, the answers are matched to their requests.
fn assert_nested_ids_are_warnings(recording: &Path, requests: &[u64]) {
    let (code, json) = check(&["--json".as_ref(), recording.as_os_str()]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report:#}");
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), requests.len() * 2, "{report:#}");
    for (pair, request_line) in warnings.chunks(2).zip(requests) {
        let (request, answer) = (&pair[0], &pair[1]);
        assert_eq!(request["line"], *request_line, "{request}");
        assert_eq!(request["direction"], "in");
        assert!(
            request["message"]
                .as_str()
                .unwrap()
                .starts_with("`request_id` is inside `request`: it belongs at the top level"),
            "{request}"
        );
        assert_eq!(answer["direction"], "out");
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .ends_with(&format!("inside `request` (line {request_line})")),
            "{answer}"
        );
    }
    // Each answer was read as the typed response of its request.
    assert!(
        report["responses_checked"].as_u64().unwrap() >= requests.len() as u64,
        "{report:#}"
    );
}

#[test]
fn a_request_id_inside_request_and_the_clis_answer_without_one_are_warnings() {
    assert_nested_ids_are_warnings(&nested_request_ids(), &[2, 4]);
    let (_, text) = check(&[nested_request_ids().as_os_str()]);
    assert!(text.contains("errors: 0\n"), "{text}");
    assert!(
        text.contains("warnings (frames as real peers write them, read anyway): 4\n"),
        "{text}"
    );
}

#[test]
fn the_real_cli_still_answers_a_nested_request_id_without_one() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let (home, tmp) = (dir.path().join("home"), dir.path().join("tmp"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let record = dir.path().join("record.jsonl");
    // Offline: no prompt is sent, so no model is asked; the base URL goes nowhere anyway.
    let mut tap = twinwire()
        .arg("tap")
        .arg("--record")
        .arg(&record)
        .arg("--")
        .arg(twinwire_testkit::real_claude())
        .args([
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
        ])
        .arg("--verbose")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .env("ANTHROPIC_API_KEY", "sk-offline")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = tap.stdin.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    let stdout = tap.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for subtype in ["initialize", "mcp_status"] {
        let request = serde_json::json!({"type": "control_request",
            "request": {"subtype": subtype, "request_id": format!("nested-{subtype}")}});
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        // The answer, however long the CLI takes to start.
        loop {
            let line = lines
                .recv_timeout(std::time::Duration::from_secs(120))
                .expect("an answer from the CLI");
            if line.contains("\"control_response\"") {
                assert!(!line.contains("request_id"), "{line}");
                break;
            }
        }
    }
    drop(stdin);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while tap.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            tap.kill().unwrap();
            panic!("the CLI did not exit after its stdin closed");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let requests: Vec<u64> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .zip(1..)
        .filter(|(line, _)| line.starts_with(r#"{"dir":"in""#))
        .map(|(_, number)| number)
        .collect();
    assert_eq!(requests.len(), 2, "{}", record.display());
    assert_nested_ids_are_warnings(&record, &requests);
}
