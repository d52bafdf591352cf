//! Everything a benchmark run needs before the first host starts: the release build of the
//! fake CLI and the Rust hosts, the official SDKs (installed once, then reused), and the facts
//! about the machine that go into the report.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::sdks;

/// The paths of everything the hosts are started from.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `target/<profile>/fake-claude`.
    pub fake: PathBuf,
    /// `target/<profile>/`, with `twinwire-host`, `bare-loop` and `pipe-read`.
    pub bins: PathBuf,
    /// The Cargo profile the Rust side was built with.
    pub profile: &'static str,
    /// The venv's `python`.
    pub python: PathBuf,
    /// `node`.
    pub node: PathBuf,
    /// The TS SDK's `sdk.mjs`.
    pub ts_sdk: PathBuf,
    /// `bench/` in the repository (the Python and Node hosts).
    pub hosts: PathBuf,
    /// How each SDK install went: `(what, seconds or None when it was already there)`.
    pub installs: Vec<(String, Option<f64>)>,
}

/// Builds the Rust side (`release`, or the dev profile that `cargo test` already built) and
/// installs both SDKs (see [`crate::sdks`]).
pub fn prepare(root: &Path, release: bool) -> Result<Tools> {
    let started = Instant::now();
    let (profile, subdir) = if release {
        ("release", "release")
    } else {
        ("dev", "debug")
    };
    if release {
        let status = Command::new(cargo())
            .current_dir(root)
            .args([
                "build",
                "--profile",
                profile,
                "--locked",
                "-p",
                "twinwire-testkit",
            ])
            .args(["--bin", "fake-claude", "-p", "twinwire-bench", "--bins"])
            .status()
            .context("starting cargo build")?;
        if !status.success() {
            bail!("building fake-claude and the Rust hosts failed: {status}");
        }
    } else {
        // The dev build the tests made, in their selection (see `crate::build`).
        crate::build::all(root).context("building fake-claude and the Rust hosts")?;
    }
    eprintln!(
        "bench: {profile} build ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let bins = sdks::target_dir(root).join(subdir);
    let sdks = sdks::install(&sdks::sdk_dir(root))?;
    Ok(Tools {
        fake: bins.join("fake-claude"),
        bins,
        profile,
        python: sdks.python,
        node: sdks.node,
        ts_sdk: sdks.ts_sdk,
        hosts: root.join("bench"),
        installs: sdks.installs,
    })
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// What the report says about the machine and the toolchains.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    /// CPU model, cores, RAM, kernel.
    pub hardware: String,
    /// `rustc`, `node` and the venv's `python` versions.
    pub toolchains: String,
}

/// Reads the machine's facts from `/proc` and the toolchains' `--version`.
pub fn machine(tools: &Tools) -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name")?.split_once(':'))
        .map(|(_, model)| model.trim().to_owned())
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let ram_gib = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let version = |program: &Path, arg: &str| {
        Command::new(program)
            .arg(arg)
            .output()
            .ok()
            .map(|o| {
                let text = if o.stdout.is_empty() {
                    o.stderr
                } else {
                    o.stdout
                };
                String::from_utf8_lossy(&text).trim().to_owned()
            })
            .unwrap_or_else(|| "unknown".to_owned())
    };
    Machine {
        hardware: format!(
            "{model}, {cores} cores, {ram_gib:.1} GiB RAM, Linux {}",
            kernel.trim()
        ),
        toolchains: format!(
            "{}; node {}; {}",
            version(Path::new("rustc"), "--version"),
            version(&tools.node, "--version"),
            version(&tools.python, "--version"),
        ),
    }
}
