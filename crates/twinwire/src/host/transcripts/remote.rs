//! A store-backed resume through a [`CommandPrefix`] launcher (`ssh host`, `docker exec -i`):
//! the session is restored here into a temporary directory as for a local CLI, sent to the far
//! side as one tar stream, and unpacked there by [`UNPACK_SCRIPT`] into a private directory
//! beside which the far side's own credentials and settings are copied. The CLI is then
//! started with that directory as its `CLAUDE_CONFIG_DIR`, and the launcher's wrapper removes
//! it when the CLI is gone (`TWINWIRE_RESTORED_DIR`). A session can so resume on a machine
//! that never ran it: a fleet moving the sessions of a host it lost.

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::error::{Error, Result};
use crate::host::launch::CommandPrefix;

/// Run with `sh -c` on the far side; its argument: the far side's configuration directory
/// (empty: `$HOME/.claude`). Reads a tar stream on stdin, prints the directory it made. The
/// archive's modes are not trusted (`tar` run as root keeps them): everything unpacked is made
/// private to the far side's user.
pub(crate) const UNPACK_SCRIPT: &str = r#"c=$1; [ -n "$c" ] || c=$HOME/.claude
umask 077
d=$(mktemp -d "${TMPDIR:-/tmp}/twinwire-restored.XXXXXX") || exit 1
(cd "$d" && tar -xf - && chmod -R go-rwx .) || { rm -rf "$d"; exit 1; }
for x in .credentials.json settings.json; do if [ -f "$c/$x" ]; then cp "$c/$x" "$d/$x" || exit 1; fi; done
printf '%s\n' "$d""#;

/// The variable naming the unpacked directory, for the wrapper to remove.
pub(crate) const RESTORED_DIR_ENV: &str = "TWINWIRE_RESTORED_DIR";

/// The longest answer the unpack script may give (a path).
const MAX_ANSWER: u64 = 4096;

/// Sends the restored directory `local` to the far side of `prefix` and returns the directory
/// it was unpacked into there. `config_dir` is the far side's configuration directory when the
/// options name one. Fails when the far side cannot be reached, cannot unpack, or does not
/// answer within `limit`.
pub(crate) async fn send(
    prefix: &CommandPrefix,
    local: &Path,
    config_dir: Option<&str>,
    limit: Duration,
) -> Result<String> {
    let archive = pack(local)?;
    let remote: Vec<OsString> = vec![
        "sh".into(),
        "-c".into(),
        UNPACK_SCRIPT.into(),
        "twinwire-restore".into(),
        config_dir.unwrap_or_default().into(),
    ];
    let mut command = tokio::process::Command::new(&prefix.argv[0]);
    command
        .args(prefix.args_running(remote))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let failed = |cause: String| {
        Error::from(std::io::Error::other(format!(
            "restoring the session on the launcher's far side: {cause}"
        )))
    };
    let mut child = command.spawn().map_err(|err| Error::SpawnFailed {
        path: std::path::PathBuf::from(&prefix.argv[0]),
        cause: std::sync::Arc::new(err),
    })?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| failed("no stdin".into()))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| failed("no stdout".into()))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| failed("no stderr".into()))?;
    let exchange = async {
        // Written while the answer is read: a far side that fails early stops reading.
        let write = async move {
            let written = stdin.write_all(&archive).await;
            drop(stdin);
            written
        };
        // Both at once: a far side that fills one pipe must not wait on the other.
        let read = async {
            let (mut out, mut err) = (String::new(), String::new());
            let (mut stdout, mut stderr) = (stdout.take(MAX_ANSWER), stderr.take(MAX_ANSWER));
            let (read_out, read_err) = tokio::join!(
                stdout.read_to_string(&mut out),
                stderr.read_to_string(&mut err),
            );
            read_out?;
            read_err?;
            Ok::<_, std::io::Error>((out, err))
        };
        let (written, read) = tokio::join!(write, read);
        let status = child.wait().await?;
        Ok::<_, std::io::Error>((written, read?, status))
    };
    let (written, (out, err), status) = tokio::time::timeout(limit, exchange)
        .await
        .map_err(|_| failed(format!("no answer in {limit:?}")))?
        .map_err(|err| failed(err.to_string()))?;
    if !status.success() {
        return Err(failed(format!("{status}: {}", err.trim())));
    }
    written.map_err(|err| failed(err.to_string()))?;
    let dir = out.trim_end_matches('\n');
    if !dir.starts_with('/') || dir.contains('\n') || !dir.contains("/twinwire-restored.") {
        return Err(failed(format!("an odd answer `{}`", dir.escape_debug())));
    }
    tracing::debug!(dir, "restored the session on the launcher's far side");
    Ok(dir.to_owned())
}

/// The directory's contents as a tar stream, paths relative to it.
fn pack(dir: &Path) -> Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    builder.append_dir_all(".", dir)?;
    Ok(builder.into_inner()?)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_restored_directory_is_unpacked_through_a_prefix_with_the_far_sides_settings() {
        let local = tempfile::tempdir().unwrap();
        let project = local.path().join("projects").join("-work");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("s.jsonl"), "{\"type\":\"user\"}\n").unwrap();
        let far_config = tempfile::tempdir().unwrap();
        std::fs::write(far_config.path().join("settings.json"), "{}").unwrap();
        let far_tmp = tempfile::tempdir().unwrap();
        // `env` as the prefix: the far side is this machine, with its own TMPDIR.
        let prefix = CommandPrefix::new([
            "env".to_owned(),
            format!("TMPDIR={}", far_tmp.path().display()),
        ])
        .unwrap();
        let config = far_config.path().to_string_lossy().into_owned();
        let dir = send(
            &prefix,
            local.path(),
            Some(&config),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        let dir = Path::new(&dir);
        assert!(dir.starts_with(far_tmp.path()), "{}", dir.display());
        let transcript = dir.join("projects/-work/s.jsonl");
        assert_eq!(
            std::fs::read_to_string(transcript).unwrap(),
            "{\"type\":\"user\"}\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("settings.json")).unwrap(),
            "{}"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(dir), 0o700);
        assert_eq!(mode(&dir.join("projects/-work")), 0o700);
        assert_eq!(mode(&dir.join("projects/-work/s.jsonl")), 0o600);
        assert_eq!(mode(&dir.join("settings.json")), 0o600);
    }

    #[tokio::test]
    async fn a_far_side_that_cannot_unpack_fails_the_restore() {
        let local = tempfile::tempdir().unwrap();
        std::fs::write(local.path().join("x"), "x").unwrap();
        let prefix = CommandPrefix::new(["env", "TMPDIR=/nonexistent/dir"]).unwrap();
        let err = send(&prefix, local.path(), None, Duration::from_secs(30))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("far side"), "{err}");
    }
}
