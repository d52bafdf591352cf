//! Finding the `claude` executable.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{is_bare_name, Error, Result};

/// The environment variable that names the CLI to run.
pub const CLI_PATH_ENV: &str = "TWINWIRE_CLI_PATH";

/// The Claude Code version twinwire is tested against
/// ([`twinwire_protocol::CLAUDE_CODE_VERSION`]).
pub const PINNED_CLI_VERSION: &str = twinwire_protocol::CLAUDE_CODE_VERSION;

/// A program to run, with any arguments that must come first (`node cli.js` for the older
/// JavaScript builds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before twinwire's own.
    pub leading_args: Vec<OsString>,
}

impl CliCommand {
    /// Runs `path`: a native executable directly, a `.js` bundle with `node`.
    pub fn for_path(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        if path
            .extension()
            .is_some_and(|ext| ext == "js" || ext == "mjs")
        {
            Self {
                program: PathBuf::from("node"),
                leading_args: vec![path.into_os_string()],
            }
        } else {
            Self {
                program: path,
                leading_args: Vec::new(),
            }
        }
    }
}

/// Where `twinwire install-claude` (and `cargo xtask install-claude`) keeps the CLI of `version`:
/// `$TWINWIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/twinwire`, else `~/.cache/twinwire`, then
/// `claude-code/<version>`.
pub fn pinned_cli_dir(version: &str) -> Option<PathBuf> {
    let base = std::env::var_os("TWINWIRE_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("twinwire")))
        .or_else(|| home().map(|h| h.join(".cache/twinwire")))?;
    Some(base.join("claude-code").join(version))
}

/// Where `twinwire install-claude` keeps its builds: the directory of [`pinned_cli_dir`]'s
/// versions (`<cache>/claude-code`).
fn cache_versions_dir() -> Option<PathBuf> {
    pinned_cli_dir(PINNED_CLI_VERSION).and_then(|dir| dir.parent().map(Path::to_path_buf))
}

/// Finds the CLI: `explicit` if given (a bare name such as `fake-claude` is looked up on `PATH`,
/// as a shell does; anything with a directory is taken as a path), then `$TWINWIRE_CLI_PATH`,
/// then `claude` on `PATH`, then the usual install locations, then the builds that
/// `twinwire install-claude` cached: the pinned version first, then any other, newest first. On
/// Windows each place is tried with `claude.exe`, then `claude.cmd` (what npm installs), then
/// `claude`.
pub fn discover(explicit: Option<&Path>) -> Result<CliCommand> {
    discover_in(&Search::from_env(explicit), is_executable)
}

/// What discovery looks at, read once from the environment (a value of its own so the order
/// can be tested for any platform).
#[derive(Debug, Clone, Default)]
struct Search {
    explicit: Option<PathBuf>,
    cli_path_env: Option<PathBuf>,
    path: Option<OsString>,
    home: Option<PathBuf>,
    /// `%APPDATA%`, where npm puts its shims on Windows.
    app_data: Option<PathBuf>,
    /// The cache's directory of the pinned version.
    pinned: Option<PathBuf>,
    /// The cache's directories of other versions, newest first.
    cached: Vec<PathBuf>,
    windows: bool,
}

impl Search {
    fn from_env(explicit: Option<&Path>) -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Self {
            explicit: explicit.map(Path::to_path_buf),
            cli_path_env: var(CLI_PATH_ENV).map(PathBuf::from),
            path: var("PATH"),
            home: home(),
            app_data: var("APPDATA").map(PathBuf::from),
            pinned: pinned_cli_dir(PINNED_CLI_VERSION),
            cached: cache_versions_dir()
                .map(|dir| other_versions(&dir))
                .unwrap_or_default(),
            windows: cfg!(windows),
        }
    }

    /// The executable's names, in the order tried.
    fn names(&self) -> &'static [&'static str] {
        if self.windows {
            &["claude.exe", "claude.cmd", "claude"]
        } else {
            &["claude"]
        }
    }

    /// Every candidate after the explicit path and `$TWINWIRE_CLI_PATH`, in order.
    fn candidates(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if let Some(path) = &self.path {
            dirs.extend(std::env::split_paths(path));
        }
        if let Some(home) = &self.home {
            for rel in [
                ".npm-global/bin",
                ".local/bin",
                "node_modules/.bin",
                ".yarn/bin",
                ".claude/local",
            ] {
                dirs.push(home.join(rel));
            }
        }
        if self.windows {
            if let Some(app_data) = &self.app_data {
                dirs.push(app_data.join("npm"));
            }
        } else {
            dirs.push(PathBuf::from("/usr/local/bin"));
        }
        let mut candidates: Vec<PathBuf> = dirs
            .iter()
            .flat_map(|dir| self.names().iter().map(move |name| dir.join(name)))
            .collect();
        for dir in self.pinned.iter().chain(&self.cached) {
            candidates.extend(self.names().iter().map(|name| dir.join(name)));
        }
        candidates
    }

    /// A bare name given outright, looked up in each directory of `PATH` (on Windows with
    /// `.exe` and `.cmd` tried first when it has no extension).
    fn on_path(&self, name: &Path) -> Vec<PathBuf> {
        let Some(path) = &self.path else {
            return Vec::new();
        };
        let mut names = Vec::new();
        if self.windows && name.extension().is_none() {
            for ext in ["exe", "cmd"] {
                names.push(name.with_extension(ext));
            }
        }
        names.push(name.to_path_buf());
        std::env::split_paths(path)
            .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
            .collect()
    }
}

