//! Paths as the file system will see them: a tool's path and a rule's pattern both made
//! absolute (from the session's working directory, `~` from `HOME`), `.` and `..` taken out,
//! and symbolic links of the part that exists followed the way the kernel follows them.

use std::path::{Component, Path, PathBuf};

/// Where relative paths start and what `~` means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The session's working directory.
    pub cwd: PathBuf,
    /// `HOME`, for `~/…`.
    pub home: Option<PathBuf>,
}

impl Base {
    /// This process's working directory and `HOME`.
    pub fn current() -> Self {
        Self {
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// `path` made absolute: `~` and `~/x` from `HOME`, a relative path from the working
    /// directory. Not normalized.
    pub fn absolute(&self, path: &str) -> PathBuf {
        if path == "~" || path.starts_with("~/") {
            if let Some(home) = &self.home {
                return home.join(path.trim_start_matches('~').trim_start_matches('/'));
            }
        }
        self.cwd.join(path)
    }
}

/// `path` with `.` and `..` taken out by text alone (`/tmp/../etc` → `/etc`; `..` at the root
/// stays at the root).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` (absolute) as the kernel resolves it: each existing prefix with its symbolic links
/// followed before the next component applies, so `/tmp/link/../x` with `link → /etc/cron.d`
/// is `/etc/x`. The part that does not exist yet is appended as written.
pub fn resolved(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut exists = true;
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if exists {
                    match std::fs::canonicalize(&out) {
                        Ok(real) => out = real,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    out
}

/// The longest leading part of a glob pattern without glob characters, up to a separator
/// (`/tmp/a*/b` → `/tmp`).
pub fn literal_prefix(pattern: &str) -> &str {
    let end = pattern
        .find(['*', '?', '[', '{', '\\'])
        .unwrap_or(pattern.len());
    match pattern[..end].rfind('/') {
        Some(0) => "/",
        Some(slash) if end < pattern.len() => &pattern[..slash],
        _ if end == pattern.len() => pattern,
        _ => "",
    }
}
