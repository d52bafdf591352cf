//! Images and PDFs as `Read` gives them: an image as an image block (its bytes checked to be
//! the kind its name says), a PDF as a document block after a line naming it, or its pages
//! as images when `pages` asks for some (which needs poppler's `pdftoppm`, as in Claude Code).

use std::path::Path;

use base64::Engine as _;
use serde_json::json;
use twinwire_protocol::content::ToolResultContent;

use super::super::files::human_size;
use super::super::{ToolContext, ToolOutput};

/// The largest image sent as it is.
const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

/// The largest PDF sent whole.
const MAX_PDF_BYTES: u64 = 20 * 1024 * 1024;

/// The most pages one call may ask for.
const MAX_PAGES: u32 = 20;

/// Whether Read shows files with this extension as images.
pub fn is_image_extension(extension: &str) -> bool {
    matches!(extension, "png" | "jpg" | "jpeg" | "gif" | "webp")
}

/// The kind of image `bytes` hold, by their first bytes.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// An image's width and height from its header, for the kinds Read shows.
fn dimensions(bytes: &[u8], media_type: &str) -> Option<(u32, u32)> {
    let be16 = |at: usize| {
        Some(u32::from(u16::from_be_bytes([
            *bytes.get(at)?,
            *bytes.get(at + 1)?,
        ])))
    };
    let le16 = |at: usize| {
        Some(u32::from(u16::from_le_bytes([
            *bytes.get(at)?,
            *bytes.get(at + 1)?,
        ])))
    };
    let be32 = |at: usize| {
        Some(u32::from_be_bytes([
            *bytes.get(at)?,
            *bytes.get(at + 1)?,
            *bytes.get(at + 2)?,
            *bytes.get(at + 3)?,
        ]))
    };
    match media_type {
        "image/png" => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/webp" => match bytes.get(12..16)? {
            b"VP8X" => {
                let w =
                    u32::from_le_bytes([*bytes.get(24)?, *bytes.get(25)?, *bytes.get(26)?, 0]) + 1;
                let h =
                    u32::from_le_bytes([*bytes.get(27)?, *bytes.get(28)?, *bytes.get(29)?, 0]) + 1;
                Some((w, h))
            }
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let b = bytes.get(21..25)?;
                let bits = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
            }
            _ => None,
        },
        "image/jpeg" => {
            // The frame header (SOF0 to SOF15, but DHT, JPG and DAC) holds the size.
            let mut at = 2;
            while at + 9 < bytes.len() {
                if bytes[at] != 0xff {
                    return None;
                }
                let marker = bytes[at + 1];
                let length = be16(at + 2)? as usize;
                if (0xc0..=0xcf).contains(&marker) && ![0xc4, 0xc8, 0xcc].contains(&marker) {
                    return Some((be16(at + 7)?, be16(at + 5)?));
                }
                at += 2 + length;
            }
            None
        }
        _ => None,
    }
}

