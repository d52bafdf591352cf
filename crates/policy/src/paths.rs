//! Paths as the tools will see them, and path rules as globs over absolute paths.
//!
//! Claude Code's file tools resolve a path lexically first (`path.resolve`: relative to the
//! session's directory, `.` and `..` taken out by text), then hand it to the file system,
//! which follows every symbolic link on the way, a dangling last one included (a write
//! through it creates its target). A path is judged in each form it can take:
//! as written ([`Base::absolute`]), lexically normalized ([`lexical`]), with every link of the
//! normalized form followed ([`through_links`]), and as the kernel resolves the written form
//! ([`kernel`], `..` applied after the links before it). An allow needs every form inside the
//! rule; a deny any.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

/// How many symbolic links one path may pass through (the kernel's limit).
const MAX_LINKS: usize = 40;

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

    /// A session in `cwd` (relative to this process's directory), with this process's `HOME`.
    pub fn session(cwd: Option<&Path>) -> Self {
        let mut base = Self::current();
        if let Some(dir) = cwd {
            base.cwd = base.cwd.join(dir);
        }
        base.cwd = lexical(&base.cwd);
        base
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

    /// Every place `path` can lead to on its way to the file (see the module's docs):
    /// normalized, through its links, and as the kernel resolves it; `None` when its links
    /// cannot be followed to an end (a loop, too many links).
    pub fn forms(&self, path: &str) -> Option<Vec<PathBuf>> {
        let absolute = self.absolute(path);
        let lexical = lexical(&absolute);
        let linked = through_links(&lexical)?;
        let kernel = kernel(&absolute);
        Some(vec![lexical, linked, kernel])
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
pub fn kernel(path: &Path) -> PathBuf {
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

/// `path` (absolute) with every symbolic link on it followed, dangling ones too (their
/// target is where a write goes), until a component does not exist; the rest is appended as
/// written. `None` after 40 links (the kernel's limit).
pub fn through_links(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::from("/");
    let mut pending: VecDeque<OsString> = names(path);
    let mut links = 0;
    let mut missing = false;
    while let Some(name) = pending.pop_front() {
        if name == ".." {
            out.pop();
            continue;
        }
        if name == "." {
            continue;
        }
        out.push(&name);
        if missing {
            continue;
        }
        match std::fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return None;
                }
                let target = std::fs::read_link(&out).ok()?;
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                let mut next = names(&target);
                next.extend(pending);
                pending = next;
            }
            Ok(_) => {}
            Err(_) => missing = true,
        }
    }
    Some(out)
}

/// The names of a path's components, `..` and `.` kept, the root and prefixes dropped.
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some("..".into()),
            Component::CurDir => Some(".".into()),
            Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
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

/// Which way a rule reads a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    Allow,
    Deny,
}

/// A path rule's pattern as globs over absolute paths: as written, and with its existing
/// literal part's links followed. A deny of `/x` also matches `x` under the session's
/// directory (Claude Code reads one leading slash relative to the settings file).
pub(crate) fn rule_globs(pattern: &str, base: &Base, reading: Reading) -> Vec<GlobMatcher> {
    let mut texts: Vec<String> = Vec::new();
    if let Some(absolute) = pattern.strip_prefix("//") {
        texts.push(format!("/{absolute}"));
    } else if pattern == "~" || pattern.starts_with("~/") {
        texts.push(base.absolute(pattern).display().to_string());
    } else if let Some(rest) = pattern.strip_prefix('/') {
        texts.push(pattern.to_owned());
        if reading == Reading::Deny {
            texts.push(base.cwd.join(rest).display().to_string());
        }
    } else if !pattern.contains('/') {
        // A bare name matches in any directory (gitignore's rule); an allow only below the
        // session's directory.
        match reading {
            Reading::Deny => texts.push(format!("**/{pattern}")),
            Reading::Allow => texts.push(base.cwd.join("**").join(pattern).display().to_string()),
        }
    } else {
        let relative = pattern.strip_prefix("./").unwrap_or(pattern);
        texts.push(base.cwd.join(relative).display().to_string());
    }
    let mut globs = Vec::new();
    for text in texts {
        let normal = lexical(Path::new(&text)).display().to_string();
        let normal = if text.ends_with('/') && !normal.ends_with('/') {
            format!("{normal}/")
        } else {
            normal
        };
        let prefix = literal_prefix(&normal);
        let real_prefix = kernel(Path::new(prefix)).display().to_string();
        for form in [
            normal.clone(),
            format!("{real_prefix}{}", &normal[prefix.len()..]),
        ] {
            // `dir/**` stands for the directory itself too (a search rooted there).
            let itself = form.strip_suffix("/**").map(str::to_owned);
            for form in std::iter::once(form).chain(itself) {
                if let Ok(glob) = path_glob(&form) {
                    globs.push(glob);
                }
            }
        }
    }
    globs
}

/// A path glob: `*` within one directory, `**` across them.
pub(crate) fn path_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()?
        .compile_matcher())
}
