//! One-line labels of tool calls: `Bash(echo hi)`, `Read(/src/main.rs)`, `Grep(fn in src)`.

use serde_json::Value;

/// The longest tool summary or result line shown, in characters.
pub const MAX_LINE: usize = 100;

/// `Bash(echo hi)`: the tool's name and a one-line summary of its input.
pub fn tool_label(name: &str, input: &Value) -> String {
    let summary = tool_summary(name, input);
    if summary.is_empty() {
        name.to_owned()
    } else {
        format!("{name}({summary})")
    }
}

fn tool_summary(name: &str, input: &Value) -> String {
    let field = |key: &str| input.get(key).and_then(Value::as_str);
    let text = match name {
        "Task" | "Agent" => field("description").map(str::to_owned),
        "TodoWrite" => input
            .get("todos")
            .and_then(Value::as_array)
            .map(|todos| format!("{} todo{}", todos.len(), plural(todos.len() as u64))),
        "Grep" => field("pattern").map(|pattern| match field("path") {
            Some(path) => format!("{pattern} in {path}"),
            None => pattern.to_owned(),
        }),
        _ => main_argument(name, input).map(str::to_owned),
    };
    let text = text.or_else(|| {
        // Any other tool: its first string argument, else its input as compact JSON.
        match input {
            Value::Object(map) if map.is_empty() => None,
            Value::Object(map) => map
                .values()
                .find_map(Value::as_str)
                .map(str::to_owned)
                .or_else(|| Some(input.to_string())),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    });
    let text = text.unwrap_or_default();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim();
    if lines.next().is_some() {
        truncate(&format!("{first} …"), MAX_LINE)
    } else {
        truncate(first, MAX_LINE)
    }
}

/// Cuts `text` to `max` characters, marking the cut with `…`.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `s` unless `n` is 1.
pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The argument shown in messages: the command of `Bash`, the path of file tools, the
/// pattern of search tools, the URL or query of web tools; for any other tool (MCP tools, say)
/// the first of `command`, `file_path`, `path`, `url`, `pattern` it has.
fn main_argument<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    let key = match tool {
        "Bash" | "BashOutput" | "PowerShell" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" | "NotebookRead" => "notebook_path",
        "Glob" | "Grep" => "pattern",
        "WebFetch" => "url",
        "WebSearch" => "query",
        _ => {
            return ["command", "file_path", "path", "url", "pattern"]
                .iter()
                .find_map(|key| input.get(key).and_then(Value::as_str))
        }
    };
    input.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn labels() {
        assert_eq!(tool_label("Bash", &json!({"command": "ls"})), "Bash(ls)");
        assert_eq!(
            tool_label("Grep", &json!({"pattern": "fn", "path": "src"})),
            "Grep(fn in src)"
        );
        assert_eq!(
            tool_label("TodoWrite", &json!({"todos": [1, 2]})),
            "TodoWrite(2 todos)"
        );
        assert_eq!(
            tool_label("mcp__calc__add", &json!({"a": 1})),
            "mcp__calc__add({\"a\":1})"
        );
        assert_eq!(tool_label("ExitPlanMode", &json!({})), "ExitPlanMode");
        let long = "x".repeat(300);
        assert_eq!(
            tool_label("Bash", &json!({ "command": long }))
                .chars()
                .count(),
            106
        );
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("ééééé", 3), "éé…");
    }
}
