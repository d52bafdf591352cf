//! `cargo xtask semver`: every library crate's public API against the release's base
//! (`xtask/semver-baseline`, a commit id, so that a clone without tags has it), with
//! cargo-semver-checks installed at a pinned version into ccwire's tool cache.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::cmd::run;

/// The cargo-semver-checks release used (its rustdoc JSON support follows Rust releases).
const SEMVER_CHECKS_VERSION: &str = "0.51.0";

/// The crates with a public library API. `ccwire-cli` is a binary; xtask and the benchmark
/// hosts are not published.
const LIBRARIES: &[&str] = &[
    "ccwire-protocol",
    "ccwire-policy",
    "ccwire",
    "ccwire-model-server",
    "ccwire-testkit",
    "ccwire-agent",
];

/// Installs cargo-semver-checks if needed and checks every library against the baseline.
pub fn check(root: &Path) -> Result<()> {
    let baseline = baseline(root)?;
    let tool = install()?;
    let started = Instant::now();
    let mut command = Command::new(&tool);
    command
        .current_dir(root)
        .args(["semver-checks", "--baseline-rev", &baseline]);
    for library in LIBRARIES {
        command.args(["--package", library]);
    }
    run(&mut command).with_context(|| {
        format!(
            "a public API changed incompatibly since {baseline} (xtask/semver-baseline): \
             bump the version, or keep the old API"
        )
    })?;
    eprintln!(
        "semver: no incompatible change since {} ({:.0} s)",
        &baseline[..12],
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The commit in `xtask/semver-baseline`.
fn baseline(root: &Path) -> Result<String> {
    let path = root.join("xtask/semver-baseline");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let id = text.trim();
    if id.len() != 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!(
            "{} must hold one full commit id, not {id:?}",
            path.display()
        );
    }
    Ok(id.to_owned())
}

/// The install root and the binary in it.
fn location() -> Result<(PathBuf, PathBuf)> {
    let root =
        crate::publish::tools_dir()?.join(format!("cargo-semver-checks-{SEMVER_CHECKS_VERSION}"));
    let binary = root.join("bin").join(format!(
        "cargo-semver-checks{}",
        std::env::consts::EXE_SUFFIX
    ));
    Ok((root, binary))
}

/// `cargo install --locked cargo-semver-checks@VERSION` into the tool cache, once; returns the
/// binary.
fn install() -> Result<PathBuf> {
    let (root, binary) = location()?;
    if binary.is_file() {
        return Ok(binary);
    }
    eprintln!(
        "installing cargo-semver-checks {SEMVER_CHECKS_VERSION} with `cargo install --locked` into {} (once; several minutes) …",
        root.display()
    );
    let started = Instant::now();
    run(Command::new(crate::cargo())
        .args([
            "install",
            "--locked",
            "cargo-semver-checks",
            "--version",
            SEMVER_CHECKS_VERSION,
        ])
        .arg("--root")
        .arg(&root))
    .context("installing cargo-semver-checks")?;
    eprintln!(
        "cargo-semver-checks installed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(binary)
}
