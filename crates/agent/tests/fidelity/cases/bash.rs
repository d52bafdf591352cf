//! `Bash`: output, exit codes, the shell's directory, large output, background jobs and their
//! notices, time limits, the environment, misuse.

use serde_json::json;

use crate::case::{call, case, filled, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Bash", "output")
            .quick()
            .step("Bash", json!({"command": "true"}))
            .step("Bash", json!({"command": "echo out; echo err >&2; exit 3"}))
            .step("Bash", json!({"command": "printf 'a\\nb\\n'"}))
            .step("Bash", json!({"command": "echo made > made.txt", "description": "Write a file"}))
            .step("Bash", json!({"command": "echo only-err >&2"}))
            .step("Bash", json!({"command": "exit 1"}))
            .step("Bash", json!({"command": "printf '  spaced  \\n\\n\\n'"}))
            .step("Bash", json!({"command": "cat"})),
        case("Bash", "directory")
            .step("Bash", json!({"command": "mkdir -p sub && cd sub && pwd"}))
            .step("Bash", json!({"command": "pwd"}))
            .step("Bash", json!({"command": "cd {outside} && pwd"}))
            .step("Bash", json!({"command": "pwd"}))
            .step("Bash", json!({"command": "cd nowhere"}))
            .step("Bash", json!({"command": "cd sub; touch here.txt; cd .."}))
            .step("Bash", json!({"command": "pwd"})),
        case("Bash", "environment")
            .step("Bash", json!({"command": "echo \"[$CLAUDECODE] [$PWD] [$SHLVL] [${TMPDIR#$HOME}]\""}))
            .step("Bash", json!({"command": "export FOO=bar; echo set"}))
            .step("Bash", json!({"command": "echo \"[$FOO]\""}))
            .step("Bash", json!({"command": "umask; echo $0; test -t 0 && echo tty || echo notty"}))
            .step("Bash", json!({"command": "alias ll='ls -l'; type ll 2>&1 | head -1"})),
        case("Bash", "large_output")
            .step("Bash", json!({"command": "seq 1 40000"}))
            .step("Bash", json!({"command": "head -c 29000 /dev/zero | tr '\\0' 'x'"}))
            .step("Bash", json!({"command": "head -c 31000 /dev/zero | tr '\\0' 'y'"}))
            .step("Bash", json!({"command": "seq 1 20000 >&2; exit 2"})),
        case("Bash", "background")
            .quick()
            .step("Bash", json!({"command": "sleep 1; echo bg done", "run_in_background": true, "description": "Wait a second"}))
            .step("Bash", json!({"command": "sleep 3"}))
            .step("Bash", json!({"command": "echo next"})),
        case("Bash", "background_output_read")
            .step("Bash", json!({"command": "echo first; sleep 1; echo second", "run_in_background": "true"}))
            .step("Bash", json!({"command": "sleep 2"}))
            .parallel(vec![filled("Read", json!({}), "file_path", "Output is being written to: ([^ ]+\\.output)")]),
        case("Bash", "stop_a_job")
            .step("Bash", json!({"command": "sleep 30", "run_in_background": true}))
            .step("Bash", json!({"command": "sleep 1"}))
            .parallel(vec![filled("TaskStop", json!({}), "task_id", "with ID: ([a-z0-9]+)")])
            .parallel(vec![filled("TaskStop", json!({}), "task_id", "with ID: ([a-z0-9]+)")])
            .step("Read", json!({"file_path": "{work}/none"}))
            .step("TaskStop", json!({"task_id": "nosuch1"}))
            .step("TaskStop", json!({}))
            .next_turn()
            .step("Bash", json!({"command": "echo later"})),
        case("Bash", "failing_job")
            .step("Bash", json!({"command": "echo oops >&2; exit 4", "run_in_background": true}))
            .step("Bash", json!({"command": "sleep 2"}))
            .step("Bash", json!({"command": "echo after"})),
        case("Bash", "time_limit")
            .step("Bash", json!({"command": "sleep 5; echo late", "timeout": 1000}))
            .step("Bash", json!({"command": "echo partial; sleep 5", "timeout": 1500}))
            .step("Bash", json!({"command": "echo quick", "timeout": 700000})),
        case("Bash", "parallel")
            .parallel(vec![
                call("Bash", json!({"command": "echo one"})),
                call("Bash", json!({"command": "echo two; exit 5"})),
            ])
            .parallel(vec![
                call("Bash", json!({"command": "echo a > pa.txt"})),
                call("Read", json!({"file_path": "{work}/missing.txt"})),
            ]),
        case("Bash", "misuse")
            .step("Bash", json!({"command": "echo hi", "timeout": "2000"}))
            .step("Bash", json!({"command": "echo hi", "bogus": 1}))
            .step("Bash", json!({}))
            .step("Bash", json!({"command": 42}))
            .step("Bash", json!({"command": "echo hi", "timeout": "soon"}))
            .step("Bash", json!({"command": ""})),
    ]
}
