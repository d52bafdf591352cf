//! `cargo xtask install-claude`: fetch a Claude Code CLI build from npm into twinwire's cache.
//!
//! The cache layout is the one `twinwire::host::process::pinned_cli_dir` reads:
//! `$TWINWIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/twinwire`, else `~/.cache/twinwire`, then
//! `claude-code/<version>/`. Native builds (2.1.113 and newer) leave one executable,
//! `claude`, there; the older JavaScript builds leave the npm package's files with `cli.js`,
//! run with `node`.
//!
//! The install is atomic: everything happens in a scratch directory beside the target,
//! which is renamed into place only once the CLI has answered `--version` with the version
//! asked for. An interrupted install leaves at most a stale scratch directory, which the next
//! run removes, never a half-written cache.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::cmd::run_quiet;

/// The Claude Code version twinwire is tested against: twinwire-protocol's constant, which
/// twinwire's discovery and `twinwire install-claude` read too (xtask depends on the protocol
/// crate alone, so it builds no tokio to read it).
pub const PINNED_CLI_VERSION: &str = twinwire_protocol::CLAUDE_CODE_VERSION;

/// The first build shipped as a native executable; older ones are a `cli.js` bundle.
const FIRST_NATIVE: (u64, u64, u64) = (2, 1, 113);

/// How long `claude --version` may take (a cold first start takes about 4 s).
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);

/// How a build is packaged on npm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    /// One executable in a per-platform package (`@anthropic-ai/claude-code-linux-x64`).
    Native,
    /// A `cli.js` bundle in `@anthropic-ai/claude-code`, run with `node`.
    Js,
}

impl Build {
    fn of(version: &str) -> Result<Self> {
        let parsed = parse_version(version)
            .with_context(|| format!("`{version}` is not a version like 2.1.330"))?;
        Ok(if parsed >= FIRST_NATIVE {
            Self::Native
        } else {
            Self::Js
        })
    }

    /// The file that runs the CLI, relative to the version's cache directory.
    fn entry(self) -> &'static str {
        match self {
            Self::Native => "claude",
            Self::Js => "cli.js",
        }
    }
}

/// Where Claude Code `version` is cached, and whether it is there already.
pub fn cached(version: &str) -> Result<(PathBuf, bool)> {
    let dir = cli_dir(version)?;
    let present = dir.join(Build::of(version)?.entry()).is_file();
    Ok((dir, present))
}

/// Installs Claude Code `version` into the cache (or finds it already there) and returns the
/// path of its executable (`claude`, or `cli.js` for the JavaScript builds).
pub fn install_claude(version: &str) -> Result<PathBuf> {
    let build = Build::of(version)?;
    let dir = cli_dir(version)?;
    let entry = dir.join(build.entry());
    if entry.is_file() {
        match check_version(build, &entry, version) {
            Ok(()) => {
                eprintln!("claude {version} is already installed");
                if build == Build::Js {
                    // Installs made before the helpers were marked executable.
                    make_programs_executable(&dir.join("vendor"))?;
                }
                return Ok(entry);
            }
            Err(err) => eprintln!("reinstalling: the cached CLI is unusable: {err:#}"),
        }
    }

    let parent = dir
        .parent()
        .context("the cache directory has no parent")?
        .to_path_buf();
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    remove_stale_scratch(&parent, version);
    let scratch = parent.join(format!(".install-{version}-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(scratch.clone());
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;

    let started = Instant::now();
    let package = match build {
        Build::Native => format!("{}@{version}", native_package()?),
        Build::Js => format!("@anthropic-ai/claude-code@{version}"),
    };
    eprintln!("downloading {package} with npm …");
    let tarball = npm_pack(&package, &scratch)?;
    eprintln!(
        "downloaded {} ({:.0} MB) in {:.1} s",
        tarball.file_name().unwrap_or_default().to_string_lossy(),
        file_size(&tarball) as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let unpacked = scratch.join("unpacked");
    std::fs::create_dir_all(&unpacked)?;
    run_quiet(
        Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&unpacked),
        "tar",
    )?;
    let package_dir = unpacked.join("package");

    // Assemble the version's directory in the scratch space, check it, then rename it in.
    let staged = scratch.join("staged");
    match build {
        Build::Native => {
            std::fs::create_dir_all(&staged)?;
            let binary = package_dir.join("claude");
            if !binary.is_file() {
                bail!("{package} has no `package/claude` executable");
            }
            std::fs::rename(&binary, staged.join("claude"))
                .context("moving the executable into place")?;
            make_executable(&staged.join("claude"))?;
        }
        Build::Js => {
            if !package_dir.join("cli.js").is_file() {
                bail!("{package} has no `package/cli.js`");
            }
            std::fs::rename(&package_dir, &staged).context("moving the package into place")?;
            // npm marks a package's programs executable when it installs it; unpacked by
            // hand, the helpers under vendor/ (ripgrep, the sandbox's seccomp filter) are not.
            make_programs_executable(&staged.join("vendor"))?;
        }
    }
    check_version(build, &staged.join(build.entry()), version)
        .context("the downloaded CLI does not work")?;

    if dir.exists() {
        // A broken or different install: move it aside first, so the rename below is atomic.
        let old = scratch.join("old");
        std::fs::rename(&dir, &old)
            .with_context(|| format!("moving the old {} aside", dir.display()))?;
    }
    if let Err(err) = std::fs::rename(&staged, &dir) {
        // Another install may have won the race; its result is as good as ours.
        if check_version(build, &entry, version).is_err() {
            return Err(err).with_context(|| format!("renaming into {}", dir.display()));
        }
    }
    eprintln!(
        "installed claude {version} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(entry)
}

/// `pinned_cli_dir(version)` of twinwire's discovery, computed the same way.
fn cli_dir(version: &str) -> Result<PathBuf> {
    Ok(cache_base()?.join("claude-code").join(version))
}

/// twinwire's cache directory: `$TWINWIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/twinwire`, else
/// `~/.cache/twinwire`.
pub fn cache_base() -> Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    var("TWINWIRE_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("twinwire")))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache/twinwire")))
        .context("no cache directory: set TWINWIRE_CACHE_DIR, XDG_CACHE_HOME or HOME")
}

