#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

/// A project with settings files: `settings` in `.claude/settings.json`, `local` in
/// `.claude/settings.local.json`.
fn project(settings: Value, local: Option<Value>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    if let Some(local) = local {
        std::fs::write(
            dir.path().join(".claude/settings.local.json"),
            local.to_string(),
        )
        .unwrap();
    }
    dir
}

fn options(dir: &Path) -> ExplainOptions {
    ExplainOptions::in_dir(std::fs::canonicalize(dir).unwrap()).only_project_settings()
}

#[test]
fn deny_then_ask_then_allow_each_named_with_its_file() {
    let dir = project(
        json!({"permissions": {"allow": ["Bash(git:*)"], "deny": ["Bash(git push:*)"],
                               "ask": ["Bash(git reset:*)"]}}),
        Some(json!({"permissions": {"allow": ["Bash(npm test:*)"]}})),
    );
    let here = Permissions::resolve(&options(dir.path()));
    let push = here.explain_command("git push origin main");
    assert_eq!(push.verdict, Verdict::Deny);
    let rule = push.rule.unwrap();
    assert_eq!(rule.source, "projectSettings");
    assert!(rule.path.unwrap().ends_with(".claude/settings.json"));
    let reset = here.explain_command("git reset --hard");
    assert_eq!(
        (reset.verdict, reset.because),
        (Verdict::Ask, Because::Rule)
    );
    let log = here.explain_command("git log");
    assert_eq!(log.verdict, Verdict::Allow);
    assert_eq!(log.rule.unwrap().rule, "Bash(git:*)");
    let test = here.explain_command("npm test");
    assert_eq!(test.rule.unwrap().source, "localSettings");
    // What no rule covers is asked, with twinwire-policy's reason.
    let other = here.explain_command("curl example.com");
    assert_eq!(other.verdict, Verdict::Ask);
    assert!(
        matches!(&other.because, Because::NotCovered { why } if why.contains("curl")),
        "{other:?}"
    );
    assert!(
        other.to_string().starts_with("asked in mode default"),
        "{other}"
    );
}

#[test]
fn the_command_line_and_the_mode() {
    let dir = project(json!({}), None);
    let mut opts = options(dir.path());
    opts.allowed_tools = vec!["Bash(ls:*) Read".to_owned()];
    opts.disallowed_tools = vec!["WebFetch".to_owned()];
    let here = Permissions::resolve(&opts);
    assert_eq!(
        here.explain_command("ls -la").rule.unwrap().source,
        "cliArg"
    );
    let fetch = here.explain("WebFetch", &json!({"url": "https://example.com"}));
    assert_eq!(fetch.verdict, Verdict::Deny);

    let inside = opts.cwd.join("notes.txt").display().to_string();
    let write = json!({"file_path": inside, "content": "x"});
    assert_eq!(here.explain("Write", &write).verdict, Verdict::Ask);
    opts.mode = Some(PermissionMode::AcceptEdits);
    let edits = Permissions::resolve(&opts);
    let allowed = edits.explain("Write", &write);
    assert_eq!(allowed.verdict, Verdict::Allow);
    assert_eq!(
        allowed.because,
        Because::Mode {
            mode: "acceptEdits".into()
        }
    );
    let outside = json!({"file_path": "/etc/passwd-copy", "content": "x"});
    assert_eq!(edits.explain("Write", &outside).verdict, Verdict::Ask);

    opts.mode = Some(PermissionMode::BypassPermissions);
    let bypass = Permissions::resolve(&opts);
    assert_eq!(
        bypass.explain_command("rm -rf build").verdict,
        Verdict::Allow
    );
    // A deny rule holds even then.
    assert_eq!(
        bypass
            .explain("WebFetch", &json!({"url": "https://x"}))
            .verdict,
        Verdict::Deny
    );

    opts.mode = Some(PermissionMode::DontAsk);
    let never = Permissions::resolve(&opts);
    assert_eq!(never.explain_command("rm -rf build").verdict, Verdict::Deny);
}

#[test]
fn reading_the_working_directory_needs_no_rule() {
    let dir = project(json!({}), None);
    let here = Permissions::resolve(&options(dir.path()));
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    let read = |path: String| here.explain("Read", &json!({ "file_path": path }));
    let inside = read(cwd.join("src/main.rs").display().to_string());
    assert_eq!(inside.verdict, Verdict::Allow);
    assert_eq!(inside.because, Because::ReadsWorkingDirectory);
    assert_eq!(read("/etc/shadow".to_owned()).verdict, Verdict::Ask);
}

#[test]
fn the_project_file_may_not_escalate_the_mode_and_unknown_tools_are_unreadable() {
    let dir = project(
        json!({"permissions": {"defaultMode": "bypassPermissions", "allow": ["Bsh(ls:*)"]}}),
        Some(json!({"permissions": {"defaultMode": "plan"}})),
    );
    let here = Permissions::resolve(&options(dir.path()));
    assert_eq!(
        here.mode,
        (PermissionMode::Plan, "localSettings".to_owned())
    );
    assert_eq!(here.unreadable.len(), 1);
    assert_eq!(here.unreadable[0].0.rule, "Bsh(ls:*)");
    assert_eq!(
        split_rules("Bash(git log:*), Read Edit(./a b)"),
        ["Bash(git log:*)", "Read", "Edit(./a b)"]
    );
}
