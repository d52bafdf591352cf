//! `Bash`: a command run by `bash` in the session's shell directory, which persists from one
//! call to the next (a `cd` stays, as long as it stays inside the session's directories: one
//! that leaves them is undone, and the result says so). Each command runs in a process group
//! of its own, its output (stdout and stderr as they come) written to a file as it comes, so
//! that nothing is lost and nothing is held in memory.
//!
//! Results are Claude Code's: the output with trailing blanks cut, `(Bash completed with no
//! output)`, `Exit code N` first for a failure, output past 30,000 characters saved to a file
//! and shown as a preview with the file's path. `run_in_background` starts a job ([`Jobs`])
//! and answers at once with its id and output file; a command still running at its time limit
//! is moved to the background the same way (one that only sleeps is stopped instead). When
//! the host interrupts the turn, the group is killed.

mod output;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::process::Command;

use twinwire_protocol::system::{TaskPatch, TaskStatus};

use super::jobs::{self, new_id, now_ms, JobInfo, Sink};
use super::{schema, Tool, ToolContext, ToolOutput};

/// How long the output pipe may stay open after bash exits (a process it started still
/// holding it) before the output is taken as it is.
const PIPE_GRACE: Duration = Duration::from_secs(1);

/// A background job's time limit when the call names none, and the most it may name.
const BACKGROUND_DEFAULT: Duration = Duration::from_secs(600);
const BACKGROUND_MAX_MS: u64 = 7_200_000;

/// How long a command moved to the background may go on.
const MOVED_LIMIT: Duration = Duration::from_secs(30 * 60);
/// How long a command runs in the foreground before the host is told of it as a task it may
/// move to the background (`system/task_started`, `is_backgrounded: false`).
const TELL_HOST_AFTER: Duration = Duration::from_secs(2);

/// The `Bash` tool.
pub struct Bash;

impl Tool for Bash {
    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> String {
        DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::bash().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::bash().check("Bash", input)
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(run(input, cx))
    }
}

const DESCRIPTION: &str = "Runs a bash command and gives back its output.

The working directory carries over from one call to the next, as long as it stays inside \
the project: a `cd` elsewhere is undone after the command, and the result says so. \
Variables, functions and aliases do not carry over: each command starts a fresh shell. \
Quote paths that hold spaces.

Prefer the dedicated tools where one fits: Read rather than cat, head or tail; Edit rather \
than sed or awk; Write rather than echo or a heredoc; Glob rather than find; Grep rather \
than grep or rg. They are quicker for you and clearer for the user.

Output:
- stdout and stderr come back together, as the command wrote them, without trailing blank \
lines; a command that prints nothing is said to have completed with no output.
- A command that fails comes back as an error starting with `Exit code N`.
- Output over 30,000 characters is saved to a file; you get its path and the first part.

Time:
- A command may run 2 minutes (timeout, in milliseconds, up to 600000, changes that). One \
still running then is moved to the background and keeps going; a bare `sleep` is stopped \
instead.
- run_in_background starts the command as a job at once: you get its id and the file its \
output goes to, which you may Read at any time, and you are told when it ends. Do not sleep \
or poll to wait for it. TaskStop stops a job.

Several independent commands may go in one message, side by side; commands that depend on \
each other go in one call, joined with &&. Use `;` only when a command may fail without \
stopping the next.

Git: never change its configuration, never skip hooks or signing, never force-push to main, \
and commit only when asked; when asked, look at the status, the diff and the recent log \
first, and write a message that says why.";

/// Bash's script around the command: aliases expand (as in Claude Code's shell), stderr
/// joins stdout, the command runs in this shell
/// (so `cd` and `exit` act as written) with nothing on stdin, then, if it succeeded, the
/// shell's directory is written for the next call. All on one line, so that bash names the
/// command's own lines in its messages.
fn script(command: &str, cwd_file: &std::path::Path) -> String {
    format!(
        "shopt -s expand_aliases; exec 2>&1; eval {} < /dev/null && pwd -P >| {}",
        quote(command),
        quote(&cwd_file.display().to_string())
    )
}

/// Single-quoted for bash.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// How a command ended.
enum Ending {
    Exited(Option<i32>),
    TimedOut,
    Interrupted,
    /// The host moved it to the background (`background_tasks`).
    Moved,
}