/// Makes every ELF file under `dir` executable (a missing `dir` is nothing to do).
fn make_programs_executable(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            make_programs_executable(&path)?;
        } else if kind.is_file() {
            let mut magic = [0u8; 4];
            let is_elf = std::fs::File::open(&path)
                .and_then(|mut f| f.read_exact(&mut magic))
                .is_ok()
                && magic == *b"\x7fELF";
            if is_elf {
                make_executable(&path)?;
            }
        }
    }
    Ok(())
}

/// The npm package with the native executable for this machine.
fn native_package() -> Result<String> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        other => bail!("no native Claude Code build is published for {other}"),
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => bail!("no native Claude Code build is published for {other}"),
    };
    let libc = if os == "linux" && is_musl() {
        "-musl"
    } else {
        ""
    };
    Ok(format!("@anthropic-ai/claude-code-{os}-{arch}{libc}"))
}

/// Whether this Linux uses musl (Alpine and the like) rather than glibc.
fn is_musl() -> bool {
    if let Ok(entries) = std::fs::read_dir("/lib") {
        if entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("ld-musl-"))
        {
            return true;
        }
    }
    Command::new("ldd")
        .arg("--version")
        .output()
        .map(|out| {
            let text = [out.stdout, out.stderr].concat();
            String::from_utf8_lossy(&text).contains("musl")
        })
        .unwrap_or(false)
}

/// Runs `npm pack <package>` into `dir`; returns the tarball's path.
fn npm_pack(package: &str, dir: &Path) -> Result<PathBuf> {
    let output = Command::new("npm")
        .args(["pack", "--loglevel=error", "--pack-destination"])
        .arg(dir)
        .arg(package)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output();
    let output = match output {
        Ok(output) => output,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            bail!("npm was not found on PATH; install Node.js and npm (https://nodejs.org) to download Claude Code")
        }
        Err(err) => return Err(err).context("starting npm"),
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let reasons: Vec<&str> = stderr
            .lines()
            .filter(|line| !line.contains("npm warn"))
            .collect();
        bail!(
            "`npm pack {package}` failed ({}): {}",
            output.status,
            reasons.join("\n").trim()
        );
    }
    let tarball = std::fs::read_dir(dir)?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.extension() == Some(OsStr::new("tgz")));
    tarball.with_context(|| format!("`npm pack {package}` wrote no tarball"))
}

/// Checks that the CLI at `entry` prints `version` for `--version`.
fn check_version(build: Build, entry: &Path, version: &str) -> Result<()> {
    let mut command = match build {
        Build::Native => Command::new(entry),
        Build::Js => {
            let mut command = Command::new("node");
            command.arg(entry);
            command
        }
    };
    // A private HOME: `--version` must not touch the user's configuration.
    let home = entry
        .parent()
        .context("the executable has no directory")?
        .join(".version-home");
    command
        .arg("--version")
        .env("HOME", &home)
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    let output = output_within(&mut command, VERSION_TIMEOUT);
    let _ = std::fs::remove_dir_all(&home);
    let (success, stdout) =
        output.with_context(|| format!("running {} --version", entry.display()))?;
    let printed = stdout.split_whitespace().next().unwrap_or("");
    if !success || printed != version {
        bail!(
            "{} --version printed {:?}, expected {version}",
            entry.display(),
            stdout.trim()
        );
    }
    Ok(())
}

/// Runs `command` with stdout captured, killing it after `limit`; (success, stdout).
fn output_within(command: &mut Command, limit: Duration) -> Result<(bool, String)> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdout = child.stdout.take().context("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("no answer within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = reader.join().unwrap_or_default();
    Ok((status.success(), text))
}

fn make_executable(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("chmod +x {}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Removes scratch directories of earlier installs of `version` whose process is gone.
fn remove_stale_scratch(parent: &Path, version: &str) {
    let prefix = format!(".install-{version}-");
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(&prefix) else {
            continue;
        };
        let running = Path::new("/proc").join(pid).exists() && cfg!(target_os = "linux");
        if !running {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// `major.minor.patch`, ignoring any pre-release suffix.
pub(crate) fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

/// Removes a directory when dropped (the install's scratch space, success or not).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_choose_the_build() {
        assert_eq!(parse_version("2.1.330"), Some((2, 1, 330)));
        assert_eq!(parse_version("2.1.112-beta.1"), Some((2, 1, 112)));
        assert_eq!(parse_version("2.1"), None);
        assert_eq!(parse_version("latest"), None);
        assert_eq!(Build::of("2.1.113").ok(), Some(Build::Native));
        assert_eq!(Build::of("2.1.112").ok(), Some(Build::Js));
        assert_eq!(Build::of("1.0.128").ok(), Some(Build::Js));
        assert!(Build::of("nope").is_err());
    }
}
