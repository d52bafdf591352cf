//! `cargo xtask semver`: every library crate's public API against the release's base
//! (`xtask/semver-baseline`, a commit id, so that a clone without tags has it), with
//! cargo-semver-checks installed at a pinned version into twinwire's tool cache.
//!
//! The tool's own `--baseline-rev` builds rustdoc JSON twice per crate, each time with every
//! dependency (43 minutes cold for six crates). Here the baseline's sources come from `git
//! archive` and both sides are documented by one `cargo doc` each into a target directory of
//! their own under `target/semver`, so the dependencies are checked once. It is not the main
//! target directory because the JSON output needs `RUSTC_BOOTSTRAP`, which makes crates that
//! probe the compiler (serde) stale for every other build there.
//!
//! Before the crates, a fixture proves the tool fails a removed function: a check that cannot
//! fail does not count as passing.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// The cargo-semver-checks release used (its rustdoc JSON support follows Rust releases).
pub const SEMVER_CHECKS_VERSION: &str = "0.51.0";

/// The crates with a public library API. `twinwire-cli` is a binary; xtask and the benchmark
/// hosts are not published.
pub const LIBRARIES: &[&str] = &[
    "twinwire-protocol",
    "twinwire-policy",
    "twinwire",
    "twinwire-model-server",
    "twinwire-testkit",
    "twinwire-agent",
    "twinwire-store-sqlite",
];

/// The rustdoc JSON of every library on both sides, ready to compare.
pub struct Prepared {
    tool: PathBuf,
    baseline: String,
    /// Libraries present at the baseline, with their JSON there and now.
    pairs: Vec<(String, PathBuf, PathBuf)>,
    /// Libraries the baseline does not have (new: nothing to break).
    new: Vec<String>,
}

/// Where both sides are documented: the dependencies' builds, which nothing else shares (the
/// JSON output needs `RUSTC_BOOTSTRAP`).
pub fn build_dir(root: &Path) -> PathBuf {
    crate::sdks::target_dir(root).join("semver/target")
}

/// Installs the tool, proves it can fail, documents both sides and compares them.
pub fn check(root: &Path) -> Result<()> {
    prepare(root, false)?.compare()
}

/// Everything before the comparison: the tool installed and proven, both sides documented.
/// `quietly` runs the builds at the lowest CPU priority with their output in
/// `target/semver/log` (shown if they fail), for a run beside other work.
pub fn prepare(root: &Path, quietly: bool) -> Result<Prepared> {
    let work = crate::sdks::target_dir(root).join("semver");
    std::fs::create_dir_all(&work)?;
    let quiet = if quietly {
        let log = work.join("log");
        std::fs::File::create(&log)?;
        Some(log)
    } else {
        None
    };
    let quiet = quiet.as_deref();
    prepare_with(root, &work, quiet).map_err(|err| match quiet {
        Some(log) => err.context(format!(
            "semver (its builds' output, last lines of {}):\n{}",
            log.display(),
            last_lines(log, 40)
        )),
        None => err,
    })
}

fn prepare_with(root: &Path, work: &Path, quiet: Option<&Path>) -> Result<Prepared> {
    let baseline = baseline(root)?;
    let tool = install(quiet)?;
    prove_it_fails(&tool, &work.join("fixture"))?;
    let started = Instant::now();
    let base_tree = work.join(format!("baseline-{}", &baseline[..12]));
    if !base_tree.join("Cargo.toml").is_file() {
        if !has_commit(root, &baseline)? {
            eprintln!(
                "warning: semver: this clone is shallow and lacks the baseline {baseline} \
                 (xtask/semver-baseline); nothing compared. `git fetch --unshallow` to check."
            );
            return Ok(Prepared {
                tool,
                baseline,
                pairs: Vec::new(),
                new: Vec::new(),
            });
        }
        extract(root, &baseline, &base_tree)?;
    }
    let base_members = workspace_packages(&base_tree, quiet)?;
    let (present, new): (Vec<&str>, Vec<&str>) = LIBRARIES
        .iter()
        .partition(|library| base_members.contains(**library));
    let target = build_dir(root);
    let base_json = document(
        &base_tree,
        &present,
        &target,
        &work.join("json-baseline"),
        quiet,
    )
    .context("documenting the baseline")?;
    let current_json = document(root, &present, &target, &work.join("json-current"), quiet)
        .context("documenting the working tree")?;
    eprintln!(
        "semver: rustdoc JSON of {} libraries at {} and now in {:.0} s",
        present.len(),
        &baseline[..12],
        started.elapsed().as_secs_f64()
    );
    let pairs = present
        .iter()
        .zip(base_json.into_iter().zip(current_json))
        .map(|(name, (base, current))| ((*name).to_owned(), base, current))
        .collect();
    Ok(Prepared {
        tool,
        baseline,
        pairs,
        new: new.iter().map(|name| (*name).to_owned()).collect(),
    })
}

