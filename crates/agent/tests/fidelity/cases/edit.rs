//! `Edit`: replacements, Claude Code's normalizations (CRLF, curly quotes), its rules about
//! reading first, misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Edit", "replace")
            .quick()
            .file("a.txt", "alpha\nbeta\ngamma\nbeta\n")
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "alpha", "new_string": "ALPHA"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "beta", "new_string": "B"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "beta", "new_string": "B", "replace_all": true}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "zeta", "new_string": "Z"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "gamma", "new_string": "gamma"})),
        case("Edit", "normalizations")
            .file("crlf.txt", "x = \"hello\"\r\ny = 2\r\n")
            .file("curly.txt", "say \u{201c}hi\u{201d} and it\u{2019}s done\n")
            .step("Edit", json!({"file_path": "{work}/crlf.txt", "old_string": "x = \"hello\"\ny = 2", "new_string": "x = \"bye\"\ny = 3"}))
            .step("Edit", json!({"file_path": "{work}/curly.txt", "old_string": "say \"hi\" and it's done", "new_string": "say \"yo\" and it's done"})),
        case("Edit", "create_with_empty_old_string")
            .file("exists.txt", "x\n")
            .step("Edit", json!({"file_path": "{work}/new.txt", "old_string": "", "new_string": "created\n"}))
            .step("Edit", json!({"file_path": "{work}/exists.txt", "old_string": "", "new_string": "y"}))
            .step("Edit", json!({"file_path": "{work}/missing.txt", "old_string": "a", "new_string": "b"})),
        case("Edit", "misuse")
            .file("a.txt", "a\n")
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "a"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "a", "new_string": "b", "replace_all": "true"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "a", "new_string": "b", "extra": 1})),
    ]
}
