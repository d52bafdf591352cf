//! Damaged transcripts: a bad byte or a broken line costs its own entry (reported with its
//! line number), not the session; a loop among `parentUuid` links is walked once and
//! reported, in every command that follows them.

use serde_json::json;

use super::{assistant, conversation, entry, id, lines, text, user, uuids, Tree, ID};

/// The conversation with line 2 (`Hi`) damaged by `damage`.
fn damaged_at_line_2(tree: &Tree, damage: impl Fn(&mut Vec<u8>)) {
    let mut file = Vec::new();
    for (n, line) in conversation().lines().enumerate() {
        let mut line = line.as_bytes().to_vec();
        if n == 1 {
            damage(&mut line);
        }
        file.extend_from_slice(&line);
        file.push(b'\n');
    }
    std::fs::write(tree.transcript(ID), file).unwrap();
}

/// `"text":"Hi"` with `byte` inside the string.
fn with_byte(line: &mut Vec<u8>, byte: u8) {
    let at = line.windows(4).position(|w| w == b"\"Hi\"").unwrap() + 2;
    line.insert(at, byte);
}

#[test]
fn a_bad_byte_costs_its_entry_not_the_session() {
    let tree = Tree::new();
    damaged_at_line_2(&tree, |line| with_byte(line, 0xff));
    let output = tree.run(&["show", ID, "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let shown: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // The entries on both sides of it are one conversation still.
    assert_eq!(uuids(&shown), [id(1), id(3), id(4)]);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("line 2: not valid UTF-8"),
        "not reported: {stderr}"
    );
    // A fork leaves it out and links across it.
    let output = tree.run(&["fork", ID]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("line 2: not valid UTF-8"));
    let fork = text(&output.stdout).trim().to_owned();
    let forked = tree.show(&fork);
    assert_eq!(forked["messages"].as_array().unwrap().len(), 3);
    assert_eq!(
        forked["messages"][1]["message"]["content"],
        json!("Bye"),
        "{forked}"
    );
}

#[test]
fn a_broken_line_costs_its_entry_not_the_session() {
    let tree = Tree::new();
    // A raw control character is not allowed in a JSON string.
    damaged_at_line_2(&tree, |line| with_byte(line, 0x01));
    let shown = tree.run(&["show", ID, "--json"]);
    let stderr = text(&shown.stderr);
    assert!(
        stderr.contains("line 2: not JSON"),
        "not reported: {stderr}"
    );
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(uuids(&shown), [id(1), id(3), id(4)]);
    // A last line cut short by a crash: the rest is read.
    let mut file = conversation();
    file.push_str(&user(&id(5), Some(&id(4)), "cut").to_string()[..60]);
    std::fs::write(tree.transcript(ID), file).unwrap();
    let output = tree.run(&["show", ID, "--json"]);
    assert!(text(&output.stderr).contains("line 5: not JSON"));
    let shown: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(uuids(&shown), [id(1), id(2), id(3), id(4)]);
}

#[test]
fn a_fork_stops_at_a_loop_among_progress_entries() {
    let tree = Tree::new();
    let progress = |uuid: &str, parent: &str| entry("progress", uuid, Some(parent), json!([]));
    std::fs::write(
        tree.transcript(ID),
        lines(&[
            user(&id(1), None, "Hello"),
            progress(&id(2), &id(3)),
            progress(&id(3), &id(2)),
            assistant(&id(4), &id(2), "Hi"),
        ]),
    )
    .unwrap();
    let output = tree.run(&["fork", ID]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("loops back"), "not reported: {stderr}");
    let fork = text(&output.stdout).trim().to_owned();
    let file = std::fs::read_to_string(tree.transcript(&fork)).unwrap();
    let first: Vec<serde_json::Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The answer had no written ancestor: it starts its own chain.
    assert_eq!(first[1]["parentUuid"], serde_json::Value::Null, "{file}");
}

#[test]
fn show_reports_a_loop_and_shows_the_chain_up_to_it() {
    let tree = Tree::new();
    // The first prompt names the fourth entry as its parent: a loop through the chain.
    let mut looped = conversation();
    looped = looped.replacen(
        "\"parentUuid\":null",
        &format!("\"parentUuid\":\"{}\"", id(4)),
        1,
    );
    looped.push_str(&lines(&[
        assistant(&id(5), &id(4), "Still here"),
        // A progress entry in a loop of its own, with an entry hanging off it.
        entry("progress", &id(7), Some(&id(8)), json!([])),
        entry("progress", &id(8), Some(&id(7)), json!([])),
        entry("attachment", &id(9), Some(&id(8)), json!([])),
    ]));
    std::fs::write(tree.transcript(ID), &looped).unwrap();
    let output = tree.run(&["show", ID, "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    for report in [
        "line 1: its chain of parents loops back to line 4",
        "line 6: its chain of parents loops back to line 7",
    ] {
        assert!(stderr.contains(report), "{report}: {stderr}");
    }
    let shown: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(uuids(&shown), [id(1), id(2), id(3), id(4), id(5)]);
    // A subagent's conversation too.
    let agents = tree.project.join(ID).join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("agent-a1.jsonl"), &looped).unwrap();
    let output = tree.run(&["show", ID, "--json", "--agent", "a1"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("loops back"),
        "{}",
        text(&output.stderr)
    );
}
