//! `twinwire tap`'s arguments, help and errors: what the help says about the relay, help flags
//! in the wrapper form (they are the CLI's), and a program that cannot start named once with
//! the cause.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::twinwire;

/// `twinwire tap ARGS` with `TWINWIRE_TAP_CLI` set to `cli` (or unset), stdin closed.
fn tap(args: &[&str], cli: Option<&Path>) -> Output {
    let mut command = Command::new(twinwire());
    command
        .arg("tap")
        .args(args)
        .env_remove("TWINWIRE_TAP_CLI")
        .env_remove("TWINWIRE_TAP_RECORD")
        .env_remove("TWINWIRE_TAP_POLICY")
        .stdin(Stdio::null());
    if let Some(cli) = cli {
        command.env("TWINWIRE_TAP_CLI", cli);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A file with `text` and permission bits `mode`.
fn file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

#[test]
fn the_help_says_how_lines_are_relayed() {
    for flag in ["-h", "--help"] {
        let output = tap(&[flag], None);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let help = text(&output.stdout);
        assert!(!help.contains("unchanged"), "{help}");
        assert!(
            help.contains("line endings made `\\n`, blank lines dropped"),
            "{help}"
        );
    }
    let long = text(&tap(&["--help"], None).stdout);
    assert!(
        long.contains("a \\r\\n line ending becomes \\n and blank lines are dropped"),
        "{long}"
    );
}

#[test]
fn in_the_wrapper_form_help_flags_go_to_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    // A CLI that shows the arguments it got.
    let cli = file(
        dir.path(),
        "claude",
        "#!/bin/sh\necho \"the CLI got: $*\"\n",
        0o755,
    );
    for (args, expected) in [
        (&["--help"][..], "the CLI got: --help\n"),
        (&["-h"][..], "the CLI got: --help\n"),
        (&["-h", "--verbose"][..], "the CLI got: --help --verbose\n"),
        (&["--verbose", "-h"][..], "the CLI got: --verbose -h\n"),
    ] {
        let output = tap(args, Some(&cli));
        assert!(
            output.status.success(),
            "{args:?}: {}",
            text(&output.stderr)
        );
        assert_eq!(text(&output.stdout), expected, "{args:?}");
    }

    // Outside the wrapper form the help is the tap's: no CLI from the environment, or a CLI
    // named on the command line.
    let own = text(&tap(&["--help"], None).stdout);
    assert!(own.contains("Usage: twinwire tap"), "{own}");
    let named = text(&tap(&["--help", "--", cli.to_str().unwrap()], Some(&cli)).stdout);
    assert!(named.contains("Usage: twinwire tap"), "{named}");
    // `twinwire help tap` shows it whatever the environment says.
    let output = Command::new(twinwire())
        .args(["help", "tap"])
        .env("TWINWIRE_TAP_CLI", &cli)
        .output()
        .unwrap();
    assert!(
        text(&output.stdout).contains("Usage: twinwire tap"),
        "{}",
        text(&output.stdout)
    );
}

/// Runs the tap on `program` (named on the command line, then through `TWINWIRE_TAP_CLI`) and
/// returns its one line of error, checked to name `program` exactly once.
fn start_error(program: &Path) -> String {
    let mut lines = Vec::new();
    for output in [
        tap(&["--", program.to_str().unwrap()], None),
        tap(&["--verbose"], Some(program)),
    ] {
        assert_eq!(output.status.code(), Some(2));
        let stderr = text(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert_eq!(
            stderr.matches(&program.display().to_string()).count(),
            1,
            "{stderr}"
        );
        lines.push(stderr.trim_end().to_owned());
    }
    assert_eq!(lines[0], lines[1]);
    lines.remove(0)
}

#[test]
fn a_program_that_cannot_start_is_named_once_with_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    assert_eq!(
        start_error(&absent),
        format!("twinwire tap: cannot run {}: not found", absent.display())
    );
    let plain = file(dir.path(), "plain", "#!/bin/sh\n", 0o644);
    assert_eq!(
        start_error(&plain),
        format!(
            "twinwire tap: cannot run {}: not executable (mode 644)",
            plain.display()
        )
    );
    assert_eq!(
        start_error(dir.path()),
        format!(
            "twinwire tap: cannot run {}: a directory, not a program",
            dir.path().display()
        )
    );
    let orphan = file(dir.path(), "orphan", "#!/no/such/interpreter\n", 0o755);
    assert_eq!(
        start_error(&orphan),
        format!(
            "twinwire tap: cannot run {}: its interpreter /no/such/interpreter was not found",
            orphan.display()
        )
    );
}
