//! What the page shows, read line by line from any of the inputs `twinwire view` takes: one row
//! per line (a recording line, a frame, a session entry, or a line that is none of these),
//! with its direction, time, kind, role, a one-line summary, what to show of it, and marks
//! (permission decisions, errors, malformed or unknown frames, odd lines). Rows are handed out
//! as they are read; what the reader keeps between lines is bounded (the totals, a capped
//! table of unanswered control requests, the last few message ids).

use std::borrow::Cow;

use serde_json::Value;
use twinwire_protocol::recording::RecordLine;

use super::lines::Line;
use super::model::{Reader, Row, SessionHeader, Totals};
use super::text::one_line;
use super::{argv, markdown};

/// Control requests waiting for their answer, at most; past it a request is shown without
/// its round trip.
const MAX_OPEN_REQUESTS: usize = 4096;

impl Reader {
    /// A reader at the start of an input.
    pub fn new() -> Self {
        Self {
            turn: 1,
            ..Self::default()
        }
    }

    /// The rows of one input line, handed to `emit` in order (most lines give one row; a
    /// recording's first line with a prompt in its argv gives two).
    pub fn read<E>(&mut self, number: u64, line: Line<'_>, emit: &mut E) -> std::io::Result<()>
    where
        E: FnMut(&Row<'_>) -> std::io::Result<()>,
    {
        let text = match line {
            Line::Text(text) => text,
            Line::NotUtf8 { text, offset } => {
                let why = format!("line {number} is not UTF-8 (a bad byte at {offset})");
                let row = self.odd(number, "not-utf8", &why, Cow::Owned(text));
                return self.emit(row, emit);
            }
            Line::TooLong { len, max } => {
                let why = format!(
                    "line {number} is {len} bytes long, over the limit of {max}: not shown"
                );
                let row = self.odd(number, "too-long", &why, Cow::Borrowed(""));
                return self.emit(row, emit);
            }
            Line::Endless { read } => {
                let why = format!(
                    "line {number} has no newline after {read} bytes: the rest of the input is not read"
                );
                let row = self.odd(number, "endless", &why, Cow::Borrowed(""));
                return self.emit(row, emit);
            }
        };
        if looks_blank(text) {
            let why = if text.is_empty() {
                format!("line {number} is empty")
            } else {
                let chars: Vec<String> = text
                    .chars()
                    .take(8)
                    .map(|c| format!("U+{:04X}", u32::from(c)))
                    .collect();
                let more = if text.chars().nth(8).is_some() {
                    " …"
                } else {
                    ""
                };
                format!("line {number} looks blank ({}{more})", chars.join(" "))
            };
            let mut row = self.odd(number, "blank", &why, Cow::Borrowed(text));
            row.marks.push("blank");
            return self.emit(row, emit);
        }
        if let Ok(record) = RecordLine::parse(text) {
            return self.record_line(number, &record, text, emit);
        }
        let row = match serde_json::from_str::<Value>(text) {
            Ok(value) if value["type"].is_string() => {
                if super::entries::is_entry(&value) {
                    self.entry(number, &value, text)
                } else {
                    let dir = direction_of(&value);
                    self.frame(number, dir, None, &value, text)
                }
            }
            Ok(_) => self.odd(
                number,
                "not-a-frame",
                &format!("line {number} is JSON but no frame (no `type`)"),
                Cow::Borrowed(text),
            ),
            Err(err) => {
                let mut row = self.odd(
                    number,
                    "not-json",
                    &format!("line {number} is not JSON ({err}): {}", one_line(text, 160)),
                    Cow::Borrowed(text),
                );
                row.marks.push("malformed");
                row
            }
        };
        self.emit(row, emit)
    }

    /// A last row, when reading stopped on an error.
    pub fn stopped<E>(&mut self, why: &str, emit: &mut E) -> std::io::Result<()>
    where
        E: FnMut(&Row<'_>) -> std::io::Result<()>,
    {
        let row = self.odd(0, "read-error", why, Cow::Borrowed(""));
        self.emit(row, emit)
    }

    /// A saved session's header (`known`: the store's summary of it).
    pub fn session_header(&self, known: Option<&twinwire::sessions::SessionInfo>) -> SessionHeader {
        self.session.header(known)
    }

    /// What the page says above the rows.
    pub fn totals(&self) -> Totals {
        let mut totals = self.totals.clone();
        totals.turns = self.turn;
        self.session.complete(&mut totals);
        totals
    }

    fn emit<E>(&mut self, row: Row<'_>, emit: &mut E) -> std::io::Result<()>
    where
        E: FnMut(&Row<'_>) -> std::io::Result<()>,
    {
        let totals = &mut self.totals;
        totals.rows += 1;
        for mark in &row.marks {
            match *mark {
                "allow" => totals.allowed += 1,
                "deny" => totals.denied += 1,
                "malformed" => totals.malformed += 1,
                "unknown" => totals.unknown += 1,
                "odd" => totals.odd += 1,
                _ => {}
            }
        }
        emit(&row)
    }

    /// A row for a line that is no frame.
    fn odd<'a>(&self, line: u64, kind: &str, why: &str, raw: Cow<'a, str>) -> Row<'a> {
        Row {
            line,
            dir: "?",
            kind: kind.to_owned(),
            role: "odd",
            turn: self.turn,
            summary: why.to_owned(),
            raw,
            marks: vec!["odd"],
            ..Row::default()
        }
    }

    /// A line of a recording: a frame either way, a line that was not JSON, one the recorder
    /// dropped, the first line (the CLI and its arguments), or a direction not known.
    fn record_line<E>(
        &mut self,
        number: u64,
        record: &RecordLine<'_>,
        text: &str,
        emit: &mut E,
    ) -> std::io::Result<()>
    where
        E: FnMut(&Row<'_>) -> std::io::Result<()>,
    {
        let t = Some(record.t);
        if record.dir == "meta" {
            return self.meta_line(number, record, text, emit);
        }
        let Some(direction) = record.direction() else {
            let mut row = match record.msg {
                Some(msg) => {
                    let value: Value = serde_json::from_str(msg.get()).unwrap_or(Value::Null);
                    self.describe_only(number, "?", t, &value, msg.get())
                }
                None => self.odd(number, "record", "", Cow::Borrowed(text)),
            };
            row.role = "odd";
            row.marks.push("odd");
            row.summary = format!(
                "direction `{}` not known: {}",
                one_line(&record.dir, 40),
                if row.summary.is_empty() {
                    one_line(text, 160)
                } else {
                    row.summary
                }
            );
            return self.emit(row, emit);
        };
        let dir = direction.as_str();
        let row = match (record.msg, &record.raw, record.dropped) {
            (Some(msg), _, _) => {
                let value: Value = serde_json::from_str(msg.get()).unwrap_or(Value::Null);
                self.frame(number, dir, t, &value, msg.get())
            }
            (None, Some(raw), _) => {
                let mut row = self.odd(
                    number,
                    "raw",
                    &format!("not JSON: {}", one_line(raw, 200)),
                    Cow::Owned(raw.clone()),
                );
                row.dir = dir;
                row.t = t;
                row.marks.push("malformed");
                row
            }
            (None, None, Some(dropped)) => {
                let reason: Value = serde_json::from_str(dropped.get()).unwrap_or(Value::Null);
                let reason = reason
                    .as_str()
                    .map_or_else(|| dropped.get().to_owned(), str::to_owned);
                let mut row = self.odd(
                    number,
                    "dropped",
                    &format!("dropped by the recorder: {}", one_line(&reason, 200)),
                    Cow::Borrowed(text),
                );
                row.dir = dir;
                row.t = t;
                row
            }
            (None, None, None) => {
                let mut row = self.odd(
                    number,
                    "record",
                    "a recording line without a frame",
                    Cow::Borrowed(text),
                );
                row.dir = dir;
                row.t = t;
                row
            }
        };
        self.emit(row, emit)
    }

    /// A recording's first line: the CLI and its arguments; a prompt given as an argument
    /// (`claude -p PROMPT`) is not in the recorded input, so it is shown as the first prompt.
    fn meta_line<E>(
        &mut self,
        number: u64,
        record: &RecordLine<'_>,
        text: &str,
        emit: &mut E,
    ) -> std::io::Result<()>
    where
        E: FnMut(&Row<'_>) -> std::io::Result<()>,
    {
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let args: Vec<String> = value["argv"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| a.as_str().unwrap_or_default().to_owned())
            .collect();
        let env_count = value["env"].as_object().map_or(0, serde_json::Map::len);
        let cli = value["cli"].as_str().unwrap_or("the CLI");
        let mut summary = format!(
            "{} {} · {env_count} environment variables",
            one_line(cli, 80),
            one_line(&args.join(" "), 200)
        );
        let mut row = Row {
            line: number,
            dir: "meta",
            t: Some(record.t),
            kind: "meta".to_owned(),
            role: "meta",
            turn: self.turn,
            raw: Cow::Borrowed(text),
            ..Row::default()
        };
        if let Some(msg) = record.msg {
            // A frame on the first line is shown with it, marked.
            let frame: Value = serde_json::from_str(msg.get()).unwrap_or(Value::Null);
            summary = format!("{summary} · with a frame: {}", one_line(msg.get(), 160));
            row.kind = format!("meta+{}", kind_of(&frame));
            row.marks.push("odd");
        }
        row.summary = summary;
        self.emit(row, emit)?;
        let Some(prompt) = argv::prompt(&args) else {
            return Ok(());
        };
        self.start_prompt();
        let row = Row {
            line: number,
            dir: "in",
            t: Some(record.t),
            kind: "user".to_owned(),
            role: "prompt",
            turn: self.turn,
            summary: one_line(prompt, 200),
            html: markdown::render(prompt),
            raw: Cow::Owned(prompt.to_owned()),
            marks: vec!["argv"],
            ..Row::default()
        };
        self.emit(row, emit)
    }

    /// A frame that starts a turn (a prompt) or follows one.
    pub(super) fn start_prompt(&mut self) {
        if self.prompted || self.ended {
            self.turn += 1;
            self.ended = false;
            self.prompted = false;
        }
        self.prompted = true;
        self.prompted_ever = true;
    }

    /// A frame of the wire, in its direction, counted in its turn.
    fn frame<'a>(
        &mut self,
        number: u64,
        dir: &'static str,
        t: Option<f64>,
        value: &Value,
        text: &'a str,
    ) -> Row<'a> {
        self.totals.frames += 1;
        let kind = kind_of(value);
        // A turn starts with the host's prompt, or (in a capture of the CLI's output alone)
        // with whatever follows a result.
        let is_prompt = kind == "user" && dir != "out" && !super::frames::is_tool_result(value);
        if is_prompt {
            self.start_prompt();
        } else if self.ended && !self.prompted_ever && !kind.starts_with("control") {
            self.turn += 1;
            self.ended = false;
        }
        if kind.starts_with("result") {
            self.ended = true;
        }
        self.describe_only(number, dir, t, value, text)
    }

    /// A frame's row, without counting it in a turn.
    fn describe_only<'a>(
        &mut self,
        number: u64,
        dir: &'static str,
        t: Option<f64>,
        value: &Value,
        text: &'a str,
    ) -> Row<'a> {
        let mut row = Row {
            line: number,
            dir,
            t,
            kind: kind_of(value),
            role: "frame",
            turn: self.turn,
            raw: Cow::Borrowed(text),
            ..Row::default()
        };
        super::frames::mark_typing(dir, text, &mut row);
        self.describe_frame(value, &mut row);
        row
    }

    /// A saved session's entry.
    fn entry<'a>(&mut self, number: u64, value: &Value, text: &'a str) -> Row<'a> {
        self.totals.entries += 1;
        let mut row = Row {
            line: number,
            dir: "entry",
            kind: kind_of(value),
            raw: Cow::Borrowed(text),
            ..Row::default()
        };
        self.describe_entry(value, &mut row);
        row
    }

    /// Remembers a control request until its answer (at most [`MAX_OPEN_REQUESTS`]).
    pub(super) fn open_request(&mut self, id: String, t: Option<f64>, subtype: String) {
        if self.open.len() < MAX_OPEN_REQUESTS || self.open.contains_key(&id) {
            self.open.insert(id, (t, subtype));
        }
    }

    /// The request a response answers: when it was sent, and its subtype.
    pub(super) fn close_request(&mut self, id: &str) -> (Option<f64>, String) {
        self.open.remove(id).unwrap_or((None, String::new()))
    }
}

/// Whether a line shows nothing: white space, control characters and invisible marks only.
fn looks_blank(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}'
            )
    })
}

/// The direction of a frame in a plain capture (the CLI's stdout): out, but for the host's own
/// kinds, which are shown as sent.
fn direction_of(value: &Value) -> &'static str {
    match value["type"].as_str() {
        Some("user")
            if value.get("parent_tool_use_id").is_some() && value.get("uuid").is_none() =>
        {
            "in"
        }
        _ => "out",
    }
}

/// `type`, or `type/subtype` for the kinds that have one.
pub(super) fn kind_of(value: &Value) -> String {
    let kind = value["type"].as_str().unwrap_or("?");
    let subtype = match kind {
        "system" | "result" => value["subtype"].as_str(),
        "control_request" => value["request"]["subtype"].as_str(),
        "control_response" => value["response"]["subtype"].as_str(),
        _ => None,
    };
    let kind = match subtype {
        Some(subtype) => format!("{kind}/{subtype}"),
        None => kind.to_owned(),
    };
    super::text::cut(&kind, 80)
}
