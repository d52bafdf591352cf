//! `WebSearch`: a search through the Messages API's own web search tool, as Claude Code
//! does it: the query goes to the model in a question of the tool's own that offers the
//! server tool (`web_search_20250305`, with the call's domains), and what comes back (the
//! model's text and the hits, as `Links: [...]`) is the result.

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::web_fetch::text_of;
use super::{schema, Tool, ToolContext, ToolOutput};

/// The most searches one call makes.
const MAX_USES: u32 = 8;

/// The `WebSearch` tool.
pub struct WebSearch;

impl Tool for WebSearch {
    fn name(&self) -> &str {
        "WebSearch"
    }

    fn description(&self) -> String {
        "Searches the web and gives back the results: text and links to the pages found. Use \
         it for anything newer than what you know. allowed_domains or blocked_domains (not \
         both) narrow the search. Cite the pages you use, as markdown links, in your answer; \
         take the current date into account when searching for recent things."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::web_search().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::web_search().check("WebSearch", input)
    }

    fn validate(&self, input: &Value, _cx: &ToolContext) -> Option<ToolOutput> {
        (input["allowed_domains"].is_array() && input["blocked_domains"].is_array()).then(|| {
            ToolOutput::error(
                "Error: Cannot specify both allowed_domains and blocked_domains in the same \
                 request",
            )
        })
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::select! {
                output = search(&input, &cx) => output,
                () = cx.cancel.cancelled() => ToolOutput::failure("The search was interrupted."),
            }
        })
    }
}

async fn search(input: &Value, cx: &ToolContext) -> ToolOutput {
    let query = input["query"].as_str().unwrap_or_default();
    let Some((client, model)) = &cx.model else {
        return ToolOutput::failure("No model is there to search with.");
    };
    let mut tool =
        json!({"type": "web_search_20250305", "name": "web_search", "max_uses": MAX_USES});
    for field in ["allowed_domains", "blocked_domains"] {
        if input[field].is_array() {
            tool[field] = input[field].clone();
        }
    }
    let body = json!({
        "model": model,
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": format!("Search the web for: {query}")}],
        "tools": [tool],
    });
    let started = std::time::Instant::now();
    let answer = match client.complete(&body).await {
        Ok(answer) => answer,
        Err(err) => return ToolOutput::failure(format!("The web search failed: {err}")),
    };
    let mut parts = Vec::new();
    for block in answer["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => {
                if let Some(text) = block["text"].as_str().filter(|t| !t.trim().is_empty()) {
                    parts.push(text.to_owned());
                }
            }
            Some("web_search_tool_result") => {
                let links: Vec<String> = block["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|hit| {
                        format!(
                            "{{\"title\":{},\"url\":{}}}",
                            json!(hit["title"].as_str().unwrap_or_default()),
                            json!(hit["url"].as_str().unwrap_or_default())
                        )
                    })
                    .collect();
                if links.is_empty() {
                    parts.push("No links found.".to_owned());
                } else {
                    parts.push(format!("Links: [{}]", links.join(",")));
                }
            }
            _ => {}
        }
    }
    let text = format!(
        "Web search results for query: \"{query}\"\n\n{}\n\n\nREMINDER: You MUST include the \
         sources above in your response to the user using markdown hyperlinks.",
        parts.join("\n\n")
    );
    ToolOutput::success(
        text,
        json!({"query": query, "results": text_of(&answer),
               "durationSeconds": started.elapsed().as_secs_f64()}),
    )
}
