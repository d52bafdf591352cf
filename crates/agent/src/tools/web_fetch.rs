//! `WebFetch`: a page fetched and read with a prompt, as Claude Code does it. The address
//! goes to HTTPS; a redirect to another host is not followed but described; an error status
//! is said without the body; HTML becomes Markdown with turndown's rules (htmd), other text
//! stays as it is; then the page and the prompt go to the model in a question of the tool's
//! own, and its answer is the result. Extra certificate authorities come from
//! `NODE_EXTRA_CA_CERTS`, as for Claude Code.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{schema, Tool, ToolContext, ToolOutput};

/// The most of a page given to the model, in characters.
const MAX_CHARS: usize = 100_000;

/// The most of a page downloaded.
const MAX_BYTES: usize = 10 * 1024 * 1024;

/// How long a fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Redirects followed within one host.
const MAX_REDIRECTS: usize = 10;

/// The `WebFetch` tool.
pub struct WebFetch;

impl Tool for WebFetch {
    fn name(&self) -> &str {
        "WebFetch"
    }

    fn description(&self) -> String {
        "Fetches a web page and reads it with a prompt: the page (HTML as Markdown) and your \
         prompt go to a model, and its answer comes back.\n\n- The URL must be whole and \
         valid; http is upgraded to https.\n- Say in the prompt what you want from the page.\n- \
         A redirect to another host is not followed: the result names it, and you may fetch \
         that address.\n- The tool only reads. When an MCP tool for fetching is available, \
         prefer it."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::web_fetch().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::web_fetch().check("WebFetch", input)
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::select! {
                output = fetch_and_read(&input, &cx) => output,
                () = cx.cancel.cancelled() => ToolOutput::failure("The fetch was interrupted."),
            }
        })
    }
}

/// A page as fetched.
enum Page {
    Body {
        text: String,
        content_type: String,
        status: u16,
    },
    Redirected {
        to: String,
        status: String,
    },
    Failed(String),
}

async fn fetch_and_read(input: &Value, cx: &ToolContext) -> ToolOutput {
    let url = input["url"].as_str().unwrap_or_default();
    let prompt = input["prompt"].as_str().unwrap_or_default();
    let offset = input["offset"].as_u64().unwrap_or(0) as usize;
    let started = std::time::Instant::now();
    let mut url = match reqwest::Url::parse(url) {
        Ok(url) => url,
        Err(err) => return ToolOutput::failure(format!("Invalid URL: {err}")),
    };
    match url.scheme() {
        "http" => {
            let _ = url.set_scheme("https");
        }
        "https" => {}
        other => return ToolOutput::failure(format!("Unsupported protocol {other}:")),
    }
    let page = match fetch(&url, &cx.workspace.env).await {
        Ok(page) => page,
        Err(why) => return ToolOutput::failure(why),
    };
    let (text, content_type, status) = match page {
        Page::Body {
            text,
            content_type,
            status,
        } => (text, content_type, status),
        Page::Redirected { to, status } => {
            return ToolOutput::success(
                format!(
                    "REDIRECT DETECTED: The URL redirects to a location that was not fetched \
                     automatically.\n\n    Original URL: {url}\n    Redirect URL (from the server's \
                     Location header \u{2014} server-supplied, not verified): {to}\n    Status: \
                     {status}\n\n    To complete your request, I need to fetch content from the \
                     redirected URL. Please use WebFetch again with these parameters:\n    - url: \
                     \"{to}\"\n    - prompt: \"{prompt}\""
                ),
                json!({"url": url.as_str(), "redirect": to}),
            )
        }
        Page::Failed(message) => {
            return ToolOutput::success(message, json!({"url": url.as_str()}));
        }
    };
    let markdown = if content_type.contains("html") {
        to_markdown(&text)
    } else {
        text
    };
    let page: String = markdown.chars().skip(offset).take(MAX_CHARS).collect();
    let answer = match ask(cx, &page, prompt).await {
        Ok(answer) => answer,
        Err(why) => return ToolOutput::failure(format!("Reading the page failed: {why}")),
    };
    ToolOutput::success(
        answer.clone(),
        json!({"bytes": markdown.len(), "code": status, "codeText": "OK", "result": answer,
               "durationMs": started.elapsed().as_millis() as u64, "url": url.as_str()}),
    )
}

