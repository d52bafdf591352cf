//! Runs commands in real bash inside a throwaway sandbox and records every program executed.
//!
//! One sandbox runs a batch: `strace -f` (execve and the fork family, to know which process
//! descends from which) around `bwrap` (a read-only root, a fresh tmpfs `/tmp`, a writable
//! scratch directory, no network, its own process namespace) around a driver script that
//! runs each command in a fresh `bash` the way Claude Code's Bash tool does (`expand_aliases`
//! on, `extglob` off, the command through `eval`, standard input from `/dev/null`), each under
//! `timeout`. Each execve is attributed to the command whose bash it descends from.
//!
//! The programs that change files or reach the network (`rm`, `mv`, `curl`, …) are stand-ins
//! (links to `true` in a directory first on `PATH`); everything else is the machine's own, so
//! that executors (`env`, `find`, `xargs`, `awk`, `python3`, …) really run what they run.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Programs replaced by stand-ins that do nothing.
pub const STAND_INS: &[&str] = &[
    "rm", "mv", "cp", "chmod", "chown", "ln", "mkdir", "touch", "dd", "shred", "truncate", "rmdir",
    "unlink", "curl", "wget", "cargo", "npm", "pip", "apt-get", "kill", "pkill", "killall",
    "reboot", "shutdown", "sudo", "docker",
];

/// The marker before a case's number in its bash's `$0`.
const MARKER: &str = "twinwire-case-";

/// One program executed: its path's last component and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exec {
    pub program: String,
    pub args: Vec<String>,
}

/// The tools the sandbox needs.
pub struct Sandbox {
    /// How long one command may run before it is killed.
    pub limit: std::time::Duration,
    strace: PathBuf,
    bwrap: PathBuf,
    stand_ins: tempfile::TempDir,
}

