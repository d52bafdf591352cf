//! Where Claude Code keeps sessions: `<config>/projects/<sanitized cwd>/<session id>.jsonl`, with
//! `<config>` = `$CLAUDE_CONFIG_DIR` or `~/.claude`, and each session's side files (subagent
//! transcripts, the archive mark) in `<session id>/` beside it.

use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

use super::config_dir::{in_project, ConfigDir, PROJECTS};
use super::index::{Limits, DEFAULT_MAX_ENTRIES};
use super::lines::DEFAULT_MAX_LINE_BYTES;
use super::SessionError;

/// Longest directory name the CLI writes before it cuts and adds a hash.
const MAX_SANITIZED_LENGTH: usize = 200;

/// Where sessions are read and written: the CLI's config directory.
///
/// Every file under it is opened beneath it: a symbolic link that leads out of it (a
/// transcript, a project directory, or anything on the way) is refused
/// ([`SessionError::Outside`]); one that stays inside is followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedSessions {
    config_dir: PathBuf,
    limits: Limits,
}

impl SavedSessions {
    /// The store the CLI of this environment uses: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
    pub fn from_env() -> Self {
        let config_dir = match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => home_dir().join(".claude"),
        };
        Self::at(config_dir)
    }

    /// The store under a config directory (what `CLAUDE_CONFIG_DIR` names).
    pub fn at(config_dir: impl Into<PathBuf>) -> Self {
        let config_dir = config_dir.into();
        let nfc: String = config_dir.to_string_lossy().nfc().collect();
        Self {
            config_dir: PathBuf::from(nfc),
            limits: Limits {
                max_line_bytes: DEFAULT_MAX_LINE_BYTES,
                max_entries: DEFAULT_MAX_ENTRIES,
            },
        }
    }

    /// The longest line of a transcript that is read (default
    /// [`DEFAULT_MAX_LINE_BYTES`](super::DEFAULT_MAX_LINE_BYTES), 64 MiB): a longer one is
    /// skipped as it is read and reported ([`Skipped::TooLong`](super::Skipped::TooLong)).
    #[must_use]
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_line_bytes = bytes;
        self
    }

    /// The most entries read from one transcript (default
    /// [`DEFAULT_MAX_ENTRIES`](super::DEFAULT_MAX_ENTRIES), 1,000,000, which take about
    /// 300 MiB to read): a transcript with more is refused ([`SessionError::TooLarge`]).
    #[must_use]
    pub fn max_entries(mut self, entries: usize) -> Self {
        self.limits.max_entries = entries;
        self
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// The config directory.
    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    /// `<config>/projects`.
    pub fn projects_dir(&self) -> PathBuf {
        self.config_dir.join(PROJECTS)
    }

    /// The config directory, opened.
    pub(crate) fn open(&self) -> Result<ConfigDir, SessionError> {
        Ok(ConfigDir::open(&self.config_dir)?)
    }
}

/// Where a session's transcript is.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    /// Its project directory's name.
    pub(crate) project: String,
    /// `projects/<project>/<session>.jsonl`.
    pub(crate) path: PathBuf,
}

impl ConfigDir {
    /// The project directory of a working directory, if it has one: the exact name, or for a
    /// long path the first directory with the same cut prefix (the CLI and the SDKs hash long
    /// names differently). An error when it is a link out of the config directory.
    pub(crate) fn find_project(&self, project_path: &str) -> Result<Option<String>, SessionError> {
        let sanitized = sanitize_path(project_path);
        if self.dir_at(&Path::new(PROJECTS).join(&sanitized))? {
            return Ok(Some(sanitized));
        }
        if sanitized.len() <= MAX_SANITIZED_LENGTH {
            return Ok(None);
        }
        let prefix = format!("{}-", &sanitized[..MAX_SANITIZED_LENGTH]);
        Ok(self
            .project_names()
            .into_iter()
            .find(|name| name.starts_with(&prefix)))
    }

    /// The transcript of `session_id`: in `directory`'s project (or one of its git
    /// worktrees') when given, else in any project. An empty file does not count (a stub left
    /// in one project while the session lives in another). When the session is not found and
    /// a transcript or project on the way is a link out of the config directory, that is the
    /// error ([`SessionError::Outside`]).
    pub(crate) fn locate(
        &self,
        session_id: &str,
        directory: Option<&Path>,
    ) -> Result<Located, SessionError> {
        let file_name = format!("{session_id}.jsonl");
        let mut refused = None;
        let mut present = |project: Result<Option<String>, SessionError>| {
            let project = match project {
                Ok(project) => project?,
                Err(err) => {
                    refused.get_or_insert(err);
                    return None;
                }
            };
            let path = in_project(&project, &file_name);
            match self.file_len(&path) {
                Ok(Some(len)) if len > 0 => Some(Located { project, path }),
                Ok(_) => None,
                Err(err) => {
                    refused.get_or_insert(err);
                    None
                }
            }
        };
        let found = match directory {
            Some(directory) => {
                let canonical = canonicalize(directory);
                present(self.find_project(&canonical)).or_else(|| {
                    worktree_paths(&canonical)
                        .into_iter()
                        .filter(|wt| *wt != canonical)
                        .find_map(|wt| present(self.find_project(&wt)))
                })
            }
            None => {
                let projects = self.projects();
                let found = projects
                    .names
                    .into_iter()
                    .find_map(|name| present(Ok(Some(name))));
                if let Some(err) = projects.refused {
                    refused.get_or_insert(err);
                }
                found
            }
        };
        match (found, refused) {
            (Some(found), _) => Ok(found),
            (None, Some(refused)) => Err(refused),
            (None, None) => Err(SessionError::NotFound(session_id.to_owned())),
        }
    }
}

fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A working directory as the CLI names its project: symbolic links resolved, NFC.
pub(crate) fn canonicalize(directory: &Path) -> String {
    let resolved = std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_owned());
    let resolved = resolved.to_string_lossy();
    without_verbatim_prefix(&resolved).nfc().collect()
}

/// Windows' resolved paths are verbatim (`\\?\C:\…`, `\\?\UNC\server\…`); the CLI (node's
/// `realpath`) names a project from the usual form (`C:\…`, `\\server\…`), so the prefix goes.
fn without_verbatim_prefix(path: &str) -> std::borrow::Cow<'_, str> {
    if let Some(share) = path.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{share}").into();
    }
    match path.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.into(),
        _ => path.into(),
    }
}

/// The directory name of a project: every character but ASCII letters and digits becomes
/// `-`; a name over 200 characters is cut and given a hash of the whole path.
pub fn sanitize_path(name: &str) -> String {
    // JavaScript's `replace(/[^a-zA-Z0-9]/g, "-")` works on UTF-16 units: a character
    // outside the BMP becomes two dashes.
    let sanitized: String = name
        .chars()
        .flat_map(|c| {
            let units = if c.is_ascii_alphanumeric() {
                0
            } else {
                c.len_utf16()
            };
            let keep = (units == 0).then_some(c);
            keep.into_iter().chain(std::iter::repeat_n('-', units))
        })
        .collect();
    if sanitized.len() <= MAX_SANITIZED_LENGTH {
        return sanitized;
    }
    format!(
        "{}-{}",
        &sanitized[..MAX_SANITIZED_LENGTH],
        simple_hash(name)
    )
}

/// JavaScript's 32-bit string hash (`h = (h << 5) - h + unit | 0`) in base 36, over UTF-16
/// units, as the SDKs name long project directories.
fn simple_hash(text: &str) -> String {
    let mut hash: i32 = 0;
    for unit in text.encode_utf16() {
        hash = hash
            .wrapping_shl(5)
            .wrapping_sub(hash)
            .wrapping_add(i32::from(unit));
    }
    let mut n = u64::from(hash.unsigned_abs());
    if n == 0 {
        return "0".to_owned();
    }
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 {
        out.push(digits[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The paths of the git worktrees of the repository holding `cwd` (empty outside one, or
/// without git).
pub(crate) fn worktree_paths(cwd: &str) -> Vec<String> {
    let output = std::process::Command::new("git")
        .args(["worktree", "list", "--porcelain"])
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let Ok(output) = output else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(|path| path.nfc().collect())
        .collect()
}

/// Whether `text` is a UUID (any case).
pub(crate) fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_names_as_the_cli_writes_them() {
        assert_eq!(sanitize_path("/tmp/sx/work"), "-tmp-sx-work");
        assert_eq!(
            sanitize_path("/home/u/My Project.v2"),
            "-home-u-My-Project-v2"
        );
        assert_eq!(sanitize_path("/a/😀"), "-a---");
        let long = format!("/{}", "x".repeat(300));
        let name = sanitize_path(&long);
        assert!(name.starts_with(&format!("-{}", "x".repeat(199))));
        assert_eq!(name.len(), 201 + simple_hash(&long).len());
        // JavaScript: [..."abc"].reduce((h, c) => (h << 5) - h + c.charCodeAt(0) | 0, 0)
        // is 96354, "96354".toString(36) is "22ci".
        assert_eq!(simple_hash("abc"), "22ci");
        assert_eq!(simple_hash(""), "0");
    }

    #[test]
    fn windows_project_names_drop_the_verbatim_prefix() {
        assert_eq!(
            sanitize_path(&without_verbatim_prefix(r"\\?\C:\Users\me\proj")),
            "C--Users-me-proj"
        );
        assert_eq!(
            without_verbatim_prefix(r"\\?\UNC\server\share\x"),
            r"\\server\share\x"
        );
        assert_eq!(
            without_verbatim_prefix(r"\\?\Volume{x}\a"),
            r"\\?\Volume{x}\a"
        );
        assert_eq!(without_verbatim_prefix("/tmp/x"), "/tmp/x");
    }

    /// On Windows, a real directory resolved as the CLI resolves it: a drive letter first.
    #[cfg(windows)]
    #[test]
    fn a_resolved_windows_directory_is_named_from_its_drive() {
        let dir = tempfile::tempdir().unwrap();
        let name = sanitize_path(&canonicalize(dir.path()));
        let bytes = name.as_bytes();
        assert!(
            bytes.first().is_some_and(u8::is_ascii_alphabetic) && bytes.get(1..3) == Some(b"--"),
            "{name}"
        );
    }

    #[test]
    fn uuids() {
        assert!(is_uuid("1f1cbebe-bab7-4a1e-9605-706a2b9d4acd"));
        assert!(is_uuid("1F1CBEBE-BAB7-4A1E-9605-706A2B9D4ACD"));
        assert!(!is_uuid("1f1cbebe-bab7-4a1e-9605-706a2b9d4ac"));
        assert!(!is_uuid("../../etc/passwd-0000-0000-000000000"));
    }
}
