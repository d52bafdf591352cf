//! File checkpoints and `rewind_files`, as Claude Code keeps them for an SDK host that turns
//! them on (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`): each prompt is a checkpoint (its
//! `uuid`); before a file tool (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`) changes a file
//! the first time after a checkpoint, the file as it was (or that it did not exist) is kept.
//! Rewinding to a prompt puts every file changed since back as it was at that prompt (a file
//! that did not exist is removed); a dry run only says which files would change and by how
//! many lines. Bash's changes are not tracked, as in Claude Code. A path that has become a
//! link is left alone (`skippedLinks`): a rewind never writes through a link.
//!
//! Bounded: a file larger than [`MAX_FILE`] is not kept (it cannot be rewound), and once
//! [`MAX_TOTAL`] bytes are kept nothing more is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use twinwire_protocol::control::RewindFilesResponse;

/// The largest file kept.
const MAX_FILE: u64 = 16 * 1024 * 1024;
/// The most bytes kept in all.
const MAX_TOTAL: usize = 256 * 1024 * 1024;

/// The tools whose changes are kept, and the field naming their file.
const FILE_TOOLS: &[(&str, &str)] = &[
    ("Write", "file_path"),
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// A file as it was at a checkpoint: its bytes, or `None` when it did not exist.
type Kept = Option<Vec<u8>>;

#[derive(Default)]
struct Store {
    /// The checkpoints, oldest first.
    prompts: Vec<String>,
    /// Per file: (checkpoint index, the file as it was then), oldest first.
    files: BTreeMap<PathBuf, Vec<(usize, Kept)>>,
    bytes: usize,
}

/// A session's checkpoints.
pub(crate) struct Checkpoints {
    enabled: bool,
    store: Mutex<Store>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Checkpoints {
    /// Checkpoints that keep files when `enabled`.
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            store: Mutex::new(Store::default()),
        }
    }

    /// Whether the host turned them on (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING` set to
    /// `1` or `true`).
    pub(crate) fn enabled_by(value: Option<&str>) -> bool {
        matches!(
            value.map(|v| v.trim().to_ascii_lowercase()).as_deref(),
            Some("1" | "true" | "yes" | "on")
        )
    }

    /// A prompt: the next changes belong to it.
    pub(crate) fn prompt(&self, uuid: &str) {
        if self.enabled {
            lock(&self.store).prompts.push(uuid.to_owned());
        }
    }

    /// A file tool is about to run: keeps the file it names as it is now, the first time
    /// since the last checkpoint. `resolve` turns the tool's path into an absolute one.
    pub(crate) fn before_tool(
        &self,
        tool: &str,
        input: &serde_json::Value,
        resolve: impl Fn(&str) -> PathBuf,
    ) {
        if !self.enabled {
            return;
        }
        let Some((_, field)) = FILE_TOOLS.iter().find(|(name, _)| *name == tool) else {
            return;
        };
        let Some(path) = input[*field].as_str() else {
            return;
        };
        self.keep(&resolve(path));
    }

    fn keep(&self, path: &Path) {
        let mut store = lock(&self.store);
        let Some(at) = store.prompts.len().checked_sub(1) else {
            return;
        };
        let history = store.files.get(path);
        if history.is_some_and(|h| h.last().is_some_and(|(index, _)| *index == at)) {
            return;
        }
        let kept = match std::fs::symlink_metadata(path) {
            Err(_) => None,
            Ok(meta) if meta.is_file() && meta.len() <= MAX_FILE => match std::fs::read(path) {
                Ok(bytes) => Some(bytes),
                Err(err) => {
                    tracing::warn!(path = %path.display(), %err, "a file that cannot be kept");
                    return;
                }
            },
            Ok(_) => {
                tracing::warn!(path = %path.display(), "a file too large or not plain is not kept");
                return;
            }
        };
        let size = kept.as_ref().map_or(0, Vec::len);
        if store.bytes + size > MAX_TOTAL {
            tracing::warn!("file checkpoints are full: no more files are kept");
            return;
        }
        store.bytes += size;
        store
            .files
            .entry(path.to_owned())
            .or_default()
            .push((at, kept));
    }

    /// `rewind_files`: puts the files changed since the prompt `uuid` back as they were then
    /// (or, with `dry_run`, only says what that would change).
    pub(crate) fn rewind(&self, uuid: &str, dry_run: bool) -> RewindFilesResponse {
        if !self.enabled {
            return refused("File checkpointing is not enabled for this session.");
        }
        let store = lock(&self.store);
        let Some(at) = store.prompts.iter().position(|p| p == uuid) else {
            return refused(&format!("No file checkpoint found for message {uuid}."));
        };
        let mut answer = RewindFilesResponse {
            can_rewind: true,
            ..RewindFilesResponse::default()
        };
        let (mut changed, mut insertions, mut deletions, mut links) = (Vec::new(), 0, 0, 0);
        for (path, history) in &store.files {
            let Some((_, then)) = history.iter().find(|(index, _)| *index >= at) else {
                continue;
            };
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                links += 1;
                continue;
            }
            let now = std::fs::read(path).ok();
            if &now == then {
                continue;
            }
            let (added, removed) = line_changes(then.as_deref(), now.as_deref());
            insertions += added;
            deletions += removed;
            changed.push(path.display().to_string());
            if !dry_run {
                if let Err(err) = restore(path, then.as_deref()) {
                    answer.can_rewind = false;
                    answer.error = Some(format!("Could not restore {}: {err}", path.display()));
                }
            }
        }
        if dry_run {
            answer.files_changed = Some(changed);
            answer.insertions = Some(insertions);
            answer.deletions = Some(deletions);
        } else {
            answer.skipped_links = Some(links);
        }
        answer
    }
}

