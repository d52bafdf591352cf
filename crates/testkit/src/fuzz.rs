//! Fuzzing on stable Rust: mutated inputs, grown from the project's recorded sessions, thrown at
//! the three places the wire enters twinwire, each checked for panics and broken invariants.
//!
//! * [`Target::Framing`]: a byte stream cut into random chunks through
//!   [`LineDecoder`]: no line holds a newline or exceeds the limit, line numbers only grow, and
//!   the decoder keeps no more than the limit buffered.
//! * [`Target::Message`]: one stdout line through the liberal reader ([`Message::decode`]): any
//!   JSON object decodes (typed, unknown or malformed); what it kept writes back, and that writes
//!   back unchanged after one more round (a fixpoint).
//! * [`Target::Input`]: the same for a host's line read by the agent side
//!   ([`InputMessage::decode`]).
//!
//! The mutator is deliberately plain (bit flips, interesting bytes, cut, copy, splice, and on
//! JSON, a node replaced with an interesting value): coverage comes from the seeds, which are
//! every frame of every recorded CLI generation. `twinwire-fuzz` runs it (see `cargo xtask fuzz`);
//! cargo-fuzz needs a nightly compiler, this runs wherever the tests run.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use twinwire::protocol::framing::LineDecoder;
use twinwire::protocol::{InputMessage, Message};

use crate::fixtures;

/// A place the wire enters twinwire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Bytes into lines.
    Framing,
    /// A CLI's stdout line into a [`Message`].
    Message,
    /// A host's line into an [`InputMessage`].
    Input,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 3] = [Target::Framing, Target::Message, Target::Input];

    /// The target's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Framing => "framing",
            Target::Message => "message",
            Target::Input => "input",
        }
    }

    /// Runs one input; panics when an invariant does not hold.
    pub fn run(self, input: &[u8]) {
        match self {
            Target::Framing => framing(input),
            Target::Message => {
                if let Ok(line) = std::str::from_utf8(input) {
                    round_trips(line, |l| Message::decode(l).map(|d| d.value));
                }
            }
            Target::Input => {
                if let Ok(line) = std::str::from_utf8(input) {
                    round_trips(line, |l| InputMessage::decode(l).map(|d| d.value));
                }
            }
        }
    }
}

fn framing(input: &[u8]) {
    // The first byte picks the limit and the second the chunk size, so both vary with the input.
    let max = 16 + usize::from(*input.first().unwrap_or(&0)) * 4;
    let chunk = 1 + usize::from(*input.get(1).unwrap_or(&7)) % 97;
    let mut decoder = LineDecoder::with_max_line_length(max);
    let mut last = 0;
    let mut check = |decoder: &mut LineDecoder, finishing: bool| loop {
        let next = if finishing {
            decoder.finish()
        } else {
            decoder.next_line()
        };
        let Some(line) = next else { break };
        let number = match line {
            Ok(line) => {
                assert!(!line.text.contains('\n'), "a line holds a newline");
                assert!(line.text.len() <= max, "a line is over the limit");
                line.number
            }
            Err(twinwire::protocol::framing::LineError::TooLong { number, len, .. }) => {
                assert!(len > max, "a line within the limit reported too long");
                number
            }
            Err(twinwire::protocol::framing::LineError::InvalidUtf8 { number, .. }) => number,
            Err(other) => panic!("an error this target does not know: {other}"),
        };
        assert!(number > last, "line numbers went {last} → {number}");
        last = number;
        if finishing {
            break;
        }
    };
    for piece in input.chunks(chunk) {
        decoder.push(piece);
        check(&mut decoder, false);
        // Whatever is held is at most one line in progress, kept only up to the limit.
        assert!(
            decoder.buffered_len() <= max + chunk + 1,
            "{} bytes buffered with a limit of {max}",
            decoder.buffered_len()
        );
    }
    check(&mut decoder, true);
}

/// Decodes `line`; when that succeeds, what was kept must write back, and the written form must
/// decode and write back to the same JSON (key order aside: a frame kept raw writes its keys
/// sorted).
fn round_trips<T: serde::Serialize>(
    line: &str,
    decode: impl Fn(&str) -> Result<T, twinwire::protocol::DecodeError>,
) {
    let Ok(first) = decode(line) else { return };
    let written = serde_json::to_value(&first).expect("a decoded frame writes back");
    let text = written.to_string();
    let second = decode(&text).unwrap_or_else(|e| panic!("its own output does not read: {e}"));
    let again = serde_json::to_value(&second).expect("writes back again");
    assert!(
        again == written,
        "writing back is not stable:\n{text}\n{again}"
    );
}

/// The seeds of a target: every recorded frame (stdout frames for [`Target::Message`], the
/// host's for [`Target::Input`]) and, for framing, whole recordings.
pub fn seeds(target: Target) -> Vec<Vec<u8>> {
    let dir = fixtures::transcripts_dir();
    match target {
        Target::Framing => fixtures::recording_files(&dir)
            .iter()
            .filter_map(|file| std::fs::read(file).ok())
            // A few KiB of each: long enough for many lines, short enough to mutate quickly.
            .map(|bytes| bytes[..bytes.len().min(8192)].to_vec())
            .collect(),
        Target::Message | Target::Input => fixtures::all_frames(&dir)
            .into_iter()
            .filter(|f| f.from_host == (target == Target::Input))
            .map(|f| f.frame.to_string().into_bytes())
            .collect(),
    }
}

