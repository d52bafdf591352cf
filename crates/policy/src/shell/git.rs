//! `git` as git reads its command line: its global options, its own commands (which no alias
//! can replace), the subcommands that run nothing of their own, and the configuration that
//! makes even those run programs.
//!
//! git runs a builtin when the subcommand is one, else a `git-X` program from its exec path
//! or `PATH`, and only when neither exists an alias (`git.c`'s order). So git's own commands
//! and installed externals are never aliases; for another name the alias configuration is
//! read the way git reads it (system, global, repository, `GIT_CONFIG_*`).

use std::path::{Path, PathBuf};

use super::effect::Effect;
use super::Word;

/// Global options with a value in the next word (or after `=`).
const VALUED: &[&str] = &[
    "-C",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--list-cmds",
    "--attr-source",
];

/// Global options that change nothing about what runs or which command it is.
const HARMLESS: &[&str] = &[
    "-P",
    "--no-pager",
    "--no-replace-objects",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--bare",
    "--no-advice",
    "--no-lazy-fetch",
];

/// Subcommands that read the repository and print, running nothing of their own.
const READING: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "whatchanged",
    "shortlog",
    "blame",
    "annotate",
    "grep",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "describe",
    "merge-base",
    "for-each-ref",
    "show-ref",
    "show-branch",
    "name-rev",
    "count-objects",
    "version",
    "diff-tree",
    "diff-index",
    "diff-files",
    "check-ignore",
    "check-attr",
    "check-ref-format",
    "var",
    "cherry",
    "range-diff",
    "verify-pack",
    "fsck",
    "reflog",
    "branch",
    "tag",
    "stash",
    "remote",
    "config",
    "worktree",
    "notes",
];

/// Subcommands that change the repository or the work tree but run no hook, editor or
/// remote of their own (filters and the like come from configuration, checked apart).
const CHANGING: &[&str] = &[
    "add",
    "rm",
    "mv",
    "restore",
    "reset",
    "init",
    "apply",
    "mktree",
    "mktag",
    "prune",
    "pack-refs",
    "update-ref",
    "symbolic-ref",
    "hash-object",
    "update-index",
    "read-tree",
    "write-tree",
    "commit-tree",
    "repack",
    "clean",
    "format-patch",
    "bundle",
    "archive",
    "sparse-checkout",
    "unpack-objects",
    "index-pack",
    "pack-objects",
    "prune-packed",
    "multi-pack-index",
    "commit-graph",
    "replace",
    "maintenance",
    "gc",
    "stripspace",
    "interpret-trailers",
    "mailinfo",
    "mailsplit",
    "column",
];

/// Options of any subcommand that run a program (`rebase -x`, `--ext-diff`, a remote's
/// helper) or open a pager (`grep -O`).
const RUNNING_OPTIONS: &[&str] = &[
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--extcmd",
    "--ssh",
    "--ext-diff",
    "--textconv",
    "--filters",
    "--open-files-in-pager",
    "--show-signature",
    "--edit-description",
];

/// Every subcommand git ships (builtins and its own programs, Git 2.4x's
/// `git --list-cmds=main,nohelpers`): none can be an alias.
pub const OWN_COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsmonitor--daemon",
    "gc",
    "get-tar-commit-id",
    "gitk",
    "gitweb",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "http-backend",
    "imap-send",
    "index-pack",
    "init",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-one-file",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// A git command line read: the directory given with `-C`, the subcommand and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitLine<'a> {
    /// The `-C` directories, in order (each relative to the one before).
    pub dirs: Vec<&'a str>,
    /// The subcommand.
    pub subcommand: &'a str,
    /// Its words after it.
    pub rest: &'a [Word],
    /// Why the line may run something before the subcommand is even read (`-c`,
    /// `--exec-path`, `-p`, a computed word).
    pub runs: Option<String>,
}

