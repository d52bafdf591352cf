//! The conformance suite (`crates/testkit/tests/conformance`) run against each CLI generation,
//! every run recorded through `twinwire tap`, and the recordings compared with (or written to)
//! `tests/fixtures/transcripts/claude-<version>/`.
//!
//! The pinned CLI must pass every scenario. Any other generation, older or newer, must pass
//! every scenario but those its entry in `differences.json` names, and those must still fail: a
//! listed scenario that passes is an error too (the list is stale), so no difference goes
//! unnoticed or stays listed after it is gone.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::normalize::{directions, normalize};
use crate::{run, CLAUDE_PATH_ENV, CONFORMANCE_TEST};

/// The CLI generations CI runs the suite on, newest first. The pinned one
/// ([`PINNED_CLI_VERSION`](crate::install::PINNED_CLI_VERSION)) is among them; a newer build
/// beside it is held to the same expectations (its entry in `differences.json` lists what it
/// does otherwise).
pub const GENERATIONS: [&str; 5] = ["2.1.332", "2.1.330", "2.1.112", "2.0.77", "1.0.128"];

/// Where the recordings live, one directory per version.
pub fn fixtures_dir(root: &Path) -> PathBuf {
    root.join("tests/fixtures/transcripts")
}

/// The expected differences of the older generations: version → scenario → how it differs.
pub fn differences(root: &Path) -> Result<BTreeMap<String, BTreeMap<String, String>>> {
    let path = root.join("crates/testkit/tests/conformance/differences.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// How a difference that depends on a race inside the CLI begins: such a scenario may pass or
/// fail on that CLI (every other listed one must fail).
pub const RACE: &str = "a race in this CLI: ";

/// What one run of the suite gave.
pub struct Run {
    pub version: String,
    /// Scenario → passed.
    pub outcomes: BTreeMap<String, bool>,
    pub seconds: f64,
    /// The normalized recordings: file name → text.
    pub recordings: BTreeMap<String, String>,
}

impl Run {
    /// `claude 2.1.330`, or `twinwire-agent`.
    fn label(&self) -> String {
        if self.version == AGENT_COLUMN {
            self.version.clone()
        } else {
            format!("claude {}", self.version)
        }
    }

    /// Checks the outcomes against the expected differences and prints the version's summary
    /// line; the error lists every unexpected outcome.
    pub fn check(&self, expected: &BTreeMap<String, String>) -> Result<()> {
        let mut unexpected = Vec::new();
        let mut differ = 0;
        for (scenario, &passed) in &self.outcomes {
            match (passed, expected.get(scenario)) {
                (true, None) => {}
                (false, Some(_)) => differ += 1,
                // A race inside that CLI: listed as such, it may go either way.
                (true, Some(why)) if why.starts_with(RACE) => {}
                (true, Some(_)) => unexpected.push(format!(
                    "{scenario} passes but is listed as a difference (remove it from \
                     differences.json)"
                )),
                (false, None) => unexpected.push(format!("{scenario} failed")),
            }
        }
        for scenario in expected.keys() {
            if !self.outcomes.contains_key(scenario) {
                unexpected.push(format!("{scenario} is listed but did not run"));
            }
        }
        let passed = self.outcomes.values().filter(|&&passed| passed).count();
        crate::tally::step(self.label());
        crate::tally::add(passed as u64, unexpected.len() as u64, differ as u64);
        eprintln!(
            "conformance {}: {} scenarios, {passed} passed, {differ} differ as listed, {} \
             unexpected, in {:.1} s",
            self.label(),
            self.outcomes.len(),
            unexpected.len(),
            self.seconds
        );
        if unexpected.is_empty() {
            Ok(())
        } else {
            bail!("{}: {}", self.label(), unexpected.join("\n  "))
        }
    }

    /// Compares the recordings with the committed ones; the error names each file that differs,
    /// is missing or is extra, with its first differing line.
    pub fn compare(&self, root: &Path) -> Result<()> {
        let committed = self.committed(root)?;
        let mut problems = Vec::new();
        let mut reordered = Vec::new();
        let mut tallied = Vec::new();
        for (name, text) in &self.recordings {
            match committed.get(name) {
                None => problems.push(format!("{name}: recorded, not committed")),
                Some(old) => match likeness(old, text) {
                    Likeness::Same => {}
                    Likeness::Reordered => reordered.push(name.as_str()),
                    Likeness::Tallied | Likeness::Renumbered => tallied.push(name.as_str()),
                    Likeness::Different => problems.push(format!(
                        "{name}: differs from the committed recording{}",
                        first_difference(old, text)
                    )),
                },
            }
        }
        for name in committed.keys() {
            if !self.recordings.contains_key(name) {
                problems.push(format!("{name}: committed, not recorded"));
            }
        }
        let named = |names: &[&str]| {
            if names.is_empty() {
                String::new()
            } else {
                format!(" ({})", names.join(", "))
            }
        };
        eprintln!(
            "recordings claude {}: {} files, {} byte for byte as committed, {} with the same \
             frames each way in another order{}, {} with other cost tallies in a result or other numbers for the ids{}",
            self.version,
            self.recordings.len(),
            self.recordings
                .len()
                .saturating_sub(problems.len() + reordered.len() + tallied.len()),
            reordered.len(),
            named(&reordered),
            tallied.len(),
            named(&tallied)
        );
        if problems.is_empty() {
            Ok(())
        } else {
            bail!(
                "claude {}: the recordings are not up to date (`cargo xtask record` rewrites \
                 them):\n  {}",
                self.version,
                problems.join("\n  ")
            )
        }
    }

    /// The committed recordings of this version.
    fn committed(&self, root: &Path) -> Result<BTreeMap<String, String>> {
        read_recordings(&fixtures_dir(root).join(format!("claude-{}", self.version)))
    }

    /// The files recorded and committed both whose frames differ from the committed ones.
    pub fn differing(&self, root: &Path) -> Result<Vec<String>> {
        let committed = self.committed(root)?;
        Ok(self
            .recordings
            .iter()
            .filter(|(name, text)| {
                committed
                    .get(*name)
                    .is_some_and(|old| likeness(old, text) == Likeness::Different)
            })
            .map(|(name, _)| name.clone())
            .collect())
    }

    /// Takes, of the files `names`, each that `again` recorded as committed; returns those.
    pub fn adopt(&mut self, again: &Run, names: &[String], root: &Path) -> Result<Vec<String>> {
        let committed = self.committed(root)?;
        let mut adopted = Vec::new();
        for name in names {
            let (Some(new), Some(old)) = (again.recordings.get(name), committed.get(name)) else {
                continue;
            };
            if likeness(old, new) != Likeness::Different {
                self.recordings.insert(name.clone(), new.clone());
                adopted.push(name.clone());
            }
        }
        Ok(adopted)
    }

    /// Replaces the committed recordings of this version with these.
    pub fn write(&self, root: &Path) -> Result<()> {
        let dir = fixtures_dir(root).join(format!("claude-{}", self.version));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        for (name, text) in &self.recordings {
            std::fs::write(dir.join(name), text)?;
        }
        eprintln!(
            "wrote {} recordings to {}",
            self.recordings.len(),
            dir.display()
        );
        Ok(())
    }
}

/// Runs the suite against `claude` (version `version`), every CLI behind `twinwire tap` (`tap`).
pub fn run_suite(root: &Path, claude: &Path, version: &str, tap: &Path) -> Result<Run> {
    run_scenarios(root, claude, version, tap, &[])
}

/// [`run_suite`] for the scenarios named (their test names, `mcp::a_tool_is_called`), or all
/// when `only` is empty.
pub fn run_scenarios(
    root: &Path,
    claude: &Path,
    version: &str,
    tap: &Path,
    only: &[String],
) -> Result<Run> {
    // Build first, so that the time reported is the suite's, not the compiler's.
    run(suite_command(root).arg("--no-run"))?;
    let scratch = scratch_dir(root, version)?;
    // The suite's CLI path when it records: the tap in front of `$TWINWIRE_TAP_CLI`, recording
    // into `$TWINWIRE_TAP_RECORD`. Written here, before any test runs.
    let wrapper = scratch.join("claude-tap");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' tap -- \"$TWINWIRE_TAP_CLI\" \"$@\"\n",
            tap.display().to_string().replace('\'', r"'\''")
        ),
    )?;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    let differences = differences(root)?;
    let column = if version.starts_with(AGENT_COLUMN) {
        AGENT_COLUMN
    } else {
        version
    };
    let listed = differences.get(column).cloned().unwrap_or_default();
    let started = Instant::now();
    let mut child = suite_command(root)
        .env(CLAUDE_PATH_ENV, claude)
        .env("TWINWIRE_CLI_VERSION", version)
        .env("TWINWIRE_RECORD_DIR", &scratch)
        .env("TWINWIRE_TAP_WRAPPER", &wrapper)
        .args(["--", "--color", "never", "--test-threads", SUITE_THREADS])
        .args(only)
        .args(if only.is_empty() {
            None
        } else {
            Some("--exact")
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting the conformance suite")?;
    // Cargo's stderr as it comes, but for its word that the binary failed: held until it is
    // known whether a failure was not listed.
    let stderr = child.stderr.take().map(|stderr| {
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if crate::listed::is_cargo_rerun_hint(&line) {
                    held.push(line);
                } else {
                    eprintln!("{line}");
                }
            }
            held
        })
    });
    let mut outcomes = BTreeMap::new();
    let mut filter = crate::listed::Filter::new(&listed);
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.context("reading the conformance suite's output")?;
            if let Some(shown) = filter.line(&line) {
                println!("{shown}");
            }
            if let Some((name, passed)) = outcome(&line) {
                outcomes.insert(name, passed);
            }
        }
    }
    let status = child.wait()?;
    let held = stderr
        .map(|thread| thread.join().unwrap_or_default())
        .unwrap_or_default();
    // A failure nobody listed, or a binary that failed without any test failing (it did not
    // build, or it crashed): Cargo's own words are part of what failed.
    if filter.unlisted_failures > 0 || (!status.success() && filter.listed_failures == 0) {
        for line in held {
            eprintln!("{line}");
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let recordings = collect_recordings(&scratch)?;
    Ok(Run {
        version: version.to_owned(),
        outcomes,
        seconds,
        recordings,
    })
}

/// The column of the matrix that is not a CLI: `twinwire-agent` (crates/agent) in the CLI's
/// place, held like any generation to its entry in `differences.json`. Its runs are not
/// compared with recordings: the agent's frames are its own.
pub const AGENT_COLUMN: &str = "twinwire-agent";

/// Builds `twinwire-agent` and runs the suite against it. The suite expects `system/init` to
/// name the version under test: the agent names itself and its version there.
pub fn run_agent_column(root: &Path, tap: &Path) -> Result<Run> {
    let agent = crate::build::all(root)?.join(AGENT_COLUMN);
    let output = Command::new(&agent)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", agent.display()))?;
    // `0.2.0 (twinwire-agent)`, as `claude --version` prints `2.1.330 (Claude Code)`.
    let printed = String::from_utf8_lossy(&output.stdout);
    let version = printed
        .split_whitespace()
        .next()
        .with_context(|| format!("{AGENT_COLUMN} --version printed nothing"))?;
    let mut suite = run_suite(root, &agent, &format!("{AGENT_COLUMN} {version}"), tap)?;
    suite.version = AGENT_COLUMN.to_owned();
    Ok(suite)
}

/// Scenarios run at once. Each mostly waits on its CLI (a Node process), so more than the
/// cores: the older generations leave some requests unanswered until their time limit.
const SUITE_THREADS: &str = "6";

/// `cargo test --test conformance` in the shared selection (see [`crate::build`]), in `root`.
fn suite_command(root: &Path) -> Command {
    let mut command = crate::build::workspace(root, "test");
    command
        .args(["--test", CONFORMANCE_TEST])
        .env(crate::build::PREBUILT_ENV, "1");
    command
}

/// A libtest line `test NAME ... ok` or `test NAME ... FAILED` → (NAME, passed).
fn outcome(line: &str) -> Option<(String, bool)> {
    let (name, outcome) = line.strip_prefix("test ")?.rsplit_once(" ... ")?;
    match outcome.trim() {
        "ok" => Some((name.to_owned(), true)),
        "FAILED" => Some((name.to_owned(), false)),
        _ => None,
    }
}

/// Adds the official SDKs' recordings the peers suite kept in `scratch` to `run`.
pub fn add_recordings(run: &mut Run, scratch: &Path) -> Result<()> {
    run.recordings.extend(collect_recordings(scratch)?);
    Ok(())
}

/// A directory under `target/recordings/`, emptied, for one run's raw recordings (kept after
/// the run, so that they can be normalized again without recording again).
pub fn scratch_dir(root: &Path, name: &str) -> Result<PathBuf> {
    let dir = crate::sdks::target_dir(root).join("recordings").join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The normalized recordings under `scratch`: one directory per scenario, one file per CLI the
/// scenario started (in the order started) → `<scenario>.jsonl`, `<scenario>.2.jsonl`, ….
fn collect_recordings(scratch: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(scratch)? {
        let dir = entry?.path();
        // `claude-tap`, the wrapper, is a file beside the scenarios' directories.
        if !dir.is_dir() {
            continue;
        }
        let scenario = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        // The tap names its files `tap-<milliseconds>-<pid>.jsonl`: by start time.
        files.sort_by_key(|path| started_at(path));
        for (index, file) in files.iter().enumerate() {
            let text = std::fs::read_to_string(file)?;
            if text.trim().is_empty() {
                continue;
            }
            let name = match index {
                0 => format!("{scenario}.jsonl"),
                n => format!("{scenario}.{}.jsonl", n + 1),
            };
            let normalized =
                normalize(&text).with_context(|| format!("normalizing {}", file.display()))?;
            out.insert(name, normalized);
        }
    }
    Ok(out)
}

/// `tap-<milliseconds>-<pid>.jsonl` → milliseconds; other names sort by name.
fn started_at(path: &Path) -> (u128, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let millis = name
        .strip_prefix("tap-")
        .and_then(|rest| rest.split('-').next())
        .and_then(|millis| millis.parse().ok())
        .unwrap_or(0);
    (millis, name)
}

/// How a recording compares with the committed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Likeness {
    /// Byte for byte.
    Same,
    /// The same frames each way, in another order: how the two directions interleave, or two
    /// frames the CLI writes at once (on 2.1.330, an in-process MCP server's
    /// `notifications/initialized` and the first `session_state_changed`).
    Reordered,
    /// The same frames, in any order, but for a result's cost tallies (`total_cost_usd`,
    /// `modelUsage`): they count the side requests the CLI makes beside the turn (a title, a
    /// quota check), and whether one ends before the turn's result follows the machine's speed
    /// (claude 2.0.77 on a slower machine than the one that recorded).
    Tallied,
    /// The same frames, in any order, but for the numbers the ids got: when two frames the
    /// CLI writes at once come out in either order (2.1.330's in-process MCP server, above),
    /// the ids in them are numbered in that order.
    Renumbered,
    Different,
}

fn likeness(old: &str, new: &str) -> Likeness {
    if old == new {
        return Likeness::Same;
    }
    let meta = |text: &str| text.lines().next().map(str::to_owned);
    if meta(old) != meta(new) {
        return Likeness::Different;
    }
    let sorted = |text: &str, tallies: bool, numbers: bool| {
        directions(text).map(|frames| {
            let mut frames: Vec<String> = frames
                .into_iter()
                .map(|frame| {
                    let frame = if tallies {
                        frame.to_owned()
                    } else {
                        without_tallies(frame)
                    };
                    if numbers {
                        frame
                    } else {
                        NUMBERED_ID.replace_all(&frame, "<id>").into_owned()
                    }
                })
                .collect();
            frames.sort_unstable();
            frames
        })
    };
    if sorted(old, true, true) == sorted(new, true, true) {
        Likeness::Reordered
    } else if sorted(old, false, true) == sorted(new, false, true) {
        Likeness::Tallied
    } else if sorted(old, true, false) == sorted(new, true, false) {
        Likeness::Renumbered
    } else {
        Likeness::Different
    }
}

/// An id as the normalizer numbers it.
static NUMBERED_ID: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"00000000-0000-4000-8000-\d{12}").expect("a valid pattern")
});

