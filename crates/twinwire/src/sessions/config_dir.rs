//! The CLI's config directory opened as a handle, and every path under it resolved beneath
//! that handle (cap-std: `openat2` with `RESOLVE_BENEATH` on Linux, a checked walk elsewhere,
//! Windows included). A symbolic link is followed only while it stays inside: a transcript, a
//! project directory or anything in between that is a link to an absolute path or climbs out
//! with `..` is refused, so reading, appending, creating and deleting never touch a file
//! outside. A relative link to another project or session inside is followed. The config
//! directory itself is opened by its path, as the user named it (it may be a link).
//!
//! Paths here are relative to the config directory: `projects/<project>/<session>.jsonl`.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, File, OpenOptions};

use super::SessionError;

/// `<config>/projects`, where the CLI keeps one directory per project.
pub(crate) const PROJECTS: &str = "projects";

/// An open config directory.
pub(crate) struct ConfigDir {
    dir: Dir,
}

/// Whether `err` is cap-std's refusal of a path that leads out of the directory (an absolute
/// or climbing symbolic link, or `openat2`'s `EXDEV` for one).
pub(crate) fn is_escape(err: &io::Error) -> bool {
    // cap-std reports it as `PermissionDenied` with this text (cap-primitives
    // `errors::escape_attempt`); a real permission error has the OS's text.
    err.kind() == io::ErrorKind::PermissionDenied && err.to_string().contains("outside of")
}

/// The error for an I/O failure on `path` (relative to the config directory).
pub(crate) fn error_at(err: io::Error, path: &Path) -> SessionError {
    if is_escape(&err) {
        SessionError::Outside(path.to_owned())
    } else {
        SessionError::Io(err)
    }
}

/// `projects/<project>/<name>`.
pub(crate) fn in_project(project: &str, name: &str) -> PathBuf {
    Path::new(PROJECTS).join(project).join(name)
}

impl ConfigDir {
    /// Opens the config directory at `path` (following links in `path` itself: the user named
    /// it).
    pub(crate) fn open(path: &Path) -> io::Result<Self> {
        let dir = Dir::open_ambient_dir(path, cap_std::ambient_authority())?;
        Ok(Self { dir })
    }

    /// The names of the project directories, in the directory's own order (as the SDKs read
    /// it: sessions modified in the same millisecond keep it). A project that is a link out of
    /// the config directory is left out, with a warning.
    pub(crate) fn project_names(&self) -> Vec<String> {
        self.projects().names
    }

    /// The project directories, and the first path refused as a link out of the config
    /// directory (`projects` itself, or a project).
    pub(crate) fn projects(&self) -> Projects {
        let mut projects = Projects::default();
        let entries = match self.dir.read_dir(PROJECTS) {
            Ok(entries) => entries,
            Err(err) => {
                if is_escape(&err) {
                    tracing::warn!("{PROJECTS} leads outside the config directory: not read");
                    projects.refused = Some(SessionError::Outside(PROJECTS.into()));
                }
                return projects;
            }
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            match self.dir_at(&Path::new(PROJECTS).join(&name)) {
                Ok(true) => projects.names.push(name),
                Ok(false) => {}
                Err(err) => {
                    projects.refused.get_or_insert(err);
                }
            }
        }
        projects
    }

    /// Whether `path` is a directory (through links that stay inside); an error for a link
    /// out.
    pub(crate) fn dir_at(&self, path: &Path) -> Result<bool, SessionError> {
        match self.dir.metadata(path) {
            Ok(meta) => Ok(meta.is_dir()),
            Err(err) if is_escape(&err) => {
                tracing::warn!(path = %path.display(), "a link out of the config directory: not followed");
                Err(SessionError::Outside(path.to_owned()))
            }
            Err(_) => Ok(false),
        }
    }

    /// The names in a directory, in its order; links are listed but not followed.
    pub(crate) fn entries(&self, path: &Path) -> Vec<(String, EntryKind)> {
        let Ok(entries) = self.dir.read_dir(path) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .map(|entry| {
                let kind = match entry.file_type() {
                    Ok(t) if t.is_file() => EntryKind::File,
                    Ok(t) if t.is_dir() => EntryKind::Dir,
                    _ => EntryKind::Other,
                };
                (entry.file_name().to_string_lossy().into_owned(), kind)
            })
            .collect()
    }

