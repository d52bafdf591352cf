//! Runs commands in real bash inside a throwaway sandbox and records every program executed.
//!
//! One sandbox runs a batch: `strace -f` (execve and the fork family, to know which process
//! descends from which) around `bwrap` (a read-only root, a fresh tmpfs `/tmp`, a writable
//! scratch directory, no network, its own process namespace) around a driver script that
//! runs each command in a fresh `bash` the way Claude Code's Bash tool does (`expand_aliases`
//! on, `extglob` off, the command through `eval`, standard input from `/dev/null`), each under
//! `timeout`. Each execve is attributed to the command whose bash it descends from.
//!
//! The programs that reach the network or the system (`rm`, `curl`, `kill`, …) are stand-ins
//! (links to `true` in a directory first on `PATH`); everything else is the machine's own, so
//! that executors (`env`, `find`, `xargs`, `awk`, `python3`, …) really run what they run, and
//! programs that write files (`cp`, `mv`, `touch`, `sort -o`) really try to: the root is
//! read-only, but strace records every attempt.
//!
//! Besides programs, strace records file effects: every call that writes, creates, removes,
//! renames or changes a file (`openat` with a write flag, `unlink`, `rename`, `mkdir`,
//! `chmod`, `truncate`, `utimensat`, links, …), whatever its result, and every open for
//! reading of the directory beside the work directory (`outside`) or of a process's
//! environment. Each command's output goes to a file, so that a secret planted in the
//! environment (`TWINWIRE_CANARY`) can be looked for in it.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Programs replaced by stand-ins that do nothing.
pub const STAND_INS: &[&str] = &[
    "rm", "chown", "dd", "shred", "rmdir", "unlink", "curl", "wget", "cargo", "npm", "pip",
    "apt-get", "kill", "pkill", "killall", "reboot", "shutdown", "sudo", "docker", "hostname",
    "date",
];

/// The secret every command's environment holds; no read-only command may print it.
pub const CANARY: &str = "twinwire-canary-5f1e";

/// The marker before a case's number in its bash's `$0`.
const MARKER: &str = "twinwire-case-";

/// One program executed: its path's last component and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exec {
    pub program: String,
    pub args: Vec<String>,
    /// The earlier exec (index in its command's list) whose program executed this one;
    /// `None` when the command's own bash did (itself, a subshell, a pipeline's fork).
    pub by: Option<usize>,
}

/// What one command did besides executing programs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    /// Files written, created, removed, renamed or changed (absolute where it could be
    /// told), each with the call.
    pub writes: Vec<String>,
    /// Files read outside the work directory that no read-only command may read (the
    /// `outside` directory, a process's environment).
    pub reads_outside: Vec<String>,
    /// Whether its output holds the planted secret.
    pub printed_secret: bool,
}

/// What one command did.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub execs: Vec<Exec>,
    pub effects: Effects,
}

/// The tools the sandbox needs, and the tree every batch starts from.
pub struct Sandbox {
    /// How long one command may run before it is killed.
    pub limit: std::time::Duration,
    strace: PathBuf,
    bwrap: PathBuf,
    stand_ins: tempfile::TempDir,
    /// The template: `tree/work` (where commands run) and `tree/outside` beside it. Each
    /// batch runs in a fresh copy mounted at this same path, so that decisions made against
    /// the template see the paths the commands see.
    root: tempfile::TempDir,
    batches: std::sync::atomic::AtomicUsize,
}

/// The files of the work directory and of `outside`, and the links between them.
fn populate(tree: &Path, at: &Path) {
    let work = tree.join("work");
    let outside = tree.join("outside");
    std::fs::create_dir_all(work.join("src")).expect("creating the work directory");
    std::fs::create_dir_all(&outside).expect("creating the outside directory");
    for (name, text) in [
        ("f", "x\n"),
        ("x", "x\n"),
        ("a.txt", "a\n"),
        ("b.txt", "b\n"),
        ("README.md", "# x\n"),
        ("src/main.rs", "fn main() {}\n"),
    ] {
        std::fs::write(work.join(name), text).expect("writing a work file");
    }
    std::fs::write(outside.join("secret"), "s\n").expect("writing the outside file");
    // A link out of the work directory, to where the commands see `outside`.
    let _ = std::os::unix::fs::symlink(at.join("outside"), work.join("out"));
}

impl Sandbox {
    /// Finds strace and bwrap (`$TWINWIRE_STRACE`, `$TWINWIRE_BWRAP`, else on `PATH`) and makes
    /// the stand-ins and the template tree.
    pub fn new() -> Self {
        Self::with_stand_ins(&[])
    }

