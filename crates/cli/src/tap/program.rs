//! Why the CLI given to `tap` could not be started, said once, with its path: the operating
//! system's answer (`ENOENT`, `EACCES`) names the symptom, and the file itself tells the cause
//! (absent, a directory, without an execute bit, a script whose interpreter is missing).

use std::io;
use std::path::{Path, PathBuf};

/// The error for a `program` that did not start with `err`.
pub fn cannot_start(program: &Path, err: twinwire::Error) -> anyhow::Error {
    match err {
        // The library's message repeats the path and the cause; this one says each once.
        twinwire::Error::SpawnFailed { path, cause } => {
            anyhow::anyhow!("cannot run {}: {}", path.display(), why(&path, &cause))
        }
        other => anyhow::anyhow!("cannot run {}: {other}", program.display()),
    }
}

/// The cause of `err` for `program`, from what is at its path.
fn why(program: &Path, err: &io::Error) -> String {
    let bare_name = program.components().count() == 1 && !program.is_absolute();
    let file = if bare_name {
        on_path(program)
    } else {
        Some(program.to_owned())
    };
    let Some(file) = file.filter(|file| file.exists()) else {
        if bare_name {
            return if program.exists() {
                format!(
                    "not found on PATH (a file of that name here is run as ./{})",
                    program.display()
                )
            } else {
                "not found on PATH".to_owned()
            };
        }
        return "not found".to_owned();
    };
    let found = |what: &str| {
        if bare_name {
            format!("{what} ({})", file.display())
        } else {
            what.to_owned()
        }
    };
    if file.is_dir() {
        return found("a directory, not a program");
    }
    if let Some(mode) = mode_without_execute(&file) {
        return found(&format!("not executable (mode {mode:o})"));
    }
    match err.kind() {
        // The file is there: what it needs to start is not (`#!` names a missing interpreter).
        io::ErrorKind::NotFound => match interpreter(&file) {
            Some(interpreter) => found(&format!("its interpreter {interpreter} was not found")),
            None => found("something it needs to start was not found (its loader?)"),
        },
        io::ErrorKind::PermissionDenied => found("permission denied"),
        #[cfg(unix)]
        _ if err.raw_os_error() == Some(nix::errno::Errno::ENOEXEC as i32) => {
            found("not a program this system can run (no `#!` line, not a binary for it)")
        }
        _ => found(&err.to_string()),
    }
}

/// Where `PATH` finds `name`: the first file of that name, executable or not.
fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The file's permission bits when nobody may execute it.
fn mode_without_execute(file: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).ok()?.permissions().mode() & 0o7777;
        (mode & 0o111 == 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// The interpreter a script's `#!` line names.
fn interpreter(file: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let read = std::fs::File::open(file).ok()?.read(&mut head).ok()?;
    let line = head[..read].strip_prefix(b"#!")?;
    let end = line.iter().position(|&b| b == b'\n').unwrap_or(line.len());
    let line = String::from_utf8_lossy(&line[..end]);
    line.split_whitespace().next().map(str::to_owned)
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn causes_are_read_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        let absent = io::Error::from(io::ErrorKind::NotFound);
        let plain = file(dir.path(), "plain", "#!/bin/sh\n", 0o644);
        assert_eq!(why(&plain, &denied), "not executable (mode 644)");
        assert_eq!(why(dir.path(), &denied), "a directory, not a program");
        assert_eq!(why(&dir.path().join("nope"), &absent), "not found");
        let orphan = file(dir.path(), "orphan", "#!/no/such/interpreter -x\n", 0o755);
        assert_eq!(
            why(&orphan, &absent),
            "its interpreter /no/such/interpreter was not found"
        );
        assert_eq!(
            why(Path::new("surely-no-such-program-here"), &absent),
            "not found on PATH"
        );
    }
}
