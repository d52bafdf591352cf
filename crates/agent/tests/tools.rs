//! The built-in tools on real files, real processes and real trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
#[cfg(unix)]
use std::time::Duration;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use twinwire_agent::config::Limits;
use twinwire_agent::tools::{Registry, ToolContext, ToolOutput, Workspace};

struct Bench {
    _dir: tempfile::TempDir,
    workspace: Arc<Workspace>,
    tools: Registry,
}

impl Bench {
    fn new() -> Self {
        Self::with_limits(Limits::default())
    }

    fn with_limits(limits: Limits) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let workspace =
            Arc::new(Workspace::new(root, Vec::new(), limits, Default::default()).unwrap());
        Self {
            _dir: dir,
            workspace,
            tools: Registry::built_in(None),
        }
    }

    fn root(&self) -> &Path {
        self.workspace.root()
    }

    fn path(&self, name: &str) -> String {
        self.root().join(name).display().to_string()
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.root().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.root().join(name)).unwrap()
    }

    async fn call_with(&self, tool: &str, input: Value, cancel: CancellationToken) -> ToolOutput {
        let cx = ToolContext {
            workspace: Arc::clone(&self.workspace),
            cancel,
            peer: None,
            tool_use_id: "toolu_test".into(),
        };
        self.tools.get(tool).unwrap().call(input, cx).await
    }

    async fn call(&self, tool: &str, input: Value) -> ToolOutput {
        self.call_with(tool, input, CancellationToken::new()).await
    }
}

fn text(output: &ToolOutput) -> String {
    output.content.joined_text()
}

#[tokio::test]
async fn edit_replaces_a_unique_string_and_refuses_an_ambiguous_one() {
    let bench = Bench::new();
    bench.write("a.txt", "one two\nthree two\n");
    let file = bench.path("a.txt");
    let before_read = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "one", "new_string": "1"}),
        )
        .await;
    assert!(
        before_read.is_error,
        "an edit before a read: {}",
        text(&before_read)
    );
    assert!(text(&before_read).contains("has not been read yet"));
    assert!(
        !bench
            .call("Read", json!({"file_path": file}))
            .await
            .is_error
    );

    let ambiguous = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "two", "new_string": "2"}),
        )
        .await;
    assert!(ambiguous.is_error);
    assert!(
        text(&ambiguous).contains("Found 2 matches"),
        "{}",
        text(&ambiguous)
    );
    assert_eq!(
        bench.read("a.txt"),
        "one two\nthree two\n",
        "nothing changed"
    );

    let unique = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "three two", "new_string": "3 2"}),
        )
        .await;
    assert!(!unique.is_error, "{}", text(&unique));
    assert_eq!(bench.read("a.txt"), "one two\n3 2\n");

    let all = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "2", "new_string": "II", "replace_all": false}),
        )
        .await;
    assert!(!all.is_error, "one occurrence left: {}", text(&all));
    let all = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "o", "new_string": "0", "replace_all": true}),
        )
        .await;
    assert!(!all.is_error, "{}", text(&all));
    assert_eq!(bench.read("a.txt"), "0ne tw0\n3 II\n");

    let missing = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "absent", "new_string": "x"}),
        )
        .await;
    assert!(text(&missing).contains("not found"), "{}", text(&missing));
    let same = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "3", "new_string": "3"}),
        )
        .await;
    assert!(text(&same).contains("No changes to make"));
}

#[tokio::test]
async fn edit_and_write_refuse_a_file_changed_on_disk_since_it_was_read() {
    let bench = Bench::new();
    bench.write("b.txt", "alpha\n");
    let file = bench.path("b.txt");
    bench.call("Read", json!({"file_path": file})).await;
    // Another writer changes the file (a different size, so the change shows whatever the
    // file system's time resolution).
    bench.write("b.txt", "alpha beta\n");
    let edit = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "alpha", "new_string": "x"}),
        )
        .await;
    assert!(
        text(&edit).contains("modified since read"),
        "{}",
        text(&edit)
    );
    let write = bench
        .call("Write", json!({"file_path": file, "content": "new"}))
        .await;
    assert!(
        text(&write).contains("modified since read"),
        "{}",
        text(&write)
    );
    assert_eq!(bench.read("b.txt"), "alpha beta\n");
    bench.call("Read", json!({"file_path": file})).await;
    let write = bench
        .call("Write", json!({"file_path": file, "content": "new"}))
        .await;
    assert!(!write.is_error, "{}", text(&write));
    assert_eq!(bench.read("b.txt"), "new");
    let create = bench
        .call(
            "Write",
            json!({"file_path": bench.path("deep/er/c.txt"), "content": "c"}),
        )
        .await;
    assert!(
        text(&create).starts_with("File created successfully"),
        "{}",
        text(&create)
    );
    let create = bench
        .call(
            "Edit",
            json!({"file_path": bench.path("d.txt"), "old_string": "", "new_string": "d"}),
        )
        .await;
    assert!(!create.is_error);
    assert_eq!(bench.read("d.txt"), "d");
}

