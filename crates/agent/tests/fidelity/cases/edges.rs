//! Harder cases across the tools: what a model does less often, where agents tend to part
//! from Claude Code.

use serde_json::json;

use crate::case::{call, case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Read", "edges")
            .file("bom.txt", "\u{feff}first\nsecond\n")
            .file("only-newlines.txt", "\n\n\n")
            .file("unicode.txt", "héllo wörld ✓\n日本語\n")
            .file("mid.txt", (1..=30).map(|i| format!("l{i}\n")).collect::<String>())
            .file("pic.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9")
            .file("noext", "plain\n")
            .step("Read", json!({"file_path": "{work}/bom.txt"}))
            .step("Read", json!({"file_path": "{work}/only-newlines.txt"}))
            .step("Read", json!({"file_path": "{work}/unicode.txt"}))
            .step("Read", json!({"file_path": "{work}/mid.txt", "offset": 28, "limit": 10}))
            .step("Read", json!({"file_path": "{work}/pic.jpg"}))
            .step("Read", json!({"file_path": "{work}/noext"}))
            .step("Read", json!({"file_path": "{work}/../outside/none.txt"}))
            .step("Read", json!({"file_path": "{work}/mid.txt", "limit": 2, "offset": 1, "pages": "2"})),
        case("Read", "tokens")
            .file("medium.txt", "word ".repeat(30_000))
            .step("Read", json!({"file_path": "{work}/medium.txt"}))
            .step("Read", json!({"file_path": "{work}/medium.txt", "limit": 1})),
        case("Edit", "edges")
            .file("multi.txt", "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n")
            .file("latin1.txt", b"caf\xe9\n")
            .file("tabs.txt", "\tindented\n")
            .step("Edit", json!({"file_path": "{work}/multi.txt", "old_string": "fn b() {\n    2\n}", "new_string": "fn b() {\n    20\n}"}))
            .step("Edit", json!({"file_path": "{work}/multi.txt", "old_string": "}", "new_string": "};", "replace_all": true}))
            .step("Edit", json!({"file_path": "{work}/latin1.txt", "old_string": "caf", "new_string": "CAF"}))
            .step("Edit", json!({"file_path": "{work}/tabs.txt", "old_string": "    indented", "new_string": "\tINDENTED"}))
            .step("Write", json!({"file_path": "{work}/w.txt", "content": "one\n"}))
            .step("Edit", json!({"file_path": "{work}/w.txt", "old_string": "one", "new_string": "two"})),
        case("Glob", "edges")
            .file("a/b/c.txt", "")
            .file("a/d.md", "")
            .file("e.TXT", "")
            .file("outside/o.txt", "")
            .step("Glob", json!({"pattern": "a/**"}))
            .step("Glob", json!({"pattern": "**/*.txt", "path": "a"}))
            .step("Glob", json!({"pattern": "*.txt", "path": "{outside}"}))
            .step("Glob", json!({"pattern": "../outside/*.txt"}))
            .step("Glob", json!({"pattern": "**/c.txt"})),
        case("Grep", "edges")
            .file("a.js", "const x = 1;\nconst y = 2;\n")
            .file("b.ts", "let z: number = 3;\n")
            .file("c.txt", "tab\there\r\nwindows line\r\n")
            .file("d.bin", b"needle\x00binary")
            .step("Grep", json!({"pattern": "const", "glob": "*.{js,ts}", "output_mode": "content"}))
            .step("Grep", json!({"pattern": "(const|let)", "output_mode": "count"}))
            .step("Grep", json!({"pattern": "windows", "output_mode": "content"}))
            .step("Grep", json!({"pattern": "needle"}))
            .step("Grep", json!({"pattern": "x|z", "output_mode": "files_with_matches", "offset": 1}))
            .step("Grep", json!({"pattern": "=", "output_mode": "content", "head_limit": 2, "-n": false})),
        case("Bash", "edges")
            .step("Bash", json!({"command": "printf 'no newline'"}))
            .step("Bash", json!({"command": "printf '\\n\\nleading blank\\n'"}))
            .step("Bash", json!({"command": "echo héllo ✓"}))
            .step("Bash", json!({"command": "cat <<'EOF'\nheredoc line\nEOF"}))
            .step("Bash", json!({"command": "false && echo never"}))
            .step("Bash", json!({"command": "exit 0"}))
            .step("Bash", json!({"command": "printf '\\x00\\x01bin'; echo"}))
            .step("Bash", json!({"command": "for i in 1 2 3; do echo $i; done | tail -1"})),
        case("Bash", "two_jobs")
            .step("Bash", json!({"command": "sleep 1; echo one", "run_in_background": true}))
            .step("Bash", json!({"command": "sleep 1; echo two", "run_in_background": true, "description": "Second"}))
            .step("Bash", json!({"command": "sleep 3"}))
            .step("Bash", json!({"command": "echo after both"})),
        case("Bash", "cd_then_fail")
            .dir("sub")
            .step("Bash", json!({"command": "cd sub && false"}))
            .step("Bash", json!({"command": "pwd"}))
            .step("Bash", json!({"command": "cd sub; exit 2"}))
            .step("Bash", json!({"command": "pwd"})),
        case("Bash", "left_running")
            .step("Bash", json!({"command": "(sleep 2; echo late > late.txt) & echo started"}))
            .step("Bash", json!({"command": "sleep 3"}))
            .step("Bash", json!({"command": "cat late.txt 2>&1; echo done"})),
        case("Bash", "across_turns")
            .dir("sub")
            .step("Bash", json!({"command": "cd sub"}))
            .next_turn()
            .step("Bash", json!({"command": "pwd"}))
            .step("Read", json!({"file_path": "x.txt"}))
            .next_turn()
            .step("Bash", json!({"command": "cd .. && pwd"})),
        case("Grep", "one_file")
            .file("a.txt", "one\ntwo\nthree\nfour\n")
            .step("Grep", json!({"pattern": "two|four", "path": "{work}/a.txt", "output_mode": "content", "-B": 1}))
            .step("Grep", json!({"pattern": "o", "path": "{work}/a.txt", "output_mode": "count"}))
            .step("Grep", json!({"pattern": "o", "path": "{work}/a.txt"})),
        case("Parallel", "mixed")
            .file("a.txt", "a\n")
            .file("b.txt", "b\n")
            .parallel(vec![
                call("Read", json!({"file_path": "{work}/a.txt"})),
                call("Read", json!({"file_path": "{work}/b.txt"})),
                call("Glob", json!({"pattern": "*.txt"})),
            ])
            .parallel(vec![
                call("Edit", json!({"file_path": "{work}/a.txt", "old_string": "a", "new_string": "A"})),
                call("Write", json!({"file_path": "{work}/c.txt", "content": "c\n"})),
                call("Grep", json!({"pattern": "A|c"})),
            ])
            .parallel(vec![
                call("Bash", json!({"command": "cat a.txt c.txt"})),
                call("Read", json!({"file_path": "{work}/nope.txt"})),
                call("Edit", json!({"file_path": "{work}/b.txt", "old_string": "zzz", "new_string": "y"})),
            ]),
        case("TodoWrite", "reminders")
            .env("CLAUDE_CODE_ENABLE_TASKS", "false")
            .file("a.txt", "a\n")
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Glob", json!({"pattern": "*"}))
            .step("Grep", json!({"pattern": "a"}))
            .step("Bash", json!({"command": "echo 1"}))
            .step("Bash", json!({"command": "echo 2"}))
            .step("Bash", json!({"command": "echo 3"}))
            .step("Bash", json!({"command": "echo 4"}))
            .step("Bash", json!({"command": "echo 5"}))
            .step("Bash", json!({"command": "echo 6"}))
            .step("Bash", json!({"command": "echo 7"}))
            .step("Bash", json!({"command": "echo 8"}))
            .step("Bash", json!({"command": "echo 9"})),
    ]
}
