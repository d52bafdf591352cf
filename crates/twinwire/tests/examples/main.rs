//! Every example, run offline as its header says (`cargo run -p twinwire --example offline --
//! NAME`): the real Claude Code CLI against the example's model script
//! (`examples/scripts/NAME.json`), in a private HOME. Each test checks what the example
//! prints (so that its callbacks, hooks, tools and interrupts really happened), that it exits
//! 0, that the HOME it was given stays empty and that no process is left.

// The harness stops the examples with process-group signals.
#![cfg(unix)]

mod harness;

use harness::{interrupt_offline, run_offline, run_runner};

/// The examples that are not run here: the agent is a CLI for hosts to drive (the peers suite
/// runs it) and `offline` is the runner itself.
const NOT_SCRIPTED: [&str; 2] = ["echo_agent", "offline"];

#[test]
fn every_example_has_a_model_script() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let names = |dir: &std::path::Path, suffix: &str| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("reading a directory of examples")
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                name.strip_suffix(suffix).map(str::to_owned)
            })
            .collect();
        names.sort();
        names
    };
    let examples: Vec<String> = names(&dir, ".rs")
        .into_iter()
        .filter(|name| !NOT_SCRIPTED.contains(&name.as_str()))
        .collect();
    assert_eq!(names(&dir.join("scripts"), ".json"), examples);
}

#[test]
fn quickstart_prints_the_answer_and_the_summary() {
    let run = run_offline("quickstart", &["What is the capital of France?"]);
    run.assert_success();
    let lines = run.lines();
    assert_eq!(lines.len(), 2, "{run}");
    assert_eq!(lines[0], "The capital of France is Paris.", "{run}");
    assert!(lines[1].starts_with("-- 1 turn(s), $"), "{run}");
    // Every other message is named on stderr.
    assert!(run.stderr.contains("[system/init]"), "{run}");
}

#[test]
fn the_readme_example_runs_and_is_the_one_in_the_readme() {
    let run = run_offline("readme", &[]);
    run.assert_success();
    assert_eq!(run.stdout, "4\n", "{run}");
    // The README shows the example's code, from its first `use` on.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("examples/readme.rs")).unwrap();
    let code = &example[example.find("use ").unwrap()..];
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .expect("a rust block in the README");
    assert_eq!(
        block, code,
        "README.md's first rust block is examples/readme.rs"
    );
}

#[test]
fn streaming_prints_the_deltas_as_one_text() {
    let run = run_offline("streaming", &["Write a haiku about pipes"]);
    run.assert_success();
    assert_eq!(
        run.stdout, "Bytes wait in the pipe,\nnewline after newline falls:\nthe reader wakes up.\n",
        "{run}"
    );
}

#[test]
fn ctrl_c_stops_the_example_and_its_cli_and_the_runner_cleans_up() {
    let run = interrupt_offline("streaming", &["Tell a long story"], "Once upon");
    // The example died of the SIGINT; the runner says so as a shell does (128 + 2).
    assert_eq!(run.code, Some(130), "{run}");
    assert!(run.stdout.starts_with("Once upon"), "{run}");
    // Stopped well before the end (the script streams it for 15 s).
    assert!(!run.stdout.contains("The end."), "{run}");
}

#[test]
fn permissions_asks_the_callback_and_its_answers_change_what_runs() {
    let run = run_offline("permissions", &[]);
    run.assert_success();
    assert_eq!(
        run.lines(),
        [
            "asked for Write: denied",
            "asked for Bash(date > notes.txt && ls): allowed",
            "asked for Bash(rm notes.txt): rewritten to `echo would run: rm notes.txt`",
            // The model's answer to what the rewritten command printed.
            "notes.txt is still there: instead of deleting it, the command printed \
             \"would run: rm notes.txt\".",
            "denied: Write",
        ],
        "{run}"
    );
}

#[test]
fn hooks_fire_and_the_push_is_blocked_with_the_hooks_reason() {
    let run = run_offline("hooks", &[]);
    run.assert_success();
    assert_eq!(
        run.lines(),
        [
            "prompt: List the files, then push the branch",
            "finished Bash",
            "blocked: git push origin HEAD",
            // The script answers this only when the tool result holds the hook's reason.
            "I listed the files but did not push: a hook says pushing is done by CI.",
        ],
        "{run}"
    );
}

