//! A generator of bash commands over the constructs that hide what runs: lists, pipelines,
//! groups, substitutions, control flow, functions, wrappers, shell strings, executors,
//! disguised command names, and the run-time evaluations (transformations, arithmetic,
//! indirection, special variables) that can run a command hidden in a value. Half of what it
//! writes hides `rm`; half is harmless in ways a careless reader would refuse, so that many
//! commands are allowed and run.

/// A small, seeded generator of random numbers (xorshift64*), so a failing seed replays.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Commands that run nothing forbidden.
const HARMLESS: &[&str] = &[
    "ls",
    "ls -la src",
    "echo hi",
    "cat f",
    "true",
    "printf '%s\\n' a",
    "wc -l f",
    "head -1 f",
    "grep -c x f",
    "sort f",
    "date",
    "pwd",
    ":",
    "test -f f",
    "[ -d src ]",
    "echo rm x",
    "grep -rn rm .",
    "ls rm",
    "cat x | wc -c",
];

/// Programs the positive table knows, with and without the options that make them run a
/// program, write, or read outside the work directory (`out` is a link to `../outside`).
const KNOWN_FORMS: &[&str] = &[
    "sort --compress-program=rm -S 1 -T . f",
    "sort --comp=rm f",
    "split --filter=rm f",
    "rg --pre rm x .",
    "rg -z x .",
    "sqlite3 :memory: '.shell rm x'",
    "sqlite3 :memory: 'select 1'",
    "tar -cf /dev/null -I rm f",
    "tar -tf /dev/null",
    "sort -o ../outside/o f",
    "sort -u f",
    "uniq f ../outside/u",
    "uniq -c f",
    "cat ../outside/secret",
    "cat out/secret",
    "grep -r x src",
    "rg x src",
    "env",
    "printenv",
    "cat f > ../outside/y",
    "cp f ../outside/",
    "cp f g",
    "touch g",
    "mkdir -p d",
    "mv ../outside/secret .",
    "find . -name f",
    "find . -name g -delete",
    "git status",
    "diff f x",
    "tree -o ../outside/t",
];

/// Commands that run the forbidden program.
const FORBIDDEN: &[&str] = &["rm x", "rm -rf y", "/bin/rm x", "rm"];

/// `rm` spelled so that bash still runs it.
const RM_NAMES: &[&str] = &[
    "rm",
    "r''m",
    "\\rm",
    "\"r\"m",
    "r\\m",
    "'rm'",
    "$'\\x72m'",
    "${x:-rm}",
    "$(echo rm)",
    "`echo rm`",
    "/bin/r?",
    "/bin/r[m]",
    "{rm,}",
    "$R",
    "${R}",
    "/usr/bin/rm",
];

/// `ls` spelled so that bash still runs it (harmless, for the allowed side).
const LS_NAMES: &[&str] = &[
    "ls",
    "l''s",
    "\\ls",
    "\"l\"s",
    "'ls'",
    "/bin/ls",
    "command ls",
];

/// Where a reader that splits text otherwise than bash would lose or invent a command:
/// comments, line continuations, `|&`, parenthesized case patterns, `function`, `$#`.
const LEXICAL: &[&str] = &[
    "ls a#; rm x",
    "r\\\nm x",
    "ls \\\n; rm x",
    "ls|&rm x",
    "case x in (x) rm x;; esac",
    "function f { rm x; }; f",
    "echo $#; rm x",
    "ls '#'; rm x",
    "echo ${#x} # rm x",
    "ls #; rm x",
    "ls \\; rm x",
    "echo \"a;b\"; rm x",
    "ls\trm x",
];

/// Wrappers before a command.
const WRAPPERS: &[&str] = &[
    "timeout 2",
    "timeout -s KILL 2",
    "env",
    "env X=1",
    "env -i",
    "env LANG=C",
    "nice",
    "nice -n 5",
    "nohup",
    "stdbuf -oL",
    "setsid",
    "setsid -w",
    "command",
    "command -p",
    "exec",
    "builtin",
    "time",
    "/usr/bin/time -p",
    "busybox",
    "env --",
    "env -u X",
    "flock /tmp/l",
    "xargs",
    "sudo",
    "script -qc",
    "unshare -U",
    "watch -g -n 0.1",
    "strace -qq",
];

/// Generates one command of nesting `depth` at most.
pub fn command(random: &mut Random, depth: usize) -> String {
    let leaf = depth == 0 || random.chance(30);
    if leaf {
        return leaf_command(random);
    }
    let inner = |random: &mut Random| command(random, depth - 1);
    match random.below(24) {
        0 => format!("{}; {}", inner(random), inner(random)),
        1 => format!("{} && {}", inner(random), inner(random)),
        2 => format!("{} || {}", inner(random), inner(random)),
        3 => format!("{} | {}", inner(random), inner(random)),
        4 => format!("({})", inner(random)),
        5 => format!("{{ {}; }}", inner(random)),
        6 => format!("echo $({})", inner(random)),
        7 => format!("echo \"`{}`\"", inner(random).replace('`', "")),
        8 => format!("cat <({})", inner(random)),
        9 => format!("if {}; then {}; fi", inner(random), inner(random)),
        10 => format!("for v in a b; do {}; done", inner(random)),
        11 => format!("case a in a) {};; esac", inner(random)),
        12 => format!("f() {{ {}; }}; f", inner(random)),
        13 => format!("{} {}", random.pick(WRAPPERS), inner(random)),
        14 => {
            let command = inner(random);
            shell_string(random, &command)
        }
        15 => format!("{}\n{}", inner(random), inner(random)),
        16 => format!("while false; do {}; done; {}", inner(random), inner(random)),
        17 => format!("echo ${{x:-$({})}}", inner(random)),
        18 => format!("cat <<EOF\n$({})\nEOF", inner(random)),
        19 => format!("ls > >({})", inner(random)),
        20 => {
            let command = inner(random);
            executor(random, &command)
        }
        21 => format!("! {}", inner(random)),
        22 => format!("{} &", inner(random)),
        _ => format!("x=1; {}", inner(random)),
    }
}

