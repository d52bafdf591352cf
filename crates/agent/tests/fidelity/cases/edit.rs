//! `Edit`: replacements, Claude Code's normalizations (CRLF, curly quotes), its rules about
//! reading first and files changed since, creating with an empty `old_string`, misuse.

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
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "gamma", "new_string": "gamma"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "gamma\n", "new_string": ""})),
        case("Edit", "after_reading")
            .file("a.txt", "one\ntwo\nthree\n")
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "two", "new_string": "TWO"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "three", "new_string": "THREE"}))
            .step("Bash", json!({"command": "echo four >> a.txt"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "one", "new_string": "ONE"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "four", "new_string": "FOUR", "replace_all": true})),
        case("Edit", "normalizations")
            .file("crlf.txt", "x = \"hello\"\r\ny = 2\r\n")
            .file("curly.txt", "say \u{201c}hi\u{201d} and it\u{2019}s done\n")
            .file("single.txt", "it\u{2018}s \u{2018}quoted\u{2019}\n")
            .file("trailing.txt", "keep   \nthis\n")
            .step("Edit", json!({"file_path": "{work}/crlf.txt", "old_string": "x = \"hello\"\ny = 2", "new_string": "x = \"bye\"\ny = 3"}))
            .step("Edit", json!({"file_path": "{work}/curly.txt", "old_string": "say \"hi\" and it's done", "new_string": "say \"yo\" and it's done"}))
            .step("Edit", json!({"file_path": "{work}/single.txt", "old_string": "'quoted'", "new_string": "'said'"}))
            .step("Edit", json!({"file_path": "{work}/trailing.txt", "old_string": "keep\nthis", "new_string": "kept\nthis"})),
        case("Edit", "create_with_empty_old_string")
            .file("exists.txt", "x\n")
            .file("blank.txt", "")
            .step("Edit", json!({"file_path": "{work}/new.txt", "old_string": "", "new_string": "created\n"}))
            .step("Edit", json!({"file_path": "{work}/exists.txt", "old_string": "", "new_string": "y"}))
            .step("Edit", json!({"file_path": "{work}/missing.txt", "old_string": "a", "new_string": "b"}))
            .step("Edit", json!({"file_path": "{work}/blank.txt", "old_string": "", "new_string": "filled\n"})),
        case("Edit", "not_text")
            .file("nb.ipynb", crate::cases::read::NOTEBOOK)
            .file("bin.dat", b"\x00\x01")
            .dir("sub")
            .step("Edit", json!({"file_path": "{work}/nb.ipynb", "old_string": "x = 1", "new_string": "x = 2"}))
            .step("Edit", json!({"file_path": "{work}/sub", "old_string": "a", "new_string": "b"})),
        case("Edit", "misuse")
            .file("a.txt", "a\n")
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "a"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "a", "new_string": "b", "replace_all": "true"}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "b", "new_string": "c", "extra": 1}))
            .step("Edit", json!({"file_path": "{work}/a.txt", "old_string": "b", "new_string": "c", "replace_all": "yes"}))
            .step("Edit", json!({"file_path": "a.txt", "old_string": "b", "new_string": "c"})),
    ]
}