#[tokio::test]
async fn read_numbers_lines_from_an_offset_for_a_limit() {
    let bench = Bench::new();
    let lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    bench.write("ten.txt", &lines);
    let part = bench
        .call(
            "Read",
            json!({"file_path": bench.path("ten.txt"), "offset": 3, "limit": 2}),
        )
        .await;
    assert!(!part.is_error);
    assert!(
        text(&part).starts_with("     3\tline 3\n     4\tline 4\n"),
        "{}",
        text(&part)
    );
    assert!(text(&part).contains("offset 5"), "{}", text(&part));
    assert_eq!(part.result.as_ref().unwrap()["file"]["totalLines"], 10);
    let whole = bench
        .call("Read", json!({"file_path": bench.path("ten.txt")}))
        .await;
    assert!(
        text(&whole).ends_with("    10\tline 10"),
        "{}",
        text(&whole)
    );
    let past = bench
        .call(
            "Read",
            json!({"file_path": bench.path("ten.txt"), "offset": 50}),
        )
        .await;
    assert!(text(&past).contains("10 lines"), "{}", text(&past));
    let missing = bench
        .call("Read", json!({"file_path": bench.path("nope")}))
        .await;
    assert!(missing.is_error && text(&missing).contains("does not exist"));
    std::fs::write(bench.root().join("bin"), [0u8, 1, 2]).unwrap();
    let binary = bench
        .call("Read", json!({"file_path": bench.path("bin")}))
        .await;
    assert!(binary.is_error && text(&binary).contains("binary"));
    let long = Bench::with_limits(Limits {
        read_line_chars: 5,
        ..Limits::default()
    });
    long.write("long.txt", "abcdefghij\n");
    let cut = long
        .call("Read", json!({"file_path": long.path("long.txt")}))
        .await;
    assert!(
        text(&cut).contains("abcde… [line cut at 5 characters]"),
        "{}",
        text(&cut)
    );
}

/// A tree with ignored and hidden files, in a git work tree so `.gitignore` applies.
fn tree(bench: &Bench) {
    std::fs::create_dir(bench.root().join(".git")).unwrap();
    bench.write(".gitignore", "target/\n*.log\n");
    bench.write("src/main.rs", "fn main() { needle(); }\n");
    bench.write("src/lib.rs", "pub fn needle() {}\n// no match here\n");
    bench.write("src/notes.md", "needle in prose\n");
    bench.write("target/out.rs", "needle in build output\n");
    bench.write("debug.log", "needle in a log\n");
    bench.write(".hidden/secret.rs", "needle hidden\n");
}

#[tokio::test]
async fn glob_matches_paths_and_leaves_out_ignored_and_hidden_files() {
    let bench = Bench::new();
    tree(&bench);
    let found = bench.call("Glob", json!({"pattern": "**/*.rs"})).await;
    let mut names: Vec<String> = found.result.unwrap()["filenames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![bench.path("src/lib.rs"), bench.path("src/main.rs")]
    );
    let top = bench.call("Glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(
        text(&top),
        "No files found",
        "`*` does not cross directories"
    );
    let under = bench
        .call(
            "Glob",
            json!({"pattern": "*.md", "path": bench.path("src")}),
        )
        .await;
    assert_eq!(text(&under), bench.path("src/notes.md"));
}

#[tokio::test]
async fn grep_searches_as_ripgrep_does() {
    let bench = Bench::new();
    tree(&bench);
    let files = bench.call("Grep", json!({"pattern": "needle"})).await;
    let listed = text(&files);
    assert!(listed.starts_with("Found 3 files"), "{listed}");
    for ignored in ["target/out.rs", "debug.log", ".hidden/secret.rs"] {
        assert!(!listed.contains(ignored), "{ignored} is ignored: {listed}");
    }
    let rust = bench
        .call("Grep", json!({"pattern": "needle", "type": "rust"}))
        .await;
    assert!(text(&rust).starts_with("Found 2 files"), "{}", text(&rust));
    let globbed = bench
        .call("Grep", json!({"pattern": "needle", "glob": "*.md"}))
        .await;
    assert!(
        text(&globbed).starts_with("Found 1 files"),
        "{}",
        text(&globbed)
    );
    let content = bench
        .call(
            "Grep",
            json!({"pattern": "pub fn", "output_mode": "content", "-A": 1}),
        )
        .await;
    let lib = bench.path("src/lib.rs");
    assert_eq!(
        text(&content),
        format!("{lib}:1:pub fn needle() {{}}\n{lib}-2-// no match here")
    );
    let count = bench
        .call("Grep", json!({"pattern": "NEEDLE", "-i": true, "output_mode": "count", "path": bench.path("src/main.rs")}))
        .await;
    assert!(
        text(&count).starts_with(&format!("{}:1", bench.path("src/main.rs"))),
        "{}",
        text(&count)
    );
    let bad = bench.call("Grep", json!({"pattern": "("})).await;
    assert!(bad.is_error);
}

