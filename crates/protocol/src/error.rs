//! Why a line did not become a typed frame.

use serde::de::DeserializeOwned;
use serde::Deserialize;

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

/// Parses one line as `T` (any wire type). The fast path is a plain `serde_json` parse; only when it fails is
/// the line read again to find the kind and the path of the fault.
pub fn decode<T: DeserializeOwned>(line: &str) -> Result<T, DecodeError> {
    match serde_json::from_str(line) {
        Ok(value) => Ok(value),
        Err(err) => Err(explain::<T>(line, err)),
    }
}

#[cold]
fn explain<T: DeserializeOwned>(line: &str, err: serde_json::Error) -> DecodeError {
    use serde_json::error::Category;
    if matches!(
        err.classify(),
        Category::Syntax | Category::Eof | Category::Io
    ) {
        return DecodeError::NotJson {
            preview: preview(line),
            message: err.to_string(),
        };
    }
    let kind = peek_kind(line);
    let mut de = serde_json::Deserializer::from_str(line);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Err(tracked) => DecodeError::Malformed {
            kind,
            path: tracked.path().to_string(),
            message: tracked.into_inner().to_string(),
        },
        // Cannot happen (the same input failed above); keep the first error.
        Ok(_) => DecodeError::Malformed {
            kind,
            path: ".".to_owned(),
            message: err.to_string(),
        },
    }
}

fn preview(line: &str) -> String {
    const MAX: usize = 80;
    match line.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// The `type`/`subtype` of a JSON object, looking inside control envelopes.
fn peek_kind(line: &str) -> String {
    #[derive(Deserialize)]
    struct Inner {
        subtype: Option<String>,
    }
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "type")]
        kind: Option<String>,
        subtype: Option<String>,
        request: Option<Inner>,
        response: Option<Inner>,
    }
    let Ok(peek) = serde_json::from_str::<Peek>(line) else {
        return "?".to_owned();
    };
    let kind = peek.kind.unwrap_or_else(|| "?".to_owned());
    let subtype = peek
        .subtype
        .or(peek.request.and_then(|r| r.subtype))
        .or(peek.response.and_then(|r| r.subtype));
    match subtype {
        Some(subtype) => format!("{kind}/{subtype}"),
        None => kind,
    }
}
