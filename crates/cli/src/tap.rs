//! `twinwire tap`: a transparent proxy between a host and the `claude` CLI that records the
//! session and can answer tool permissions from a policy file.
//!
//! Two relay tasks and nothing else: host → CLI ([`relay_in`]) and CLI → host
//! ([`relay_out`]). Each splits its stream with [`LineDecoder`], records a line before it writes
//! it (so the recording never shows an answer before its question), writes the line's bytes as
//! they came followed by `\n` (a `\r\n` ending becomes `\n`, blank lines are dropped) and
//! flushes once no complete line is left in what was read. The CLI runs as a
//! [`ChildProcess`]: its own process group, stderr relayed line by line, killed if the tap dies.

mod policy;
mod program;

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;
use twinwire::host::process::{ChildProcess, CliCommand, ShutdownTimeouts, Spawn, StderrCallback};
use twinwire_protocol::framing::{LineDecoder, LineError, DEFAULT_MAX_LINE_LENGTH};

use crate::transcript::{warn, Direction, Recorder, Redactor};
pub use policy::{Decision, Policy};

/// Names the recording when `--record` is absent.
pub const RECORD_ENV: &str = "TWINWIRE_TAP_RECORD";
/// Names the CLI when no `CLAUDE` is given.
pub const CLI_ENV: &str = "TWINWIRE_TAP_CLI";
/// Names the policy file when `--policy` is absent.
pub const POLICY_ENV: &str = "TWINWIRE_TAP_POLICY";

/// Exit code when the tap itself fails (bad arguments, the CLI does not start).
const EXIT_TAP_FAILED: u8 = 2;

/// Bytes asked for per read.
const READ_CHUNK: usize = 64 * 1024;

/// Options of `twinwire tap`.
#[derive(Debug, clap::Args)]
// `-h` is ours only outside the wrapper form: there, every argument goes to the CLI.
#[command(disable_help_flag = true)]
#[command(after_long_help = "\
RELAY:
  Every line goes through in order, its bytes as they came, flushed at once, in both
  directions; a \\r\\n line ending becomes \\n and blank lines are dropped (NDJSON readers
  skip them). A line longer than --max-line-length or not UTF-8 is dropped and reported.

USE AS AN SDK'S CLI PATH:
  The official SDKs run one executable with their own arguments. Point them at a two-line
  wrapper script (chmod +x), for example:

    #!/bin/sh
    exec twinwire tap --record \"$TWINWIRE_TAP_RECORD\" -- /path/to/claude \"$@\"

  or, with the CLI named by the environment too:

    #!/bin/sh
    exec twinwire tap \"$@\"

  Without `-- CLAUDE`, the CLI is $TWINWIRE_TAP_CLI and every argument that is not one of the
  tap's own options goes to it, -h and --help included (`twinwire help tap` shows this help
  then); without --record / --policy, $TWINWIRE_TAP_RECORD / $TWINWIRE_TAP_POLICY are used when
  set. A first argument that does not start with `-` is the CLI. A --record path that is a
  directory gets one new file per session in it.

