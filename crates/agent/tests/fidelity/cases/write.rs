//! `Write`: new files (their mode), files over others, unread files, directories.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Write", "create_and_overwrite")
            .quick()
            .file("old.txt", "old\n")
            .step("Write", json!({"file_path": "{work}/new.txt", "content": "fresh\n"}))
            .step("Write", json!({"file_path": "{work}/old.txt", "content": "unread, replaced\n"}))
            .step("Read", json!({"file_path": "{work}/old.txt"}))
            .step("Write", json!({"file_path": "{work}/old.txt", "content": "read, replaced\n"}))
            .step("Write", json!({"file_path": "{work}/deep/er/x.txt", "content": "x"})),
        case("Write", "misuse")
            .dir("sub")
            .step("Write", json!({"file_path": "{work}/sub", "content": "x"}))
            .step("Write", json!({"file_path": "rel.txt", "content": "x"}))
            .step("Write", json!({"file_path": "{work}/x.txt"}))
            .step("Write", json!({"file_path": "{work}/y.txt", "content": 5})),
    ]
}
