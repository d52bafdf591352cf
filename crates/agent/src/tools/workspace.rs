//! [`Workspace`]: what the tools of one session share: its directories, Bash's working
//! directory (which persists from one command to the next), the files read so far (so that
//! an edit is made only to a file the model has seen, as it is now), and the todo list.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde_json::Value;

use crate::config::Limits;

/// How many read files are remembered; the oldest are forgotten (and must be read again
/// before an edit).
const MAX_READ_FILES: usize = 10_000;

/// A file as it was when the model read it.
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

/// The shared state of a session's tools.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    add_dirs: Vec<PathBuf>,
    shell_cwd: Mutex<PathBuf>,
    read: Mutex<HashMap<PathBuf, FileStamp>>,
    todos: Mutex<Value>,
    /// Bounds on the tools.
    pub limits: Limits,
    /// The environment commands run with.
    pub env: BTreeMap<String, String>,
    /// A private directory for the shell's bookkeeping, removed with the workspace.
    scratch: tempfile::TempDir,
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
            root,
            add_dirs,
            read: Mutex::new(HashMap::new()),
            todos: Mutex::new(Value::Array(Vec::new())),
            limits,
            env,
            scratch: tempfile::Builder::new()
                .prefix("twinwire-agent-")
                .tempdir()?,
        })
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

    /// Notes that the model has seen `path` as it is now.
    pub fn mark_read(&self, path: &Path) {
        let Some(stamp) = FileStamp::of(path) else {
            return;
        };
        let mut read = lock(&self.read);
        if read.len() >= MAX_READ_FILES && !read.contains_key(path) {
            // Forgetting one arbitrary entry keeps the map bounded; an edit of it then asks
            // for a fresh read, which is safe.
            if let Some(any) = read.keys().next().cloned() {
                read.remove(&any);
            }
        }
        read.insert(path.to_owned(), stamp);
    }

    /// Whether `path` may be written over: it was read, and has not changed since.
    pub fn check_unchanged(&self, path: &Path) -> Result<(), String> {
        let seen = lock(&self.read).get(path).copied();
        match (seen, FileStamp::of(path)) {
            (_, None) => Ok(()),
            (None, Some(_)) => {
                Err("File has not been read yet. Read it first before writing to it.".to_owned())
            }
            (Some(seen), Some(now)) if seen != now => Err(
                "File has been modified since read, either by the user or by a linter. Read it \
                 again before attempting to write it."
                    .to_owned(),
            ),
            (Some(_), Some(_)) => Ok(()),
        }
    }

    /// Replaces the todo list; returns the old one.
    pub fn replace_todos(&self, todos: Value) -> Value {
        std::mem::replace(&mut *lock(&self.todos), todos)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
