//! `twinwire explain` as a user runs it: a project's settings files (and a user's, in a
//! configuration directory of the test's own), the command line's rules and mode, and the
//! answer with the rule and the file it came from; its exit code says whether the call runs
//! without asking.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

mod common;

/// A project with `project` settings and a user configuration directory with `user` ones.
fn tree(project: Value, user: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("work/.claude")).unwrap();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    std::fs::write(
        dir.path().join("work/.claude/settings.json"),
        project.to_string(),
    )
    .unwrap();
    std::fs::write(dir.path().join("config/settings.json"), user.to_string()).unwrap();
    dir
}

fn explain(dir: &Path, args: &[&str]) -> Output {
    Command::new(common::twinwire())
        .arg("explain")
        .arg("--dir")
        .arg(dir.join("work"))
        .arg("--config-dir")
        .arg(dir.join("config"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_command_line_is_judged_against_the_settings_and_the_rule_is_named() {
    let dir = tree(
        json!({"permissions": {"allow": ["Bash(git log:*)"], "deny": ["Bash(git push:*)"]}}),
        json!({"permissions": {"allow": ["Bash(npm test:*)"], "ask": ["Bash(git log --all:*)"]}}),
    );
    let push = explain(dir.path(), &["git", "push", "--force", "origin", "main"]);
    assert_eq!(push.status.code(), Some(1));
    let shown = text(&push.stdout);
    assert!(
        shown.contains("→ denied by the rule Bash(git push:*) (projectSettings, ")
            && shown.contains("work/.claude/settings.json)"),
        "{shown}"
    );
    let log = explain(dir.path(), &["git", "log", "-3"]);
    assert_eq!(log.status.code(), Some(0), "{}", text(&log.stdout));
    // The user's ask rule comes before the project's allow rule.
    let all = explain(dir.path(), &["git", "log", "--all"]);
    assert!(
        text(&all.stdout).contains("→ asked by the rule Bash(git log --all:*) (userSettings"),
        "{}",
        text(&all.stdout)
    );
    // Only the project's file: the user's rules are not read.
    let only = explain(dir.path(), &["--setting-sources", "project", "npm", "test"]);
    assert!(
        text(&only.stdout).contains("→ asked in mode default: no allow rule covers `npm test`"),
        "{}",
        text(&only.stdout)
    );
    let user = explain(dir.path(), &["npm", "test"]);
    assert_eq!(user.status.code(), Some(0), "{}", text(&user.stdout));
}

#[test]
fn the_command_lines_rules_the_mode_and_other_tools() {
    let dir = tree(
        json!({"permissions": {"allow": ["Bsh(ls:*)"], "defaultMode": "bypassPermissions"}}),
        json!({}),
    );
    let json_of = |args: &[&str]| -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let output = explain(dir.path(), &all);
        serde_json::from_slice(&output.stdout).unwrap()
    };
    // The project's file may not set bypassPermissions; its rule for a tool that does not
    // exist is named as ignored.
    let report = json_of(&["rm", "-rf", "build"]);
    assert_eq!(report["explanation"]["verdict"], "ask", "{report}");
    assert_eq!(report["mode"]["mode"], "default");
    assert_eq!(report["unreadable"][0]["rule"]["rule"], "Bsh(ls:*)");
    let allowed = json_of(&["--allowed-tools", "Bash(rm:*)", "rm", "-rf", "build"]);
    assert_eq!(allowed["explanation"]["verdict"], "allow", "{allowed}");
    assert_eq!(allowed["explanation"]["rule"]["source"], "cliArg");
    let work = std::fs::canonicalize(dir.path().join("work")).unwrap();
    let write = json!({"file_path": work.join("a.txt"), "content": "x"}).to_string();
    let asked = json_of(&["--tool", "Write", "--input", &write]);
    assert_eq!(asked["explanation"]["verdict"], "ask");
    let edits = json_of(&[
        "--mode",
        "acceptEdits",
        "--tool",
        "Write",
        "--input",
        &write,
    ]);
    assert_eq!(edits["explanation"]["verdict"], "allow", "{edits}");
    assert_eq!(edits["explanation"]["because"]["kind"], "mode");
    // A call it cannot read is an error with the reason, not an answer.
    let bad = explain(dir.path(), &["--tool", "Write"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("needs --input"),
        "{}",
        text(&bad.stderr)
    );
}
