//! The workspace's integration test targets, found as Cargo finds them.

use std::path::Path;

use anyhow::{Context, Result};

/// The integration test targets of every package of the workspace.
pub fn workspace_test_targets(root: &Path) -> Result<Vec<String>> {
    let mut targets = Vec::new();
    for member in workspace_members(root)? {
        targets.extend(test_targets(&root.join(member))?);
    }
    targets.sort();
    targets.dedup();
    Ok(targets)
}

/// The `members` of the root Cargo.toml.
fn workspace_members(root: &Path) -> Result<Vec<String>> {
    let manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).context("reading Cargo.toml")?;
    let line = manifest
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("members"))
        .context("no `members = [...]` line in Cargo.toml")?;
    let list = line
        .split_once('[')
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .context("`members` is not a one-line list")?;
    Ok(list
        .split(',')
        .map(|member| member.trim().trim_matches('"').to_owned())
        .filter(|member| !member.is_empty())
        .collect())
}

/// The integration test targets of the package in `package_dir`, as Cargo discovers them
/// (`tests/*.rs` and `tests/*/main.rs`) plus any declared with `[[test]]`.
fn test_targets(package_dir: &Path) -> Result<Vec<String>> {
    let mut targets = Vec::new();
    let tests = package_dir.join("tests");
    if let Ok(entries) = std::fs::read_dir(&tests) {
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() && path.join("main.rs").is_file() {
                targets.push(name);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                targets.push(stem.to_owned());
            }
        }
    }
    let manifest = std::fs::read_to_string(package_dir.join("Cargo.toml"))
        .with_context(|| format!("reading {}", package_dir.join("Cargo.toml").display()))?;
    let mut in_test = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_test = line == "[[test]]";
        } else if in_test {
            if let Some(value) = line.strip_prefix("name").map(str::trim) {
                if let Some(value) = value.strip_prefix('=') {
                    targets.push(value.trim().trim_matches('"').to_owned());
                }
            }
        }
    }
    targets.sort();
    targets.dedup();
    Ok(targets)
}
