//! Draining the child's stderr: always read (an undrained pipe blocks the CLI), each line
//! handed to an optional callback, the last lines kept for error messages.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::watch;

use crate::engine::lock;

/// Called with each line the CLI writes to stderr.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// The most recent stderr lines, bounded in count and size.
#[derive(Debug, Clone)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    drained: watch::Receiver<bool>,
}

const MAX_LINES: usize = 40;
const MAX_LINE_BYTES: usize = 2048;

impl StderrTail {
    /// Starts a task that reads `stderr` to its end.
    pub(crate) fn drain<R: AsyncRead + Unpin + Send + 'static>(
        stderr: R,
        callback: Option<StderrCallback>,
    ) -> Self {
        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let (drained_tx, drained) = watch::channel(false);
        let kept = Arc::clone(&lines);
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let text = String::from_utf8_lossy(&buf);
                let line = text.trim_end_matches(['\n', '\r']);
                if let Some(callback) = &callback {
                    callback(line);
                }
                tracing::trace!(target: "ccwire::cli_stderr", "{line}");
                let mut kept = lock(&kept);
                if kept.len() == MAX_LINES {
                    kept.pop_front();
                }
                kept.push_back(truncate(line));
            }
            let _ = drained_tx.send(true);
        });
        Self { lines, drained }
    }

    /// The kept lines, joined.
    pub fn text(&self) -> String {
        let lines = lock(&self.lines);
        let mut text = String::new();
        for line in lines.iter() {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// Waits up to `limit` for stderr to reach its end.
    pub(crate) async fn wait_drained(&self, limit: Duration) {
        let mut drained = self.drained.clone();
        let _ = tokio::time::timeout(limit, drained.wait_for(|done| *done)).await;
    }
}

fn truncate(line: &str) -> String {
    if line.len() <= MAX_LINE_BYTES {
        return line.to_owned();
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}
