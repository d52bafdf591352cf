//! Fidelity: twinwire-agent's tools against Claude Code's, step by step.
//!
//! A scripted model (`twinwire model-server`) plays the same tool calls to the pinned Claude
//! Code CLI and to twinwire-agent, each in an identical fresh tree; each step's tool results
//! (text and `is_error`), whatever came with them (reminders, job notices) and the step's
//! effect on the tree are compared after paths, ids and times are normalized. The real CLI is
//! the judge: nothing here is recorded from it.
//!
//! Every step that differs must be listed in `differences.json` with its reason, and every
//! listed step must still differ (a listed step that has become identical is a failure too:
//! the list is stale).
//!
//! Environment:
//! - `TWINWIRE_FIDELITY=all`: every case (`cargo xtask fidelity`); otherwise the bounded
//!   subset `cargo xtask test` runs.
//! - `TWINWIRE_FIDELITY_CASES=a,b`: only the cases whose names contain one of these.
//! - `TWINWIRE_FIDELITY_REPORT=FILE`: write the report (markdown) there.
//! - `TWINWIRE_FIDELITY_SHOW=1`: print every step of both sides, not only the failures.
//! - `TWINWIRE_FIDELITY_DUMP=DIR`: write each step of both sides, whole, as JSON there.
//! - `TWINWIRE_FIDELITY_CLAUDE`: the CLI to judge by (default: Claude Code 2.1.332 from
//!   twinwire's cache, where `cargo xtask install-claude --version 2.1.332` puts it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod case;
mod cases;
mod compare;
mod normalize;
mod report;
mod request;
mod run;
mod tree;
mod web;

use std::collections::BTreeMap;
use std::path::PathBuf;

use futures::StreamExt;

use case::Case;
use compare::{observe, show, verdict, Verdict};
use run::{play, Cli};

/// The Claude Code version the agent is held to.
const JUDGE_VERSION: &str = "2.1.332";

/// Cases played at once (each starts both CLIs).
const JOBS: usize = 3;

/// One compared step.
#[derive(Debug, Clone)]
pub struct StepOutcome {
    /// The case's name.
    pub case: String,
    /// The tool the case is about (or the first request's aspects).
    pub tool: String,
    /// The step, `t.s`, or the aspect, `shape:…`.
    pub label: String,
    /// How the two sides compare.
    pub verdict: Verdict,
    /// Both sides, for a failure message and the report.
    pub detail: String,
    /// Neither CLI got to the step: the case itself is broken.
    pub broken: bool,
}

fn judge() -> PathBuf {
    if let Some(path) = std::env::var_os("TWINWIRE_FIDELITY_CLAUDE").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let path = twinwire::host::process::pinned_cli_dir(JUDGE_VERSION)
        .expect("a cache directory (HOME or TWINWIRE_CACHE_DIR)")
        .join("claude");
    assert!(
        path.is_file(),
        "Claude Code {JUDGE_VERSION} is not installed at {}: run `cargo xtask install-claude \
         --version {JUDGE_VERSION}` (`cargo xtask test` does it), or set \
         TWINWIRE_FIDELITY_CLAUDE",
        path.display()
    );
    path
}

fn selected() -> Vec<Case> {
    let all = std::env::var("TWINWIRE_FIDELITY").is_ok_and(|v| v == "all");
    let filters: Vec<String> = std::env::var("TWINWIRE_FIDELITY_CASES")
        .unwrap_or_default()
        .split(',')
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .collect();
    cases::all()
        .into_iter()
        .filter(|case| all || case.quick || !filters.is_empty())
        .filter(|case| filters.is_empty() || filters.iter().any(|f| case.name.contains(f)))
        .collect()
}

/// The listed differences: `case step` → why.
fn listed() -> BTreeMap<String, String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fidelity/differences.json"
    );
    let text = std::fs::read_to_string(path).expect("differences.json");
    serde_json::from_str(&text).expect("differences.json: an object of step → reason")
}