fn refused(why: &str) -> RewindFilesResponse {
    RewindFilesResponse {
        can_rewind: false,
        error: Some(why.to_owned()),
        ..RewindFilesResponse::default()
    }
}

/// Puts a file back: its old bytes written through a file renamed into place, or removed.
fn restore(path: &Path, then: Option<&[u8]>) -> std::io::Result<()> {
    match then {
        None => match std::fs::remove_file(path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        },
        Some(bytes) => {
            let dir = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let mut file = tempfile::NamedTempFile::new_in(dir)?;
            std::io::Write::write_all(&mut file, bytes)?;
            file.persist(path).map_err(|err| err.error)?;
            Ok(())
        }
    }
}

/// How many lines rewinding from `now` to `then` adds and removes: lines of `then` missing
/// from `now` are added back, lines of `now` missing from `then` are removed (counted as
/// multisets, which matches a line diff for the changes files tools make).
fn line_changes(then: Option<&[u8]>, now: Option<&[u8]>) -> (u64, u64) {
    let lines = |bytes: Option<&[u8]>| -> BTreeMap<Vec<u8>, i64> {
        let mut counts = BTreeMap::new();
        // A file that is not there, or empty, has no lines (not one empty one).
        let Some(bytes) = bytes.filter(|b| !b.is_empty()) else {
            return counts;
        };
        for line in bytes.split(|b| *b == b'\n') {
            *counts.entry(line.to_vec()).or_insert(0) += 1;
        }
        if bytes.ends_with(b"\n") {
            if let Some(n) = counts.get_mut(&Vec::new()) {
                *n -= 1;
            }
        }
        counts.retain(|_, n| *n > 0);
        counts
    };
    let (then, now) = (lines(then), lines(now));
    let missing = |from: &BTreeMap<Vec<u8>, i64>, to: &BTreeMap<Vec<u8>, i64>| -> u64 {
        from.iter()
            .map(|(line, n)| (n - to.get(line).copied().unwrap_or(0)).max(0))
            .sum::<i64>()
            .try_into()
            .unwrap_or(0)
    };
    (missing(&then, &now), missing(&now, &then))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewind_puts_back_what_changed_since_the_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let draft = dir.path().join("draft.txt");
        let fresh = dir.path().join("fresh.txt");
        std::fs::write(&draft, "first version\n").unwrap();
        let points = Checkpoints::new(true);
        let resolve = |p: &str| PathBuf::from(p);
        points.prompt("p1");
        let write = |path: &Path| serde_json::json!({"file_path": path.display().to_string()});
        points.before_tool("Write", &write(&draft), resolve);
        std::fs::write(&draft, "second version\n").unwrap();
        points.before_tool("Write", &write(&fresh), resolve);
        std::fs::write(&fresh, "new\n").unwrap();
        points.prompt("p2");
        points.before_tool("Edit", &write(&draft), resolve);
        std::fs::write(&draft, "third version\n").unwrap();

        let dry = points.rewind("p1", true);
        assert!(dry.can_rewind, "{dry:?}");
        assert_eq!(dry.files_changed.as_ref().map(Vec::len), Some(2), "{dry:?}");
        assert_eq!((dry.insertions, dry.deletions), (Some(1), Some(2)));
        assert_eq!(std::fs::read_to_string(&draft).unwrap(), "third version\n");

        let to_p2 = points.rewind("p2", false);
        assert!(to_p2.can_rewind);
        assert_eq!(std::fs::read_to_string(&draft).unwrap(), "second version\n");
        assert!(fresh.exists());
        points.rewind("p1", false);
        assert_eq!(std::fs::read_to_string(&draft).unwrap(), "first version\n");
        assert!(!fresh.exists(), "a file that did not exist is removed");
        assert!(!points.rewind("nope", true).can_rewind);
        assert!(!Checkpoints::new(false).rewind("p1", true).can_rewind);
    }

    #[test]
    fn a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let note = dir.path().join("note.txt");
        std::fs::write(&note, "a\n").unwrap();
        let points = Checkpoints::new(true);
        points.prompt("p1");
        points.before_tool(
            "Write",
            &serde_json::json!({"file_path": note.display().to_string()}),
            |path: &str| PathBuf::from(path),
        );
        std::fs::remove_file(&note).unwrap();
        let elsewhere = dir.path().join("elsewhere.txt");
        std::fs::write(&elsewhere, "secret\n").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&elsewhere, &note).unwrap();
            let done = points.rewind("p1", false);
            assert_eq!(done.skipped_links, Some(1));
            assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "secret\n");
        }
    }
}
