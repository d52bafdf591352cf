//! `Glob`: depth, hidden files, ignored files, relative paths, order by age, a path, nothing
//! found, misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Glob", "patterns")
            .quick()
            .file("z.rs", "")
            .file("src/a.rs", "")
            .file("src/deep/b.rs", "")
            .file(".hidden/c.rs", "")
            .file("notes.txt", "")
            .file("src/Mixed.RS", "")
            .step("Glob", json!({"pattern": "*.rs"}))
            .step("Glob", json!({"pattern": "**/*.rs"}))
            .step("Glob", json!({"pattern": "src/*.rs"}))
            .step("Glob", json!({"pattern": "*.rs", "path": "{work}/src"}))
            .step("Glob", json!({"pattern": "*.py"}))
            .step("Glob", json!({"pattern": "{work}/src/**/*.rs"}))
            .step("Glob", json!({"pattern": "*.{rs,txt}"}))
            .step("Glob", json!({"pattern": "src/*", "path": "src"})),
        case("Glob", "ignored_files")
            .file(".gitignore", "target/\n*.log\n")
            .file("target/out.rs", "")
            .file("keep.rs", "")
            .file("debug.log", "")
            .dir(".git")
            .file("node_modules/m/index.js", "")
            .step("Glob", json!({"pattern": "**/*"}))
            .step("Glob", json!({"pattern": "*.log"})),
        case("Glob", "many")
            .file("readme.txt", "")
            .step("Bash", json!({"command": "mkdir d && for i in $(seq 1 120); do touch -d \"2024-01-01 00:$((i / 60)):$((i % 60))\" d/f$i.txt; done"}))
            .step("Glob", json!({"pattern": "d/*.txt"})),
        case("Glob", "misuse")
            .step("Glob", json!({"pattern": "*", "path": "{work}/nowhere"}))
            .step("Glob", json!({}))
            .step("Glob", json!({"pattern": "[", "path": "{work}"}))
            .step("Glob", json!({"pattern": "*", "path": "{work}/f.txt"}))
            .step("Glob", json!({"pattern": "*", "limit": 3})),
    ]
}
