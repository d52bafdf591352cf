//! Programs that execute other programs: the table, and how a command that names one is read.
//!
//! Each entry of [`EXECUTORS`] says how the program runs others ([`Runs`]), why it is listed,
//! and an example that runs `rm` through it. The tests check every example is never allowed
//! under `--allow Bash --deny 'Bash(rm:*)'`, and the differential test runs each one whose
//! program is installed in real bash to show that it does run `rm`.
//!
//! What the table cannot cover: a program that runs what its project files say (`make`,
//! `npm test`, `cargo build` and its build scripts, git hooks, `pytest` and `conftest.py`)
//! runs programs no rule sees. Allowing such a program allows what its project runs.

use super::scripts;
use super::{Construct, Word};

/// What a command of one program, builtin or executor, proves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It runs only itself.
    Plain,
    /// It runs the command that starts at this index of its operands, read as a command of
    /// its own (`timeout 5 ls` → `ls`).
    Unwrap(usize),
    /// What it runs cannot be known from the text.
    Unproven(Construct),
}

/// How an executor runs other programs.
#[derive(Debug, Clone, Copy)]
pub enum Runs {
    /// Anything, from its operands, its input or its configuration: shells, privilege and
    /// namespace tools, remote shells, schedulers, editors.
    Anything,
    /// The command in its operands, which is read with this grammar and checked as a command
    /// of its own.
    Operand(Grammar),
    /// Something when [`Runs::When`]'s check finds an option or operand that runs one (or a
    /// computed operand that could become one); the reason when it does.
    When(fn(&[Word]) -> Option<String>),
}

/// One program of the table.
#[derive(Debug, Clone, Copy)]
pub struct Executor {
    /// Its names (the command word without its directory).
    pub names: &'static [&'static str],
    /// How it runs others.
    pub runs: Runs,
    /// What it runs, in a few words.
    pub why: &'static str,
    /// A command that runs `rm` through it.
    pub example: &'static str,
}

/// A wrapper's command line: options, then fixed operands, then (for `env`) assignments, then
/// the command. Options are getopt's: short flags clustered (`-vk5`), a short option's value
/// the rest of its cluster or the next word, long options exact (abbreviations are not
/// read), `--` ending them; the first operand ends them (the wrappers use getopt's `+`).
#[derive(Debug, Clone, Copy)]
pub struct Grammar {
    /// Short options without a value.
    pub flags: &'static str,
    /// Short options with a value.
    pub valued: &'static str,
    /// Long options without a value.
    pub long_flags: &'static [&'static str],
    /// Long options with a value (`--opt=v` or `--opt v`).
    pub long_valued: &'static [&'static str],
    /// Operands before the command (`timeout`'s duration).
    pub operands: usize,
    /// `NAME=value` words before the command (`env`).
    pub assignments: bool,
}

impl Grammar {
    /// No options, no operands.
    pub const NONE: Grammar = Grammar {
        flags: "",
        valued: "",
        long_flags: &[],
        long_valued: &[],
        operands: 0,
        assignments: false,
    };
}

