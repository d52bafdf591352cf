//! The project's recorded sessions: `tests/fixtures/transcripts/<cli version>/*.jsonl` at the
//! root of the repository, written by `twinwire tap --record` against the real CLIs offline
//! (`cargo xtask record`). One JSON object per line: a `meta` line, then
//! `{"dir":"in"|"out","t":…,"msg":{…}}` per frame (see `twinwire tap`).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The directory of the recorded sessions. Panics, saying where it looked, when it is missing:
/// a suite without its inputs must fail, not pass empty.
pub fn transcripts_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts");
    assert!(
        dir.is_dir(),
        "the recorded sessions are missing: expected {} (`cargo xtask record` writes them)",
        dir.display()
    );
    dir
}

/// One frame of a recording.
#[derive(Debug, Clone)]
pub struct RecordedFrame {
    /// `file:line`, for messages.
    pub at: String,
    /// `true` for frames the host wrote (the CLI's stdin), `false` for the CLI's stdout.
    pub from_host: bool,
    /// The frame.
    pub frame: Value,
}

/// Every recording file under `dir` (sorted; `*.api.jsonl` request logs left out).
pub fn recording_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    files
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            collect(&path, files);
        } else if name.ends_with(".jsonl") && !name.ends_with(".api.jsonl") {
            files.push(path);
        }
    }
}

/// The frames of one recording, in order (meta lines and lines that were not JSON left out).
pub fn frames_of(path: &Path) -> Vec<RecordedFrame> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("reading {}: {err}", path.display()));
    let name = path.display().to_string();
    text.lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let record: Value = serde_json::from_str(line).ok()?;
            let from_host = match record.get("dir")?.as_str()? {
                "in" => true,
                "out" => false,
                _ => return None,
            };
            Some(RecordedFrame {
                at: format!("{name}:{}", index + 1),
                from_host,
                frame: record.get("msg")?.clone(),
            })
        })
        .collect()
}

/// Every frame of every recording under `dir`.
pub fn all_frames(dir: &Path) -> Vec<RecordedFrame> {
    recording_files(dir)
        .iter()
        .flat_map(|file| frames_of(file))
        .collect()
}
