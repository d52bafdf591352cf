//! `Glob`: the files whose path matches a glob, as Claude Code lists them with ripgrep: at
//! any depth for a pattern without a `/` (one with a `/` is matched from the working
//! directory), hidden files included, ignore files not applied, paths relative to the
//! working directory, oldest first, at most 100 with a note of how many more. The tree is
//! walked with ripgrep's own crates (`ignore`, whose overrides are ripgrep's `--glob`).

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{schema, Tool, ToolContext, ToolOutput};

/// The most paths a result lists.
const MAX_SHOWN: usize = 100;

/// The `Glob` tool.
pub struct Glob;

impl Tool for Glob {
    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> String {
        "Finds files by a glob over their paths (\"**/*.rs\", \"src/**/*.ts\"); a pattern \
         without a slash matches names at any depth. Oldest first."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::glob().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::glob().check("Glob", input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || glob(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::failure(format!("Glob failed: {err}")))
        })
    }
}

/// What Claude Code says when ripgrep refuses a search.
pub const REJECTED: &str =
    "Search failed \u{2014} ripgrep rejected the pattern, glob, or file type without searching:";

fn glob(input: &Value, cx: &ToolContext) -> ToolOutput {
    let started = Instant::now();
    let cwd = cx.workspace.shell_cwd();
    let mut pattern = input["pattern"].as_str().unwrap_or_default().to_owned();
    let mut root = match input["path"].as_str().filter(|p| !p.is_empty()) {
        Some(path) => cx.workspace.resolve(path),
        None => cwd.clone(),
    };
    let mut base = cwd.clone();
    if Path::new(&pattern).is_absolute() {
        // An absolute pattern: its fixed part is where to search, the rest what to match.
        let (dir, rest) = split_absolute(&pattern);
        root = dir.clone();
        base = dir;
        pattern = rest;
    }
    if !root.is_dir() {
        return ToolOutput::failure(format!(
            "Directory does not exist: {}. Note: your current working directory is {}.",
            root.display(),
            cwd.display()
        ));
    }
    let mut overrides = ignore::overrides::OverrideBuilder::new(&base);
    if let Err(err) = overrides.add(&pattern) {
        return ToolOutput::failure(format!("{REJECTED}\nrg: {}", rg_error(&err)));
    }
    let overrides = match overrides.build() {
        Ok(overrides) => overrides,
        Err(err) => return ToolOutput::failure(format!("{REJECTED}\nrg: {}", rg_error(&err))),
    };
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in walker(&root).overrides(overrides).build().flatten() {
        if cx.cancel.is_cancelled() {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let modified = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        found.push((modified, entry.into_path()));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let names: Vec<String> = found
        .iter()
        .take(MAX_SHOWN)
        .map(|(_, path)| shown(path, &cwd))
        .collect();
    let mut text = if names.is_empty() {
        "No files found".to_owned()
    } else {
        names.join("\n")
    };
    if total > MAX_SHOWN {
        text.push_str(&format!(
            "\n(Showing {MAX_SHOWN} of {total} matching files; {} more are not listed. Narrow the \
             pattern or path to see the rest.)",
            total - MAX_SHOWN
        ));
    }
    ToolOutput::success(
        text,
        json!({"filenames": names, "numFiles": names.len(), "truncated": total > MAX_SHOWN,
               "durationMs": started.elapsed().as_millis() as u64}),
    )
}

/// A walker over everything ripgrep searches with `--hidden --no-ignore`, version-control
/// folders left out.
pub fn walker(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .ignore(false)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .parents(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|t| t.is_dir())
                && matches!(entry.file_name().to_str(), Some(".git" | ".svn" | ".hg")))
        });
    builder
}

/// A path as the search tools show it: relative to the working directory when inside it.
pub fn shown(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// An `ignore` error in ripgrep's words (`error parsing glob '[': …`).
pub fn rg_error(err: &ignore::Error) -> String {
    match err {
        ignore::Error::Glob {
            glob: Some(glob),
            err,
        } => format!("error parsing glob '{glob}': {err}"),
        ignore::Error::Glob { err, .. } => err.clone(),
        other => other.to_string(),
    }
}

/// `/a/b/**/*.rs` → (`/a/b`, `**/*.rs`).
fn split_absolute(pattern: &str) -> (PathBuf, String) {
    let parts: Vec<&str> = pattern.split('/').collect();
    let fixed = parts
        .iter()
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .count()
        .min(parts.len().saturating_sub(1));
    let dir = parts[..fixed].join("/");
    let dir = if dir.is_empty() { "/".to_owned() } else { dir };
    (PathBuf::from(dir), parts[fixed..].join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absolute_pattern_is_split_where_it_starts_matching() {
        assert_eq!(
            split_absolute("/a/b/**/*.rs"),
            (PathBuf::from("/a/b"), "**/*.rs".to_owned())
        );
        assert_eq!(
            split_absolute("/a/b/c.rs"),
            (PathBuf::from("/a/b"), "c.rs".to_owned())
        );
    }
}
