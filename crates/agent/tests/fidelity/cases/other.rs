//! The other tools: `NotebookEdit`, `TodoWrite`, `WebFetch`, `WebSearch`, `AskUserQuestion`,
//! `Skill`, the MCP resource tools, `Task`, and a tool that does not exist.

use serde_json::json;

use crate::case::{call, case, Case};
use crate::cases::read::NOTEBOOK;

pub fn notebook() -> Vec<Case> {
    vec![
        case("NotebookEdit", "edits")
            .quick()
            .file("nb.ipynb", NOTEBOOK)
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "cell_id": "c1", "new_source": "x = 40 + 2\nprint(x)"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "cell_id": "c1", "new_source": "## Added", "cell_type": "markdown", "edit_mode": "insert"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "cell_id": "m1", "new_source": "", "edit_mode": "delete"}))
            .step("Read", json!({"file_path": "{work}/nb.ipynb"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "new_source": "first", "cell_type": "code", "edit_mode": "insert"})),
        case("NotebookEdit", "misuse")
            .file("nb.ipynb", NOTEBOOK)
            .file("plain.txt", "x\n")
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "cell_id": "nope", "new_source": "x"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/plain.txt", "new_source": "x"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/missing.ipynb", "new_source": "x"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "cell_id": "c1", "new_source": "x", "edit_mode": "insert"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "new_source": "x", "edit_mode": "append"}))
            .step("NotebookEdit", json!({"notebook_path": "{work}/nb.ipynb", "cell_id": "1", "new_source": "by index"})),
    ]
}

pub fn todo() -> Vec<Case> {
    let list = json!([
        {"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"},
        {"content": "Test it", "status": "pending", "activeForm": "Testing it"}
    ]);
    vec![
        case("TodoWrite", "lists")
            .quick()
            .env("CLAUDE_CODE_ENABLE_TASKS", "false")
            .step("TodoWrite", json!({"todos": list}))
            .step("TodoWrite", json!({"todos": [
                {"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"},
                {"content": "Test it", "status": "completed", "activeForm": "Testing it"}
            ]}))
            .step("TodoWrite", json!({"todos": []})),
        case("TodoWrite", "misuse")
            .env("CLAUDE_CODE_ENABLE_TASKS", "false")
            .step("TodoWrite", json!({"todos": [{"content": "x", "status": "done", "activeForm": "x"}]}))
            .step("TodoWrite", json!({"todos": [{"content": "", "status": "pending", "activeForm": "x"}]}))
            .step("TodoWrite", json!({"todos": [{"content": "x", "status": "pending"}]}))
            .step("TodoWrite", json!({"todos": "none"})),
        case("TodoWrite", "disabled_by_default")
            .step("TodoWrite", json!({"todos": list})),
    ]
}

/// [`PAGE`] as Claude Code's converter writes it.
const PAGE_AS_MARKDOWN: &str = "Fidelity page\n\nHeading\n=======\n\nSome **bold** and \
[a link](/other).\n\n*   one\n*   two\n\n    let x = 1;";

const PAGE: &str = "<html><head><title>Fidelity page</title><style>p{color:red}</style>\
<script>var x = 1;</script></head><body><h1>Heading</h1><p>Some <b>bold</b> and \
<a href=\"/other\">a link</a>.</p><ul><li>one</li><li>two</li></ul>\
<pre><code>let x = 1;</code></pre></body></html>";

/// Claude Code asks claude.ai whether a domain may be fetched unless told not to; offline,
/// that question fails.
const NO_PREFLIGHT: &str = r#"{"skipWebFetchPreflight": true}"#;

pub fn web() -> Vec<Case> {
    vec![
        case("WebFetch", "pages")
            .quick()
            .arg("--settings", Some(NO_PREFLIGHT))
            .side_rule(
                json!({"last_user_text_contains": PAGE_AS_MARKDOWN}),
                json!({"text": "The page came as the expected Markdown; its heading is Heading."}),
            )
            .side_rule(
                json!({"last_user_text_contains": "just text"}),
                json!({"text": "It says: just text"}),
            )
            .page("/page.html", "text/html; charset=utf-8", PAGE)
            .page("/plain.txt", "text/plain", "just text\n")
            .page("/data.json", "application/json", "{\"a\": 1}")
            .step("WebFetch", json!({"url": "{web}/page.html", "prompt": "What is the heading?"}))
            .step("WebFetch", json!({"url": "{web}/plain.txt", "prompt": "Repeat it"}))
            .step("WebFetch", json!({"url": "{web}/data.json", "prompt": "What is a?"})),
        case("WebFetch", "failures")
            .arg("--settings", Some(NO_PREFLIGHT))
            .page("/moved", "redirect:https://example.invalid/elsewhere", "")
            .page("/page.html", "text/html", PAGE)
            .step("WebFetch", json!({"url": "{web}/missing", "prompt": "x"}))
            .step("WebFetch", json!({"url": "not a url", "prompt": "x"}))
            .step("WebFetch", json!({"url": "{web}/moved", "prompt": "x"}))
            .step("WebFetch", json!({"url": "{web}/page.html"}))
            .step("WebFetch", json!({"url": "ftp://127.0.0.1/x", "prompt": "x"})),
        case("WebSearch", "queries")
            .side_rule(
                json!({"has_tool": "web_search"}),
                json!({"web_search": {"results": [
                    {"title": "Async traits", "url": "https://example.org/async-traits"},
                    {"title": "Rust blog", "url": "https://blog.example.org/rust"}
                ], "text": "Async functions in traits are stable."}}),
            )
            .step("WebSearch", json!({"query": "rust async traits"}))
            .step("WebSearch", json!({"query": "x"}))
            .step("WebSearch", json!({"query": "rust", "allowed_domains": ["rust-lang.org"], "blocked_domains": ["example.com"]})),
    ]
}