/// Waits for the host to move this call's command (every command, or this call's).
async fn moved(moves: &mut tokio::sync::broadcast::Receiver<Option<String>>, tool_use_id: &str) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match moves.recv().await {
            Ok(None) => return,
            Ok(Some(id)) if id == tool_use_id => return,
            Ok(Some(_)) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => std::future::pending::<()>().await,
        }
    }
}

/// The foreground commands that may run at once in this process, once a cap is set
/// ([`limit_commands`]); none until then (the binary runs one session).
static COMMAND_SLOTS: std::sync::OnceLock<Arc<tokio::sync::Semaphore>> = std::sync::OnceLock::new();

/// Caps the foreground commands running at once in this process at `max` (at least 1): a
/// command beyond it waits, in the order they came, for one to end. Background jobs are not
/// counted (they may run for the session's life). The first call sets it; false after.
pub(crate) fn limit_commands(max: usize) -> bool {
    let max = max.clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
    COMMAND_SLOTS
        .set(Arc::new(tokio::sync::Semaphore::new(max)))
        .is_ok()
}

/// A slot to run a foreground command in, held until it ends; `None` when uncapped.
async fn command_slot() -> Option<tokio::sync::OwnedSemaphorePermit> {
    let slots = COMMAND_SLOTS.get()?;
    // Fair: tokio's semaphore serves waiters first come, first served.
    Arc::clone(slots).acquire_owned().await.ok()
}