/// Reads git's global options; `None` when there is no subcommand.
pub fn read(args: &[Word]) -> Option<GitLine<'_>> {
    let mut at = 0;
    let mut dirs = Vec::new();
    let mut runs = None;
    while let Some(word) = args.get(at) {
        if !word.literal {
            runs.get_or_insert_with(|| format!("has a computed operand `{}`", word.text));
            return Some(GitLine {
                dirs,
                subcommand: "",
                rest: &args[at..],
                runs,
            });
        }
        let text = word.text.as_str();
        if !text.starts_with('-') {
            return Some(GitLine {
                dirs,
                subcommand: text,
                rest: &args[at + 1..],
                runs,
            });
        }
        let name = text.split('=').next().unwrap_or(text);
        if text.starts_with("-c") || name == "--config-env" || name == "--exec-path" {
            runs.get_or_insert_with(|| {
                format!("sets configuration that may run commands (`{text}`)")
            });
        } else if matches!(text, "-p" | "--paginate") {
            runs.get_or_insert_with(|| format!("runs a pager (`{text}`)"));
        } else if VALUED.contains(&name) {
            if name == text {
                at += 1;
                if text == "-C" {
                    if let Some(dir) = args.get(at) {
                        dirs.push(dir.text.as_str());
                    }
                }
            }
        } else if !HARMLESS.contains(&text) {
            runs.get_or_insert_with(|| {
                format!("has an option git reads before its command (`{text}`)")
            });
        }
        at += 1;
    }
    None
}

/// The command line without the global options that change neither what runs nor which
/// command it is (`git -C dir --no-pager log -1` → `git log -1`), for allow rules; `None`
/// when there are none or the line has others.
pub fn plain_form(args: &[Word]) -> Option<String> {
    let line = read(args)?;
    if line.runs.is_some() || line.subcommand.is_empty() || args.first()?.text == line.subcommand {
        return None;
    }
    let mut words = vec!["git", line.subcommand];
    words.extend(line.rest.iter().map(|w| w.text.as_str()));
    Some(words.join(" "))
}

/// What a git command does beyond reading and printing, from its text alone: `None` when it
/// only reads (configuration aside, see [`configured_to_run`]).
pub fn effect(args: &[Word]) -> Option<Effect> {
    let Some(line) = read(args) else {
        return None; // `git` alone, `git --version`: prints.
    };
    if let Some(why) = line.runs {
        return Some(Effect::Runs(why));
    }
    let sub = line.subcommand;
    for word in line.rest {
        if !word.literal {
            return Some(Effect::Runs(format!(
                "has a computed operand `{}`",
                word.text
            )));
        }
        let option = word.text.split('=').next().unwrap_or("");
        let pager = sub == "grep" && word.text.starts_with("-O");
        let editor = sub == "tag" && matches!(option, "-e" | "--edit");
        if RUNNING_OPTIONS.contains(&option) || pager || editor {
            return Some(Effect::Runs(format!("runs a program (`{}`)", word.text)));
        }
    }
    let operands: Vec<&str> = line
        .rest
        .iter()
        .map(|w| w.text.as_str())
        .filter(|w| !w.starts_with('-'))
        .collect();
    let has = |options: &[&str]| {
        line.rest
            .iter()
            .any(|w| options.contains(&w.text.split('=').next().unwrap_or("")))
    };
    let writes = |why: &str| Some(Effect::Writes(format!("`git {sub}` {why}")));
    let runs = |why: &str| Some(Effect::Runs(format!("`git {sub}` {why}")));
    if READING.contains(&sub) {
        return match sub {
            "diff" | "log" | "show" | "whatchanged" if has(&["--output"]) => {
                writes("writes its output to a file")
            }
            "branch"
                if has(&[
                    "-d",
                    "-D",
                    "-m",
                    "-M",
                    "-c",
                    "-C",
                    "--delete",
                    "--move",
                    "--copy",
                    "-u",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "-f",
                    "--force",
                ]) || (!operands.is_empty()
                    && !has(&[
                        "-l",
                        "--list",
                        "--contains",
                        "--no-contains",
                        "--merged",
                        "--no-merged",
                        "--points-at",
                        "-a",
                        "-r",
                    ])) =>
            {
                writes("changes branches")
            }
            "tag" if has(&["-a", "-s", "--annotate", "--sign"]) => {
                runs("may open an editor or sign with gpg")
            }
            "tag"
                if has(&["-d", "--delete", "-f", "--force", "-m", "-F"])
                    || (!operands.is_empty()
                        && !has(&[
                            "-l",
                            "--list",
                            "--contains",
                            "--no-contains",
                            "--merged",
                            "--no-merged",
                            "--points-at",
                            "-n",
                        ])) =>
            {
                writes("changes tags")
            }
            "stash" if !matches!(operands.first(), Some(&("list" | "show"))) => {
                writes("changes the stash and the work tree")
            }
            "remote" if !matches!(operands.first(), None | Some(&("get-url" | "show"))) => {
                runs("changes remotes or reaches them")
            }
            "remote" if operands.first() == Some(&"show") && !has(&["-n"]) => {
                runs("reaches the remote through its transport")
            }
            "config"
                if !has(&[
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "--list",
                    "-l",
                    "--get-urlmatch",
                    "--get-color",
                    "--get-colorbool",
                ]) && !matches!(operands.first(), Some(&("get" | "list"))) =>
            {
                runs("writes configuration that may run commands later")
            }
            "worktree" if operands.first() != Some(&"list") => runs("runs the checkout's hooks"),
            "notes" if !matches!(operands.first(), None | Some(&("list" | "show"))) => {
                runs("may open an editor")
            }
            "reflog" if matches!(operands.first(), Some(&("expire" | "delete"))) => {
                writes("changes the reflog")
            }
            "fsck" if has(&["--lost-found"]) => writes("writes lost objects"),
            _ => None,
        };
    }
    if CHANGING.contains(&sub) {
        if sub == "archive" && has(&["--remote", "--exec"]) {
            return runs("reaches a remote");
        }
        if matches!(sub, "gc" | "maintenance") {
            return runs("may run hooks and other git programs");
        }
        return writes("changes the repository or the work tree");
    }
    if OWN_COMMANDS.contains(&sub) {
        return runs("runs hooks, an editor, a remote's transport or other programs");
    }
    runs("is not one of git's own commands: an installed `git-` program or an alias")
}

