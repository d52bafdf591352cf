//! The official Claude Agent SDKs, installed from their registries into the target directory
//! once and reused: the benchmarks measure them, and the peers suite runs them as real clients
//! of `twinwire tap`, `fake-claude` and `twinwire replay`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::cmd::run;

/// The official Python SDK (PyPI).
pub const PYTHON_SDK_VERSION: &str = "0.2.189";

/// The official TypeScript SDK (npm).
pub const TS_SDK_VERSION: &str = "0.3.332";

/// Where the installed SDKs are.
#[derive(Debug, Clone)]
pub struct Sdks {
    /// The venv's `python`, with `claude-agent-sdk` installed.
    pub python: PathBuf,
    /// `node`.
    pub node: PathBuf,
    /// The TS SDK's `sdk.mjs` (hosts import it by path: it is not on any module path).
    pub ts_sdk: PathBuf,
    /// How each install went: `(what, seconds)`. The seconds are remembered from the run that
    /// installed it when this run found it already there (`None` if never measured).
    pub installs: Vec<(String, Option<f64>)>,
}

/// Cargo's target directory: `$CARGO_TARGET_DIR`, else `target/` in the workspace.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The directory the SDKs are installed in: `<target>/sdks`.
pub fn sdk_dir(root: &Path) -> PathBuf {
    target_dir(root).join("sdks")
}

/// Installs both SDKs under `dir` (`venv/` and `node/`), each skipped when the right version
/// is already there.
pub fn install(dir: &Path) -> Result<Sdks> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut installs = Vec::new();
    let python = install_python_sdk(&dir.join("venv"), &mut installs)?;
    let ts_sdk = install_ts_sdk(&dir.join("node"), &mut installs)?;
    let installs = remember_install_times(&dir.join("install-times.json"), installs);
    Ok(Sdks {
        python,
        node: PathBuf::from("node"),
        ts_sdk,
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
    let what = format!("claude-agent-sdk {PYTHON_SDK_VERSION} (PyPI source, venv + pip)");
    if python_sdk_version(&python).as_deref() == Some(PYTHON_SDK_VERSION) {
        installs.push((what, None));
        return Ok(python);
    }
    eprintln!("sdks: installing {what} into {}", venv.display());
    let started = Instant::now();
    if venv.exists() {
        std::fs::remove_dir_all(venv).with_context(|| format!("removing {}", venv.display()))?;
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(venv))?;
    // From the source distribution: the wheels bundle a 380 MB `claude` that no host here uses
    // (each is given a CLI path), as the TypeScript install below leaves out its optional
    // per-platform packages.
    run(Command::new(venv.join("bin/pip"))
        .args([
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "--no-cache-dir",
            "--no-binary",
            "claude-agent-sdk",
        ])
        .arg(format!("claude-agent-sdk=={PYTHON_SDK_VERSION}")))?;
    let seconds = started.elapsed().as_secs_f64();
    match python_sdk_version(&python) {
        Some(version) if version == PYTHON_SDK_VERSION => {}
        other => bail!("the venv has claude-agent-sdk {other:?}, not {PYTHON_SDK_VERSION}"),
    }
    eprintln!("sdks: installed in {seconds:.1} s");
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
/// given a CLI path instead.
fn install_ts_sdk(dir: &Path, installs: &mut Vec<(String, Option<f64>)>) -> Result<PathBuf> {
    let package = dir.join("node_modules/@anthropic-ai/claude-agent-sdk");
    let what = format!("@anthropic-ai/claude-agent-sdk {TS_SDK_VERSION} (npm, --omit=optional)");
    if ts_sdk_version(&package).as_deref() == Some(TS_SDK_VERSION) {
        installs.push((what, None));
        return Ok(package.join("sdk.mjs"));
    }
    eprintln!("sdks: installing {what} into {}", dir.display());
    let started = Instant::now();
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    run(Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .args([
            "--omit=optional",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .arg(format!("@anthropic-ai/claude-agent-sdk@{TS_SDK_VERSION}")))?;
    let seconds = started.elapsed().as_secs_f64();
    match ts_sdk_version(&package) {
        Some(version) if version == TS_SDK_VERSION => {}
        other => {
            bail!("npm installed @anthropic-ai/claude-agent-sdk {other:?}, not {TS_SDK_VERSION}")
        }
    }
    eprintln!("sdks: installed in {seconds:.1} s");
    installs.push((what, Some(seconds)));
    Ok(package.join("sdk.mjs"))
}

fn ts_sdk_version(package: &Path) -> Option<String> {
    let text = std::fs::read_to_string(package.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(json.get("version")?.as_str()?.to_owned())
}