async fn run(input: Value, cx: ToolContext) -> ToolOutput {
    let command = input["command"].as_str().unwrap_or_default().to_owned();
    let description = input["description"].as_str().map(str::to_owned);
    let background = input["run_in_background"].as_bool().unwrap_or(false);
    let limits = cx.workspace.limits;
    let asked_ms = input["timeout"]
        .as_f64()
        .map(|ms| ms.max(0.0) as u64)
        .filter(|ms| *ms > 0);
    let cwd_file = cx
        .workspace
        .scratch()
        .join(format!("cwd-{}", uuid::Uuid::new_v4()));
    let capture = cx
        .workspace
        .scratch()
        .join(format!("out-{}", uuid::Uuid::new_v4()));
    let sink = match Sink::create(&capture) {
        Ok(sink) => Arc::new(Mutex::new(sink)),
        Err(err) => return ToolOutput::failure(format!("cannot capture the output: {err}")),
    };
    let script = script(&command, &cwd_file);
    let mut bash = match cx.workspace.sandbox() {
        Some(sandbox) => match sandbox.bash(&script, &cx.workspace.writable()) {
            Ok(bash) => bash,
            Err(why) => return ToolOutput::failure(why),
        },
        None => {
            let mut bash = Command::new("/bin/bash");
            bash.arg("-c").arg(script);
            bash
        }
    };
    bash.current_dir(cx.workspace.shell_cwd());
    // The credentials stay out of what the command can print (see `child_env`).
    crate::child_env::apply(&mut bash, &cx.workspace.env);
    // The command's id, which all it starts inherits: its job's id if it becomes one, and
    // how what it leaves running is found when it ends (`reaper::end_marked_soon`).
    let id = new_id('b');
    bash.env(crate::reaper::MARKER_VAR, &id)
        .env("CLAUDECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    bash.process_group(0);
    // Waiting here is cancelled with the turn (an interrupt drops this future).
    let _slot = if background {
        None
    } else {
        command_slot().await
    };
    let mut child = match bash.spawn() {
        Ok(child) => child,
        Err(err) => return ToolOutput::failure(format!("cannot start bash: {err}")),
    };
    let stdout = child.stdout.take();
    let mut copy = tokio::spawn(jobs::copy_into(stdout, Arc::clone(&sink)));
    if background {
        let limit = asked_ms.map_or(BACKGROUND_DEFAULT, |ms| {
            Duration::from_millis(ms.min(BACKGROUND_MAX_MS))
        });
        return match start_job(&cx, id, &command, description, child, copy, &sink, limit) {
            Ok(info) => ToolOutput::success(
                format!(
                    "Command running in background with ID: {}. Output is being written to: {}. \
                     You will be notified when it completes. To check interim output, use Read on \
                     that file path.",
                    info.id,
                    info.output.display()
                ),
                json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false,
                       "noOutputExpected": false, "backgroundTaskId": info.id}),
            ),
            Err(err) => ToolOutput::failure(format!("cannot start the job: {err}")),
        };
    }
    let timeout_ms = asked_ms
        .unwrap_or(limits.bash_default_timeout_ms)
        .min(limits.bash_max_timeout_ms);
    let mut group = ProcessGroup {
        leader: child.id(),
        id: id.clone(),
    };
    let mut moves = cx.workspace.jobs.moves();
    let host = cx.peer.clone().map(|peer| jobs::Host {
        peer,
        session_id: cx.session_id.clone(),
    });
    let deadline = tokio::time::Instant::now() + Duration::from_millis(timeout_ms);
    let tell = tokio::time::sleep(TELL_HOST_AFTER);
    tokio::pin!(tell);
    let mut told = false;
    let ending = loop {
        tokio::select! {
            status = child.wait() => break Ending::Exited(status.ok().and_then(|s| s.code())),
            () = tokio::time::sleep_until(deadline) => break Ending::TimedOut,
            () = cx.cancel.cancelled() => break Ending::Interrupted,
            () = moved(&mut moves, &cx.tool_use_id) => break Ending::Moved,
            // Still running: the host is told of it, as a task it may move.
            () = &mut tell, if !told => {
                told = true;
                if let Some(host) = &host {
                    cx.workspace.jobs.note_foreground(&id, true);
                    let label = description.as_deref().unwrap_or(&command);
                    host.running_in_foreground(&id, &cx.tool_use_id, label);
                }
            }
        }
    };
    let by_host = matches!(ending, Ending::Moved);
    if by_host || (matches!(ending, Ending::TimedOut) && !only_sleeps(&command)) {
        // Still running at its limit, or moved by the host: it goes on as a background job,
        // its output with it.
        let so_far = output::text_of(&capture);
        let started = start_job(
            &cx,
            id,
            &command,
            description,
            child,
            copy,
            &sink,
            MOVED_LIMIT,
        );
        group.disarm();
        return match started {
            Ok(info) => {
                let by = if by_host { Ok(()) } else { Err(timeout_ms) };
                moved_output(&info, &so_far, by)
            }
            Err(err) => ToolOutput::failure(format!("cannot move the command: {err}")),
        };
    }
    // The group is signalled right after the leader's exit (or before it is reaped, when it
    // is stopped): a group id is only safe to signal while its number cannot have been given
    // to another process.
    match ending {
        Ending::TimedOut => group.signal(jobs::Stop::Term),
        _ => group.signal(jobs::Stop::Kill),
    }
    let code = match ending {
        Ending::Exited(code) => code,
        _ => child.wait().await.ok().and_then(|s| s.code()),
    };
    group.signal(jobs::Stop::Kill);
    group.disarm();
    // A command the host was told of ended in the foreground: so is its task.
    if let (true, Some(host)) = (cx.workspace.jobs.note_foreground(&id, false), &host) {
        let status = match (&ending, code) {
            (Ending::Exited(_), Some(0)) => TaskStatus::Completed,
            (Ending::Interrupted, _) => TaskStatus::Killed,
            _ => TaskStatus::Failed,
        };
        host.updated(
            &id,
            TaskPatch {
                status: Some(status),
                end_time: Some(now_ms()),
                ..TaskPatch::default()
            },
        );
    }
    // What left the group (`setsid`) goes too.
    crate::reaper::end_marked_soon(&id);
    if tokio::time::timeout(PIPE_GRACE, &mut copy).await.is_err() {
        copy.abort();
    }
    let reset = follow_cwd(&cx, &cwd_file);
    let text = output::text_of(&capture);
    let _ = std::fs::remove_file(&capture);
    output::result(&cx, text, &ending_of(&ending, code, timeout_ms), reset)
}