/// Configuration keys (section, or section and key, lower-case) that make even reading
/// subcommands run programs: filters, diff drivers, the file system monitor, signature
/// checks, and includes whose contents the rules do not read.
const RUNNING_KEYS: &[&str] = &[
    "core.fsmonitor",
    "diff.external",
    "log.showsignature",
    "filter.",
    "diff.",
    "gpg.",
    "include.",
    "includeif.",
];

/// Why git's configuration may make a command that otherwise only reads run programs, read
/// where git reads it for a command started in `dir`: the system and global files, the
/// repository's, and `GIT_CONFIG_*` in the environment.
pub fn configured_to_run(dir: &Path, home: Option<&Path>) -> Option<String> {
    for var in [
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXTERNAL_DIFF",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_DIR",
        "GIT_EXEC_PATH",
    ] {
        if std::env::var_os(var).is_some() {
            return Some(format!("`{var}` is set in the environment"));
        }
    }
    for file in config_files(dir, home) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for key in keys(&text) {
            let runs = RUNNING_KEYS.iter().any(|k| {
                key == *k || (k.ends_with('.') && key.starts_with(k) && running_subkey(k, &key))
            });
            if runs {
                return Some(format!("`{key}` in {} may run a program", file.display()));
            }
        }
    }
    None
}

/// Whether a key under a driver section (`diff.<driver>.textconv`, `filter.<x>.clean`) names
/// a program; `diff.color`-style keys do not.
fn running_subkey(section: &str, key: &str) -> bool {
    match section {
        "diff." => {
            key.ends_with(".textconv") || key.ends_with(".command") || key == "diff.external"
        }
        "gpg." => key.ends_with(".program") || key == "gpg.program",
        _ => true,
    }
}

/// The value of `alias.<name>` where git would read it, if any.
pub fn alias(dir: &Path, home: Option<&Path>, name: &str) -> Option<String> {
    let wanted = format!("alias.{}", name.to_ascii_lowercase());
    let mut found = None;
    for file in config_files(dir, home) {
        if let Ok(text) = std::fs::read_to_string(&file) {
            for (key, value) in entries(&text) {
                if key == wanted {
                    found = Some(value);
                }
            }
        }
    }
    found
}

/// The configuration files git reads, in order: system, global, repository.
fn config_files(dir: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitconfig")];
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".config")));
    if let Some(xdg) = xdg {
        files.push(xdg.join("git/config"));
    }
    if let Some(home) = home {
        files.push(home.join(".gitconfig"));
    }
    if let Some(git_dir) = repository(dir) {
        files.push(git_dir.join("config"));
        files.push(git_dir.join("config.worktree"));
    }
    files
}

