//! `Grep`: a regular expression searched as Claude Code searches with ripgrep (hidden files
//! included, ignore files not applied), with ripgrep's own crates: the tree walked by
//! `ignore` (`type` filters by file type, `glob` by path), each file searched by
//! `grep-searcher` with a `grep-regex` matcher. Results as Claude Code gives them: files
//! newest first (`Found N files`), lines as `path:N:text` (context `path-N-text`, no group
//! separators, no path for a single file), counts per file with a total; paths relative to
//! the working directory; 250 entries unless `head_limit` says otherwise, with a note of the
//! page shown.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use futures::future::BoxFuture;
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde_json::{json, Value};

use super::glob::{rg_error, shown, walker, REJECTED};
use super::{schema, Tool, ToolContext, ToolOutput};

/// Entries shown when `head_limit` is not given.
const DEFAULT_HEAD: usize = 250;

/// The most lines collected from one search (whatever the page asked).
const MAX_COLLECTED: usize = 100_000;

/// The `Grep` tool.
pub struct Grep;

impl Tool for Grep {
    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> String {
        "Searches the contents of files with a regular expression, as ripgrep does (its regex \
         syntax: escape braces, as in `interface\\{\\}`).\n\n- Use it for every content search; \
         do not run grep or rg through Bash.\n- output_mode: \"files_with_matches\" (the \
         default) lists the files, \"content\" shows the matching lines (with -A, -B, -C and \
         -n), \"count\" the matches per file.\n- Narrow the search with glob (\"*.js\", \
         \"**/*.tsx\") or type (\"js\", \"py\", \"rust\").\n- Patterns match within a line \
         unless multiline is true.\n- head_limit and offset page through long results."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::grep().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::grep().check("Grep", input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || grep(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::failure(format!("Grep failed: {err}")))
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Content,
    Files,
    Count,
}

fn number(input: &Value, field: &str) -> Option<usize> {
    input[field].as_f64().map(|f| f.max(0.0) as usize)
}

fn flag(input: &Value, field: &str) -> Option<bool> {
    input[field].as_bool()
}

fn grep(input: &Value, cx: &ToolContext) -> ToolOutput {
    let mode = match input["output_mode"].as_str() {
        Some("content") => Mode::Content,
        Some("count") => Mode::Count,
        _ => Mode::Files,
    };
    let pattern = input["pattern"].as_str().unwrap_or_default();
    let multiline = flag(input, "multiline").unwrap_or(false);
    let cwd = cx.workspace.shell_cwd();
    let root = match input["path"].as_str().filter(|p| !p.is_empty()) {
        Some(path) => cx.workspace.resolve(path),
        None => cwd.clone(),
    };
    if !root.exists() {
        return ToolOutput::failure(format!(
            "Path does not exist: {}. Note: your current working directory is {}.",
            root.display(),
            cwd.display()
        ));
    }
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(flag(input, "-i").unwrap_or(false))
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .build(pattern)
    {
        Ok(matcher) => matcher,
        Err(_) => {
            let why = regex::Regex::new(&format!("(?:{pattern})"))
                .err()
                .map_or_else(|| "regex parse error".to_owned(), |err| err.to_string());
            return ToolOutput::failure(format!("{REJECTED}\nrg: {why}"));
        }
    };
    let files = match files(&root, &cwd, input) {
        Ok(files) => files,
        Err(why) => return ToolOutput::failure(format!("{REJECTED}\nrg: {why}")),
    };
    let single = root.is_file();
    let context = number(input, "context").or(number(input, "-C"));
    let before = number(input, "-B").or(context).unwrap_or(0);
    let after = number(input, "-A").or(context).unwrap_or(0);
    let content = mode == Mode::Content;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .multi_line(multiline)
        .binary_detection(BinaryDetection::quit(0))
        .before_context(if content { before } else { 0 })
        .after_context(if content { after } else { 0 })
        .build();
    let options = Lines {
        numbers: flag(input, "-n").unwrap_or(true),
        only_matching: flag(input, "-o").unwrap_or(false),
    };
    let mut lines: Vec<String> = Vec::new();
    let mut matched: Vec<(SystemTime, PathBuf, u64)> = Vec::new();
    for path in files {
        if cx.cancel.is_cancelled() || lines.len() >= MAX_COLLECTED {
            break;
        }
        let prefix = (!single).then(|| shown(&path, &cwd));
        let mut sink = Collect {
            prefix: prefix.as_deref(),
            matcher: &matcher,
            content,
            options,
            lines: Vec::new(),
            count: 0,
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
            matched.push((modified, path.clone(), count));
        }
    }
    let offset = number(input, "offset").unwrap_or(0);
    let head = match number(input, "head_limit") {
        Some(0) => usize::MAX,
        Some(n) => n,
        None => DEFAULT_HEAD,
    };
    let page = |items: Vec<String>| -> (Vec<String>, String) {
        let total = items.len();
        let shown: Vec<String> = items.into_iter().skip(offset).take(head).collect();
        let mut parts = Vec::new();
        if offset + shown.len() < total {
            parts.push(format!("limit: {head}"));
        }
        if offset > 0 {
            parts.push(format!("offset: {offset}"));
        }
        let note = if parts.is_empty() {
            String::new()
        } else {
            format!(
                "\n\n[Showing results with pagination = {}]",
                parts.join(", ")
            )
        };
        (shown, note)
    };
    let plural = |n: usize| if n == 1 { "file" } else { "files" };
    let (text, result) = match mode {
        Mode::Content => {
            let (shown_lines, note) = page(lines);
            let text = if shown_lines.is_empty() {
                "No matches found".to_owned()
            } else {
                format!("{}{note}", shown_lines.join("\n"))
            };
            let result = json!({"mode": "content", "numFiles": matched.len(),
                                "numLines": shown_lines.len(), "content": shown_lines.join("\n")});
            (text, result)
        }
        Mode::Files => {
            matched.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let names: Vec<String> = matched.iter().map(|(_, p, _)| shown(p, &cwd)).collect();
            let total = names.len();
            let (shown_names, _) = page(names);
            // The page is said on the first line here, as Claude Code says it.
            let mut paged = Vec::new();
            if offset + shown_names.len() < total {
                paged.push(format!("limit: {head}"));
            }
            if offset > 0 {
                paged.push(format!("offset: {offset}"));
            }
            let paged = if paged.is_empty() {
                String::new()
            } else {
                format!(" {}", paged.join(", "))
            };
            let text = if shown_names.is_empty() {
                "No files found".to_owned()
            } else {
                format!(
                    "Found {} {}{paged}\n{}",
                    shown_names.len(),
                    plural(shown_names.len()),
                    shown_names.join("\n")
                )
            };
            (
                text,
                json!({"mode": "files_with_matches", "numFiles": total, "filenames": shown_names}),
            )
        }
        Mode::Count => {
            matched.sort_by(|a, b| a.1.cmp(&b.1));
            let counts: Vec<(String, u64)> = matched
                .iter()
                // Counts name their file even when the search is of one file.
                .map(|(_, p, n)| (format!("{}:{n}", shown(p, &cwd)), *n))
                .collect();
            let shown_counts: Vec<(String, u64)> =
                counts.iter().skip(offset).take(head).cloned().collect();
            let (_, note) = page(counts.iter().map(|(line, _)| line.clone()).collect());
            let total: u64 = shown_counts.iter().map(|(_, n)| n).sum();
            let files = shown_counts.len();
            let listing = if shown_counts.is_empty() {
                "No matches found".to_owned()
            } else {
                shown_counts
                    .iter()
                    .map(|(line, _)| line.clone())
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let text = format!(
                "{listing}\n\nFound {total} total {} across {files} {}.{note}",
                if total == 1 {
                    "occurrence"
                } else {
                    "occurrences"
                },
                plural(files)
            );
            (
                text,
                json!({"mode": "count", "numFiles": files, "numMatches": total}),
            )
        }
    };
    ToolOutput::success(text, result)
}

/// The files to search: `root` itself, or the files under it that the filters keep, in path
/// order.
fn files(root: &Path, cwd: &Path, input: &Value) -> Result<Vec<PathBuf>, String> {
    if root.is_file() {
        return Ok(vec![root.to_owned()]);
    }
    let mut builder = walker(root);
    if let Some(kind) = input["type"].as_str().filter(|k| !k.is_empty()) {
        let mut types = ignore::types::TypesBuilder::new();
        types.add_defaults();
        if !types.definitions().iter().any(|d| d.name() == kind) {
            return Err(format!("unrecognized file type: {kind}"));
        }
        types.select(kind);
        builder.types(types.build().map_err(|err| err.to_string())?);
    }
    if let Some(glob) = input["glob"].as_str().filter(|g| !g.is_empty()) {
        let mut overrides = ignore::overrides::OverrideBuilder::new(cwd);
        for part in split_globs(glob) {
            overrides.add(&part).map_err(|err| rg_error(&err))?;
        }
        builder.overrides(overrides.build().map_err(|err| rg_error(&err))?);
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

/// A `glob` value split into ripgrep's globs: at spaces, and at commas outside braces.
fn split_globs(glob: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in glob.chars() {
        match c {
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            c if c.is_whitespace() => parts.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    parts.push(current);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// How lines are written.
#[derive(Clone, Copy)]
struct Lines {
    numbers: bool,
    only_matching: bool,
}

/// Collects one file's output lines as ripgrep prints them.
struct Collect<'a> {
    prefix: Option<&'a str>,
    matcher: &'a RegexMatcher,
    content: bool,
    options: Lines,
    lines: Vec<String>,
    count: u64,
}

impl Collect<'_> {
    fn line(&self, number: Option<u64>, text: &str, separator: char) -> String {
        let mut out = String::new();
        if let Some(prefix) = self.prefix {
            out.push_str(prefix);
            out.push(separator);
        }
        if let (true, Some(n)) = (self.options.numbers, number) {
            out.push_str(&n.to_string());
            out.push(separator);
        }
        out.push_str(text);
        out
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        if !self.content {
            return Ok(true);
        }
        let first = found.line_number();
        let bytes = found.bytes();
        if self.options.only_matching {
            let _ = self.matcher.find_iter(bytes, |m| {
                let part = String::from_utf8_lossy(&bytes[m]);
                if !part.is_empty() {
                    let line = first.map(|n| {
                        n + bytes[..m.start()].iter().filter(|b| **b == b'\n').count() as u64
                    });
                    self.lines.push(self.line(line, &part, ':'));
                }
                true
            });
            return Ok(true);
        }
        let text = String::from_utf8_lossy(bytes);
        for (i, line) in text.trim_end_matches('\n').split('\n').enumerate() {
            let number = first.map(|n| n + i as u64);
            let line = line.trim_end_matches('\r');
            self.lines.push(self.line(number, line, ':'));
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if self.content && !self.options.only_matching {
            let text = String::from_utf8_lossy(context.bytes());
            let text = text.trim_end_matches(['\n', '\r']);
            self.lines.push(self.line(context.line_number(), text, '-'));
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_split_at_spaces_and_commas_outside_braces() {
        assert_eq!(split_globs("*.{ts,tsx}"), ["*.{ts,tsx}"]);
        assert_eq!(split_globs("*.rs, *.toml"), ["*.rs", "*.toml"]);
    }
}
