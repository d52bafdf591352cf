//! The terminal of `twinwire chat`: one thread owns stdin, for the line editor at the prompt and
//! for the answers to permission questions during a turn; a spinner on stderr while waiting.
//!
//! The line editor is reedline (history, editing keys, search) and puts the terminal in raw
//! mode only while it reads a prompt: during a turn the terminal is in its normal mode, so
//! Ctrl-C arrives as SIGINT (to twinwire only: the CLI runs in a process group of its own) and
//! interrupts the turn. Answers are read a line at a time with `poll`, so a question the CLI
//! withdraws stops waiting at once and leaves nothing half-read for the next prompt.

use std::borrow::Cow;
use std::future::Future;
use std::io;
#[cfg(unix)]
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
#[cfg(unix)]
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use reedline::{
    FileBackedHistory, Prompt, PromptEditMode, PromptHistorySearch, PromptHistorySearchStatus,
    Reedline, Signal,
};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::run::permission::{AnswerSource, Typed};

/// The most prompts kept in the history file.
pub const HISTORY_ENTRIES: usize = 1000;

/// The longest answer line read; the rest of a longer line is discarded.
const MAX_ANSWER: usize = 4096;

/// How often a pending answer checks whether its question was withdrawn.
#[cfg(unix)]
const ANSWER_POLL: Duration = Duration::from_millis(50);

/// What the prompt read.
#[derive(Debug)]
pub enum Read {
    /// A line (may be empty).
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupt,
    /// Ctrl-D at the prompt, or the terminal is gone.
    End,
}

enum Job {
    Prompt(oneshot::Sender<io::Result<Read>>),
    Answer(CancellationToken, oneshot::Sender<Typed>),
}

/// The terminal's input thread and the spinner.
#[derive(Clone)]
pub struct Terminal {
    jobs: mpsc::Sender<Job>,
    spinner: Spinner,
}

impl Terminal {
    /// Starts the input thread. `history` is the history file (created 0600), if any.
    pub fn start(history: Option<PathBuf>) -> io::Result<Self> {
        let mut editor = Reedline::create();
        if let Some(path) = history {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            if !path.exists() {
                crate::transcript::private_file(&path)?;
            }
            let history = FileBackedHistory::with_file(HISTORY_ENTRIES, path)
                .map_err(|err| io::Error::other(err.to_string()))?;
            editor = editor.with_history(Box::new(history));
        }
        let (jobs, receiver) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("twinwire-chat-input".into())
            .spawn(move || {
                let prompt = ChatPrompt;
                for job in receiver {
                    match job {
                        Job::Prompt(reply) => {
                            let read = editor.read_line(&prompt).map(|signal| match signal {
                                Signal::Success(line) => Read::Line(line),
                                Signal::CtrlC => Read::Interrupt,
                                _ => Read::End,
                            });
                            // Written at once: the editor's own write at drop does not
                            // happen when the chat ends while a session still holds the
                            // terminal. History is a convenience: a failed write is not
                            // worth stopping the chat for.
                            let _ = editor.sync_history();
                            let _ = reply.send(read);
                        }
                        Job::Answer(cancel, reply) => {
                            let _ = reply.send(read_answer(&cancel));
                        }
                    }
                }
            })?;
        Ok(Self {
            jobs,
            spinner: Spinner::default(),
        })
    }

    /// Reads one prompt with the line editor.
    pub async fn prompt(&self) -> io::Result<Read> {
        self.spinner.hide();
        let (reply, read) = oneshot::channel();
        if self.jobs.send(Job::Prompt(reply)).is_err() {
            return Ok(Read::End);
        }
        read.await.unwrap_or(Ok(Read::End))
    }

    /// The spinner shown while waiting for the model.
    pub fn spinner(&self) -> &Spinner {
        &self.spinner
    }
}

impl AnswerSource for Terminal {
    fn start_question(&self) {
        self.spinner.hide();
        // Lines typed during the turn, before the question, are not answers to it.
        #[cfg(unix)]
        let _ =
            nix::sys::termios::tcflush(io::stdin().as_fd(), nix::sys::termios::FlushArg::TCIFLUSH);
    }

