//! The page: one self-contained HTML file (inline CSS and script, no network), written as the
//! rows are read. Rows go out as JSON in `<script type="application/json" class="rows">`
//! chunks of at most [`ROWS_PER_CHUNK`] rows or [`CHUNK_BYTES`] bytes (no chunk comes near a
//! browser's longest string, however long the input), then the totals, then the script that
//! reads the chunks, lays the rows out, filters and searches them, and draws 500 at a time
//! (only what is shown is in the DOM). A content security policy allows only the page's own
//! script (by nonce) and nothing from outside, so even text that slipped through as markup
//! could not run or fetch anything.

use std::io::{self, Write};

use serde::Serialize;

use super::model::{Row, SessionHeader, Totals};

/// Rows per chunk at most.
const ROWS_PER_CHUNK: usize = 1000;
/// A chunk is closed after its first row past this many bytes.
const CHUNK_BYTES: u64 = 4 * 1024 * 1024;

const HEAD: &str = include_str!("page.html");
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// What the page says above its rows, written after them.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// The page's title.
    pub title: String,
    /// `conversation` (a saved session) or `frames` (a recording or a capture).
    pub layout: &'static str,
    /// Totals over the rows.
    pub totals: Totals,
    /// For a saved session: its title, summary and where it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionHeader>,
}

/// Writes a page row by row.
pub struct PageWriter<W: Write> {
    out: ScriptSafe<W>,
    nonce: String,
    /// Rows in the open chunk (0: no chunk open).
    in_chunk: usize,
    /// Bytes written when the open chunk began.
    chunk_start: u64,
}

impl<W: Write> PageWriter<W> {
    /// Starts the page titled `title` (known before the rows; the script may improve it).
    pub fn start(out: W, title: &str) -> io::Result<Self> {
        let nonce = nonce();
        let mut out = ScriptSafe {
            inner: out,
            written: 0,
        };
        let head = HEAD
            .replace("{{NONCE}}", &nonce)
            .replace("{{TITLE}}", &html_escape(title))
            .replace("{{STYLE}}", STYLE);
        out.inner.write_all(head.as_bytes())?;
        Ok(Self {
            out,
            nonce,
            in_chunk: 0,
            chunk_start: 0,
        })
    }

    /// Writes one row.
    pub fn row(&mut self, row: &Row<'_>) -> io::Result<()> {
        if self.in_chunk == 0 {
            self.out
                .inner
                .write_all(b"<script type=\"application/json\" class=\"rows\">[")?;
            self.chunk_start = self.out.written;
        } else {
            self.out.write_all(b",")?;
        }
        serde_json::to_writer(&mut self.out, row)?;
        self.in_chunk += 1;
        if self.in_chunk == ROWS_PER_CHUNK || self.out.written - self.chunk_start > CHUNK_BYTES {
            self.close_chunk()?;
        }
        Ok(())
    }

    /// Writes the totals and the script; hands back the output.
    pub fn finish(mut self, summary: &Summary) -> io::Result<W> {
        self.close_chunk()?;
        self.out
            .inner
            .write_all(b"<script type=\"application/json\" id=\"summary\">")?;
        serde_json::to_writer(&mut self.out, summary)?;
        self.out.inner.write_all(b"</script>\n<script nonce=\"")?;
        self.out.inner.write_all(self.nonce.as_bytes())?;
        self.out.inner.write_all(b"\">\n")?;
        self.out.inner.write_all(SCRIPT.as_bytes())?;
        self.out.inner.write_all(b"</script>\n</body>\n</html>\n")?;
        self.out.inner.flush()?;
        Ok(self.out.inner)
    }

    fn close_chunk(&mut self) -> io::Result<()> {
        if self.in_chunk > 0 {
            self.out.inner.write_all(b"]</script>\n")?;
            self.in_chunk = 0;
        }
        Ok(())
    }
}

/// JSON made safe inside a `<script>` element: only `</` (or `<!--`) could end it early or
/// change how it is read, so every `<` becomes `\u003c` (JSON strings and the page's script
/// read it back as `<`). Counts what it writes.
struct ScriptSafe<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for ScriptSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        for (i, byte) in bytes.iter().enumerate() {
            if *byte == b'<' {
                self.inner.write_all(&bytes[start..i])?;
                self.inner.write_all(b"\\u003c")?;
                start = i + 1;
            }
        }
        self.inner.write_all(&bytes[start..])?;
        self.written += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A fresh nonce for the page's script.
fn nonce() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:x}", nanos, std::process::id())
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    #[test]
    fn rows_go_out_in_bounded_chunks_and_cannot_end_the_script() {
        let mut page = PageWriter::start(Vec::new(), "a <b> & c").unwrap();
        for line in 0..(ROWS_PER_CHUNK as u64 * 2 + 1) {
            let row = Row {
                line,
                summary: "</script><script>alert(1)</script>".to_owned(),
                raw: Cow::Borrowed("<!--"),
                ..Row::default()
            };
            page.row(&row).unwrap();
        }
        let summary = Summary {
            title: "</script>".to_owned(),
            layout: "frames",
            totals: Totals::default(),
            session: None,
        };
        let html = String::from_utf8(page.finish(&summary).unwrap()).unwrap();
        assert_eq!(html.matches("class=\"rows\"").count(), 3);
        assert!(html.contains("<title>a &lt;b&gt; &amp; c · twinwire view</title>"));
        // The page's own script elements only: the head has none, then chunks, summary, app.
        assert_eq!(html.matches("<script").count(), 5, "{html}");
        assert!(!html.contains("<!--"));
    }
}
