//! The recording format: what `twinwire tap` writes and `replay`, `check`, the peers suite and
//! `cargo xtask record` read. One JSON object per line:
//!
//! ```text
//! {"dir":"meta","t":0,"cli":"/usr/bin/claude","argv":["--verbose",…],"env":{"HOME":"…",…}}
//! {"dir":"in","t":0.001,"msg":{"type":"control_request",…}}
//! {"dir":"out","t":0.602,"msg":{"type":"control_response",…}}
//! {"dir":"out","t":0.700,"raw":"[SandboxDebug] a line that is not JSON"}
//! {"dir":"out","t":0.900,"msg":{…"subtype":"can_use_tool"…},"tap":"policy"}
//! {"dir":"in","t":0.900,"msg":{"type":"control_response",…},"tap":"policy","rule":"Bash(ls*)"}
//! {"dir":"in","t":1.200,"dropped":"line 7 is 70000000 bytes long, over the limit of …"}
//! ```
//!
//! * `dir`: `in` = host → CLI (the CLI's stdin), `out` = CLI → host (its stdout), `meta` = the
//!   first line: the CLI's path, its arguments and its environment.
//! * `t`: seconds since the recording started, 3 decimals.
//! * `msg`: the frame, as the JSON text of the line; `raw`: a line that is not JSON, as a
//!   string; `dropped`: a line that could not be relayed (over the length limit, or not UTF-8),
//!   with the reason.
//! * `tap`: set on frames that never reached the other side: `"policy"` marks a `can_use_tool`
//!   request the tap answered itself (`out`) and that answer (`in`, with the deciding `rule`).
//!
//! [`RecordLine`] reads a line without copying the frame; the `*_line` functions write one with
//! `dir` and `t` first, as the reference transcripts have them.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// Which way a recorded frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Host → CLI (the CLI's stdin).
    In,
    /// CLI → host (its stdout).
    Out,
}

impl Direction {
    /// `in` or `out`, as recorded.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }

    /// The other way.
    pub fn reversed(self) -> Direction {
        match self {
            Direction::In => Direction::Out,
            Direction::Out => Direction::In,
        }
    }
}

/// One line of a recording, borrowed from its text.
#[derive(Debug, Deserialize)]
pub struct RecordLine<'a> {
    /// `meta`, `in` or `out` (other values are read and skipped by [`direction`](Self::direction)).
    #[serde(borrow)]
    pub dir: Cow<'a, str>,
    /// Seconds since the recording started.
    #[serde(default)]
    pub t: f64,
    /// The frame, when the line was JSON.
    #[serde(default, borrow)]
    pub msg: Option<&'a RawValue>,
    /// The line, when it was not JSON.
    #[serde(default)]
    pub raw: Option<String>,
    /// Why the line could not be relayed.
    #[serde(default, borrow)]
    pub dropped: Option<&'a RawValue>,
    /// Set when the frame never reached the other side (`policy`).
    #[serde(default)]
    pub tap: Option<String>,
    /// The policy rule that decided, on a tap's own answer.
    #[serde(default)]
    pub rule: Option<String>,
}

impl<'a> RecordLine<'a> {
    /// Reads one line.
    pub fn parse(text: &'a str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// `in` or `out`; `None` for `meta` and anything else.
    pub fn direction(&self) -> Option<Direction> {
        match self.dir.as_ref() {
            "in" => Some(Direction::In),
            "out" => Some(Direction::Out),
            _ => None,
        }
    }

    /// The frame's text: the JSON of `msg` as written, or the `raw` line.
    pub fn frame_text(&self) -> Option<Cow<'_, str>> {
        match (&self.msg, &self.raw) {
            (Some(msg), _) => Some(Cow::Borrowed(msg.get())),
            (None, Some(raw)) => Some(Cow::Borrowed(raw.as_str())),
            (None, None) => None,
        }
    }
}

/// A frame line: `msg` when `frame` is JSON (written as given, so the caller's redaction
/// stands), else `raw`; `tap` and `rule` when the recorder handled the frame itself.
pub fn frame_line(
    dir: Direction,
    seconds: f64,
    frame: &str,
    tap: Option<&str>,
    rule: Option<&str>,
) -> String {
    let mut out = format!("{{\"dir\":\"{}\",\"t\":{seconds:.3},", dir.as_str());
    if serde_json::from_str::<&RawValue>(frame).is_ok() {
        out.push_str("\"msg\":");
        out.push_str(frame.trim());
    } else {
        out.push_str("\"raw\":");
        out.push_str(&json_string(frame));
    }
    for (key, value) in [("tap", tap), ("rule", rule)] {
        if let Some(value) = value {
            out.push_str(&format!(",\"{key}\":{}", json_string(value)));
        }
    }
    out.push('}');
    out
}

/// A line that could not be relayed, and why.
pub fn dropped_line(dir: Direction, seconds: f64, reason: &str) -> String {
    format!(
        "{{\"dir\":\"{}\",\"t\":{seconds:.3},\"dropped\":{}}}",
        dir.as_str(),
        json_string(reason)
    )
}

/// The first line: the CLI, its arguments and its environment.
pub fn meta_line(cli: &str, argv: Vec<String>, env: serde_json::Map<String, Value>) -> String {
    format!(
        "{{\"dir\":\"meta\",\"t\":0,\"cli\":{},\"argv\":{},\"env\":{}}}",
        json_string(cli),
        Value::from(argv),
        Value::Object(env),
    )
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_lines_read_back() {
        let line = frame_line(Direction::Out, 1.5, r#"{"type":"x"}"#, Some("policy"), None);
        assert_eq!(
            line,
            r#"{"dir":"out","t":1.500,"msg":{"type":"x"},"tap":"policy"}"#
        );
        let read = RecordLine::parse(&line).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.direction(), Some(Direction::Out));
        assert_eq!(read.frame_text().as_deref(), Some(r#"{"type":"x"}"#));
        assert_eq!(read.tap.as_deref(), Some("policy"));

        let raw = frame_line(Direction::In, 0.0, "not \"json\"", None, Some("Bash(ls*)"));
        let read = RecordLine::parse(&raw).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.frame_text().as_deref(), Some("not \"json\""));
        assert_eq!(read.rule.as_deref(), Some("Bash(ls*)"));

        let dropped = dropped_line(Direction::In, 2.0, "too long");
        let read = RecordLine::parse(&dropped).unwrap_or_else(|e| panic!("{e}"));
        assert!(read.dropped.is_some() && read.frame_text().is_none());

        let meta = meta_line("/bin/claude", vec!["-p".into()], serde_json::Map::new());
        let read = RecordLine::parse(&meta).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.direction(), None);
        assert_eq!(read.dir, "meta");
    }

    #[test]
    fn an_escaped_direction_is_read() {
        let read =
            RecordLine::parse(r#"{"dir":"\u006fut","msg":1}"#).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.direction(), Some(Direction::Out));
    }
}
