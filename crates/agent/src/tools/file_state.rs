//! [`FileState`]: what the model has seen of each file, as Claude Code keeps it. A file read
//! whole, or written by Edit or Write, is "in the model's context": an edit of it is told so,
//! and Write refuses one that changed on disk since. A file the model edited is watched: when
//! it changes on disk between two steps, the model is told before its next step, with the
//! lines that changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// How many files are remembered; past it, one is forgotten (a later write of it is then
/// treated as a write of an unread file, which asks).
const MAX_FILES: usize = 10_000;

/// The largest file whose content is kept to show what changed in it.
const MAX_KEPT: usize = 256 * 1024;

/// Lines shown before and after a change.
const CONTEXT: usize = 3;

/// A file as it was when the model last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Its modification time.
    pub modified: Option<SystemTime>,
    /// Its size.
    pub len: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` now, if it exists.
    pub fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Self {
            modified: meta.modified().ok(),
            len: meta.len(),
        })
    }
}

/// What the model saw of one file.
#[derive(Debug, Clone)]
struct Seen {
    stamp: Option<FileStamp>,
    /// Read whole, or written: its whole content is in the model's context.
    whole: bool,
    /// The content, for a file the model edited (to show what changed in it).
    content: Option<String>,
}

/// The files of a session.
#[derive(Debug, Default)]
pub struct FileState {
    seen: Mutex<HashMap<PathBuf, Seen>>,
}

impl FileState {
    /// The model read `path` (whole, or a range of it).
    pub fn read(&self, path: &Path, whole: bool) {
        let mut seen = lock(&self.seen);
        let edited = seen.get(path).and_then(|s| s.content.clone());
        let whole = whole || seen.get(path).is_some_and(|s| s.whole && edited.is_some());
        insert(
            &mut seen,
            path,
            Seen {
                stamp: FileStamp::of(path),
                whole,
                content: edited.and_then(|_| read_kept(path)),
            },
        );
    }

    /// The model wrote `path` (Edit, Write): it now knows it whole and watches it.
    pub fn wrote(&self, path: &Path, content: &str, whole: bool) {
        let mut seen = lock(&self.seen);
        let whole = whole || seen.get(path).is_some_and(|s| s.whole);
        insert(
            &mut seen,
            path,
            Seen {
                stamp: FileStamp::of(path),
                whole,
                content: (content.len() <= MAX_KEPT).then(|| content.to_owned()),
            },
        );
    }

    /// Whether the model has the file whole in its context.
    pub fn whole(&self, path: &Path) -> bool {
        lock(&self.seen).get(path).is_some_and(|s| s.whole)
    }

    /// Whether the model has seen the file at all.
    pub fn known(&self, path: &Path) -> bool {
        lock(&self.seen).contains_key(path)
    }

    /// Whether the file changed on disk since the model last saw it (`false` for a file it
    /// has not seen).
    pub fn changed(&self, path: &Path) -> bool {
        match lock(&self.seen).get(path) {
            Some(seen) => seen.stamp != FileStamp::of(path),
            None => false,
        }
    }

    /// The notes for files the model edited that changed on disk since: one text per file,
    /// with the changed lines numbered; the model's view of them is brought up to date.
    pub fn change_notes(&self) -> Vec<String> {
        let mut seen = lock(&self.seen);
        let mut notes = Vec::new();
        let mut paths: Vec<PathBuf> = seen
            .iter()
            .filter(|(path, s)| s.content.is_some() && s.stamp != FileStamp::of(path))
            .map(|(path, _)| path.clone())
            .collect();
        paths.sort();
        for path in paths {
            let Some(entry) = seen.get_mut(&path) else {
                continue;
            };
            let Some(now) = read_kept(&path) else {
                // Gone, or grown past what is kept: no longer watched.
                entry.content = None;
                entry.stamp = FileStamp::of(&path);
                continue;
            };
            let before = entry.content.clone().unwrap_or_default();
            entry.stamp = FileStamp::of(&path);
            entry.content = Some(now.clone());
            if before == now {
                continue;
            }
            let intro = format!(
                "Note: {} changed on disk since you last read it. That's usually deliberate, so \
                 take it as the current state rather than reverting it; if the change looks \
                 wrong, say so rather than undoing it yourself \u{2014} otherwise no need to call \
                 it out.",
                path.display()
            );
            let changed = changed_lines(&before, &now);
            notes.push(if changed.is_empty() {
                format!(
                    "{intro} The changes are not shown here; use Read if you need the current \
                     content."
                )
            } else {
                format!(
                    "{intro} Here are the relevant changes (shown with line numbers):\n{changed}"
                )
            });
        }
        notes
    }
}

fn insert(seen: &mut HashMap<PathBuf, Seen>, path: &Path, entry: Seen) {
    if seen.len() >= MAX_FILES && !seen.contains_key(path) {
        if let Some(any) = seen.keys().next().cloned() {
            seen.remove(&any);
        }
    }
    seen.insert(path.to_owned(), entry);
}

fn read_kept(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_KEPT as u64 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The lines of `after` that differ from `before`, with a few around them, numbered as Read
/// numbers them.
fn changed_lines(before: &str, after: &str) -> String {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let first = prefix.saturating_sub(CONTEXT);
    let last = (new.len() - suffix + CONTEXT).min(new.len());
    (first..last)
        .map(|i| format!("{}\t{}", i + 1, new[i]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_shown_with_the_lines_around_it() {
        assert_eq!(
            changed_lines("one\nTWO\nTHREE\n", "one\nTWO\nTHREE\nfour\n"),
            "1\tone\n2\tTWO\n3\tTHREE\n4\tfour"
        );
        let before: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let after = before.replace("10\n", "ten\n");
        assert_eq!(
            changed_lines(&before, &after),
            "7\t7\n8\t8\n9\t9\n10\tten\n11\t11\n12\t12\n13\t13"
        );
    }

    #[test]
    fn an_edited_file_changed_on_disk_is_noted_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one\n").unwrap();
        let state = FileState::default();
        state.wrote(&path, "one\n", true);
        assert!(state.change_notes().is_empty());
        std::fs::write(&path, "one\ntwo and more\n").unwrap();
        let notes = state.change_notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].ends_with("1\tone\n2\ttwo and more"),
            "{}",
            notes[0]
        );
        assert!(state.change_notes().is_empty());
    }
}