/// Where the command starts in `args` (a wrapper's operands), `None` when there is no
/// command, or why the line cannot be read exactly. Every word up to the command word must be
/// literal: a computed one could split into several and move the command.
pub fn parse_wrapper(grammar: &Grammar, args: &[Word]) -> Result<Option<usize>, Verdict> {
    let unproven = |why: String| Err(Verdict::Unproven(Construct::Executor(why)));
    let mut at = 0;
    // Options.
    while let Some(word) = args.get(at) {
        if !word.literal {
            return unproven(format!("`{}` is computed before the command", word.text));
        }
        let text = word.text.as_str();
        if text == "--" {
            at += 1;
            break;
        }
        if text == "-" && grammar.assignments {
            // `env -`: the same as `-i`.
            at += 1;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, has_value) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            let option = format!("--{name}");
            if grammar.long_flags.contains(&option.as_str()) && !has_value {
                at += 1;
            } else if grammar.long_valued.contains(&option.as_str()) {
                at += if has_value { 1 } else { 2 };
            } else {
                return unproven(format!("option `{text}` is not read"));
            }
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        at += 1;
        for (index, c) in cluster.char_indices() {
            if grammar.flags.contains(c) {
                continue;
            }
            if grammar.valued.contains(c) {
                if index + c.len_utf8() == cluster.len() {
                    // The value is the next word.
                    match args.get(at) {
                        Some(value) if value.literal => at += 1,
                        Some(value) => {
                            return unproven(format!("`{}` is computed", value.text));
                        }
                        None => return Ok(None),
                    }
                }
                break;
            }
            return unproven(format!("option `-{c}` is not read"));
        }
    }
    for _ in 0..grammar.operands {
        match args.get(at) {
            Some(word) if word.literal => at += 1,
            Some(word) => return unproven(format!("`{}` is computed", word.text)),
            None => return Ok(None),
        }
    }
    if grammar.assignments {
        while let Some(word) = args.get(at) {
            let Some((name, _)) = word.text.split_once('=') else {
                break;
            };
            if !super::variables::is_name(name) {
                break;
            }
            if !super::variables::is_harmless_variable(name) {
                return Err(Verdict::Unproven(Construct::Assignment(name.to_owned())));
            }
            at += 1;
        }
    }
    Ok((at < args.len()).then_some(at))
}

/// What a command of the program `name` (the command word without its directory) proves, its
/// operands being `args`.
pub fn check(name: &str, args: &[Word]) -> Verdict {
    let Some(executor) = executor(name) else {
        return Verdict::Plain;
    };
    match executor.runs {
        Runs::Anything => {
            Verdict::Unproven(Construct::Executor(format!("`{name}` {}", executor.why)))
        }
        Runs::Operand(grammar) => match parse_wrapper(&grammar, args) {
            Ok(Some(at)) => Verdict::Unwrap(at),
            Ok(None) => Verdict::Plain,
            Err(verdict) => verdict,
        },
        Runs::When(check) => match check(args) {
            Some(why) => Verdict::Unproven(Construct::Executor(format!("`{name}` {why}"))),
            None => Verdict::Plain,
        },
    }
}

/// The table entry of `name`.
pub fn executor(name: &str) -> Option<&'static Executor> {
    EXECUTORS.iter().find(|e| e.names.contains(&name))
}

/// `timeout [options] DURATION command …`.
const TIMEOUT: Grammar = Grammar {
    flags: "v",
    valued: "ks",
    long_flags: &["--preserve-status", "--foreground", "--verbose"],
    long_valued: &["--kill-after", "--signal"],
    operands: 1,
    ..Grammar::NONE
};

/// `env [options] [NAME=value]… command …`; `-S` (split a string into a command) is not
/// read, so a command with it is not proven.
const ENV: Grammar = Grammar {
    flags: "i0v",
    valued: "uC",
    long_flags: &["--ignore-environment", "--null", "--debug"],
    long_valued: &["--unset", "--chdir"],
    assignments: true,
    ..Grammar::NONE
};

/// `nice [-n N] command …`.
const NICE: Grammar = Grammar {
    valued: "n",
    long_valued: &["--adjustment"],
    ..Grammar::NONE
};

/// `stdbuf -oL command …`.
const STDBUF: Grammar = Grammar {
    valued: "ioe",
    long_valued: &["--input", "--output", "--error"],
    ..Grammar::NONE
};

/// `setsid [-cfw] command …`.
const SETSID: Grammar = Grammar {
    flags: "cfw",
    long_flags: &["--ctty", "--fork", "--wait"],
    ..Grammar::NONE
};

/// `time [-pavq] [-f FORMAT] [-o FILE] command …` (the program, not the keyword).
const TIME: Grammar = Grammar {
    flags: "pavq",
    valued: "fo",
    long_flags: &["--portability", "--append", "--verbose", "--quiet"],
    long_valued: &["--format", "--output"],
    ..Grammar::NONE
};

