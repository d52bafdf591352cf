//! The differential proof: whenever the policy allows a command under a rule set, every program
//! real bash executed for it (recorded with strace in a sandbox) is allowed by that rule set.
//!
//! The corpus: every Bash command of the decision table, every executor's example, the Bash
//! commands of the project's recorded sessions, and generated commands (`generate.rs`). The
//! number generated and the seed come from `TWINWIRE_RULES_CASES` (default 2,000) and
//! `TWINWIRE_RULES_SEED` (default 1); `TWINWIRE_RULES_SECONDS` keeps generating batches until that
//! much time has passed (`cargo xtask fuzz-rules`). Needs `strace` and `bwrap` (`cargo xtask
//! test` installs them).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::print_stderr)]

#[path = "../support/mod.rs"]
mod support;

mod corpus;
mod generate;
mod sandbox;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use twinwire_policy::shell::known::KNOWN;
use twinwire_policy::shell::programs::EXECUTORS;
use twinwire_policy::{Directories, PermissionPolicy};

use sandbox::{Exec, Run, Sandbox};

/// Wrappers that only wrap: a program bash runs that is one of these is covered when what it
/// runs is.
const WRAPPERS: &[&str] = &[
    "timeout", "nice", "nohup", "stdbuf", "env", "time", "setsid", "busybox",
];

/// Commands per sandbox.
const BATCH: usize = 250;

/// The rule sets every command is decided under: each with its deny rules alone (under a
/// bare `Bash`), which every program executed anywhere must pass.
fn rule_sets() -> Vec<(&'static str, PermissionPolicy)> {
    rule_set_texts()
        .into_iter()
        .map(|(name, allow, deny)| (name, PermissionPolicy::parse(&allow, &deny).unwrap()))
        .collect()
}

/// Each rule set's deny rules under a bare `Bash`: what no program may be, however reached.
fn deny_sets() -> Vec<PermissionPolicy> {
    rule_set_texts()
        .into_iter()
        .map(|(_, _, deny)| PermissionPolicy::parse(&["Bash"], &deny).unwrap())
        .collect()
}

