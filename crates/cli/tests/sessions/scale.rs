//! Large transcripts: many entries (a long chain, a wide fan hanging off a long run of
//! progress entries) read in time linear in the entries, and a 236 MB transcript shown within
//! 256 MiB of memory (enforced by the kernel: `ulimit -d`).

use std::io::{BufRead, BufReader, Write};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use super::{assistant, common, entry, id, text, user, Tree, ID};

/// `count` entries written to `out` one by one.
fn write_entries(out: &mut impl Write, entries: impl Iterator<Item = Value>) {
    for entry in entries {
        writeln!(out, "{entry}").unwrap();
    }
}

#[test]
fn a_long_chain_and_a_wide_fan_read_in_linear_time() {
    // 100,000 messages in one chain; then 50,000 progress entries hanging off the first
    // prompt, one after the other, and 10,000 attachments off the last of them. Walking back
    // from each attachment anew, as each fan entry used to be walked, is 500 million steps.
    const CHAIN: usize = 100_000;
    const PROGRESS: usize = 50_000;
    const FAN: usize = 10_000;
    let tree = Tree::new();
    let file = std::fs::File::create(tree.transcript(ID)).unwrap();
    let mut out = std::io::BufWriter::new(file);
    write_entries(
        &mut out,
        (0..CHAIN).map(|i| match i {
            0 => user(&id(0), None, "first"),
            _ if i % 2 == 0 => user(&id(i), Some(&id(i - 1)), "go on"),
            _ => assistant(&id(i), &id(i - 1), "going"),
        }),
    );
    write_entries(
        &mut out,
        (CHAIN..CHAIN + PROGRESS).map(|i| {
            let parent = if i == CHAIN { id(0) } else { id(i - 1) };
            entry("progress", &id(i), Some(&parent), json!([]))
        }),
    );
    let last_progress = id(CHAIN + PROGRESS - 1);
    write_entries(
        &mut out,
        (0..FAN).map(|k| {
            entry(
                "attachment",
                &id(CHAIN + PROGRESS + k),
                Some(&last_progress),
                json!([]),
            )
        }),
    );
    out.flush().unwrap();
    drop(out);

    // The generous limit only guards against the old quadratic walk (hours here); a linear
    // read takes seconds.
    let limit = Duration::from_secs(300);
    let config = tree.config.to_str().unwrap();
    let output = super::run(
        &["sessions", "--config-dir", config, "show", ID, "--json"],
        limit,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    let messages = shown["messages"].as_array().unwrap();
    assert_eq!(messages.len(), CHAIN);
    assert_eq!(messages[CHAIN - 1]["uuid"], id(CHAIN - 1));

    let output = super::run(&["sessions", "--config-dir", config, "fork", ID], limit);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let fork = text(&output.stdout).trim().to_owned();
    let forked = std::fs::read_to_string(tree.transcript(&fork)).unwrap();
    // Every message and attachment (progress entries are left out), and the title.
    assert_eq!(forked.lines().count(), CHAIN + FAN + 1);
    // Each attachment hangs off the nearest written ancestor: the first prompt's copy.
    let first: Value = serde_json::from_str(forked.lines().next().unwrap()).unwrap();
    let attachment: Value = serde_json::from_str(forked.lines().nth(CHAIN).unwrap()).unwrap();
    assert_eq!(attachment["parentUuid"], first["uuid"]);
}

/// A transcript as the CLI writes a long working session, of at least `bytes`: prompts,
/// answers with tool calls, tool results of up to 30 KB. Returns the number of entries.
fn working_session(out: &mut impl Write, bytes: u64) -> usize {
    let words = [
        "read", "the", "file", "and", "run", "tests", "again", "fixing", "errors",
    ];
    let prose = |n: usize, seed: usize| -> String {
        (0..n)
            .map(|k| words[(k * 7 + seed) % words.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (mut written, mut i) = (0u64, 0usize);
    while written < bytes {
        let parent = (i > 0).then(|| id(i - 1));
        let mut line = match i % 4 {
            0 => user(&id(i), parent.as_deref(), &prose(5 + i % 75, i)),
            1 => entry(
                "assistant",
                &id(i),
                parent.as_deref(),
                json!([{"type": "text", "text": prose(20 + i % 180, i)},
                       {"type": "tool_use", "id": format!("toolu_{i}"), "name": "Read",
                        "input": {"file_path": format!("/work/src/file{i}.rs")}}]),
            ),
            2 => {
                let output = prose([40, 160, 400, 1200, 6000][i % 5], i);
                let mut result = entry(
                    "user",
                    &id(i),
                    parent.as_deref(),
                    json!([{"type": "tool_result", "tool_use_id": format!("toolu_{}", i - 1),
                            "content": output}]),
                );
                result["toolUseResult"] = json!({"type": "text", "file": {"content": output}});
                result
            }
            _ => assistant(&id(i), &id(i - 1), &prose(20 + i % 280, i)),
        };
        if i % 4 == 1 || i % 4 == 3 {
            line["message"]["id"] = json!(format!("msg_{i}"));
        }
        let text = format!("{line}\n");
        out.write_all(text.as_bytes()).unwrap();
        written += text.len() as u64;
        i += 1;
    }
    i
}

#[cfg(unix)]
#[test]
fn a_236_mb_transcript_is_shown_within_256_mib() {
    let tree = Tree::new();
    let file = std::fs::File::create(tree.transcript(ID)).unwrap();
    let mut out = std::io::BufWriter::new(file);
    let entries = working_session(&mut out, 236 * 1000 * 1000);
    drop(out);
    // The kernel refuses the process more than 256 MiB of data (heap and private mappings);
    // the shown JSON is counted as it streams, not kept.
    let limit_kib = 256 * 1024;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -d {limit_kib} && exec \"$0\" \"$@\""))
        .arg(common::twinwire())
        .args([
            "sessions",
            "--config-dir",
            tree.config.to_str().unwrap(),
            "show",
            ID,
            "--json",
        ]);
    let output = super::run_command(&mut command, Duration::from_secs(600), |stdout| {
        let mut messages = 0usize;
        for line in BufReader::new(stdout).lines() {
            // Each message's own uuid, at the indentation of the message's fields.
            if line.unwrap().starts_with("      \"uuid\": ") {
                messages += 1;
            }
        }
        messages.to_string().into_bytes()
    });
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), entries.to_string());
}