/// The programs that execute other programs.
pub const EXECUTORS: &[Executor] = &[
    Executor {
        names: &[
            "sh", "bash", "dash", "zsh", "ksh", "mksh", "yash", "rbash", "fish", "csh", "tcsh",
        ],
        runs: Runs::Anything,
        why: "runs a script from its operands or its input",
        example: "bash -c -- 'rm x'",
    },
    Executor {
        names: &[
            "python",
            "python3",
            "python2",
            "pypy",
            "pypy3",
            "perl",
            "ruby",
            "node",
            "nodejs",
            "php",
            "lua",
            "luajit",
            "Rscript",
            "julia",
            "tclsh",
            "wish",
            "osascript",
            "pwsh",
            "expect",
        ],
        runs: Runs::When(scripts::interpreter),
        why: "runs code from its options or its input",
        example: "python3 -c 'import os; os.system(\"rm x\")'",
    },
    Executor {
        names: &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        runs: Runs::When(scripts::awk),
        why: "runs commands from its program (`system`, pipes)",
        example: "awk 'BEGIN { system(\"rm x\") }'",
    },
    Executor {
        names: &["sed", "gsed"],
        runs: Runs::When(scripts::sed),
        why: "runs commands from its script (`e`, `s///e`) or writes files (`w`)",
        example: "echo x | sed 'e rm x'",
    },
    Executor {
        names: &["xargs", "parallel", "rush"],
        runs: Runs::Anything,
        why: "runs a command with arguments read from its input",
        example: "echo x | xargs rm",
    },
    Executor {
        names: &["find"],
        runs: Runs::When(scripts::find),
        why: "runs commands (`-exec`, `-execdir`, `-ok`, `-okdir`) or deletes and writes files",
        example: "find . -maxdepth 0 -exec rm x ';'",
    },
    Executor {
        names: &["sudo", "doas", "su", "runuser", "pkexec", "sudoedit"],
        runs: Runs::Anything,
        why: "runs a command as another user",
        example: "sudo rm x",
    },
    Executor {
        names: &["ssh", "scp", "sftp", "rsh", "mosh"],
        runs: Runs::Anything,
        why: "runs commands remotely and locally (`ProxyCommand`, `LocalCommand`)",
        example: "ssh -o ProxyCommand='rm x' host",
    },
    Executor {
        names: &["script"],
        runs: Runs::Anything,
        why: "runs a command in a pseudo-terminal (`-c`)",
        example: "script -qc 'rm x' /dev/null",
    },
    Executor {
        names: &[
            "unshare",
            "nsenter",
            "chroot",
            "firejail",
            "bwrap",
            "proot",
            "fakeroot",
            "fakechroot",
            "setpriv",
            "capsh",
            "runcon",
            "sg",
            "newgrp",
            "chpst",
        ],
        runs: Runs::Anything,
        why: "runs a command in another namespace, root or identity",
        example: "unshare -U rm x",
    },
    Executor {
        names: &[
            "flock",
            "chrt",
            "taskset",
            "ionice",
            "prlimit",
            "numactl",
            "cgexec",
            "eatmydata",
            "nocache",
            "faketime",
            "torsocks",
            "proxychains",
            "proxychains4",
            "catchsegv",
            "unbuffer",
            "chronic",
            "daemonize",
            "start-stop-daemon",
            "dbus-run-session",
            "xvfb-run",
            "ssh-agent",
        ],
        runs: Runs::Anything,
        why: "runs a command under a lock, a scheduling class, a limit or a helper",
        example: "flock /tmp/twinwire-lock rm x",
    },
    Executor {
        names: &[
            "strace",
            "ltrace",
            "valgrind",
            "gdb",
            "lldb",
            "perf",
            "hyperfine",
            "entr",
            "watchexec",
            "watch",
        ],
        runs: Runs::Anything,
        why: "runs a command to trace, debug, time or repeat it",
        example: "watch -g -n 0.1 rm x",
    },
    Executor {
        names: &[
            "systemd-run",
            "at",
            "batch",
            "crontab",
            "screen",
            "tmux",
            "dtach",
            "nohup-daemon",
        ],
        runs: Runs::Anything,
        why: "runs a command later or detached",
        example: "echo 'rm x' | at now",
    },
    Executor {
        names: &[
            "make", "gmake", "npx", "bunx", "pnpx", "uvx", "pipx", "deno", "bun",
        ],
        runs: Runs::Anything,
        why: "runs commands or code from its operands (`make --eval`, `npx PACKAGE`, `deno eval`)",
        example: "make --eval='twinwire-target: ; rm x' twinwire-target",
    },
    Executor {
        names: &["npm", "pnpm", "yarn", "uv", "poetry", "pdm", "hatch"],
        runs: Runs::When(scripts::package_manager),
        why: "runs a command from its operands (`exec`, `dlx`, `run` with a command)",
        example: "npm exec -- rm x",
    },
    Executor {
        names: &["vi", "vim", "nvim", "ex", "view", "ed", "emacs", "nano"],
        runs: Runs::Anything,
        why: "runs shell commands from its commands (`:!`, `-c`)",
        example: "vim -es -c '!rm x' -c q",
    },
    Executor {
        names: &[
            "xdg-open",
            "open",
            "sensible-browser",
            "docker",
            "podman",
            "nerdctl",
            "kubectl",
            "oc",
        ],
        runs: Runs::Anything,
        why: "runs programs it chooses, or commands in containers",
        example: "docker run --rm alpine rm x",
    },
    Executor {
        names: &["git"],
        runs: Runs::When(scripts::git),
        why: "runs commands from its options, aliases and configuration",
        example: "git -c alias.z='!rm x' z",
    },
    Executor {
        names: &["tar", "gtar", "bsdtar"],
        runs: Runs::When(scripts::tar),
        why: "runs commands from its options (`--to-command`, `--checkpoint-action`, `-I`)",
        example: "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm x' /dev/null",
    },
    Executor {
        names: &["rsync"],
        runs: Runs::When(scripts::rsync),
        why: "runs its remote shell (`-e`) and remote program (`--rsync-path`)",
        example: "rsync -e 'rm x' a host:b",
    },
    Executor {
        names: &["zip"],
        runs: Runs::When(scripts::zip),
        why: "runs its test command (`-TT`)",
        example: "zip -T -TT 'rm x' /tmp/twinwire.zip f",
    },
    Executor {
        names: &["man"],
        runs: Runs::When(scripts::man),
        why: "runs its pager or browser (`-P`, `-H`)",
        example: "man -P 'rm x' ls",
    },
    Executor {
        names: &["socat", "nc", "ncat", "netcat"],
        runs: Runs::When(scripts::socket),
        why: "runs a command on a connection (`EXEC:`, `SYSTEM:`, `-e`, `-c`)",
        example: "socat - EXEC:'rm x'",
    },
    Executor {
        names: &["timeout"],
        runs: Runs::Operand(TIMEOUT),
        why: "runs its command with a time limit",
        example: "timeout 5 rm x",
    },
    Executor {
        names: &["env"],
        runs: Runs::Operand(ENV),
        why: "runs its command in a changed environment",
        example: "env -S 'rm x'",
    },
    Executor {
        names: &["nice"],
        runs: Runs::Operand(NICE),
        why: "runs its command at another priority",
        example: "nice -n 5 rm x",
    },
    Executor {
        names: &["nohup"],
        runs: Runs::Operand(Grammar::NONE),
        why: "runs its command immune to hangups",
        example: "nohup rm x",
    },
    Executor {
        names: &["stdbuf"],
        runs: Runs::Operand(STDBUF),
        why: "runs its command with other buffering",
        example: "stdbuf -oL rm x",
    },
    Executor {
        names: &["setsid"],
        runs: Runs::Operand(SETSID),
        why: "runs its command in a new session",
        example: "setsid -w rm x",
    },
    Executor {
        names: &["time"],
        runs: Runs::Operand(TIME),
        why: "runs its command and reports its resources",
        example: "/usr/bin/time -p rm x",
    },
    Executor {
        names: &["busybox"],
        runs: Runs::Operand(Grammar::NONE),
        why: "runs its applet",
        example: "busybox rm x",
    },
];
