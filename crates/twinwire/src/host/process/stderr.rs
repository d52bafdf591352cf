//! Draining the child's stderr: always read (an undrained pipe blocks the CLI), each line
//! handed to an optional callback, the last bytes kept for error messages.
//!
//! Memory is bounded whatever the CLI writes: stderr is read in chunks, a line is handed to the
//! callback in pieces of at most [`MAX_LINE_PIECE`] bytes (a 50 MB line without a newline is
//! never held whole), and the tail keeps the last [`TAIL_BYTES`] bytes.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

use crate::engine::lock;

/// Called with each line the CLI writes to stderr (without its newline). A line longer than
/// [`MAX_LINE_PIECE`] bytes arrives in pieces of at most that size, in order.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// How many bytes of stderr are kept for error messages: the last 8 KiB.
pub const TAIL_BYTES: usize = 8 * 1024;

/// The longest piece of a line handed to the callback at once: 64 KiB.
pub const MAX_LINE_PIECE: usize = 64 * 1024;

/// How much is read from the pipe at once.
const READ_CHUNK: usize = 16 * 1024;

/// The most recent stderr output, bounded in bytes.
#[derive(Debug, Clone)]
pub struct StderrTail {
    tail: Arc<Mutex<VecDeque<u8>>>,
    limit: usize,
    drained: watch::Receiver<bool>,
}

impl StderrTail {
    /// Starts a task that reads `stderr` to its end.
    pub(crate) fn drain<R: AsyncRead + Unpin + Send + 'static>(
        stderr: R,
        callback: Option<StderrCallback>,
    ) -> Self {
        Self::drain_with(stderr, callback, TAIL_BYTES, MAX_LINE_PIECE)
    }

    fn drain_with<R: AsyncRead + Unpin + Send + 'static>(
        mut stderr: R,
        callback: Option<StderrCallback>,
        tail_bytes: usize,
        max_piece: usize,
    ) -> Self {
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(tail_bytes.min(1024))));
        let (drained_tx, drained) = watch::channel(false);
        let kept = Arc::clone(&tail);
        tokio::spawn(async move {
            let mut chunk = vec![0u8; READ_CHUNK];
            let mut lines = LineSplitter::new(max_piece);
            loop {
                let read = match stderr.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => read,
                };
                let bytes = &chunk[..read];
                keep_tail(&kept, bytes, tail_bytes);
                lines.feed(bytes, |line| emit(callback.as_ref(), line));
            }
            lines.finish(|line| emit(callback.as_ref(), line));
            let _ = drained_tx.send(true);
        });
        Self {
            tail,
            limit: tail_bytes,
            drained,
        }
    }

    /// The kept bytes as text, from the first whole line within them when there is one (a
    /// line cut by the limit starts with `…`).
    pub fn text(&self) -> String {
        let tail = lock(&self.tail);
        let bytes: Vec<u8> = tail.iter().copied().collect();
        drop(tail);
        let text = String::from_utf8_lossy(&bytes);
        if bytes.len() < self.limit {
            return text.into_owned();
        }
        match text.find('\n') {
            Some(newline) if newline + 1 < text.len() => format!("…{}", &text[newline + 1..]),
            _ => format!("…{text}"),
        }
    }

    /// Waits up to `limit` for stderr to reach its end.
    pub(crate) async fn wait_drained(&self, limit: Duration) {
        let mut drained = self.drained.clone();
        let _ = tokio::time::timeout(limit, drained.wait_for(|done| *done)).await;
    }
}

fn keep_tail(tail: &Mutex<VecDeque<u8>>, bytes: &[u8], limit: usize) {
    let mut tail = lock(tail);
    let bytes = &bytes[bytes.len().saturating_sub(limit)..];
    let overflow = (tail.len() + bytes.len()).saturating_sub(limit);
    let held = tail.len();
    tail.drain(..overflow.min(held));
    tail.extend(bytes);
}

fn emit(callback: Option<&StderrCallback>, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r');
    if let Some(callback) = callback {
        callback(text);
    }
    tracing::trace!(target: "twinwire::cli_stderr", "{text}");
}

