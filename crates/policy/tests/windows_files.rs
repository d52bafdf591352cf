//! Windows paths against the real file system (run under Wine, whose drives are
//! case-insensitive as NTFS is, in `cargo xtask platforms`): every spelling of a path that
//! opens a denied file is denied, and every spelling an allow rule allows opens the file the
//! rule names. The file system is asked first; the policy must agree with what it did.
#![cfg(windows)]
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use twinwire_policy::{Base, Case, Decision, PermissionPolicy};

/// A project with a secret and a source file, in the usual form of its real path
/// (`C:\users\…\Proj`, its names in their case on disk).
struct Project {
    _dir: tempfile::TempDir,
    proj: String,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("Proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::write(proj.join("Secret.txt"), "the secret").unwrap();
    std::fs::write(proj.join("Other.txt"), "not secret").unwrap();
    std::fs::write(proj.join("src").join("main.rs"), "fn main() {}").unwrap();
    let real = proj.canonicalize().unwrap().display().to_string();
    let proj = real.strip_prefix(r"\\?\").unwrap_or(&real).to_owned();
    assert!(proj.as_bytes()[1] == b':', "{proj}");
    Project { _dir: dir, proj }
}

/// Every spelling of `path` a user or a model might write: other cases, the drive letter in
/// lower case, `/` for `\`, a detour through `..`, Win32's trailing dot and space, the
/// verbatim prefix.
fn spellings(path: &str) -> Vec<String> {
    let forward = path.replace('\\', "/");
    let (drive, rest) = path.split_at(1);
    let (dir, name) = path.rsplit_once('\\').unwrap();
    vec![
        path.to_owned(),
        format!("{}{rest}", drive.to_ascii_lowercase()),
        path.to_ascii_uppercase(),
        path.to_ascii_lowercase(),
        forward.clone(),
        forward.to_ascii_uppercase(),
        format!(r"{dir}\src\..\{name}"),
        format!(r"{dir}\{}", name.to_ascii_uppercase()),
        format!("{path}."),
        format!("{path} "),
        format!(r"\\?\{path}"),
    ]
}

/// What the file system reads through `path`, if it opens a file.
fn contents(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn policy(allow: &[&str], deny: &[&str], cwd: &Path) -> PermissionPolicy {
    PermissionPolicy::parse(allow, deny)
        .unwrap()
        .with_base(Base::new(cwd, None))
}

fn read(policy: &PermissionPolicy, path: &str) -> Decision {
    policy.decide("Read", &json!({ "file_path": path }))
}

#[test]
fn the_drive_folds_case_as_the_probe_says() {
    let project = project();
    let proj = PathBuf::from(&project.proj);
    assert_eq!(Case::probe(&proj), Some(Case::Insensitive));
    assert!(PathBuf::from(project.proj.to_ascii_uppercase()).is_dir());
    assert_eq!(Case::default_for_system(), Case::Insensitive);
}

#[test]
fn every_spelling_that_opens_a_denied_file_is_denied() {
    let project = project();
    let secret = format!(r"{}\Secret.txt", project.proj);
    let posix = format!(
        "//{}{}",
        secret[..1].to_ascii_lowercase(),
        secret[2..].replace('\\', "/")
    );
    for rule in [
        format!("Read({secret})"),
        format!("Read({})", secret.replace('\\', "/")),
        format!("Read({posix})"),
        format!(
            "Read({})",
            project.proj.to_ascii_lowercase() + r"\secret.txt"
        ),
    ] {
        let policy = policy(&["Read"], &[&rule], Path::new(&project.proj));
        let mut opened = 0;
        for path in spellings(&secret) {
            if contents(&path).as_deref() != Some("the secret") {
                continue;
            }
            opened += 1;
            assert!(
                matches!(read(&policy, &path), Decision::Deny(_)),
                "{rule}: `{path}` opens the secret and was not denied: {:?}",
                read(&policy, &path)
            );
        }
        // The case variants at least: the file system folds case here.
        assert!(
            opened >= 7,
            "{rule}: only {opened} spellings opened the file"
        );
        let other = format!(r"{}\Other.txt", project.proj);
        assert!(read(&policy, &other).is_allowed(), "{rule}: {other}");
    }
}

#[test]
fn what_an_allow_rule_allows_opens_the_file_it_names() {
    let project = project();
    let source = format!(r"{}\src\main.rs", project.proj);
    let rules = [
        format!(r"Read({}\src\**)", project.proj),
        format!("Read({}/src/**)", project.proj.replace('\\', "/")),
        format!(
            "Read(//{}{}/src/**)",
            project.proj[..1].to_ascii_lowercase(),
            project.proj[2..].replace('\\', "/")
        ),
        "Read(./src/**)".to_owned(),
    ];
    for rule in &rules {
        let policy = policy(&[rule], &[], Path::new(&project.proj));
        let mut allowed = 0;
        for path in spellings(&source) {
            if read(&policy, &path).is_allowed() {
                allowed += 1;
                assert_eq!(
                    contents(&path).as_deref(),
                    Some("fn main() {}"),
                    "{rule} allowed `{path}`"
                );
            }
        }
        // As written, the drive letter in either case, `/` for `\`.
        assert!(allowed >= 3, "{rule}: {allowed}");
        // Another case of a name is the same file here, but not proven by the text: asked.
        let upper = format!(r"{}\SRC\main.rs", project.proj);
        assert!(contents(&upper).is_some());
        assert!(matches!(read(&policy, &upper), Decision::Ask(_)), "{rule}");
        // Outside the rule.
        let secret = format!(r"{}\Secret.txt", project.proj);
        assert!(!read(&policy, &secret).is_allowed(), "{rule}");
    }
}

#[test]
fn shares_and_streams_are_never_allowed() {
    let project = project();
    let policy = policy(&["Read(//**)", "Read"], &[], Path::new(&project.proj));
    for path in [
        r"\\localhost\C$\Windows\win.ini".to_owned(),
        r"\\?\UNC\localhost\C$\Windows\win.ini".to_owned(),
        format!(r"{}\Secret.txt::$DATA", project.proj),
        r"\\.\C:\Windows\win.ini".to_owned(),
    ] {
        assert!(
            matches!(read(&policy, &path), Decision::Ask(_)),
            "{path}: {:?}",
            read(&policy, &path)
        );
    }
}

#[test]
fn a_file_made_through_another_case_is_the_denied_file() {
    let project = project();
    // Not there yet: nothing on disk gives its case, only the rule's text does.
    let denied = format!(r"{}\.env", project.proj);
    let policy = policy(
        &["Edit"],
        &[&format!("Edit({denied})")],
        Path::new(&project.proj),
    );
    for (n, name) in [".ENV", ".Env", ".env.", ".eNv "].into_iter().enumerate() {
        let path = format!(r"{}\{name}", project.proj);
        let decision = policy.decide("Write", &json!({ "file_path": path, "content": "x" }));
        // The file system: a file made through that spelling is the denied file.
        let written = format!("written {n}");
        std::fs::write(&path, &written).unwrap();
        assert_eq!(
            contents(&denied).as_deref(),
            Some(written.as_str()),
            "{path}"
        );
        std::fs::remove_file(&denied).unwrap();
        assert!(
            matches!(decision, Decision::Deny(_)),
            "{path}: {decision:?}"
        );
    }
}

#[test]
fn a_deny_glob_matches_names_in_any_case() {
    let project = project();
    std::fs::write(format!(r"{}\KEY.PEM", project.proj), "key").unwrap();
    let policy = policy(
        &["Read"],
        &[&format!(r"Read({}\**\*.pem)", project.proj)],
        Path::new(&project.proj),
    );
    for name in ["KEY.PEM", "key.pem", "Key.Pem"] {
        let path = format!(r"{}\{name}", project.proj);
        assert_eq!(contents(&path).as_deref(), Some("key"), "{path}");
        assert!(
            matches!(read(&policy, &path), Decision::Deny(_)),
            "{path}: {:?}",
            read(&policy, &path)
        );
    }
}

#[test]
fn a_redirection_to_the_bash_tools_drive_path_is_a_write_of_that_file() {
    let project = project();
    let secret = format!(r"{}\Secret.txt", project.proj);
    let policy = policy(
        &["Bash", "Edit"],
        &[&format!("Edit({secret})")],
        Path::new(&project.proj),
    );
    // Git Bash, the Bash tool's shell on Windows, writes `/c/…` to `C:\…`.
    let posix = format!(
        "/{}{}",
        secret[..1].to_ascii_lowercase(),
        secret[2..].replace('\\', "/")
    );
    for target in [posix.clone(), posix.to_ascii_uppercase()] {
        let decision = policy.decide("Bash", &json!({ "command": format!("echo x > {target}") }));
        assert!(
            matches!(decision, Decision::Deny(_)),
            "{target}: {decision:?}"
        );
    }
}
