//! [`lint`]: what a set of rules says that its author may not have meant. Each [`Finding`]
//! names the rule, what kind of surprise it is, and an example command or path.
//!
//! - **wider**: an allow rule covers more than its text shows: `Bash(find:*)` allows
//!   `find . -exec …` (whatever `find` runs), `Bash(make:*)` allows what the Makefile runs,
//!   `Bash` and `Bash(*)` allow every command.
//! - **weakened**: an allow rule that a deny rule turns into a question: with `Bash(rm:*)`
//!   denied, `Bash(make:*)` is asked, since `make` may run `rm`.
//! - **cannot hold**: a deny rule that another spelling gets past (`Bash(rm -rf:*)` does not
//!   match `rm -fr`: deny the program, `Bash(rm:*)`), or that an allowed command gets around
//!   without running the denied program (a probe per program: `find . -delete`, `python3 -c`,
//!   `node -e`, … for `rm`, `curl`, `wget`, `git`; reported when the rules allow it).
//!   Interpreters and deleting `find`s are asked under any deny rule, so these deny rules hold
//!   here; in Claude Code they do not.
//! - **shadowed**: an allow rule every call of which a deny rule refuses (it never applies),
//!   or one a broader allow rule already covers.

use std::fmt;

use serde_json::json;

use crate::rule::{Content, Rule, ToolMatch};
use crate::shell::known;
use crate::shell::{self, base_name, Word};
use crate::PermissionPolicy;

/// The kind of surprise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lint {
    /// An allow rule covers more than its text shows.
    Wider,
    /// A deny rule turns an allow rule's commands into questions.
    Weakened,
    /// A deny rule that another spelling, or another program, gets past.
    CannotHold,
    /// An allow rule that never applies, or that another allow rule already covers.
    Shadowed,
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lint::Wider => "wider than it looks",
            Lint::Weakened => "weakened by a deny rule",
            Lint::CannotHold => "cannot hold",
            Lint::Shadowed => "shadowed",
        })
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The rule, as written.
    pub rule: String,
    /// What kind of surprise.
    pub lint: Lint,
    /// What it means, with an example.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.rule, self.lint, self.message)
    }
}

/// Programs that run what they are given as a matter of course, and what they run.
const RUNNERS: &[(&str, &str)] = &[
    ("make", "the commands of the Makefile"),
    ("npm", "the package's scripts"),
    ("npx", "any package's program"),
    ("yarn", "the package's scripts"),
    ("pnpm", "the package's scripts"),
    ("cargo", "build scripts and the programs it builds"),
    ("python", "any code"),
    ("python3", "any code"),
    ("node", "any code"),
    ("ruby", "any code"),
    ("perl", "any code"),
    ("sh", "any command"),
    ("bash", "any command"),
    ("zsh", "any command"),
    ("docker", "containers and their commands"),
    ("kubectl", "commands in pods (`kubectl exec`)"),
    ("xargs", "the command it is given"),
    ("env", "the command it is given"),
    ("sudo", "any command as root"),
    ("ssh", "commands on another machine"),
];

/// Commands that can do what a denied program does without running it.
const SAME_POWER: &[(&str, &[&str])] = &[
    (
        "curl",
        &[
            "python3 -c pass",
            "python -c pass",
            "node -e 1",
            "perl -e 1",
            "wget x",
        ],
    ),
    (
        "wget",
        &[
            "python3 -c pass",
            "python -c pass",
            "node -e 1",
            "perl -e 1",
            "curl x",
        ],
    ),
    (
        "rm",
        &[
            "find . -name x -delete",
            "python3 -c pass",
            "python -c pass",
            "node -e 1",
            "perl -e 1",
        ],
    ),
    ("git", &["python3 -c pass", "python -c pass", "node -e 1"]),
];

/// Lints the rules of one session (allow and deny; `ask` rules are asked either way).
pub fn lint(policy: &PermissionPolicy) -> Vec<Finding> {
    let mut findings = Vec::new();
    let allow = policy.allow_rules();
    let deny = policy.deny_rules();
    for rule in allow {
        wider(rule, &mut findings);
        shadowed(rule, allow, deny, &mut findings);
        weakened(policy, rule, deny, &mut findings);
    }
    for rule in deny {
        cannot_hold(policy, rule, &mut findings);
    }
    findings
}

/// The program a `Bash(P…)` rule names, and the rest of its text.
fn program_of(rule: &Rule) -> Option<(String, String)> {
    if !rule.is_bash_content() {
        return None;
    }
    let text = match &rule.content {
        Some(Content::Word(word)) => word.clone(),
        Some(Content::Text(_, glob)) => glob.clone(),
        _ => return None,
    };
    let mut words = text.split_whitespace();
    let program = base_name(words.next()?).to_owned();
    if program.contains(['*', '?', '[']) {
        return None;
    }
    Some((program, words.collect::<Vec<_>>().join(" ")))
}

