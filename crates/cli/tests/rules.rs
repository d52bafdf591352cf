//! `twinwire rules check` on a real settings tree: the project's rules and the command line's,
//! linted; `--strict` fails on findings.

use std::process::Command;

fn twinwire() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twinwire"))
}

#[test]
fn a_projects_rules_are_linted_and_strict_fails_on_findings() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".claude")).unwrap();
    std::fs::write(
        project.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(make:*)", "Bash(find:*)"], "deny": ["Bash(rm -rf:*)"]}}"#,
    )
    .unwrap();
    let output = twinwire()
        .args([
            "rules",
            "check",
            "--strict",
            "--allow",
            "Bash(ls:*)",
            "--dir",
        ])
        .arg(project.path())
        .arg("--config-dir")
        .arg(home.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Bash(make:*) (wider than it looks)"),
        "{text}"
    );
    assert!(
        text.contains("Bash(make:*) (weakened by a deny rule)"),
        "{text}"
    );
    assert!(
        text.contains("Bash(find:*) (wider than it looks): also allows `find . -exec"),
        "{text}"
    );
    assert!(text.contains("Bash(rm -rf:*) (cannot hold)"), "{text}");
    assert!(!text.contains("Bash(ls:*) ("), "{text}");
    assert!(text.contains("3 allow and 1 deny rules"), "{text}");

    let quiet = twinwire()
        .args([
            "rules",
            "check",
            "--no-settings",
            "--strict",
            "--allow",
            "Bash(ls:*)",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&quiet.stdout);
    assert!(quiet.status.success(), "{text}");
    assert!(text.contains("nothing to say"), "{text}");
}