/// What one run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs tried.
    pub inputs: u64,
    /// Inputs that panicked (each saved).
    pub crashes: u64,
    /// The first panic's message.
    pub first_crash: Option<String>,
}

/// Mutates seeds and runs `target` on them until `time` is up, saving every input that panics
/// into `crashes`.
pub fn run(target: Target, time: Duration, seed: u64, crashes: &Path) -> Report {
    let seeds = seeds(target);
    assert!(!seeds.is_empty(), "no seeds for {}", target.name());
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut report = Report::default();
    let deadline = Instant::now() + time;
    while Instant::now() < deadline {
        for _ in 0..64 {
            let input = mutate(&mut rng, &seeds);
            report.inputs += 1;
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| target.run(&input))) {
                report.crashes += 1;
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                report.first_crash.get_or_insert(message);
                let _ = std::fs::create_dir_all(crashes);
                let name = format!("{}-{}.bin", target.name(), report.crashes);
                let _ = std::fs::write(crashes.join(name), &input);
            }
        }
    }
    report
}

/// Bytes that break parsers.
const INTERESTING_BYTES: &[u8] = b"\0\"{}[],:\\\n\r \xff\xc3\xe2";

/// JSON values that break readers.
fn interesting_value(rng: &mut fastrand::Rng) -> Value {
    match rng.u8(0..14) {
        0 => Value::Null,
        1 => Value::Bool(rng.bool()),
        2 => 0.into(),
        3 => (-1).into(),
        4 => 1.5.into(),
        5 => serde_json::from_str("1e308").unwrap_or(Value::Null),
        6 => serde_json::from_str("18446744073709551616").unwrap_or(Value::Null),
        7 => "".into(),
        8 => "x".repeat(rng.usize(1..5000)).into(),
        9 => Value::Array(Vec::new()),
        10 => Value::Object(serde_json::Map::new()),
        11 => "definitely_unknown".into(),
        12 => "10.0".into(),
        _ => {
            let depth = rng.usize(1..200);
            serde_json::from_str(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)))
                .unwrap_or(Value::Null)
        }
    }
}

/// One input: a seed with one to four mutations.
pub fn mutate(rng: &mut fastrand::Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.usize(..seeds.len())].clone();
    for _ in 0..rng.usize(1..=4) {
        match rng.u8(0..7) {
            0 if !data.is_empty() => {
                let at = rng.usize(..data.len());
                data[at] ^= 1 << rng.u8(0..8);
            }
            1 if !data.is_empty() => {
                let at = rng.usize(..data.len());
                data[at] = INTERESTING_BYTES[rng.usize(..INTERESTING_BYTES.len())];
            }
            2 if !data.is_empty() => {
                let start = rng.usize(..data.len());
                let end = rng.usize(start..=data.len().min(start + 64));
                data.drain(start..end);
            }
            3 if !data.is_empty() => {
                let start = rng.usize(..data.len());
                let end = rng.usize(start..=data.len().min(start + 64));
                let copy = data[start..end].to_vec();
                let at = rng.usize(..=data.len());
                data.splice(at..at, copy);
            }
            4 => {
                let other = &seeds[rng.usize(..seeds.len())];
                let cut = rng.usize(..=data.len());
                let from = rng.usize(..=other.len());
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            _ => replace_a_node(rng, &mut data),
        }
    }
    data
}

/// Parses `data` as JSON and replaces one node (or adds an odd field to an object).
fn replace_a_node(rng: &mut fastrand::Rng, data: &mut Vec<u8>) {
    let Ok(mut value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let mut count = 0;
    count_nodes(&value, &mut count);
    let pick = rng.usize(..count.max(1));
    let replacement = interesting_value(rng);
    let mut seen = 0;
    if rng.u8(0..4) == 0 {
        if let Value::Object(map) = &mut value {
            map.insert("odd_field".to_owned(), replacement);
        }
    } else {
        replace_nth(&mut value, pick, &mut seen, replacement);
    }
    *data = value.to_string().into_bytes();
}

fn count_nodes(value: &Value, count: &mut usize) {
    *count += 1;
    match value {
        Value::Array(items) => items.iter().for_each(|v| count_nodes(v, count)),
        Value::Object(map) => map.values().for_each(|v| count_nodes(v, count)),
        _ => {}
    }
}

fn replace_nth(value: &mut Value, n: usize, seen: &mut usize, replacement: Value) -> bool {
    if *seen == n {
        *value = replacement;
        return true;
    }
    *seen += 1;
    let children: Vec<&mut Value> = match value {
        Value::Array(items) => items.iter_mut().collect(),
        Value::Object(map) => map.values_mut().collect(),
        _ => return false,
    };
    for child in children {
        if replace_nth(child, n, seen, replacement.clone()) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_passes_every_target_unmutated() {
        for target in Target::ALL {
            let seeds = seeds(target);
            assert!(seeds.len() > 50, "{}: {} seeds", target.name(), seeds.len());
            for seed in &seeds {
                target.run(seed);
            }
        }
    }

    #[test]
    fn a_broken_invariant_is_caught() {
        // A target that fails on a byte a mutation can produce is found within a few inputs.
        let seeds = seeds(Target::Message);
        let mut rng = fastrand::Rng::with_seed(7);
        let found = (0..10_000).any(|_| mutate(&mut rng, &seeds).contains(&b'\0'));
        assert!(found, "the mutator never wrote an interesting byte");
    }
}