    fn next_line<'a>(
        &'a self,
        cancel: &'a CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Typed> + Send + 'a>> {
        Box::pin(async move {
            let (reply, typed) = oneshot::channel();
            if self.jobs.send(Job::Answer(cancel.clone(), reply)).is_err() {
                return Typed::Closed;
            }
            typed.await.unwrap_or(Typed::Closed)
        })
    }
}

/// Reads a line from stdin in the terminal's normal (line) mode, checking `cancel` between
/// polls.
#[cfg(unix)]
fn read_answer(cancel: &CancellationToken) -> Typed {
    let stdin = io::stdin();
    let mut line = Vec::new();
    loop {
        if cancel.is_cancelled() {
            return Typed::Withdrawn;
        }
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        let timeout = PollTimeout::try_from(ANSWER_POLL).unwrap_or(PollTimeout::MAX);
        match poll(&mut fds, timeout) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => {}
            Err(_) => return Typed::Closed,
        }
        let mut buffer = [0u8; 1024];
        match nix::unistd::read(stdin.as_fd(), &mut buffer) {
            Ok(0) => return Typed::Closed,
            Ok(n) => {
                let room = MAX_ANSWER.saturating_sub(line.len());
                line.extend_from_slice(&buffer[..n.min(room)]);
                if buffer[..n].contains(&b'\n') {
                    let text = String::from_utf8_lossy(&line);
                    let text = text.split('\n').next().unwrap_or_default();
                    return Typed::Line(text.trim_end_matches('\r').to_owned());
                }
            }
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => {}
            Err(_) => return Typed::Closed,
        }
    }
}

/// Reads a line from stdin in the console's line mode. Without `poll` on a console the read
/// blocks: a question withdrawn meanwhile is noticed once the line arrives (docs/platforms.md).
#[cfg(not(unix))]
fn read_answer(cancel: &CancellationToken) -> Typed {
    use std::io::{BufRead, Read};
    if cancel.is_cancelled() {
        return Typed::Withdrawn;
    }
    let mut line = Vec::new();
    let limit = u64::try_from(MAX_ANSWER).unwrap_or(u64::MAX);
    match io::stdin().lock().take(limit).read_until(b'\n', &mut line) {
        Ok(0) | Err(_) => Typed::Closed,
        Ok(_) if cancel.is_cancelled() => Typed::Withdrawn,
        Ok(_) => {
            let text = String::from_utf8_lossy(&line);
            Typed::Line(text.trim_end_matches(['\r', '\n']).to_owned())
        }
    }
}

/// `› ` at the start of each prompt line.
struct ChatPrompt;

impl Prompt for ChatPrompt {
    fn render_prompt_left(&self) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn render_prompt_right(&self) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn render_prompt_indicator(&self, _mode: PromptEditMode) -> Cow<'_, str> {
        Cow::Borrowed("› ")
    }

    fn render_prompt_multiline_indicator(&self) -> Cow<'_, str> {
        Cow::Borrowed("· ")
    }

    fn render_prompt_history_search_indicator(&self, search: PromptHistorySearch) -> Cow<'_, str> {
        let failing = match search.status {
            PromptHistorySearchStatus::Passing => "",
            PromptHistorySearchStatus::Failing => "failing ",
        };
        Cow::Owned(format!("({failing}search: {}) ", search.term))
    }
}

/// A spinner on stderr while the model works; drawn only when stderr is a terminal.
#[derive(Clone, Default)]
pub struct Spinner {
    bar: Arc<Mutex<Option<ProgressBar>>>,
}

impl Spinner {
    /// Shows the spinner with `message` (replacing one already shown).
    pub fn show(&self, message: &'static str) {
        let mut bar = self.lock();
        if let Some(bar) = bar.as_ref() {
            bar.set_message(message);
            return;
        }
        let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
            .with_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            )
            .with_message(message);
        spinner.enable_steady_tick(Duration::from_millis(100));
        *bar = Some(spinner);
    }

    /// Clears the spinner, if shown, before anything else is printed.
    pub fn hide(&self) {
        if let Some(bar) = self.lock().take() {
            bar.finish_and_clear();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
