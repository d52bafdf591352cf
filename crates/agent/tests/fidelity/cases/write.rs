//! `Write`: new files (their mode), files over others, unread files, directories, misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Write", "create_and_overwrite")
            .quick()
            .file("old.txt", "old\n")
            .file_with("exec.sh", "#!/bin/sh\necho hi\n", 0o755)
            .step(
                "Write",
                json!({"file_path": "{work}/new.txt", "content": "fresh\n"}),
            )
            .step(
                "Write",
                json!({"file_path": "{work}/old.txt", "content": "unread, replaced\n"}),
            )
            .step("Read", json!({"file_path": "{work}/old.txt"}))
            .step(
                "Write",
                json!({"file_path": "{work}/old.txt", "content": "read, replaced\n"}),
            )
            .step(
                "Write",
                json!({"file_path": "{work}/deep/er/x.txt", "content": "x"}),
            )
            .step(
                "Write",
                json!({"file_path": "{work}/exec.sh", "content": "#!/bin/sh\necho bye\n"}),
            )
            .step(
                "Write",
                json!({"file_path": "{work}/empty.txt", "content": ""}),
            ),
        case("Write", "after_a_change")
            .file("a.txt", "one\n")
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Bash", json!({"command": "echo two >> a.txt"}))
            .step(
                "Write",
                json!({"file_path": "{work}/a.txt", "content": "three\n"}),
            )
            .step(
                "Write",
                json!({"file_path": "{work}/crlf.txt", "content": "a\r\nb\r\n"}),
            ),
        case("Write", "outside").step(
            "Write",
            json!({"file_path": "{outside}/o.txt", "content": "out\n"}),
        ),
        case("Write", "misuse")
            .dir("sub")
            .step("Write", json!({"file_path": "{work}/sub", "content": "x"}))
            .step("Write", json!({"file_path": "rel.txt", "content": "x"}))
            .step("Write", json!({"file_path": "{work}/x.txt"}))
            .step("Write", json!({"file_path": "{work}/y.txt", "content": 5}))
            .step(
                "Write",
                json!({"file_path": "{work}/z.txt", "content": "z", "mode": "0600"}),
            ),
    ]
}
