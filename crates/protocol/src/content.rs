//! Messages API content: the assistant [`ApiMessage`] carried by `assistant` frames, the
//! [`MessageParam`] carried by `user` frames, and the [`ContentBlock`] union shared by both.
//!
//! These mirror the Anthropic Messages API "Beta" types that the official SDK re-exports
//! (`@anthropic-ai/sdk`, `resources/beta/messages`). [`ContentBlock`] covers request-side
//! blocks (image, document, tool_result, …) and response-side blocks (thinking, server tool
//! results, …) in one union, so a block can be read wherever it turns up. Block types this
//! version does not know become [`ContentBlock::Unknown`] and are written back unchanged.
//!
//! Citations, cache control and the deeper payloads of server-tool results are kept as
//! [`serde_json::Value`]: the fields a caller actually reads (text, ids, names, inputs, tool
//! results) are typed.

mod blocks;
mod media;
mod server_tools;

/// Reads a list of content blocks, or a plain string as one text block.
fn blocks_or_text<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ContentBlock>, D::Error> {
    struct BlocksOrText;

    impl<'de> serde::de::Visitor<'de> for BlocksOrText {
        type Value = Vec<ContentBlock>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence of content blocks or a string")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64));
            while let Some(block) = seq.next_element()? {
                blocks.push(block);
            }
            Ok(blocks)
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(vec![ContentBlock::Text(TextBlock {
                text: text.to_owned(),
                ..TextBlock::default()
            })])
        }
    }

    deserializer.deserialize_any(BlocksOrText)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod unknown_tags;

pub use blocks::*;
pub use media::*;
pub use server_tools::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::usage::Usage;

crate::string_enum! {
    /// Why the model stopped generating.
    pub enum StopReason {
        /// The model finished its turn.
        EndTurn = "end_turn",
        /// The `max_tokens` limit was reached.
        MaxTokens = "max_tokens",
        /// A stop sequence was generated.
        StopSequence = "stop_sequence",
        /// The model wants to call one or more tools.
        ToolUse = "tool_use",
        /// A long server-side turn was paused; send it back to continue.
        PauseTurn = "pause_turn",
        /// The context was compacted.
        Compaction = "compaction",
        /// The model declined to answer.
        Refusal = "refusal",
        /// The model's context window is full.
        ModelContextWindowExceeded = "model_context_window_exceeded",
    }
}

/// Why the prompt cache could not reuse the prefix of an earlier request (`diagnostics`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Diagnostics {
    /// The reason: absent, `null` (still being worked out) or the reason.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub cache_miss_reason: Option<Option<CacheMissReason>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why the prompt cache missed: `model_changed`, `system_changed`, `tools_changed`,
/// `messages_changed`, `previous_message_not_found`, `unavailable` (open set).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CacheMissReason {
    /// The reason's kind.
    #[serde(rename = "type")]
    #[serde(default)]
    pub kind: String,
    /// Input tokens that would have been read from the cache had the prefix matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_missed_input_tokens: Option<u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A Messages API response message: the `message` of an `assistant` frame and of a
/// `message_start` stream event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ApiMessage {
    /// The object type, always `message` (written first, as every object's `type` is).
    #[serde(rename = "type")]
    #[serde(default)]
    pub kind: String,
    /// The API message id; the lines of one response share it.
    #[serde(default)]
    pub id: String,
    /// Always `assistant`.
    #[serde(default)]
    pub role: String,
    /// The model that produced the message (`<synthetic>` for messages the CLI made up).
    #[serde(default)]
    pub model: String,
    /// The content blocks (the CLI sends one block per `assistant` line). A plain string, as
    /// some producers write it, reads as one text block.
    #[serde(default, deserialize_with = "blocks_or_text")]
    pub content: Vec<ContentBlock>,
    /// Why generation stopped; `None` while the message is still streaming.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    /// The stop sequence that was generated, if any.
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// Token usage.
    #[serde(default)]
    pub usage: Usage,
    /// The code execution container: absent, `null` or its description.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub container: Option<Option<MessageContainer>>,
    /// Context edits the API applied: absent, `null` or the edits.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub context_management: Option<Option<ContextManagementResponse>>,
    /// More about why generation stopped (refusals): absent, `null` or details.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub stop_details: Option<Option<StopDetails>>,
    /// Request diagnostics (cache misses): absent, `null` or details.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub diagnostics: Option<Option<Diagnostics>>,
    /// Changes the API made to the request input (dropped thinking, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_transformations: Option<Vec<Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ApiMessage {
    /// The text of all `text` blocks, concatenated.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect()
    }

    /// The client tool calls in this message.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.content.iter().filter_map(|block| match block {
            ContentBlock::ToolUse(tool_use) => Some(tool_use),
            _ => None,
        })
    }
}

