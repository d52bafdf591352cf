//! Why a line did not become a typed frame.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Decoded;

/// A line that could not be read as a frame. The stream it came from is still usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The line is not JSON at all, e.g. `[SandboxDebug] …` written to stdout.
    #[error("line is not JSON ({message}): {preview}")]
    NotJson {
        /// The first characters of the line.
        preview: String,
        /// What the JSON parser said.
        message: String,
    },
    /// The line is JSON, but a frame of a known kind is missing a field or has one of the
    /// wrong type.
    #[error("`{kind}` frame is malformed at `{path}`: {message}")]
    Malformed {
        /// The frame's kind as `type` or `type/subtype` (or `?` if it has no `type`).
        kind: String,
        /// Where in the frame the fault is, e.g. `message.content[0].id` (`.` for the top).
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl DecodeError {
    /// The frame kind named by the error, when the line was JSON.
    pub fn kind(&self) -> Option<&str> {
        match self {
            Self::Malformed { kind, .. } => Some(kind),
            Self::NotJson { .. } => None,
        }
    }
}

/// Parses one line as `T` (any wire type), liberally: see [`crate::lenient`]. The fast path
/// is a plain strict `serde_json` parse; only when it fails is the line read again leniently,
/// with repairs. Fails only when the line is not JSON, or when the root of a value that is not
/// a union cannot be read even after repairs.
pub fn decode<T: DeserializeOwned>(line: &str) -> Result<T, DecodeError> {
    decode_with_repairs(line).map(|decoded| decoded.value)
}

/// Like [`decode`], with the list of repairs the liberal reader made (empty on the fast path).
pub fn decode_with_repairs<T: DeserializeOwned>(line: &str) -> Result<Decoded<T>, DecodeError> {
    match serde_json::from_str(line) {
        Ok(value) => Ok(Decoded {
            value,
            repairs: Vec::new(),
        }),
        Err(err) => read_leniently(line, err, false),
    }
}

/// Like [`decode_with_repairs`] for a whole frame: the line must be a JSON object.
pub(crate) fn decode_frame<T: DeserializeOwned>(line: &str) -> Result<Decoded<T>, DecodeError> {
    match serde_json::from_str(line) {
        Ok(value) => Ok(Decoded {
            value,
            repairs: Vec::new(),
        }),
        Err(err) => read_leniently(line, err, true),
    }
}

/// Reads a JSON value as `T` liberally (see [`decode`]).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<Decoded<T>, DecodeError> {
    match T::deserialize(&value) {
        Ok(typed) => Ok(Decoded {
            value: typed,
            repairs: Vec::new(),
        }),
        Err(_) => {
            let kind = kind_of(&value);
            crate::lenient::read_value(value).map_err(|failure| DecodeError::Malformed {
                kind,
                path: failure.path,
                message: failure.message,
            })
        }
    }
}

#[cold]
fn read_leniently<T: DeserializeOwned>(
    line: &str,
    err: serde_json::Error,
    frame: bool,
) -> Result<Decoded<T>, DecodeError> {
    use serde_json::error::Category;
    let not_json = |message: String| DecodeError::NotJson {
        preview: preview(line),
        message,
    };
    if matches!(
        err.classify(),
        Category::Syntax | Category::Eof | Category::Io
    ) {
        return Err(not_json(err.to_string()));
    }
    let value: Value = serde_json::from_str(line).map_err(|err| not_json(err.to_string()))?;
    if frame && !value.is_object() {
        return Err(not_json("a frame must be a JSON object".to_owned()));
    }
    let kind = kind_of(&value);
    crate::lenient::read_value(value).map_err(|failure| DecodeError::Malformed {
        kind,
        path: failure.path,
        message: failure.message,
    })
}

fn preview(line: &str) -> String {
    const MAX: usize = 80;
    match line.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// The `type`/`subtype` of a JSON object, looking inside control envelopes (`?` for a missing
/// part).
pub(crate) fn kind_of(value: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let kind = text(value.get("type")).unwrap_or_else(|| "?".to_owned());
    let subtype = text(value.get("subtype"))
        .or_else(|| text(value.get("request").and_then(|r| r.get("subtype"))))
        .or_else(|| text(value.get("response").and_then(|r| r.get("subtype"))));
    match subtype {
        Some(subtype) => format!("{kind}/{subtype}"),
        None => kind,
    }
}
