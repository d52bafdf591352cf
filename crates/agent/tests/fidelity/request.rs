//! The first model request of a session, side by side: its options (model, output limit,
//! thinking, effort, context management), its beta features, the layout of its system prompt
//! and first messages (with their cache breakpoints), and its tools (names, schemas without
//! their prose, the size of their descriptions). The prose itself is each agent's own; what
//! is compared is the shape a host and the API see.

use serde_json::{json, Value};
use twinwire_model_server::RecordedRequest;

/// How much a text may differ in length and still count as "of the same size".
const SIZE_TOLERANCE: f64 = 0.35;

/// One aspect of a request, as text that compares.
pub fn aspects(request: &RecordedRequest) -> Vec<(&'static str, String)> {
    let body = &request.body;
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut betas: Vec<&str> = Vec::new();
    let beta_header = header("anthropic-beta");
    betas.extend(beta_header.split(',').filter(|b| !b.is_empty()));
    betas.sort_unstable();
    let mut keys: Vec<&String> = body
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    keys.sort();
    let user_id: Value = body["metadata"]["user_id"]
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or(Value::Null);
    let mut user_id_keys: Vec<&String> = user_id
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    user_id_keys.sort();
    let options = json!({
        "keys": keys,
        "model": body["model"],
        "max_tokens": body["max_tokens"],
        "thinking": body["thinking"],
        "context_management": body["context_management"],
        "output_config": body["output_config"],
        "stream": body["stream"],
        "metadata.user_id": user_id_keys,
    });
    // Two parts of Claude Code's requests name Claude Code itself: a billing marker opening
    // the system prompt, and a reminder on attributing commits in the first message. Each is
    // an aspect of its own.
    let billing = |block: &Value| {
        block["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("x-anthropic-billing-header:"))
    };
    let attribution = |block: &Value| {
        block["text"]
            .as_str()
            .is_some_and(|t| t.contains("Attribution for git commits"))
    };
    let first_blocks = body["messages"][0]["content"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let has_billing = body["system"].as_array().into_iter().flatten().any(billing);
    let has_attribution = first_blocks.iter().any(attribution);
    let system: Vec<String> = body["system"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| !billing(block))
        .map(|block| {
            format!(
                "{}{}",
                size_class(block["text"].as_str().unwrap_or_default()),
                cached(block)
            )
        })
        .collect();
    let messages: Vec<String> = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| {
            let blocks: Vec<String> = match &message["content"] {
                Value::String(_) => vec!["text".to_owned()],
                Value::Array(blocks) => blocks
                    .iter()
                    .filter(|b| !attribution(b))
                    .map(|b| format!("{}{}", b["type"].as_str().unwrap_or("?"), cached(b)))
                    .collect(),
                _ => Vec::new(),
            };
            format!(
                "{}[{}]",
                message["role"].as_str().unwrap_or("?"),
                blocks.join(",")
            )
        })
        .collect();
    let tools: Vec<&Value> = body["tools"].as_array().into_iter().flatten().collect();
    let names: Vec<String> = tools
        .iter()
        .map(|t| format!("{}{}", t["name"].as_str().unwrap_or("?"), cached(t)))
        .collect();
    let schemas: Vec<String> = tools
        .iter()
        .map(|t| {
            format!(
                "{}: {}",
                t["name"].as_str().unwrap_or("?"),
                without_descriptions(&t["input_schema"])
            )
        })
        .collect();
    let descriptions: Vec<String> = tools
        .iter()
        .map(|t| {
            format!(
                "{}: {}",
                t["name"].as_str().unwrap_or("?"),
                t["description"].as_str().unwrap_or_default().len()
            )
        })
        .collect();
    let present = |yes: bool| if yes { "present" } else { "absent" }.to_owned();
    vec![
        ("billing marker", present(has_billing)),
        ("attribution reminder", present(has_attribution)),
        ("path", request.path.clone()),
        ("betas", betas.join(",")),
        ("options", options.to_string()),
        ("system", system.join(" | ")),
        ("messages", messages.join(" ")),
        ("tool names", names.join(",")),
        ("tool schemas", schemas.join("\n")),
        ("tool description sizes", descriptions.join(", ")),
    ]
}

/// Whether two values of an aspect agree: equal, or, for sizes, near enough.
pub fn agree(aspect: &str, claude: &str, agent: &str) -> bool {
    match aspect {
        "system" => same_sizes(claude, agent, " | "),
        "tool description sizes" => same_sizes(claude, agent, ", "),
        "tool schemas" => common_lines_equal(claude, agent),
        _ => claude == agent,
    }
}

/// Lists of `name: size` (or `size…`) entries with sizes within the tolerance of each other:
/// in order for unnamed entries, by name for named ones (a tool only one side has is the
/// tool names' aspect).
fn same_sizes(claude: &str, agent: &str, separator: &str) -> bool {
    let a: Vec<(String, f64)> = claude.split(separator).map(split_size).collect();
    let b: Vec<(String, f64)> = agent.split(separator).map(split_size).collect();
    let named = a
        .iter()
        .any(|(name, _)| !name.is_empty() && !name.starts_with(' '));
    if !named {
        return a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.0 == y.0 && near(x.1, y.1));
    }
    a.iter().all(|(name, size)| {
        b.iter()
            .find(|(other, _)| other == name)
            .is_none_or(|(_, other)| near(*size, *other))
    })
}

/// Lines `name: …` equal for every name both sides have.
fn common_lines_equal(claude: &str, agent: &str) -> bool {
    let entries = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    };
    let b = entries(agent);
    entries(claude).iter().all(|(name, value)| {
        b.iter()
            .find(|(other, _)| other == name)
            .is_none_or(|(_, other)| other == value)
    })
}

/// `Read: 790` → ("Read", 790); `7022 (cached)` → (" (cached)", 7022).
fn split_size(entry: &str) -> (String, f64) {
    match entry.rsplit_once(": ") {
        Some((name, size)) => (name.to_owned(), size.trim().parse().unwrap_or(0.0)),
        None => {
            let digits: String = entry.chars().take_while(char::is_ascii_digit).collect();
            (
                entry[digits.len()..].to_owned(),
                digits.parse().unwrap_or(0.0),
            )
        }
    }
}

fn near(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    let larger = a.max(b);
    (a - b).abs() / larger <= SIZE_TOLERANCE
}

fn size_class(text: &str) -> String {
    text.len().to_string()
}

fn cached(block: &Value) -> &'static str {
    if block.get("cache_control").is_some() {
        " (cached)"
    } else {
        ""
    }
}

/// A schema with its prose taken out: the interface only.
fn without_descriptions(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "description")
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_agree_within_the_tolerance() {
        assert!(agree(
            "tool description sizes",
            "Read: 790, Bash: 2127",
            "Read: 800, Bash: 1800"
        ));
        assert!(!agree("tool description sizes", "Read: 790", "Read: 200"));
        assert!(agree(
            "system",
            "62 (cached) | 7022 (cached)",
            "66 (cached) | 6603 (cached)"
        ));
        assert!(!agree("system", "62 (cached)", "62"));
    }
}
