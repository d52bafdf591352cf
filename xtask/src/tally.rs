//! What `cargo xtask test` ran, counted from libtest's own `test result:` lines and the suites'
//! outcomes, and the one line that ends the run: what ran, what passed, what differs as
//! listed, what was skipped, and how long it took.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// The counts of the run so far.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    /// Scenarios that differ as `differences.json` lists them.
    pub listed: u64,
    /// Tests marked `#[ignore]`.
    pub ignored: u64,
    /// The steps that ran, in order (`workspace`, `conformance 2.1.330`, `package`, …).
    pub steps: Vec<String>,
    /// The steps left out (`--quick`).
    pub skipped: Vec<String>,
}

static COUNTS: Mutex<Option<Counts>> = Mutex::new(None);

fn with<T>(change: impl FnOnce(&mut Counts) -> T) -> T {
    let mut counts = COUNTS.lock().unwrap_or_else(|e| e.into_inner());
    change(counts.get_or_insert_with(Counts::default))
}

/// Notes a step that ran.
pub fn step(name: impl Into<String>) {
    let name = name.into();
    with(|counts| counts.steps.push(name));
}

/// Notes steps left out.
pub fn skipped(names: &[&str]) {
    with(|counts| {
        counts
            .skipped
            .extend(names.iter().map(|name| (*name).to_owned()))
    });
}

/// Adds a suite's outcomes counted elsewhere (the conformance suite's, its listed differences
/// apart).
pub fn add(passed: u64, failed: u64, listed: u64) {
    with(|counts| {
        counts.passed += passed;
        counts.failed += failed;
        counts.listed += listed;
    });
}

/// Counts one line of libtest's output, if it is a `test result:` line.
pub fn observe(line: &str) {
    if let Some(result) = parse_result(line) {
        with(|counts| {
            counts.passed += result.passed;
            counts.failed += result.failed;
            counts.ignored += result.ignored;
        });
    }
}

/// Runs `command` (a `cargo test`, called `name` in the summary) with its stdout echoed and
/// counted; an error if it fails.
pub fn run(name: &str, command: &mut Command) -> Result<()> {
    step(name);
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {command:?}"))?;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.context("reading the tests' output")?;
            println!("{line}");
            observe(&line);
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("{name}: {command:?} failed: {status}");
    }
    Ok(())
}

/// The closing line: `cargo xtask test: ok. 1222 passed; 0 failed; 100 listed; 3 ignored; ran
/// …; skipped …; in 73m 12s; target/ 12.3 GB`, or `FAILED` with the same counts.
pub fn summary(ok: bool, elapsed: Duration, target_bytes: u64) -> String {
    summary_of(&with(|counts| counts.clone()), ok, elapsed, target_bytes)
}

fn summary_of(counts: &Counts, ok: bool, elapsed: Duration, target_bytes: u64) -> String {
    let mut line = format!(
        "cargo xtask test: {}. {} passed; {} failed; {} listed; {} ignored; ran {}",
        if ok { "ok" } else { "FAILED" },
        counts.passed,
        counts.failed,
        counts.listed,
        counts.ignored,
        if counts.steps.is_empty() {
            "nothing".to_owned()
        } else {
            counts.steps.join(", ")
        }
    );
    if !counts.skipped.is_empty() {
        line.push_str(&format!("; skipped {}", counts.skipped.join(", ")));
    }
    line.push_str(&format!(
        "; in {}; target/ {}",
        minutes(elapsed),
        crate::disk::gigabytes(target_bytes)
    ));
    line
}

/// `4m 05s`, `1h 13m 02s`.
pub fn minutes(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}h {minutes:02}m {seconds:02}s")
    } else {
        format!("{minutes}m {seconds:02}s")
    }
}

/// What a `test result:` line counts.
#[derive(Debug, Default, PartialEq, Eq)]
struct Outcome {
    passed: u64,
    failed: u64,
    ignored: u64,
}

/// `test result: ok. 23 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in
/// 0.01s` → its counts.
fn parse_result(line: &str) -> Option<Outcome> {
    let rest = line.trim_start().strip_prefix("test result: ")?;
    let (_, counts) = rest.split_once(". ")?;
    let mut result = Outcome::default();
    for part in counts.split(';') {
        let mut words = part.split_whitespace();
        let (Some(number), Some(what)) = (words.next(), words.next()) else {
            continue;
        };
        let Ok(number) = number.parse::<u64>() else {
            continue;
        };
        match what {
            "passed" => result.passed = number,
            "failed" => result.failed = number,
            "ignored" => result.ignored = number,
            _ => {}
        }
    }
    Some(result)
}

/// Records the start of the run (for [`summary`]'s time).
pub fn started() -> Instant {
    with(|counts| *counts = Counts::default());
    Instant::now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_result_lines_are_counted() {
        assert_eq!(
            parse_result(
                "test result: ok. 23 passed; 1 failed; 2 ignored; 0 measured; 5 filtered out; \
                 finished in 0.01s"
            ),
            Some(Outcome {
                passed: 23,
                failed: 1,
                ignored: 2
            })
        );
        assert_eq!(
            parse_result("test result: FAILED. 0 passed; 3 failed; 0 ignored"),
            Some(Outcome {
                passed: 0,
                failed: 3,
                ignored: 0
            })
        );
        assert_eq!(parse_result("test a::b ... ok"), None);
        assert_eq!(parse_result("running 3 tests"), None);
    }

    #[test]
    fn the_summary_says_what_ran_passed_differed_and_was_skipped() {
        let counts = Counts {
            passed: 1222,
            failed: 0,
            listed: 100,
            ignored: 3,
            steps: vec!["workspace".to_owned(), "conformance 2.1.330".to_owned()],
            skipped: vec!["package".to_owned()],
        };
        assert_eq!(
            summary_of(&counts, true, Duration::from_secs(4382), 12_345_000_000),
            "cargo xtask test: ok. 1222 passed; 0 failed; 100 listed; 3 ignored; ran workspace, \
             conformance 2.1.330; skipped package; in 1h 13m 02s; target/ 12.3 GB"
        );
        assert!(
            summary_of(&counts, false, Duration::ZERO, 0).starts_with("cargo xtask test: FAILED.")
        );
    }

    #[test]
    fn durations_read_as_minutes() {
        assert_eq!(minutes(Duration::from_secs(245)), "4m 05s");
        assert_eq!(minutes(Duration::from_secs(4382)), "1h 13m 02s");
    }
}
