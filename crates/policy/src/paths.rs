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
//!
//! On Windows each form is matched in the POSIX form Claude Code matches Windows paths in
//! (`C:\proj\x` is `/c/proj/x`, see [`crate::winpath`]); a path that form cannot name (a
//! network share, a stream) is refused. Names are compared as the file system compares them
//! ([`Case`]).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

/// How many symbolic links one path may pass through (the kernel's limit).
const MAX_LINKS: usize = 40;

/// Whether the file system tells names apart by case.
///
/// A deny rule on a case-insensitive file system matches every case of its names (a deny of
/// `C:\proj\secret` also denies `c:\PROJ\Secret`, the same file there); an allow rule
/// never does: a name in another case is the same file only where the volume, or on Windows
/// each directory, folds case, which the text does not prove, so such a call is asked about.
/// Drive letters are one drive in either case everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// Names differ by case (Linux file systems, case-sensitive APFS).
    Sensitive,
    /// Names in any case are one file (NTFS, FAT, default APFS).
    Insensitive,
}

impl Case {
    /// What this system's file systems usually do: insensitive on Windows and macOS (NTFS and
    /// APFS as they are set up by default), sensitive elsewhere. Set [`Base::case`] to
    /// [`Case::Sensitive`] for a case-sensitive volume, or from [`Case::probe`].
    pub const fn default_for_system() -> Self {
        if cfg!(any(windows, target_os = "macos")) {
            Case::Insensitive
        } else {
            Case::Sensitive
        }
    }

    /// Asks the file system: whether `dir`'s own name, in another case, is `dir` too.
    /// `None` when that cannot be told (no letter in the name, nothing there).
    pub fn probe(dir: &Path) -> Option<Self> {
        let dir = dir.canonicalize().ok()?;
        let name = dir.file_name()?.to_str()?;
        let swapped: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        if swapped == name {
            return None;
        }
        let variant = dir.with_file_name(swapped);
        Some(match variant.canonicalize() {
            Ok(real) if real == dir => Case::Insensitive,
            // Another directory of that name, or none: names differ by case here.
            _ => Case::Sensitive,
        })
    }
}

/// Where relative paths start and what `~` means.
///
/// Built with [`Base::new`], [`Base::current`] or [`Base::session`]; fields may be added.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Base {
    /// The session's working directory.
    pub cwd: PathBuf,
    /// `HOME`, for `~/…`.
    pub home: Option<PathBuf>,
    /// How the file system compares names: deny rules fold case where it does.
    pub case: Case,
}

impl Base {
    /// Paths relative to `cwd`, `~` from `home`, names compared as this system's file system
    /// does by default ([`Case::default_for_system`]; [`Base::with_case`] to say otherwise).
    pub fn new(cwd: impl Into<PathBuf>, home: Option<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            home,
            case: Case::default_for_system(),
        }
    }

    /// The same base, comparing names as `case` says.
    pub fn with_case(mut self, case: Case) -> Self {
        self.case = case;
        self
    }

    /// This process's working directory and `HOME`.
    pub fn current() -> Self {
        Self {
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            home: std::env::var_os("HOME")
                .or_else(|| std::env::var_os("USERPROFILE").filter(|_| cfg!(windows)))
                .map(PathBuf::from),
            case: Case::default_for_system(),
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
        let home_relative = path.starts_with("~/") || (cfg!(windows) && path.starts_with("~\\"));
        if path == "~" || home_relative {
            if let Some(home) = &self.home {
                return home.join(path[1..].trim_start_matches(['/', '\\']));
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

    /// [`Base::forms`] in the form rules match them (the same paths but on Windows, see the
    /// module's docs), and the path as written made absolute.
    pub(crate) fn match_forms(&self, path: &str) -> Result<MatchForms, Unmatchable> {
        let mut refused = None;
        let mut forms = Vec::new();
        for form in self.forms(path).ok_or(Unmatchable::Loop)? {
            match matchable(&form) {
                Ok(form) => forms.push(form),
                Err(why) => refused = Some(why),
            }
        }
        // `/c/x` is `C:\x` to the Bash tool's shell: judged that way too.
        if cfg!(windows) {
            forms.extend(crate::winpath::msys_form(path).map(PathBuf::from));
        }
        let written = matchable(&self.absolute(path));
        if let Err(why) = &written {
            refused = Some(why);
        }
        Ok(MatchForms {
            forms,
            written: written.ok(),
            refused,
        })
    }

    /// The session's directory in the form rules match.
    fn cwd_text(&self) -> String {
        matchable(&self.cwd)
            .unwrap_or_else(|_| self.cwd.clone())
            .display()
            .to_string()
    }
}

/// Every form of one path, as rules match them.
pub(crate) struct MatchForms {
    /// Normalized, through its links, as the system resolves it: those that can be named.
    pub forms: Vec<PathBuf>,
    /// As written, made absolute, if it can be named.
    pub written: Option<PathBuf>,
    /// Why a form cannot be named, if one cannot: nothing is allowed then.
    pub refused: Option<&'static str>,
}

/// Why a path's forms cannot be matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unmatchable {
    /// Its links cannot be followed to an end.
    Loop,
}

/// A path of this system as rules match it: itself on Unix, the POSIX form on Windows.
#[cfg(not(windows))]
fn matchable(path: &Path) -> Result<PathBuf, &'static str> {
    Ok(path.to_path_buf())
}

/// A path of this system as rules match it: itself on Unix, the POSIX form on Windows.
#[cfg(windows)]
fn matchable(path: &Path) -> Result<PathBuf, &'static str> {
    match crate::winpath::parse(&path.to_string_lossy()) {
        crate::winpath::WinPath::Drive(form) => Ok(PathBuf::from(form)),
        crate::winpath::WinPath::Refused(why) => Err(why),
        crate::winpath::WinPath::Other => Err("a path without a drive cannot be judged"),
    }
}

