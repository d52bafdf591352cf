//! What a session's permission mode allows without a rule: Bash commands that only read
//! files inside the session's directories (every mode), and, in `acceptEdits`, commands that
//! also create, copy and move files there (`mkdir`, `touch`, `cp`, `mv`, `> file`).
//!
//! The knowledge of which programs only read, with which options, is the table
//! [`crate::shell::known::KNOWN`]. A command is read-only when every program and builtin it
//! runs is in that table (or a builtin that prints, tests or changes directory), with options
//! that keep it from running others and from writing, and every file it names or reads by
//! default lies inside the allowed directories in every form on the way to its file. `env`
//! and `printenv` print the environment, secrets included, so they are never read-only.

use std::path::{Path, PathBuf};

use crate::paths::{lexical, Base};
use crate::policy::{git_dir, PermissionPolicy, Reason};
use crate::shell::known::{self, Operands};
use crate::shell::{self, base_name, Role, Scan, Word};

/// The directories a session may read (and, in `acceptEdits`, edit) in without a rule: its
/// working directory, `--add-dir`s and `additionalDirectories`; and where its shell is now,
/// which relative paths start from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Directories {
    /// The allowed directories, absolute.
    pub allowed: Vec<PathBuf>,
    /// The shell's current directory.
    pub shell: PathBuf,
}

/// How many names a glob may expand to before its command is not judged.
const MAX_GLOB_MATCHES: usize = 4096;

/// Builtins a read-only command may use: they print, test or change the shell's directory.
const READING_BUILTINS: &[&str] = &[
    "echo", "printf", "pwd", "true", "false", ":", "test", "[", "type", "cd", "pushd", "popd",
    "dirs", "help", "times", "jobs", "command",
];

/// Wrappers that only wrap (their command is judged as itself).
const READING_WRAPPERS: &[&str] = &[
    "timeout", "nice", "stdbuf", "time", "env", "command", "builtin",
];

/// The programs `acceptEdits` lets change files.
const EDITING: &[&str] = &["mkdir", "touch", "cp", "mv"];

impl Directories {
    /// Allowed directories and the shell's (relative ones are taken from this process's
    /// directory).
    pub fn new(allowed: Vec<PathBuf>, shell: impl Into<PathBuf>) -> Self {
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        Self {
            allowed: allowed
                .into_iter()
                .map(|d| lexical(&here.join(d)))
                .collect(),
            shell: lexical(&here.join(shell.into())),
        }
    }

    /// Whether `path`, relative to `from` (or absolute, or under `~`), is inside an allowed
    /// directory in every form it takes on its way to the file (as written, normalized,
    /// through its links, as the kernel resolves it).
    pub fn contains(&self, base: &Base, from: &Path, path: &str) -> bool {
        let base = Base {
            cwd: from.to_path_buf(),
            ..base.clone()
        };
        let Some(forms) = base.forms(path) else {
            return false;
        };
        forms.iter().all(|form| self.holds(form))
    }

    /// Whether an absolute, resolved path lies in an allowed directory (as written or with
    /// its links followed).
    fn holds(&self, path: &Path) -> bool {
        self.allowed.iter().any(|dir| {
            path.starts_with(dir)
                || std::fs::canonicalize(dir).is_ok_and(|real| path.starts_with(real))
        })
    }
}

impl PermissionPolicy {
    /// Whether a Bash command only reads, and only inside `dirs`: what Claude Code runs
    /// without asking in every mode. `Err` says why not. Deny rules are not consulted here
    /// ([`PermissionPolicy::decide`] first).
    pub fn read_only(&self, command: &str, dirs: &Directories) -> Result<(), Reason> {
        judge(self.base(), command, dirs, false)
    }

    /// Whether a Bash command only reads and edits inside `dirs`: reads as
    /// [`PermissionPolicy::read_only`] has them, `mkdir`, `touch`, `cp`, `mv` and `> file`
    /// whose every path (sources included: `mv` pulling an outside file in is outside) lies
    /// inside. What `acceptEdits` runs without asking; `Edit(…)` deny rules are
    /// [`PermissionPolicy::decide`]'s to apply first.
    pub fn edits_inside(&self, command: &str, dirs: &Directories) -> Result<(), Reason> {
        judge(self.base(), command, dirs, true)
    }
}

fn judge(base: &Base, command: &str, dirs: &Directories, edits: bool) -> Result<(), Reason> {
    let scan = shell::scan(command);
    if scan.analysis.unreadable {
        return Err(Reason::Unreadable);
    }
    if let Some(unproven) = scan.hard.first() {
        return Err(Reason::Unproven(unproven.clone()));
    }
    let mut judge = Judge {
        base,
        dirs,
        cwds: vec![dirs.shell.clone()],
    };
    // Programs read their current directory by default (`ls`, `grep -r`, `git status`).
    judge.inside_everywhere(".")?;
    for at in 0..scan.analysis.commands.len() {
        judge.command(&scan, at, edits)?;
    }
    Ok(())
}

/// The judgment of one command line, command by command.
struct Judge<'a> {
    base: &'a Base,
    dirs: &'a Directories,
    /// Every directory the shell may be in at this point (`cd` adds its target).
    cwds: Vec<PathBuf>,
}