    /// [`Sandbox::new`] with stand-ins for `extra` programs too (those not installed here).
    pub fn with_stand_ins(extra: &[String]) -> Self {
        let strace = tool("TWINWIRE_STRACE", "strace", "strace");
        let bwrap = tool("TWINWIRE_BWRAP", "bwrap", "bubblewrap");
        // Outside /tmp, which the sandbox replaces: the target directory's own (cargo names
        // it when it builds the test; it is not in the test's environment).
        let target: std::ffi::OsString =
            option_env!("CARGO_TARGET_TMPDIR").map_or_else(|| ".".into(), Into::into);
        let stand_ins = tempfile::Builder::new()
            .prefix("twinwire-stand-ins-")
            .tempdir_in(&target)
            .expect("creating the stand-ins directory");
        let truth = ["/usr/bin/true", "/bin/true"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("no `true` program");
        for name in STAND_INS
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
        {
            let _ = std::os::unix::fs::symlink(truth, stand_ins.path().join(name));
        }
        let root = tempfile::Builder::new()
            .prefix("twinwire-differential-")
            .tempdir_in(&target)
            .expect("creating the sandbox's root");
        let tree = root.path().join("tree");
        populate(&tree, &tree);
        Self {
            limit: std::time::Duration::from_secs(10),
            strace,
            bwrap,
            stand_ins,
            root,
            batches: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The stand-ins' directory (first on the commands' `PATH`).
    pub fn stand_ins(&self) -> &Path {
        self.stand_ins.path()
    }

    /// Where the commands run (as they see it, and as decisions should).
    pub fn work(&self) -> PathBuf {
        self.tree().join("work")
    }

    fn tree(&self) -> PathBuf {
        self.root.path().join("tree")
    }

    /// Runs `commands` (one batch) and returns what each executed, by index.
    pub fn run(&self, commands: &[String]) -> Vec<Vec<Exec>> {
        self.trace(commands).into_iter().map(|r| r.execs).collect()
    }

    /// Runs `commands` (one batch) and returns what each executed and did to files.
    pub fn trace(&self, commands: &[String]) -> Vec<Run> {
        let batch = self
            .batches
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let scratch = self.root.path().join(format!("batch-{batch}"));
        let tree = self.tree();
        populate(&scratch, &tree);
        let outputs = scratch.join("output");
        std::fs::create_dir_all(&outputs).expect("creating the output directory");
        let cases = scratch.join("cases");
        let mut file = std::fs::File::create(&cases).expect("writing the cases");
        for command in commands {
            file.write_all(command.as_bytes()).expect("writing a case");
            file.write_all(b"\0").expect("writing a case");
        }
        drop(file);
        let driver = scratch.join("driver.sh");
        std::fs::write(
            &driver,
            format!(
                r#"i=0
while IFS= read -r -d '' cmd; do
  timeout -s KILL {limit} /bin/bash --norc --noprofile -c 'shopt -s expand_aliases; shopt -u extglob; eval "$1"' "{MARKER}$i" "$cmd" </dev/null >"{outputs}/$i" 2>&1
  i=$((i+1))
done < "$1"
"#,
                outputs = tree.join("output").display(),
                limit = self.limit.as_secs().max(1),
            ),
        )
        .expect("writing the driver");
        let log = self.root.path().join(format!("strace-{batch}.log"));
        let path = format!(
            "{}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            self.stand_ins().display()
        );
        let status = Command::new(&self.strace)
            // Pids as strace sees them: the sandbox has a process namespace of its own.
            .args([
                "--pidns-translation",
                "-f",
                "-qq",
                "--seccomp-bpf",
                "-s",
                "65536",
            ])
            .args(["-e", "signal=none"])
            .args(["-e", TRACED])
            .arg("-o")
            .arg(&log)
            .arg(&self.bwrap)
            .args([
                "--ro-bind",
                "/",
                "/",
                "--tmpfs",
                "/tmp",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
            ])
            .arg("--bind")
            .arg(&scratch)
            .arg(&tree)
            .args(["--unshare-all", "--die-with-parent", "--new-session"])
            .arg("--chdir")
            .arg(tree.join("work"))
            .args(["--setenv", "PATH", &path, "--setenv", "HOME", "/tmp"])
            .args(["--setenv", "TWINWIRE_CANARY", CANARY])
            // The tree lies inside the checkout's target directory: git must not find the
            // checkout's repository above it (its history is not the commands' to read).
            .arg("--setenv")
            .arg("GIT_CEILING_DIRECTORIES")
            .arg(&tree)
            .args(["--", "/bin/bash", "--norc", "--noprofile"])
            .arg(tree.join("driver.sh"))
            .arg(tree.join("cases"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("running strace and bwrap");
        assert!(status.success(), "the sandbox failed: {status}");
        let text = std::fs::read_to_string(&log).expect("reading the strace log");
        let mut runs = attribute(&text, commands.len(), &tree);
        for (i, run) in runs.iter_mut().enumerate() {
            let output = std::fs::read(outputs.join(i.to_string())).unwrap_or_default();
            run.effects.printed_secret = String::from_utf8_lossy(&output).contains(CANARY);
        }
        let _ = std::fs::remove_file(&log);
        let _ = std::fs::remove_dir_all(&scratch);
        runs
    }
}

/// What strace records: programs, processes, directory changes and every call that takes a
/// path and may change a file (opens for reading are kept only where they matter).
const TRACED: &str = "trace=execve,execveat,fork,vfork,clone,clone3,chdir,open,openat,creat,\
unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,rmdir,chmod,fchmodat,truncate,link,\
linkat,symlink,symlinkat,utimensat,utimes,chown,lchown,fchownat,mknod,mknodat";

/// A tool the harness needs: its variable, else on `PATH`.
fn tool(env: &str, name: &str, package: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("no {name}: `cargo xtask test` installs Debian's `{package}`, or set {env}")
        })
}

/// The execs and file effects of each case, from the strace log: a case's bash is the
/// execve whose `$0` is the marker; every later call of it or of a process it forked belongs
/// to it. Each process's current program (an exec's index, or the case's bash) and
/// directory follow forks.
fn attribute(log: &str, cases: usize, tree: &Path) -> Vec<Run> {
    #[derive(Clone)]
    struct Process {
        case: usize,
        image: Option<usize>,
        cwd: PathBuf,
    }
    let mut processes: HashMap<u32, Process> = HashMap::new();
    // Which process forked which, read first: a child's first calls can be logged before its
    // parent's fork returns.
    let parents = forks(log);
    let mut out = vec![Run::default(); cases];
    let mut pending: HashMap<u32, String> = HashMap::new();
    let outside = tree.join("outside");
    for line in log.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let Ok(pid) = pid.trim().parse::<u32>() else {
            continue;
        };
        let rest = rest.trim_start();
        // A call split over two lines by another process's.
        let call = if let Some(start) = rest.strip_suffix("<unfinished ...>") {
            pending.insert(pid, start.to_owned());
            continue;
        } else if rest.starts_with("<... ") {
            let Some(start) = pending.remove(&pid) else {
                continue;
            };
            let tail = rest.split_once("resumed>").map_or("", |(_, t)| t);
            format!("{start}{tail}")
        } else {
            rest.to_owned()
        };
        let Some(result) = call.rsplit_once(" = ").map(|(_, r)| r.trim()) else {
            continue;
        };
        if !processes.contains_key(&pid) {
            // A process forked before its parent's clone returned in the log.
            if let Some(parent) = parents.get(&pid).and_then(|p| processes.get(p)).cloned() {
                processes.insert(pid, parent);
            }
        }
        if call.starts_with("clone") || call.starts_with("fork") || call.starts_with("vfork") {
            if let Some(child) = forked(result) {
                if let (false, Some(process)) =
                    (processes.contains_key(&child), processes.get(&pid).cloned())
                {
                    processes.insert(child, process);
                }
            }
            continue;
        }
        if call.starts_with("execve(") || call.starts_with("execveat(") {
            if result != "0" {
                continue;
            }
            let Some((path, args)) = parse_exec(&call) else {
                continue;
            };
            if let Some(case) = args
                .get(5)
                .and_then(|a| a.strip_prefix(MARKER))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|c| path.ends_with("/bash") && !processes.contains_key(&pid) && *c < cases)
            {
                processes.insert(
                    pid,
                    Process {
                        case,
                        image: None,
                        cwd: tree.join("work"),
                    },
                );
                continue;
            }
            let Some(process) = processes.get_mut(&pid) else {
                continue;
            };
            let execs = &mut out[process.case].execs;
            execs.push(Exec {
                program: path.rsplit('/').next().unwrap_or(&path).to_owned(),
                args: args.into_iter().skip(1).collect(),
                by: process.image,
            });
            process.image = Some(execs.len() - 1);
            continue;
        }
        let Some(process) = processes.get_mut(&pid) else {
            continue;
        };
        let paths = strings(&call);
        let Some(first) = paths.first() else {
            continue;
        };
        let absolute = |p: &str| lexical(&process.cwd.join(p));
        if call.starts_with("chdir(") {
            if result == "0" {
                process.cwd = absolute(first);
            }
            continue;
        }
        let effects = &mut out[process.case].effects;
        if call.starts_with("open") || call.starts_with("creat") {
            let writes = call.starts_with("creat")
                || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
                    .iter()
                    .any(|flag| call.contains(flag));
            let path = absolute(first);
            if writes {
                if !harmless_write(&path) {
                    effects.writes.push(format!("{} ({call})", path.display()));
                }
            } else if path.starts_with(&outside)
                || (path.starts_with("/proc") && path.ends_with("environ"))
            {
                effects.reads_outside.push(path.display().to_string());
            }
            continue;
        }
        // Every other traced call changes a file.
        for path in &paths {
            let path = absolute(path);
            if !harmless_write(&path) {
                effects.writes.push(format!("{} ({call})", path.display()));
            }
        }
    }
    out
}

