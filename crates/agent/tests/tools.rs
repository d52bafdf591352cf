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
            tools: Registry::built_in(
                None,
                &[("CLAUDE_CODE_ENABLE_TASKS".to_owned(), "false".to_owned())].into(),
            ),
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
            session_id: "session".into(),
            model: None,
        };
        // As a turn runs a call: the input checked, the call validated, then run.
        let tool = self.tools.get(tool).unwrap();
        let input = match tool.check_input(&input) {
            Ok(input) => input,
            Err(why) => return ToolOutput::error(why),
        };
        if let Some(refused) = tool.validate(&input, &cx) {
            return refused;
        }
        tool.call(input, cx).await
    }

    async fn call(&self, tool: &str, input: Value) -> ToolOutput {
        self.call_with(tool, input, CancellationToken::new()).await
    }
}

fn text(output: &ToolOutput) -> String {
    output.content.joined_text()
}

/// What Claude Code adds to an edit's result when the model has the whole file in view.
const IN_CONTEXT: &str =
    " (file state is current in your context \u{2014} no need to Read it back)";

#[tokio::test]
async fn edit_replaces_a_unique_string_and_refuses_an_ambiguous_one() {
    let bench = Bench::new();
    bench.write("a.txt", "one two\nthree two\n");
    let file = bench.path("a.txt");
    // A file not read may be edited (the permission asked covers it); the result does not
    // say the file is in view.
    let unread = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "one", "new_string": "1"}),
        )
        .await;
    assert_eq!(
        text(&unread),
        format!("The file {file} has been updated successfully.")
    );
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
        text(&ambiguous).starts_with("<tool_use_error>Found 2 matches"),
        "{}",
        text(&ambiguous)
    );
    assert_eq!(bench.read("a.txt"), "1 two\nthree two\n", "nothing changed");
    let unique = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "three two", "new_string": "3 2"}),
        )
        .await;
    assert_eq!(
        text(&unique),
        format!("The file {file} has been updated successfully.{IN_CONTEXT}")
    );
    assert_eq!(bench.read("a.txt"), "1 two\n3 2\n");
    let all = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "o", "new_string": "0", "replace_all": "true"}),
        )
        .await;
    assert_eq!(
        text(&all),
        format!(
            "The file {file} has been updated. All occurrences were successfully replaced.{IN_CONTEXT}"
        )
    );
    assert_eq!(bench.read("a.txt"), "1 tw0\n3 2\n");
    let missing = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "absent", "new_string": "x"}),
        )
        .await;
    assert_eq!(
        text(&missing),
        "<tool_use_error>String to replace not found in file.\nString: absent</tool_use_error>"
    );
    let same = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "3", "new_string": "3"}),
        )
        .await;
    assert!(text(&same).contains("No changes to make"));
}

#[tokio::test]
async fn edit_matches_crlf_and_curly_quotes_as_claude_code_does() {
    let bench = Bench::new();
    bench.write("crlf.txt", "a = 1\r\nb = 2\r\n");
    let edit = bench
        .call(
            "Edit",
            json!({"file_path": bench.path("crlf.txt"), "old_string": "a = 1\nb = 2",
                   "new_string": "a = 3\nb = 4"}),
        )
        .await;
    assert!(!edit.is_error, "{}", text(&edit));
    assert_eq!(
        bench.read("crlf.txt"),
        "a = 3\r\nb = 4\r\n",
        "the line ends stay"
    );
    bench.write("quotes.txt", "say \u{201c}hi\u{201d}\n");
    let edit = bench
        .call(
            "Edit",
            json!({"file_path": bench.path("quotes.txt"), "old_string": "say \"hi\"",
                   "new_string": "say \"yo\""}),
        )
        .await;
    assert!(!edit.is_error, "{}", text(&edit));
    assert_eq!(bench.read("quotes.txt"), "say \u{201c}yo\u{201d}\n");
}