pub fn ask() -> Vec<Case> {
    vec![
        case("AskUserQuestion", "questions")
            .quick()
            .step(
                "AskUserQuestion",
                json!({"questions": [{
                    "question": "Which database should we use?", "header": "Database",
                    "options": [
                        {"label": "Postgres", "description": "A relational database"},
                        {"label": "SQLite", "description": "A file"}
                    ],
                    "multiSelect": false
                }]}),
            )
            .step(
                "AskUserQuestion",
                json!({"questions": [{
                    "question": "Which features?", "header": "Features",
                    "options": [
                        {"label": "Auth", "description": "Sign-in"},
                        {"label": "Search", "description": "Full text"}
                    ],
                    "multiSelect": true
                }, {
                    "question": "Which colour?", "header": "Colour",
                    "options": [
                        {"label": "Red", "description": "warm"},
                        {"label": "Blue", "description": "cold"}
                    ],
                    "multiSelect": false
                }]}),
            ),
        case("AskUserQuestion", "misuse")
            .step("AskUserQuestion", json!({"questions": []}))
            .step(
                "AskUserQuestion",
                json!({"questions": [{
                    "question": "Only one?", "header": "One",
                    "options": [{"label": "Yes", "description": "y"}],
                    "multiSelect": false
                }]}),
            ),
    ]
}

const SKILL: &str = "---\nname: greet\ndescription: Greets the user in a given style\n---\n\n\
Greet the user warmly. The style asked for: $ARGUMENTS\n";

pub fn skill() -> Vec<Case> {
    vec![case("Skill", "project_skill")
        .quick()
        .file(".claude/skills/greet/SKILL.md", SKILL)
        .step("Skill", json!({"skill": "greet", "args": "pirate"}))
        .step("Skill", json!({"skill": "nosuch"}))
        .step("Skill", json!({"skill": "/greet"}))]
}

pub fn mcp() -> Vec<Case> {
    vec![case("ListMcpResourcesTool", "resources")
        .quick()
        .arg(
            "--mcp-config",
            Some(r#"{"mcpServers":{"memo":{"command":"{memo}","args":[]}}}"#),
        )
        .step("ListMcpResourcesTool", json!({}))
        .step("ListMcpResourcesTool", json!({"server": "memo"}))
        .step("ListMcpResourcesTool", json!({"server": "nosuch"}))
        .step(
            "ReadMcpResourceTool",
            json!({"server": "memo", "uri": "memo://readme"}),
        )
        .step(
            "ReadMcpResourceTool",
            json!({"server": "memo", "uri": "ui://memo/note"}),
        )
        .step(
            "ReadMcpResourceTool",
            json!({"server": "memo", "uri": "memo://missing"}),
        )
        .step(
            "ReadMcpResourceTool",
            json!({"server": "nosuch", "uri": "memo://note"}),
        )]
}

pub fn unknown() -> Vec<Case> {
    vec![case("Unknown", "tools")
        .step("NoSuchTool", json!({"x": 1}))
        .step(
            "MultiEdit",
            json!({"file_path": "{work}/a.txt", "edits": []}),
        )
        .parallel(vec![
            call("Glob", json!({"pattern": "*"})),
            call("NoSuchTool", json!({})),
        ])]
}

/// The first request's shape, with the SDKs' default (empty) system prompt and with the
/// CLI's own.
pub fn requests() -> Vec<Case> {
    vec![
        case("Request", "sdk_default")
            .quick()
            .shape()
            .file("a.txt", "a\n")
            .step("Read", json!({"file_path": "{work}/a.txt"})),
        case("Request", "own_prompt")
            .shape()
            .preset_prompt()
            .file("a.txt", "a\n")
            .step("Read", json!({"file_path": "{work}/a.txt"})),
    ]
}

/// `Task`: a subagent started on a prompt, its report as the call's result.
pub fn task() -> Vec<Case> {
    vec![case("Task", "general_purpose")
        .tool("Task")
        .step(
            "Task",
            json!({"description": "Look around", "prompt": "Say what you see.",
                   "subagent_type": "general-purpose"}),
        )
        .step(
            "Task",
            json!({"description": "Nobody", "prompt": "x", "subagent_type": "no-such-agent"}),
        )
        .step("Task", json!({"description": "Missing prompt"}))]
}
