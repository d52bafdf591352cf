//! Where the CLI runs and what carries its stdio: a [`Launcher`].
//!
//! - [`Launcher::Local`] (the default) spawns `claude` on this machine, with this process's
//!   environment plus the options' changes.
//! - [`Launcher::Prefix`] runs it through a program that carries stdio (`ssh host`,
//!   `docker exec -i ctr`, `kubectl exec -i pod --`): the local process is that program, and
//!   on the far side a small POSIX `sh` script ([`WRAPPER_SCRIPT`]) reads the environment from the
//!   first lines of stdin (so no secret is on a command line), then runs the CLI in a session
//!   of its own and, when stdin ends (the host closed it, or died, or the connection was lost),
//!   gives it the same grace, SIGTERM, SIGKILL ladder as a local CLI, its whole process group
//!   included.
//! - [`Launcher::Custom`] hands the command and environment to your code, which returns any
//!   byte stream pair ([`Launched`]): a WebSocket bridge, a sandbox API.
//!
//! Whatever the launcher, the whole host side works the same (options, permission callbacks,
//! hooks, in-process MCP servers): only the bytes travel differently. Through `Prefix` and
//! `Custom`, the environment sent is [`forwarded_env`]: the variables Claude Code reads from
//! this process's environment, then the options' own; never the whole environment.

mod start;
mod wrapper;

use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

pub(crate) use start::{start, Carrier, LaunchPlan, Started};
pub use wrapper::{preamble, shell_quote, wrapper_command, WRAPPER_SCRIPT};

/// How the CLI is started. See the [module docs](self).
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Launcher {
    /// A child process on this machine.
    #[default]
    Local,
    /// Through a program that carries stdio.
    Prefix(CommandPrefix),
    /// Through your code.
    Custom(Arc<dyn Launch>),
}

impl fmt::Debug for Launcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Local => f.write_str("Local"),
            Self::Prefix(prefix) => f.debug_tuple("Prefix").field(prefix).finish(),
            Self::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl Launcher {
    /// A prefix launcher from a command line such as `ssh -p 2222 build@host` (split like a
    /// POSIX shell would).
    pub fn via(command_line: &str) -> crate::error::Result<Self> {
        CommandPrefix::parse(command_line).map(Self::Prefix)
    }

    /// A launcher running your code.
    pub fn custom(launch: impl Launch) -> Self {
        Self::Custom(Arc::new(launch))
    }
}

/// A program (and its arguments) that runs a command elsewhere with its stdio carried here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPrefix {
    /// The program and its arguments, before the remote command.
    pub argv: Vec<OsString>,
    /// Whether the remote command is handed to a shell as one string (as `ssh` does), so each
    /// word must be quoted; `false` for programs that pass an argv through (`docker exec`,
    /// `kubectl exec`).
    pub remote_shell: bool,
}

impl CommandPrefix {
    /// The prefix `argv`; `remote_shell` is set when the program is `ssh`.
    pub fn new<I, S>(argv: I) -> crate::error::Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
        let Some(program) = argv.first() else {
            return Err(crate::error::Error::InvalidOptions(
                "the launcher's command prefix is empty".into(),
            ));
        };
        let name = std::path::Path::new(program)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let remote_shell = matches!(name.as_str(), "ssh" | "ssh.exe" | "autossh");
        Ok(Self { argv, remote_shell })
    }

    /// Splits `command_line` into words like a POSIX shell (quotes, backslashes).
    pub fn parse(command_line: &str) -> crate::error::Result<Self> {
        let words = shlex::split(command_line).ok_or_else(|| {
            crate::error::Error::InvalidOptions(format!(
                "cannot split the launcher command `{command_line}` (unbalanced quotes?)"
            ))
        })?;
        Self::new(words)
    }

    /// Sets whether the remote side reads the command through a shell.
    #[must_use]
    pub fn with_remote_shell(mut self, remote_shell: bool) -> Self {
        self.remote_shell = remote_shell;
        self
    }

    /// The arguments after the program that run `remote` on the far side: the prefix's own,
    /// then `remote` as one quoted line when the far side reads it through a shell, else as
    /// it is.
    pub(crate) fn args_running(&self, remote: Vec<OsString>) -> Vec<OsString> {
        let mut args = self.argv[1..].to_vec();
        if self.remote_shell {
            let line = remote
                .iter()
                .map(|word| wrapper::shell_quote(&word.to_string_lossy()))
                .collect::<Vec<_>>()
                .join(" ");
            args.push(line.into());
        } else {
            args.extend(remote);
        }
        args
    }
}

