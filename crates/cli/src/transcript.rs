//! The recording format `ccwire tap` writes and `ccwire replay` reads: one JSON object per
//! line, the same as the reference transcripts.
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
//! * `t`: seconds since the tap started, 3 decimals.
//! * `msg`: the frame, as the JSON text of the line (secrets redacted, see [`redact`]); `raw`:
//!   a line that is not JSON, as a string; `dropped`: a line that could not be relayed (over
//!   the length limit, or not UTF-8), with the reason.
//! * `tap`: set on frames that never reached the host: `"policy"` marks a `can_use_tool`
//!   request the tap answered itself (`out`) and that answer (`in`, with the deciding `rule`).

pub mod redact;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};
use ccwire_protocol::framing::{LineReader, DEFAULT_MAX_LINE_LENGTH};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

pub use redact::Redactor;

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// Host → CLI.
    In,
    /// CLI → host.
    Out,
}

impl Dir {
    /// `in` or `out`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::In => "in",
            Dir::Out => "out",
        }
    }
}

/// Writes a recording. Shared by the relay tasks; each line is written whole and flushed. A
/// failing write is reported once and ends the recording, never the relay.
#[derive(Debug)]
pub struct Recorder {
    file: Mutex<Option<BufWriter<File>>>,
    start: Instant,
    redactor: Redactor,
}

impl Recorder {
    /// Creates (or truncates) `path`.
    pub fn create(path: &Path, redactor: Redactor) -> anyhow::Result<Self> {
        let file = File::create(path)
            .with_context(|| format!("creating the recording {}", path.display()))?;
        Ok(Self {
            file: Mutex::new(Some(BufWriter::new(file))),
            start: Instant::now(),
            redactor,
        })
    }

    /// The first line: the CLI, its arguments and its environment, secrets redacted.
    pub fn meta(&self, cli: &str, argv: &[String], env: &[(String, String)]) {
        let env: serde_json::Map<String, Value> = env
            .iter()
            .map(|(name, value)| {
                let value = self.redactor.env_value(name, value);
                (name.clone(), Value::String(value))
            })
            .collect();
        let argv: Vec<String> = argv
            .iter()
            .map(|arg| self.redactor.text(arg).into_owned())
            .collect();
        // Written by hand to keep `dir` and `t` first, as in the reference transcripts.
        let line = format!(
            "{{\"dir\":\"meta\",\"t\":0,\"cli\":{},\"argv\":{},\"env\":{}}}",
            json_string(&self.redactor.text(cli)),
            Value::from(argv),
            Value::Object(env),
        );
        self.write(&line);
    }

    /// One relayed line, as `msg` when it is JSON and `raw` when it is not.
    pub fn frame(&self, dir: Dir, line: &str) {
        self.frame_marked(dir, line, None, None);
    }

    /// A frame the tap handled itself (`tap`: why, e.g. `policy`; `rule`: the policy rule).
    pub fn frame_marked(&self, dir: Dir, line: &str, tap: Option<&str>, rule: Option<&str>) {
        let mut out = format!(
            "{{\"dir\":\"{}\",\"t\":{:.3},",
            dir.as_str(),
            self.seconds()
        );
        if serde_json::from_str::<&RawValue>(line).is_ok() {
            out.push_str("\"msg\":");
            out.push_str(self.redactor.json_line(line).trim());
        } else {
            out.push_str("\"raw\":");
            out.push_str(&json_string(&self.redactor.text(line)));
        }
        if let Some(tap) = tap {
            out.push_str(",\"tap\":");
            out.push_str(&json_string(tap));
        }
        if let Some(rule) = rule {
            out.push_str(",\"rule\":");
            out.push_str(&json_string(rule));
        }
        out.push('}');
        self.write(&out);
    }

    /// A line that could not be relayed, and why.
    pub fn dropped(&self, dir: Dir, reason: &str) {
        let out = format!(
            "{{\"dir\":\"{}\",\"t\":{:.3},\"dropped\":{}}}",
            dir.as_str(),
            self.seconds(),
            json_string(reason)
        );
        self.write(&out);
    }

    fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn write(&self, line: &str) {
        let mut guard = match self.file.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let Some(file) = guard.as_mut() else { return };
        let written = file
            .write_all(line.as_bytes())
            .and_then(|()| file.write_all(b"\n"))
            .and_then(|()| file.flush());
        if let Err(err) = written {
            warn(&format!("tap: recording stopped: {err}"));
            *guard = None;
        }
    }
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// One `in` or `out` line of a recording.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its 1-based line number in the file.
    pub line: u64,
    /// Which way it went.
    pub dir: Dir,
    /// The frame's text: the JSON of `msg` as written, or the `raw` line.
    pub text: String,
    /// The parsed frame, when it is JSON (`msg`).
    pub value: Option<Value>,
    /// The `tap` marker: the frame never reached the host.
    pub tap: Option<String>,
    /// The line was dropped by the tap (`dropped`): nothing reached the other side.
    pub dropped: bool,
}

#[derive(Deserialize)]
struct RecordLine<'a> {
    dir: &'a str,
    #[serde(default, borrow)]
    msg: Option<&'a RawValue>,
    #[serde(default)]
    raw: Option<String>,
    #[serde(default)]
    tap: Option<String>,
    #[serde(default, borrow)]
    dropped: Option<&'a RawValue>,
}

/// Reads the `in` and `out` lines of a recording (the `meta` line and other directions are
/// skipped).
pub fn load(path: &Path) -> anyhow::Result<Vec<Entry>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut reader = LineReader::new(file, DEFAULT_MAX_LINE_LENGTH);
    let mut entries = Vec::new();
    while let Some(item) = reader.next_line()? {
        let (number, text) = item.with_context(|| format!("reading {}", path.display()))?;
        let record: RecordLine<'_> = serde_json::from_str(&text)
            .with_context(|| format!("{}:{number}: not a recording line", path.display()))?;
        let dir = match record.dir {
            "in" => Dir::In,
            "out" => Dir::Out,
            _ => continue,
        };
        let (text, value) = match (record.msg, record.raw) {
            (Some(msg), _) => {
                let value = serde_json::from_str(msg.get())
                    .with_context(|| format!("{}:{number}: bad msg", path.display()))?;
                (msg.get().to_owned(), Some(value))
            }
            (None, Some(raw)) => (raw, None),
            (None, None) if record.dropped.is_some() => (String::new(), None),
            (None, None) => bail!("{}:{number}: neither msg nor raw", path.display()),
        };
        entries.push(Entry {
            line: number,
            dir,
            text,
            value,
            tap: record.tap,
            dropped: record.dropped.is_some(),
        });
    }
    Ok(entries)
}

/// Writes `ccwire <message>` to stderr; the message starts with the subcommand (`tap: …`).
pub fn warn(message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "ccwire {message}");
}