#[tokio::test]
async fn a_file_changed_on_disk_since_it_was_read_is_written_only_with_care() {
    let bench = Bench::new();
    bench.write("b.txt", "alpha\n");
    let file = bench.path("b.txt");
    bench.call("Read", json!({"file_path": file})).await;
    // Another writer changes the file (a different size, so the change shows whatever the
    // file system's time resolution).
    bench.write("b.txt", "alpha beta\n");
    let write = bench
        .call("Write", json!({"file_path": file, "content": "new"}))
        .await;
    assert_eq!(
        text(&write),
        "<tool_use_error>File has been modified since read, either by the user or by a linter. \
         Read it again before attempting to write it.</tool_use_error>"
    );
    assert_eq!(bench.read("b.txt"), "alpha beta\n");
    // The text to replace is still there: the edit applies, and says the file changed.
    let edit = bench
        .call(
            "Edit",
            json!({"file_path": file, "old_string": "beta", "new_string": "gamma"}),
        )
        .await;
    assert!(
        text(&edit).contains("had been modified on disk since you last read it"),
        "{}",
        text(&edit)
    );
    assert_eq!(bench.read("b.txt"), "alpha gamma\n");
    let create = bench
        .call(
            "Write",
            json!({"file_path": bench.path("deep/er/c.txt"), "content": "c"}),
        )
        .await;
    assert_eq!(
        text(&create),
        format!(
            "File created successfully at: {}{IN_CONTEXT}",
            bench.path("deep/er/c.txt")
        )
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(bench.root().join("deep/er/c.txt"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o644,
            "a new file is 0644, as Claude Code's are"
        );
    }
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
async fn read_numbers_lines_as_claude_code_does() {
    let bench = Bench::new();
    let lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    bench.write("ten.txt", &lines);
    let part = bench
        .call(
            "Read",
            json!({"file_path": bench.path("ten.txt"), "offset": "3", "limit": 2}),
        )
        .await;
    assert_eq!(text(&part), "3\tline 3\n4\tline 4");
    assert_eq!(part.result.as_ref().unwrap()["file"]["totalLines"], 11);
    let whole = bench
        .call("Read", json!({"file_path": bench.path("ten.txt")}))
        .await;
    assert!(
        text(&whole).ends_with("10\tline 10\n11\t"),
        "the final newline ends an empty, numbered line: {}",
        text(&whole)
    );
    let past = bench
        .call(
            "Read",
            json!({"file_path": bench.path("ten.txt"), "offset": 50}),
        )
        .await;
    assert_eq!(
        text(&past),
        "<system-reminder>Warning: the file exists but is shorter than the provided offset \
         (50). The file has 11 lines.</system-reminder>"
    );
    let missing = bench
        .call("Read", json!({"file_path": bench.path("nope")}))
        .await;
    assert!(missing.is_error);
    assert!(
        text(&missing).starts_with("File does not exist."),
        "{}",
        text(&missing)
    );
    bench.write("data.dat", "x");
    let binary = bench
        .call("Read", json!({"file_path": bench.path("data.dat")}))
        .await;
    assert!(binary.is_error && text(&binary).contains("cannot read binary files"));
    std::fs::write(bench.root().join("zero.txt"), b"a\x00b\n").unwrap();
    let zero = bench
        .call("Read", json!({"file_path": bench.path("zero.txt")}))
        .await;
    assert!(!zero.is_error);
    assert!(
        text(&zero).contains("[This file has NUL bytes"),
        "{}",
        text(&zero)
    );
    let big = "0123456789abcdef\n".repeat(20_000);
    bench.write("big.txt", &big);
    let refused = bench
        .call("Read", json!({"file_path": bench.path("big.txt")}))
        .await;
    assert!(
        text(&refused).starts_with("File content (332KB) exceeds maximum allowed size (256KB)."),
        "{}",
        text(&refused)
    );
    let allowed = bench
        .call(
            "Read",
            json!({"file_path": bench.path("big.txt"), "allow_large": true}),
        )
        .await;
    assert!(!allowed.is_error);
}

/// A tree with ignored and hidden files, in a git work tree (`.gitignore` does not apply to
/// Claude Code's searches).
fn tree(bench: &Bench) {
    std::fs::create_dir(bench.root().join(".git")).unwrap();
    bench.write(".gitignore", "target/\n*.log\n");
    bench.write("src/main.rs", "fn main() { needle(); }\n");
    bench.write("src/lib.rs", "pub fn needle() {}\n// no match here\n");
    bench.write("src/notes.md", "needle in prose\n");
    bench.write("target/out.rs", "needle in build output\n");
    bench.write("debug.log", "needle in a log\n");
    bench.write(".hidden/secret.rs", "needle hidden\n");
    bench.write(".git/HEAD", "needle in git\n");
}

#[tokio::test]
async fn glob_matches_at_any_depth_with_hidden_and_ignored_files() {
    let bench = Bench::new();
    tree(&bench);
    let found = bench.call("Glob", json!({"pattern": "*.rs"})).await;
    let listed = text(&found);
    let mut names: Vec<&str> = listed.lines().collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            ".hidden/secret.rs",
            "src/lib.rs",
            "src/main.rs",
            "target/out.rs"
        ],
        "relative paths, any depth, hidden and ignored files too"
    );
    let under = bench
        .call(
            "Glob",
            json!({"pattern": "*.md", "path": bench.path("src")}),
        )
        .await;
    assert_eq!(text(&under), "src/notes.md");
    let nowhere = bench
        .call(
            "Glob",
            json!({"pattern": "*", "path": bench.path("nowhere")}),
        )
        .await;
    assert!(nowhere.is_error);
    assert!(text(&nowhere).starts_with("Directory does not exist:"));
}

