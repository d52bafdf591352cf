//! `Bash`: output, exit codes, the shell's directory, large output, background jobs and their
//! notices, time limits, misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Bash", "output")
            .quick()
            .step("Bash", json!({"command": "true"}))
            .step("Bash", json!({"command": "echo out; echo err >&2; exit 3"}))
            .step("Bash", json!({"command": "printf 'a\\nb\\n'"}))
            .step("Bash", json!({"command": "echo made > made.txt"})),
        case("Bash", "directory")
            .step("Bash", json!({"command": "mkdir -p sub && cd sub && pwd"}))
            .step("Bash", json!({"command": "pwd"}))
            .step("Bash", json!({"command": "cd {outside} && pwd"}))
            .step("Bash", json!({"command": "pwd"})),
        case("Bash", "large_output")
            .step("Bash", json!({"command": "seq 1 40000"})),
        case("Bash", "misuse")
            .step("Bash", json!({"command": "echo hi", "timeout": "2000"}))
            .step("Bash", json!({"command": "echo hi", "bogus": 1}))
            .step("Bash", json!({})),
    ]
}
