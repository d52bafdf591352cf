//! `Grep`: its modes and options, paging, only-matching, and misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Grep", "modes")
            .quick()
            .file("a.txt", "apple\nbanana\ncherry\napple pie\n")
            .file("src/b.rs", "fn apple() {}\n")
            .step("Grep", json!({"pattern": "apple"}))
            .step(
                "Grep",
                json!({"pattern": "apple", "output_mode": "content"}),
            )
            .step("Grep", json!({"pattern": "apple", "output_mode": "count"}))
            .step("Grep", json!({"pattern": "nothing-matches"}))
            .step(
                "Grep",
                json!({"pattern": "nothing-matches", "output_mode": "content"}),
            )
            .step(
                "Grep",
                json!({"pattern": "nothing-matches", "output_mode": "count"}),
            )
            .step(
                "Grep",
                json!({"pattern": "banana", "output_mode": "content", "-C": 1}),
            )
            .step("Grep", json!({"pattern": "cherry"})),
        case("Grep", "options")
            .file(
                "a.txt",
                "Alpha one\nbeta two\nALPHA three\nbeta four\ngamma\n",
            )
            .file("b.py", "alpha = 1\n")
            .file("c.rs", "let alpha = 2;\n")
            .step(
                "Grep",
                json!({"pattern": "alpha", "-i": true, "output_mode": "content"}),
            )
            .step(
                "Grep",
                json!({"pattern": "alpha", "-n": false, "output_mode": "content"}),
            )
            .step(
                "Grep",
                json!({"pattern": "beta", "output_mode": "content", "-A": 1}),
            )
            .step(
                "Grep",
                json!({"pattern": "beta", "output_mode": "content", "-B": 1}),
            )
            .step(
                "Grep",
                json!({"pattern": "beta", "output_mode": "content", "context": 1}),
            )
            .step("Grep", json!({"pattern": "alpha", "type": "py"}))
            .step("Grep", json!({"pattern": "alpha", "glob": "*.rs"}))
            .step(
                "Grep",
                json!({"pattern": "[a-z]+ (one|two)", "-o": true, "output_mode": "content"}),
            )
            .step(
                "Grep",
                json!({"pattern": "one\\nbeta", "multiline": true, "output_mode": "content"}),
            )
            .step(
                "Grep",
                json!({"pattern": "alpha", "path": "{work}/b.py", "output_mode": "content"}),
            )
            .step("Grep", json!({"pattern": "alpha", "path": "b.py"})),
        case("Grep", "paging")
            .file(
                "many.txt",
                (1..=300).map(|i| format!("hit {i}\n")).collect::<String>(),
            )
            .step("Grep", json!({"pattern": "hit", "output_mode": "content"}))
            .step(
                "Grep",
                json!({"pattern": "hit", "output_mode": "content", "head_limit": 3}),
            )
            .step(
                "Grep",
                json!({"pattern": "hit", "output_mode": "content", "head_limit": 3, "offset": 5}),
            )
            .step(
                "Grep",
                json!({"pattern": "hit", "output_mode": "content", "head_limit": 0, "offset": 297}),
            )
            .step("Grep", json!({"pattern": "hit", "head_limit": 1}))
            .step(
                "Grep",
                json!({"pattern": "hit", "output_mode": "count", "head_limit": "2"}),
            ),
        case("Grep", "hidden_and_ignored")
            .file(".gitignore", "skip/\n")
            .file("skip/a.txt", "needle\n")
            .file(".dot/b.txt", "needle\n")
            .file("c.txt", "needle\n")
            .step("Grep", json!({"pattern": "needle"}))
            .step(
                "Grep",
                json!({"pattern": "needle", "output_mode": "content"}),
            ),
        case("Grep", "misuse")
            .file("a.txt", "x\n")
            .step("Grep", json!({"pattern": "("}))
            .step("Grep", json!({"pattern": "x", "path": "{work}/nowhere"}))
            .step("Grep", json!({"pattern": "x", "output_mode": "lines"}))
            .step("Grep", json!({"pattern": "x", "type": "nosuchtype"}))
            .step("Grep", json!({}))
            .step(
                "Grep",
                json!({"pattern": "x", "-A": "two", "output_mode": "content"}),
            ),
    ]
}