#[tokio::test]
async fn bash_keeps_its_working_directory_between_calls() {
    let bench = Bench::new();
    std::fs::create_dir(bench.root().join("sub")).unwrap();
    let cd = bench
        .call("Bash", json!({"command": "cd sub && echo moved"}))
        .await;
    assert_eq!(text(&cd), "moved");
    let pwd = bench.call("Bash", json!({"command": "pwd"})).await;
    assert_eq!(text(&pwd), bench.path("sub"));
    let failed = bench
        .call("Bash", json!({"command": "echo out; echo err >&2; exit 3"}))
        .await;
    assert!(failed.is_error);
    assert_eq!(text(&failed), "Exit code 3\nout\nerr");
    let still = bench.call("Bash", json!({"command": "pwd"})).await;
    assert_eq!(
        text(&still),
        bench.path("sub"),
        "an exit keeps the directory"
    );
}

/// Whether a process is alive (signal 0).
#[cfg(unix)]
fn alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

#[cfg(unix)]
fn pid_in(bench: &Bench, name: &str) -> i32 {
    bench.read(name).trim().parse().unwrap()
}

#[cfg(unix)]
#[tokio::test]
async fn bash_kills_the_whole_process_group_at_its_time_limit() {
    let bench = Bench::new();
    let timed = bench
        .call("Bash", json!({"command": "sleep 60 & echo $! > child.pid; echo started; wait", "timeout": 1000}))
        .await;
    assert!(timed.is_error);
    assert!(
        text(&timed).contains("timed out after 1000 ms"),
        "{}",
        text(&timed)
    );
    assert!(
        text(&timed).contains("started"),
        "the output before the limit is kept"
    );
    let child = pid_in(&bench, "child.pid");
    // The kill is sent before the call returns; the child is gone once reaped by init.
    for _ in 0..100 {
        if !alive(child) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !alive(child),
        "the background child {child} was left running"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn bash_stops_when_the_turn_is_interrupted() {
    let bench = Bench::new();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let marker = bench.root().join("running");
    tokio::spawn(async move {
        while !marker.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        trigger.cancel();
    });
    let interrupted = bench
        .call_with(
            "Bash",
            json!({"command": "echo $$ > shell.pid; touch running; sleep 60"}),
            cancel,
        )
        .await;
    assert!(
        text(&interrupted).starts_with("Command interrupted"),
        "{}",
        text(&interrupted)
    );
    assert_eq!(interrupted.result.unwrap()["interrupted"], true);
    let shell = pid_in(&bench, "shell.pid");
    for _ in 0..100 {
        if !alive(shell) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(shell));
}

#[tokio::test]
async fn bash_output_is_capped_and_the_rest_counted() {
    let bench = Bench::with_limits(Limits {
        bash_output_bytes: 1000,
        ..Limits::default()
    });
    let flood = bench
        .call(
            "Bash",
            json!({"command": "head -c 5000000 /dev/zero | tr '\\0' x"}),
        )
        .await;
    assert!(!flood.is_error);
    let shown = text(&flood);
    assert!(shown.starts_with(&"x".repeat(1000)));
    assert!(
        shown.contains("[… 4999000 more bytes of output not shown]"),
        "{}",
        &shown[1000..]
    );
}

#[tokio::test]
async fn todo_write_keeps_the_list_and_checks_items() {
    let bench = Bench::new();
    let list = json!([{"content": "a", "status": "pending", "activeForm": "doing a"}]);
    let first = bench.call("TodoWrite", json!({"todos": list})).await;
    assert_eq!(first.result.unwrap()["oldTodos"], json!([]));
    let second = bench.call("TodoWrite", json!({"todos": []})).await;
    assert_eq!(second.result.unwrap()["oldTodos"], list);
    let bad = bench
        .call(
            "TodoWrite",
            json!({"todos": [{"content": "x", "status": "later"}]}),
        )
        .await;
    assert!(bad.is_error);
}