impl Sandbox {
    /// Finds strace and bwrap (`$TWINWIRE_STRACE`, `$TWINWIRE_BWRAP`, else on `PATH`) and makes
    /// the stand-ins.
    pub fn new() -> Self {
        let strace = tool("TWINWIRE_STRACE", "strace", "strace");
        let bwrap = tool("TWINWIRE_BWRAP", "bwrap", "bubblewrap");
        // Outside /tmp, which the sandbox replaces.
        let stand_ins = tempfile::Builder::new()
            .prefix("twinwire-stand-ins-")
            .tempdir_in(std::env::var_os("CARGO_TARGET_TMPDIR").unwrap_or_else(|| ".".into()))
            .expect("creating the stand-ins directory");
        let truth = ["/usr/bin/true", "/bin/true"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("no `true` program");
        for name in STAND_INS {
            std::os::unix::fs::symlink(truth, stand_ins.path().join(name))
                .expect("linking a stand-in");
        }
        Self {
            limit: std::time::Duration::from_secs(10),
            strace,
            bwrap,
            stand_ins,
        }
    }

    /// The stand-ins' directory (first on the commands' `PATH`).
    pub fn stand_ins(&self) -> &Path {
        self.stand_ins.path()
    }

    /// Runs `commands` (one batch) and returns what each executed, by index.
    pub fn run(&self, commands: &[String]) -> Vec<Vec<Exec>> {
        let scratch = tempfile::Builder::new()
            .prefix("twinwire-differential-")
            .tempdir_in(std::env::var_os("CARGO_TARGET_TMPDIR").unwrap_or_else(|| ".".into()))
            .expect("creating a scratch directory");
        let work = scratch.path().join("work");
        std::fs::create_dir_all(work.join("src")).expect("creating the work directory");
        for (name, text) in [
            ("f", "x\n"),
            ("x", "x\n"),
            ("a.txt", "a\n"),
            ("src/main.rs", "fn main() {}\n"),
        ] {
            std::fs::write(work.join(name), text).expect("writing a work file");
        }
        let cases = scratch.path().join("cases");
        let mut file = std::fs::File::create(&cases).expect("writing the cases");
        for command in commands {
            file.write_all(command.as_bytes()).expect("writing a case");
            file.write_all(b"\0").expect("writing a case");
        }
        drop(file);
        let driver = scratch.path().join("driver.sh");
        let times_path = scratch.path().join("times");
        std::fs::write(
            &driver,
            format!(
                r#"i=0
while IFS= read -r -d '' cmd; do
  start=$EPOCHREALTIME
  timeout -s KILL {limit} /bin/bash --norc --noprofile -c 'shopt -s expand_aliases; shopt -u extglob; eval "$1"' "{MARKER}$i" "$cmd" </dev/null >/dev/null 2>&1
  echo "$i $start $EPOCHREALTIME" >> {times}
  i=$((i+1))
done < "$1"
"#,
                times = times_path.display(),
                limit = self.limit.as_secs().max(1),
            ),
        )
        .expect("writing the driver");
        let log = scratch.path().join("strace.log");
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
            .args(["-e", "trace=execve,execveat,fork,vfork,clone,clone3"])
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
            .arg(scratch.path())
            .arg(scratch.path())
            .args(["--unshare-all", "--die-with-parent", "--new-session"])
            .arg("--chdir")
            .arg(&work)
            .args(["--setenv", "PATH", &path, "--setenv", "HOME", "/tmp"])
            .args(["--", "/bin/bash", "--norc", "--noprofile"])
            .arg(&driver)
            .arg(&cases)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("running strace and bwrap");
        assert!(status.success(), "the sandbox failed: {status}");
        let log = std::fs::read_to_string(&log).expect("reading the strace log");
        if std::env::var_os("TWINWIRE_RULES_DEBUG").is_some() {
            let times = std::fs::read_to_string(&times_path).unwrap_or_default();
            let mut slow: Vec<(f64, usize)> = times
                .lines()
                .filter_map(|l| {
                    let mut parts = l.split_whitespace();
                    let i: usize = parts.next()?.parse().ok()?;
                    let a: f64 = parts.next()?.parse().ok()?;
                    let b: f64 = parts.next()?.parse().ok()?;
                    Some((b - a, i))
                })
                .collect();
            slow.sort_by(|a, b| b.0.total_cmp(&a.0));
            for (seconds, i) in slow.iter().take(8) {
                eprintln!("{seconds:.2} s: {}", commands[*i]);
            }
        }
        attribute(&log, commands.len())
    }
}

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

/// The execs of each case, from the strace log: a case's bash is the execve whose `$0` is
/// the marker; every later execve of it or of a process it forked belongs to it.
fn attribute(log: &str, cases: usize) -> Vec<Vec<Exec>> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    let mut case_of_root: HashMap<u32, usize> = HashMap::new();
    let mut out = vec![Vec::new(); cases];
    let mut pending: HashMap<u32, String> = HashMap::new();
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
        if call.starts_with("clone") || call.starts_with("fork") || call.starts_with("vfork") {
            // `= 2 /* 23249 in strace's PID NS */` inside the sandbox's namespace.
            let child = match result.split_once("/* ") {
                Some((_, translated)) => translated.split_whitespace().next(),
                None => result.split_whitespace().next(),
            };
            if let Some(child) = child.and_then(|r| r.parse::<u32>().ok()) {
                parent.insert(child, pid);
            }
            continue;
        }
        if !(call.starts_with("execve(") || call.starts_with("execveat(")) || result != "0" {
            continue;
        }
        let Some((path, args)) = parse_exec(&call) else {
            continue;
        };
        if let Some(case) = args
            .get(5)
            .and_then(|a| a.strip_prefix(MARKER))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|_| path.ends_with("/bash") && !case_of_root.contains_key(&pid))
        {
            case_of_root.insert(pid, case);
            continue;
        }
        // Walk up to a case's bash.
        let mut at = pid;
        let mut hops = 0;
        let case = loop {
            if let Some(case) = case_of_root.get(&at) {
                break Some(*case);
            }
            match parent.get(&at) {
                Some(up) if hops < 10_000 => {
                    at = *up;
                    hops += 1;
                }
                _ => break None,
            }
        };
        if let Some(case) = case.filter(|c| *c < cases) {
            let program = path.rsplit('/').next().unwrap_or(&path).to_owned();
            out[case].push(Exec {
                program,
                args: args.into_iter().skip(1).collect(),
            });
        }
    }
    out
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