#[test]
fn mcp_tool_runs_the_rust_tool_and_the_model_reads_its_result() {
    let run = run_offline("mcp_tool", &[]);
    run.assert_success();
    assert_eq!(
        run.lines(),
        [
            "calc.add(1234.5, 4321) = 5555.5",
            // Given only when the tool result holds 5555.5.
            "1234.5 + 4321 = 5555.5, says the calc tool.",
        ],
        "{run}"
    );
}

#[test]
fn multi_turn_interrupts_the_long_answer_and_the_session_goes_on() {
    let run = run_offline("multi_turn", &[]);
    run.assert_success();
    let results: Vec<&str> = run
        .lines()
        .into_iter()
        .filter(|line| line.starts_with("-- "))
        .collect();
    assert_eq!(
        results,
        ["-- success", "-- error_during_execution", "-- success"],
        "{run}"
    );
    let lines = run.lines();
    assert_eq!(
        lines[..3],
        ["> Remember the number 42.", "Noted: 42.", "-- success"]
    );
    let essay = lines
        .iter()
        .find(|line| line.starts_with("Rivers begin as rain"))
        .unwrap_or_else(|| panic!("the essay did not start\n{run}"));
    // A piece or two may still arrive while the interrupt travels.
    assert!(essay.contains(" [interrupt sent]"), "{run}");
    // Stopped well before its end (the script streams it for 15 s).
    assert!(!run.stdout.contains("wander again"), "{run}");
    // The script says this only when the first turn is in the conversation it is sent.
    assert_eq!(
        lines[lines.len() - 3..],
        [
            "> Which number did I ask you to remember?",
            "You asked me to remember 42.",
            "-- success"
        ],
        "{run}"
    );
}

#[test]
fn structured_output_parses_the_json_into_the_rust_type() {
    let run = run_offline("structured_output", &[]);
    run.assert_success();
    assert_eq!(
        run.lines(),
        [r#"Capital { country: "Japan", capital: "Tokyo", population_millions: 14.2 }"#],
        "{run}"
    );
}

#[test]
fn subagents_delegates_to_the_reviewer_and_reports_its_findings() {
    let run = run_offline("subagents", &[]);
    run.assert_success();
    let lines = run.lines();
    assert!(
        lines[0].starts_with("agents: [") && lines[0].contains("\"reviewer\""),
        "{run}"
    );
    let position = |wanted: &str| {
        lines
            .iter()
            .position(|line| *line == wanted)
            .unwrap_or_else(|| panic!("no line {wanted:?}\n{run}"))
    };
    let delegated = position("[main] delegates to reviewer");
    // The reviewer's own message, told apart by its parent tool use.
    let reviewed = position(
        "[reviewer] src/lib.rs: `load` unwraps the parsed config (a bad file panics); `tmp` \
         does not say it holds the port.",
    );
    // The main agent's answer once the CLI has told it what the reviewer found.
    let reported = position(
        "[main] The reviewer found two problems in src/lib.rs: `load` panics on a bad config \
         file, and `tmp` should be named `port`.",
    );
    assert!(delegated < reviewed && reviewed < reported, "{run}");
    assert_eq!(lines.last(), Some(&"-- success"), "{run}");
}

#[test]
fn the_runner_names_the_examples_it_can_run() {
    for args in [&[][..], &["no_such_example"][..]] {
        let run = run_runner(args);
        assert_eq!(run.code, Some(2), "{run}");
        assert!(run.stdout.is_empty(), "{run}");
        assert!(
            run.stderr.contains(
                "examples: hooks, mcp_tool, multi_turn, permissions, quickstart, readme, \
                 streaming, structured_output, subagents"
            ),
            "{run}"
        );
    }
}

#[test]
fn an_example_that_needs_a_feature_names_it() {
    // The runner of this test is built without `opentelemetry`, which `otlp` requires.
    let run = run_runner(&["otlp"]);
    assert_eq!(run.code, Some(2), "{run}");
    assert!(
        run.stderr
            .contains("the example \"otlp\" needs the feature `opentelemetry`"),
        "{run}"
    );
    assert!(
        run.stderr
            .contains("cargo run -p twinwire --features opentelemetry --example offline -- otlp"),
        "{run}"
    );
    assert!(!run.stderr.contains("is missing"), "{run}");
}
