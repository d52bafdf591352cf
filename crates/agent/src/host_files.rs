//! The host's own questions about the session's files: `read_file` (a file's contents, cut at
//! `max_bytes`, as text or base64) and `file_suggestions` (file names that match what the user
//! is typing). A read goes through what the model's `Read` would without asking anybody (the
//! rules and the mode); anything else, and a file that is not there, is refused as Claude Code
//! refuses it (`read denied: <path>`). Both are bounded: a read at [`MAX_READ`] bytes, the walk
//! at [`MAX_WALK`] entries and the answer at [`MAX_SUGGESTIONS`] names.

use std::io::Read;

use base64::Engine as _;
use serde_json::{json, Map, Value};
use twinwire::engine::HandlerError;
use twinwire_protocol::control::{
    FileSuggestionsResponse, ReadFileEncoding, ReadFileRequest, ReadFileResponse,
};

use crate::session::Session;

/// The most bytes one read returns.
const MAX_READ: u64 = 10 * 1024 * 1024;
/// The most entries the walk for suggestions looks at.
const MAX_WALK: usize = 20_000;
/// The most names one answer suggests.
const MAX_SUGGESTIONS: usize = 15;

/// `read_file`.
pub(crate) fn read_file(
    session: &Session,
    request: &ReadFileRequest,
) -> Result<ReadFileResponse, HandlerError> {
    let path = session.workspace.resolve(&request.path);
    let denied = || HandlerError::new(format!("read denied: {}", request.path));
    let allowed = {
        let state = session.state();
        state.permissions.read_allowed(&state.mode, &path)
    };
    if !allowed || !path.is_file() {
        return Err(denied());
    }
    let limit = request.max_bytes.unwrap_or(MAX_READ).min(MAX_READ);
    let mut bytes = Vec::new();
    let file = std::fs::File::open(&path).map_err(|_| denied())?;
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| HandlerError::new(format!("{}: {err}", request.path)))?;
    let truncated = bytes.len() as u64 > limit;
    bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let mut extra = Map::new();
    extra.insert("requested_path".into(), json!(request.path));
    let mut answer = ReadFileResponse {
        abs_path: path.display().to_string(),
        truncated: truncated.then_some(true),
        extra,
        ..ReadFileResponse::default()
    };
    if request.encoding == Some(ReadFileEncoding::Base64) {
        answer.contents = base64::engine::general_purpose::STANDARD.encode(&bytes);
        answer.encoding = Some(ReadFileEncoding::Base64);
    } else {
        let text = String::from_utf8_lossy(&bytes);
        answer.lossy = Some(matches!(text, std::borrow::Cow::Owned(_)));
        answer.contents = text.into_owned();
    }
    Ok(answer)
}

/// `file_suggestions`: the files under the working directory (as git would list them: ignored
/// and hidden ones left out) whose path holds `query`, without regard to case; those whose
/// name holds it first, then the shorter paths.
pub(crate) fn file_suggestions(session: &Session, query: &str) -> FileSuggestionsResponse {
    let root = session.config.cwd.clone();
    let wanted = query.to_lowercase();
    let mut found: Vec<(bool, String)> = Vec::new();
    for entry in ignore::WalkBuilder::new(&root)
        .build()
        .take(MAX_WALK)
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(&root) else {
            continue;
        };
        let shown = relative.to_string_lossy().replace('\\', "/");
        if !shown.to_lowercase().contains(&wanted) {
            continue;
        }
        let in_name = entry
            .file_name()
            .to_string_lossy()
            .to_lowercase()
            .contains(&wanted);
        found.push((in_name, shown));
    }
    found.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(&b.1))
    });
    FileSuggestionsResponse {
        suggestions: found
            .into_iter()
            .take(MAX_SUGGESTIONS)
            .map(|(_, path)| json!({ "path": path }))
            .collect::<Vec<Value>>(),
        extra: Map::new(),
    }
}
