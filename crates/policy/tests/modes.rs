//! What the modes allow without a rule: read-only Bash commands inside the session's
//! directories (every mode), and in `acceptEdits` `mkdir`, `touch`, `cp`, `mv` and `> file`
//! inside them; on a real tree with a directory outside and links that lead out.
#![cfg(unix)]
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::json;
use twinwire_policy::shell::known::KNOWN;
use twinwire_policy::{Base, Case, Decision, Directories, PermissionPolicy};

struct Tree {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let home = root.join("home");
        for sub in ["src", "protected", "in", "added"] {
            std::fs::create_dir_all(project.join(sub)).unwrap();
        }
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        for file in [
            "README.md",
            "a.txt",
            "b.txt",
            "x",
            "db.sqlite",
            "a.tgz",
            "x.magic",
        ] {
            std::fs::write(project.join(file), "x\n").unwrap();
        }
        std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("elsewhere/secret"), "s\n").unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), project.join("in/out")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere/secret"), project.join("src/leak"))
            .unwrap();
        Self {
            _dir: dir,
            project,
            home,
        }
    }

    fn policy(&self, allow: &[&str], deny: &[&str]) -> PermissionPolicy {
        PermissionPolicy::parse(allow, deny)
            .unwrap()
            .with_base(Base::new(&self.project, Some(self.home.clone())).with_case(Case::Sensitive))
    }

    fn dirs(&self) -> Directories {
        Directories::new(vec![self.project.clone()], &self.project)
    }

    fn read_only(&self, command: &str) -> bool {
        self.policy(&[], &[])
            .read_only(command, &self.dirs())
            .is_ok()
    }

    fn edits(&self, command: &str) -> bool {
        self.policy(&[], &[])
            .edits_inside(command, &self.dirs())
            .is_ok()
    }
}

/// The commands of the hunt that found the agent running them without asking: none is
/// read-only, as Claude Code 2.1.332 asks about or refuses each.
#[test]
fn the_four_commands_are_not_read_only() {
    let tree = Tree::new();
    for command in [
        "env | grep -i anthropic",
        "sort -o ../elsewhere/out x",
        "cat /etc/hostname",
        "rg --pre /bin/touch foo .",
    ] {
        let why = tree
            .policy(&[], &[])
            .read_only(command, &tree.dirs())
            .unwrap_err();
        assert!(!why.to_string().is_empty(), "{command}");
    }
}

#[test]
fn reads_inside_the_allowed_directories_are_read_only() {
    let tree = Tree::new();
    for command in [
        "cat README.md",
        "ls -la src",
        "ls",
        "grep -rn main src",
        "rg -n main",
        "head -n 3 a.txt | wc -l",
        "cd src && cat main.rs",
        "cat src/*.rs",
        "find . -name '*.rs'",
        "sort -u -k 2 a.txt",
        "uniq -c a.txt",
        "diff a.txt b.txt",
        "tree -L 2",
        "wc -l < a.txt",
        "echo done",
        "timeout 5 cat a.txt",
        "env LANG=C sort a.txt",
        "date +%s",
        "git log --oneline -5",
        "git -C src status",
        "stat -c %s a.txt",
        "cat added/../a.txt",
    ] {
        assert!(tree.read_only(command), "{command} should be read-only");
    }
}

#[test]
fn what_writes_runs_or_reads_outside_is_not() {
    let tree = Tree::new();
    for command in [
        // Outside, by path, by `..`, by a link, by a glob, by `cd`, by a redirection.
        "cat ../elsewhere/secret",
        "cat /proc/self/environ",
        "ls /etc",
        "grep -r x /",
        "cat in/out/secret",
        "cat src/*",
        "cat /etc/host*",
        "cd .. && cat elsewhere/secret",
        "cd && ls",
        "cat < /etc/hostname",
        "cat $HOME/x",
        "cat ~/x",
        "git -C .. status",
        // Secrets.
        "env",
        "printenv",
        "printenv ANTHROPIC_API_KEY",
        // Writes.
        "echo x > out.txt",
        "sort -o out.txt a.txt",
        "sort --out=out.txt a.txt",
        "sort -T /tmp a.txt",
        "uniq a.txt out.txt",
        "tree -o out.txt",
        "date -s 2000-01-01",
        "date --set=2000-01-01",
        "find . -delete",
        "find . -fprint out.txt",
        "sed -i s/a/b/ a.txt",
        "tee out.txt",
        "hostname other",
        "git commit -m x",
        "git branch new",
        "git config core.pager x",
        "touch new.txt",
        "cp a.txt b.txt",
        // Runs.
        "find . -exec cat {} ;",
        "rg --pre cat x",
        "rg --search-zip x",
        "sort --compress-program=cat a.txt",
        "sort * ",
        "env cat a.txt | sh",
        "xargs cat < a.txt",
        "make",
        "git -c core.pager=cat log",
        "awk 'BEGIN { system(\"ls\") }'",
        "sqlite3 db.sqlite .tables",
        "kill 1",
        "export X=1",
        "setsid cat a.txt",
    ] {
        assert!(!tree.read_only(command), "{command} was taken as read-only");
    }
}

