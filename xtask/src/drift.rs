//! `cargo xtask drift --version X`: what a CLI build says that the typed schema does not know.
//!
//! Installs CLI X, runs the conformance scenarios against it through `twinwire tap`, and runs
//! `twinwire check --coverage` over those recordings and over the committed recordings of the
//! pinned CLI. It prints what X has that the schema does not type: unknown message kinds and
//! control subtypes, hook events the schema does not name, and fields kept only in `extra` maps
//! or as raw JSON, each with its count and marked `new` when the pinned CLI's recordings do not
//! have it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::conformance;
use crate::install::{install_claude, PINNED_CLI_VERSION};
use crate::sdks;

/// Runs the drift report for `version`.
pub fn drift(root: &Path, version: &str, tap: &Path) -> Result<()> {
    let claude = install_claude(version)?;
    let suite = conformance::run_suite(root, &claude, version, tap)?;
    let passed = suite.outcomes.values().filter(|&&passed| passed).count();
    let dir = sdks::target_dir(root)
        .join("drift")
        .join(format!("claude-{version}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    for (name, text) in &suite.recordings {
        std::fs::write(dir.join(name), text)?;
    }
    let new = coverage(tap, &dir)?;
    let pinned = coverage(
        tap,
        &conformance::fixtures_dir(root).join(format!("claude-{PINNED_CLI_VERSION}")),
    )?;
    println!(
        "drift of claude {version} against the schema (pinned: {PINNED_CLI_VERSION}); {} \
         scenarios, {passed} passed; {} recordings in {}",
        suite.outcomes.len(),
        suite.recordings.len(),
        dir.display()
    );
    let counts = |report: &Value| -> BTreeMap<String, u64> {
        report["counts"]
            .as_object()
            .map(|map| {
                map.iter()
                    .map(|(kind, count)| (kind.clone(), count.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default()
    };
    section(
        "kinds and control subtypes not in the pinned CLI's recordings",
        &counts(&new)
            .into_iter()
            .filter(|(kind, _)| !counts(&pinned).contains_key(kind))
            .collect(),
        &BTreeMap::new(),
    );
    let findings = |report: &Value, key: &str| -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for finding in report[key].as_array().into_iter().flatten() {
            let kind = finding["kind"].as_str().unwrap_or("?").to_owned();
            *out.entry(kind).or_default() += 1;
        }
        out
    };
    for (key, title) in [
        ("unknown_listed", "unknown kinds the TypeScript SDK lists"),
        ("unknown_unlisted", "unknown kinds nobody lists"),
        ("errors", "frames that did not read cleanly"),
    ] {
        section(title, &findings(&new, key), &findings(&pinned, key));
    }
    let map = |report: &Value, key: &str| -> BTreeMap<String, u64> {
        report["coverage"][key]
            .as_object()
            .map(|map| {
                map.iter()
                    .map(|(name, count)| (name.clone(), count.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default()
    };
    section(
        "hook events (? = not in the schema)",
        &map(&new, "hook_events"),
        &map(&pinned, "hook_events"),
    );
    section(
        "fields kept untyped (extra maps or raw JSON)",
        &map(&new, "untyped_fields"),
        &map(&pinned, "untyped_fields"),
    );
    Ok(())
}

/// `twinwire check --coverage --json` of `dir`.
fn coverage(tap: &Path, dir: &Path) -> Result<Value> {
    let output = Command::new(tap)
        .args(["check", "--coverage", "--json"])
        .arg(dir)
        .output()
        .with_context(|| format!("running {} check", tap.display()))?;
    serde_json::from_slice(&output.stdout)
        .with_context(|| format!("reading the check report of {}", dir.display()))
}

/// Prints `title` and each entry with its count, `new` when `baseline` lacks it.
fn section(title: &str, entries: &BTreeMap<String, u64>, baseline: &BTreeMap<String, u64>) {
    let new = entries
        .keys()
        .filter(|name| !baseline.contains_key(*name))
        .count();
    println!("\n{title}: {} ({new} new)", entries.len());
    for (name, count) in entries {
        let mark = if baseline.contains_key(name) {
            ""
        } else {
            "  new"
        };
        println!("  {name:<76} {count:>6}{mark}");
    }
}
