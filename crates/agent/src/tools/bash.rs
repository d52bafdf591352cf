//! `Bash`: a command run by `bash` in the session's shell directory, which persists from one
//! call to the next (a `cd` stays). Each command runs in a process group of its own: at its
//! time limit, or when the host interrupts the turn, the whole group is killed, the children
//! it started included; when the command ends, what it left running in its group (a job
//! started with `&`) is killed too, so that no process outlives its call. Output (stdout and stderr) is read as it comes; past the output cap
//! it is drained and counted, not kept, so a command that floods costs no memory.

use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use twinwire_protocol::tools::BashInput;

use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// How long the pipes may stay open after bash exits (a background job holding them) before
/// the output is taken as it is.
const PIPE_GRACE: Duration = Duration::from_secs(1);

/// The `Bash` tool.
pub struct Bash;

impl Tool for Bash {
    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> String {
        "Runs a bash command and returns its output (stdout, then stderr) and, when not 0, \
         its exit code. The working directory persists between calls (`cd` stays). Commands \
         are stopped after 2 minutes unless `timeout` (ms, at most 10 minutes) says \
         otherwise; long output is cut. Prefer Read, Glob and Grep for reading and \
         searching files."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::bash()
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: BashInput = match typed_input("Bash", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            run(input, cx).await
        })
    }
}

/// Bash's script around the command: the command runs in this shell (so `cd` and `exit`
/// act as written), then the shell's directory is written for the next call.
const SCRIPT: &str = r#"eval "$TWINWIRE_AGENT_COMMAND"
__twinwire_status=$?
pwd -P > "$TWINWIRE_AGENT_CWD_FILE" 2>/dev/null
exit $__twinwire_status
"#;

/// How a command ended.
enum Ending {
    Exited(Option<i32>),
    TimedOut,
    Interrupted,
}

async fn run(input: BashInput, cx: ToolContext) -> ToolOutput {
    let limits = cx.workspace.limits;
    let timeout_ms = input
        .timeout
        .as_ref()
        .and_then(|n| n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)))
        .unwrap_or(limits.bash_default_timeout_ms)
        .min(limits.bash_max_timeout_ms);
    let cwd_file = cx
        .workspace
        .scratch()
        .join(format!("cwd-{}", uuid::Uuid::new_v4()));
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(SCRIPT)
        .current_dir(cx.workspace.shell_cwd())
        .envs(&cx.workspace.env)
        .env("TWINWIRE_AGENT_COMMAND", &input.command)
        .env("TWINWIRE_AGENT_CWD_FILE", &cwd_file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return ToolOutput::error(format!("cannot start bash: {err}")),
    };
    let mut group = ProcessGroup(child.id());
    let cap = limits.bash_output_bytes;
    let stdout = start_capture(child.stdout.take(), cap);
    let stderr = start_capture(child.stderr.take(), cap);
    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status.ok().and_then(|s| s.code())),
        () = tokio::time::sleep(Duration::from_millis(timeout_ms)) => Ending::TimedOut,
        () = cx.cancel.cancelled() => Ending::Interrupted,
    };
    // Right after the leader's exit (or before it is reaped, when it is killed): a group id
    // is only safe to signal while its number cannot have been given to another process.
    group.kill();
    if !matches!(ending, Ending::Exited(_)) {
        let _ = child.wait().await;
    }
    group.disarm();
    let (stdout, stderr) = (collect(stdout).await, collect(stderr).await);
    if let Ok(dir) = std::fs::read_to_string(&cwd_file) {
        let dir = std::path::PathBuf::from(dir.trim_end_matches('\n'));
        if dir.is_dir() {
            cx.workspace.set_shell_cwd(dir);
        }
        let _ = std::fs::remove_file(&cwd_file);
    }
    let interrupted = matches!(ending, Ending::Interrupted | Ending::TimedOut);
    let result = json!({"stdout": stdout.text(), "stderr": stderr.text(),
                        "interrupted": interrupted, "isImage": false});
    let mut text = stdout.text();
    let err_text = stderr.text();
    if !err_text.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&err_text);
    }
    match ending {
        Ending::Exited(Some(0)) => ToolOutput::success(text, result),
        Ending::Exited(code) => {
            let code = code.map_or_else(|| "a signal".to_owned(), |c| c.to_string());
            failed(format!("Exit code {code}\n{text}"), result)
        }
        Ending::TimedOut => failed(
            format!("Command timed out after {timeout_ms} ms (its processes were killed)\n{text}"),
            result,
        ),
        Ending::Interrupted => failed(
            format!("Command interrupted (its processes were killed)\n{text}"),
            result,
        ),
    }
}

fn failed(text: String, result: Value) -> ToolOutput {
    ToolOutput {
        content: text.trim_end().to_owned().into(),
        is_error: true,
        result: Some(result),
    }
}

/// A command's process group, killed whole (and on drop, should the call be dropped midway,
/// while its leader is not yet reaped).
struct ProcessGroup(Option<u32>);

impl ProcessGroup {
    /// The leader is reaped: its number may be reused, the group is not signalled again.
    fn disarm(&mut self) {
        self.0 = None;
    }

    fn kill(&self) {
        #[cfg(unix)]
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok()) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // A call dropped before its command ended (the turn cut short) takes its processes
        // with it.
        self.kill();
    }
}

/// A stream's output: the first `cap` bytes, and how many more there were.
#[derive(Debug, Default)]
struct Captured {
    kept: Vec<u8>,
    dropped: u64,
}

impl Captured {
    fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).trim_end().to_owned();
        if self.dropped > 0 {
            text.push_str(&format!(
                "\n\n[… {} more bytes of output not shown]",
                self.dropped
            ));
        }
        text
    }
}

async fn capture(stream: Option<impl AsyncRead + Unpin>, cap: usize, into: Arc<Mutex<Captured>>) {
    let Some(mut stream) = stream else {
        return;
    };
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut captured = into.lock().unwrap_or_else(PoisonError::into_inner);
                let room = cap.saturating_sub(captured.kept.len()).min(n);
                captured.kept.extend_from_slice(&buffer[..room]);
                captured.dropped += (n - room) as u64;
            }
        }
    }
}

/// A stream's output once its processes are gone: at its end, or after a short grace if a
/// process that left the group still holds the pipe.
async fn collect(
    (task, captured): (tokio::task::JoinHandle<()>, Arc<Mutex<Captured>>),
) -> Captured {
    let mut task = task;
    if tokio::time::timeout(PIPE_GRACE, &mut task).await.is_err() {
        task.abort();
    }
    std::mem::take(&mut *captured.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Starts reading a stream in its own task.
fn start_capture(
    stream: Option<impl AsyncRead + Unpin + Send + 'static>,
    cap: usize,
) -> (tokio::task::JoinHandle<()>, Arc<Mutex<Captured>>) {
    let captured = Arc::new(Mutex::new(Captured::default()));
    let task = tokio::spawn(capture(stream, cap, Arc::clone(&captured)));
    (task, captured)
}
