//! The tarball's side: the executable taken out of it, and checked by running it.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::{InstallError, MAX_EXECUTABLE};

/// Unpacks `package/<name of to>` from the gzipped tarball `tarball` to `to`, executable.
pub(super) async fn executable(
    tarball: &Path,
    to: &Path,
    package: &str,
) -> Result<(), InstallError> {
    let (tarball, to, package) = (tarball.to_path_buf(), to.to_path_buf(), package.to_owned());
    // Decompressing is CPU work on blocking reads: off the async threads.
    tokio::task::spawn_blocking(move || executable_blocking(&tarball, &to, &package))
        .await
        .map_err(|err| InstallError::Package {
            package: String::new(),
            problem: format!("unpacking stopped: {err}"),
        })?
}

fn executable_blocking(tarball: &Path, to: &Path, package: &str) -> Result<(), InstallError> {
    let name = to
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("claude")
        .to_owned();
    let wanted = PathBuf::from("package").join(&name);
    let broken = |problem: String| InstallError::Package {
        package: package.to_owned(),
        problem,
    };
    let file = std::fs::File::open(tarball).map_err(|err| InstallError::io(tarball, err))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let entries = archive
        .entries()
        .map_err(|err| broken(format!("not a tarball: {err}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|err| broken(format!("not a tarball: {err}")))?;
        let path = entry
            .path()
            .map_err(|err| broken(format!("not a tarball: {err}")))?
            .into_owned();
        if path != wanted {
            continue;
        }
        if entry.size() > MAX_EXECUTABLE {
            return Err(broken(format!(
                "{} is larger than {MAX_EXECUTABLE} bytes",
                wanted.display()
            )));
        }
        let mut out = std::fs::File::create(to).map_err(|err| InstallError::io(to, err))?;
        let copied = std::io::copy(&mut (&mut entry).take(MAX_EXECUTABLE), &mut out)
            .map_err(|err| broken(format!("unpacking {}: {err}", wanted.display())))?;
        if copied != entry.size() {
            return Err(broken(format!("{} is truncated", wanted.display())));
        }
        out.sync_all().map_err(|err| InstallError::io(to, err))?;
        make_executable(to)?;
        return Ok(());
    }
    Err(broken(format!("no {} in the tarball", wanted.display())))
}

/// Runs `entry --version` (private HOME, no updater, no telemetry) and checks it prints
/// `version`.
pub(super) async fn check_version(
    entry: &Path,
    version: &str,
    limit: Duration,
) -> Result<(), InstallError> {
    let home = entry
        .parent()
        .map(|dir| dir.join(".version-home"))
        .unwrap_or_else(|| PathBuf::from(".version-home"));
    let output = tokio::process::Command::new(entry)
        .arg("--version")
        .env("HOME", &home)
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(limit, output).await;
    let _ = tokio::fs::remove_dir_all(&home).await;
    let output = output
        .map_err(|_| {
            InstallError::VersionCheck(format!("no answer to --version within {limit:?}"))
        })?
        .map_err(|err| InstallError::VersionCheck(format!("running {}: {err}", entry.display())))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let printed = stdout.split_whitespace().next().unwrap_or("");
    if !output.status.success() || printed != version {
        return Err(InstallError::VersionCheck(format!(
            "--version printed {:?} ({}), expected {version}",
            stdout.trim(),
            output.status
        )));
    }
    Ok(())
}

fn make_executable(path: &Path) -> Result<(), InstallError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|err| InstallError::io(path, err))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Whether this Linux uses musl (Alpine and the like) rather than glibc.
pub(super) fn is_musl() -> bool {
    std::fs::read_dir("/lib").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("ld-musl-"))
    })
}
