//! Newline-delimited framing with a length limit, free of I/O.
//!
//! [`LineDecoder`] takes bytes as they arrive, in chunks of any size, and hands back complete
//! lines. It never fails as a whole: a line longer than the limit is skipped (its bytes are
//! dropped as they arrive, so memory stays bounded) and reported as
//! [`LineError::TooLong`] with its length; a line that is not UTF-8 is reported as
//! [`LineError::InvalidUtf8`]; decoding carries on with the next line either way. Blank lines
//! are skipped, a trailing `\r` is removed, and [`LineDecoder::finish`] yields a last line that
//! had no newline.
//!
//! ```
//! use twinwire_protocol::framing::LineDecoder;
//!
//! let mut decoder = LineDecoder::new();
//! decoder.push(b"{\"type\":\"keep_al");
//! assert!(decoder.next_line().is_none());
//! decoder.push(b"ive\"}\r\n\n{\"type\"");
//! let line = decoder.next_line().unwrap().unwrap();
//! assert_eq!(line.text, r#"{"type":"keep_alive"}"#);
//! assert!(decoder.next_line().is_none());
//! decoder.push(b":\"keep_alive\"}");
//! assert_eq!(decoder.finish().unwrap().unwrap().number, 3);
//! ```

use std::io::{self, Read};

/// The default longest line: 64 MiB. The CLI writes whole images, PDFs and tool results on
/// one line; the official Python SDK's 1 MiB limit is its most reported failure.
pub const DEFAULT_MAX_LINE_LENGTH: usize = 64 * 1024 * 1024;

/// One complete line, without its line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The text of the line.
    pub text: &'a str,
    /// The 1-based line number in the stream (blank lines count).
    pub number: u64,
}

/// A line that could not be handed back. The decoder has already moved past it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line was longer than the limit; its bytes were dropped.
    #[error("line {number} is {len} bytes long, over the limit of {max} bytes")]
    TooLong {
        /// Its length in bytes, without the line ending.
        len: usize,
        /// The limit in force.
        max: usize,
        /// Its 1-based line number.
        number: u64,
    },
    /// A line went over the limit and the reader was told to stop there
    /// ([`LineReader::ending_at_oversized`]): nothing after it is read.
    #[error(
        "line {number} is over the limit of {max} bytes ({read} read without a newline); \
         the rest of the input was not read"
    )]
    Unfinished {
        /// Bytes of the line read before stopping.
        read: usize,
        /// The limit in force.
        max: usize,
        /// Its 1-based line number.
        number: u64,
    },
    /// The line is not valid UTF-8.
    #[error("line {number} is not valid UTF-8 (first bad byte at offset {offset})")]
    InvalidUtf8 {
        /// Offset of the first invalid byte within the line.
        offset: usize,
        /// Its 1-based line number.
        number: u64,
    },
}

/// Splits a byte stream into lines. See the [module docs](self).
#[derive(Debug)]
pub struct LineDecoder {
    buf: Vec<u8>,
    /// Start of the first line not yet handed out.
    start: usize,
    /// Bytes from `start` already searched for a newline.
    scanned: usize,
    max_line_length: usize,
    /// While skipping an oversized line: how many of its bytes were dropped so far.
    skipping: Option<usize>,
    line_number: u64,
}

impl Default for LineDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl LineDecoder {
    /// A decoder with the [default limit](DEFAULT_MAX_LINE_LENGTH).
    pub fn new() -> Self {
        Self::with_max_line_length(DEFAULT_MAX_LINE_LENGTH)
    }

