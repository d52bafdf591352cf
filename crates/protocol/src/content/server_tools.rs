//! Server-side tools: the calls the API itself runs (web search, web fetch, code execution,
//! tool search, advisor) and the blocks that carry their results.
//!
//! The results a caller usually reads (search hits, fetched documents, code output) are
//! typed; the payloads of the text editor, tool search and advisor tools are kept as
//! [`Value`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ContentBlock;

crate::string_enum! {
    /// The server-side tools the API can run.
    pub enum ServerToolName {
        /// Ask a stronger model for advice.
        Advisor = "advisor",
        /// Search the web.
        WebSearch = "web_search",
        /// Fetch a web page or PDF.
        WebFetch = "web_fetch",
        /// Run Python in a sandbox (older code execution tool).
        CodeExecution = "code_execution",
        /// Run a bash command in the code execution container.
        BashCodeExecution = "bash_code_execution",
        /// View or edit a file in the code execution container.
        TextEditorCodeExecution = "text_editor_code_execution",
        /// Search tool definitions by regular expression.
        ToolSearchToolRegex = "tool_search_tool_regex",
        /// Search tool definitions by BM25 ranking.
        ToolSearchToolBm25 = "tool_search_tool_bm25",
    }
}

crate::string_enum! {
    /// Why a server-side tool failed.
    pub enum ServerToolErrorCode {
        /// The tool input was invalid.
        InvalidToolInput = "invalid_tool_input",
        /// The tool is unavailable.
        Unavailable = "unavailable",
        /// The tool was called too often.
        TooManyRequests = "too_many_requests",
        /// The tool reached its `max_uses` limit.
        MaxUsesExceeded = "max_uses_exceeded",
        /// Execution took too long.
        ExecutionTimeExceeded = "execution_time_exceeded",
        /// An output file was too large.
        OutputFileTooLarge = "output_file_too_large",
        /// The file was not found.
        FileNotFound = "file_not_found",
        /// The search query was too long.
        QueryTooLong = "query_too_long",
        /// The request was too large.
        RequestTooLarge = "request_too_large",
        /// The URL was too long.
        UrlTooLong = "url_too_long",
        /// The URL is not allowed.
        UrlNotAllowed = "url_not_allowed",
        /// The URL could not be fetched.
        UrlNotAccessible = "url_not_accessible",
        /// The fetched content type is not supported.
        UnsupportedContentType = "unsupported_content_type",
        /// The prompt was too long (advisor).
        PromptTooLong = "prompt_too_long",
        /// The service was overloaded (advisor).
        Overloaded = "overloaded",
        /// The model was not found (advisor).
        ModelNotFound = "model_not_found",
    }
}

/// A call to a server-side tool, run by the API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerToolUseBlock {
    /// The call id (`srvtoolu_…`); the result block carries it as `tool_use_id`.
    #[serde(default)]
    pub id: String,
    /// The tool.
    #[serde(default)]
    pub name: ServerToolName,
    /// The tool input.
    #[serde(default)]
    pub input: Value,
    /// Who made the call (the model directly, or code running in a server tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Value>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a web search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The hits, or an error.
    pub content: WebSearchToolResultContent,
    /// Who made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Value>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of a web search result: a list of hits or an error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WebSearchToolResultContent {
    /// The hits.
    Results(Vec<WebSearchResult>),
    /// The search failed.
    Error(ServerToolError),
}

/// One web search hit.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WebSearchResult {
    /// The object type, `web_search_result`.
    #[serde(rename = "type")]
    #[serde(default)]
    pub kind: String,
    /// The page URL.
    #[serde(default)]
    pub url: String,
    /// The page title.
    #[serde(default)]
    pub title: String,
    /// The page content, encrypted (for citations in later turns).
    #[serde(default)]
    pub encrypted_content: String,
    /// How old the page is, as reported by the search engine: absent, `null` or text.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub page_age: Option<Option<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A server-side tool error, as carried in a result's `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerToolError {
    /// The object type, e.g. `web_search_tool_result_error`.
    #[serde(rename = "type")]
    #[serde(default)]
    pub kind: String,
    /// What went wrong.
    #[serde(default)]
    pub error_code: ServerToolErrorCode,
    /// A description, for tools that give one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub error_message: Option<Option<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a web fetch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebFetchToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The fetched document, or an error.
    pub content: WebFetchToolResultContent,
    /// Who made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Value>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// The content of a web fetch result.
    pub enum WebFetchToolResultContent: "type", "web fetch result" {
        /// The fetched page.
        "web_fetch_result" => Result(WebFetchResult),
        /// The fetch failed.
        "web_fetch_tool_result_error" => Error(ServerToolErrorBody),
    }
}

/// A fetched web page or PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebFetchResult {
    /// The URL that was fetched.
    #[serde(default)]
    pub url: String,
    /// The fetched content, as a `document` block.
    pub content: Box<ContentBlock>,
    /// When the content was retrieved: absent, `null` or a timestamp.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub retrieved_at: Option<Option<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of code execution (the older Python sandbox tool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeExecutionToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The output, or an error.
    pub content: CodeExecutionToolResultContent,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// The content of a code execution result.
    pub enum CodeExecutionToolResultContent: "type", "code execution result" {
        /// The program ran.
        "code_execution_result" => Result(CodeExecutionOutput),
        /// The program ran; its stdout is encrypted.
        "encrypted_code_execution_result" => EncryptedResult(EncryptedCodeExecutionOutput),
        /// The tool failed.
        "code_execution_tool_result_error" => Error(ServerToolErrorBody),
    }
}

/// The result of a bash command in the code execution container.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BashCodeExecutionToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The output, or an error.
    pub content: BashCodeExecutionToolResultContent,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// The content of a bash code execution result.
    pub enum BashCodeExecutionToolResultContent: "type", "bash code execution result" {
        /// The command ran.
        "bash_code_execution_result" => Result(CodeExecutionOutput),
        /// The tool failed.
        "bash_code_execution_tool_result_error" => Error(ServerToolErrorBody),
    }
}

/// What a program or command in the code execution container produced.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CodeExecutionOutput {
    /// Standard output.
    #[serde(default)]
    pub stdout: String,
    /// Standard error.
    #[serde(default)]
    pub stderr: String,
    /// The exit status.
    #[serde(default)]
    pub return_code: i64,
    /// Files the program wrote (`{"type": "…_output", "file_id": …}`).
    #[serde(default)]
    pub content: Vec<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Code execution output whose stdout is encrypted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EncryptedCodeExecutionOutput {
    /// Standard output, encrypted.
    #[serde(default)]
    pub encrypted_stdout: String,
    /// Standard error.
    #[serde(default)]
    pub stderr: String,
    /// The exit status.
    #[serde(default)]
    pub return_code: i64,
    /// Files the program wrote.
    #[serde(default)]
    pub content: Vec<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The body of a tagged server-tool error (its `type` is the union's tag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerToolErrorBody {
    /// What went wrong.
    #[serde(default)]
    pub error_code: ServerToolErrorCode,
    /// A description, for tools that give one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub error_message: Option<Option<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a file view or edit in the code execution container.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TextEditorCodeExecutionToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The view, create or str_replace result, or an error (kept as JSON).
    #[serde(default)]
    pub content: Value,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a tool search.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolSearchToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The matching tool references, or an error (kept as JSON).
    #[serde(default)]
    pub content: Value,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of an advisor call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AdvisorToolResultBlock {
    /// The `id` of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The advice (plain or encrypted), or an error (kept as JSON).
    #[serde(default)]
    pub content: Value,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::union::absent_is_empty!(ServerToolName, ServerToolErrorCode);