async fn compare_case(case: Case, claude: Cli, agent: Cli) -> Vec<StepOutcome> {
    let (real, ours) = tokio::join!(play(&case, &claude), play(&case, &agent));
    if let Some(dir) = std::env::var_os("TWINWIRE_FIDELITY_DUMP") {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        for (side, run) in [("claude", &real), ("agent", &ours)] {
            let name = format!("{}-requests-{side}.json", case.name.replace('/', "-"));
            let _ = std::fs::write(
                dir.join(name),
                serde_json::to_string_pretty(&run.recorded).unwrap_or_default(),
            );
        }
    }
    let verbose = std::env::var_os("TWINWIRE_FIDELITY_SHOW").is_some();
    let mut outcomes = Vec::new();
    for (label, _) in case.labelled_steps() {
        let (a, b) = (observe(&real, &label), observe(&ours, &label));
        let verdict = verdict(&a, &b);
        let mut detail = show(&a, &b);
        let broken = a.missing.is_some() && b.missing.is_some();
        if broken {
            detail.push_str(&format!(
                "    claude stderr: {}\n    agent stderr: {}\n",
                real.stderr, ours.stderr
            ));
        }
        if let Some(dir) = std::env::var_os("TWINWIRE_FIDELITY_DUMP") {
            let dir = PathBuf::from(dir);
            let _ = std::fs::create_dir_all(&dir);
            let name = format!("{}-{label}.json", case.name.replace('/', "-"));
            let raw = |run: &run::Run| run::after_step(run, &label).map(|(_, after)| after);
            let dump = serde_json::json!({"claude": format!("{a:#?}"), "agent": format!("{b:#?}"),
                "claude_raw": raw(&real), "agent_raw": raw(&ours),
                "claude_results": a.results, "agent_results": b.results,
                "claude_extra": a.extra, "agent_extra": b.extra});
            let _ = std::fs::write(dir.join(name), serde_json::to_string_pretty(&dump).unwrap());
        }
        if verbose {
            eprintln!("{} {label}: {}\n{detail}", case.name, verdict.word());
        }
        outcomes.push(StepOutcome {
            case: case.name.clone(),
            tool: case.tool.clone(),
            label,
            verdict,
            detail,
            broken,
        });
    }
    if case.shape {
        let first = |run: &run::Run| run::first_request(run).map(request::aspects);
        match (first(&real), first(&ours)) {
            (Some(a), Some(b)) => {
                for ((aspect, claude), (_, agent)) in a.iter().zip(&b) {
                    let same = request::agree(aspect, claude, agent);
                    outcomes.push(StepOutcome {
                        case: case.name.clone(),
                        tool: SHAPE.to_owned(),
                        label: format!("shape:{}", aspect.replace(' ', "-")),
                        verdict: if same {
                            Verdict::Identical
                        } else {
                            Verdict::Format
                        },
                        detail: format!("    claude | {claude}\n    agent  | {agent}\n"),
                        broken: false,
                    });
                }
            }
            _ => outcomes.push(StepOutcome {
                case: case.name.clone(),
                tool: SHAPE.to_owned(),
                label: "shape".to_owned(),
                verdict: Verdict::Error,
                detail: "    no first request to compare\n".to_owned(),
                broken: true,
            }),
        }
    }
    outcomes
}

/// The tool name under which the first request's aspects are reported.
pub const SHAPE: &str = "(first request)";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_agent_s_tools_give_claude_code_s_results() {
    let claude = Cli { path: judge() };
    let agent = Cli {
        path: PathBuf::from(env!("CARGO_BIN_EXE_twinwire-agent")),
    };
    let cases = selected();
    let started = std::time::Instant::now();
    let outcomes: Vec<StepOutcome> = futures::stream::iter(cases.clone())
        .map(|case| compare_case(case, claude.clone(), agent.clone()))
        .buffer_unordered(JOBS)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .flatten()
        .collect();
    let listed = listed();
    let mut problems = Vec::new();
    for outcome in &outcomes {
        let key = format!("{} {}", outcome.case, outcome.label);
        if outcome.broken {
            problems.push(format!("{key}: neither CLI got there\n{}", outcome.detail));
            continue;
        }
        match (outcome.verdict, listed.get(&key)) {
            (Verdict::Identical, None) => {}
            (Verdict::Identical, Some(_)) => problems.push(format!(
                "{key}: listed as a difference but identical now (remove it from differences.json)"
            )),
            (_, Some(_)) => {}
            (verdict, None) => problems.push(format!(
                "{key}: differs ({})\n{}",
                verdict.word(),
                outcome.detail
            )),
        }
    }
    let ran: std::collections::BTreeSet<&str> = outcomes.iter().map(|o| o.case.as_str()).collect();
    let all = std::env::var("TWINWIRE_FIDELITY").is_ok_and(|v| v == "all");
    if all {
        for key in listed.keys() {
            let case = key.rsplit_once(' ').map_or(key.as_str(), |(c, _)| c);
            if !ran.contains(case)
                || !outcomes
                    .iter()
                    .any(|o| format!("{} {}", o.case, o.label) == *key)
            {
                problems.push(format!("{key}: listed but no such step ran"));
            }
        }
    }
    let summary = report::summary(&outcomes, &cases, started.elapsed());
    eprintln!("{summary}");
    if let Some(path) = std::env::var_os("TWINWIRE_FIDELITY_REPORT") {
        report::write(&PathBuf::from(path), &outcomes, &cases, &listed, &summary);
    }
    assert!(
        problems.is_empty(),
        "{} unlisted or stale differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