    /// A decoder that reports lines longer than `max` bytes as [`LineError::TooLong`].
    pub fn with_max_line_length(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            max_line_length: max,
            skipping: None,
            line_number: 0,
        }
    }

    /// The limit in force.
    pub fn max_line_length(&self) -> usize {
        self.max_line_length
    }

    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.compact();
        self.buf.extend_from_slice(bytes);
    }

    /// The internal buffer, for a reader to append to directly (e.g. with
    /// `AsyncReadExt::read_buf`), saving a copy. Only append to it.
    pub fn append_buffer(&mut self) -> &mut Vec<u8> {
        self.compact();
        &mut self.buf
    }

    /// Lets `fill` append bytes to the internal buffer directly. `fill` must only append.
    pub fn fill_with<R>(&mut self, fill: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        fill(self.append_buffer())
    }

    /// Reads once from `reader` into the buffer; returns the number of bytes read (0 at EOF).
    pub fn read_from<R: Read>(&mut self, reader: &mut R) -> io::Result<usize> {
        const CHUNK: usize = 64 * 1024;
        self.fill_with(|buf| {
            let len = buf.len();
            buf.resize(len + CHUNK, 0);
            let read = reader.read(&mut buf[len..]);
            buf.truncate(len + *read.as_ref().unwrap_or(&0));
            read
        })
    }

    /// The next complete line, if the buffer holds one. Blank lines are skipped.
    pub fn next_line(&mut self) -> Option<Result<Line<'_>, LineError>> {
        self.next_item(false)
    }

    /// Call at end of input: the remaining lines, the last one even without a newline, then
    /// `None`.
    pub fn finish(&mut self) -> Option<Result<Line<'_>, LineError>> {
        self.next_item(true)
    }

    /// While a line over the limit is being dropped (its newline not seen yet): that line, as
    /// [`LineError::Unfinished`].
    pub fn oversized_line(&self) -> Option<LineError> {
        self.skipping.map(|read| LineError::Unfinished {
            read,
            max: self.max_line_length,
            number: self.line_number + 1,
        })
    }

    /// Bytes held that do not yet form a complete line.
    pub fn buffered_len(&self) -> usize {
        self.buf.len() - self.start
    }

    fn next_item(&mut self, at_eof: bool) -> Option<Result<Line<'_>, LineError>> {
        loop {
            match self.next_span(at_eof)? {
                Span::TooLong(len) => return Some(Err(self.too_long(len))),
                Span::Line(start, end) => {
                    if !self.is_blank(start, end) {
                        return Some(self.line_at(start, end));
                    }
                }
            }
        }
    }

    /// Finds the next line and moves past it, without borrowing the buffer.
    fn next_span(&mut self, at_eof: bool) -> Option<Span> {
        let pending = &self.buf[self.start + self.scanned..];
        let end = match memchr::memchr(b'\n', pending) {
            Some(offset) => self.start + self.scanned + offset,
            None if at_eof && (self.start < self.buf.len() || self.skipping.is_some()) => {
                self.buf.len()
            }
            None => {
                self.scanned = self.buf.len() - self.start;
                self.skip_if_oversized();
                return None;
            }
        };
        let line_start = self.start;
        self.start = (end + 1).min(self.buf.len());
        self.scanned = 0;
        self.line_number += 1;
        let mut content_end = end;
        if content_end > line_start && self.buf[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        if let Some(dropped) = self.skipping.take() {
            return Some(Span::TooLong(dropped + (content_end - line_start)));
        }
        if content_end - line_start > self.max_line_length {
            return Some(Span::TooLong(content_end - line_start));
        }
        Some(Span::Line(line_start, content_end))
    }

    fn is_blank(&self, start: usize, end: usize) -> bool {
        self.buf[start..end].iter().all(u8::is_ascii_whitespace)
    }

    fn line_at(&self, start: usize, end: usize) -> Result<Line<'_>, LineError> {
        let number = self.line_number;
        match std::str::from_utf8(&self.buf[start..end]) {
            Ok(text) => Ok(Line { text, number }),
            Err(err) => Err(LineError::InvalidUtf8 {
                offset: err.valid_up_to(),
                number,
            }),
        }
    }

    fn too_long(&self, len: usize) -> LineError {
        LineError::TooLong {
            len,
            max: self.max_line_length,
            number: self.line_number,
        }
    }

    /// Drops the bytes of a line that is already over the limit, keeping memory bounded.
    fn skip_if_oversized(&mut self) {
        let held = self.buf.len() - self.start;
        // A `\r` before the newline does not count against the limit, so allow one extra byte.
        if held > self.max_line_length + 1 || (self.skipping.is_some() && held > 0) {
            *self.skipping.get_or_insert(0) += held;
            self.buf.truncate(self.start);
            self.scanned = 0;
        }
    }

    /// Moves unread bytes to the front once the consumed prefix dominates the buffer.
    fn compact(&mut self) {
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }
}

enum Span {
    Line(usize, usize),
    TooLong(usize),
}

/// Reads lines from a blocking reader: a convenience over [`LineDecoder`] for tools and tests.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    decoder: LineDecoder,
    eof: bool,
    /// Stop at the first line over the limit instead of reading on to its newline.
    end_at_oversized: bool,
}

/// One item from [`LineReader`]: an owned line, or why a line was skipped.
pub type OwnedLine = Result<(u64, String), LineError>;

impl<R: Read> LineReader<R> {
    /// Wraps `reader` with a decoder of the given limit.
    pub fn new(reader: R, max_line_length: usize) -> Self {
        Self {
            reader,
            decoder: LineDecoder::with_max_line_length(max_line_length),
            eof: false,
            end_at_oversized: false,
        }
    }

    /// Ends the input at the first line over the limit, reporting it as
    /// [`LineError::Unfinished`] as soon as the limit is passed: reading an endless input
    /// without newlines (`/dev/zero`) then takes as long as reading the limit, not forever.
    #[must_use]
    pub fn ending_at_oversized(mut self) -> Self {
        self.end_at_oversized = true;
        self
    }