/// The versions cached in `dir` (`claude-code/<version>/`) but the pinned one, newest first.
fn other_versions(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut versions: Vec<(Vec<u64>, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if name == PINNED_CLI_VERSION {
                return None;
            }
            // `2.1.332`; scratch directories of an install (`.install-…`) are not versions.
            let parts: Option<Vec<u64>> = name.split('.').map(|part| part.parse().ok()).collect();
            Some((parts?, entry.path()))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    versions.into_iter().map(|(_, path)| path).collect()
}

fn discover_in(search: &Search, usable: impl Fn(&Path) -> bool) -> Result<CliCommand> {
    if let Some(name) = search.explicit.as_deref().filter(|path| is_bare_name(path)) {
        // A name, as a shell takes it: the first usable file of that name on PATH.
        if let Some(found) = search.on_path(name).into_iter().find(|path| usable(path)) {
            return Ok(CliCommand::for_path(found));
        }
        return Err(Error::CliNotFound {
            searched: "PATH".to_owned(),
            given: Some(name.to_path_buf()),
        });
    }
    if let Some(path) = &search.explicit {
        if usable(path) {
            return Ok(CliCommand::for_path(path));
        }
        // A path given outright is the only one tried: say what is wrong with it.
        if let Some(why) = unusable_reason(path) {
            return Err(Error::CliNotExecutable {
                path: path.clone(),
                why,
            });
        }
        return Err(Error::CliNotFound {
            searched: path.display().to_string(),
            given: Some(path.clone()),
        });
    }
    let mut searched = Vec::new();
    if let Some(path) = &search.cli_path_env {
        if usable(path) {
            return Ok(CliCommand::for_path(path));
        }
        let why = unusable_reason(path).unwrap_or("not found");
        searched.push(format!("${CLI_PATH_ENV}={} ({why})", path.display()));
    }
    for candidate in search.candidates() {
        if usable(&candidate) {
            return Ok(CliCommand::for_path(candidate));
        }
    }
    if search.path.is_some() {
        searched.push("PATH".to_owned());
    }
    searched.push("the usual install locations".to_owned());
    if let Some(pinned) = &search.pinned {
        // The cache, named by the directory of the pinned version, where it would be.
        searched.push(pinned.display().to_string());
    }
    if !search.cached.is_empty() {
        searched.push(format!("{} other cached versions", search.cached.len()));
    }
    Err(Error::CliNotFound {
        searched: searched.join(", "),
        given: None,
    })
}

/// Why a path that exists cannot be run as the CLI; `None` when it does not exist (or cannot
/// be looked at).
fn unusable_reason(path: &Path) -> Option<&'static str> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some("it is a directory");
    }
    (!is_executable(path)).then_some("it is not executable")
}