/// The repository's git directory for a command in `dir`: the first `.git` above it (a
/// directory, or a file naming one).
fn repository(dir: &Path) -> Option<PathBuf> {
    let mut at = Some(dir);
    while let Some(current) = at {
        let dot_git = current.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if let Ok(text) = std::fs::read_to_string(&dot_git) {
            let target = text.trim().strip_prefix("gitdir:")?.trim().to_owned();
            return Some(current.join(target));
        }
        at = current.parent();
    }
    None
}

/// The keys of a git configuration file (`section.key` or `section.sub.key`, the section
/// and key lower-cased).
fn keys(text: &str) -> Vec<String> {
    entries(text).into_iter().map(|(k, _)| k).collect()
}

/// The entries of a git configuration file: keys as [`keys`] gives them, values as written
/// (quotes kept; enough to tell an alias that starts a shell).
fn entries(text: &str) -> Vec<(String, String)> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let mut rest = line;
        if let Some(header) = rest.strip_prefix('[') {
            let Some((inside, after)) = header.split_once(']') else {
                continue;
            };
            section = match inside.split_once(char::is_whitespace) {
                Some((name, sub)) => format!(
                    "{}.{}",
                    name.to_ascii_lowercase(),
                    sub.trim().trim_matches('"')
                ),
                None => {
                    // `[section.sub]`: the old form, the subsection lower-cased.
                    inside.to_ascii_lowercase()
                }
            };
            rest = after.trim();
            if rest.is_empty() {
                continue;
            }
        }
        let (key, value) = match rest.split_once('=') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => (rest, "true"),
        };
        out.push((
            format!("{section}.{}", key.to_ascii_lowercase()),
            value.to_owned(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Word> {
        text.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn global_options_are_read_as_git_reads_them() {
        assert_eq!(
            plain_form(&words("-C sub --no-pager log -1")).as_deref(),
            Some("git log -1")
        );
        assert_eq!(plain_form(&words("log -1")), None);
        assert!(effect(&words("-c core.pager=x log")).is_some());
        assert!(effect(&words("-C sub status")).is_none());
        assert!(effect(&words("--exec-path=/tmp status")).is_some());
        assert!(effect(&words("-p log")).is_some());
    }

    #[test]
    fn subcommands_by_what_they_do() {
        for reading in [
            "status",
            "log -p",
            "diff HEAD",
            "branch -a",
            "tag -l",
            "stash list",
            "remote -v",
            "config --get user.name",
            "worktree list",
        ] {
            assert_eq!(effect(&words(reading)), None, "{reading}");
        }
        for changing in [
            "add .",
            "rm x",
            "branch new",
            "tag v1",
            "stash",
            "reset --hard",
        ] {
            assert!(
                matches!(effect(&words(changing)), Some(Effect::Writes(_))),
                "{changing}"
            );
        }
        for running in [
            "commit -m x",
            "push",
            "rebase -x ls HEAD~1",
            "lfs track x",
            "config core.pager x",
            "diff --ext-diff",
            "grep -O x",
            "tag -s v1",
        ] {
            assert!(
                matches!(effect(&words(running)), Some(Effect::Runs(_))),
                "{running}"
            );
        }
    }

    #[test]
    fn configuration_is_read_where_git_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        assert_eq!(configured_to_run(&repo.join("sub"), Some(&home)), None);
        std::fs::write(
            repo.join(".git/config"),
            "[core]\n\tbare = false\n[alias]\n\tco = checkout\n\tz = \"!rm x\"\n[diff \"pdf\"]\n\ttextconv = pdftotext\n",
        )
        .unwrap();
        assert_eq!(
            alias(&repo.join("sub"), Some(&home), "z").as_deref(),
            Some("\"!rm x\"")
        );
        assert_eq!(alias(&repo, Some(&home), "co").as_deref(), Some("checkout"));
        assert!(configured_to_run(&repo, Some(&home))
            .unwrap()
            .contains("diff.pdf.textconv"));
        std::fs::write(repo.join(".git/config"), "[diff]\n\tcolorMoved = zebra\n").unwrap();
        assert_eq!(configured_to_run(&repo, Some(&home)), None);
        std::fs::write(home.join(".gitconfig"), "[core]\n\tfsmonitor = true\n").unwrap();
        assert!(configured_to_run(&repo, Some(&home)).is_some());
    }
}