/// The code execution container a response ran in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageContainer {
    /// The container id.
    #[serde(default)]
    pub id: String,
    /// When the container expires (RFC 3339).
    #[serde(default)]
    pub expires_at: String,
    /// Skills loaded in the container.
    #[serde(default)]
    pub skills: Option<Vec<Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The context edits the API applied to a request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextManagementResponse {
    /// One entry per applied edit (cleared tool uses, cleared thinking, …).
    #[serde(default)]
    pub applied_edits: Vec<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// Structured detail about why generation stopped.
    pub enum StopDetails: "type", "stop details" {
        /// The model refused.
        "refusal" => Refusal(RefusalStopDetails),
    }
}

crate::string_enum! {
    /// The policy area of a refusal.
    pub enum RefusalCategory {
        /// Cybersecurity.
        Cyber = "cyber",
        /// Biology.
        Bio = "bio",
    }
}

/// Details of a refusal.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RefusalStopDetails {
    /// The policy area, if known.
    #[serde(default)]
    pub category: Option<RefusalCategory>,
    /// A human-readable explanation, if any.
    #[serde(default)]
    pub explanation: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A Messages API input message: the `message` of a `user` frame.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageParam {
    /// `user` (or `assistant` when replaying a conversation).
    #[serde(default)]
    pub role: String,
    /// A plain string or a list of content blocks.
    #[serde(default)]
    pub content: UserContent,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl MessageParam {
    /// A `user` message with the given content.
    pub fn user(content: impl Into<UserContent>) -> Self {
        Self {
            role: "user".to_owned(),
            content: content.into(),
            extra: Map::new(),
        }
    }
}

/// The content of an input message: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// Content blocks (text, images, documents, tool results, …).
    Blocks(Vec<ContentBlock>),
}

impl Default for UserContent {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

impl UserContent {
    /// Plain-text content.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }

    /// The blocks, or an empty slice for plain text.
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            Self::Text(_) => &[],
            Self::Blocks(blocks) => blocks,
        }
    }

    /// The plain text, or the text of all `text` blocks concatenated.
    pub fn joined_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Blocks(blocks) => blocks.iter().filter_map(ContentBlock::as_text).collect(),
        }
    }
}

impl From<String> for UserContent {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for UserContent {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<Vec<ContentBlock>> for UserContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        Self::Blocks(blocks)
    }
}

/// The content of a tool result: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// Plain text.
    Text(String),
    /// Content blocks (text, images, documents, search results, tool references).
    Blocks(Vec<ContentBlock>),
}

impl Default for ToolResultContent {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

impl ToolResultContent {
    /// The plain text, or the text of all `text` blocks concatenated.
    pub fn joined_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Blocks(blocks) => blocks.iter().filter_map(ContentBlock::as_text).collect(),
        }
    }
}

impl From<String> for ToolResultContent {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for ToolResultContent {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<Vec<ContentBlock>> for ToolResultContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        Self::Blocks(blocks)
    }
}

