//! Memory: the instructions a user keeps for Claude Code in `CLAUDE.md` files, read from the
//! places Claude Code reads them and given to the model after the system prompt.
//!
//! Read, lowest precedence first (a later file may refine an earlier one):
//! 1. the machine's managed file (`/etc/claude-code/CLAUDE.md`; on macOS
//!    `/Library/Application Support/ClaudeCode/CLAUDE.md`), always;
//! 2. the user's (`$CLAUDE_CONFIG_DIR/CLAUDE.md`, else `~/.claude/CLAUDE.md`) when the `user`
//!    settings are read;
//! 3. from the filesystem's root down to the working directory, in each directory: `CLAUDE.md`,
//!    `.claude/CLAUDE.md` and `.claude/rules/*.md` (by name) when the `project` settings are
//!    read, then `CLAUDE.local.md` when the `local` ones are.
//!
//! A line may import another file with `@path` (relative to the file that names it, `~/` for
//! the home, or absolute), outside code blocks and code spans; an import is read after the file
//! that names it, at most [`MAX_IMPORT_DEPTH`] deep, each file once. A repository the host
//! registers later (`register_repo_root`) adds its own project and local files.
//!
//! Bounded: each file is cut at [`MAX_FILE_BYTES`], the whole at [`MAX_TOTAL_BYTES`] and
//! [`MAX_FILES`] files; a file that cannot be read, or is not UTF-8 text, is left out and named
//! in the log.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// How deep imports are followed (Claude Code's limit).
pub const MAX_IMPORT_DEPTH: usize = 5;
/// The most read of one file.
pub const MAX_FILE_BYTES: usize = 256 * 1024;
/// The most read of all files together.
pub const MAX_TOTAL_BYTES: usize = 1024 * 1024;
/// The most files read.
pub const MAX_FILES: usize = 100;

/// Whose instructions a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The machine's, for every user.
    Managed,
    /// The user's, for every project.
    User,
    /// The project's, checked in.
    Project,
    /// The user's own for this project, not checked in.
    Local,
}

impl Kind {
    /// Claude Code's name for it in hook inputs (`memory_type`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Managed => "Managed",
            Self::User => "User",
            Self::Project => "Project",
            Self::Local => "Local",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Managed => "instructions managed for every user of this machine",
            Self::User => "the user's own instructions, for all projects",
            Self::Project => "project instructions, checked into the codebase",
            Self::Local => "the user's private instructions for this project",
        }
    }
}

/// One memory file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// Where it was read.
    pub path: PathBuf,
    /// Whose it is (an import is its importer's kind).
    pub kind: Kind,
    /// Its text, cut at [`MAX_FILE_BYTES`].
    pub text: String,
    /// The file whose `@` import brought it in, if one did.
    pub imported_by: Option<PathBuf>,
}

/// Where memory is looked for.
#[derive(Debug, Clone)]
pub struct Places<'a> {
    /// The session's working directory.
    pub cwd: &'a Path,
    /// Claude Code's configuration directory (the user's `CLAUDE.md`).
    pub config_dir: &'a Path,
    /// The home directory, for `@~/` imports.
    pub home: Option<&'a Path>,
    /// The settings sources read (`--setting-sources`); `None`: all.
    pub sources: Option<&'a [String]>,
}

/// Every memory file of a session starting in `places`, in the order given to the model.
pub fn read(places: &Places<'_>) -> Vec<MemoryFile> {
    let wanted = |name: &str| places.sources.is_none_or(|s| s.iter().any(|n| n == name));
    let mut reader = Reader::new(places.home);
    if let Some(managed) = managed_file() {
        reader.file(&managed, Kind::Managed);
    }
    if wanted("user") {
        reader.file(&places.config_dir.join("CLAUDE.md"), Kind::User);
    }
    let mut dirs: Vec<&Path> = places.cwd.ancestors().collect();
    dirs.reverse();
    for dir in dirs {
        reader.directory(dir, wanted("project"), wanted("local"));
    }
    reader.files
}

/// The project and local memory of a repository registered during the session (only the
/// directory itself: its parents were read with the session's), leaving out files already in
/// `known`.
pub fn read_root(root: &Path, home: Option<&Path>, known: &[MemoryFile]) -> Vec<MemoryFile> {
    let mut reader = Reader::new(home);
    for file in known {
        reader.seen.insert(canonical(&file.path));
        reader.total += file.text.len();
    }
    reader.directory(root, true, true);
    reader.files
}

