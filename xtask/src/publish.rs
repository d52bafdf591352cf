//! `cargo xtask package`: every published crate packaged as `cargo publish` would, in
//! dependency order (Cargo packages the workspace's unpublished dependencies together), each
//! `.crate` within a size limit, and `fake-claude` installed the way docs/fake-claude.md says.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::cmd::{run, run_leaving_out};
use crate::sdks::target_dir;

/// The packages that are not published (`publish = false`).
const UNPUBLISHED: &[&str] = &["xtask", "twinwire-bench"];

/// The largest `.crate` accepted. The largest today, `twinwire`, is about 256 KB; a package four
/// times that has picked up recordings or build output.
pub const MAX_PACKAGE_BYTES: u64 = 1 << 20;

/// How long the installed `fake-claude` may take to answer one message.
const FAKE_ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// Packages every published crate (`cargo package --workspace`, which builds each from its
/// `.crate` against the others), checks the sizes, and installs `fake-claude` as documented.
/// `allow_dirty` packages uncommitted changes too (a clean tree is the default, as for
/// `cargo publish`).
pub fn package(root: &Path, allow_dirty: bool) -> Result<()> {
    let started = Instant::now();
    let mut command = Command::new(crate::cargo());
    command
        .current_dir(root)
        .args(["package", "--workspace", "--locked"]);
    for name in UNPUBLISHED {
        command.args(["--exclude", name]);
    }
    if allow_dirty {
        command.arg("--allow-dirty");
    }
    let left_out = run_leaving_out(&mut command, is_left_out_target).context(
        "packaging failed: cargo says why above (if it names uncommitted changes, commit them \
         or run `cargo xtask package --allow-dirty`)",
    )?;
    eprintln!(
        "package: {left_out} test, example and benchmark targets stay in the repository, as \
         each Cargo.toml's `include` says (they need its recordings, the real CLI or the other \
         crates' binaries); cargo's warning for each is left out"
    );
    let sizes = package_sizes(&target_dir(root).join("package"))?;
    let mut too_large = Vec::new();
    for (name, bytes) in &sizes {
        eprintln!("package {name}: {:.0} KB", *bytes as f64 / 1e3);
        if *bytes > MAX_PACKAGE_BYTES {
            too_large.push(format!("{name} ({bytes} bytes)"));
        }
    }
    if !too_large.is_empty() {
        bail!(
            "packages larger than {MAX_PACKAGE_BYTES} bytes: {} (see `cargo package --list -p NAME`)",
            too_large.join(", ")
        );
    }
    eprintln!(
        "packaged {} crates in {:.0} s",
        sizes.len(),
        started.elapsed().as_secs_f64()
    );
    install_fake_claude(root)
}

/// Cargo's warning that a target is not in the package (`warning: ignoring test `x` as
/// `tests/x.rs` is not included in the published package`): expected, since `include` leaves
/// out every test, example and benchmark.
fn is_left_out_target(line: &str) -> bool {
    line.starts_with("warning: ignoring ")
        && line.ends_with(" is not included in the published package")
}

/// The `.crate` files of this workspace's version in `dir`, by package name.
fn package_sizes(dir: &Path) -> Result<Vec<(String, u64)>> {
    let version = env!("CARGO_PKG_VERSION");
    let mut sizes = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(package) = name.strip_suffix(&format!("-{version}.crate")) {
            sizes.push((package.to_owned(), entry.metadata()?.len()));
        }
    }
    sizes.sort();
    if sizes.is_empty() {
        bail!("no .crate files in {}", dir.display());
    }
    Ok(sizes)
}

/// `cargo install --path crates/testkit --bin fake-claude` (docs/fake-claude.md) into a
/// scratch root, then one message through the installed binary. `--debug` and the workspace's
/// target directory only make it reuse this build's artifacts.
fn install_fake_claude(root: &Path) -> Result<()> {
    let scratch = target_dir(root).join("fake-claude-install");
    let _ = std::fs::remove_dir_all(&scratch);
    run(Command::new(crate::cargo())
        .current_dir(root)
        .args([
            "install",
            "--path",
            "crates/testkit",
            "--bin",
            "fake-claude",
        ])
        .args(["--locked", "--debug", "--root"])
        .arg(&scratch)
        .arg("--target-dir")
        .arg(target_dir(root)))
    .context("installing fake-claude as docs/fake-claude.md says")?;
    let binary = scratch
        .join("bin")
        .join(format!("fake-claude{}", std::env::consts::EXE_SUFFIX));
    let answer = answer_of(&binary)?;
    let _ = std::fs::remove_dir_all(&scratch);
    if !answer.contains("echo: hello from the install check") {
        bail!("the installed fake-claude did not echo the message: {answer}");
    }
    eprintln!("fake-claude installs and answers");
    Ok(())
}

/// What `fake` writes for one user message on stdin (then end of input).
fn answer_of(fake: &Path) -> Result<String> {
    let mut child = Command::new(fake)
        .args([
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", fake.display()))?;
    let line = serde_json::json!({
        "type": "user",
        "message": {"role": "user", "content": "hello from the install check"},
    });
    let mut stdin = child.stdin.take().context("no stdin")?;
    writeln!(stdin, "{line}")?;
    drop(stdin);
    let stdout = child.stdout.take().context("no stdout")?;
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let deadline = Instant::now() + FAKE_ANSWER_TIMEOUT;
    while child.try_wait()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("fake-claude did not finish within {FAKE_ANSWER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(reader.join().unwrap_or_default())
}

/// Where the project's tools are cached (beside the pinned CLI, outside `target/`, so a
/// `cargo clean` keeps them).
pub fn tools_dir() -> Result<PathBuf> {
    Ok(crate::install::cache_base()?.join("tools"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_warnings_of_targets_left_out_are_expected() {
        assert!(is_left_out_target(
            "warning: ignoring test `mcp` as `tests/mcp.rs` is not included in the published \
             package"
        ));
        assert!(is_left_out_target(
            "warning: ignoring example `readme` as `examples/readme.rs` is not included in the \
             published package"
        ));
        assert!(!is_left_out_target("warning: manifest has no description"));
        assert!(!is_left_out_target(
            "error: failed to verify package tarball"
        ));
    }
}