RECORDING:
  One JSON object per line: {\"dir\":\"meta\",\"t\":0,\"cli\":…,\"argv\":[…],\"env\":{…}} first,
  then {\"dir\":\"in\"|\"out\",\"t\":seconds,\"msg\":frame} per line (\"raw\":text for a line
  that is not JSON). Frames the tap answered from the policy carry \"tap\":\"policy\". API keys,
  bearer/OAuth tokens and the values of *KEY*/*TOKEN*/*SECRET*/*PASSWORD*/*AUTH* variables
  are replaced by <redacted N chars> in the recording only. See docs/tap-replay.md.

POLICY (--policy FILE):
  {\"allow\": [\"Read\", \"Bash(ls*)\", \"mcp__calc__*\"], \"deny\": [\"Bash(rm*)\"]}
  A can_use_tool request a pattern decides is answered by the tap and never reaches the host;
  deny wins; the rest goes to the host.

EXIT STATUS:
  The CLI's exit code (128 + signal if it was killed); 2 if the tap itself failed.")]
pub struct TapArgs {
    /// Record the session to FILE (default: $TWINWIRE_TAP_RECORD; an empty FILE counts as none).
    #[arg(long, value_name = "FILE")]
    pub record: Option<OsString>,
    /// Answer `can_use_tool` requests from this JSON policy (default: $TWINWIRE_TAP_POLICY).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<OsString>,
    /// Longest line relayed, in bytes; longer lines are dropped and reported.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_LENGTH)]
    pub max_line_length: usize,
    /// The CLI and its arguments (default CLI: $TWINWIRE_TAP_CLI).
    #[arg(
        value_name = "CLAUDE [ARGS]",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<OsString>,
    /// Print help; with the CLI from $TWINWIRE_TAP_CLI, -h and --help go to the CLI instead.
    #[arg(short = 'h', long = "help")]
    pub help: bool,
}

/// Whether `twinwire tap` answers `-h`/`--help` itself: not in the wrapper form, where the CLI
/// comes from the environment and every argument is the CLI's.
pub fn answers_help(args: &TapArgs) -> bool {
    args.help && !(names_no_cli(&args.command) && from_env(CLI_ENV).is_some())
}

/// Whether the arguments leave the CLI to the environment: none, or a first one that is an
/// option (the host's `--output-format …` in the wrapper form).
fn names_no_cli(command: &[OsString]) -> bool {
    command
        .first()
        .is_none_or(|first| first.to_string_lossy().starts_with('-'))
}

/// A variable of the environment, when set and not empty.
fn from_env(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// Runs the tap; returns the exit code.
pub fn run(args: TapArgs) -> u8 {
    let outcome = Invocation::resolve(args).and_then(|invocation| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .context("starting the async runtime")?;
        let code = runtime.block_on(tap(invocation));
        // Our stdin may still be open (a blocking read in flight): do not wait for it.
        runtime.shutdown_background();
        code
    });
    outcome.unwrap_or_else(|err| {
        warn(&format!("tap: {err:#}"));
        EXIT_TAP_FAILED
    })
}

/// What to run and how, with the environment defaults applied.
#[derive(Debug)]
struct Invocation {
    program: PathBuf,
    args: Vec<OsString>,
    record: Option<PathBuf>,
    policy: Option<Policy>,
    max_line_length: usize,
}

impl Invocation {
    fn resolve(args: TapArgs) -> anyhow::Result<Self> {
        let (program, rest) = if names_no_cli(&args.command) {
            let Some(cli) = from_env(CLI_ENV) else {
                bail!("no CLI to run: give `-- CLAUDE [ARGS…]` or set ${CLI_ENV}");
            };
            // The wrapper form: a help flag the parser took before the host's first option
            // is the CLI's.
            let help = args.help.then(|| OsString::from("--help"));
            (
                PathBuf::from(cli),
                help.into_iter().chain(args.command).collect(),
            )
        } else {
            let mut command = args.command.into_iter();
            let program = command.next().map(PathBuf::from).unwrap_or_default();
            (program, command.collect())
        };
        // An empty path (`--record "$UNSET_VARIABLE"`) means none.
        let given = |path: Option<OsString>| path.filter(|p| !p.is_empty()).map(PathBuf::from);
        let record = given(args.record)
            .or_else(|| from_env(RECORD_ENV).map(PathBuf::from))
            .map(|path| session_file(&path));
        let policy = given(args.policy)
            .or_else(|| from_env(POLICY_ENV).map(PathBuf::from))
            .map(|path| Policy::load(&path))
            .transpose()?;
        Ok(Self {
            program,
            args: rest,
            record,
            policy,
            max_line_length: args.max_line_length,
        })
    }
}

/// `path`, or a new file inside it when it is a directory.
fn session_file(path: &Path) -> PathBuf {
    if !path.is_dir() {
        return path.to_owned();
    }
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    path.join(format!("tap-{millis}-{}.jsonl", std::process::id()))
}

async fn tap(invocation: Invocation) -> anyhow::Result<u8> {
    let recorder = match &invocation.record {
        Some(path) => Some(Arc::new(start_recording(path, &invocation)?)),
        None => None,
    };
    let on_stderr: StderrCallback = Arc::new(|line: &str| {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.write_all(b"\n");
    });
    let (process, child_in, child_out) = ChildProcess::spawn(Spawn {
        command: CliCommand::for_path(&invocation.program),
        args: invocation.args.clone(),
        env: Vec::new(),
        cwd: None,
        on_stderr: Some(on_stderr),
        user: None,
    })
    .await
    .map_err(|err| program::cannot_start(&invocation.program, err))?;
    let process = Arc::new(process);
    let signals = tokio::spawn(forward_signals(Arc::clone(&process)));

    let (answers_tx, answers_rx) = mpsc::unbounded_channel();
    let limit = invocation.max_line_length;
    let inbound = tokio::spawn(relay_in(
        tokio::io::stdin(),
        child_in,
        answers_rx,
        recorder.clone(),
        limit,
    ));
    let outbound = relay_out(
        child_out,
        tokio::io::stdout(),
        answers_tx,
        recorder.clone(),
        invocation.policy.as_ref(),
        limit,
    );
    if let Err(err) = outbound.await {
        warn(&format!(
            "tap: the host stopped reading ({err}); closing the CLI"
        ));
    }
    // The CLI's output has ended (or nobody reads it): close its stdin and let it finish.
    inbound.abort();
    let _ = inbound.await;
    let status = process.shutdown(ShutdownTimeouts::default()).await;
    // Waits (briefly) for the last stderr lines to be relayed.
    let _ = process.output_ended(ShutdownTimeouts::default()).await;
    signals.abort();
    Ok(exit_code(status))
}

fn start_recording(path: &Path, invocation: &Invocation) -> anyhow::Result<Recorder> {
    let env: Vec<(String, String)> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let redactor = Redactor::from_env(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let recorder = Recorder::create(path, redactor)?;
    let argv: Vec<String> = invocation
        .args
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    recorder.meta(&invocation.program.to_string_lossy(), &argv, &env);
    Ok(recorder)
}

/// The tap's exit code for the CLI's exit status: its code, or 128 + the signal.
fn exit_code(status: Option<std::process::ExitStatus>) -> u8 {
    let Some(status) = status else { return 1 };
    if let Some(code) = status.code() {
        return (code & 0xff) as u8;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return (128 + signal).clamp(0, 255) as u8;
        }
    }
    1
}

/// On SIGTERM, SIGINT or SIGHUP (Ctrl-C on Windows): end the CLI gracefully (SIGTERM to its group, SIGKILL after
/// 5 s); the relays then finish on their own.
async fn forward_signals(process: Arc<ChildProcess>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
            signal(SignalKind::hangup()),
        ) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = hup.recv() => {}
        }
    }
    // Windows: Ctrl-C or Ctrl-Break at the console (the CLI, in a console process group of
    // its own, does not get them itself).
    #[cfg(not(unix))]
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    let timeouts = ShutdownTimeouts {
        after_close: Duration::ZERO,
        after_term: Duration::from_secs(5),
    };
    process.shutdown(timeouts).await;
}

