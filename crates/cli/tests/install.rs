//! `twinwire install-claude`: the pinned Claude Code from the real npm registry into a private
//! cache, served from that cache again with no registry reachable, and found there by
//! discovery (`twinwire run --offline` with no `claude` on PATH); and, against a registry served
//! here, a tarball that does not match its integrity refused with nothing left in the cache.
//! The first test needs the npm registry (`npm_config_registry` names another), as `cargo xtask
//! test` does to install the CLI.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::twinwire;

const VERSION: &str = twinwire::protocol::CLAUDE_CODE_VERSION;

/// `twinwire install-claude` with its cache in `cache` and nothing of the caller's environment
/// that could point elsewhere.
fn install(cache: &Path, registry: Option<&str>, extra: &[&str]) -> Output {
    let mut command = Command::new(twinwire());
    command
        .arg("install-claude")
        .args(extra)
        .env("TWINWIRE_CACHE_DIR", cache)
        .env_remove("XDG_CACHE_HOME")
        .stdin(Stdio::null());
    if let Some(registry) = registry {
        command.env("npm_config_registry", registry);
    }
    command.output().expect("running twinwire install-claude")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Everything in `dir` (recursively), for "nothing was left" checks.
fn contents(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            found.push(entry.path());
            found.extend(contents(&entry.path()));
        }
    }
    found
}

/// A registry address where nothing listens: any request to it fails at once.
fn dead_registry() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/")
}

#[test]
fn installs_the_pinned_cli_from_the_registry_then_serves_and_finds_it_offline() {
    let root = tempfile::tempdir().expect("tempdir");
    let cache = root.path().join("cache");
    let first = install(&cache, None, &[]);
    assert!(
        first.status.success(),
        "{}\n{}",
        text(&first.stdout),
        text(&first.stderr)
    );
    let expected = cache
        .join("claude-code")
        .join(VERSION)
        .join(format!("claude{}", std::env::consts::EXE_SUFFIX));
    assert_eq!(text(&first.stdout).trim(), expected.display().to_string());
    assert!(
        text(&first.stderr).contains("downloaded"),
        "{}",
        text(&first.stderr)
    );
    // Only the version's directory: the scratch space is gone.
    let left: Vec<_> = std::fs::read_dir(cache.join("claude-code"))
        .expect("cache")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from(VERSION)]);

    // Again, with no registry to reach: served from the cache.
    let second = install(&cache, Some(&dead_registry()), &[]);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert_eq!(text(&second.stdout).trim(), expected.display().to_string());
    assert!(
        text(&second.stderr).contains("already installed"),
        "{}",
        text(&second.stderr)
    );

    // Discovery: no `claude` on PATH, none in HOME, no TWINWIRE_CLI_PATH; the cache has it.
    let home = root.path().join("home");
    let empty_path = root.path().join("bin");
    let work = root.path().join("work");
    for dir in [&home, &empty_path, &work] {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    let run = Command::new(twinwire())
        .args(["run", "--offline", "--cwd"])
        .arg(&work)
        .arg("Show me the demo")
        .env("TWINWIRE_CACHE_DIR", &cache)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("TWINWIRE_CLI_PATH")
        .env("HOME", &home)
        .env("PATH", &empty_path)
        .env("XDG_STATE_HOME", root.path().join("state"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("running twinwire run");
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Bash(echo 'hello from twinwire'"),
        "{stdout}\n{stderr}"
    );
}

/// A registry on this machine whose metadata says one sha512 and whose tarball has another.
/// Returns its URL; it serves at most `requests` requests, then its thread ends.
fn lying_registry(requests: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    let base = url.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let path = request_line.split_whitespace().nth(1).unwrap_or("/");
            let (status, body) = if path.ends_with(".tgz") {
                ("200 OK", b"these bytes are not the package".to_vec())
            } else if path.contains("claude-code") {
                let meta = serde_json::json!({
                    "dist": {
                        "tarball": format!("{base}claude.tgz"),
                        // The sha512 of 64 zero bytes' worth: matches nothing served here.
                        "integrity": format!("sha512-{}==", "A".repeat(86)),
                    }
                });
                ("200 OK", meta.to_string().into_bytes())
            } else {
                ("404 Not Found", b"{}".to_vec())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-length: {}\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    url
}

#[test]
fn a_tarball_that_fails_its_integrity_is_refused_and_nothing_is_cached() {
    let root = tempfile::tempdir().expect("tempdir");
    let cache = root.path().join("cache");
    let output = install(&cache, Some(&lying_registry(8)), &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("does not match the registry's integrity"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was installed"), "{stderr}");
    assert!(text(&output.stdout).is_empty());
    // The cache's `claude-code` directory may exist; nothing is in it.
    assert_eq!(contents(&cache.join("claude-code")), Vec::<PathBuf>::new());
    assert!(!cache.join("claude-code").join(VERSION).exists());
}

#[test]
fn an_unreachable_registry_or_an_old_version_is_a_clear_error() {
    let root = tempfile::tempdir().expect("tempdir");
    let cache = root.path().join("cache");
    let registry = dead_registry();
    let output = install(&cache, Some(&registry), &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("the npm registry at {registry}")),
        "{stderr}"
    );
    assert_eq!(contents(&cache.join("claude-code")), Vec::<PathBuf>::new());

    let old = install(&cache, Some(&registry), &["--version", "2.0.77"]);
    let stderr = text(&old.stderr);
    assert_eq!(old.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("npm install -g"), "{stderr}");
}