/// An image file as an image block.
pub fn image(path: &Path, meta: &std::fs::Metadata, cx: &ToolContext) -> ToolOutput {
    if meta.len() > MAX_IMAGE_BYTES {
        return ToolOutput::failure(format!(
            "File is too large to read as an image (the limit is {}). If it is an image, resize \
             it or export a smaller copy, then read that.",
            human_size(MAX_IMAGE_BYTES)
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => return ToolOutput::failure(format!("{err}: {}", path.display())),
    };
    let Some(media_type) = sniff(&bytes) else {
        let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        return ToolOutput::failure(format!(
            "File has an image extension but its content is not a valid PNG/JPEG/GIF/WebP. \
             Detected: unrecognized bytes (hex: {}). This usually means a download saved an \
             error/login page instead of the image. Use `file \"{}\"` to confirm, or read it as \
             text with Bash (e.g. `head -c 500`).",
            hex.join(" "),
            path.display()
        ));
    };
    if dimensions(&bytes, media_type).is_none() {
        return ToolOutput::failure(
            "Unable to resize image \u{2014} image processing is unavailable and dimensions could \
             not be read from the file header. Please convert the image to PNG, JPEG, GIF, or \
             WebP.",
        );
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    cx.workspace.files.read(path, true);
    ToolOutput {
        follow_up: Vec::new(),
        notes: Vec::new(),
        content: ToolResultContent::Blocks(
            super::super::block(json!({"type": "image", "source": {
                "type": "base64", "data": data, "media_type": media_type}}))
            .into_iter()
            .collect(),
        ),
        is_error: false,
        result: Some(json!({"type": "image", "file": {
            "type": media_type, "originalSize": bytes.len()}})),
    }
}

/// Checks a `pages` value: one page (`"3"`) or one range (`"1-5"`), at most 20 pages.
pub fn check_pages(pages: &str) -> Result<(u32, u32), String> {
    let invalid = || {
        format!(
            "Invalid pages parameter: \"{pages}\". Give one page (\"3\") or one range (\"1-5\"), \
             not a list. To read several pages or ranges, read each one separately. Pages are \
             1-indexed."
        )
    };
    let trimmed = pages.trim();
    let (first, last) = match trimmed.split_once('-') {
        Some((a, b)) => (a.trim().parse::<u32>(), b.trim().parse::<u32>()),
        None => (trimmed.parse::<u32>(), trimmed.parse::<u32>()),
    };
    let (Ok(first), Ok(last)) = (first, last) else {
        return Err(invalid());
    };
    if first == 0 || last < first {
        return Err(invalid());
    }
    if last - first + 1 > MAX_PAGES {
        return Err(format!(
            "Page range \"{pages}\" exceeds maximum of {MAX_PAGES} pages per request. Please use \
             a smaller range."
        ));
    }
    Ok((first, last))
}

/// A PDF as a document block, or some of its pages as images.
pub fn pdf(
    path: &Path,
    meta: &std::fs::Metadata,
    pages: Option<&str>,
    cx: &ToolContext,
) -> ToolOutput {
    if pages.is_some() {
        if which("pdftoppm").is_none() {
            return ToolOutput::failure(
                "pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` \
                 or `apt-get install poppler-utils`) to enable PDF page rendering.",
            );
        }
        return ToolOutput::failure(
            "Reading PDF pages as images is not supported by this agent; read the whole PDF.",
        );
    }
    if meta.len() > MAX_PDF_BYTES {
        return ToolOutput::failure(format!(
            "PDF file exceeds maximum allowed size of {}.",
            human_size(MAX_PDF_BYTES)
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => return ToolOutput::failure(format!("{err}: {}", path.display())),
    };
    if !bytes.starts_with(b"%PDF-") {
        return ToolOutput::failure(format!(
            "File is not a valid PDF (missing %PDF- header): {}",
            path.display()
        ));
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    cx.workspace.files.read(path, true);
    let line = format!(
        "PDF file read: {} ({})",
        path.display(),
        human_size(bytes.len() as u64)
    );
    let mut blocks = Vec::new();
    blocks.extend(super::super::block(json!({"type": "text", "text": line})));
    blocks.extend(super::super::block(json!({"type": "document", "source": {
        "type": "base64", "media_type": "application/pdf", "data": data}})));
    ToolOutput {
        follow_up: Vec::new(),
        notes: Vec::new(),
        content: ToolResultContent::Blocks(blocks),
        is_error: false,
        result: Some(json!({"type": "pdf", "file": {
            "filePath": path.display().to_string(), "originalSize": bytes.len()}})),
    }
}

/// A program on `PATH`.
fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_one_page_or_one_range() {
        assert_eq!(check_pages("3"), Ok((3, 3)));
        assert_eq!(check_pages("1-5"), Ok((1, 5)));
        assert!(check_pages("x-y").is_err());
        assert!(check_pages("1,3").is_err());
        assert!(check_pages("0").is_err());
        assert!(check_pages("1-30").unwrap_err().contains("exceeds"));
    }

    #[test]
    fn sizes_are_read_from_headers() {
        let png = [
            137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 2, 0, 0, 0, 3,
        ];
        assert_eq!(dimensions(&png, "image/png"), Some((2, 3)));
        let jpeg = [
            0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 5, 0, 7, 3, 1, 0x22, 0,
        ];
        assert_eq!(dimensions(&jpeg, "image/jpeg"), Some((7, 5)));
        assert_eq!(dimensions(&[0xff, 0xd8, 0xff, 0xd9], "image/jpeg"), None);
    }

    #[test]
    fn image_kinds_are_told_by_their_bytes() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(sniff(b"GIF89a..."), Some("image/gif"));
        assert_eq!(sniff(b"not an image"), None);
    }
}