/// The memory of directories below the working directory, read as the session touches a file
/// in them (`dirs`, from the highest down): in each, `CLAUDE.md`, `.claude/CLAUDE.md`,
/// `CLAUDE.local.md`, then `.claude/rules/*.md` (Claude Code's order for them), leaving out the
/// files in `known`.
pub fn read_nested(
    dirs: &[PathBuf],
    home: Option<&Path>,
    known: &[PathBuf],
    sources: Option<&[String]>,
) -> Vec<MemoryFile> {
    let wanted = |name: &str| sources.is_none_or(|s| s.iter().any(|n| n == name));
    let mut reader = Reader::new(home);
    reader.seen.extend(known.iter().map(|path| canonical(path)));
    for dir in dirs {
        if wanted("project") {
            reader.file(&dir.join("CLAUDE.md"), Kind::Project);
            reader.file(&dir.join(".claude").join("CLAUDE.md"), Kind::Project);
        }
        if wanted("local") {
            reader.file(&dir.join("CLAUDE.local.md"), Kind::Local);
        }
        if wanted("project") {
            for rule in markdown_files(&dir.join(".claude").join("rules")) {
                reader.file(&rule, Kind::Project);
            }
        }
    }
    reader.files
}

/// The memory as one text for the model; `None` when there is none.
pub fn render(files: &[MemoryFile]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let mut text = String::from(
        "# Memory\nThe user keeps instructions for this work in the files below (CLAUDE.md). \
         Follow them: where they differ from the guidance above, they win.",
    );
    for file in files {
        text.push_str(&format!(
            "\n\nContents of {} ({}):\n\n{}",
            file.path.display(),
            file.kind.describe(),
            file.text.trim_end()
        ));
    }
    Some(text)
}

fn managed_file() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        Some(PathBuf::from(
            "/Library/Application Support/ClaudeCode/CLAUDE.md",
        ))
    } else if cfg!(unix) {
        Some(PathBuf::from("/etc/claude-code/CLAUDE.md"))
    } else {
        None
    }
}

/// The files read so far, and what bounds them.
struct Reader<'a> {
    home: Option<&'a Path>,
    files: Vec<MemoryFile>,
    seen: HashSet<PathBuf>,
    total: usize,
}

impl<'a> Reader<'a> {
    fn new(home: Option<&'a Path>) -> Self {
        Self {
            home,
            files: Vec::new(),
            seen: HashSet::new(),
            total: 0,
        }
    }

    /// One directory's files.
    fn directory(&mut self, dir: &Path, project: bool, local: bool) {
        if project {
            self.file(&dir.join("CLAUDE.md"), Kind::Project);
            self.file(&dir.join(".claude").join("CLAUDE.md"), Kind::Project);
            for rule in markdown_files(&dir.join(".claude").join("rules")) {
                self.file(&rule, Kind::Project);
            }
        }
        if local {
            self.file(&dir.join("CLAUDE.local.md"), Kind::Local);
        }
    }

    /// A file and, after it, what it imports.
    fn file(&mut self, path: &Path, kind: Kind) {
        self.follow(path, kind, 0, None);
    }

    fn follow(&mut self, path: &Path, kind: Kind, depth: usize, importer: Option<&Path>) {
        if !path.is_file() || self.files.len() >= MAX_FILES || self.total >= MAX_TOTAL_BYTES {
            return;
        }
        if !self.seen.insert(canonical(path)) {
            return;
        }
        let Some(text) = read_text(path, MAX_FILE_BYTES.min(MAX_TOTAL_BYTES - self.total)) else {
            return;
        };
        self.total += text.len();
        let imports = if depth < MAX_IMPORT_DEPTH {
            imports(&text)
        } else {
            Vec::new()
        };
        self.files.push(MemoryFile {
            path: path.to_owned(),
            kind,
            text,
            imported_by: importer.map(Path::to_owned),
        });
        let base = path.parent().unwrap_or(Path::new("/"));
        for import in imports {
            if let Some(target) = self.resolve(&import, base) {
                self.follow(&target, kind, depth + 1, Some(path));
            }
        }
    }

    fn resolve(&self, import: &str, base: &Path) -> Option<PathBuf> {
        if let Some(rest) = import.strip_prefix("~/") {
            return self.home.map(|home| home.join(rest));
        }
        let path = Path::new(import);
        Some(if path.is_absolute() {
            path.to_owned()
        } else {
            base.join(path)
        })
    }
}

/// At most `limit` bytes of a UTF-8 file, cut at a character's end.
fn read_text(path: &Path, limit: usize) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|err| tracing::debug!(path = %path.display(), %err, "memory file not read"))
        .ok()?;
    let mut bytes = Vec::new();
    file.take(limit as u64).read_to_end(&mut bytes).ok()?;
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(err) => {
            // A cut through a character keeps what precedes it; anything else is not text.
            let valid = err.utf8_error().valid_up_to();
            if err.utf8_error().error_len().is_none() {
                let mut bytes = err.into_bytes();
                bytes.truncate(valid);
                String::from_utf8(bytes).ok()
            } else {
                tracing::warn!(path = %path.display(), "a memory file that is not UTF-8 text is left out");
                None
            }
        }
    }
}

