//! The figures: steps by verdict, overall and per tool, and the report `cargo xtask fidelity`
//! writes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::case::Case;
use crate::compare::Verdict;
use crate::StepOutcome;

const VERDICTS: [Verdict; 4] = [
    Verdict::Identical,
    Verdict::Format,
    Verdict::Effect,
    Verdict::Error,
];

fn count(outcomes: &[&StepOutcome], verdict: Verdict) -> usize {
    outcomes.iter().filter(|o| o.verdict == verdict).count()
}

/// One line of figures (the first request's aspects apart from the tools' steps).
pub fn summary(outcomes: &[StepOutcome], cases: &[Case], took: Duration) -> String {
    let all: Vec<&StepOutcome> = outcomes.iter().filter(|o| o.tool != crate::SHAPE).collect();
    let shape: Vec<&StepOutcome> = outcomes.iter().filter(|o| o.tool == crate::SHAPE).collect();
    let identical = count(&all, Verdict::Identical);
    format!(
        "fidelity: {} cases, {} steps, {} identical ({:.1}%), {} differ in format, {} in effect, \
         {} in error behaviour; the first request: {} of {} aspects alike; in {:.0} s",
        cases.len(),
        all.len(),
        identical,
        100.0 * identical as f64 / all.len().max(1) as f64,
        count(&all, Verdict::Format),
        count(&all, Verdict::Effect),
        count(&all, Verdict::Error),
        count(&shape, Verdict::Identical),
        shape.len(),
        took.as_secs_f64()
    )
}

/// Writes the report: the figures, a table per tool, every difference with its reason.
pub fn write(
    path: &Path,
    outcomes: &[StepOutcome],
    cases: &[Case],
    listed: &BTreeMap<String, String>,
    summary: &str,
) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Fidelity: twinwire-agent against Claude Code {}\n",
        crate::JUDGE_VERSION
    );
    let _ = writeln!(out, "{summary}\n");
    let _ = writeln!(
        out,
        "| tool | cases | steps | identical | format | effect | error behaviour |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    let mut tools: BTreeMap<&str, Vec<&StepOutcome>> = BTreeMap::new();
    for outcome in outcomes {
        tools
            .entry(outcome.tool.as_str())
            .or_default()
            .push(outcome);
    }
    for (tool, steps) in &tools {
        let n = if *tool == crate::SHAPE {
            cases.iter().filter(|c| c.shape).count()
        } else {
            cases.iter().filter(|c| c.tool == *tool).count()
        };
        let _ = write!(out, "| {tool} | {n} | {} ", steps.len());
        for verdict in VERDICTS {
            let _ = write!(out, "| {} ", count(steps, verdict));
        }
        let _ = writeln!(out, "|");
    }
    let _ = writeln!(out, "\n## Listed differences\n");
    for outcome in outcomes.iter().filter(|o| o.verdict != Verdict::Identical) {
        let key = format!("{} {}", outcome.case, outcome.label);
        let why = listed.get(&key).map_or("NOT LISTED", String::as_str);
        let _ = writeln!(out, "- `{key}` ({}): {why}", outcome.verdict.word());
    }
    let _ = writeln!(out, "\n## Every difference in full\n");
    for outcome in outcomes.iter().filter(|o| o.verdict != Verdict::Identical) {
        let _ = writeln!(
            out,
            "### {} {} ({})\n\n```text\n{}```\n",
            outcome.case,
            outcome.label,
            outcome.verdict.word(),
            outcome.detail
        );
    }
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    std::fs::write(path, out).expect("the report is written");
    eprintln!("fidelity: report written to {}", path.display());
}
