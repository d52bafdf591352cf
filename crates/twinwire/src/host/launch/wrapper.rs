//! The far side of a launcher: a POSIX `sh` script that receives the environment on stdin and
//! stops the CLI, its process group included, when stdin ends.
//!
//! Its arguments: the seconds of grace after stdin ends, the seconds after SIGTERM, the
//! working directory (empty: stay), then the CLI's argv. Its stdin: one `KEY=VALUE` (set) or
//! `-KEY` (unset) per line, an empty line, then the protocol. `read` takes one byte at a time
//! from a pipe, so the protocol after the empty line is untouched.
//!
//! The CLI reads its stdin from a FIFO fed by `cat`, so the script sees stdin end, whether the
//! host closed it or the connection died (a CLI mid-turn would otherwise keep running, and its
//! tools with it, after the host is gone). SIGTERM and SIGHUP count as stdin's end: they are
//! caught, never fatal, so that a host that dies (its launcher's program gets SIGTERM as
//! parent-death signal, and with a local prefix such as `nice` or `env` that program *is* this
//! script), a `kill`, or a hang-up still reach the CLI through the ladder. The FIFO is opened read-write by the script first,
//! so that neither side blocks in `open` if the CLI fails to start. The CLI runs under
//! `setsid` (when present) so that the ladder reaches what it started. The script checks both
//! every 100 ms: when the CLI exits first, the script exits with its status at once (so the
//! host sees how it ended); when stdin ends first, the CLI gets the grace, SIGTERM, SIGKILL
//! ladder. What the CLI left in its process group is killed either way. A session restored
//! from a transcript store onto this side (`TWINWIRE_RESTORED_DIR`, set by a store-backed
//! resume through a launcher) is removed when the CLI is gone.

use std::ffi::OsString;

use super::LaunchRequest;
use crate::error::{Error, Result};

/// The script run with `sh -c` on the far side (see the module docs).
pub const WRAPPER_SCRIPT: &str = r#"g=$1; t=$2; d=$3; shift 3
q=; trap 'q=1' TERM HUP
while IFS= read -r l; do [ -z "$l" ] && break; case $l in -*) unset "${l#-}";; *) export "$l";; esac; done
[ -n "$q" ] && exit 143
if [ -n "$d" ]; then cd "$d" || exit 126; fi
f=$(mktemp -d) && mkfifo "$f/in" || exit 126
exec 3<>"$f/in"
if command -v setsid >/dev/null 2>&1; then setsid "$@" <"$f/in" 3>&- & else "$@" <"$f/in" 3>&- & fi
p=$!
exec 1>/dev/null 2>/dev/null
exec 4<&0
cat <&4 >&3 4<&- &
c=$!
exec 3>&- 4<&-
tick() { sleep 0.1 2>/dev/null || sleep 1; }
alive() { kill -0 "$1" 2>/dev/null; }
while [ -z "$q" ] && alive $p && alive $c; do tick; done
if alive $p; then
  i=0; while alive $p && [ $i -lt $((g*10)) ]; do tick; i=$((i+1)); done
  kill -TERM -$p 2>/dev/null || kill -TERM $p 2>/dev/null
  i=0; while alive $p && [ $i -lt $((t*10)) ]; do tick; i=$((i+1)); done
fi
kill $c 2>/dev/null
kill -KILL -$p 2>/dev/null; kill -KILL $p 2>/dev/null
wait $p; s=$?; rm -rf "$f"
case ${TWINWIRE_RESTORED_DIR-} in */../*) ;; */twinwire-restored.*) rm -rf "$TWINWIRE_RESTORED_DIR";; esac
exit $s"#;

/// `sh -c WRAPPER_SCRIPT twinwire-launch GRACE TERM_GRACE CWD ARGV…` for `request`.
pub fn wrapper_command(request: &LaunchRequest) -> Vec<OsString> {
    let seconds = |d: std::time::Duration| d.as_secs_f64().ceil().max(1.0).to_string();
    let mut argv: Vec<OsString> = vec![
        "sh".into(),
        "-c".into(),
        WRAPPER_SCRIPT.into(),
        "twinwire-launch".into(),
        seconds(request.shutdown.after_close).into(),
        seconds(request.shutdown.after_term).into(),
        request
            .cwd
            .as_ref()
            .map(|dir| dir.clone().into_os_string())
            .unwrap_or_default(),
    ];
    argv.extend(request.argv.iter().cloned());
    argv
}

