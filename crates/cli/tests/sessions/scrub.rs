//! `twinwire sessions scrub`: the redaction suite's secrets (`twinwire_testkit::secrets`) taken
//! out of saved sessions in place, each file written anew and renamed over the old one, with a
//! report; on files laid out by hand, and on a session the real CLI saved (`run --offline`).

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;
use twinwire_testkit::secrets;

use super::{text, Tree, ID};

/// Every file under `dir` and the secrets found in it.
fn leaks_under(dir: &Path) -> Vec<(String, Vec<&'static str>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                let leaks = secrets::leaks(&std::fs::read(entry.path()).unwrap());
                if !leaks.is_empty() {
                    found.push((entry.path().display().to_string(), leaks));
                }
            }
        }
    }
    found
}

/// A user line of a transcript with `content`.
fn user_line(uuid: &str, parent: Option<&str>, content: &str) -> String {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": ID,
           "cwd": "/work", "timestamp": "2026-11-20T10:00:00.000Z",
           "message": {"role": "user", "content": content}})
    .to_string()
}

#[test]
fn a_session_with_the_suites_secrets_is_scrubbed_in_place_with_a_report() {
    let tree = Tree::new();
    let clean = user_line("00000000-0000-4000-8000-000000000001", None, "hello");
    let leaky = user_line(
        "00000000-0000-4000-8000-000000000002",
        Some("00000000-0000-4000-8000-000000000001"),
        &secrets::text(),
    );
    let tool = json!({"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000003",
        "parentUuid": "00000000-0000-4000-8000-000000000002", "sessionId": ID,
        "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": "Bash", "input": secrets::json()}]}})
    .to_string();
    // The last line has no newline, as a transcript cut by a crash.
    let transcript = format!("{clean}\n{leaky}\n{tool}");
    std::fs::write(tree.transcript(ID), &transcript).unwrap();
    let subagents = tree.project.join(ID).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    std::fs::write(
        subagents.join("agent-a1.jsonl"),
        format!(
            "{}\n",
            json!({"type": "user", "message": {"content": secrets::text()}})
        ),
    )
    .unwrap();
    std::fs::write(
        subagents.join("agent-a1.meta.json"),
        json!({"agentType": "helper", "description": format!("uses {}", secrets::API_KEY)})
            .to_string(),
    )
    .unwrap();
    assert_eq!(leaks_under(&tree.config).len(), 3);

    // A dry run changes nothing.
    let dry = tree.run(&["scrub", ID, "--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert!(
        text(&dry.stdout).contains("would be rewritten"),
        "{}",
        text(&dry.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(tree.transcript(ID)).unwrap(),
        transcript
    );

    let scrub = |args: &[&str]| {
        let mut all = vec!["sessions", "--config-dir", tree.config.to_str().unwrap()];
        all.extend_from_slice(args);
        Command::new(super::common::twinwire())
            .args(&all)
            .env(secrets::ENV_NAME, secrets::ENV_VALUE)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let done = scrub(&["scrub", ID]);
    let report = text(&done.stdout);
    assert!(done.status.success(), "{}", text(&done.stderr));
    assert!(report.contains("rewritten"), "{report}");
    assert!(report.contains("3 file(s) rewritten"), "{report}");
    assert_eq!(leaks_under(&tree.config), Vec::new(), "{report}");
    // Everything but the secrets kept its bytes, the first line exactly, the last still
    // without a newline; the file is its owner's alone.
    let after = std::fs::read_to_string(tree.transcript(ID)).unwrap();
    assert!(after.starts_with(&format!("{clean}\n")), "{after}");
    assert!(!after.ends_with('\n'));
    assert_eq!(after.lines().count(), 3);
    assert!(after.contains("<redacted "), "{after}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(tree.transcript(ID))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Nothing left beside it, and the session still reads.
    let names: Vec<String> = std::fs::read_dir(&tree.project)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(tree.show(ID)["messages"].as_array().unwrap().len(), 3);

    // Again: nothing left to redact, nothing rewritten.
    let again = scrub(&["scrub", "--all", "--json"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["secrets"], 0, "{report}");
    assert_eq!(report["rewritten"], 0, "{report}");
    assert_eq!(report["files"].as_array().unwrap().len(), 3, "{report}");
}

/// The real CLI saves a session whose prompt, command, output and reply carry the secrets
/// (offline, in twinwire's directory of offline sessions); `scrub --all` leaves none of them in
/// any file of that directory.
#[test]
fn a_session_the_real_cli_saved_is_scrubbed() {
    let place = tempfile::tempdir().unwrap();
    for sub in ["project", "state"] {
        std::fs::create_dir(place.path().join(sub)).unwrap();
    }
    let printed = secrets::text().replace(
        &format!("deployed with {}", secrets::ENV_VALUE),
        &format!("deployed with ${}", secrets::ENV_NAME),
    );
    let script = json!({"rules": [
        {"when": {"last_is_tool_result": true},
         "reply": {"text": format!("Here: {}", secrets::text())}},
        {"when": {"last_user_text_contains": "LEAK"}, "times": 1,
         "reply": {"tool_use": {"name": "Bash", "text": "Printing.",
            "input": {"command": format!("cat <<EOF\n{printed}\nEOF"), "description": "print"}}}}
    ], "default": {"text": "ok"}});
    std::fs::write(place.path().join("script.json"), script.to_string()).unwrap();
    let twinwire = |args: &[&str]| {
        Command::new(super::common::twinwire())
            .args(args)
            .current_dir(place.path().join("project"))
            .env("XDG_STATE_HOME", place.path().join("state"))
            .env(secrets::ENV_NAME, secrets::ENV_VALUE)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let cli = twinwire_testkit::real_claude();
    let prompt = format!("LEAK these: {}", secrets::text());
    let ran = twinwire(&[
        "run",
        "--cli-path",
        cli.to_str().unwrap(),
        "--offline",
        "--model-script",
        place.path().join("script.json").to_str().unwrap(),
        "--allow",
        "Bash",
        &prompt,
    ]);
    assert!(
        ran.status.success(),
        "{}\n{}",
        text(&ran.stdout),
        text(&ran.stderr)
    );
    let kept = place.path().join("state/twinwire/offline");
    let before: Vec<&str> = leaks_under(&kept)
        .into_iter()
        .flat_map(|(_, l)| l)
        .collect();
    for secret in secrets::ALL {
        assert!(
            before.contains(&secret),
            "{secret} is not in the saved session"
        );
    }
    let done = twinwire(&["sessions", "scrub", "--all"]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    assert_eq!(leaks_under(&kept), Vec::new(), "{}", text(&done.stdout));
    let listed = twinwire(&["sessions", "list", "--all", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
}