impl Prepared {
    /// Runs cargo-semver-checks on every pair; an error naming each library that broke.
    pub fn compare(&self) -> Result<()> {
        let mut broken = Vec::new();
        for (name, base, current) in &self.pairs {
            let status = Command::new(&self.tool)
                .args(["semver-checks", "--baseline-rustdoc"])
                .arg(base)
                .arg("--current-rustdoc")
                .arg(current)
                .status()
                .with_context(|| format!("starting {}", self.tool.display()))?;
            if !status.success() {
                broken.push(name.as_str());
            }
        }
        if !broken.is_empty() {
            bail!(
                "the public API of {} changed incompatibly since {} (xtask/semver-baseline): \
                 bump the version, or keep the old API",
                broken.join(", "),
                self.baseline
            );
        }
        if self.pairs.is_empty() && self.new.is_empty() {
            return Ok(());
        }
        for name in &self.new {
            eprintln!("semver: {name} is new since the baseline; nothing to compare");
        }
        eprintln!(
            "semver: {} libraries, no incompatible change since {}",
            self.pairs.len(),
            &self.baseline[..12]
        );
        Ok(())
    }
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

/// Whether commit `id` is in the clone at `root`: false for a shallow clone without it, an
/// error for a full clone without it (the file names a commit of another history).
fn has_commit(root: &Path, id: &str) -> Result<bool> {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .stderr(Stdio::null())
            .output()
            .context("starting git")
    };
    if git(&["cat-file", "-e", &format!("{id}^{{commit}}")])?
        .status
        .success()
    {
        return Ok(true);
    }
    let shallow = git(&["rev-parse", "--is-shallow-repository"])?;
    ensure!(
        String::from_utf8_lossy(&shallow.stdout).trim() == "true",
        "the semver baseline {id} (xtask/semver-baseline) is not in this clone's history"
    );
    Ok(false)
}

/// The sources of commit `id` under `dir`, by `git archive` piped to `tar` (no worktree to
/// register, nothing in the index touched).
fn extract(root: &Path, id: &str, dir: &Path) -> Result<()> {
    let partial = dir.with_extension("partial");
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial)?;
    let mut archive = Command::new("git")
        .current_dir(root)
        .args(["archive", "--format=tar", id])
        .stdout(Stdio::piped())
        .spawn()
        .context("starting git archive")?;
    let stdout = archive.stdout.take().context("git archive's output")?;
    let unpacked = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&partial)
        .stdin(stdout)
        .status()
        .context("starting tar")?;
    let archived = archive.wait()?;
    ensure!(
        archived.success() && unpacked.success(),
        "git archive {id} | tar -x failed ({archived}, {unpacked}); is the commit in this clone?"
    );
    std::fs::rename(&partial, dir)?;
    Ok(())
}