#[test]
fn a_shell_outside_the_allowed_directories_reads_outside() {
    let tree = Tree::new();
    let elsewhere = tree.project.parent().unwrap().join("elsewhere");
    let dirs = Directories::new(vec![tree.project.clone()], &elsewhere);
    let policy = tree.policy(&[], &[]);
    assert!(policy.read_only("cat secret", &dirs).is_err());
    assert!(policy.read_only("ls", &dirs).is_err());
    let added = Directories::new(vec![tree.project.clone(), elsewhere.clone()], &elsewhere);
    assert!(policy.read_only("cat secret", &added).is_ok(), "--add-dir");
}

#[test]
fn accept_edits_allows_edits_inside_and_nothing_outside() {
    let tree = Tree::new();
    for command in [
        "mkdir -p build/out",
        "touch new.txt",
        "cp a.txt b.txt",
        "cp -r src added/",
        "mv a.txt added/",
        "mv -t added a.txt b.txt",
        "echo x > out.txt",
        "cat a.txt >> b.txt",
        "mkdir build && cp a.txt build/",
    ] {
        assert!(tree.edits(command), "{command} should be an edit inside");
    }
    for command in [
        "touch ../x",
        "mkdir /tmp/twinwire-x",
        "cp a.txt ../elsewhere/",
        "cp ../elsewhere/secret .",
        "mv ../elsewhere/secret .",
        "mv a.txt in/out/",
        "cp a.txt -t /tmp",
        "cp --target-directory=/tmp a.txt",
        "echo x > /tmp/x",
        "echo x > $F",
        "rm a.txt",
        "chmod +x a.txt",
        "ln -s /etc x",
        "cd .. && touch x",
        "sed -i s/a/b/ a.txt",
    ] {
        assert!(
            !tree.edits(command),
            "{command} was taken as an edit inside"
        );
    }
}

#[test]
fn deny_rules_hold_against_the_paths_of_known_programs() {
    let tree = Tree::new();
    let bash = |command: &str| json!({ "command": command });
    let policy = tree.policy(&["Bash"], &["Edit(./protected/**)", "Read(./src/**)"]);
    for command in [
        "cp a.txt protected/",
        "mv protected/x a.txt",
        "touch protected/new",
        "cat src/main.rs",
        "grep -r main src",
        "cp src/main.rs a.txt",
        "wc -l < src/main.rs",
    ] {
        assert!(
            matches!(policy.decide("Bash", &bash(command)), Decision::Deny(_)),
            "{command}"
        );
    }
    assert!(policy.decide("Bash", &bash("cp a.txt b.txt")).is_allowed());
}

/// Every entry of the table: its example is read-only (or, for programs that change files,
/// not), and its counterexample never is; under `--allow Bash --deny 'Bash(rm:*)'`, an entry
/// whose counterexample runs a program is asked about.
#[test]
fn every_entry_of_the_table() {
    let tree = Tree::new();
    let all_but_rm = tree.policy(&["Bash"], &["Bash(rm:*)"]);
    let mut failures = Vec::new();
    for entry in KNOWN {
        for name in entry.names {
            let rename = |example: &str| -> String {
                let first = example.split_whitespace().next().unwrap();
                example.replacen(first, name, 1)
            };
            let example = rename(entry.example);
            let read_only = tree.read_only(&example);
            if read_only != (entry.reads_only && !entry.prints_secrets) {
                failures.push(format!("{example}: read-only {read_only}"));
            }
            if name != &"rm"
                && !all_but_rm
                    .decide("Bash", &json!({ "command": example }))
                    .is_allowed()
            {
                failures.push(format!(
                    "{example}: not allowed under --allow Bash --deny rm"
                ));
            }
            if entry.counter.is_empty() {
                continue;
            }
            let counter = rename(entry.counter);
            if tree.read_only(&counter) {
                failures.push(format!("{counter}: read-only"));
            }
            let words = twinwire_policy::shell::analyze(&counter).commands[0]
                .words
                .clone();
            let judged = entry.judge(&words[1..]);
            let decided = all_but_rm.decide("Bash", &json!({ "command": counter }));
            if judged.runs.is_some() && decided.is_allowed() {
                failures.push(format!(
                    "{counter}: runs a program, allowed under a deny rule"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