impl Judge<'_> {
    fn command(&mut self, scan: &Scan, at: usize, edits: bool) -> Result<(), Reason> {
        let command = &scan.analysis.commands[at];
        let info = &scan.info[at];
        let not = |why: &str| {
            Err(Reason::NotReadOnly {
                command: command.written(),
                why: why.to_owned(),
            })
        };
        for (file, computed) in &command.written_files {
            if !edits {
                return not(&format!("writes `{file}`"));
            }
            self.path(file, *computed)?;
        }
        for (file, computed) in &info.reads {
            self.path(file, *computed)?;
        }
        let Some(name) = command.name() else {
            return Ok(());
        };
        let program = base_name(name);
        let args = &command.words[1..];
        match info.role {
            Role::Builtin if matches!(name, "cd" | "pushd" | "popd") => {
                self.change_directory(command.words.get(1))
            }
            Role::Builtin if READING_BUILTINS.contains(&name) => Ok(()),
            Role::Builtin => not("is a builtin that changes the shell's state"),
            Role::Wrapper if READING_WRAPPERS.contains(&program) => Ok(()),
            Role::Wrapper => not("runs its command detached or under another identity"),
            Role::Executor | Role::Unknown => not("may run other programs"),
            Role::Known => {
                let Some(entry) = known::known(program) else {
                    return not("is not known to only read");
                };
                if entry.prints_secrets {
                    return not("prints the environment, secrets included");
                }
                let judged = entry.judge(args);
                if let Some(why) = judged.runs.as_deref().or(judged.writes.as_deref()) {
                    return not(why);
                }
                let editing = edits && EDITING.contains(&program);
                if !entry.reads_only && !editing {
                    return not("changes files or the system");
                }
                if program == "git" {
                    let dir = git_dir(&self.base.cwd, args);
                    if let Some(why) =
                        shell::git::configured_to_run(&dir, self.base.home.as_deref())
                    {
                        return not(&why);
                    }
                    if let Some(line) = shell::git::read(args) {
                        if let Some(first) = line.dirs.first() {
                            self.path(first, false)?;
                        }
                    }
                }
                if !editing && !judged.edits.is_empty() {
                    return not("writes files");
                }
                if entry.operands == Operands::Custom && program != "git" && program != "hostname" {
                    return not("names files the rules do not read");
                }
                for word in judged.reads.iter().chain(&judged.edits) {
                    self.word(word)?;
                }
                Ok(())
            }
        }
    }

    /// `cd DIR` (literal, inside): the shell may be there from now on.
    fn change_directory(&mut self, target: Option<&Word>) -> Result<(), Reason> {
        let Some(target) = target.filter(|w| w.literal && w.text != "-") else {
            return Err(Reason::Outside(
                target.map_or_else(|| "~".to_owned(), |w| w.text.clone()),
            ));
        };
        self.inside_everywhere(&target.text)?;
        let mut next = Vec::new();
        for cwd in &self.cwds {
            next.push(lexical(&self.base_with(cwd).absolute(&target.text)));
        }
        self.cwds.extend(next);
        Ok(())
    }

    fn base_with(&self, cwd: &Path) -> Base {
        Base {
            cwd: cwd.to_path_buf(),
            ..self.base.clone()
        }
    }

    /// A file named by a word: literal, or a glob expanded now (each match and the pattern
    /// itself, which bash passes on when nothing matches); anything else is not known.
    fn word(&self, word: &Word) -> Result<(), Reason> {
        if word.literal || word.text == "-" {
            return self.inside_everywhere(&word.text);
        }
        let text = word.text.as_str();
        let computed = text.contains(['$', '`', '~', '\'', '"', '\\', '{']);
        if computed {
            return Err(Reason::Outside(text.to_owned()));
        }
        for cwd in &self.cwds {
            let Some(matches) = expand(&self.base_with(cwd).absolute(text)) else {
                return Err(Reason::Outside(text.to_owned()));
            };
            for found in matches {
                let found = found.to_string_lossy();
                if !self.dirs.contains(self.base, cwd, &found) {
                    return Err(Reason::Outside(found.into_owned()));
                }
            }
        }
        self.inside_everywhere(text)
    }

    fn path(&self, file: &str, computed: bool) -> Result<(), Reason> {
        if computed {
            return Err(Reason::Outside(file.to_owned()));
        }
        self.inside_everywhere(file)
    }

    /// `path` is inside from every directory the shell may be in.
    fn inside_everywhere(&self, path: &str) -> Result<(), Reason> {
        if path == "-" || matches!(path, "/dev/null" | "/dev/stdin") {
            return Ok(());
        }
        for cwd in &self.cwds {
            if !self.dirs.contains(self.base, cwd, path) {
                return Err(Reason::Outside(path.to_owned()));
            }
        }
        Ok(())
    }
}

/// The names a glob (absolute) matches now, component by component as bash matches them
/// (`*` and `?` within a name, no hidden names unless the pattern's name starts with `.`);
/// `None` past [`MAX_GLOB_MATCHES`] or a pattern the matcher cannot read.
fn expand(pattern: &Path) -> Option<Vec<PathBuf>> {
    let mut current = vec![PathBuf::from("/")];
    for component in pattern.components().skip(1) {
        let name = component.as_os_str().to_string_lossy();
        if !name.contains(['*', '?', '[']) {
            for path in &mut current {
                path.push(&*name);
            }
            continue;
        }
        let glob = globset::GlobBuilder::new(&name)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .ok()?
            .compile_matcher();
        let mut next = Vec::new();
        for dir in &current {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let entry_name = entry.file_name();
                let entry_name = entry_name.to_string_lossy();
                if entry_name.starts_with('.') && !name.starts_with('.') {
                    continue;
                }
                if glob.is_match(&*entry_name) {
                    next.push(dir.join(&*entry_name));
                    if next.len() > MAX_GLOB_MATCHES {
                        return None;
                    }
                }
            }
        }
        current = next;
    }
    Some(current)
}