    /// The next line, `Ok(None)` at end of input, or an I/O error from the reader.
    pub fn next_line(&mut self) -> io::Result<Option<OwnedLine>> {
        loop {
            if let Some(item) = self.decoder.next_line() {
                return Ok(Some(item.map(|line| (line.number, line.text.to_owned()))));
            }
            // The decoder noticed the limit while looking for a newline.
            if self.end_at_oversized {
                if let Some(err) = self.decoder.oversized_line() {
                    self.eof = true;
                    let max = self.decoder.max_line_length();
                    self.decoder = LineDecoder::with_max_line_length(max);
                    return Ok(Some(Err(err)));
                }
            }
            if self.eof {
                let last = self.decoder.finish();
                return Ok(last.map(|item| item.map(|line| (line.number, line.text.to_owned()))));
            }
            if self.decoder.read_from(&mut self.reader)? == 0 {
                self.eof = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_can_end_at_an_endless_line() {
        // An endless input without newlines, like /dev/zero.
        let endless = std::io::repeat(b'x');
        let mut reader = LineReader::new(endless, 1000).ending_at_oversized();
        let item = reader.next_line().unwrap();
        assert!(
            matches!(item, Some(Err(LineError::Unfinished { max: 1000, number: 1, read })) if read > 1000),
            "{item:?}"
        );
        assert_eq!(reader.next_line().unwrap(), None);
        // Lines before it come first.
        let input = std::io::Read::chain(
            &b"{}
"[..],
            std::io::repeat(b'y'),
        );
        let mut reader = LineReader::new(input, 100).ending_at_oversized();
        assert_eq!(reader.next_line().unwrap(), Some(Ok((1, "{}".to_owned()))));
        assert!(matches!(
            reader.next_line().unwrap(),
            Some(Err(LineError::Unfinished { number: 2, .. }))
        ));
        assert_eq!(reader.next_line().unwrap(), None);
    }

    fn collect(decoder: &mut LineDecoder, eof: bool) -> Vec<Result<(u64, String), LineError>> {
        let mut out = Vec::new();
        while let Some(item) = decoder.next_line() {
            out.push(item.map(|l| (l.number, l.text.to_owned())));
        }
        if eof {
            while let Some(item) = decoder.finish() {
                out.push(item.map(|l| (l.number, l.text.to_owned())));
            }
        }
        out
    }

    #[test]
    fn crlf_blank_lines_and_partial_last_line() {
        let mut d = LineDecoder::new();
        d.push(b"a\r\n\r\n  \nb\nc");
        let got = collect(&mut d, true);
        assert_eq!(
            got,
            vec![
                Ok((1, "a".into())),
                Ok((4, "b".into())),
                Ok((5, "c".into()))
            ]
        );
        assert!(d.finish().is_none());
    }

    #[test]
    fn utf8_split_across_pushes() {
        let text = "{\"t\":\"héllo ✓\"}\n";
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            let mut d = LineDecoder::new();
            d.push(&bytes[..cut]);
            let mut got = collect(&mut d, false);
            d.push(&bytes[cut..]);
            got.extend(collect(&mut d, true));
            assert_eq!(
                got,
                vec![Ok((1, text.trim_end().to_owned()))],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn oversized_line_is_reported_and_skipped_with_bounded_memory() {
        let mut d = LineDecoder::with_max_line_length(10);
        d.push(b"short\n");
        assert_eq!(d.next_line().unwrap().unwrap().text, "short");
        for _ in 0..1000 {
            d.push(b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            assert!(d.next_line().is_none());
            assert!(d.buffered_len() <= 11 + 70);
        }
        d.push(b"yy\nafter\n");
        let got = collect(&mut d, true);
        assert_eq!(
            got[0],
            Err(LineError::TooLong {
                len: 69_002,
                max: 10,
                number: 2
            })
        );
        assert_eq!(got[1], Ok((3, "after".into())));
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn line_exactly_at_limit_passes_and_one_over_does_not() {
        let mut d = LineDecoder::with_max_line_length(4);
        d.push(b"abcd\r\nabcde\nabcd");
        let got = collect(&mut d, true);
        assert_eq!(got[0], Ok((1, "abcd".into())));
        assert!(matches!(got[1], Err(LineError::TooLong { len: 5, .. })));
        assert_eq!(got[2], Ok((3, "abcd".into())));
    }

    #[test]
    fn oversized_last_line_without_newline() {
        let mut d = LineDecoder::with_max_line_length(3);
        d.push(b"ok\n0123456789");
        let got = collect(&mut d, true);
        assert_eq!(got[0], Ok((1, "ok".into())));
        assert!(matches!(
            got[1],
            Err(LineError::TooLong {
                len: 10,
                number: 2,
                ..
            })
        ));
    }

    #[test]
    fn invalid_utf8_is_reported_and_decoding_continues() {
        let mut d = LineDecoder::new();
        d.push(b"ok\n\xff\xfe\nnext\n");
        let got = collect(&mut d, true);
        assert_eq!(got[0], Ok((1, "ok".into())));
        assert_eq!(
            got[1],
            Err(LineError::InvalidUtf8 {
                offset: 0,
                number: 2
            })
        );
        assert_eq!(got[2], Ok((3, "next".into())));
    }

    #[test]
    fn line_reader_reads_in_small_chunks() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(3).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut reader = LineReader::new(Trickle(b"one\ntwo\nthree"), 100);
        let mut got = Vec::new();
        while let Some(item) = reader.next_line().unwrap() {
            got.push(item.unwrap().1);
        }
        assert_eq!(got, ["one", "two", "three"]);
    }
}