/// The result of a command moved to the background: by the host (`Ok`; the note alone, as
/// Claude Code gives it), or at its time limit (`Err`, the limit in milliseconds; what it
/// printed so far first).
fn moved_output(info: &JobInfo, so_far: &str, by: Result<(), u64>) -> ToolOutput {
    let note = match by {
        Ok(()) => format!(
            "Command was manually backgrounded by user with ID: {}. Output is being written \
             to: {}. If it is still running after 30m in the background, it will be stopped \
             and you will be notified.",
            info.id,
            info.output.display()
        ),
        Err(timeout_ms) => format!(
            "Command did not complete within its {} timeout and was moved to the background \
             (ID: {}). Output is being written to: {}. You will be notified when it \
             completes. If it is still running after 30m in the background, it will be \
             stopped and you will be notified. It is running now: do not start a second copy \
             while it runs. If it is no longer needed, stop it with TaskStop. To check interim \
             output, use Read on that file path.",
            output::duration(timeout_ms),
            info.id,
            info.output.display()
        ),
    };
    let so_far = if by.is_ok() { "" } else { so_far.trim_end() };
    let text = if so_far.is_empty() {
        note
    } else {
        format!("{so_far}\n{note}")
    };
    let mut result = json!({"stdout": so_far, "stderr": "", "interrupted": false,
                            "isImage": false, "noOutputExpected": false,
                            "backgroundTaskId": info.id});
    if by.is_ok() {
        result["backgroundedByUser"] = json!(true);
    }
    ToolOutput::success(text, result)
}

/// How the command ended, for the result.
fn ending_of(ending: &Ending, code: Option<i32>, timeout_ms: u64) -> output::End {
    match ending {
        Ending::Exited(Some(0)) => output::End::Success,
        Ending::Exited(code) => output::End::Failed(code.unwrap_or(143)),
        Ending::TimedOut => output::End::TimedOut {
            code: code.unwrap_or(143),
            after: output::duration(timeout_ms),
        },
        Ending::Interrupted | Ending::Moved => output::End::Interrupted,
    }
}

/// Whether the command is a bare `sleep`, which Claude Code stops at its limit rather than
/// moving it to the background.
fn only_sleeps(command: &str) -> bool {
    command.split_whitespace().next() == Some("sleep")
}

/// Registers `child` as job `id` of the session.
#[allow(clippy::too_many_arguments)]
fn start_job(
    cx: &ToolContext,
    id: String,
    command: &str,
    description: Option<String>,
    child: tokio::process::Child,
    copy: tokio::task::JoinHandle<()>,
    sink: &Arc<Mutex<Sink>>,
    limit: Duration,
) -> std::io::Result<JobInfo> {
    let output = cx
        .workspace
        .tasks_dir(&cx.session_id)
        .join(format!("{id}.output"));
    jobs::lock(sink).move_to(&output)?;
    let info = JobInfo {
        id,
        command: command.to_owned(),
        description,
        tool_use_id: cx.tool_use_id.clone(),
        output,
    };
    let host = cx.peer.clone().map(|peer| jobs::Host {
        peer,
        session_id: cx.session_id.clone(),
    });
    cx.workspace
        .jobs
        .adopt(info.clone(), child, copy, Arc::clone(sink), limit, host);
    Ok(info)
}

/// Takes the shell's new directory; a directory outside the session's is undone. Returns
/// the directory it was reset to, if it was.
fn follow_cwd(cx: &ToolContext, cwd_file: &std::path::Path) -> Option<std::path::PathBuf> {
    let dir = std::fs::read_to_string(cwd_file).ok()?;
    let _ = std::fs::remove_file(cwd_file);
    let dir = std::path::PathBuf::from(dir.trim_end_matches('\n'));
    if !dir.is_dir() {
        return None;
    }
    if cx.workspace.inside(&dir) {
        cx.workspace.set_shell_cwd(dir);
        None
    } else {
        let root = cx.workspace.root().to_owned();
        cx.workspace.set_shell_cwd(root.clone());
        Some(root)
    }
}

/// A command's process group, killed whole (and on drop, should the call be dropped midway,
/// while its leader is not yet reaped, with what left the group: the command's id).
struct ProcessGroup {
    leader: Option<u32>,
    id: String,
}

impl ProcessGroup {
    /// The leader is reaped: its number may be reused, the group is not signalled again.
    fn disarm(&mut self) {
        self.leader = None;
    }

    fn signal(&self, stop: jobs::Stop) {
        if let Some(pid) = self.leader.and_then(|p| i32::try_from(p).ok()) {
            jobs::signal_group(pid, stop);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // A call dropped before its command ended (the turn cut short) takes its processes
        // with it, those that left its group too.
        if self.leader.is_some() {
            self.signal(jobs::Stop::Kill);
            crate::reaper::end_marked_soon(&self.id);
        }
    }
}