/// The names of the packages in the workspace at `root`.
fn workspace_packages(root: &Path, quiet: Option<&Path>) -> Result<BTreeSet<String>> {
    let output = finish(
        lowly(quiet, crate::cargo())?
            .current_dir(root)
            .args(["metadata", "--no-deps", "--format-version", "1", "--locked"])
            .stdout(Stdio::piped()),
        quiet.is_some(),
    )?;
    ensure!(
        output.status.success(),
        "cargo metadata in {} failed",
        root.display()
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    Ok(metadata["packages"]
        .as_array()
        .context("cargo metadata without packages")?
        .iter()
        .filter_map(|package| package["name"].as_str().map(str::to_owned))
        .collect())
}

/// One `cargo doc` of `libraries` (every feature) in the workspace at `tree` with rustdoc's
/// JSON output into `target`; each crate's JSON copied into `out`, in the order given.
fn document(
    tree: &Path,
    libraries: &[&str],
    target: &Path,
    out: &Path,
    quiet: Option<&Path>,
) -> Result<Vec<PathBuf>> {
    // Both sides share the target directory for their dependencies, but the workspace's own
    // crates have the same names and versions on both: cargo would take one side's as fresh
    // for the other (it keeps their paths out of its hashes), so they go first.
    let mut clean = lowly(quiet, crate::cargo())?;
    clean
        .current_dir(tree)
        .env("CARGO_TARGET_DIR", target)
        .args(["clean", "--quiet", "--locked"]);
    for library in libraries {
        clean.args(["--package", library]);
    }
    succeed(&mut clean, quiet.is_some())?;
    let mut command = lowly(quiet, crate::cargo())?;
    command
        .current_dir(tree)
        .env("CARGO_TARGET_DIR", target)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTDOCFLAGS", "-Z unstable-options --output-format json")
        .args(["doc", "--no-deps", "--all-features", "--locked", "--lib"]);
    for library in libraries {
        command.args(["--package", library]);
    }
    succeed(&mut command, quiet.is_some())?;
    std::fs::create_dir_all(out)?;
    libraries
        .iter()
        .map(|library| {
            let file = format!("{}.json", library.replace('-', "_"));
            let copy = out.join(&file);
            std::fs::copy(target.join("doc").join(&file), &copy)
                .with_context(|| format!("the rustdoc JSON of {library}"))?;
            Ok(copy)
        })
        .collect()
}

/// Proves the tool fails when a function is removed: two versions of a one-file crate, the
/// second without `removed`, documented with the same rustdoc.
fn prove_it_fails(tool: &Path, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let versions = [
        ("before", "pub fn kept() {}\npub fn removed() {}\n"),
        ("after", "pub fn kept() {}\n"),
    ];
    for (name, source) in versions {
        let file = dir.join(format!("{name}.rs"));
        std::fs::write(&file, source)?;
        crate::cmd::run_quiet(
            Command::new("rustdoc")
                .env("RUSTC_BOOTSTRAP", "1")
                .args(["--edition", "2021", "--crate-type", "lib"])
                .args(["--crate-name", "probe", "--crate-version", "0.1.0"])
                .args(["-Z", "unstable-options", "--output-format", "json"])
                .arg(&file)
                .arg("-o")
                .arg(dir.join(name)),
            "rustdoc of the semver fixture",
        )?;
    }
    let output = Command::new(tool)
        .args(["semver-checks", "--baseline-rustdoc"])
        .arg(dir.join("before/probe.json"))
        .arg("--current-rustdoc")
        .arg(dir.join("after/probe.json"))
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("starting {}", tool.display()))?;
    let report = String::from_utf8_lossy(&output.stdout);
    ensure!(
        !output.status.success() && report.contains("function_missing"),
        "cargo-semver-checks did not fail a removed function ({}): {report}",
        output.status
    );
    Ok(())
}

