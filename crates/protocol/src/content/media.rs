//! Blocks that carry material for the model to read: images, documents and search results,
//! with the sources their data comes from.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ContentBlock, UserContent};

/// An image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageBlock {
    /// Where the image data comes from.
    pub source: ImageSource,
    /// How to handle oversized images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transformations: Option<Value>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// Where an image's data comes from.
    pub enum ImageSource: "type", "image source" {
        /// Inline base64 data.
        "base64" => Base64(Base64ImageSource),
        /// A URL the API fetches.
        "url" => Url(UrlSource),
        /// A file uploaded with the Files API.
        "file" => File(FileSource),
    }
}

crate::string_enum! {
    /// The media type of an inline image.
    pub enum ImageMediaType {
        /// JPEG.
        Jpeg = "image/jpeg",
        /// PNG.
        Png = "image/png",
        /// GIF.
        Gif = "image/gif",
        /// WebP.
        Webp = "image/webp",
    }
}

/// Inline base64 image data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Base64ImageSource {
    /// The image format.
    #[serde(default)]
    pub media_type: ImageMediaType,
    /// The base64-encoded bytes.
    #[serde(default)]
    pub data: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Data the API fetches from a URL.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UrlSource {
    /// The URL.
    #[serde(default)]
    pub url: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file uploaded with the Files API.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileSource {
    /// The file id.
    #[serde(default)]
    pub file_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A document: a PDF, plain text or custom content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentBlock {
    /// Where the document's data comes from.
    pub source: DocumentSource,
    /// The document title: absent, `null` or a title.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub title: Option<Option<String>>,
    /// Context about the document that is not cited from: absent, `null` or text.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub context: Option<Option<String>>,
    /// Citation settings (`{"enabled": bool}`): absent, `null` or the settings.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub citations: Option<Option<Value>>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// Where a document's data comes from.
    pub enum DocumentSource: "type", "document source" {
        /// Inline base64 PDF data.
        "base64" => Base64(Base64PdfSource),
        /// Inline plain text.
        "text" => Text(PlainTextSource),
        /// Custom content: a string or text and image blocks.
        "content" => Content(ContentDocumentSource),
        /// A PDF the API fetches from a URL.
        "url" => Url(UrlSource),
        /// A file uploaded with the Files API.
        "file" => File(FileSource),
    }
}

/// Inline base64 PDF data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Base64PdfSource {
    /// The media type, `application/pdf`.
    #[serde(default)]
    pub media_type: String,
    /// The base64-encoded bytes.
    #[serde(default)]
    pub data: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Inline plain-text document data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PlainTextSource {
    /// The media type, `text/plain`.
    #[serde(default)]
    pub media_type: String,
    /// The text.
    #[serde(default)]
    pub data: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A document made of custom content.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContentDocumentSource {
    /// A string, or text and image blocks.
    #[serde(default)]
    pub content: UserContent,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A search result the model can cite, e.g. from a custom search tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchResultBlock {
    /// Where the result comes from (a URL or other identifier).
    #[serde(default)]
    pub source: String,
    /// The result's title.
    #[serde(default)]
    pub title: String,
    /// The result's text blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Citation settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations: Option<Value>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::union::absent_is_empty!(ImageMediaType);