fn wider(rule: &Rule, findings: &mut Vec<Finding>) {
    let mut say = |message: String| {
        findings.push(Finding {
            rule: rule.as_str().to_owned(),
            lint: Lint::Wider,
            message,
        })
    };
    if rule.is_bare_bash() || matches!(&rule.content, Some(Content::Text(_, glob)) if glob == "*") {
        say("allows every command, whatever it runs or writes".into());
        return;
    }
    let Some((program, rest)) = program_of(rule) else {
        return;
    };
    if let Some((_, what)) = RUNNERS.iter().find(|(name, _)| *name == program) {
        say(format!(
            "`{program}` runs {what}: allowing `{program}` allows whatever that is"
        ));
        return;
    }
    let Some(entry) = known::known(&program) else {
        if shell::builtins::check(&program, &[]).is_none() {
            say(format!(
                "`{program}` is not a program the rules know: what it runs or writes is its own \
                 business, and allowed with it"
            ));
        }
        return;
    };
    let probe: Vec<Word> = ["-exec", "sh", "{}", ";"].map(Word::literal).to_vec();
    if rest.is_empty() && entry.check.is_some() {
        if let Some(why) = entry.judge(&probe).runs {
            say(format!(
                "also allows `{program} . -exec sh {{}} ;`: the command {why}"
            ));
            return;
        }
    }
    if let Some(option) = entry.long_runs.first().filter(|_| rest.is_empty()) {
        say(format!(
            "also allows `{program} --{option} …`, which runs another program"
        ));
        return;
    }
    if !entry.counter.is_empty() && rest.is_empty() {
        let words: Vec<Word> = entry
            .counter
            .split_whitespace()
            .skip(1)
            .map(Word::literal)
            .collect();
        let judged = entry.judge(&words);
        if let Some(why) = judged.runs {
            say(format!(
                "also allows `{}`: the command {why}",
                entry.counter
            ));
        } else if judged.writes.is_some() || !entry.reads_only {
            say(format!("also allows `{}`, which writes", entry.counter));
        }
    }
    if entry.prints_secrets {
        say(format!(
            "`{program}` prints the environment: API keys and tokens reach the model"
        ));
    }
}

fn shadowed(rule: &Rule, allow: &[Rule], deny: &[Rule], findings: &mut Vec<Finding>) {
    let covers = |broad: &Rule, narrow: &Rule| -> bool {
        if broad == narrow || !same_tool(broad, narrow) {
            return false;
        }
        match (&broad.content, &narrow.content) {
            (None, _) => true,
            (Some(Content::Word(b)), Some(Content::Word(n))) => {
                n == b
                    || n.strip_prefix(b.as_str())
                        .is_some_and(|r| r.starts_with(' '))
            }
            (Some(Content::Text(glob, _)), Some(Content::Word(n))) => glob.is_match(n),
            _ => false,
        }
    };
    if let Some(denying) = deny
        .iter()
        .find(|d| covers(d, rule) || d.as_str() == rule.as_str())
    {
        findings.push(Finding {
            rule: rule.as_str().to_owned(),
            lint: Lint::Shadowed,
            message: format!(
                "never applies: `{}` denies every call it allows",
                denying.as_str()
            ),
        });
        return;
    }
    if let Some(broader) = allow.iter().find(|a| covers(a, rule)) {
        findings.push(Finding {
            rule: rule.as_str().to_owned(),
            lint: Lint::Shadowed,
            message: format!("`{}` already allows every call it allows", broader.as_str()),
        });
    }
}

fn same_tool(a: &Rule, b: &Rule) -> bool {
    match (&a.tool, &b.tool) {
        (ToolMatch::Exact(x), ToolMatch::Exact(y)) => x == y,
        (ToolMatch::McpServer(x), ToolMatch::McpServer(y)) => x == y,
        _ => false,
    }
}

fn weakened(policy: &PermissionPolicy, rule: &Rule, deny: &[Rule], out: &mut Vec<Finding>) {
    let Some((program, rest)) = program_of(rule) else {
        return;
    };
    let command = if rest.is_empty() {
        program.clone()
    } else {
        format!("{program} {rest}")
    };
    let alone = PermissionPolicy::new(vec![rule.clone()], Vec::new());
    let input = json!({ "command": command });
    if !alone.decide("Bash", &input).is_allowed() || policy.decide("Bash", &input).is_allowed() {
        return;
    }
    let Some(culprit) = deny.iter().find(|d| {
        let one = PermissionPolicy::new(vec![rule.clone()], vec![(*d).clone()]);
        !one.decide("Bash", &input).is_allowed()
    }) else {
        return;
    };
    out.push(Finding {
        rule: rule.as_str().to_owned(),
        lint: Lint::Weakened,
        message: format!(
            "`{command}` is asked, not allowed: with `{}` denied, `{program}` may run what it \
             forbids",
            culprit.as_str()
        ),
    });
}