/// The environment lines for the wrapper's stdin, ending with the empty line.
pub fn preamble(env: &[(String, Option<String>)]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (key, value) in env {
        let valid_key = key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_key {
            return Err(Error::InvalidOptions(format!(
                "cannot send the variable `{key}` through a launcher: not a shell name"
            )));
        }
        match value {
            Some(value) if value.contains(['\n', '\0']) => {
                return Err(Error::InvalidOptions(format!(
                    "cannot send `{key}` through a launcher: its value holds a line break"
                )));
            }
            Some(value) => out.extend_from_slice(format!("{key}={value}\n").as_bytes()),
            None => out.extend_from_slice(format!("-{key}\n").as_bytes()),
        }
    }
    out.push(b'\n');
    Ok(out)
}

/// `word` quoted for a POSIX shell: `'…'`, with `'` as `'\''`.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preamble_sets_and_unsets() {
        let env = vec![
            ("ANTHROPIC_API_KEY".to_owned(), Some("sk a=b".to_owned())),
            ("CLAUDECODE".to_owned(), None),
        ];
        assert_eq!(
            preamble(&env).expect("valid"),
            b"ANTHROPIC_API_KEY=sk a=b\n-CLAUDECODE\n\n"
        );
        assert!(preamble(&[("A B".into(), Some("x".into()))]).is_err());
        assert!(preamble(&[("A".into(), Some("x\ny".into()))]).is_err());
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("claude"), "claude");
        assert_eq!(shell_quote("--flag=a b"), "'--flag=a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    /// Runs the script for `request` with its preamble and then `input` on stdin; its stdout
    /// and whether it succeeded.
    #[cfg(unix)]
    async fn run_script(request: &LaunchRequest, input: &[u8]) -> (String, bool) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let argv = wrapper_command(request);
        let mut child = tokio::process::Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut bytes = preamble(&request.env).expect("preamble");
        bytes.extend_from_slice(input);
        stdin.write_all(&bytes).await.expect("write");
        drop(stdin);
        let mut out = String::new();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut out)
            .await
            .expect("read");
        (out, child.wait().await.expect("exit").success())
    }

    #[cfg(unix)]
    fn request(argv: &[&str], env: Vec<(String, Option<String>)>) -> LaunchRequest {
        LaunchRequest {
            argv: argv.iter().map(Into::into).collect(),
            env,
            cwd: None,
            shutdown: crate::host::process::ShutdownTimeouts::default(),
        }
    }

    /// The script itself, run by `sh` with a preamble: the variables arrive, the protocol
    /// after them is untouched, and stdin's end reaches the program.
    #[cfg(unix)]
    #[tokio::test]
    async fn the_script_runs_the_program_with_the_environment() {
        let request = request(
            &["sh", "-c", "echo \"$TWINWIRE_T|$(cat)|${HOME:-unset}\""],
            vec![
                ("TWINWIRE_T".into(), Some("it's x".into())),
                ("HOME".into(), None),
            ],
        );
        let (out, ok) = run_script(&request, b"{\"type\":\"user\"}\n").await;
        assert_eq!(out, "it's x|{\"type\":\"user\"}|unset\n");
        assert!(ok);
    }

    /// A restored session's directory goes when the CLI ends; anything else named there stays.
    #[cfg(unix)]
    #[tokio::test]
    async fn the_script_removes_a_restored_directory_and_nothing_else() {
        let root = tempfile::tempdir().expect("tempdir");
        let restored = root.path().join("twinwire-restored.abc123");
        let other = root.path().join("keep");
        let climbing = root.path().join("x/../twinwire-restored.up");
        for dir in [&restored, &other, &root.path().join("twinwire-restored.up")] {
            std::fs::create_dir_all(dir).expect("dir");
        }
        std::fs::create_dir_all(root.path().join("x")).expect("dir");
        for (named, removed) in [(&restored, true), (&other, false), (&climbing, false)] {
            let named_env = Some(named.to_string_lossy().into_owned());
            let request = request(&["true"], vec![("TWINWIRE_RESTORED_DIR".into(), named_env)]);
            assert!(run_script(&request, b"").await.1);
            assert_eq!(!named.exists(), removed, "{}", named.display());
        }
    }
}