#[tokio::test]
async fn grep_searches_as_claude_code_s_ripgrep_does() {
    let bench = Bench::new();
    tree(&bench);
    let files = bench.call("Grep", json!({"pattern": "needle"})).await;
    let listed = text(&files);
    assert!(listed.starts_with("Found 6 files"), "{listed}");
    assert!(
        !listed.contains(".git/"),
        "version control folders are left out: {listed}"
    );
    let rust = bench
        .call("Grep", json!({"pattern": "needle", "type": "rust"}))
        .await;
    assert!(text(&rust).starts_with("Found 4 files"), "{}", text(&rust));
    let globbed = bench
        .call("Grep", json!({"pattern": "needle", "glob": "*.md"}))
        .await;
    assert_eq!(text(&globbed), "Found 1 file\nsrc/notes.md");
    let content = bench
        .call(
            "Grep",
            json!({"pattern": "pub fn", "output_mode": "content", "-A": 1}),
        )
        .await;
    assert_eq!(
        text(&content),
        "src/lib.rs:1:pub fn needle() {}\nsrc/lib.rs-2-// no match here"
    );
    let count = bench
        .call(
            "Grep",
            json!({"pattern": "NEEDLE", "-i": true, "output_mode": "count",
                             "path": bench.path("src/main.rs")}),
        )
        .await;
    assert_eq!(
        text(&count),
        "src/main.rs:1\n\nFound 1 total occurrence across 1 file."
    );
    let bad = bench.call("Grep", json!({"pattern": "("})).await;
    assert!(bad.is_error);
    assert!(
        text(&bad).contains("rg: regex parse error"),
        "{}",
        text(&bad)
    );
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
        .call(
            "Bash",
            json!({"command": "sleep 60 & echo $! > child.pid; echo started; wait",
                             "timeout": 1000}),
        )
        .await;
    assert!(timed.is_error);
    assert!(
        text(&timed).starts_with("Exit code 143\nCommand timed out after 1s"),
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
        text(&interrupted).starts_with("Command was interrupted"),
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
async fn bash_output_too_large_is_saved_whole_with_a_preview() {
    let bench = Bench::new();
    let flood = bench
        .call(
            "Bash",
            json!({"command": "head -c 5000000 /dev/zero | tr '\\0' x"}),
        )
        .await;
    assert!(!flood.is_error);
    let shown = text(&flood);
    assert!(
        shown.starts_with("<persisted-output>\nOutput too large (4.8MB). Full output saved to: "),
        "{}",
        &shown[..200]
    );
    let path = shown
        .split("saved to: ")
        .nth(1)
        .and_then(|rest| rest.split('\n').next())
        .unwrap();
    assert_eq!(
        std::fs::metadata(path).unwrap().len(),
        5_000_000,
        "nothing is lost"
    );
    assert!(shown.contains(&format!("Preview (first 2KB):\n{}\n...", "x".repeat(2000))));
    let nothing = bench.call("Bash", json!({"command": "true"})).await;
    assert_eq!(text(&nothing), "(Bash completed with no output)");
}

#[cfg(unix)]
#[tokio::test]
async fn a_command_past_its_limit_goes_on_in_the_background_and_its_end_is_told() {
    let bench = Bench::new();
    let moved = bench
        .call(
            "Bash",
            json!({"command": "echo early; sleep 1; echo late", "timeout": 300}),
        )
        .await;
    assert!(!moved.is_error, "{}", text(&moved));
    let shown = text(&moved);
    assert!(
        shown.starts_with("early\nCommand did not complete within its 0s timeout and was moved to the background (ID: b"),
        "{shown}"
    );
    let output = shown
        .split("Output is being written to: ")
        .nth(1)
        .and_then(|rest| rest.split(". You will").next())
        .unwrap()
        .to_owned();
    let mut notes = Vec::new();
    for _ in 0..100 {
        notes = twinwire_agent::tools::between_steps(&bench.workspace, &[], &bench.tools);
        if !notes.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("<status>completed</status>"),
        "{}",
        notes[0]
    );
    assert_eq!(
        std::fs::read_to_string(output).unwrap(),
        "early\nlate\n\n[exited with code 0]\n",
        "the output before and after the move, and how it ended"
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