type RuleSet = (&'static str, Vec<&'static str>, Vec<&'static str>);

fn rule_set_texts() -> Vec<RuleSet> {
    let parse = |allow: &[&'static str], deny: &[&'static str]| (allow.to_vec(), deny.to_vec());
    type Rules = (Vec<&'static str>, Vec<&'static str>);
    let sets: Vec<(&'static str, Rules)> = vec![
        (
            "--allow Bash --deny 'Bash(rm:*)'",
            parse(&["Bash"], &["Bash(rm:*)"]),
        ),
        (
            "harmless programs allowed",
            parse(
                &[
                    "Bash(ls:*)",
                    "Bash(echo:*)",
                    "Bash(cat:*)",
                    "Bash(true)",
                    "Bash(printf:*)",
                    "Bash(wc:*)",
                    "Bash(head:*)",
                    "Bash(grep:*)",
                    "Bash(sort:*)",
                    "Bash(date)",
                    "Bash(pwd)",
                    "Bash(test:*)",
                    "Bash([:*)",
                ],
                &[],
            ),
        ),
        (
            "executors allowed themselves",
            parse(
                &[
                    "Bash(ls:*)",
                    "Bash(echo:*)",
                    "Bash(cat:*)",
                    "Bash(timeout:*)",
                    "Bash(env:*)",
                    "Bash(nice:*)",
                    "Bash(nohup:*)",
                    "Bash(find:*)",
                    "Bash(xargs:*)",
                    "Bash(bash:*)",
                    "Bash(sh:*)",
                    "Bash(awk:*)",
                    "Bash(sed:*)",
                    "Bash(python3:*)",
                    "Bash(git:*)",
                    "Bash(script:*)",
                    "Bash(flock:*)",
                    "Bash(perl:*)",
                    "Bash(node:*)",
                ],
                &[],
            ),
        ),
        (
            "executors allowed, rm denied",
            parse(
                &[
                    "Bash(ls:*)",
                    "Bash(echo:*)",
                    "Bash(cat:*)",
                    "Bash(timeout:*)",
                    "Bash(env:*)",
                    "Bash(find:*)",
                    "Bash(xargs:*)",
                    "Bash(bash:*)",
                    "Bash(sort:*)",
                    "Bash(split:*)",
                    "Bash(rg:*)",
                    "Bash(sqlite3:*)",
                    "Bash(git:*)",
                    "Bash(make:*)",
                ],
                &["Bash(rm:*)"],
            ),
        ),
    ];
    sets.into_iter()
        .map(|(name, (allow, deny))| (name, allow, deny))
        .collect()
}

/// What one run found.
#[derive(Default)]
struct Tally {
    commands: usize,
    allowed: Vec<usize>,
    /// Commands judged read-only, and judged edits inside the work directory.
    read_only: usize,
    edits: usize,
    executed: usize,
    execs: usize,
    violations: Vec<String>,
}

impl Tally {
    fn report(&self, what: &str, names: &[&str]) -> String {
        let allowed: Vec<String> = names
            .iter()
            .zip(&self.allowed)
            .map(|(name, n)| format!("{n} allowed under {name}"))
            .collect();
        format!(
            "{what}: {} commands, {}; {} read-only, {} edits inside; {} run in bash, {} programs \
             executed, {} violations",
            self.commands,
            allowed.join(", "),
            self.read_only,
            self.edits,
            self.executed,
            self.execs,
            self.violations.len()
        )
    }
}

/// Whether the exec at `at` (one bash ran, or a wrapper bash ran did) is covered: allowed
/// by the rules, or a wrapper whose every program is.
fn covered(policy: &PermissionPolicy, execs: &[Exec], at: usize) -> bool {
    let exec = &execs[at];
    if policy.allows_exec(&argv(exec)) {
        return true;
    }
    WRAPPERS.contains(&exec.program.as_str())
        && execs
            .iter()
            .enumerate()
            .filter(|(_, e)| e.by == Some(at))
            .all(|(inner, _)| covered(policy, execs, inner))
}

fn argv(exec: &Exec) -> Vec<String> {
    std::iter::once(exec.program.clone())
        .chain(exec.args.iter().cloned())
        .collect()
}

/// What a command was judged to be.
#[derive(Clone, Default)]
struct Verdicts {
    allowed_by: Vec<usize>,
    read_only: bool,
    edits: bool,
}

/// Decides `commands` under every rule set and both modes, runs those anything allows, and
/// checks what ran: every program bash ran (through wrappers that only wrap) is allowed by
/// the set that allowed the command, no program anywhere is one its deny rules name, a
/// read-only command wrote nothing, read nothing outside and printed no secret, an edit wrote
/// only inside the work directory.
fn prove(sandbox: &Sandbox, commands: &[String], tally: &mut Tally) {
    let sets = rule_sets();
    let denies = deny_sets();
    let work = sandbox.work();
    let dirs = Directories::new(vec![work.clone()], &work);
    let modes = PermissionPolicy::default()
        .with_base(twinwire_policy::Base::new(&work, Some("/tmp".into())));
    tally.allowed.resize(sets.len(), 0);
    let mut to_run: Vec<(String, Verdicts)> = Vec::new();
    for command in commands {
        tally.commands += 1;
        let mut verdicts = Verdicts {
            allowed_by: sets
                .iter()
                .enumerate()
                .filter(|(_, (_, policy))| {
                    policy
                        .decide("Bash", &json!({ "command": command }))
                        .is_allowed()
                })
                .map(|(i, _)| i)
                .collect(),
            read_only: modes.read_only(command, &dirs).is_ok(),
            edits: false,
        };
        verdicts.edits = !verdicts.read_only && modes.edits_inside(command, &dirs).is_ok();
        for i in &verdicts.allowed_by {
            tally.allowed[*i] += 1;
        }
        tally.read_only += usize::from(verdicts.read_only);
        tally.edits += usize::from(verdicts.edits);
        if !verdicts.allowed_by.is_empty() || verdicts.read_only || verdicts.edits {
            to_run.push((command.clone(), verdicts));
        }
    }
    let batches: Vec<&[(String, Verdicts)]> = to_run.chunks(BATCH).collect();
    let results: Vec<Vec<Run>> = std::thread::scope(|scope| {
        let handles: Vec<_> = batches
            .chunks(batches.len().div_ceil(2).max(1))
            .map(|group| {
                scope.spawn(move || {
                    group
                        .iter()
                        .map(|batch| {
                            let commands: Vec<String> =
                                batch.iter().map(|(c, _)| c.clone()).collect();
                            sandbox.trace(&commands)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    for (batch, runs) in batches.iter().zip(results) {
        for ((command, verdicts), run) in batch.iter().zip(runs) {
            tally.executed += 1;
            tally.execs += run.execs.len();
            for i in &verdicts.allowed_by {
                let (name, policy) = &sets[*i];
                for (at, exec) in run.execs.iter().enumerate() {
                    if !denies[*i].allows_exec(&argv(exec)) {
                        tally.violations.push(format!(
                            "under {name}, `{command}` was allowed but ran `{}`, which it denies",
                            exec_line(exec)
                        ));
                    } else if exec.by.is_none() && !covered(policy, &run.execs, at) {
                        tally.violations.push(format!(
                            "under {name}, `{command}` was allowed but bash ran `{}`",
                            exec_line(exec)
                        ));
                    }
                }
            }
            let effects = &run.effects;
            if verdicts.read_only
                && (!effects.writes.is_empty()
                    || !effects.reads_outside.is_empty()
                    || effects.printed_secret)
            {
                tally.violations.push(format!(
                    "`{command}` was judged read-only but wrote {:?}, read {:?}, printed the \
                     secret: {}",
                    effects.writes, effects.reads_outside, effects.printed_secret
                ));
            }
            if verdicts.edits {
                let outside: Vec<&String> = effects
                    .writes
                    .iter()
                    .filter(|w| !Path::new(w.split(' ').next().unwrap_or("")).starts_with(&work))
                    .collect();
                if !outside.is_empty()
                    || !effects.reads_outside.is_empty()
                    || effects.printed_secret
                {
                    tally.violations.push(format!(
                        "`{command}` was judged an edit inside but wrote {outside:?}, read {:?}",
                        effects.reads_outside
                    ));
                }
            }
        }
    }
}

/// An executed program as a command line, each word quoted.
fn exec_line(exec: &Exec) -> String {
    std::iter::once(&exec.program)
        .chain(&exec.args)
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn names() -> Vec<&'static str> {
    rule_sets().into_iter().map(|(name, _)| name).collect()
}

fn assert_none(tally: &Tally, what: &str) {
    let report = tally.report(what, &names());
    eprintln!("{report}");
    if let Some(dir) = std::env::var_os("TWINWIRE_RULES_REPORT") {
        let path = Path::new(&dir).join(format!("{}.txt", what.replace(' ', "-")));
        std::fs::write(path, format!("{report}\n")).unwrap();
    }
    assert!(
        tally.violations.is_empty(),
        "{report}\n{}",
        tally
            .violations
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        tally.executed > 0,
        "nothing was allowed, so nothing was proven"
    );
}

#[test]
fn table_and_recorded_commands_run_only_what_was_allowed() {
    let sandbox = Sandbox::new();
    let mut commands: Vec<String> = support::rm_in_disguise()
        .into_iter()
        .chain(support::content_rules())
        .filter(|case| case.tool == "Bash")
        .filter_map(|case| case.input["command"].as_str().map(str::to_owned))
        .collect();
    commands.extend(EXECUTORS.iter().map(|e| e.example.to_owned()));
    for entry in KNOWN {
        commands.extend(
            [entry.example, entry.counter]
                .into_iter()
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
        );
    }
    commands.extend(OUTSIDE.iter().map(|c| (*c).to_owned()));
    let recorded = recorded_commands();
    assert!(recorded.len() >= 5, "{} recorded commands", recorded.len());
    commands.extend(recorded);
    commands.sort();
    commands.dedup();
    let mut tally = Tally::default();
    prove(&sandbox, &commands, &mut tally);
    assert_none(&tally, "table and recorded commands");
}

#[test]
fn generated_commands_run_only_what_was_allowed() {
    let sandbox = Sandbox::new();
    let seed = env_number("TWINWIRE_RULES_SEED", 1);
    let count = env_number("TWINWIRE_RULES_CASES", 2_000) as usize;
    let seconds = env_number("TWINWIRE_RULES_SECONDS", 0);
    let started = Instant::now();
    let mut random = generate::Random::new(seed);
    let mut tally = Tally::default();
    loop {
        let commands: Vec<String> = (0..count)
            .map(|_| generate::command(&mut random, 3))
            .collect();
        prove(&sandbox, &commands, &mut tally);
        if started.elapsed() >= Duration::from_secs(seconds) {
            break;
        }
    }
    assert_none(&tally, &format!("generated commands (seed {seed})"));
}

/// Each executor's example, where its program is installed, really runs `rm`: the table's
/// entries are real.
#[test]
fn executor_examples_run_rm() {
    let mut sandbox = Sandbox::new();
    // Interpreters and editors start slowly under strace on a busy machine; `watch -g` never
    // ends by itself (its command prints nothing new), so each example costs it this limit.
    sandbox.limit = Duration::from_secs(15);
    let mut commands = Vec::new();
    let mut skipped = Vec::new();
    for executor in EXECUTORS {
        let program = executor
            .example
            .split_whitespace()
            .find(|w| executor.names.contains(&w.rsplit('/').next().unwrap_or(w)))
            .unwrap_or_else(|| {
                panic!(
                    "{}: the example runs none of {:?}",
                    executor.example, executor.names
                )
            });
        let installed = if program.starts_with('/') {
            Path::new(program).exists()
        } else {
            on_path(program, &sandbox)
        };
        if !installed || sandbox::STAND_INS.contains(&program) {
            skipped.push(program);
        } else if NEEDS_TERMINAL.contains(&program) {
            // Its pager runs only on a terminal: give it one.
            commands.push(format!("script -qc {} /dev/null", quote(executor.example)));
        } else {
            commands.push(executor.example.to_owned());
        }
    }
    let runs = sandbox.run(&commands);
    let ran_rm = |execs: &Vec<sandbox::Exec>| execs.iter().any(|e| e.program == "rm");
    // An example is shown once it runs `rm`: one that did not gets a second run of its own
    // (on a loaded machine a grandchild's exec has been seen to go unrecorded once), and
    // fails only if that one shows no `rm` either.
    let again: Vec<String> = commands
        .iter()
        .zip(&runs)
        .filter(|(_, execs)| !ran_rm(execs))
        .map(|(example, _)| example.clone())
        .collect();
    let mut not_shown = Vec::new();
    if !again.is_empty() {
        eprintln!("running again: {again:?}");
        for (example, execs) in again.iter().zip(sandbox.run(&again)) {
            if !ran_rm(&execs) {
                let ran: Vec<&String> = execs.iter().map(|e| &e.program).collect();
                not_shown.push(format!("{example} (ran: {ran:?})"));
            }
        }
    }
    eprintln!(
        "executor examples: {} of {} entries shown to run rm here; not installed or stand-ins: {}",
        commands.len() - not_shown.len(),
        EXECUTORS.len(),
        skipped.join(", ")
    );
    assert!(
        not_shown.is_empty(),
        "examples that ran no rm:\n{}",
        not_shown.join("\n")
    );
}

/// Commands that read or write outside the work directory, print the environment or run a
/// program through a known program's option: none may be judged read-only.
const OUTSIDE: &[&str] = &[
    "env | grep -i canary",
    "printenv TWINWIRE_CANARY",
    "sort -o ../outside/out x",
    "cat /etc/hostname",
    "cat ../outside/secret",
    "cat out/secret",
    "cat out/*",
    "cd .. && cat outside/secret",
    "cat /proc/self/environ",
    "rg --pre /bin/touch foo .",
    "sort --compress-program=touch -S 1 -T . f",
    "split --filter='touch y' f",
    "uniq f ../outside/u",
    "tree -o ../outside/t",
    "find .. -name secret",
    "grep -r s ..",
    "cp f ../outside/",
    "mv ../outside/secret .",
    "touch ../outside/new",
    "mkdir ../outside/d",
    "echo x > ../outside/w",
    "cp f g && mkdir -p d && touch d/e && mv g d/",
    "cat f > copy.txt",
];

/// Programs whose example runs `rm` only with a terminal on standard output.
const NEEDS_TERMINAL: &[&str] = &["man"];

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn on_path(program: &str, sandbox: &Sandbox) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir != sandbox.stand_ins())
        .any(|dir| dir.join(program).is_file())
}

/// The Bash commands of the project's recorded sessions.
fn recorded_commands() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts");
    let mut commands = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for line in text.lines() {
                    if let Ok(value) = serde_json::from_str::<Value>(line) {
                        collect_bash(&value, &mut commands);
                    }
                }
            }
        }
    }
    commands.sort();
    commands.dedup();
    commands
}

fn collect_bash(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let is_bash = map.get("name").and_then(Value::as_str) == Some("Bash")
                || map.get("tool_name").and_then(Value::as_str) == Some("Bash");
            if is_bash {
                if let Some(command) = map
                    .get("input")
                    .and_then(|i| i.get("command"))
                    .and_then(Value::as_str)
                {
                    out.push(command.to_owned());
                }
            }
            for inner in map.values() {
                collect_bash(inner, out);
            }
        }
        Value::Array(items) => {
            for inner in items {
                collect_bash(inner, out);
            }
        }
        _ => {}
    }
}

/// Real commands nobody on the project wrote (see `corpus.rs`): of those within the rule
/// their page implies, the share allowed; of those allowed, none outside their rule. Needs
/// `TWINWIRE_RULES_CORPUS` (`cargo xtask test` and `cargo xtask fuzz-rules` fetch the corpus);
/// `TWINWIRE_RULES_CORPUS_LIMIT` takes every n-th command to bound the run.
#[test]
fn real_commands_within_their_rule_are_allowed() {
    let dir = std::env::var_os("TWINWIRE_RULES_CORPUS").expect(
        "TWINWIRE_RULES_CORPUS is not set: `cargo xtask test` fetches the corpus (the cheat \
         package's sheets) and sets it",
    );
    let mut examples = corpus::read(Path::new(&dir));
    assert!(
        examples.len() > 500,
        "{} commands in the corpus",
        examples.len()
    );
    let limit = env_number("TWINWIRE_RULES_CORPUS_LIMIT", 0) as usize;
    if limit > 0 && examples.len() > limit {
        let step = examples.len().div_ceil(limit);
        examples = examples.into_iter().step_by(step).collect();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut missing: Vec<String> = examples
        .iter()
        .filter_map(|e| e.command.split_whitespace().next().map(str::to_owned))
        .filter(|p| !std::env::split_paths(&path).any(|dir| dir.join(p).is_file()))
        .collect();
    missing.sort();
    missing.dedup();
    let mut sandbox = Sandbox::with_stand_ins(&missing);
    sandbox.limit = Duration::from_secs(3);
    let commands: Vec<String> = examples.iter().map(|e| e.command.clone()).collect();
    let mut runs = Vec::new();
    for batch in commands.chunks(BATCH) {
        runs.extend(sandbox.trace(batch));
    }
    let (mut ran, mut within, mut allowed_within, mut allowed_outside) = (0, 0, 0, Vec::new());
    let mut refused = Vec::new();
    for (example, run) in examples.iter().zip(&runs) {
        let policy = PermissionPolicy::parse(&[example.rule.as_str()], &[]).unwrap();
        let allowed = policy
            .decide("Bash", &json!({ "command": example.command }))
            .is_allowed();
        let by_bash: Vec<usize> = (0..run.execs.len())
            .filter(|at| run.execs[*at].by.is_none())
            .collect();
        if by_bash.is_empty() {
            continue;
        }
        ran += 1;
        let inside = by_bash.iter().all(|at| covered(&policy, &run.execs, *at));
        if inside {
            within += 1;
            if allowed {
                allowed_within += 1;
            } else {
                refused.push(format!("{} under {}", example.command, example.rule));
            }
        } else if allowed {
            allowed_outside.push(format!("{} under {}", example.command, example.rule));
        }
    }
    let share = 100.0 * allowed_within as f64 / within.max(1) as f64;
    let report = format!(
        "real commands: {} in the corpus, {ran} ran a program, {within} within their rule, \
         {allowed_within} of them allowed ({share:.1}%), {} allowed outside their rule",
        examples.len(),
        allowed_outside.len()
    );
    eprintln!("{report}");
    if std::env::var_os("TWINWIRE_RULES_DEBUG").is_some() {
        eprintln!("refused within their rule:\n{}", refused.join("\n"));
    }
    if let Some(dir) = std::env::var_os("TWINWIRE_RULES_REPORT") {
        std::fs::write(
            Path::new(&dir).join("real-commands.txt"),
            format!("{report}\n"),
        )
        .unwrap();
    }
    assert!(
        allowed_outside.is_empty(),
        "{report}\n{}",
        allowed_outside.join("\n")
    );
    assert!(within > 100, "{report}");
    assert!(share >= 94.0, "{report}\nrefused:\n{}", refused.join("\n"));
}
