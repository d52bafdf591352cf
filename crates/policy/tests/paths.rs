//! Path rules on a real tree: relative rules, `~`, and symbolic links to files and
//! directories, dangling, chained, and reached through a directory that does not exist yet.
#![cfg(unix)]
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use twinwire_policy::{Base, Decision, PermissionPolicy};

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    secret: PathBuf,
}

/// `root/work` is the session's directory; `root/secret` is outside every rule.
fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join("work");
    let secret = root.join("secret");
    for d in ["work/src", "work/private", "secret/deep", "home/notes"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(secret.join("key"), "k").unwrap();
    symlink(&secret, work.join("src/escape")).unwrap();
    symlink(secret.join("deep"), work.join("src/up")).unwrap();
    symlink(work.join("private"), work.join("public")).unwrap();
    // A link to a file that does not exist yet, outside.
    symlink(secret.join("planted"), work.join("src/dangling")).unwrap();
    // A chain: src/a → src/b → ../../secret/key.
    symlink("b", work.join("src/a")).unwrap();
    symlink("../../secret/key", work.join("src/b")).unwrap();
    // A dangling link whose target is a directory path that does not exist, outside.
    symlink(secret.join("new/dir"), work.join("src/deep-dangling")).unwrap();
    // A loop.
    symlink("loop2", work.join("src/loop1")).unwrap();
    symlink("loop1", work.join("src/loop2")).unwrap();
    Tree {
        _dir: dir,
        root,
        work,
        secret,
    }
}

fn file(path: &str) -> Value {
    json!({ "file_path": path })
}

