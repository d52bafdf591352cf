//! `twinwire view` as a user runs it, its pages checked in a real browser (headless Chromium over
//! the DevTools protocol, `chromiumoxide`): a recording of the real CLI (the prompt, the tool
//! call, the permission round trip, the cost, the filter and the search); every line of an odd
//! file as a row; the prompt of `claude -p`; a big recording read in bounded memory and its
//! page searched; a saved session of the real CLI read as a conversation (`view/session.rs`).
//! A screenshot of each browser test is kept under `target/` (`view.png`, `view-session.png`).
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::twinwire;

#[path = "view/browser.rs"]
mod browser;
#[path = "view/fixtures.rs"]
mod fixtures;
#[path = "view/session.rs"]
mod session;

use browser::Tab;
use fixtures::{page, rows_of};

const RECORDING: &str =
    "claude-2.1.330/permissions.bash_allowed_by_can_use_tool_creates_the_file.jsonl";

fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_of_a_real_session_in_chromium() {
    let fixtures =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts");
    let dir = tempfile::tempdir().unwrap();
    let page_path = page(&fixtures.join(RECORDING), dir.path(), "view", &[]);
    let html = std::fs::read_to_string(&page_path).unwrap();
    assert!(
        !html.contains("http://") || !html.contains("<script src"),
        "no external script"
    );
    let tab = Tab::open(&page_path, dir.path(), 900).await;
    let body = tab.text("document.body.innerText").await;
    for expected in [
        "please run the command",
        "can_use_tool Bash",
        "can_use_tool answered",
        "allow",
        "$",
    ] {
        assert!(
            body.contains(expected),
            "{expected:?} not on the page:\n{body}"
        );
    }
    // The permission round trip is marked and timed; the cost is totalled.
    assert_eq!(tab.count(".row.allow").await, 1, "{body}");
    let rtt = tab
        .text("document.querySelector('.row.allow .rtt').textContent")
        .await;
    assert!(rtt.ends_with(" ms"), "{rtt}");
    let totals = tab
        .text("document.getElementById('totals').textContent")
        .await;
    assert!(
        totals.contains("1 allowed") && totals.contains("· 1 turn ·"),
        "{totals}"
    );

    // The filter: without control frames no permission row is left; the search narrows.
    let all = tab.count(".row").await;
    for family in ["control_request", "control_response"] {
        tab.run(&format!(
            "document.querySelector('input[data-family={family}]').click()"
        ))
        .await;
    }
    assert_eq!(tab.count(".row.control").await, 0);
    let fewer = tab.count(".row").await;
    assert!(fewer < all);
    tab.search("touch").await;
    let found = tab.count(".row").await;
    assert!(found >= 1 && found < fewer, "{found} of {fewer}");
    tab.search("").await;
    tab.run("document.querySelectorAll('#filters input[type=checkbox]').forEach(b => { if (!b.checked) b.click(); })")
        .await;
    let target = std::env::var_os("TWINWIRE_VIEW_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("view.png"));
    tab.screenshot(&target).await;
    tab.close().await;
}

/// What the model wrote cannot run in the page: a script in its text, an event handler, a
/// `javascript:` link.
#[test]
fn model_text_cannot_run_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.jsonl");
    let evil = r#"<script>document.title='pwned'</script><img src=x onerror="document.title='pwned'"> </script><script>alert(2)</script>

[x](javascript:alert(1))"#;
    let frame = serde_json::json!({"type": "assistant", "message": {"id": "m", "role": "assistant",
        "content": [{"type": "text", "text": evil}]}, "session_id": "s", "parent_tool_use_id": null});
    std::fs::write(&capture, format!("{frame}\n")).unwrap();
    let html = std::fs::read_to_string(page(&capture, dir.path(), "view", &[])).unwrap();
    // Exactly the page's own script elements (one chunk of rows, the totals, the script); the
    // model's markup is data.
    assert_eq!(html.matches("<script").count(), 3, "{html}");
    assert!(!html.contains("<img"), "{html}");
    // The link's target was replaced; the text itself stays visible as data.
    assert!(html.contains(r##"href=\"#\""##), "{html}");
    assert!(!html.contains(r##"href=\"javascript"##), "{html}");
}

#[test]
fn view_without_arguments_names_both_inputs() {
    let output = Command::new(twinwire()).arg("view").output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--session") && stderr.contains("FILE"),
        "{stderr}"
    );
}

/// A file with every kind of line a recording or capture can hold, and some it should not: a
/// first line with a `claude -p` prompt, a direction not known, a first line carrying a frame,
/// blank lines, white space that is not blank-looking ASCII, text that is not JSON, JSON that
/// is no frame, a line the recorder could not parse or dropped, a line over the limit, frames
/// after it, and bytes that are not UTF-8.
fn odd_lines(path: &Path) -> (usize, usize) {
    let long = "x".repeat(5000);
    let lines: Vec<String> = vec![
        r#"{"dir":"meta","t":0,"cli":"/bin/claude","argv":["-p","Say **hello**","--output-format","stream-json","--verbose"],"env":{"A":"1"}}"#.into(),
        r#"{"dir":"sideways","t":0.1,"msg":{"type":"user","message":{"role":"user","content":"lost"}}}"#.into(),
        r#"{"dir":"meta","t":0.2,"msg":{"type":"keep_alive"}}"#.into(),
        String::new(),
        "   \t".into(),
        "\u{a0}\u{200b}".into(),
        "{not json".into(),
        "[1,2]".into(),
        r#"{"dir":"out","t":0.3,"raw":"[debug] not a frame"}"#.into(),
        r#"{"dir":"in","t":0.4,"dropped":"line 7 is 70000000 bytes long"}"#.into(),
        format!(r#"{{"dir":"out","t":0.45,"msg":{{"type":"assistant","text":"{long}"}}}}"#),
        r#"{"dir":"out","t":0.5,"msg":{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"after the long line"}]},"session_id":"s","parent_tool_use_id":null}}"#.into(),
        r#"{"dir":"out","t":0.6,"msg":{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.001,"duration_ms":500,"usage":{"input_tokens":3,"output_tokens":4},"session_id":"s"}}"#.into(),
    ];
    let mut bytes = lines.join("\n").into_bytes();
    bytes.extend_from_slice(b"\nbad \xff byte\n");
    std::fs::write(path, bytes).unwrap();
    (lines.len() + 1, lines[10].len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_line_gets_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("odd.jsonl");
    let (lines, long_line) = odd_lines(&input);
    let page_path = page(&input, dir.path(), "odd", &["--max-line-length", "4000"]);
    let tab = Tab::open(&page_path, dir.path(), 900).await;
    tab.show_all().await;
    // One row a line, and the prompt from the first line's argv.
    assert_eq!(tab.count(".row").await, lines + 1);
    let kinds = tab
        .text("Array.from(document.querySelectorAll('.row'), r => r.dataset.kind).join(' ')")
        .await;
    assert_eq!(
        kinds,
        "meta user user meta+keep_alive blank blank blank not-json not-a-frame raw dropped \
         too-long assistant result/success not-utf8"
    );
    let summaries = tab
        .text("Array.from(document.querySelectorAll('.row .s'), r => r.textContent).join('\\n')")
        .await;
    let too_long = format!("line 11 is {long_line} bytes long, over the limit of 4000");
    for expected in [
        "direction `sideways` not known",
        "with a frame: {\"type\":\"keep_alive\"}",
        "line 4 is empty",
        "line 5 looks blank (U+0020 U+0020 U+0020 U+0009)",
        "line 6 looks blank (U+00A0 U+200B)",
        "line 7 is not JSON",
        "line 8 is JSON but no frame",
        "not JSON: [debug] not a frame",
        "dropped by the recorder: line 7 is 70000000 bytes long",
        too_long.as_str(),
        "after the long line",
        "line 14 is not UTF-8",
    ] {
        assert!(
            summaries.contains(expected),
            "{expected:?} not in\n{summaries}"
        );
    }
    // Each odd line is marked; the totals count them.
    assert_eq!(tab.count(".row.odd").await, 11);
    let totals = tab
        .text("document.getElementById('totals').textContent")
        .await;
    assert!(totals.contains("11 odd lines"), "{totals}");
    tab.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prompt_of_claude_p_is_the_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = "Say hello in **bold**";
    let root = dir.path().to_owned();
    let recording =
        tokio::task::spawn_blocking(move || fixtures::print_mode_recording(&root, prompt))
            .await
            .unwrap();
    let page_path = page(&recording, dir.path(), "print", &[]);
    let tab = Tab::open(&page_path, dir.path(), 900).await;
    // The first line (the CLI and its arguments), then the prompt, sent before anything else.
    let first = tab
        .text("Array.from(document.querySelectorAll('.row')).slice(0, 3).map(r => r.dataset.kind + ' ' + r.querySelector('.d').textContent + ' ' + r.querySelector('.s').textContent).join('\\n')")
        .await;
    let mut first = first.lines();
    assert!(first.next().unwrap().starts_with("meta meta "), "{first:?}");
    assert_eq!(first.next().unwrap(), format!("user → CLI {prompt}"));
    // It is the turn's prompt, and the model's echo of it is the answer.
    let body = tab.text("document.body.innerText").await;
    assert!(body.contains("You said: Say hello in **bold**"), "{body}");
    assert!(body.contains("· 1 turn ·"), "{body}");
    tab.close().await;
}

/// Reads `/proc/PID/status` until the process ends; its peak resident memory last seen, KiB.
fn watch_peak(child: &mut std::process::Child, limit: Duration) -> (u64, bool) {
    let started = std::time::Instant::now();
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            for line in status.lines() {
                if let Some(kib) = line.strip_prefix("VmHWM:") {
                    let kib = kib.trim().trim_end_matches(" kB").parse().unwrap_or(0);
                    peak = peak.max(kib);
                }
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (peak, status.success());
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("twinwire view did not end in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `view` streams: with its data segment limited to 32 MiB, it writes the page of a 16 MiB
/// recording (6,400 turns; the rows of the whole file would need several times that), every
/// line a row. `TWINWIRE_VIEW_BIG_MIB` sets the size, to measure a bigger one (the peak resident
/// memory is printed; run with `--nocapture`).
#[test]
fn a_big_recording_is_read_in_bounded_memory() {
    let mib: usize = std::env::var("TWINWIRE_VIEW_BIG_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.jsonl");
    // About 2.6 KB a turn.
    fixtures::generated_recording(&input, mib * 1024 * 1024 / 2620);
    let size = std::fs::metadata(&input).unwrap().len();
    let out = dir.path().join("big.html");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -d 32768 && exec \"$0\" \"$@\"")
        .arg(twinwire())
        .arg("view")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (peak_kib, ok) = watch_peak(&mut child, Duration::from_secs(1200));
    println!(
        "twinwire view of {:.1} MiB: peak resident memory at least {:.1} MiB",
        size as f64 / 1048576.0,
        peak_kib as f64 / 1024.0
    );
    assert!(ok, "twinwire view failed within a 32 MiB data segment");
    let lines = BufReader::new(std::fs::File::open(&input).unwrap())
        .split(b'\n')
        .count();
    // The totals at the end of the page count its rows; a page of a test's size is read back.
    let page = std::fs::File::open(&out).unwrap();
    let length = page.metadata().unwrap().len();
    let mut tail = String::new();
    let mut page = BufReader::new(page);
    page.seek(SeekFrom::Start(length.saturating_sub(64 * 1024)))
        .unwrap();
    page.read_to_string(&mut tail).unwrap();
    let start = tail.find("id=\"summary\">").unwrap() + "id=\"summary\">".len();
    let end = start + tail[start..].find("</script>").unwrap();
    let summary: serde_json::Value = serde_json::from_str(&tail[start..end]).unwrap();
    assert_eq!(summary["totals"]["rows"], lines);
    if length < 256 * 1024 * 1024 {
        let html = std::fs::read_to_string(&out).unwrap();
        assert_eq!(rows_of(&html).len(), lines);
    }
}

/// On a page of 13,501 rows (14 chunks), the search finds rows of the last chunk and the
/// filter applies to all of them, 500 drawn at a time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filter_and_search_work_on_a_big_page() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.jsonl");
    fixtures::generated_recording(&input, 1500);
    let page_path = page(&input, dir.path(), "big", &[]);
    let tab = Tab::open(&page_path, dir.path(), 900).await;
    assert_eq!(
        tab.count("script.rows").await,
        0,
        "chunks are read and let go"
    );
    assert_eq!(tab.count(".row").await, 500);
    let more = tab
        .text("document.getElementById('more').textContent")
        .await;
    assert_eq!(more, "Show more (13001 left)");
    tab.search("touch file1499\"").await;
    // Its call, the permission request and its answer.
    assert_eq!(tab.count(".row").await, 3);
    tab.search("").await;
    tab.run("document.querySelector('input[data-family=control_response]').click()")
        .await;
    tab.show_all().await;
    assert_eq!(tab.count(".row").await, 13501 - 1500);
    assert_eq!(tab.count(".row.allow").await, 0);
    tab.close().await;
}

/// An input without newlines (`/dev/zero`) ends after 16 times the line limit, with a row
/// saying so, instead of being read forever.
#[test]
fn endless_input_ends_with_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zero.html");
    let mut child = Command::new(twinwire())
        .args(["view", "/dev/zero", "--max-line-length", "100000", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (_, ok) = watch_peak(&mut child, Duration::from_secs(120));
    assert!(ok);
    let rows = rows_of(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["kind"], "endless");
    let summary = rows[0]["summary"].as_str().unwrap();
    assert!(
        summary.contains("the rest of the input is not read"),
        "{summary}"
    );
}

/// A session not found names where it was looked for; a page never replaces its input.
#[test]
fn mistakes_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(twinwire())
        .args([
            "view",
            "--session",
            "1f1cbebe-bab7-4a1e-9605-706a2b9d4acd",
            "--config-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not found under") && stderr.contains("projects"),
        "{stderr}"
    );

    let input = dir.path().join("capture.html");
    let frame = r#"{"type":"keep_alive"}"#;
    std::fs::write(&input, format!("{frame}\n")).unwrap();
    let output = Command::new(twinwire())
        .arg("view")
        .arg(&input)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("would overwrite its input"),
        "{output:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        format!("{frame}\n")
    );
}