/// A recorded frame (`"msg":{…}}`) without a result's cost tallies; other frames as they are.
fn without_tallies(frame: &str) -> String {
    let Ok(serde_json::Value::Object(mut line)) = serde_json::from_str(&format!("{{{frame}"))
    else {
        return frame.to_owned();
    };
    if let Some(serde_json::Value::Object(msg)) = line.get_mut("msg") {
        if msg.get("type").and_then(|kind| kind.as_str()) == Some("result") {
            msg.remove("total_cost_usd");
            msg.remove("modelUsage");
        }
    }
    serde_json::Value::Object(line).to_string()
}

/// The committed recordings of one version: file name → text.
fn read_recordings(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    for entry in entries {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".jsonl") {
            out.insert(name, std::fs::read_to_string(&path)?);
        }
    }
    Ok(out)
}

/// ", line N:\n    was: …\n    now: …" for the first line where `old` and `new` differ.
fn first_difference(old: &str, new: &str) -> String {
    let (mut old_lines, mut new_lines) = (old.lines(), new.lines());
    let mut number = 0;
    loop {
        number += 1;
        match (old_lines.next(), new_lines.next()) {
            (None, None) => return String::new(),
            (a, b) if a == b => continue,
            (a, b) => {
                let clip = |line: Option<&str>| {
                    line.map(|l| l.chars().take(300).collect::<String>())
                        .unwrap_or_else(|| "(end of file)".to_owned())
                };
                return format!(
                    ", line {number}:\n    was: {}\n    now: {}",
                    clip(a),
                    clip(b)
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_lines_give_outcomes() {
        assert_eq!(
            outcome("test basics::a_text_turn ... ok"),
            Some(("basics::a_text_turn".to_owned(), true))
        );
        assert_eq!(
            outcome("test control::interrupt ... FAILED"),
            Some(("control::interrupt".to_owned(), false))
        );
        assert_eq!(outcome("test result: ok. 23 passed; 0 failed"), None);
        assert_eq!(outcome("running 23 tests"), None);
    }

    #[test]
    fn the_generations_are_the_recorded_ones_newest_first() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace");
        let recorded: std::collections::BTreeSet<String> = std::fs::read_dir(fixtures_dir(root))
            .expect("the recordings")
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().to_string_lossy().into_owned();
                name.strip_prefix("claude-").map(str::to_owned)
            })
            .collect();
        let generations = GENERATIONS.iter().map(|v| (*v).to_owned()).collect();
        assert_eq!(
            recorded, generations,
            "a directory per generation, no other"
        );
        assert!(GENERATIONS.contains(&crate::install::PINNED_CLI_VERSION));
        let versions: Vec<_> = GENERATIONS
            .iter()
            .map(|v| crate::install::parse_version(v).expect("a version"))
            .collect();
        let mut newest_first = versions.clone();
        newest_first.sort_by(|a, b| b.cmp(a));
        assert_eq!(versions, newest_first);
    }

    #[test]
    fn frames_in_another_order_are_alike_and_other_frames_are_not() {
        let meta = r#"{"dir":"meta","t":0,"cli":"/cli/claude","argv":[],"env":{}}"#;
        let recording = |frames: &[&str]| {
            let mut text = format!("{meta}\n");
            for (i, frame) in frames.iter().enumerate() {
                let (dir, msg) = frame.split_once(' ').unwrap();
                text.push_str(&format!(
                    "{{\"dir\":\"{dir}\",\"t\":{:.3},\"msg\":{msg}}}\n",
                    (i + 1) as f64 / 1000.0
                ));
            }
            text
        };
        let old = recording(&["in {\"a\":1}", "out {\"b\":1}", "out {\"c\":1}"]);
        assert_eq!(likeness(&old, &old), Likeness::Same);
        let interleaved = recording(&["out {\"b\":1}", "in {\"a\":1}", "out {\"c\":1}"]);
        assert_eq!(likeness(&old, &interleaved), Likeness::Reordered);
        let swapped = recording(&["in {\"a\":1}", "out {\"c\":1}", "out {\"b\":1}"]);
        assert_eq!(likeness(&old, &swapped), Likeness::Reordered);
        let changed = recording(&["in {\"a\":1}", "out {\"b\":2}", "out {\"c\":1}"]);
        assert_eq!(likeness(&old, &changed), Likeness::Different);
        let longer = recording(&[
            "in {\"a\":1}",
            "out {\"b\":1}",
            "out {\"c\":1}",
            "out {\"c\":1}",
        ]);
        assert_eq!(likeness(&old, &longer), Likeness::Different);
    }

    #[test]
    fn a_result_with_other_cost_tallies_is_alike_and_other_changes_to_it_are_not() {
        let meta = r#"{"dir":"meta","t":0,"cli":"/cli/claude","argv":[],"env":{}}"#;
        let result = |cost: &str, turns: u32| {
            format!(
                "{meta}\n{{\"dir\":\"out\",\"t\":0.001,\"msg\":{{\"type\":\"result\",\
                 \"num_turns\":{turns},\"total_cost_usd\":{cost},\"modelUsage\":{{\"m\":\
                 {{\"costUSD\":{cost}}}}}}}}}\n"
            )
        };
        let old = result("0.0016", 1);
        assert_eq!(likeness(&old, &result("0.0002", 1)), Likeness::Tallied);
        assert_eq!(likeness(&old, &result("0.0002", 2)), Likeness::Different);
        let other = old.replace("\"result\"", "\"assistant\"");
        assert_eq!(
            likeness(&other, &other.replace("0.0016", "0.0002")),
            Likeness::Different
        );
        let id = |n: u32| format!("00000000-0000-4000-8000-{n:012}");
        let ids = format!(
            "{meta}\n{{\"dir\":\"out\",\"t\":0.001,\"msg\":{{\"a\":\"{}\"}}}}\n",
            id(1)
        );
        assert_eq!(
            likeness(&ids, &ids.replace(&id(1), &id(2))),
            Likeness::Renumbered
        );
        assert_eq!(
            likeness(&ids, &ids.replace("\"a\"", "\"b\"")),
            Likeness::Different
        );
    }

    #[test]
    fn a_listed_difference_that_passes_is_an_error() {
        let run = Run {
            version: "1.0.0".to_owned(),
            outcomes: [("a".to_owned(), true), ("b".to_owned(), false)].into(),
            seconds: 1.0,
            recordings: BTreeMap::new(),
        };
        let listed = |names: &[&str]| -> BTreeMap<String, String> {
            names
                .iter()
                .map(|n| (n.to_string(), "why".to_owned()))
                .collect()
        };
        assert!(run.check(&listed(&["b"])).is_ok());
        let racy: BTreeMap<String, String> = [
            ("a".to_owned(), format!("{RACE}sometimes late")),
            ("b".to_owned(), "why".to_owned()),
        ]
        .into();
        assert!(run.check(&racy).is_ok(), "a race may pass");
        assert!(run.check(&listed(&[])).is_err(), "an unlisted failure");
        assert!(run.check(&listed(&["a", "b"])).is_err(), "a stale entry");
        assert!(
            run.check(&listed(&["b", "c"])).is_err(),
            "a listed scenario that did not run"
        );
    }
}