/// Reads once into the decoder's buffer; 0 at end of input.
async fn read_into<R: AsyncRead + Unpin>(
    reader: &mut R,
    decoder: &mut LineDecoder,
) -> std::io::Result<usize> {
    let buf = decoder.append_buffer();
    buf.reserve(READ_CHUNK);
    reader.read_buf(buf).await
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &mut W, line: &str) -> std::io::Result<()> {
    writer.write_all(line.as_bytes()).await?;
    writer.write_all(b"\n").await
}

fn report_dropped(recorder: Option<&Recorder>, dir: Direction, err: &LineError) {
    let from = match dir {
        Direction::In => "the host",
        Direction::Out => "the CLI",
    };
    warn(&format!("tap: dropped a line from {from}: {err}"));
    if let Some(recorder) = recorder {
        recorder.dropped(dir, &err.to_string());
    }
}

/// Host → CLI: our stdin to the CLI's stdin, plus the answers the policy gives. Returns when
/// the host closes our stdin (the CLI's stdin closes with it) or the CLI stops reading.
async fn relay_in<R: AsyncRead + Unpin>(
    mut host: R,
    child_in: ChildStdin,
    mut answers: mpsc::UnboundedReceiver<Decision>,
    recorder: Option<Arc<Recorder>>,
    limit: usize,
) {
    let mut child = BufWriter::new(child_in);
    let mut decoder = LineDecoder::with_max_line_length(limit);
    let mut answers_open = true;
    loop {
        tokio::select! {
            biased;
            answer = answers.recv(), if answers_open => {
                let Some(decision) = answer else {
                    answers_open = false;
                    continue;
                };
                if let Some(recorder) = &recorder {
                    let rule = Some(decision.rule.as_str());
                    recorder.frame_marked(Direction::In, &decision.answer, Some("policy"), rule);
                }
                let answer = &decision.answer;
                if write_line(&mut child, answer).await.is_err() || child.flush().await.is_err() {
                    return;
                }
            }
            read = read_into(&mut host, &mut decoder) => {
                let eof = match read {
                    Ok(n) => n == 0,
                    Err(err) => {
                        warn(&format!("tap: reading the host: {err}"));
                        true
                    }
                };
                loop {
                    let item = if eof { decoder.finish() } else { decoder.next_line() };
                    let Some(item) = item else { break };
                    match item {
                        Ok(line) => {
                            if let Some(recorder) = &recorder {
                                recorder.frame(Direction::In, line.text);
                            }
                            if write_line(&mut child, line.text).await.is_err() {
                                return;
                            }
                        }
                        Err(err) => report_dropped(recorder.as_deref(), Direction::In, &err),
                    }
                }
                if child.flush().await.is_err() || eof {
                    return;
                }
            }
        }
    }
}