crate::tagged_union! {
    /// One content block of a message, request-side or response-side.
    pub enum ContentBlock: "type", "content block" {
        /// Text.
        "text" => Text(TextBlock),
        /// Extended thinking.
        "thinking" => Thinking(ThinkingBlock),
        /// Thinking the API returned encrypted.
        "redacted_thinking" => RedactedThinking(RedactedThinkingBlock),
        /// A call to a client tool.
        "tool_use" => ToolUse(ToolUseBlock),
        /// The result of a client tool call.
        "tool_result" => ToolResult(ToolResultBlock),
        /// An image.
        "image" => Image(ImageBlock),
        /// A document (PDF, plain text, custom content).
        "document" => Document(DocumentBlock),
        /// A search result with citable content.
        "search_result" => SearchResult(SearchResultBlock),
        /// A reference to a tool definition (tool search).
        "tool_reference" => ToolReference(ToolReferenceBlock),
        /// A call to a server-side tool (web search, code execution, …).
        "server_tool_use" => ServerToolUse(ServerToolUseBlock),
        /// The result of a web search.
        "web_search_tool_result" => WebSearchToolResult(WebSearchToolResultBlock),
        /// The result of a web fetch.
        "web_fetch_tool_result" => WebFetchToolResult(WebFetchToolResultBlock),
        /// The result of code execution.
        "code_execution_tool_result" => CodeExecutionToolResult(CodeExecutionToolResultBlock),
        /// The result of a bash command in the code execution container.
        "bash_code_execution_tool_result" =>
            BashCodeExecutionToolResult(BashCodeExecutionToolResultBlock),
        /// The result of a file edit in the code execution container.
        "text_editor_code_execution_tool_result" =>
            TextEditorCodeExecutionToolResult(TextEditorCodeExecutionToolResultBlock),
        /// The result of a tool search.
        "tool_search_tool_result" => ToolSearchToolResult(ToolSearchToolResultBlock),
        /// The result of an advisor call.
        "advisor_tool_result" => AdvisorToolResult(AdvisorToolResultBlock),
        /// A call to a tool of a remote MCP server (MCP connector).
        "mcp_tool_use" => McpToolUse(McpToolUseBlock),
        /// The result of a remote MCP tool call.
        "mcp_tool_result" => McpToolResult(McpToolResultBlock),
        /// The tools a remote MCP server offers.
        "mcp_tool_listing" => McpToolListing(McpToolListingBlock),
        /// A file uploaded to the code execution container.
        "container_upload" => ContainerUpload(ContainerUploadBlock),
        /// A summary that replaces earlier context.
        "compaction" => Compaction(CompactionBlock),
        /// The request moved to a fallback model.
        "fallback" => Fallback(FallbackBlock),
        /// A tool added mid-conversation.
        "tool_addition" => ToolAddition(ToolAdditionBlock),
        /// A tool removed mid-conversation.
        "tool_removal" => ToolRemoval(ToolRemovalBlock),
        /// The state of the browser tool's tabs.
        "browser_state" => BrowserState(BrowserStateBlock),
    }
}

