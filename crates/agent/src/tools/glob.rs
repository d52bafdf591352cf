//! `Glob`: files whose path under a directory matches a glob, newest first. The tree is
//! walked as ripgrep walks it (the `ignore` crate: `.gitignore`, `.ignore` and hidden files
//! are left out), the glob matched with `globset` (`*` stays inside one directory, `**`
//! crosses them).

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use futures::future::BoxFuture;
use globset::GlobBuilder;
use serde_json::{json, Value};
use twinwire_protocol::tools::GlobInput;

use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// The most paths a result lists.
const MAX_SHOWN: usize = 100;

/// The `Glob` tool.
pub struct Glob;

impl Tool for Glob {
    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> String {
        "Finds files by path pattern (`**/*.rs`, `src/**/test_*.py`) under a directory, \
         newest first. Files ignored by .gitignore and hidden files are left out."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::glob()
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: GlobInput = match typed_input("Glob", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            tokio::task::spawn_blocking(move || glob(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::error(format!("Glob failed: {err}")))
        })
    }
}

fn glob(input: &GlobInput, cx: &ToolContext) -> ToolOutput {
    let started = Instant::now();
    let root = match &input.path {
        Some(path) if !path.is_empty() => cx.workspace.resolve(path),
        _ => cx.workspace.shell_cwd(),
    };
    if !root.is_dir() {
        return ToolOutput::error(format!("Directory does not exist: {}", root.display()));
    }
    let matcher = match GlobBuilder::new(&input.pattern)
        .literal_separator(true)
        .build()
    {
        Ok(glob) => glob.compile_matcher(),
        Err(err) => return ToolOutput::error(format!("Invalid glob {}: {err}", input.pattern)),
    };
    // A pattern may name the directory itself absolutely.
    let absolute = Path::new(&input.pattern).is_absolute();
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    let mut more = false;
    for entry in ignore::WalkBuilder::new(&root).build().flatten() {
        if cx.cancel.is_cancelled() {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let candidate = if absolute {
            path
        } else {
            path.strip_prefix(&root).unwrap_or(path)
        };
        if matcher.is_match(candidate) {
            if found.len() >= cx.workspace.limits.search_results {
                more = true;
                break;
            }
            let modified = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((modified, path.to_owned()));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let truncated = more || found.len() > MAX_SHOWN;
    found.truncate(MAX_SHOWN);
    let names: Vec<String> = found.iter().map(|(_, p)| p.display().to_string()).collect();
    let mut text = if names.is_empty() {
        "No files found".to_owned()
    } else {
        names.join("\n")
    };
    if truncated {
        text.push_str("\n(Results are truncated: use a narrower pattern or path.)");
    }
    ToolOutput::success(
        text,
        json!({"filenames": names, "numFiles": names.len(), "truncated": truncated,
               "durationMs": started.elapsed().as_millis() as u64}),
    )
}
