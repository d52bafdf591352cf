//! What the `twinwire` binary's test targets share: the binary under test, the fake CLI, the
//! example agent and twinwire-agent beside it, and shell quoting for the wrapper scripts they
//! write.
// Each test target uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The `twinwire` binary under test.
pub fn twinwire() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_twinwire"))
}

/// The `fake-claude` binary next to `twinwire`, built (once per test run) so it is current.
pub fn fake_claude() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!("fake-claude{}", std::env::consts::EXE_SUFFIX);
        built(
            twinwire().with_file_name(name),
            &["-p", "twinwire-testkit", "--bin", "fake-claude"],
        )
    })
}

/// twinwire's example agent (`crates/twinwire/examples/echo_agent.rs`), built (once per test run)
/// so it is current.
pub fn echo_agent() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!("echo_agent{}", std::env::consts::EXE_SUFFIX);
        built(
            twinwire().with_file_name("examples").join(name),
            &["-p", "twinwire", "--example", "echo_agent"],
        )
    })
}

/// The README's example (`crates/twinwire/examples/readme.rs`), built (once per test run) so it
/// is current.
pub fn readme_example() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let name = format!("readme{}", std::env::consts::EXE_SUFFIX);
        built(
            twinwire().with_file_name("examples").join(name),
            &["-p", "twinwire", "--example", "readme"],
        )
    })
}

/// `twinwire-agent` (`crates/agent`), the coding agent that takes the CLI's place, built (once per
/// test run) so it is current.
pub fn twinwire_agent() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(build_twinwire_agent)
}

/// Builds `twinwire-agent` now (see [`twinwire_agent`], which does it once) and returns its path.
pub fn build_twinwire_agent() -> PathBuf {
    let name = format!("twinwire-agent{}", std::env::consts::EXE_SUFFIX);
    built(
        twinwire().with_file_name(name),
        &["-p", "twinwire-agent", "--bin", "twinwire-agent"],
    )
}

/// Set by `cargo xtask test` once every binary and example of the workspace is built, in the
/// one selection its suites share: a build here, of one package, would resolve other features
/// and build the dependencies a second time.
const PREBUILT_ENV: &str = "TWINWIRE_PREBUILT";

/// Runs `cargo build TARGET…` in the profile `twinwire` was built in and returns `path`, which
/// the build must have left in place; under `cargo xtask test` ([`PREBUILT_ENV`]) takes `path`
/// as it is.
fn built(path: PathBuf, target: &[&str]) -> PathBuf {
    if std::env::var_os(PREBUILT_ENV).is_some() {
        assert!(
            path.exists(),
            "{PREBUILT_ENV} is set but {} is not built",
            path.display()
        );
        return path;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.arg("build").args(target);
    // Without the variables Cargo set for this test. Build scripts may depend on them (ring's
    // asks Cargo to rerun it when `CARGO_MANIFEST_DIR` or `CARGO_PKG_NAME` change), and Cargo
    // compares them in its own environment: inherited, they would differ from those of a build
    // from a shell, and each of the two builds would rebuild ring and everything above it
    // (rustls, reqwest, twinwire-agent: half a minute) after the other.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_for_a_test) {
            build.env_remove(name);
        }
    }
    let profile = twinwire().parent().and_then(Path::file_name);
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

/// Whether `name` is one of the variables Cargo sets for the test (or program) it runs: those
/// that describe that package and target, not the configuration of the build (`CARGO`,
/// `CARGO_HOME`, `CARGO_TARGET_DIR`, `CARGO_INCREMENTAL`... are kept).
pub fn set_by_cargo_for_a_test(name: &str) -> bool {
    const PREFIXES: [&str; 3] = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"];
    const NAMES: [&str; 6] = [
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "OUT_DIR",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix)) || NAMES.contains(&name)
}

/// `path` quoted for `sh`.
pub fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
