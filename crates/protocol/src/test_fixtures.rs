//! Test helper: the project's recordings (`tests/fixtures/transcripts`, written by `cargo xtask
//! record`), read once and shared by every schema module's tests.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

/// One recorded frame.
pub(crate) struct Frame {
    /// `claude-<version>/<file>`.
    pub(crate) file: String,
    /// Line number in the file, from 1.
    pub(crate) line: usize,
    /// `in` (host to CLI) or `out`.
    pub(crate) dir: String,
    /// The frame itself (the `msg` of the recorded line).
    pub(crate) msg: Value,
}

impl Frame {
    /// `file:line`, for failure messages.
    pub(crate) fn origin(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The recordings directory.
pub(crate) fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts")
}

/// Every transcript (`*.jsonl`, not the `*.api.jsonl` HTTP logs), sorted.
pub(crate) fn files() -> Vec<PathBuf> {
    let root = dir();
    let mut files = Vec::new();
    let versions =
        std::fs::read_dir(&root).unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()));
    for version in versions {
        let version = version.expect("dir entry").path();
        if !version.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&version).expect("version dir") {
            let path = file.expect("dir entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".jsonl") && !name.ends_with(".api.jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `claude-<version>/<file>` of a transcript path.
pub(crate) fn short_name(path: &Path) -> String {
    let part = |p: Option<&std::ffi::OsStr>| p.map(|n| n.to_string_lossy().into_owned());
    format!(
        "{}/{}",
        part(path.parent().and_then(Path::file_name)).unwrap_or_default(),
        part(path.file_name()).unwrap_or_default()
    )
}

/// Every recorded frame, in file order (lines without `msg`, such as the meta line, skipped).
pub(crate) fn all() -> &'static [Frame] {
    static FRAMES: OnceLock<Vec<Frame>> = OnceLock::new();
    FRAMES.get_or_init(|| {
        let mut frames = Vec::new();
        for path in files() {
            let file = short_name(&path);
            let text = std::fs::read_to_string(&path).expect("read transcript");
            for (index, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let mut record: Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{file}:{}: {e}", index + 1));
                let Some(msg) = record.get_mut("msg").map(Value::take) else {
                    continue;
                };
                frames.push(Frame {
                    file: file.clone(),
                    line: index + 1,
                    dir: record["dir"].as_str().unwrap_or_default().to_owned(),
                    msg,
                });
            }
        }
        assert!(!frames.is_empty(), "no frames under {}", dir().display());
        frames
    })
}

/// The frames of one transcript (`claude-<version>/<file>`), in order.
pub(crate) fn of_file(file: &str) -> impl Iterator<Item = &'static Frame> + '_ {
    all().iter().filter(move |f| f.file == file)
}

/// Every recorded frame whose `type` is `kind`.
pub(crate) fn of_type(kind: &str) -> impl Iterator<Item = &'static Frame> + '_ {
    all()
        .iter()
        .filter(move |f| f.msg.get("type").and_then(Value::as_str) == Some(kind))
}

/// The `request` objects of control requests with this subtype, with their file.
pub(crate) fn control_requests(subtype: &str) -> Vec<(String, Value)> {
    of_type("control_request")
        .filter(|f| f.msg["request"]["subtype"] == subtype)
        .map(|f| (f.file.clone(), f.msg["request"].clone()))
        .collect()
}

/// The success payloads (`response.response`) of control responses written in direction `dir`
/// that answer a control request with this subtype in the same file.
pub(crate) fn control_responses(subtype: &str, dir: &str) -> Vec<(String, Value)> {
    let frames = all();
    let mut out = Vec::new();
    for (i, frame) in frames.iter().enumerate() {
        if frame.msg["type"] != "control_response" || frame.dir != dir {
            continue;
        }
        let id = &frame.msg["response"]["request_id"];
        let answers = frames[..i].iter().any(|r| {
            r.file == frame.file
                && r.msg["type"] == "control_request"
                && r.msg["request_id"] == *id
                && r.msg["request"]["subtype"] == subtype
        });
        if answers && frame.msg["response"]["subtype"] == "success" {
            out.push((
                frame.file.clone(),
                frame.msg["response"]["response"].clone(),
            ));
        }
    }
    out
}

/// Every stdout frame (`dir: out`) whose `type` passes `keep`, as (`file:line`, `type`, the
/// frame without its `type`): the body a message union's variant reads.
pub(crate) fn stdout_bodies(
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, String, serde_json::Map<String, Value>)> {
    all()
        .iter()
        .filter(|f| f.dir == "out")
        .filter_map(|f| {
            let Value::Object(mut body) = f.msg.clone() else {
                return None;
            };
            let Some(Value::String(kind)) = body.remove("type") else {
                return None;
            };
            keep(&kind).then(|| (f.origin(), kind, body))
        })
        .collect()
}