/// The process a fork's result names (`= 2 /* 23249 in strace's PID NS */` inside the
/// sandbox's namespace).
fn forked(result: &str) -> Option<u32> {
    let child = match result.split_once("/* ") {
        Some((_, translated)) => translated.split_whitespace().next(),
        None => result.split_whitespace().next(),
    };
    child.and_then(|r| r.parse::<u32>().ok())
}

/// Every fork of the log: child to parent.
fn forks(log: &str) -> HashMap<u32, u32> {
    let mut parents = HashMap::new();
    let mut pending: HashMap<u32, bool> = HashMap::new();
    for line in log.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let Ok(pid) = pid.trim().parse::<u32>() else {
            continue;
        };
        let rest = rest.trim_start();
        let forking = |text: &str| {
            text.starts_with("clone") || text.starts_with("fork") || text.starts_with("vfork")
        };
        let is_fork = if rest.ends_with("<unfinished ...>") {
            pending.insert(pid, forking(rest));
            continue;
        } else if rest.starts_with("<... ") {
            pending.remove(&pid).unwrap_or(false)
        } else {
            forking(rest)
        };
        if let (true, Some((_, result))) = (is_fork, rest.rsplit_once(" = ")) {
            if let Some(child) = forked(result.trim()) {
                parents.insert(child, pid);
            }
        }
    }
    parents
}

