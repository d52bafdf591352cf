//! `Grep`: a regular expression searched in a file or a tree, with ripgrep's own crates: the
//! tree walked by `ignore` (`.gitignore`, hidden files left out; `type` filters by file
//! type, `glob` by path), each file searched by `grep-searcher` with a `grep-regex` matcher.
//! Output as ripgrep prints it: `path:line:text` for matches and `path-line-text` for
//! context in `content` mode, the files (newest first) in `files_with_matches`, `path:count`
//! in `count`.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use futures::future::BoxFuture;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde_json::{json, Number, Value};
use twinwire_protocol::tools::GrepInput;

use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// The `Grep` tool.
pub struct Grep;

impl Tool for Grep {
    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> String {
        "Searches file contents with a regular expression, as ripgrep does. `output_mode` \
         `files_with_matches` (default) lists files, `content` shows matching lines (with \
         -A/-B/-C context and -n line numbers), `count` counts per file. Narrow with `glob` \
         or `type`; `head_limit` and `offset` page through results."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::grep()
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: GrepInput = match typed_input("Grep", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            tokio::task::spawn_blocking(move || grep(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::error(format!("Grep failed: {err}")))
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Content,
    Files,
    Count,
}

fn number(value: Option<&Number>) -> Option<usize> {
    value
        .and_then(|n| n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)))
        .and_then(|n| usize::try_from(n).ok())
}

fn grep(input: &GrepInput, cx: &ToolContext) -> ToolOutput {
    let mode = match input.output_mode.as_deref() {
        None | Some("files_with_matches") => Mode::Files,
        Some("content") => Mode::Content,
        Some("count") => Mode::Count,
        Some(other) => return ToolOutput::error(format!("Unknown output_mode {other}")),
    };
    let multiline = input.multiline.unwrap_or(false);
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .build(&input.pattern)
    {
        Ok(matcher) => matcher,
        Err(err) => return ToolOutput::error(format!("Invalid regex {}: {err}", input.pattern)),
    };
    let root = match &input.path {
        Some(path) if !path.is_empty() => cx.workspace.resolve(path),
        _ => cx.workspace.shell_cwd(),
    };
    if !root.exists() {
        return ToolOutput::error(format!("Path does not exist: {}", root.display()));
    }
    let files = match walk(&root, input) {
        Ok(files) => files,
        Err(why) => return ToolOutput::error(why),
    };
    let context = number(input.context_short.as_ref()).or(number(input.context.as_ref()));
    let before = number(input.lines_before.as_ref()).or(context).unwrap_or(0);
    let after = number(input.lines_after.as_ref()).or(context).unwrap_or(0);
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .multi_line(multiline)
        .binary_detection(BinaryDetection::quit(0))
        .before_context(if mode == Mode::Content { before } else { 0 })
        .after_context(if mode == Mode::Content { after } else { 0 })
        .build();
    let line_numbers = input.line_numbers.unwrap_or(true);
    let cap = cx.workspace.limits.search_results;
    let mut lines: Vec<String> = Vec::new();
    let mut matched_files: Vec<(SystemTime, PathBuf, u64)> = Vec::new();
    for path in files {
        if cx.cancel.is_cancelled() || lines.len() >= cap * 10 {
            break;
        }
        let mut sink = Collect {
            path: &path,
            mode,
            line_numbers,
            lines: Vec::new(),
            count: 0,
            last_line: None,
        };
        if searcher.search_path(&matcher, &path, &mut sink).is_err() {
            continue;
        }
        if sink.count > 0 {
            let modified = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            let count = sink.count;
            lines.extend(sink.lines);
            matched_files.push((modified, path.clone(), count));
        }
    }
    let offset = number(input.offset.as_ref()).unwrap_or(0);
    let head = number(input.head_limit.as_ref()).unwrap_or(cap).min(cap);
    let page = |items: Vec<String>| -> (Vec<String>, bool) {
        let total = items.len();
        let shown: Vec<String> = items.into_iter().skip(offset).take(head).collect();
        let more = offset + shown.len() < total;
        (shown, more)
    };
    let num_files = matched_files.len();
    let (text, result) = match mode {
        Mode::Content => {
            let (shown, more) = page(lines);
            let mut text = if shown.is_empty() {
                "No matches found".to_owned()
            } else {
                shown.join("\n")
            };
            if more {
                text.push_str("\n(More lines: raise head_limit or use offset.)");
            }
            let result = json!({"mode": "content", "numFiles": num_files,
                                "numLines": shown.len(), "content": shown.join("\n")});
            (text, result)
        }
        Mode::Files => {
            matched_files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let names: Vec<String> = matched_files
                .iter()
                .map(|(_, p, _)| p.display().to_string())
                .collect();
            let (shown, more) = page(names);
            let mut text = if shown.is_empty() {
                "No files found".to_owned()
            } else {
                format!("Found {} files\n{}", num_files, shown.join("\n"))
            };
            if more {
                text.push_str("\n(More files: raise head_limit or use offset.)");
            }
            (
                text,
                json!({"mode": "files_with_matches", "numFiles": num_files, "filenames": shown}),
            )
        }
        Mode::Count => {
            let counts: Vec<String> = matched_files
                .iter()
                .map(|(_, p, n)| format!("{}:{n}", p.display()))
                .collect();
            let total: u64 = matched_files.iter().map(|(_, _, n)| n).sum();
            let (shown, _) = page(counts);
            let text = if shown.is_empty() {
                "No matches found".to_owned()
            } else {
                format!(
                    "{}\n\nFound {total} total occurrences across {num_files} files.",
                    shown.join("\n")
                )
            };
            (
                text,
                json!({"mode": "count", "numFiles": num_files, "numMatches": total}),
            )
        }
    };
    ToolOutput::success(text, result)
}

/// The files to search: `root` itself, or the files under it that the filters keep.
fn walk(root: &Path, input: &GrepInput) -> Result<Vec<PathBuf>, String> {
    if root.is_file() {
        return Ok(vec![root.to_owned()]);
    }
    let mut builder = ignore::WalkBuilder::new(root);
    if let Some(kind) = input.kind.as_deref().filter(|k| !k.is_empty()) {
        let mut types = ignore::types::TypesBuilder::new();
        types.add_defaults();
        types.select(kind);
        builder.types(
            types
                .build()
                .map_err(|err| format!("Unknown file type {kind}: {err}"))?,
        );
    }
    if let Some(glob) = input.glob.as_deref().filter(|g| !g.is_empty()) {
        let mut overrides = ignore::overrides::OverrideBuilder::new(root);
        for part in glob.split([',', ' ']).filter(|p| !p.is_empty()) {
            overrides
                .add(part)
                .map_err(|err| format!("Invalid glob {part}: {err}"))?;
        }
        builder.overrides(
            overrides
                .build()
                .map_err(|err| format!("Invalid glob {glob}: {err}"))?,
        );
    }
    let mut files: Vec<PathBuf> = builder
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    Ok(files)
}

/// Collects one file's output lines as ripgrep prints them.
struct Collect<'a> {
    path: &'a Path,
    mode: Mode,
    line_numbers: bool,
    lines: Vec<String>,
    count: u64,
    last_line: Option<u64>,
}

impl Collect<'_> {
    fn push(&mut self, line_number: Option<u64>, bytes: &[u8], separator: char) {
        if self.mode != Mode::Content {
            return;
        }
        // A gap between context groups is shown as ripgrep does.
        if let (Some(last), Some(now)) = (self.last_line, line_number) {
            if now > last + 1 {
                self.lines.push("--".to_owned());
            }
        }
        self.last_line = line_number.or(self.last_line);
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let path = self.path.display();
        self.lines.push(match (self.line_numbers, line_number) {
            (true, Some(n)) => format!("{path}{separator}{n}{separator}{text}"),
            _ => format!("{path}{separator}{text}"),
        });
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        self.push(found.line_number(), found.bytes(), ':');
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.push(context.line_number(), context.bytes(), '-');
        Ok(true)
    }
}
