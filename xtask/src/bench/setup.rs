//! Everything a benchmark run needs before the first host starts: the release build of the
//! fake CLI and the Rust hosts, the official SDKs (installed once, then reused), and the facts
//! about the machine that go into the report.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// The official Python SDK measured (PyPI).
pub const PYTHON_SDK_VERSION: &str = "0.2.187";

/// The official TypeScript SDK measured (npm).
pub const TS_SDK_VERSION: &str = "0.3.330";

/// The paths of everything the hosts are started from.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `target/<profile>/fake-claude`.
    pub fake: PathBuf,
    /// `target/<profile>/`, with `ccwire-host`, `bare-loop` and `pipe-read`.
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
/// installs both SDKs under `dir` (normally `target/bench`).
pub fn prepare(root: &Path, dir: &Path, release: bool) -> Result<Tools> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let started = Instant::now();
    let (profile, subdir) = if release {
        ("release", "release")
    } else {
        ("dev", "debug")
    };
    let status = Command::new(cargo())
        .current_dir(root)
        .args([
            "build",
            "--profile",
            profile,
            "--locked",
            "-p",
            "ccwire-testkit",
        ])
        .args(["--bin", "fake-claude", "-p", "ccwire-bench", "--bins"])
        .status()
        .context("starting cargo build")?;
    if !status.success() {
        bail!("building fake-claude and the Rust hosts failed: {status}");
    }
    eprintln!(
        "bench: {profile} build ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let bins = target_dir(root).join(subdir);
    let mut installs = Vec::new();
    let python = install_python_sdk(&dir.join("venv"), &mut installs)?;
    let ts_sdk = install_ts_sdk(&dir.join("node"), &mut installs)?;
    let installs = remember_install_times(&dir.join("install-times.json"), installs);
    Ok(Tools {
        fake: bins.join("fake-claude"),
        bins,
        profile,
        python,
        node: PathBuf::from("node"),
        ts_sdk,
        hosts: root.join("bench"),
        installs,
    })
}

/// Keeps how long each install took in `path`, so that a run that finds the SDKs already
/// installed still reports what installing them cost.
fn remember_install_times(
    path: &Path,
    installs: Vec<(String, Option<f64>)>,
) -> Vec<(String, Option<f64>)> {
    let mut known: serde_json::Map<String, serde_json::Value> = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let installs = installs
        .into_iter()
        .map(|(what, seconds)| match seconds {
            Some(s) => {
                known.insert(what.clone(), s.into());
                (what, Some(s))
            }
            None => {
                let earlier = known.get(&what).and_then(serde_json::Value::as_f64);
                (what, earlier)
            }
        })
        .collect();
    let _ = std::fs::write(path, serde_json::Value::Object(known).to_string());
    installs
}

/// `python3 -m venv` + `pip install claude-agent-sdk==…`, skipped when the venv already has
/// that version. Returns the venv's interpreter.
fn install_python_sdk(venv: &Path, installs: &mut Vec<(String, Option<f64>)>) -> Result<PathBuf> {
    let python = venv.join("bin/python");
    let what = format!("claude-agent-sdk {PYTHON_SDK_VERSION} (PyPI, venv + pip)");
    if python_sdk_version(&python).as_deref() == Some(PYTHON_SDK_VERSION) {
        installs.push((what, None));
        return Ok(python);
    }
    eprintln!("bench: installing {what} into {}", venv.display());
    let started = Instant::now();
    if venv.exists() {
        std::fs::remove_dir_all(venv).with_context(|| format!("removing {}", venv.display()))?;
    }
    checked(Command::new("python3").arg("-m").arg("venv").arg(venv))?;
    checked(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--quiet",
            ])
            .arg(format!("claude-agent-sdk=={PYTHON_SDK_VERSION}")),
    )?;
    let seconds = started.elapsed().as_secs_f64();
    match python_sdk_version(&python) {
        Some(version) if version == PYTHON_SDK_VERSION => {}
        other => bail!("the venv has claude-agent-sdk {other:?}, not {PYTHON_SDK_VERSION}"),
    }
    eprintln!("bench: installed in {seconds:.1} s");
    installs.push((what, Some(seconds)));
    Ok(python)
}

fn python_sdk_version(python: &Path) -> Option<String> {
    if !python.exists() {
        return None;
    }
    let code = "import importlib.metadata as m; print(m.version('claude-agent-sdk'))";
    let output = Command::new(python)
        .args(["-c", code])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// `npm install @anthropic-ai/claude-agent-sdk@…` into `dir`, skipped when it is there. The
/// optional per-platform packages (each a 380 MB native `claude`) are left out: every host is
/// given the fake CLI's path instead.
fn install_ts_sdk(dir: &Path, installs: &mut Vec<(String, Option<f64>)>) -> Result<PathBuf> {
    let package = dir.join("node_modules/@anthropic-ai/claude-agent-sdk");
    let what = format!("@anthropic-ai/claude-agent-sdk {TS_SDK_VERSION} (npm, --omit=optional)");
    if ts_sdk_version(&package).as_deref() == Some(TS_SDK_VERSION) {
        installs.push((what, None));
        return Ok(package.join("sdk.mjs"));
    }
    eprintln!("bench: installing {what} into {}", dir.display());
    let started = Instant::now();
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    checked(
        Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(dir)
            .args([
                "--omit=optional",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ])
            .arg(format!("@anthropic-ai/claude-agent-sdk@{TS_SDK_VERSION}")),
    )?;
    let seconds = started.elapsed().as_secs_f64();
    match ts_sdk_version(&package) {
        Some(version) if version == TS_SDK_VERSION => {}
        other => {
            bail!("npm installed @anthropic-ai/claude-agent-sdk {other:?}, not {TS_SDK_VERSION}")
        }
    }
    eprintln!("bench: installed in {seconds:.1} s");
    installs.push((what, Some(seconds)));
    Ok(package.join("sdk.mjs"))
}

fn ts_sdk_version(package: &Path) -> Option<String> {
    let text = std::fs::read_to_string(package.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(json.get("version")?.as_str()?.to_owned())
}

fn checked(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("starting {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}

/// Cargo's target directory: `CARGO_TARGET_DIR` when set (relative to `root`), else
/// `root/target`, so that the binaries run are the ones the build above just made.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
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