/// What a launcher is asked to start.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LaunchRequest {
    /// The CLI's command on the far side: the program (`claude` unless `cli_path` was set)
    /// and every argument.
    pub argv: Vec<OsString>,
    /// The environment for the CLI, in order: `Some` sets, `None` removes. It holds secrets
    /// (API keys): send it on a channel that no process list shows.
    pub env: Vec<(String, Option<String>)>,
    /// The working directory, if the options set one.
    pub cwd: Option<PathBuf>,
    /// How long the CLI may take to exit after stdin closes, then after SIGTERM.
    pub shutdown: super::process::ShutdownTimeouts,
}

impl LaunchRequest {
    /// The command of [`WRAPPER_SCRIPT`]: `sh -c SCRIPT twinwire-launch GRACE TERM_GRACE CWD ARGV…`.
    /// Send [`LaunchRequest::preamble`] first on its stdin, then the protocol.
    pub fn wrapped(&self) -> Vec<OsString> {
        wrapper_command(self)
    }

    /// The environment lines the wrapper reads before it starts the CLI.
    pub fn preamble(&self) -> crate::error::Result<Vec<u8>> {
        preamble(&self.env)
    }
}

/// A started CLI on a custom launcher: the two byte streams and, optionally, how to stop it.
pub struct Launched {
    /// The CLI's stdout.
    pub reader: Pin<Box<dyn AsyncRead + Send>>,
    /// The CLI's stdin.
    pub writer: Pin<Box<dyn AsyncWrite + Send>>,
    /// Called once when the session ends without the streams having closed (a kill, a drop).
    pub stop: Option<Box<dyn FnOnce() + Send>>,
}

impl Launched {
    /// The streams of a started CLI.
    pub fn new(
        reader: impl AsyncRead + Send + 'static,
        writer: impl AsyncWrite + Send + 'static,
    ) -> Self {
        Self {
            reader: Box::pin(reader),
            writer: Box::pin(writer),
            stop: None,
        }
    }

    /// What to do to stop the CLI at once.
    #[must_use]
    pub fn on_stop(mut self, stop: impl FnOnce() + Send + 'static) -> Self {
        self.stop = Some(Box::new(stop));
        self
    }
}

impl fmt::Debug for Launched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launched")
            .field("stop", &self.stop.is_some())
            .finish_non_exhaustive()
    }
}

/// Your code that starts a CLI somewhere and returns its byte streams.
pub trait Launch: Send + Sync + 'static {
    /// Starts the CLI for `request`.
    fn launch(
        &self,
        request: LaunchRequest,
    ) -> Pin<Box<dyn Future<Output = io::Result<Launched>> + Send + '_>>;
}

impl<F, Fut> Launch for F
where
    F: Fn(LaunchRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = io::Result<Launched>> + Send + 'static,
{
    fn launch(
        &self,
        request: LaunchRequest,
    ) -> Pin<Box<dyn Future<Output = io::Result<Launched>> + Send + '_>> {
        Box::pin(self(request))
    }
}

/// Prefixes of the variables Claude Code reads, forwarded through a launcher.
pub const FORWARDED_PREFIXES: [&str; 3] = ["ANTHROPIC_", "CLAUDE_", "DISABLE_"];

