//! The recordings check against what the CLI's timing changes: a file whose frames differ from
//! the committed one is recorded again, its scenario alone, and taken when that recording is
//! the committed one. A stale recording differs every time and still fails the check; one that
//! varies with the CLI's timing (how much of a slow reply streams before an interrupt lands, a
//! side request that finishes before or after the turn's result, docs/compatibility.md) passes
//! in a few seconds more, instead of a rerun of the whole suite.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;

use crate::conformance::{self, Run};
use crate::peers;
use crate::sdks::Sdks;

/// Times a differing file is recorded again before the check gives up on it.
const ATTEMPTS: usize = 4;

/// Records the scenarios of `run`'s differing files again, up to [`ATTEMPTS`] times, and takes
/// each file that comes out as committed. `sdks`: the peers suite, whose files are recorded
/// again by running it whole (it takes under a minute).
pub fn settle(
    root: &Path,
    run: &mut Run,
    claude: &Path,
    tap: &Path,
    sdks: Option<&Sdks>,
) -> Result<()> {
    for attempt in 1..=ATTEMPTS {
        let differing = run.differing(root)?;
        if differing.is_empty() {
            return Ok(());
        }
        eprintln!(
            "recordings claude {}: {} differ from the committed ones; recording them again \
             (attempt {attempt} of {ATTEMPTS}) in case the CLI's timing changed them: {}",
            run.version,
            differing.len(),
            differing.join(", ")
        );
        let (peers, scenarios): (Vec<&String>, Vec<&String>) = differing
            .iter()
            .partition(|name| name.starts_with("peers."));
        let tests: Vec<String> = scenarios
            .iter()
            .map(|name| test_name(name))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut adopted = Vec::new();
        if !tests.is_empty() {
            let again = conformance::run_scenarios(root, claude, &run.version, tap, &tests)?;
            adopted.extend(run.adopt(&again, &differing, root)?);
        }
        if let (false, Some(sdks)) = (peers.is_empty(), sdks) {
            let kept = conformance::scratch_dir(root, "peers")?;
            peers::run_suite(root, claude, sdks, &kept)?;
            let mut again = Run {
                version: run.version.clone(),
                outcomes: Default::default(),
                seconds: 0.0,
                recordings: Default::default(),
            };
            conformance::add_recordings(&mut again, &kept)?;
            adopted.extend(run.adopt(&again, &differing, root)?);
        }
        eprintln!(
            "recordings claude {}: {} of them as committed this time{}",
            run.version,
            adopted.len(),
            if adopted.is_empty() {
                String::new()
            } else {
                format!(" ({})", adopted.join(", "))
            }
        );
    }
    Ok(())
}

/// The test a conformance recording comes from: `mcp.a_tool_is_called.2.jsonl` →
/// `mcp::a_tool_is_called`.
fn test_name(file: &str) -> String {
    let stem = file.strip_suffix(".jsonl").unwrap_or(file);
    // A scenario that starts more than one CLI: `<scenario>.2`, `<scenario>.3`, ….
    let stem = match stem.rsplit_once('.') {
        Some((scenario, n)) if n.chars().all(|c| c.is_ascii_digit()) => scenario,
        _ => stem,
    };
    match stem.split_once('.') {
        Some((module, scenario)) => format!("{module}::{scenario}"),
        None => stem.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recordings_file_names_its_test() {
        assert_eq!(
            test_name("mcp.an_in_process_tool_is_called.jsonl"),
            "mcp::an_in_process_tool_is_called"
        );
        assert_eq!(
            test_name("sessions.resume_goes_on.2.jsonl"),
            "sessions::resume_goes_on"
        );
    }
}