impl ContentBlock {
    /// A text block with the given text.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextBlock {
            text: text.into(),
            ..TextBlock::default()
        })
    }

    /// The text, if this is a `text` block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(block) => Some(&block.text),
            _ => None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::unknown_tags::unknown_tags;
    use super::*;
    use serde_json::json;

    #[test]
    fn every_assistant_message_round_trips() {
        let mut count = 0;
        for frame in crate::test_fixtures::of_type("assistant") {
            let value = &frame.msg["message"];
            let message: ApiMessage = serde_json::from_value(value.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", frame.origin()));
            assert_eq!(
                &serde_json::to_value(&message).unwrap(),
                value,
                "{}",
                frame.origin()
            );
            assert_eq!(
                unknown_tags(&message.content),
                Vec::<String>::new(),
                "{}",
                frame.origin()
            );
            count += 1;
        }
        assert!(count > 100, "only {count} assistant frames found");
    }

    #[test]
    fn every_user_message_round_trips() {
        let mut count = 0;
        for frame in crate::test_fixtures::of_type("user") {
            let value = &frame.msg["message"];
            let message: MessageParam = serde_json::from_value(value.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", frame.origin()));
            assert_eq!(
                &serde_json::to_value(&message).unwrap(),
                value,
                "{}",
                frame.origin()
            );
            let unknown = unknown_tags(message.content.blocks());
            assert_eq!(unknown, Vec::<String>::new(), "{}", frame.origin());
            count += 1;
        }
        assert!(count > 100, "only {count} user frames found");
    }

    #[test]
    fn text_and_tool_uses() {
        let message: ApiMessage = serde_json::from_value(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [
                {"type": "text", "text": "Hello, "},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
                {"type": "text", "text": "world"}
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 2,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        }))
        .unwrap();
        assert_eq!(message.text(), "Hello, world");
        assert_eq!(message.stop_reason, Some(StopReason::ToolUse));
        let tool_use = message.tool_uses().next().unwrap();
        assert_eq!(
            (tool_use.id.as_str(), tool_use.name.as_str()),
            ("toolu_1", "Bash")
        );
        assert_eq!(tool_use.input["command"], "ls");
    }

    #[test]
    fn user_content_string_or_blocks() {
        let text: MessageParam =
            serde_json::from_value(json!({"role": "user", "content": "hi"})).unwrap();
        assert_eq!(text, MessageParam::user("hi"));
        let result = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
             "content": [{"type": "text", "text": "ok"}]}
        ]});
        let blocks: MessageParam = serde_json::from_value(result.clone()).unwrap();
        let ContentBlock::ToolResult(tool_result) = &blocks.content.blocks()[0] else {
            panic!("not a tool result: {blocks:?}");
        };
        assert_eq!(tool_result.tool_use_id, "toolu_1");
        assert_eq!(tool_result.is_error, Some(false));
        assert_eq!(tool_result.content.as_ref().unwrap().joined_text(), "ok");
        assert_eq!(serde_json::to_value(&blocks).unwrap(), result);
    }

    #[test]
    fn request_side_blocks_round_trip() {
        let value = json!([
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
            {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
            {"type": "document", "title": null,
             "source": {"type": "content", "content": [{"type": "text", "text": "t"}]}},
            {"type": "document", "source": {"type": "file", "file_id": "file_1"}},
            {"type": "search_result", "source": "s", "title": "t",
             "content": [{"type": "text", "text": "x"}]},
            {"type": "text", "text": "t", "citations": null, "cache_control": {"type": "ephemeral"}},
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
             "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": [{"type": "web_search_result", "url": "u", "title": "t",
                          "encrypted_content": "e", "page_age": null}]},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2",
             "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"}},
            {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_3",
             "content": {"type": "code_execution_result", "stdout": "1\n", "stderr": "",
                         "return_code": 0, "content": []}},
            {"type": "compaction", "content": "summary", "encrypted_content": null}
        ]);
        let blocks: Vec<ContentBlock> = serde_json::from_value(value.clone()).unwrap();
        assert!(unknown_tags(&blocks).is_empty(), "{blocks:?}");
        let ContentBlock::Image(image) = &blocks[0] else {
            panic!("not an image: {:?}", blocks[0]);
        };
        assert!(matches!(&image.source, ImageSource::Base64(source)
            if source.media_type == ImageMediaType::Png));
        let ContentBlock::ServerToolUse(server) = &blocks[7] else {
            panic!("not a server tool use: {:?}", blocks[7]);
        };
        assert_eq!(server.name, ServerToolName::WebSearch);
        let ContentBlock::WebSearchToolResult(search) = &blocks[8] else {
            panic!("not a web search result: {:?}", blocks[8]);
        };
        assert!(matches!(&search.content, WebSearchToolResultContent::Results(r) if r.len() == 1));
        assert_eq!(serde_json::to_value(&blocks).unwrap(), value);
    }

    #[test]
    fn broken_known_block_is_repaired_or_kept_raw() {
        // Missing fields read as defaults, even on the strict path.
        let missing_id = json!({"type": "tool_use", "name": "Bash", "input": {}});
        let block: ContentBlock = serde_json::from_value(missing_id).unwrap();
        assert!(matches!(&block, ContentBlock::ToolUse(t) if t.id.is_empty() && t.name == "Bash"));
        // A wrong type fails the strict path; the lenient one coerces it.
        let bad_text = json!({"type": "text", "text": 5});
        assert!(serde_json::from_value::<ContentBlock>(bad_text.clone()).is_err());
        let read = crate::from_value::<ContentBlock>(bad_text).unwrap();
        assert!(matches!(&read.value, ContentBlock::Text(t) if t.text == "5"));
        // What cannot be typed at all is kept raw, with why.
        let no_tag = json!({"text": "hi"});
        let read = crate::from_value::<ContentBlock>(no_tag.clone()).unwrap();
        let malformed = read.value.as_malformed().unwrap();
        assert_eq!(malformed.raw, no_tag);
        assert!(malformed.message.contains("type"), "{malformed}");
        assert_eq!(serde_json::to_value(&read.value).unwrap(), no_tag);
    }

    #[test]
    fn unknown_block_is_kept_whole() {
        let value = json!({"type": "hologram", "x": 1});
        let block: ContentBlock = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(block.tag(), "hologram");
        assert!(block.as_unknown().is_some());
        assert_eq!(serde_json::to_value(&block).unwrap(), value);
    }
}
