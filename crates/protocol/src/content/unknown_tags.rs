//! Test helper: the unknown content blocks of a frame.

use super::{
    ContentBlock, McpToolResultBlock, SearchResultBlock, ToolResultBlock, ToolResultContent,
};

/// Tags of unknown content blocks anywhere inside `blocks` (including tool result content).
pub(crate) fn unknown_tags(blocks: &[ContentBlock]) -> Vec<String> {
    let mut tags = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Unknown(unknown) => tags.push(unknown.tag.clone()),
            ContentBlock::ToolResult(ToolResultBlock {
                content: Some(ToolResultContent::Blocks(inner)),
                ..
            })
            | ContentBlock::McpToolResult(McpToolResultBlock {
                content: Some(ToolResultContent::Blocks(inner)),
                ..
            })
            | ContentBlock::SearchResult(SearchResultBlock { content: inner, .. }) => {
                tags.extend(unknown_tags(inner))
            }
            _ => {}
        }
    }
    tags
}
