//! `Read`: text as Claude Code numbers it, ranges, empty and short files, what is not a text
//! file, misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Read", "lines_numbered")
            .quick()
            .file("a.txt", "one\ntwo\nthree\n")
            .file("b.txt", "no newline at the end")
            .file("empty.txt", "")
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Read", json!({"file_path": "{work}/b.txt"}))
            .step("Read", json!({"file_path": "{work}/empty.txt"})),
        case("Read", "ranges")
            .file("a.txt", "one\ntwo\nthree\nfour\nfive\n")
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 2, "limit": 2}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 5}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 10}))
            .step("Read", json!({"file_path": "{work}/a.txt", "limit": 1}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": "3"}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 0})),
        case("Read", "not_text")
            .file("bin.dat", b"\x00\x01\x02binary")
            .dir("sub")
            .step("Read", json!({"file_path": "{work}/bin.dat"}))
            .step("Read", json!({"file_path": "{work}/sub"}))
            .step("Read", json!({"file_path": "{work}/missing.txt"})),
        case("Read", "misuse")
            .file("a.txt", "one\n")
            .step("Read", json!({"file_path": "a.txt"}))
            .step("Read", json!({}))
            .step("Read", json!({"file_path": "{work}/a.txt", "bogus": true}))
            .step("Read", json!({"file_path": "{work}/a.txt", "limit": "x"})),
    ]
}