/// `program` as is, or with `quiet` (a log file): at the lowest CPU priority (where `nice` is
/// there) with its output appended to the log.
fn lowly(quiet: Option<&Path>, program: impl AsRef<std::ffi::OsStr>) -> Result<Command> {
    let Some(log) = quiet else {
        return Ok(Command::new(program));
    };
    let mut command = if Path::new("/usr/bin/nice").is_file() {
        let mut command = Command::new("/usr/bin/nice");
        command.args(["-n", "19"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    let append = || std::fs::OpenOptions::new().append(true).open(log);
    command
        .stdin(Stdio::null())
        .stdout(append()?)
        .stderr(append()?);
    Ok(command)
}

/// What runs in the background: the process group of its command, and whether it was stopped.
static BACKGROUND: Mutex<Background> = Mutex::new(Background {
    group: None,
    stopped: false,
});

struct Background {
    group: Option<Pid>,
    stopped: bool,
}

/// Ends the background builds (the command running and those still to come), when the run
/// they were beside has failed: nothing of theirs outlives `cargo xtask test`.
pub fn stop_background() {
    let mut background = BACKGROUND.lock().unwrap_or_else(|e| e.into_inner());
    background.stopped = true;
    if let Some(group) = background.group.take() {
        let _ = killpg(group, Signal::SIGKILL);
    }
}

/// Runs `command` to its end and returns its output (what was piped). In the background, it
/// runs in a process group of its own, which [`stop_background`] ends with all it started.
fn finish(command: &mut Command, background: bool) -> Result<Output> {
    if !background {
        let child = command
            .spawn()
            .with_context(|| format!("starting {command:?}"))?;
        return Ok(child.wait_with_output()?);
    }
    command.process_group(0);
    let child = {
        let mut state = BACKGROUND.lock().unwrap_or_else(|e| e.into_inner());
        ensure!(!state.stopped, "stopped: the run beside failed");
        let child = command
            .spawn()
            .with_context(|| format!("starting {command:?}"))?;
        state.group = Some(Pid::from_raw(child.id() as i32));
        child
    };
    let output = child.wait_with_output();
    BACKGROUND
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .group
        .take();
    Ok(output?)
}

/// [`finish`], and an error if the command failed.
fn succeed(command: &mut Command, background: bool) -> Result<()> {
    let output = finish(command, background)?;
    ensure!(
        output.status.success(),
        "{command:?} failed: {}",
        output.status
    );
    Ok(())
}

/// The last `count` lines of the file at `path` (what is there of it).
fn last_lines(path: &Path, count: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// Where the tool is installed, and whether it is there already (for the plan).
pub fn tool_location() -> Result<(PathBuf, bool)> {
    let (root, binary) = location()?;
    Ok((root, binary.is_file()))
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
fn install(quiet: Option<&Path>) -> Result<PathBuf> {
    let (root, binary) = location()?;
    if binary.is_file() {
        return Ok(binary);
    }
    eprintln!(
        "installing cargo-semver-checks {SEMVER_CHECKS_VERSION} with `cargo install --locked` into {} (once; minutes) …",
        root.display()
    );
    let started = Instant::now();
    succeed(
        lowly(quiet, crate::cargo())?
            .args([
                "install",
                "--locked",
                "cargo-semver-checks",
                "--version",
                SEMVER_CHECKS_VERSION,
            ])
            // Its release profile asks for LTO and one codegen unit: on 2 cores that build takes
            // 18 minutes, without them 6, and the checks of seven crates run as fast.
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
            .arg("--root")
            .arg(&root),
        quiet.is_some(),
    )
    .context("installing cargo-semver-checks")?;
    eprintln!(
        "cargo-semver-checks installed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(binary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn stopping_the_background_ends_its_command_and_what_that_started() {
        let runner = std::thread::spawn(|| {
            // A shell with a child of its own: both must go.
            finish(
                Command::new("sh").args(["-c", "sleep 60 & sleep 60; wait"]),
                true,
            )
        });
        let group = loop {
            if let Some(group) = BACKGROUND.lock().unwrap().group {
                break group;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        std::thread::sleep(Duration::from_millis(200));
        let started = Instant::now();
        stop_background();
        let output = runner.join().unwrap().unwrap();
        assert!(!output.status.success());
        assert!(started.elapsed() < Duration::from_secs(5));
        // Nothing of the group is left (killpg with no signal: ESRCH once it is gone).
        let deadline = Instant::now() + Duration::from_secs(5);
        while killpg(group, None).is_ok() {
            assert!(Instant::now() < deadline, "the group outlived the stop");
            std::thread::sleep(Duration::from_millis(20));
        }
        // And nothing starts after the stop.
        let refused = finish(&mut Command::new("true"), true).unwrap_err();
        assert!(refused.to_string().contains("stopped"), "{refused}");
    }
}
