//! `Glob`: depth, hidden files, relative paths, order by age, a path, nothing found.

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
            .step("Glob", json!({"pattern": "*.rs"}))
            .step("Glob", json!({"pattern": "**/*.rs"}))
            .step("Glob", json!({"pattern": "src/*.rs"}))
            .step("Glob", json!({"pattern": "*.rs", "path": "{work}/src"}))
            .step("Glob", json!({"pattern": "*.py"})),
        case("Glob", "misuse")
            .step("Glob", json!({"pattern": "*", "path": "{work}/nowhere"}))
            .step("Glob", json!({}))
            .step("Glob", json!({"pattern": "[", "path": "{work}"})),
    ]
}
