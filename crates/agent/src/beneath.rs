//! Files written beneath a directory and nowhere else. The session files live under the
//! config directory (`<config>/projects/<dir>/…`), a tree the model can write to through its
//! tools: a link planted there (`projects/<dir>` → elsewhere) must not carry the session's
//! files out. So each directory on the way is opened relative to the one before with
//! `O_NOFOLLOW` (created when missing), and the file itself too: no link beneath the root is
//! followed, however it got there and whenever. The root itself is taken as it is (a config
//! directory that is a link is the user's choice).

use std::fs::File;
use std::io;
use std::path::{Component, Path};

/// How the file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// Appended to, created if missing.
    Append,
    /// Created, or emptied if it is there.
    Replace,
}

/// Opens `root/relative` for writing, creating the directories between, following no link
/// beneath `root`. `relative` holds only names (no `..`, not absolute).
pub fn open(root: &Path, relative: &Path, write: Write) -> io::Result<File> {
    let mut names = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is not a path beneath a directory", relative.display()),
                ))
            }
        }
    }
    let Some((file, dirs)) = names.split_last() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no file name"));
    };
    open_in(root, dirs, file, write)
}

#[cfg(unix)]
fn open_in(
    root: &Path,
    dirs: &[&std::ffi::OsStr],
    file: &std::ffi::OsStr,
    write: Write,
) -> io::Result<File> {
    use nix::fcntl::{openat, OFlag};
    use nix::sys::stat::{mkdirat, Mode};

    std::fs::create_dir_all(root)?;
    let directory = OFlag::O_DIRECTORY | OFlag::O_RDONLY | OFlag::O_CLOEXEC;
    let mut dir = nix::fcntl::open(root, directory, Mode::empty())?;
    for name in dirs {
        match mkdirat(&dir, *name, Mode::from_bits_truncate(0o700)) {
            Ok(()) | Err(nix::errno::Errno::EEXIST) => {}
            Err(err) => return Err(err.into()),
        }
        dir = openat(&dir, *name, directory | OFlag::O_NOFOLLOW, Mode::empty()).map_err(|err| {
            io::Error::other(format!(
                "{} beneath {} is not a directory of its own ({err})",
                Path::new(name).display(),
                root.display()
            ))
        })?;
    }
    let how = match write {
        Write::Append => OFlag::O_APPEND,
        Write::Replace => OFlag::O_TRUNC,
    };
    let fd = openat(
        &dir,
        file,
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | how,
        Mode::from_bits_truncate(0o600),
    )
    .map_err(|err| {
        io::Error::other(format!(
            "cannot open {} beneath {} ({err})",
            Path::new(file).display(),
            root.display()
        ))
    })?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_in(
    root: &Path,
    dirs: &[&std::ffi::OsStr],
    file: &std::ffi::OsStr,
    write: Write,
) -> io::Result<File> {
    let mut path = root.to_owned();
    path.extend(dirs);
    std::fs::create_dir_all(&path)?;
    path.push(file);
    let mut options = std::fs::OpenOptions::new();
    match write {
        Write::Append => options.create(true).append(true),
        Write::Replace => options.create(true).write(true).truncate(true),
    };
    options.open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_beneath_the_root_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("config");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("projects")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("projects/p")).unwrap();
        let err = open(&root, Path::new("projects/p/s.jsonl"), Write::Append).unwrap_err();
        assert!(
            err.to_string().contains("not a directory of its own"),
            "{err}"
        );
        std::os::unix::fs::symlink(outside.join("f"), root.join("projects/f")).unwrap();
        assert!(open(&root, Path::new("projects/f"), Write::Replace).is_err());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        // Without links, the directories are made and the file written.
        let mut file = open(&root, Path::new("projects/q/s.jsonl"), Write::Append).unwrap();
        std::io::Write::write_all(&mut file, b"x").unwrap();
        assert_eq!(
            std::fs::read(root.join("projects/q/s.jsonl")).unwrap(),
            b"x"
        );
        assert!(open(&root, Path::new("../x"), Write::Append).is_err());
    }
}