fn cannot_hold(policy: &PermissionPolicy, rule: &Rule, findings: &mut Vec<Finding>) {
    let Some((program, rest)) = program_of(rule) else {
        return;
    };
    let mut say = |message: String| {
        findings.push(Finding {
            rule: rule.as_str().to_owned(),
            lint: Lint::CannotHold,
            message,
        })
    };
    if rest.starts_with('-') {
        let respelled = respell(&rest);
        say(format!(
            "matches only this spelling of `{program}`'s options: `{program} {respelled}` is \
             the same command; deny the program (`Bash({program}:*)`) to stop it"
        ));
    }
    if let Some((_, probes)) = SAME_POWER.iter().find(|(name, _)| *name == program) {
        for probe in *probes {
            if policy
                .decide("Bash", &json!({ "command": probe }))
                .is_allowed()
            {
                say(format!(
                    "`{probe}` is allowed, and can do what `{program}` does without running it"
                ));
            }
        }
    }
}

/// The same options spelled another way (`-rf` → `-f -r`, `-r -f` → `-fr`).
fn respell(options: &str) -> String {
    let words: Vec<&str> = options.split_whitespace().collect();
    match words.as_slice() {
        [one, rest @ ..] if one.len() > 2 && !one.starts_with("--") => {
            let flags: Vec<String> = one[1..].chars().rev().map(|c| format!("-{c}")).collect();
            let mut out = flags.join(" ");
            for word in rest {
                out.push(' ');
                out.push_str(word);
            }
            out
        }
        _ => format!("{options} --"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(allow: &[&str], deny: &[&str]) -> Vec<(String, Lint)> {
        let policy = PermissionPolicy::parse(allow, deny).unwrap();
        lint(&policy)
            .into_iter()
            .map(|f| (f.rule, f.lint))
            .collect()
    }

    #[test]
    fn executors_and_whole_tools_are_wider_than_they_look() {
        let found = findings(&["Bash(find:*)", "Bash(make:*)", "Bash", "Bash(ls:*)"], &[]);
        assert!(
            found.contains(&("Bash(find:*)".into(), Lint::Wider)),
            "{found:?}"
        );
        assert!(
            found.contains(&("Bash(make:*)".into(), Lint::Wider)),
            "{found:?}"
        );
        assert!(found.contains(&("Bash".into(), Lint::Wider)), "{found:?}");
        assert!(
            !found
                .iter()
                .any(|(r, l)| r == "Bash(ls:*)" && *l == Lint::Wider),
            "{found:?}"
        );
        let env = findings(&["Bash(env:*)"], &[]);
        assert!(
            env.contains(&("Bash(env:*)".into(), Lint::Wider)),
            "{env:?}"
        );
    }

    #[test]
    fn a_deny_rule_weakens_an_executors_allow() {
        let found = findings(&["Bash(make:*)"], &["Bash(rm:*)"]);
        assert!(
            found.contains(&("Bash(make:*)".into(), Lint::Weakened)),
            "{found:?}"
        );
        let fine = findings(&["Bash(ls:*)"], &["Bash(rm:*)"]);
        assert!(!fine.iter().any(|(_, l)| *l == Lint::Weakened), "{fine:?}");
    }

    #[test]
    fn deny_rules_with_options_or_a_same_power_program_cannot_hold() {
        let found = findings(&["Bash(find:*)"], &["Bash(rm -rf:*)", "Bash(rm:*)"]);
        assert!(
            found.contains(&("Bash(rm -rf:*)".into(), Lint::CannotHold)),
            "{found:?}"
        );
        // `find -delete` removes files without running `rm`: under the deny rule it is asked,
        // so the deny holds.
        assert!(
            !found.contains(&("Bash(rm:*)".into(), Lint::CannotHold)),
            "{found:?}"
        );
        // Under a deny rule `python3` is asked (it may run anything): the deny holds here.
        let held = findings(&["Bash(python3:*)"], &["Bash(curl:*)"]);
        assert!(
            !held.contains(&("Bash(curl:*)".into(), Lint::CannotHold)),
            "{held:?}"
        );
        assert_eq!(respell("-rf"), "-f -r");
    }

    #[test]
    fn shadowed_and_redundant_allows_are_named() {
        let found = findings(&["Bash(git log:*)", "Bash(git:*)"], &["Bash(git push:*)"]);
        assert!(
            found.contains(&("Bash(git log:*)".into(), Lint::Shadowed)),
            "{found:?}"
        );
        let denied = findings(&["Bash(git log:*)"], &["Bash(git:*)"]);
        assert!(
            denied.contains(&("Bash(git log:*)".into(), Lint::Shadowed)),
            "{denied:?}"
        );
        let none = findings(&["Read(./src/**)", "Bash(ls:*)"], &[]);
        assert!(!none.iter().any(|(_, l)| *l == Lint::Shadowed), "{none:?}");
    }
}
