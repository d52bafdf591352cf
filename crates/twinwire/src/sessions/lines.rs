//! A transcript read line by line with each line's place in the file, never holding more
//! than one line, and no line longer than a limit: a longer one is skipped as it is read.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

/// The default longest line of a transcript: 64 MiB (the CLI writes whole images, PDFs and
/// tool results on one line).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Where a line is: its 1-based number, its first byte's offset and its length (without the
/// newline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) number: u64,
    pub(crate) offset: u64,
    pub(crate) len: u64,
}

/// One line, or one that was too long (its bytes were dropped).
pub(crate) enum Line<'a> {
    Text(Place, &'a [u8]),
    TooLong(Place),
}

/// Lines of a file, in order.
pub(crate) struct Lines<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    max: usize,
    number: u64,
    offset: u64,
}

impl<R: Read> Lines<R> {
    pub(crate) fn new(reader: R, max: usize) -> Self {
        Self {
            reader: BufReader::with_capacity(64 * 1024, reader),
            buf: Vec::new(),
            max,
            number: 0,
            offset: 0,
        }
    }

    /// The next line (blank ones included), `None` at the end.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        // At most the limit and a newline: a longer line is not kept whole.
        let read = (&mut self.reader)
            .take(self.max as u64 + 1)
            .read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        let offset = self.offset;
        self.offset += read as u64;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        } else if self.buf.len() > self.max {
            let (rest, newline) = self.skip_line()?;
            self.offset += rest;
            let place = Place {
                number: self.number,
                offset,
                len: read as u64 + rest - u64::from(newline),
            };
            // The long line's buffer is not kept.
            self.buf = Vec::new();
            return Ok(Some(Line::TooLong(place)));
        }
        let place = Place {
            number: self.number,
            offset,
            len: self.buf.len() as u64,
        };
        Ok(Some(Line::Text(place, &self.buf)))
    }

    /// Skips to the end of the current line: the bytes skipped (with the newline) and whether
    /// there was one (not the end of the file).
    fn skip_line(&mut self) -> io::Result<(u64, bool)> {
        let mut skipped = 0u64;
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok((skipped, false));
            }
            if let Some(at) = available.iter().position(|b| *b == b'\n') {
                self.reader.consume(at + 1);
                return Ok((skipped + at as u64 + 1, true));
            }
            let len = available.len();
            self.reader.consume(len);
            skipped += len as u64;
        }
    }
}

/// Reads the line at `place` again (a second pass over chosen entries); `buf` is reused.
pub(crate) fn read_at<'b, F: Read + Seek>(
    file: &mut F,
    place: Place,
    buf: &'b mut Vec<u8>,
) -> io::Result<&'b [u8]> {
    file.seek(SeekFrom::Start(place.offset))?;
    buf.clear();
    let len = usize::try_from(place.len).map_err(io::Error::other)?;
    buf.resize(len, 0);
    file.read_exact(buf)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line as (number, offset, length, text or None when too long).
    fn all(input: &[u8], max: usize) -> Vec<(u64, u64, u64, Option<String>)> {
        let mut lines = Lines::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            out.push(match line {
                Line::Text(p, bytes) => (
                    p.number,
                    p.offset,
                    p.len,
                    Some(String::from_utf8_lossy(bytes).into_owned()),
                ),
                Line::TooLong(p) => (p.number, p.offset, p.len, None),
            });
        }
        out
    }

    #[test]
    fn lines_know_where_they_are_and_long_ones_are_not_kept() {
        let input = b"ab\n\nlong line\ncd\r\nlast";
        assert_eq!(
            all(input, 5),
            [
                (1, 0, 2, Some("ab".into())),
                (2, 3, 0, Some(String::new())),
                (3, 4, 9, None),
                (4, 14, 3, Some("cd\r".into())),
                (5, 18, 4, Some("last".into())),
            ]
        );
        // A long last line without a newline, and one of exactly the limit.
        assert_eq!(all(b"12345\n123456", 5)[1], (2, 6, 6, None));
        assert_eq!(all(b"12345", 5), [(1, 0, 5, Some("12345".into()))]);
        // Read again where it was.
        let mut file = std::io::Cursor::new(input.to_vec());
        let place = Place {
            number: 4,
            offset: 14,
            len: 3,
        };
        assert_eq!(read_at(&mut file, place, &mut Vec::new()).unwrap(), b"cd\r");
    }
}