/// Writes that change nothing of the user's: the null device, terminals, bash's own
/// here-document files.
fn harmless_write(path: &Path) -> bool {
    let text = path.to_string_lossy();
    text.starts_with("/dev/")
        || text.starts_with("/proc/self/fd")
        || text.starts_with("/tmp/sh-thd")
        // git's index refresh (`git status`): the stat cache of the same content, written
        // through a lock file; taken as git's own, as Claude Code takes `git status` as a read.
        || text.ends_with("/index.lock")
}

/// `path` with `.` and `..` taken out by text.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The string arguments of a traced call, unescaped.
fn strings(call: &str) -> Vec<String> {
    let Some(open) = call.find('(') else {
        return Vec::new();
    };
    let mut chars = call[open + 1..].chars().peekable();
    let mut found = Vec::new();
    while let Some(&c) = chars.peek() {
        if c == '"' {
            match string(&mut chars) {
                Some(text) => found.push(text),
                None => break,
            }
        } else if c == ')' {
            break;
        } else {
            chars.next();
        }
    }
    found
}

/// `execve("path", ["a", "b"], …)`: the path and the arguments, unescaped.
fn parse_exec(call: &str) -> Option<(String, Vec<String>)> {
    let open = call.find('(')?;
    let mut chars = call[open + 1..].chars().peekable();
    if call.starts_with("execveat(") {
        // The directory descriptor first.
        for c in chars.by_ref() {
            if c == ',' {
                break;
            }
        }
        while chars.peek() == Some(&' ') {
            chars.next();
        }
    }
    let path = string(&mut chars)?;
    for c in chars.by_ref() {
        if c == '[' {
            break;
        }
    }
    let mut args = Vec::new();
    loop {
        match chars.peek()? {
            '"' => args.push(string(&mut chars)?),
            ']' => break,
            ',' | ' ' => {
                chars.next();
            }
            '.' => {
                // `...`: strace shortened the array; what is missing is unknown.
                args.push("…".into());
                break;
            }
            _ => return None,
        }
    }
    Some((path, args))
}

/// A C string as strace prints it: `"…"` with `\n`, `\t`, `\"`, `\\` and `\xNN`/octal escapes.
fn string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<String> {
    if chars.next()? != '"' {
        return None;
    }
    let mut bytes = Vec::new();
    loop {
        match chars.next()? {
            '"' => break,
            '\\' => match chars.next()? {
                'n' => bytes.push(b'\n'),
                't' => bytes.push(b'\t'),
                'r' => bytes.push(b'\r'),
                'v' => bytes.push(0x0b),
                'f' => bytes.push(0x0c),
                'x' => {
                    let hex: String = [chars.next()?, chars.next()?].iter().collect();
                    bytes.push(u8::from_str_radix(&hex, 16).ok()?);
                }
                d @ '0'..='7' => {
                    let mut value = d.to_digit(8)?;
                    for _ in 0..2 {
                        match chars.peek() {
                            Some(c @ '0'..='7') => {
                                value = value * 8 + c.to_digit(8)?;
                                chars.next();
                            }
                            _ => break,
                        }
                    }
                    bytes.push(value as u8);
                }
                other => {
                    let mut buf = [0; 4];
                    bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                }
            },
            other => {
                let mut buf = [0; 4];
                bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
