//! Tool search, as Claude Code does it for MCP tools: a request defines in full the built-in
//! tools, the MCP tools that ask to be always loaded (`_meta["anthropic/alwaysLoad"]`) and
//! those a search has loaded; the other MCP tools are only named (in the system prompt), and
//! the model loads them with the `ToolSearch` tool (`select:<name>,…` or words to look for),
//! after which the next request defines them. `ENABLE_TOOL_SEARCH=false` (or `0`) defines
//! every tool in full. A call to a tool only named still runs.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{json, Value};

use crate::model::ToolDefinition;
use crate::tools::{Registry, Tool, ToolContext, ToolOutput};

/// The tool's name.
pub(crate) const TOOL_SEARCH: &str = "ToolSearch";

/// The most tools one search loads.
const MAX_RESULTS: usize = 20;

/// What tool search knows in a session: the tools only named, and those loaded so far.
#[derive(Default)]
pub(crate) struct Search {
    named: Mutex<Vec<(String, String)>>,
    loaded: Mutex<BTreeSet<String>>,
}

impl Search {
    /// Splits the session's tools for a request: those defined in full, and the names of the
    /// others (none when search is off or nothing is left out).
    pub(crate) fn split(
        &self,
        tools: &Registry,
        always_loaded: &[String],
        enabled: bool,
    ) -> (Vec<ToolDefinition>, Vec<String>) {
        let loaded = lock(&self.loaded).clone();
        let named = |name: &str| {
            enabled
                && name.starts_with("mcp__")
                && !always_loaded.iter().any(|a| a == name)
                && !loaded.contains(name)
        };
        let (mut full, only_named): (Vec<_>, Vec<_>) = tools
            .definitions()
            .into_iter()
            .partition(|tool| !named(&tool.name));
        *lock(&self.named) = only_named
            .iter()
            .map(|tool| (tool.name.clone(), tool.description.clone()))
            .collect();
        if only_named.is_empty() {
            full.retain(|tool| tool.name != TOOL_SEARCH);
        }
        (full, only_named.into_iter().map(|tool| tool.name).collect())
    }

    /// Loads the tools a query picks: `select:<a>,<b>` by name, else by words in their names
    /// and descriptions; their names, best first.
    fn find(&self, query: &str, max: usize) -> Vec<String> {
        let named = lock(&self.named).clone();
        let picked: Vec<String> = match query.trim().strip_prefix("select:") {
            Some(names) => names
                .split(',')
                .map(str::trim)
                .filter(|name| named.iter().any(|(n, _)| n == name))
                .map(str::to_owned)
                .collect(),
            None => {
                let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
                let mut scored: Vec<(usize, &String)> = named
                    .iter()
                    .map(|(name, description)| {
                        let haystack = format!("{name} {description}").to_lowercase();
                        (words.iter().filter(|w| haystack.contains(*w)).count(), name)
                    })
                    .filter(|(score, _)| *score > 0)
                    .collect();
                scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
                scored.into_iter().map(|(_, name)| name.clone()).collect()
            }
        };
        let picked: Vec<String> = picked.into_iter().take(max).collect();
        lock(&self.loaded).extend(picked.iter().cloned());
        picked
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether tool search is on for a session with this environment.
pub(crate) fn enabled(value: Option<&str>) -> bool {
    !matches!(
        value.map(|v| v.trim().to_ascii_lowercase()).as_deref(),
        Some("false" | "0" | "no" | "off")
    )
}

/// The system prompt's note naming the tools only named.
pub(crate) fn listing(named: &[String]) -> String {
    format!(
        "These tools are available but not loaded: call {TOOL_SEARCH} with \
         \"select:<name>[,<name>...]\" (or words to look for) to load their schemas before \
         calling them:\n{}",
        named.join("\n")
    )
}

/// The `ToolSearch` tool.
pub(crate) struct ToolSearch {
    search: Arc<Search>,
}

impl ToolSearch {
    /// The tool for a session's search.
    pub(crate) fn new(search: Arc<Search>) -> Self {
        Self { search }
    }
}

impl Tool for ToolSearch {
    fn name(&self) -> &str {
        TOOL_SEARCH
    }

    fn description(&self) -> String {
        "Loads the schemas of tools that are available but not loaded, so that they can be \
         called. `query` is `select:<name>[,<name>...]` for tools by name, or words to look \
         for in their names and descriptions."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "select:<name>,... or keywords"},
                "max_results": {"type": "number", "description": "The most tools to load (default 5)"}
            },
            "required": ["query"]
        })
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, _cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let search = Arc::clone(&self.search);
        Box::pin(async move {
            let query = input["query"].as_str().unwrap_or_default().to_owned();
            let max = input["max_results"]
                .as_u64()
                .map_or(5, |n| usize::try_from(n).unwrap_or(MAX_RESULTS))
                .clamp(1, MAX_RESULTS);
            let found = search.find(&query, max);
            let text = if found.is_empty() {
                format!("No tools matched \"{query}\".")
            } else {
                format!(
                    "Loaded {} tool(s); they can be called now: {}",
                    found.len(),
                    found.join(", ")
                )
            };
            ToolOutput::success(
                text,
                json!({"matches": found, "query": query, "total_deferred_tools": found.len()}),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_loads_by_name_or_by_words() {
        let search = Search::default();
        *lock(&search.named) = vec![
            ("mcp__calc__add".into(), "Adds two integers".into()),
            ("mcp__notes__keep".into(), "Keeps a note".into()),
        ];
        assert_eq!(
            search.find("select:mcp__notes__keep,nope", 5),
            ["mcp__notes__keep"]
        );
        assert_eq!(search.find("integers sum", 5), ["mcp__calc__add"]);
        assert!(lock(&search.loaded).contains("mcp__calc__add"));
        assert!(search.find("weather", 5).is_empty());
    }

    #[test]
    fn the_switch_reads_as_claude_code_reads_it() {
        assert!(enabled(None));
        assert!(enabled(Some("true")));
        assert!(!enabled(Some("false")));
        assert!(!enabled(Some("0")));
    }
}