fn at(path: &Path) -> String {
    path.display().to_string()
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Want {
    Allow,
    Deny,
    No,
}
use Want::{Allow as A, Deny as D, No as N};

/// Allow rules, deny rules, the tool, its input, the decision wanted, and why.
type Case = (
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
    Value,
    Want,
    &'static str,
);

fn check(tree: &Tree, cases: &[Case]) {
    let base = Base::new(tree.work.clone(), Some(tree.root.join("home")))
        .with_case(twinwire_policy::Case::Sensitive);
    let mut failures = Vec::new();
    for (allow, deny, tool, input, want, why) in cases {
        let policy = PermissionPolicy::parse(allow, deny)
            .unwrap()
            .with_base(base.clone());
        let got = match policy.decide(tool, input) {
            Decision::Allow(_) => A,
            Decision::Deny(_) if *want == D => D,
            _ => N,
        };
        if got != *want {
            failures.push(format!(
                "{tool} {input} allow {allow:?} deny {deny:?}: got {got:?} ({why})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn paths_on_a_real_tree() {
    let t = tree();
    let bash = |c: &str| json!({ "command": c });
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        (&["Edit(./src/**)"], &[], "Edit", file("src/main.rs"), A, "relative to the session"),
        (&["Edit(./src/**)"], &[], "Edit", file(&at(&t.work.join("src/main.rs"))), A, "absolute, same place"),
        (&["Edit(./src/**)"], &[], "Edit", file("../work/src/main.rs"), A, "out and back in"),
        (&["Edit(./src/**)"], &[], "Edit", file("src/../../secret/x"), N, "out by `..`"),
        (&["Edit(src/**)"], &[], "Write", file("src/lib.rs"), A, "without ./"),
        (&["Edit(./src/**)"], &[], "Edit", file("src/escape/key"), N, "a link out of the pattern"),
        (&["Edit(./src/**)"], &[], "Edit", file("src/up/../x"), N, "`..` after a link goes to the link's parent"),
        (&["Edit(./src/**)"], &[], "Write", file("src/dangling"), N, "a dangling link leads out"),
        (&["Edit(./src/**)"], &[], "Write", file("src/a"), N, "a chain of links leads out"),
        (&["Edit(./src/**)"], &[], "Write", file("src/deep-dangling/x"), N, "a dangling link to a missing directory"),
        (&["Edit(./src/**)"], &[], "Write", file("src/missing/../escape/key"), N, "a missing directory, `..`, then a link out"),
        (&["Edit(./src/**)"], &[], "Write", file("src/missing/../ok.rs"), A, "a missing directory and `..` back inside"),
        (&["Edit(./src/**)"], &[], "Write", file("src/loop1"), N, "a loop of links"),
        (&["Edit"], &["Edit(../secret/**)"], "Write", file("src/dangling"), D, "a deny through a dangling link"),
        (&["Read"], &["Read(./private/**)"], "Read", file("public/key"), D, "a link into a denied directory"),
        (&["Read"], &["Read(/private/**)"], "Read", file("private/key"), D, "one slash: also the session's reading"),
        (&["Write"], &[], "Write", file("src/dangling"), A, "a bare rule allows everything"),
        (&["Read(~/notes/*)"], &[], "Read", file(&at(&t.root.join("home/notes/a.md"))), A, "~ is HOME"),
        (&["Read(~/notes/*)"], &[], "Read", file("~/notes/a.md"), A, "~ in the path too"),
        (&["Read(~/notes/*)"], &[], "Read", file("~/other"), N, "elsewhere in HOME"),
        (&["Read(*.md)"], &[], "Read", file("src/readme.md"), A, "a bare name: below the session"),
        (&["Read(*.md)"], &[], "Read", file(&at(&t.secret.join("a.md"))), N, "but not elsewhere"),
        (&["Read(./src/**)"], &[], "Grep", json!({"pattern": "x", "path": "src"}), A, "a search in an allowed directory"),
        (&["Read(./src/**)"], &[], "Grep", json!({"pattern": "x"}), N, "a search of the whole session"),
        (&["Read(./src/**)"], &[], "Read", json!({"file_path": "src/a.rs", "path": "src/escape/key"}), N, "the second path field leads out"),
        (&["Bash(echo:*)", "Edit(./**)"], &[], "Bash", bash("echo hi > out.txt"), A, "a redirect is an edit the rules allow"),
        (&["Bash(echo:*)", "Edit(./**)"], &[], "Bash", bash("echo hi > ~/.bashrc"), N, "an edit outside them"),
        (&["Bash(echo:*)", "Edit(./**)"], &[], "Bash", bash("echo hi > src/escape/k"), N, "an edit through a link out"),
        (&["Bash(echo:*)", "Edit(./**)"], &[], "Bash", bash("echo hi > src/dangling"), N, "an edit through a dangling link"),
        (&["Bash(echo:*)", "Edit(./**)", "Bash(cd:*)"], &[], "Bash", bash("cd /etc && echo x > passwd"), N, "relative to a directory changed on the way"),
        (&["Bash(echo:*)", "Edit(./**)"], &[], "Bash", bash("echo x > \"$F\""), N, "a computed file name"),
        (&["Bash"], &["Edit(./private/**)"], "Bash", bash("echo x > private/k"), D, "an Edit deny covers redirects"),
        (&["Bash"], &["Edit(./private/**)"], "Bash", bash("{ echo x; } > public/k"), D, "a group's redirect, through a link"),
    ];
    check(&t, &cases);
}

#[test]
fn every_form_of_a_path_is_where_the_file_system_goes() {
    let t = tree();
    let base = Base::new(t.work.clone(), None).with_case(twinwire_policy::Case::Sensitive);
    let forms = base.forms("src/missing/../escape/key").unwrap();
    assert!(forms.contains(&t.secret.join("key")), "{forms:?}");
    let forms = base.forms("src/dangling").unwrap();
    assert!(forms.contains(&t.secret.join("planted")), "{forms:?}");
    let forms = base.forms("src/a").unwrap();
    assert!(forms.contains(&t.secret.join("key")), "{forms:?}");
    assert!(base.forms("src/loop1").is_none());
    // What the kernel does with a write through the dangling link: the target appears.
    std::fs::write(t.work.join("src/dangling"), "x").unwrap();
    assert!(t.secret.join("planted").exists());
}
