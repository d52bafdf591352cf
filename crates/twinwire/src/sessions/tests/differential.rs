//! The index-based reading against the oracles (the reading it replaced) on thousands of
//! small random transcripts: branches, retries, duplicate uuids, loops, sidechains, teams,
//! parallel tool calls with results hanging anywhere. The same entries in the same order,
//! and forks with the same lines.

use serde_json::{json, Value};

use super::{oracle, oracle_fork, ID};
use crate::sessions::chain::Chains;
use crate::sessions::index::{Index, Limits};
use crate::sessions::skipped::Notes;
use crate::sessions::{sanitize_path, ForkOptions, SavedSessions};

/// A small deterministic generator (xorshift64*), so a failure names its seed.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A uuid-shaped id for entry `i`.
pub(super) fn id(i: usize) -> String {
    format!("00000000-0000-4000-8000-{i:012}")
}

pub(super) const LIMITS: Limits = Limits {
    max_line_bytes: 1 << 20,
    max_entries: 1 << 20,
};

/// A random transcript of `n` entries (`acyclic`: parents only point back).
fn transcript(rng: &mut Rng, n: usize, acyclic: bool) -> Vec<Value> {
    let kinds = [
        "user",
        "assistant",
        "assistant",
        "progress",
        "system",
        "attachment",
    ];
    let mut lines = Vec::new();
    for i in 0..n {
        let kind = kinds[rng.below(kinds.len())];
        // Some uuids are written twice (which can close a loop: not for forks, which the
        // oracle cannot finish then).
        let uuid = if i > 0 && !acyclic && rng.chance(4) {
            id(rng.below(i))
        } else {
            id(i)
        };
        let parent = match rng.below(20) {
            0 => Value::Null,
            1 => json!(""),
            2 => json!(id(n + 5)),
            3 if !acyclic => json!(id(rng.below(n))),
            _ if i > 0 => json!(id(i - 1 - rng.below(i.min(4)))),
            _ => Value::Null,
        };
        let mut entry = json!({
            "parentUuid": parent, "type": kind, "uuid": uuid, "sessionId": ID,
            "timestamp": format!("2026-01-01T00:00:{:02}.000Z", rng.below(8)),
        });
        if rng.chance(6) {
            entry["isSidechain"] = json!(true);
        }
        if rng.chance(4) {
            entry["isMeta"] = json!(true);
        }
        if rng.chance(4) {
            entry["teamName"] = [json!(null), json!(""), json!("red")][rng.below(3)].clone();
        }
        if rng.chance(10) {
            entry["agentId"] = [json!("a1"), json!("a2"), json!(7)][rng.below(3)].clone();
        }
        let call = |rng: &mut Rng| format!("toolu_{}", rng.below(8));
        entry["message"] = match kind {
            "assistant" => {
                let mut blocks = vec![json!({"type": "text", "text": format!("answer {i}")})];
                for _ in 0..rng.below(3) {
                    blocks.push(
                        json!({"type": "tool_use", "id": call(rng), "name": "Bash", "input": {}}),
                    );
                }
                let id = match rng.below(8) {
                    0 => Value::Null,
                    1 => json!(""),
                    k => json!(format!("msg_{}", k % 5)),
                };
                json!({"id": id, "role": "assistant", "content": blocks})
            }
            "user" if rng.chance(50) => {
                let blocks: Vec<Value> = (0..=rng.below(2))
                    .map(|_| json!({"type": "tool_result", "tool_use_id": call(rng), "content": "ok"}))
                    .collect();
                if rng.chance(30) {
                    entry["sourceToolAssistantUUID"] = json!(id(rng.below(n)));
                }
                json!({"role": "user", "content": blocks})
            }
            _ => json!({"role": "user", "content": format!("prompt {i}")}),
        };
        lines.push(entry);
        if rng.chance(3) {
            let other = if rng.chance(70) { ID } else { "elsewhere" };
            lines.push(match rng.below(3) {
                0 => json!({"type": "content-replacement", "sessionId": other,
                            "replacements": [{"toolUseId": call(rng), "replacement": "r"}]}),
                1 => json!({"type": "atis-latch", "sessionId": other, "atis": format!("a{}", rng.below(9))}),
                _ => json!({"type": "tools-used", "sessionId": other, "tools": ["Bash", "", 3]}),
            });
        }
    }
    lines
}

