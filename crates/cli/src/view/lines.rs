//! Every line of an input, for a page that gives each one a row. Unlike the protocol's framing
//! (which skips blank lines and can stop at the first line over its limit), this reader hands
//! back blank lines, lines that are not UTF-8 (as lossy text), and lines over the limit (their
//! length only: their bytes are dropped as they come, so memory stays bounded), and reads on
//! after each of them. Only a line that runs on without a newline for [`ENDLESS_FACTOR`] times
//! the limit ends the input: that is no line-based file (`/dev/zero`), and skipping it to its
//! end could take forever.

use std::io::{self, BufRead, BufReader, Read};

/// A line still without a newline after this many times the line limit ends the input.
pub const ENDLESS_FACTOR: u64 = 16;

/// Bytes asked of the input at a time.
const CHUNK: usize = 64 * 1024;

/// What one line of the input was.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line of UTF-8 text (possibly blank), without its line ending.
    Text(&'a str),
    /// A line that is not UTF-8: its text with the bad bytes replaced, and where the first was.
    NotUtf8 {
        /// The line, lossily decoded.
        text: String,
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// A line over the limit, skipped to its newline.
    TooLong {
        /// Its length in bytes.
        len: u64,
        /// The limit.
        max: usize,
    },
    /// A line that did not end within [`ENDLESS_FACTOR`] times the limit: the input ends here.
    Endless {
        /// Bytes of it read.
        read: u64,
    },
}

/// Reads the lines of `R`, numbered from 1.
pub struct Lines<R> {
    input: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    number: u64,
    /// While a line over the limit is skipped: its bytes so far.
    skipped: Option<u64>,
    done: bool,
}

impl<R: Read> Lines<R> {
    /// Lines of `input`, each at most `max` bytes.
    pub fn new(input: R, max: usize) -> Self {
        Self {
            input: BufReader::with_capacity(CHUNK, input),
            line: Vec::new(),
            max,
            number: 0,
            skipped: None,
            done: false,
        }
    }

    /// The next line and its number, `None` at the end of the input.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        if self.done {
            return Ok(None);
        }
        // A long line's buffer is given back once it is handed out, not kept for the rest.
        if self.line.capacity() > 4 * CHUNK {
            self.line = Vec::new();
        }
        self.line.clear();
        loop {
            let available = match self.input.fill_buf() {
                Ok(bytes) => bytes,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if available.is_empty() {
                self.done = true;
                if self.line.is_empty() && self.skipped.is_none() {
                    return Ok(None);
                }
                return Ok(Some(self.finish_line()));
            }
            let (taken, ended) = match memchr::memchr(b'\n', available) {
                Some(at) => (at, true),
                None => (available.len(), false),
            };
            match &mut self.skipped {
                Some(skipped) => *skipped += taken as u64,
                None if self.line.len() + taken > self.max + 1 => {
                    // One byte over for a `\r` before the newline, which does not count.
                    self.skipped = Some((self.line.len() + taken) as u64);
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(&available[..taken]),
            }
            self.input.consume(taken + usize::from(ended));
            if ended {
                return Ok(Some(self.finish_line()));
            }
            if let Some(read) = self.skipped {
                if read > self.max as u64 * ENDLESS_FACTOR {
                    self.done = true;
                    self.skipped = None;
                    self.number += 1;
                    return Ok(Some((self.number, Line::Endless { read })));
                }
            }
        }
    }

    fn finish_line(&mut self) -> (u64, Line<'_>) {
        self.number += 1;
        if let Some(skipped) = self.skipped.take() {
            return (
                self.number,
                Line::TooLong {
                    len: skipped,
                    max: self.max,
                },
            );
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        if self.line.len() > self.max {
            return (
                self.number,
                Line::TooLong {
                    len: self.line.len() as u64,
                    max: self.max,
                },
            );
        }
        let line = match std::str::from_utf8(&self.line) {
            Ok(text) => Line::Text(text),
            Err(err) => Line::NotUtf8 {
                text: String::from_utf8_lossy(&self.line).into_owned(),
                offset: err.valid_up_to(),
            },
        };
        (self.number, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: usize) -> Vec<(u64, String)> {
        let mut lines = Lines::new(input, max);
        let mut out = Vec::new();
        while let Some((number, line)) = lines.next_line().unwrap() {
            out.push((number, format!("{line:?}")));
        }
        out
    }

    #[test]
    fn every_line_comes_back_numbered() {
        let got = all(b"a\n\n  \r\nb\xffc\r\n0123456789ab\nlast", 10);
        let expected = [
            (1, r#"Text("a")"#),
            (2, r#"Text("")"#),
            (3, r#"Text("  ")"#),
            (4, "NotUtf8 { text: \"b\u{fffd}c\", offset: 1 }"),
            (5, "TooLong { len: 12, max: 10 }"),
            (6, r#"Text("last")"#),
        ];
        let expected: Vec<(u64, String)> =
            expected.iter().map(|(n, s)| (*n, s.to_string())).collect();
        assert_eq!(got, expected);
        // A final newline ends the last line; it does not start another.
        assert_eq!(all(b"a\n", 10).len(), 1);
        assert!(all(b"", 10).is_empty());
    }

    #[test]
    fn lines_after_a_long_one_are_read() {
        let mut input = b"{}\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 10_000));
        input.extend(b"\n{\"after\":1}\n");
        let got = all(&input, 1000);
        assert_eq!(got[1], (2, "TooLong { len: 10000, max: 1000 }".to_owned()));
        assert_eq!(got[2], (3, r#"Text("{\"after\":1}")"#.to_owned()));
    }

    #[test]
    fn an_endless_line_ends_the_input() {
        let endless = std::io::Read::chain(&b"{}\n"[..], std::io::repeat(b'x'));
        let mut lines = Lines::new(endless, 1000);
        assert_eq!(lines.next_line().unwrap(), Some((1, Line::Text("{}"))));
        let Some((2, Line::Endless { read })) = lines.next_line().unwrap() else {
            panic!("no end")
        };
        assert!(read > 1000 * ENDLESS_FACTOR);
        assert_eq!(lines.next_line().unwrap(), None);
    }
}