/// The Markdown files of `dir` (not below it), by name.
pub(crate) fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md") && path.is_file())
        .collect();
    paths.sort();
    paths
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// The `@path` imports of a file's text, in order: a word that starts with `@`, outside fenced
/// code blocks and code spans.
fn imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans are left out: the text between backticks is dropped.
        let outside: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        for word in outside.split_whitespace() {
            if let Some(path) = word.strip_prefix('@') {
                let path = path.trim_end_matches([',', '.', ';', ':', ')']);
                if !path.is_empty() && !path.starts_with('@') {
                    found.push(path.to_owned());
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn names(files: &[MemoryFile], root: &Path) -> Vec<String> {
        files
            .iter()
            .map(|f| f.path.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn every_place_is_read_from_the_root_down_with_imports_after_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, work) = (root.join("home"), root.join("repo/work"));
        write(
            &home.join(".claude/CLAUDE.md"),
            "user rules\n@~/shared.md\n",
        );
        write(&home.join("shared.md"), "shared by import\n");
        write(
            &root.join("repo/CLAUDE.md"),
            "repo rules, see @docs/style.md.\n",
        );
        write(&root.join("repo/docs/style.md"), "style\n");
        write(&work.join(".claude/CLAUDE.md"), "work rules\n");
        write(&work.join(".claude/rules/b.md"), "rule b\n");
        write(&work.join(".claude/rules/a.md"), "rule a\n");
        write(&work.join("CLAUDE.local.md"), "mine\n");
        let files = read(&Places {
            cwd: &work,
            config_dir: &home.join(".claude"),
            home: Some(&home),
            sources: None,
        });
        assert_eq!(
            names(&files, &root),
            [
                "home/.claude/CLAUDE.md",
                "home/shared.md",
                "repo/CLAUDE.md",
                "repo/docs/style.md",
                "repo/work/.claude/CLAUDE.md",
                "repo/work/.claude/rules/a.md",
                "repo/work/.claude/rules/b.md",
                "repo/work/CLAUDE.local.md",
            ]
        );
        assert_eq!(files[0].kind, Kind::User);
        assert_eq!(files[1].kind, Kind::User);
        assert_eq!(files[2].kind, Kind::Project);
        assert_eq!(files[7].kind, Kind::Local);
        let text = render(&files).unwrap();
        assert!(
            text.contains("shared by import") && text.contains("mine"),
            "{text}"
        );
    }

    #[test]
    fn only_the_sources_named_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root.join("home/.claude/CLAUDE.md"), "user\n");
        write(&root.join("work/CLAUDE.md"), "project\n");
        write(&root.join("work/CLAUDE.local.md"), "local\n");
        let (work, config_dir) = (root.join("work"), root.join("home/.claude"));
        let places = |sources| Places {
            cwd: &work,
            config_dir: &config_dir,
            home: None,
            sources,
        };
        let project = ["project".to_owned()];
        let files = read(&places(Some(&project)));
        assert_eq!(names(&files, &root), ["work/CLAUDE.md"]);
        assert!(read(&places(Some(&[]))).is_empty());
    }

    #[test]
    fn imports_stop_at_cycles_depth_and_code() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(
            &root.join("CLAUDE.md"),
            "@a.md\n`@code.md`\n```\n@fenced.md\n```\nmail me@b.md\n",
        );
        for (name, next) in [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f")] {
            write(
                &root.join(format!("{name}.md")),
                &format!("{name}\n@{next}.md @a.md\n"),
            );
        }
        write(&root.join("f.md"), "too deep\n");
        for name in ["code", "fenced"] {
            write(&root.join(format!("{name}.md")), "never\n");
        }
        let mut reader = Reader::new(None);
        reader.file(&root.join("CLAUDE.md"), Kind::Project);
        assert_eq!(
            names(&reader.files, &root),
            ["CLAUDE.md", "a.md", "b.md", "c.md", "d.md", "e.md"]
        );
    }

    #[test]
    fn files_are_bounded_and_text_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root.join("CLAUDE.md"), &"é".repeat(MAX_FILE_BYTES));
        std::fs::write(root.join("CLAUDE.local.md"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
        let mut reader = Reader::new(None);
        reader.directory(&root, true, true);
        assert_eq!(reader.files.len(), 1, "the binary file is left out");
        assert_eq!(reader.files[0].text.len(), MAX_FILE_BYTES);
    }

    #[test]
    fn a_registered_root_adds_only_what_is_new() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(&root.join("CLAUDE.md"), "top\n@clone/CLAUDE.md\n");
        write(&root.join("clone/CLAUDE.md"), "clone\n");
        write(&root.join("clone/CLAUDE.local.md"), "clone, mine\n");
        let mut reader = Reader::new(None);
        reader.file(&root.join("CLAUDE.md"), Kind::Project);
        let added = read_root(&root.join("clone"), None, &reader.files);
        assert_eq!(names(&added, &root), ["clone/CLAUDE.local.md"]);
    }
}