/// `$HOME`; on Windows, where it is usually unset, `%USERPROFILE%` after it.
fn home() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    var("HOME")
        .or_else(|| {
            if cfg!(windows) {
                var("USERPROFILE")
            } else {
                None
            }
        })
        .map(PathBuf::from)
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // A `.js` bundle runs through node and needs no execute bit.
        path.extension().is_some_and(|e| e == "js" || e == "mjs")
            || meta.permissions().mode() & 0o111 != 0
    }
    // Windows runs what its extension says it can: an `.exe`, a `.cmd`/`.bat` shim (which
    // the standard library runs through `cmd.exe`, quoting the arguments for it, and refusing
    // any it cannot quote safely), or a `.js` bundle through node.
    #[cfg(not(unix))]
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["exe", "cmd", "bat", "com", "js", "mjs"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_explicit_path_is_not_found_and_names_it() {
        let err = discover(Some(Path::new("/nonexistent/claude"))).unwrap_err();
        assert!(err.is_cli_not_found());
        let text = err.to_string();
        assert!(text.contains("/nonexistent/claude"), "{text}");
        // The option that named it, once.
        assert_eq!(text.matches("cli_path").count(), 1, "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn an_explicit_path_that_cannot_run_says_why() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("claude");
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = discover(Some(&plain)).unwrap_err();
        assert!(!err.is_cli_not_found(), "{err}");
        assert!(err.to_string().ends_with("it is not executable"), "{err}");
        let err = discover(Some(dir.path())).unwrap_err();
        assert!(err.to_string().ends_with("it is a directory"), "{err}");
    }

    #[test]
    fn a_failed_search_lists_each_place_once_and_names_the_option_once() {
        let search = Search {
            cli_path_env: Some("/env/claude".into()),
            path: Some(std::env::join_paths(["/p1"]).unwrap()),
            pinned: Some("/cache/claude-code/2.1.330".into()),
            ..Search::default()
        };
        let err = discover_in(&search, |_| false).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(
                "looked in: $TWINWIRE_CLI_PATH=/env/claude (not found), PATH, the usual install \
                 locations, /cache/claude-code/2.1.330"
            ),
            "{text}"
        );
        assert_eq!(text.matches("Options::cli_path").count(), 1, "{text}");
        assert_eq!(text.matches("npm install").count(), 1, "{text}");
    }

    /// The order candidates are tried in, by recording what discovery asks about, with `/`
    /// between their parts (Windows joins with `\\`).
    fn tried(search: &Search) -> Vec<String> {
        let asked = std::cell::RefCell::new(Vec::new());
        let _ = discover_in(search, |path| {
            asked
                .borrow_mut()
                .push(path.display().to_string().replace('\\', "/"));
            false
        });
        asked.into_inner()
    }

    #[test]
    fn the_discovery_order() {
        let search = Search {
            cli_path_env: Some("/env/claude".into()),
            path: Some(std::env::join_paths(["/p1", "/p2"]).unwrap()),
            home: Some("/home/u".into()),
            pinned: Some("/cache/claude-code/2.1.330".into()),
            ..Search::default()
        };
        assert_eq!(
            tried(&search),
            [
                "/env/claude",
                "/p1/claude",
                "/p2/claude",
                "/home/u/.npm-global/bin/claude",
                "/home/u/.local/bin/claude",
                "/home/u/node_modules/.bin/claude",
                "/home/u/.yarn/bin/claude",
                "/home/u/.claude/local/claude",
                "/usr/local/bin/claude",
                "/cache/claude-code/2.1.330/claude",
            ]
        );
        // The first usable one wins; an explicit path is the only one tried.
        let found =
            discover_in(&search, |p| p.starts_with("/p2") || p.starts_with("/cache")).unwrap();
        assert_eq!(found.program, PathBuf::from("/p2/claude"));
        let explicit = Search {
            explicit: Some("/x/claude".into()),
            ..search.clone()
        };
        assert_eq!(tried(&explicit), ["/x/claude"]);
    }

    #[test]
    fn windows_names_come_first_in_each_place() {
        let search = Search {
            path: Some(std::env::join_paths(["/p1"]).unwrap()),
            app_data: Some("/appdata".into()),
            windows: true,
            ..Search::default()
        };
        assert_eq!(
            tried(&search),
            [
                "/p1/claude.exe",
                "/p1/claude.cmd",
                "/p1/claude",
                "/appdata/npm/claude.exe",
                "/appdata/npm/claude.cmd",
                "/appdata/npm/claude"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_real_executable_on_path_is_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(&second).unwrap();
        // Not executable in the first directory: skipped.
        std::fs::write(first.join("claude"), "#!/bin/sh\n").unwrap();
        std::fs::write(second.join("claude"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            second.join("claude"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let search = Search {
            path: Some(std::env::join_paths([&first, &second]).unwrap()),
            ..Search::default()
        };
        assert_eq!(
            discover_in(&search, is_executable).unwrap().program,
            second.join("claude")
        );
    }

    #[test]
    fn a_bare_name_given_outright_is_looked_up_on_path_only() {
        let search = Search {
            explicit: Some("fake-claude".into()),
            path: Some(std::env::join_paths(["/p1", "/p2"]).unwrap()),
            home: Some("/home/u".into()),
            pinned: Some("/cache/claude-code/2.1.330".into()),
            ..Search::default()
        };
        assert_eq!(tried(&search), ["/p1/fake-claude", "/p2/fake-claude"]);
        let found = discover_in(&search, |p| p.starts_with("/p2")).unwrap();
        assert_eq!(found.program, PathBuf::from("/p2/fake-claude"));
        let err = discover_in(&search, |_| false).unwrap_err();
        assert!(err.is_cli_not_found());
        let text = err.to_string();
        assert!(
            text.starts_with("Claude Code CLI `fake-claude` not found on PATH"),
            "{text}"
        );
        // A path with a directory is taken as it is.
        for path in ["./fake-claude", "bin/fake-claude", "/abs/fake-claude"] {
            let search = Search {
                explicit: Some(path.into()),
                ..search.clone()
            };
            assert_eq!(tried(&search), [path]);
        }
        let windows = Search {
            windows: true,
            ..search.clone()
        };
        assert_eq!(
            tried(&windows),
            [
                "/p1/fake-claude.exe",
                "/p1/fake-claude.cmd",
                "/p1/fake-claude",
                "/p2/fake-claude.exe",
                "/p2/fake-claude.cmd",
                "/p2/fake-claude"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_bare_name_on_the_real_path_is_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("my-claude");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let search = Search {
            explicit: Some("my-claude".into()),
            path: Some(std::env::join_paths([dir.path()]).unwrap()),
            ..Search::default()
        };
        assert_eq!(
            discover_in(&search, is_executable).unwrap().program,
            program
        );
    }

    #[test]
    fn every_cached_version_is_found_after_the_pinned_one_newest_first() {
        let cache = tempfile::tempdir().unwrap();
        for version in [
            "2.1.9",
            "2.1.332",
            "2.1.40",
            ".install-2.1.1-7",
            PINNED_CLI_VERSION,
        ] {
            std::fs::create_dir_all(cache.path().join(version)).unwrap();
        }
        let others = other_versions(cache.path());
        let names: Vec<_> = others
            .iter()
            .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["2.1.332", "2.1.40", "2.1.9"]);
        let search = Search {
            pinned: Some(cache.path().join(PINNED_CLI_VERSION)),
            cached: others,
            ..Search::default()
        };
        let tried = tried(&search);
        let at = |version: &str| {
            let path = cache.path().join(version).join("claude");
            let path = path.display().to_string().replace('\\', "/");
            tried.iter().position(|p| *p == path).unwrap()
        };
        assert!(at(PINNED_CLI_VERSION) < at("2.1.332"));
        assert!(at("2.1.332") < at("2.1.40"));
        assert!(at("2.1.40") < at("2.1.9"));
        let found = discover_in(&search, |p| p.starts_with(cache.path().join("2.1.40"))).unwrap();
        assert_eq!(found.program, cache.path().join("2.1.40/claude"));
    }

    #[test]
    fn js_bundles_run_with_node() {
        let command = CliCommand::for_path("/x/cli.js");
        assert_eq!(command.program, PathBuf::from("node"));
        assert_eq!(command.leading_args, vec![OsString::from("/x/cli.js")]);
    }
}