fn leaf_command(random: &mut Random) -> String {
    match random.below(15) {
        13 | 14 => random.pick(KNOWN_FORMS).to_owned(),
        11 => random.pick(LEXICAL).to_owned(),
        0..=2 => random.pick(HARMLESS).to_owned(),
        3 => random.pick(FORBIDDEN).to_owned(),
        4 => format!("R=rm; {} x", random.pick(RM_NAMES)),
        5 => format!("{} -la", random.pick(LS_NAMES)),
        6 => hidden_evaluation(random),
        7 => special_variable(random),
        8 => alias_or_function(random),
        9 => format!("{} {}", random.pick(WRAPPERS), random.pick(FORBIDDEN)),
        10 => format!("{} {}", random.pick(WRAPPERS), random.pick(HARMLESS)),
        _ => format!("LANG=C {}", random.pick(HARMLESS)),
    }
}

/// A value that runs a command when bash evaluates it.
fn hidden_evaluation(random: &mut Random) -> String {
    let payload = random.pick(&["$(rm x)", "`rm x`"]);
    let subscript = format!("a[{payload}]");
    match random.below(14) {
        0 => format!("x='{payload}'; ls ${{x@P}}"),
        1 => format!("a=(1); x='{subscript}'; ls $((x))"),
        2 => format!("x='{subscript}'; ls ${{!x}}"),
        3 => format!("a=(1); x='{subscript}'; [[ $x -eq 1 ]]"),
        4 => format!("x='{subscript}'; [ -v \"$x\" ]"),
        5 => format!("x='{subscript}'; test -v \"$x\""),
        6 => format!("read '{subscript}' <<< 1"),
        7 => format!("declare -a a; printf -v '{subscript}' 1"),
        8 => format!("a=(1); x='{subscript}'; declare -n r=\"$x\"; echo $r"),
        9 => format!("a=(1); x='{subscript}'; let y=x"),
        10 => format!("a=(1); x='{subscript}'; echo $[x]"),
        11 => format!("a=(1); echo ${{a[{payload}]}}"),
        12 => format!("a=(1); x='{subscript}'; echo ${{a:x:1}}"),
        _ => format!("a=(1); x='{subscript}'; declare -i y; y=x"),
    }
}

/// A variable that makes bash or a program run something.
fn special_variable(random: &mut Random) -> String {
    match random.below(8) {
        0 => "PS4='$(rm x)'; set -x; ls".into(),
        1 => "PATH=/nonexistent:$PATH ls".into(),
        2 => "BASH_ENV=/dev/null bash -c ls".into(),
        3 => "IFS=/; x=/bin/rm; $x y".into(),
        4 => "BASH_ALIASES[ls]=rm\nls x".into(),
        5 => "set -k; env ls x=1".into(),
        6 => "PROMPT_COMMAND='rm x' ls".into(),
        _ => "GIT_EXTERNAL_DIFF='rm x' git diff --no-index f x".into(),
    }
}

/// An alias or a function that turns a harmless name into `rm`.
fn alias_or_function(random: &mut Random) -> String {
    match random.below(6) {
        0 => "alias ls=rm\nls x".into(),
        1 => "alias ls=rm; ls x".into(),
        2 => "ls() { rm \"$@\"; }; ls x".into(),
        3 => "hash -p /bin/rm ls; ls x".into(),
        4 => "command_not_found_handle() { rm x; }; nonexistent-program".into(),
        _ => "trap 'rm x' EXIT; ls".into(),
    }
}

/// `command` run by a shell from a string or its input.
fn shell_string(random: &mut Random, command: &str) -> String {
    let quoted = quote(command);
    match random.below(10) {
        0 => format!("bash -c {quoted}"),
        1 => format!("sh -c {quoted}"),
        2 => format!("bash -c -- {quoted}"),
        3 => format!("eval {quoted}"),
        4 => format!("echo {quoted} | bash"),
        5 => format!("bash <<< {quoted}"),
        6 => format!("source <(echo {quoted})"),
        7 => format!(". /dev/stdin <<< {quoted}"),
        8 => format!("trap {quoted} EXIT"),
        _ => format!("env -S {quoted}"),
    }
}

/// `command` run by a program that executes its arguments.
fn executor(random: &mut Random, command: &str) -> String {
    let quoted = quote(command);
    let python = quote(&format!("import os; os.system({:?})", command));
    match random.below(12) {
        0 => format!("find . -maxdepth 0 -exec bash -c {quoted} \\;"),
        1 => format!("find . -maxdepth 0 -execdir bash -c {quoted} \\;"),
        2 => format!("script -qc {quoted} /dev/null"),
        3 => format!(
            "awk {}",
            quote(&format!("BEGIN {{ system({:?}) }}", command))
        ),
        4 => format!("echo x | sed {}", quote(&format!("e {command}"))),
        5 => format!("python3 -c {python}"),
        6 => format!("perl -e {}", quote(&format!("system({:?})", command))),
        7 => format!("git -c alias.z={} z", quote(&format!("!{command}"))),
        8 => format!("echo x | xargs bash -c {quoted}"),
        9 => format!("flock /tmp/l bash -c {quoted}"),
        10 => format!("find . -maxdepth 0 $(echo -exec) bash -c {quoted} \\;"),
        _ => format!(
            "node -e {}",
            quote(&format!("require('child_process').execSync({:?})", command))
        ),
    }
}

/// `text` in single quotes for bash.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
