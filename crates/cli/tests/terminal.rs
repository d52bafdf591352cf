//! `twinwire run` on a terminal-bound stdout: Unicode format characters from the model and from
//! tools (bidirectional overrides and isolates, zero-width characters, tags, interlinear
//! annotations) are shown as `<U+XXXX>`, never passed on to be obeyed.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};

use serde_json::{json, Value};

mod common;
use common::{fake_claude, twinwire};

/// A character of each kind, with how `twinwire run` must show it.
const FORMAT_CHARS: [(char, &str); 18] = [
    ('\u{202a}', "<U+202A>"),
    ('\u{202b}', "<U+202B>"),
    ('\u{202c}', "<U+202C>"),
    ('\u{202d}', "<U+202D>"),
    ('\u{202e}', "<U+202E>"),
    ('\u{2066}', "<U+2066>"),
    ('\u{2067}', "<U+2067>"),
    ('\u{2068}', "<U+2068>"),
    ('\u{2069}', "<U+2069>"),
    ('\u{200e}', "<U+200E>"),
    ('\u{200f}', "<U+200F>"),
    ('\u{61c}', "<U+061C>"),
    ('\u{200b}', "<U+200B>"),
    ('\u{200d}', "<U+200D>"),
    ('\u{2063}', "<U+2063>"),
    ('\u{feff}', "<U+FEFF>"),
    ('\u{e0041}', "<U+E0041>"),
    ('\u{fff9}', "<U+FFF9>"),
];

#[test]
fn format_characters_from_the_model_and_tools_are_shown_not_obeyed() {
    let all: String = FORMAT_CHARS.iter().map(|(c, _)| *c).collect();
    let text = format!("text [{all}] end");
    let streamed = format!("streamed [{all}] end");
    // Tool output is shown cut to a line: a few characters.
    let output = "output [\u{202e}\u{2066}\u{200b}\u{e0041}] end";
    let dir = tempfile::tempdir().unwrap();
    let script = json!({"turns": [{"steps": [
        {"text": text},
        {"stream": {"text": streamed, "deltas": 7}},
        {"tool": {"name": "Bash", "input": {"command": format!("echo '{all}'")},
                  "output": output}}
    ]}]});
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let run = |args: &[&str]| {
        let output = Command::new(twinwire())
            .arg("run")
            .arg("--cli-path")
            .arg(fake_claude())
            .args(args)
            .env("TWINWIRE_FAKE_SCRIPT", &script_path)
            .env("NO_COLOR", "1")
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let stdout = run(&["--allow", "Bash", "Go"]);
    for (c, _) in FORMAT_CHARS {
        assert!(
            !stdout.contains(c),
            "U+{:04X} reached stdout: {stdout}",
            c as u32
        );
    }
    let shown: String = FORMAT_CHARS.iter().map(|(_, shown)| *shown).collect();
    for expected in [
        format!("text [{shown}] end"),
        format!("streamed [{shown}] end"),
        "output [<U+202E><U+2066><U+200B><U+E0041>] end".to_owned(),
        format!("Bash(echo '{shown}')"),
    ] {
        assert!(stdout.contains(&expected), "{expected:?} not in {stdout}");
    }
    // JSON output carries the text unchanged.
    let jsonl = run(&["--output", "jsonl", "--allow", "Bash", "Go"]);
    let texts: Vec<String> = jsonl
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|frame| frame["type"] == "assistant")
        .filter_map(|frame| {
            frame["message"]["content"][0]["text"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert!(texts.contains(&text), "{texts:?}");
}