/// Single variables forwarded through a launcher: proxies, certificate authorities, and the
/// W3C trace context (`TRACEPARENT`, `TRACESTATE`), which a local CLI inherits too.
pub const FORWARDED_NAMES: [&str; 15] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "TRACEPARENT",
    "TRACESTATE",
];

/// The environment sent through a launcher: of `local`, the variables Claude Code reads
/// ([`FORWARDED_PREFIXES`], [`FORWARDED_NAMES`]), then `changes` (the options' own, which
/// win). Variables that are not valid UTF-8 are skipped.
pub fn forwarded_env(
    local: impl IntoIterator<Item = (OsString, OsString)>,
    changes: &[(OsString, Option<OsString>)],
) -> Vec<(String, Option<String>)> {
    let mut env: Vec<(String, Option<String>)> = local
        .into_iter()
        .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(key, _)| {
            FORWARDED_PREFIXES
                .iter()
                .any(|prefix| key.starts_with(prefix))
                || FORWARDED_NAMES.contains(&key.as_str())
        })
        .map(|(key, value)| (key, Some(value)))
        .collect();
    env.sort();
    for (key, value) in changes {
        let Some(key) = key.to_str() else { continue };
        let value = match value {
            Some(value) => match value.to_str() {
                Some(value) => Some(value.to_owned()),
                None => continue,
            },
            None => None,
        };
        env.retain(|(existing, _)| existing != key);
        env.push((key.to_owned(), value));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_trace_context_is_forwarded_unless_the_options_change_it() {
        let local = [
            (
                "TRACEPARENT",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
            ("TRACESTATE", "vendor=1"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = forwarded_env(local.clone(), &[]);
        assert_eq!(
            env,
            [
                (
                    "TRACEPARENT".to_owned(),
                    Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".to_owned())
                ),
                ("TRACESTATE".to_owned(), Some("vendor=1".to_owned())),
            ]
        );
        let changes = vec![
            (OsString::from("TRACEPARENT"), Some("00-mine".into())),
            (OsString::from("TRACESTATE"), None),
        ];
        let env = forwarded_env(local, &changes);
        assert_eq!(
            env,
            [
                ("TRACEPARENT".to_owned(), Some("00-mine".to_owned())),
                ("TRACESTATE".to_owned(), None),
            ]
        );
    }

    #[test]
    fn only_what_claude_code_reads_is_forwarded() {
        let local = [
            ("ANTHROPIC_API_KEY", "sk"),
            ("CLAUDE_CODE_USE_BEDROCK", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("HTTPS_PROXY", "http://proxy:3128"),
            ("HOME", "/root"),
            ("AWS_SECRET_ACCESS_KEY", "no"),
            ("PATH", "/usr/bin"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let changes = vec![
            (
                OsString::from("CLAUDE_CODE_ENTRYPOINT"),
                Some("sdk-rust".into()),
            ),
            (OsString::from("DISABLE_TELEMETRY"), None),
            (OsString::from("MY_VAR"), Some("x".into())),
        ];
        let env = forwarded_env(local, &changes);
        let keys: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "ANTHROPIC_API_KEY",
                "CLAUDE_CODE_USE_BEDROCK",
                "HTTPS_PROXY",
                "CLAUDE_CODE_ENTRYPOINT",
                "DISABLE_TELEMETRY",
                "MY_VAR"
            ]
        );
        assert_eq!(env[4].1, None);
    }

    #[test]
    fn prefixes_parse_like_a_shell() {
        let prefix = CommandPrefix::parse("ssh -p 2222 'build host'").expect("parses");
        assert!(prefix.remote_shell);
        assert_eq!(prefix.argv.len(), 4);
        assert_eq!(prefix.argv[3], "build host");
        let docker = CommandPrefix::parse("docker exec -i ctr").expect("parses");
        assert!(!docker.remote_shell);
        assert!(CommandPrefix::parse("ssh 'host").is_err());
        assert!(CommandPrefix::parse("").is_err());
    }
}