/// CLI → host: the CLI's stdout to ours, except `can_use_tool` requests the policy answers.
/// Returns at the end of the CLI's output, or with the error if the host stops reading.
async fn relay_out<W: AsyncWrite + Unpin>(
    mut child_out: ChildStdout,
    host: W,
    answers: mpsc::UnboundedSender<Decision>,
    recorder: Option<Arc<Recorder>>,
    policy: Option<&Policy>,
    limit: usize,
) -> std::io::Result<()> {
    let mut host = BufWriter::new(host);
    let mut decoder = LineDecoder::with_max_line_length(limit);
    loop {
        let eof = match read_into(&mut child_out, &mut decoder).await {
            Ok(n) => n == 0,
            Err(err) => {
                warn(&format!("tap: reading the CLI: {err}"));
                true
            }
        };
        loop {
            let item = if eof {
                decoder.finish()
            } else {
                decoder.next_line()
            };
            let Some(item) = item else { break };
            let line = match item {
                Ok(line) => line,
                Err(err) => {
                    report_dropped(recorder.as_deref(), Direction::Out, &err);
                    continue;
                }
            };
            if let Some(decision) = policy.and_then(|p| p.decide_line(line.text)) {
                if let Some(recorder) = &recorder {
                    recorder.frame_marked(Direction::Out, line.text, Some("policy"), None);
                }
                // The channel only closes when the CLI stopped reading; nothing to do then.
                let _ = answers.send(decision);
                continue;
            }
            if let Some(recorder) = &recorder {
                recorder.frame(Direction::Out, line.text);
            }
            write_line(&mut host, line.text).await?;
        }
        host.flush().await?;
        if eof {
            return Ok(());
        }
    }
}
