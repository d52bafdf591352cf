//! What the `ccwire` binary's test targets share: the binary under test, the fake CLI, the
//! example agent and ccwire-agent beside it, and shell quoting for the wrapper scripts they
//! write.
// Each test target uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The `ccwire` binary under test.
pub fn ccwire() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ccwire"))
}

/// The `fake-claude` binary next to `ccwire`, built (once per test run) so it is current.
pub fn fake_claude() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!("fake-claude{}", std::env::consts::EXE_SUFFIX);
        built(
            ccwire().with_file_name(name),
            &["-p", "ccwire-testkit", "--bin", "fake-claude"],
        )
    })
}

/// ccwire's example agent (`crates/ccwire/examples/echo_agent.rs`), built (once per test run)
/// so it is current.
pub fn echo_agent() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!("echo_agent{}", std::env::consts::EXE_SUFFIX);
        built(
            ccwire().with_file_name("examples").join(name),
            &["-p", "ccwire", "--example", "echo_agent"],
        )
    })
}

/// `ccwire-agent` (`crates/agent`), the coding agent that takes the CLI's place, built (once per
/// test run) so it is current.
pub fn ccwire_agent() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!("ccwire-agent{}", std::env::consts::EXE_SUFFIX);
        built(
            ccwire().with_file_name(name),
            &["-p", "ccwire-agent", "--bin", "ccwire-agent"],
        )
    })
}

/// Runs `cargo build TARGET…` in the profile `ccwire` was built in and returns `path`, which
/// the build must have left in place.
fn built(path: PathBuf, target: &[&str]) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.arg("build").args(target);
    let profile = ccwire().parent().and_then(Path::file_name);
    if profile.is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("running cargo build");
    assert!(
        status.success() || path.exists(),
        "cargo build {} failed",
        target.join(" ")
    );
    assert!(path.exists(), "no {} after the build", path.display());
    path
}

/// `path` quoted for `sh`.
pub fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