/// Splits a byte stream into lines, handing over a line in pieces once it grows past the
/// limit, so that it never holds more than the limit.
struct LineSplitter {
    pending: Vec<u8>,
    max: usize,
}

impl LineSplitter {
    fn new(max: usize) -> Self {
        Self {
            pending: Vec::new(),
            max: max.max(1),
        }
    }

    fn feed(&mut self, mut bytes: &[u8], mut emit: impl FnMut(&[u8])) {
        while !bytes.is_empty() {
            match memchr_newline(bytes) {
                Some(end) => {
                    self.push_bounded(&bytes[..end], &mut emit);
                    emit(&self.pending);
                    self.pending.clear();
                    bytes = &bytes[end + 1..];
                }
                None => {
                    self.push_bounded(bytes, &mut emit);
                    bytes = &[];
                }
            }
        }
    }

    /// Appends to the pending line, handing over full pieces as the limit is reached.
    fn push_bounded(&mut self, mut bytes: &[u8], emit: &mut impl FnMut(&[u8])) {
        while self.pending.len() + bytes.len() > self.max {
            let room = self.max - self.pending.len();
            // Cut at a character boundary so that a piece is valid UTF-8 on its own.
            let mut cut = room;
            while cut > 0 && cut < bytes.len() && (bytes[cut] & 0xC0) == 0x80 {
                cut -= 1;
            }
            if cut == 0 && self.pending.is_empty() {
                cut = room;
            }
            self.pending.extend_from_slice(&bytes[..cut]);
            emit(&self.pending);
            self.pending.clear();
            bytes = &bytes[cut..];
        }
        self.pending.extend_from_slice(bytes);
    }

    fn finish(&mut self, mut emit: impl FnMut(&[u8])) {
        if !self.pending.is_empty() {
            emit(&self.pending);
            self.pending.clear();
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[&[u8]], max: usize) -> Vec<String> {
        let mut splitter = LineSplitter::new(max);
        let mut out = Vec::new();
        for chunk in input {
            splitter.feed(chunk, |line| {
                out.push(String::from_utf8_lossy(line).into_owned())
            });
        }
        splitter.finish(|line| out.push(String::from_utf8_lossy(line).into_owned()));
        out
    }

    #[test]
    fn lines_across_chunks_and_long_lines_in_pieces() {
        assert_eq!(split(&[b"ab", b"c\nd", b"e\n"], 10), ["abc", "de"]);
        assert_eq!(
            split(&[b"0123456789abc\nx"], 4),
            ["0123", "4567", "89ab", "c", "x"]
        );
        // A multi-byte character is never cut in two.
        assert_eq!(split(&["aé€b\n".as_bytes()], 3), ["aé", "€", "b"]);
    }

    #[tokio::test]
    async fn the_tail_is_bounded_and_keeps_the_end_of_a_flood() {
        let (mut writer, reader) = tokio::io::duplex(4096);
        let seen = Arc::new(Mutex::new((0usize, 0usize)));
        let counted = Arc::clone(&seen);
        let callback: StderrCallback = Arc::new(move |piece: &str| {
            let mut seen = lock(&counted);
            seen.0 += 1;
            seen.1 = seen.1.max(piece.len());
        });
        let tail = StderrTail::drain_with(reader, Some(callback), 1024, 4096);
        let writing = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            // 5 MB on one line, then the line that matters.
            let block = vec![b'x'; 64 * 1024];
            for _ in 0..80 {
                writer.write_all(&block).await.unwrap();
            }
            writer
                .write_all(b"\nfatal: the real cause\n")
                .await
                .unwrap();
        });
        writing.await.unwrap();
        tail.wait_drained(Duration::from_secs(5)).await;
        let text = tail.text();
        assert!(text.len() <= 1024 + 4, "{} bytes kept", text.len());
        assert!(text.ends_with("fatal: the real cause\n"), "{text:?}");
        let (pieces, longest) = *lock(&seen);
        assert!(longest <= 4096, "a piece of {longest} bytes");
        assert!(pieces >= 80 * 16, "{pieces} pieces");
    }
}