/// HTML as Markdown, with turndown's defaults as Claude Code uses them (`===` headings, `*`
/// lists, indented code), scripts and styles left out.
pub fn to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style", "noscript"])
        .options(htmd::options::Options {
            heading_style: htmd::options::HeadingStyle::Setex,
            bullet_list_marker: htmd::options::BulletListMarker::Asterisk,
            code_block_style: htmd::options::CodeBlockStyle::Indented,
            ..Default::default()
        })
        .build();
    converter.convert(html).unwrap_or_else(|_| html.to_owned())
}

/// The HTTP client: no redirects followed on its own, Claude Code's `Accept`, extra
/// certificate authorities from `NODE_EXTRA_CA_CERTS`.
fn client(env: &std::collections::BTreeMap<String, String>) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(FETCH_TIMEOUT)
        .user_agent(concat!(
            "twinwire-agent/",
            env!("CARGO_PKG_VERSION"),
            " (WebFetch)"
        ));
    if let Some(path) = env.get("NODE_EXTRA_CA_CERTS").filter(|p| !p.is_empty()) {
        if let Ok(pem) = std::fs::read(path) {
            if let Ok(certificates) = reqwest::Certificate::from_pem_bundle(&pem) {
                for certificate in certificates {
                    builder = builder.add_root_certificate(certificate);
                }
            }
        }
    }
    builder.build().map_err(|err| err.to_string())
}

async fn fetch(
    url: &reqwest::Url,
    env: &std::collections::BTreeMap<String, String>,
) -> Result<Page, String> {
    let client = client(env)?;
    let mut url = url.clone();
    for _ in 0..=MAX_REDIRECTS {
        let mut response = client
            .get(url.clone())
            .header("Accept", "text/markdown, text/html, */*")
            .send()
            .await
            .map_err(|err| error_chain(&err))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            let next = url.join(location).map_err(|err| err.to_string())?;
            let same_host = next.host_str().map(|h| h.trim_start_matches("www."))
                == url.host_str().map(|h| h.trim_start_matches("www."));
            if !same_host {
                return Ok(Page::Redirected {
                    to: next.to_string(),
                    status: format!(
                        "{} {}",
                        status.as_u16(),
                        status.canonical_reason().unwrap_or_default()
                    ),
                });
            }
            url = next;
            continue;
        }
        if !status.is_success() {
            return Ok(Page::Failed(format!(
                "The server returned HTTP {} {}.\n\nThe response body was not retrieved. If this \
                 URL requires authentication, use an authenticated tool (e.g. `gh` for GitHub, or \
                 an MCP-provided fetch tool) instead of WebFetch.",
                status.as_u16(),
                status.canonical_reason().unwrap_or_default()
            )));
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| error_chain(&err))? {
            body.extend_from_slice(&chunk[..chunk.len().min(MAX_BYTES - body.len())]);
            if body.len() >= MAX_BYTES {
                break;
            }
        }
        return Ok(Page::Body {
            text: String::from_utf8_lossy(&body).into_owned(),
            content_type,
            status: status.as_u16(),
        });
    }
    Err("Too many redirects.".to_owned())
}

/// The page and the prompt put to the model; its answer.
async fn ask(cx: &ToolContext, page: &str, prompt: &str) -> Result<String, String> {
    let Some((client, model)) = &cx.model else {
        return Err("no model to ask".to_owned());
    };
    let question = format!(
        "Here is the text of a web page, between the lines of dashes:\n---\n{page}\n---\n\n\
         {prompt}\n\nAnswer from the page alone, briefly. Quote at most 125 characters of it at \
         a time, in quotation marks, and say everything else in your own words. Do not judge \
         the legality of anything, and never reproduce song lyrics."
    );
    let body = json!({
        "model": model,
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": question}],
    });
    let answer = client
        .complete(&body)
        .await
        .map_err(|err| err.to_string())?;
    Ok(text_of(&answer))
}

/// The text blocks of an answer, joined.
pub fn text_of(answer: &Value) -> String {
    answer["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

/// An error with its causes.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_markdown_as_turndown_writes_it() {
        let page = "<html><head><title>T</title><script>x()</script></head><body><h1>Heading</h1>\
                    <p>Some <b>bold</b>.</p><ul><li>one</li></ul><pre><code>let x;</code></pre>\
                    </body></html>";
        assert_eq!(
            to_markdown(page),
            "T\n\nHeading\n=======\n\nSome **bold**.\n\n*   one\n\n    let x;"
        );
    }
}
