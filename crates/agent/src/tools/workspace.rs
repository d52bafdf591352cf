//! [`Workspace`]: what the tools of one session share: its directories, Bash's working
//! directory (which persists from one command to the next), what the model has seen of each
//! file ([`FileState`]), the background jobs ([`Jobs`]), the todo list, and the notes the
//! model is to be given before its next step.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::file_state::FileState;
use super::jobs::Jobs;
use crate::config::Limits;

/// The shared state of a session's tools. Its `Debug` leaves the environment out (it holds
/// credentials).
pub struct Workspace {
    root: PathBuf,
    add_dirs: Vec<PathBuf>,
    shell_cwd: Mutex<PathBuf>,
    /// The working directory the model was last told of.
    told_cwd: Mutex<PathBuf>,
    /// What the model has seen of each file.
    pub files: FileState,
    /// Bash's background jobs.
    pub jobs: Arc<Jobs>,
    /// The skills loaded so far.
    skills_loaded: Mutex<std::collections::BTreeSet<String>>,
    todos: Mutex<Value>,
    /// Bounds on the tools.
    pub limits: Limits,
    /// The environment commands run with.
    pub env: BTreeMap<String, String>,
    /// The sandbox Bash runs in, when the settings enable one.
    sandbox: Option<super::sandbox::Sandbox>,
    /// A private directory for the shell's bookkeeping, removed with the workspace.
    scratch: tempfile::TempDir,
    /// The session's rules, for the searches to leave out what a Read deny rule covers.
    read_rules: Mutex<Option<twinwire_policy::PermissionPolicy>>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.root)
            .field("add_dirs", &self.add_dirs)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Workspace {
    /// A workspace rooted at `root`.
    pub fn new(
        root: PathBuf,
        add_dirs: Vec<PathBuf>,
        limits: Limits,
        env: BTreeMap<String, String>,
    ) -> std::io::Result<Self> {
        Ok(Self {
            shell_cwd: Mutex::new(root.clone()),
            told_cwd: Mutex::new(root.clone()),
            root,
            add_dirs,
            files: FileState::default(),
            jobs: Arc::default(),
            skills_loaded: Mutex::default(),
            todos: Mutex::new(Value::Array(Vec::new())),
            limits,
            env,
            scratch: tempfile::Builder::new()
                .prefix("twinwire-agent-")
                .tempdir()?,
            read_rules: Mutex::new(None),
            sandbox: None,
        })
    }

    /// Bash runs in `sandbox`, when there is one.
    #[must_use]
    pub fn with_sandbox(mut self, sandbox: Option<super::sandbox::Sandbox>) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The sandbox Bash runs in.
    pub fn sandbox(&self) -> Option<&super::sandbox::Sandbox> {
        self.sandbox.as_ref()
    }

    /// Where a sandboxed command may write: the session's directories, its temporary
    /// directory and the shell's bookkeeping.
    pub fn writable(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.root.clone()];
        dirs.extend(self.add_dirs.iter().cloned());
        dirs.push(self.scratch().to_owned());
        if let Some(tmp) = self.env.get("TMPDIR").filter(|t| !t.is_empty()) {
            dirs.push(PathBuf::from(tmp));
        }
        dirs
    }

    /// The session's rules now (again whenever they change): Glob and Grep leave out every
    /// file a Read deny rule covers, as a Read of it would be refused.
    pub fn set_read_rules(&self, rules: twinwire_policy::PermissionPolicy) {
        *lock(&self.read_rules) = Some(rules);
    }

    /// Whether a deny rule refuses a Read of `path` (absolute).
    pub fn read_denied(&self, path: &Path) -> bool {
        let rules = lock(&self.read_rules);
        let Some(rules) = rules.as_ref().filter(|r| !r.deny_rules().is_empty()) else {
            return false;
        };
        let input = serde_json::json!({ "file_path": path.display().to_string() });
        matches!(
            rules.decide("Read", &input),
            twinwire_policy::Decision::Deny(_)
        )
    }

    /// The session's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directories added with `--add-dir`.
    pub fn add_dirs(&self) -> &[PathBuf] {
        &self.add_dirs
    }

    /// Bash's working directory now (the session's directory if it has gone).
    pub fn shell_cwd(&self) -> PathBuf {
        let cwd = lock(&self.shell_cwd).clone();
        if cwd.is_dir() {
            cwd
        } else {
            self.root.clone()
        }
    }

    /// Where the next command starts.
    pub fn set_shell_cwd(&self, dir: PathBuf) {
        *lock(&self.shell_cwd) = dir;
    }

    /// The scratch directory.
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// A path as the tools take it: absolute as given, else under the shell's directory.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        if path.is_absolute() {
            path.to_owned()
        } else {
            self.shell_cwd().join(path)
        }
    }

    /// Notes that a skill was loaded; whether it was the first time.
    pub fn note_skill_loaded(&self, name: &str) -> bool {
        lock(&self.skills_loaded).insert(name.to_owned())
    }

    /// Whether `path` is inside the session's directory or one added with `--add-dir`.
    pub fn inside(&self, path: &Path) -> bool {
        std::iter::once(&self.root)
            .chain(&self.add_dirs)
            .any(|dir| path.starts_with(dir))
    }

    /// The note Claude Code sends when the working directory changed since the model was last
    /// told of it.
    pub fn cwd_note(&self) -> Option<String> {
        let now = self.shell_cwd();
        let mut told = lock(&self.told_cwd);
        if *told == now {
            return None;
        }
        let note = format!(
            "# Environment update\n - Primary working directory: {} (was {})",
            now.display(),
            told.display()
        );
        *told = now;
        Some(note)
    }

    /// Where Claude Code keeps its files for this user: `$CLAUDE_CONFIG_DIR`, else
    /// `$HOME/.claude`.
    pub fn config_dir(&self) -> PathBuf {
        if let Some(dir) = self.env.get("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
            return PathBuf::from(dir);
        }
        let home = self
            .env
            .get("HOME")
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from("/"), PathBuf::from);
        home.join(".claude")
    }

    /// The agent's own folders for this directory's sessions (background jobs' output, saved
    /// tool results), which its reading tools read without asking.
    pub fn own_dirs(&self) -> Vec<PathBuf> {
        let tasks = self.tasks_dir("x");
        let results = self.tool_results_dir("x");
        [tasks, results]
            .iter()
            .filter_map(|dir| dir.parent().and_then(Path::parent).map(Path::to_owned))
            .collect()
    }

    /// The session's folder for big tool results:
    /// `<config>/projects/<directory>/<session>/tool-results`.
    pub fn tool_results_dir(&self, session_id: &str) -> PathBuf {
        self.config_dir()
            .join("projects")
            .join(munged(&self.root))
            .join(session_id)
            .join("tool-results")
    }

    /// The session's folder for background jobs' output:
    /// `<temp>/claude-<uid>/<directory>/<session>/tasks`.
    pub fn tasks_dir(&self, session_id: &str) -> PathBuf {
        let temp = ["CLAUDE_CODE_TMPDIR", "TMPDIR"]
            .iter()
            .find_map(|name| self.env.get(*name).filter(|d| !d.is_empty()))
            .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
        temp.join(format!("claude-{}", super::jobs::user_id()))
            .join(munged(&self.root))
            .join(session_id)
            .join("tasks")
    }

    /// The todo list.
    pub fn todos(&self) -> Value {
        lock(&self.todos).clone()
    }

    /// Replaces the todo list; returns the old one.
    pub fn replace_todos(&self, todos: Value) -> Value {
        std::mem::replace(&mut *lock(&self.todos), todos)
    }
}

/// A directory's name in Claude Code's project folders: every character but letters and
/// digits becomes `-`.
pub fn munged(path: &Path) -> String {
    path.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
