//! The peers suite of `cargo xtask test`: the official Python and TypeScript SDKs run their
//! scenario programs (`peers/`) through `twinwire tap` to the real CLI, against `fake-claude`, and
//! against `twinwire replay` (the test target `peers` of `crates/cli`; see docs/peers.md).
//!
//! Each run appends a line to a report file; from it this prints a table of every SDK,
//! scenario and mode with its time, and a summary line.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::sdks::{self, Sdks};
use crate::{run, CLAUDE_PATH_ENV, PEERS_TEST, PYTHON_ENV, TS_SDK_ENV};

/// Scenario runs at once. Each is a few processes (SDK, tap, CLI) that mostly wait on each
/// other; more than this gains nothing on two cores.
const THREADS: &str = "4";

/// The modes, in the order the table shows them.
const MODES: [&str; 5] = ["tap", "fake", "replay", "agent", "coding_agent"];

/// Runs the suite with the real CLI at `claude` and the SDKs in `sdks`, prints the table and
/// the summary, and fails if any run failed. The recordings of the runs through the tap that
/// passed are kept in `record` (see [`crate::conformance`]).
pub fn run_suite(root: &Path, claude: &Path, sdks: &Sdks, record: &Path) -> Result<()> {
    // Build first, so that the time reported is the suite's, not the compiler's.
    // fake-claude, the example agent and twinwire-agent, which the suite's helpers take as
    // they are (see `build`).
    crate::build::all(root)?;
    run(crate::build::workspace(root, "test").args(["--test", PEERS_TEST, "--no-run"]))?;
    let report = sdks::target_dir(root).join("peers-report.jsonl");
    if report.exists() {
        std::fs::remove_file(&report).with_context(|| format!("removing {}", report.display()))?;
    }
    let started = Instant::now();
    let mut child = crate::build::workspace(root, "test")
        .env(crate::build::PREBUILT_ENV, "1")
        .env(CLAUDE_PATH_ENV, claude)
        .env(PYTHON_ENV, &sdks.python)
        .env(TS_SDK_ENV, &sdks.ts_sdk)
        .env("TWINWIRE_PEERS_REPORT", &report)
        .env("TWINWIRE_RECORD_DIR", record)
        .args(["--test", PEERS_TEST, "--", "--test-threads", THREADS])
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the peers suite")?;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.context("reading the peers suite's output")?;
            println!("{line}");
            crate::tally::observe(&line);
        }
    }
    let status = child.wait()?;
    crate::tally::step("peers");
    let elapsed = started.elapsed().as_secs_f64();
    let runs = read_report(&report);
    eprintln!("{}", table(&runs));
    let passed = runs.iter().filter(|r| r.ok).count();
    let sdk_count = runs.iter().map(|r| &r.sdk).collect::<BTreeSet<_>>().len();
    let per_mode: Vec<String> = MODES
        .iter()
        .map(|mode| format!("{} {mode}", runs.iter().filter(|r| r.mode == *mode).count()))
        .collect();
    eprintln!(
        "peers: {} runs of {sdk_count} SDKs ({}) in {elapsed:.1} s ({passed} passed, {} failed)",
        runs.len(),
        per_mode.join(", "),
        runs.len() - passed
    );
    if !status.success() {
        bail!("the peers suite failed: {status}");
    }
    if runs.is_empty() {
        bail!("the peers suite reported no runs in {}", report.display());
    }
    Ok(())
}

/// One line of the report.
#[derive(Debug)]
struct Run {
    sdk: String,
    scenario: String,
    mode: String,
    ok: bool,
    seconds: f64,
}

fn read_report(path: &Path) -> Vec<Run> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .map(|v| Run {
            sdk: v["sdk"].as_str().unwrap_or("?").to_owned(),
            scenario: v["scenario"].as_str().unwrap_or("?").to_owned(),
            mode: v["mode"].as_str().unwrap_or("?").to_owned(),
            ok: v["ok"].as_bool().unwrap_or(false),
            seconds: v["seconds"].as_f64().unwrap_or(0.0),
        })
        .collect()
}

/// One row per SDK and scenario, one column per mode: `ok 2.4 s`, `FAILED 3.0 s`, or `-`
/// when the mode did not report (it panicked before, or was filtered out).
fn table(runs: &[Run]) -> String {
    let mut rows: BTreeMap<(&str, &str), BTreeMap<&str, String>> = BTreeMap::new();
    for run in runs {
        let cell = format!(
            "{} {:.1} s",
            if run.ok { "ok" } else { "FAILED" },
            run.seconds
        );
        rows.entry((&run.sdk, &run.scenario))
            .or_default()
            .insert(&run.mode, cell);
    }
    let row = |sdk: &str, scenario: &str, cells: [&str; MODES.len()]| {
        let cells: Vec<String> = cells.iter().map(|cell| format!("{cell:<14}")).collect();
        let line = format!("{sdk:<8} {scenario:<18} {}", cells.join(" "));
        line.trim_end().to_owned()
    };
    let mut lines = vec![row("sdk", "scenario", MODES)];
    for ((sdk, scenario), cells) in rows {
        let cell = |mode: &str| cells.get(mode).map_or("-", String::as_str);
        lines.push(row(sdk, scenario, MODES.map(cell)));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_cell_per_mode() {
        let run = |mode: &str, ok| Run {
            sdk: "python".into(),
            scenario: "text".into(),
            mode: mode.into(),
            ok,
            seconds: 1.5,
        };
        let table = table(&[run("tap", true), run("replay", false)]);
        let row = table.lines().nth(1).unwrap();
        assert!(row.starts_with("python   text"), "{table}");
        assert!(row.contains("ok 1.5 s"), "{table}");
        assert!(row.contains("FAILED 1.5 s"), "{table}");
        assert!(row.contains(" - "), "{table}");
    }
}