    /// The size of the regular file at `path`, `Ok(None)` when there is none (or it is not a
    /// file); an error for a link out.
    pub(crate) fn file_len(&self, path: &Path) -> Result<Option<u64>, SessionError> {
        match self.dir.metadata(path) {
            Ok(meta) => Ok(meta.is_file().then(|| meta.len())),
            Err(err) if is_escape(&err) => Err(SessionError::Outside(path.to_owned())),
            Err(_) => Ok(None),
        }
    }

    /// Opens the file at `path` for reading.
    pub(crate) fn open_read(&self, path: &Path) -> Result<std::fs::File, SessionError> {
        let file = self.dir.open(path).map_err(|e| error_at(e, path))?;
        Ok(file.into_std())
    }

    /// At most `max` bytes of the file at `path` as text; `None` when it cannot be read, is
    /// longer, or is not UTF-8.
    pub(crate) fn read_small(&self, path: &Path, max: u64) -> Option<String> {
        let file = self.dir.open(path).ok()?;
        let mut text = String::new();
        file.take(max + 1).read_to_string(&mut text).ok()?;
        (text.len() as u64 <= max).then_some(text)
    }

    /// Appends `bytes` to the existing file at `path` in one `write` (`O_APPEND`: a writer of
    /// the same file at the same time cannot interleave inside it).
    pub(crate) fn append(&self, path: &Path, bytes: &[u8]) -> Result<(), SessionError> {
        let mut options = OpenOptions::new();
        options.append(true);
        let mut file = self
            .dir
            .open_with(path, &options)
            .map_err(|e| error_at(e, path))?;
        file.write_all(bytes).map_err(SessionError::Io)
    }

    /// Appends `bytes` to the file at `path`, created `0600` if it is not there.
    pub(crate) fn append_or_create(&self, path: &Path, bytes: &[u8]) -> Result<(), SessionError> {
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        private(&mut options);
        let mut file = self
            .dir
            .open_with(path, &options)
            .map_err(|e| error_at(e, path))?;
        file.write_all(bytes).map_err(SessionError::Io)
    }

    /// Creates a new file at `path` that must not exist yet (not even as a link), `0600`.
    pub(crate) fn create_new(&self, path: &Path) -> Result<File, SessionError> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        private(&mut options);
        self.dir
            .open_with(path, &options)
            .map_err(|e| error_at(e, path))
    }

    /// Creates the directory `path` and its parents, `0700`; nothing when it is there.
    pub(crate) fn create_dirs(&self, path: &Path) -> Result<(), SessionError> {
        match self.dir.metadata(path) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Err(err) if is_escape(&err) => return Err(SessionError::Outside(path.to_owned())),
            _ => {}
        }
        let mut builder = cap_std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use cap_std::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        self.dir
            .create_dir_with(path, &builder)
            .map_err(|e| error_at(e, path))
    }

    /// Renames `from` to `to` (both under the config directory), replacing `to`.
    pub(crate) fn rename(&self, from: &Path, to: &Path) -> Result<(), SessionError> {
        self.dir
            .rename(from, &self.dir, to)
            .map_err(|e| error_at(e, to))
    }

    /// Removes the file (or the link itself) at `path`.
    pub(crate) fn remove_file(&self, path: &Path) -> Result<(), SessionError> {
        self.dir.remove_file(path).map_err(|e| error_at(e, path))
    }

    /// Removes the directory at `path` and everything in it (a link is removed, not
    /// followed); nothing when there is no directory or link there.
    pub(crate) fn remove_dir_all(&self, path: &Path) -> Result<(), SessionError> {
        match self.dir.symlink_metadata(path) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(error_at(err, path)),
            Ok(meta) if meta.is_dir() || meta.is_symlink() => {
                self.dir.remove_dir_all(path).map_err(|e| error_at(e, path))
            }
            Ok(_) => Ok(()),
        }
    }
}

/// The project directories of a config directory.
#[derive(Debug, Default)]
pub(crate) struct Projects {
    pub(crate) names: Vec<String>,
    /// The first path refused as a link out of the config directory.
    pub(crate) refused: Option<SessionError>,
}

/// What a directory entry is, without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    File,
    Dir,
    /// A link or anything else.
    Other,
}

/// Files only their owner can read (on Unix; Windows has no modes).
fn private(options: &mut OpenOptions) {
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = options;
}