fn text_of(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The node numbers of the oracle's entries (both number the chain entries in file order).
fn positions(entries: &[oracle::Entry], chosen: &[&oracle::Entry]) -> Vec<u32> {
    chosen
        .iter()
        .map(|e| entries.iter().position(|x| std::ptr::eq(x, *e)).unwrap() as u32)
        .collect()
}

#[test]
fn chains_are_the_ones_the_oracle_chooses() {
    for seed in 0..3000u64 {
        let mut rng = Rng::new(seed);
        let n = 1 + rng.below(40);
        let text = text_of(&transcript(&mut rng, n, false));
        let entries = oracle::parse_entries(&text);
        let index = Index::read(text.as_bytes(), LIMITS, false).unwrap();
        assert_eq!(index.nodes.len(), entries.len(), "seed {seed}");
        let mut notes = Notes::default();
        let main = Chains::new(&index).main(&mut notes);
        let expected = positions(&entries, &oracle::main_chain(&entries));
        assert_eq!(main, expected, "main chain, seed {seed}:\n{text}");
        let sub = Chains::new(&index).subagent(&mut notes);
        let expected = positions(&entries, &oracle::subagent_chain(&entries));
        assert_eq!(sub, expected, "subagent chain, seed {seed}:\n{text}");
    }
}

/// A fork's lines with their new ids named by first appearance and the fork's time hidden.
fn normalized(lines: &[String]) -> Vec<Value> {
    let mut names = std::collections::HashMap::new();
    lines
        .iter()
        .map(|line| {
            let mut entry: Value = serde_json::from_str(line).unwrap();
            for key in ["uuid", "parentUuid", "logicalParentUuid", "sessionId"] {
                if let Some(Value::String(value)) = entry.get(key) {
                    let count = names.len();
                    let name = names.entry(value.clone()).or_insert(count);
                    entry[key] = json!(format!("id#{name}"));
                }
            }
            if let Some(Value::String(time)) = entry.get("timestamp") {
                if !time.starts_with("2026-01-01") {
                    entry["timestamp"] = json!("now");
                }
            }
            entry
        })
        .collect()
}

#[test]
fn forks_are_the_ones_the_oracle_writes() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects").join(sanitize_path("/work"));
    std::fs::create_dir_all(&project).unwrap();
    let store = SavedSessions::at(dir.path());
    for seed in 0..400u64 {
        let mut rng = Rng::new(seed);
        let n = 1 + rng.below(30);
        let text = text_of(&transcript(&mut rng, n, true));
        std::fs::write(project.join(format!("{ID}.jsonl")), &text).unwrap();
        let up_to = rng.chance(40).then(|| id(rng.below(n)));
        let title = rng.chance(20).then_some("Named");
        let expected = oracle_fork::fork_lines(&text, ID, up_to.as_deref(), title);
        let options = ForkOptions {
            up_to: up_to.clone(),
            title: title.map(str::to_owned),
            ..ForkOptions::default()
        };
        let forked = store.fork(ID, &options);
        match (expected, forked) {
            (Ok((_, expected)), Ok(fork_id)) => {
                let path = project.join(format!("{fork_id}.jsonl"));
                let written = std::fs::read_to_string(&path).unwrap();
                std::fs::remove_file(&path).unwrap();
                let written: Vec<String> = written.lines().map(str::to_owned).collect();
                assert_eq!(
                    normalized(&written),
                    normalized(&expected),
                    "seed {seed}:\n{text}"
                );
                // Key order too: the same file the TypeScript SDK writes.
                let keys = |l: &String| {
                    let v: indexmap::IndexMap<String, Value> = serde_json::from_str(l).unwrap();
                    v.keys().cloned().collect::<Vec<_>>()
                };
                let (a, b): (Vec<_>, Vec<_>) = (
                    written.iter().map(keys).collect(),
                    expected.iter().map(keys).collect(),
                );
                assert_eq!(a, b, "key order, seed {seed}");
            }
            (Err(expected), Err(forked)) => {
                assert_eq!(expected.to_string(), forked.to_string(), "seed {seed}");
            }
            (expected, forked) => panic!("seed {seed}: {expected:?} vs {forked:?}\n{text}"),
        }
    }
}
