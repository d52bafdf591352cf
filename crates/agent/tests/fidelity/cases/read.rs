//! `Read`: text as Claude Code numbers it, ranges, empty and short files, long files and
//! lines, images, notebooks, PDFs, what is not a text file, reading again, misuse.

use serde_json::json;

use crate::case::{case, Case};

/// A 2×2 PNG.
pub const PNG: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0,
    0, 0, 253, 212, 154, 115, 0, 0, 0, 17, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 0, 68, 96,
    226, 63, 3, 0, 29, 240, 3, 253, 160, 51, 9, 137, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// A one-page PDF saying "Hello".
pub const PDF: &str = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n\
2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n\
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n\
4 0 obj<</Length 44>>stream\nBT /F1 24 Tf 20 100 Td (Hello) Tj ET\nendstream endobj\n\
5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\n\
trailer<</Root 1 0 R>>\n%%EOF\n";

/// A notebook with a code cell (with output) and a markdown cell.
pub const NOTEBOOK: &str = r##"{
 "cells": [
  {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["3\n"]}],
   "source": ["x = 1 + 2\n", "print(x)"]},
  {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Title\n", "Some *text*."]}
 ],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
              "language_info": {"name": "python"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

fn numbered_lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

pub fn cases() -> Vec<Case> {
    vec![
        case("Read", "nested_memory")
            .quick()
            .file("CLAUDE.md", "Top rules.\n")
            .file("sub/CLAUDE.md", "Sub rules: use tabs.\n")
            .file("sub/deeper/CLAUDE.md", "Deeper rules.\n")
            .file("sub/a.txt", "one\n")
            .file("sub/b.txt", "two\n")
            .file("sub/deeper/c.txt", "three\n")
            .file("other/d.txt", "four\n")
            .file("n1/CLAUDE.md", "N1 rules.\n")
            .file("n1/n2/CLAUDE.md", "N2 rules.\n")
            .file("n1/n2/e.txt", "five\n")
            .file("s2/.claude/CLAUDE.md", "S2 dot-claude rules.\n")
            .file("s2/CLAUDE.local.md", "S2 local rules.\n")
            .file("s2/.claude/rules/style.md", "S2 rule file.\n")
            .file("s2/f.txt", "six\n")
            .file("w/CLAUDE.md", "W rules.\n")
            .file("e/CLAUDE.md", "E rules.\n")
            .file("e/g.txt", "seven\n")
            .step("Read", json!({"file_path": "{work}/sub/a.txt"}))
            .step("Read", json!({"file_path": "{work}/sub/b.txt"}))
            .step("Read", json!({"file_path": "{work}/sub/deeper/c.txt"}))
            .step("Read", json!({"file_path": "{work}/other/d.txt"}))
            .step("Read", json!({"file_path": "{work}/n1/n2/e.txt"}))
            .step("Read", json!({"file_path": "{work}/s2/f.txt"}))
            .step("Grep", json!({"pattern": "one", "path": "{work}/sub"}))
            .step(
                "Write",
                json!({"file_path": "{work}/w/new.txt", "content": "new\n"}),
            )
            .step(
                "Edit",
                json!({"file_path": "{work}/e/g.txt", "old_string": "seven", "new_string": "7"}),
            )
            .step(
                "Edit",
                json!({"file_path": "{work}/sub/a.txt", "old_string": "one", "new_string": "uno"}),
            ),
        case("Read", "lines_numbered")
            .quick()
            .file("a.txt", "one\ntwo\nthree\n")
            .file("b.txt", "no newline at the end")
            .file("empty.txt", "")
            .file("crlf.txt", "first\r\nsecond\r\n")
            .file("tabs.txt", "\tindented\nplain\n")
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Read", json!({"file_path": "{work}/b.txt"}))
            .step("Read", json!({"file_path": "{work}/empty.txt"}))
            .step("Read", json!({"file_path": "{work}/crlf.txt"}))
            .step("Read", json!({"file_path": "{work}/tabs.txt"})),
        case("Read", "ranges")
            .file("a.txt", "one\ntwo\nthree\nfour\nfive\n")
            .step(
                "Read",
                json!({"file_path": "{work}/a.txt", "offset": 2, "limit": 2}),
            )
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 5}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 10}))
            .step("Read", json!({"file_path": "{work}/a.txt", "limit": 1}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": "3"}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 0}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": 6})),
        case("Read", "again")
            .file("a.txt", "one\ntwo\n")
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step("Bash", json!({"command": "echo three >> a.txt"}))
            .step("Read", json!({"file_path": "{work}/a.txt"}))
            .step(
                "Read",
                json!({"file_path": "{work}/a.txt", "offset": 2, "limit": 1}),
            ),
        case("Read", "long")
            .file("many.txt", numbered_lines(2500))
            .file("wide.txt", format!("{}\nshort\n", "x".repeat(3000)))
            .file("big.txt", "0123456789abcdef\n".repeat(20_000))
            .step(
                "Read",
                json!({"file_path": "{work}/many.txt", "offset": 1990, "limit": 5}),
            )
            .step("Read", json!({"file_path": "{work}/wide.txt"}))
            .step(
                "Read",
                json!({"file_path": "{work}/big.txt", "offset": 100, "limit": 2}),
            )
            .step("Read", json!({"file_path": "{work}/many.txt"}))
            .step("Read", json!({"file_path": "{work}/big.txt"})),
        case("Read", "not_text")
            .file("bin.dat", b"\x00\x01\x02binary")
            .file("zeros.txt", b"text\x00with a zero\n")
            .file("latin1.txt", b"caf\xe9\n")
            .dir("sub")
            .step("Read", json!({"file_path": "{work}/bin.dat"}))
            .step("Read", json!({"file_path": "{work}/sub"}))
            .step("Read", json!({"file_path": "{work}/missing.txt"}))
            .step("Read", json!({"file_path": "{work}/zeros.txt"}))
            .step("Read", json!({"file_path": "{work}/latin1.txt"})),
        case("Read", "image")
            .file("dot.png", PNG)
            .file("fake.png", "not really a png")
            .step("Read", json!({"file_path": "{work}/dot.png"}))
            .step("Read", json!({"file_path": "{work}/fake.png"})),
        case("Read", "notebook")
            .file("nb.ipynb", NOTEBOOK)
            .step("Read", json!({"file_path": "{work}/nb.ipynb"})),
        case("Read", "pdf")
            .file("doc.pdf", PDF)
            .step("Read", json!({"file_path": "{work}/doc.pdf"}))
            .step("Read", json!({"file_path": "{work}/doc.pdf", "pages": "1"}))
            .step(
                "Read",
                json!({"file_path": "{work}/doc.pdf", "pages": "x-y"}),
            ),
        case("Read", "misuse")
            .file("a.txt", "one\n")
            .step("Read", json!({"file_path": "a.txt"}))
            .step("Read", json!({}))
            .step("Read", json!({"file_path": "{work}/a.txt", "bogus": true}))
            .step("Read", json!({"file_path": "{work}/a.txt", "limit": "x"}))
            .step("Read", json!({"file_path": "{work}/a.txt", "offset": -1}))
            .step("Read", json!({"file_path": "{work}/a.txt", "limit": 0}))
            .step("Read", json!({"file_path": "{work}/a.txt", "limit": 1.5}))
            .step("Read", json!({"file_path": 7}))
            .step("Read", json!({"file_path": "{work}/a.txt", "pages": "1"})),
    ]
}