/// A matched form (`/c/proj`) as a path of this system (`c:\proj` on Windows).
fn host_path(form: &str) -> PathBuf {
    if cfg!(windows) {
        let mut parts = form.trim_start_matches('/').splitn(2, '/');
        if let (Some(letter), rest) = (parts.next(), parts.next()) {
            if letter.len() == 1 && letter.chars().all(|c| c.is_ascii_alphabetic()) {
                return PathBuf::from(format!(
                    "{letter}:\\{}",
                    rest.unwrap_or("").replace('/', "\\")
                ));
            }
        }
    }
    PathBuf::from(form)
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
    let mut out = root(path);
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
    let mut out = root(path);
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
                if target.has_root() {
                    out = if target.is_absolute() {
                        root(&target)
                    } else {
                        // Rooted without a drive (`\x` on Windows): the link's own drive.
                        root(&out)
                    };
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

/// Where an absolute path starts: `/`, or a Windows prefix and its root (`C:\`); `/` for a
/// path without either.
fn root(path: &Path) -> PathBuf {
    let start: PathBuf = path
        .components()
        .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
        .collect();
    if start.as_os_str().is_empty() {
        PathBuf::from("/")
    } else {
        start
    }
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
/// directory (Claude Code reads one leading slash relative to the settings file). On Windows
/// the pattern is read in the POSIX form paths are matched in (`C:\x`, `C:/x`, `//c/x`), its
/// one leading slash on the session's drive. A deny folds case where the file system does.
pub(crate) fn rule_globs(pattern: &str, base: &Base, reading: Reading) -> Vec<GlobMatcher> {
    let windows = cfg!(windows);
    let (pattern, absolute) = if windows {
        crate::winpath::rule_pattern(pattern)
    } else {
        match pattern.strip_prefix("//") {
            Some(rest) => (format!("/{rest}"), true),
            None => (pattern.to_owned(), false),
        }
    };
    let cwd = base.cwd_text();
    let under = |dir: &str, rest: &str| format!("{}/{rest}", dir.trim_end_matches('/'));
    let mut texts: Vec<String> = Vec::new();
    if absolute {
        texts.push(pattern);
    } else if pattern == "~" || pattern.starts_with("~/") {
        match base.home.as_deref().map(matchable) {
            Some(Ok(home)) => texts.push(under(
                &home.display().to_string(),
                pattern[1..].trim_start_matches('/'),
            )),
            // No home to read `~` from: the rule names no path (a deny still matches `~`'s
            // text under the session's directory, as a tool would read it).
            _ => texts.push(under(&cwd, &pattern)),
        }
    } else if let Some(rest) = pattern.strip_prefix('/') {
        if windows {
            let drive: String = cwd.split('/').take(2).collect::<Vec<_>>().join("/");
            texts.push(under(&drive, rest));
        } else {
            texts.push(pattern.clone());
        }
        if reading == Reading::Deny {
            texts.push(under(&cwd, rest));
        }
    } else if !pattern.contains('/') {
        // A bare name matches in any directory (gitignore's rule); an allow only below the
        // session's directory.
        match reading {
            Reading::Deny => texts.push(format!("**/{pattern}")),
            Reading::Allow => texts.push(under(&under(&cwd, "**"), &pattern)),
        }
    } else {
        let relative = pattern.strip_prefix("./").unwrap_or(&pattern);
        texts.push(under(&cwd, relative));
    }
    let fold = reading == Reading::Deny && base.case == Case::Insensitive;
    let mut globs = Vec::new();
    for text in texts {
        let normal = lexical_text(&text);
        let normal = if text.ends_with('/') && !normal.ends_with('/') {
            format!("{normal}/")
        } else {
            normal
        };
        let prefix = literal_prefix(&normal);
        let real_prefix = matchable(&kernel(&host_path(prefix)))
            .ok()
            .map(|real| real.display().to_string().replace('\\', "/"));
        let forms = std::iter::once(normal.clone())
            .chain(real_prefix.map(|real| format!("{real}{}", &normal[prefix.len()..])));
        for form in forms {
            // `dir/**` stands for the directory itself too (a search rooted there).
            let itself = form.strip_suffix("/**").map(str::to_owned);
            for form in std::iter::once(form).chain(itself) {
                if let Ok(glob) = folded_glob(&form, fold) {
                    globs.push(glob);
                }
            }
        }
    }
    globs
}

/// `text` (a `/`-separated pattern) with `.` and `..` taken out by text, as [`lexical`] does
/// for paths.
fn lexical_text(text: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in text.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            name => names.push(name),
        }
    }
    let joined = names.join("/");
    if text.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// A path glob: `*` within one directory, `**` across them.
pub(crate) fn path_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    folded_glob(pattern, false)
}

/// A path glob matching names in any case when `fold`.
fn folded_glob(pattern: &str, fold: bool) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(fold)
        .build()?
        .compile_matcher())
}
