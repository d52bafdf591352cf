//! The permission cases: each call with the rules in force, the decision expected, and why.
//! Every class of command an attacker used to get `rm` past `--deny 'Bash(rm:*)'` or a hidden
//! command past `--allow 'Bash(ls:*)'` has its case here (the table is in `support/`).

#![allow(clippy::unwrap_used)]

mod support;

use serde_json::json;
use support::*;
use twinwire_policy::shell::programs::{Runs, EXECUTORS};
use twinwire_policy::{Base, Decision, PermissionPolicy, Rule};

fn base() -> Base {
    Base::new("/srv/app", Some("/home/u".into())).with_case(twinwire_policy::Case::Sensitive)
}

fn decide(case: &Case, base: &Base) -> Want {
    let policy = PermissionPolicy::parse(case.allow, case.deny)
        .unwrap()
        .with_base(base.clone());
    match (policy.decide(case.tool, &case.input), case.want) {
        (Decision::Allow(_), _) => A,
        // A deny is also never allowed.
        (Decision::Deny(_), U) => U,
        (Decision::Deny(_), _) => D,
        _ => U,
    }
}

fn check_all(cases: &[Case], base: &Base) {
    let mut failures = Vec::new();
    for case in cases {
        let got = decide(case, base);
        if got != case.want {
            failures.push(format!(
                "{} {} with allow {:?} deny {:?}: got {got:?}, want {:?} ({})",
                case.tool, case.input, case.allow, case.deny, case.want, case.why
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rm_in_every_disguise_never_runs() {
    let cases = rm_in_disguise();
    check_all(&cases, &base());
}

#[test]
fn content_rules_allow_only_what_they_cover() {
    check_all(&content_rules(), &base());
}

#[test]
fn paths_tool_names_and_urls() {
    check_all(&other_tools(), &base());
}

/// Each builtin that runs nothing is allowed by its own rule; each that runs or reinterprets
/// text is never allowed, with everything else allowed.
#[test]
fn builtins_by_kind() {
    let plain = [
        ":",
        "true",
        "false",
        "echo hi",
        "pwd",
        "cd /tmp",
        "pushd /tmp",
        "popd",
        "dirs",
        "exit 0",
        "return",
        "shift",
        "break",
        "continue",
        "jobs",
        "umask 022",
        "ulimit -n",
        "times",
        "type ls",
        "help cd",
        "disown",
        "kill 1",
        "unalias x",
        "test -f x",
        "[ -d x ]",
    ];
    let mut cases = 0;
    for command in plain {
        let name = command.split_whitespace().next().unwrap();
        let rule = format!("Bash({name}:*)");
        let policy = PermissionPolicy::parse(&[rule.as_str()], &[]).unwrap();
        assert!(
            policy.decide("Bash", &bash(command)).is_allowed(),
            "{command} under {rule}"
        );
        cases += 1;
    }
    let unproven = [
        "eval ls",
        "source x",
        ". x",
        "trap ls EXIT",
        "alias x=ls",
        "shopt -s extglob",
        "let x=1",
        "hash -p /bin/ls x",
        "enable -n echo",
        "bind -x '\"a\":ls'",
        "complete -C ls x",
        "compgen -C ls",
        "compopt -o x",
        "fc -l",
        "history -s ls",
    ];
    let policy = PermissionPolicy::parse(ALL, RM).unwrap();
    for command in unproven {
        assert!(
            !policy.decide("Bash", &bash(command)).is_allowed(),
            "{command} is allowed"
        );
        cases += 1;
    }
    assert!(cases >= 40);
}

/// Every executor in the table: its example is never allowed with everything but `rm`
/// allowed, nor with the executor itself allowed and `rm` denied (what a program runs is its
/// own business only while no deny rule could be reached through it); none of its names is
/// allowed at all under a deny rule, whatever its operands.
#[test]
fn every_executor_example_is_refused() {
    let mut failures = Vec::new();
    let all_but_rm = PermissionPolicy::parse(ALL, RM).unwrap();
    for executor in EXECUTORS {
        let example = bash(executor.example);
        if all_but_rm.decide("Bash", &example).is_allowed() {
            failures.push(format!(
                "{} allowed under --allow Bash --deny rm",
                executor.example
            ));
        }
        for name in executor.names {
            let rule = format!("Bash({name}:*)");
            let own = PermissionPolicy::parse(&[&rule], RM).unwrap();
            let command = executor.example.replacen(
                executor.example.split_whitespace().next().unwrap(),
                name,
                1,
            );
            if own.decide("Bash", &bash(&command)).is_allowed() {
                failures.push(format!("{command} allowed under {rule} with rm denied"));
            }
            let any = PermissionPolicy::parse(&[&rule], &["Bash(git push:*)"]).unwrap();
            if !matches!(executor.runs, Runs::Operand(_))
                && any.decide("Bash", &bash(&command)).is_allowed()
            {
                failures.push(format!(
                    "{command} allowed under {rule} with git push denied"
                ));
            }
            if let Runs::Anything = executor.runs {
                if all_but_rm
                    .decide("Bash", &bash(&format!("{name} x")))
                    .is_allowed()
                {
                    failures.push(format!("`{name} x` allowed though {name} runs anything"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rules_parse_and_print_as_written() {
    for text in [
        "Write",
        "mcp__*",
        "mcp__srv",
        "Bash(git log*)",
        "Bash(npm test:*)",
        "Write(/tmp/*)",
        "Read(./src/**)",
        "WebFetch(domain:example.com)",
    ] {
        assert_eq!(text.parse::<Rule>().unwrap().to_string(), text);
    }
    for bad in ["Bash(", "Bash()", "(x)", "", "Bad Tool", "Read([)"] {
        assert!(bad.parse::<Rule>().is_err(), "{bad}");
    }
}

#[test]
fn unknown_tool_names_are_refused_with_the_right_name() {
    let err = "bash(ls:*)".parse::<Rule>().unwrap_err().to_string();
    assert!(err.contains("`Bash`"), "{err}");
    let err = "NotATool".parse::<Rule>().unwrap_err().to_string();
    assert!(err.contains("no tool is called `NotATool`"), "{err}");
    assert!("mcp__any__tool".parse::<Rule>().is_ok());
    assert!(Rule::parse_any_tool("NewTool(x)").is_ok());
}

#[test]
fn suggestions_name_only_what_is_missing() {
    let policy = PermissionPolicy::parse(&["Bash(ls:*)"], &[]).unwrap();
    let rules = |command: &str| -> Vec<String> {
        policy
            .suggest("Bash", &bash(command))
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(rules("ls && cat /etc/x"), ["Bash(cat:*)"]);
    assert_eq!(rules("touch x"), ["Bash(touch:*)"]);
    assert_eq!(rules("timeout 5 cat x"), ["Bash(timeout:*)", "Bash(cat:*)"]);
    assert_eq!(
        rules("echo hi > 'a[1].txt' 2>/tmp/log"),
        ["Bash(echo:*)", "Edit(./a[[]1[]].txt)", "Edit(//tmp/log)"]
    );
    // No narrow rule for a command that cannot be proven.
    assert!(rules("$X y").is_empty());
    assert!(rules("echo \"open").is_empty());
    assert!(rules("PATH=/x ls").is_empty());
    assert_eq!(
        policy
            .suggest("Write", &file("a"))
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["Write"]
    );
    assert!(policy.suggest("mcp__x\ny", &json!({})).is_empty());
}

#[test]
fn strict_redirects_refuse_reads_too() {
    let lenient = PermissionPolicy::parse(&["Bash(cat:*)"], &[]).unwrap();
    let strict = lenient.clone().strict_redirects();
    let call = bash("cat < /etc/hosts");
    assert!(lenient.decide("Bash", &call).is_allowed());
    assert!(!strict.decide("Bash", &call).is_allowed());
}

/// The table-driven cases in this file, counted.
#[test]
fn there_are_at_least_three_hundred_cases() {
    let builtins = 40;
    let executors: usize = EXECUTORS.iter().map(|e| e.names.len() + 1).sum();
    let total =
        rm_in_disguise().len() + content_rules().len() + other_tools().len() + builtins + executors;
    assert!(total >= 300, "{total} cases");
}
