//! Server-sent events as the Messages API streams them: `event:` and `data:` lines, a blank
//! line ending each event. Bytes come in arbitrary pieces; lines are bounded.

use twinwire_protocol::stream::StreamEvent;

/// The longest line accepted in a stream (a `data:` line holds one event: a text delta, or
/// a whole block at `content_block_start`). Longer means the peer is not the Messages API.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What one finished event was.
#[derive(Debug, Clone, PartialEq)]
pub enum SseItem {
    /// An event of the stream.
    Event(StreamEvent),
    /// An event whose `data` is not JSON, or a line over the limit: the stream is broken.
    Invalid(String),
}

/// Turns chunks of bytes into events.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    data: String,
    overflow: bool,
    /// The event's `data` lines together went over the limit: it is dropped as it comes.
    event_overflow: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk; returns the events it completed, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseItem> {
        let mut items = Vec::new();
        for &byte in chunk {
            if byte != b'\n' {
                if self.line.len() < MAX_LINE_BYTES {
                    self.line.push(byte);
                } else {
                    self.overflow = true;
                }
                continue;
            }
            if self.overflow {
                self.overflow = false;
                self.line.clear();
                items.push(SseItem::Invalid(format!(
                    "a stream line over {MAX_LINE_BYTES} bytes"
                )));
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if let Some(item) = self.line_done(&line) {
                items.push(item);
            }
        }
        items
    }

    /// One complete line: a field, a comment, or the blank line that ends an event.
    fn line_done(&mut self, line: &[u8]) -> Option<SseItem> {
        if line.is_empty() {
            if std::mem::take(&mut self.event_overflow) {
                self.data.clear();
                return Some(SseItem::Invalid(format!(
                    "an event over {MAX_LINE_BYTES} bytes"
                )));
            }
            if self.data.is_empty() {
                return None;
            }
            let data = std::mem::take(&mut self.data);
            return Some(match serde_json::from_str::<StreamEvent>(&data) {
                Ok(event) => SseItem::Event(event),
                Err(err) => SseItem::Invalid(format!("an event that is not JSON ({err})")),
            });
        }
        let text = String::from_utf8_lossy(line);
        if let Some(value) = text.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            // One event split over many `data:` lines is bounded as one line is.
            if self.event_overflow || self.data.len() + value.len() + 1 > MAX_LINE_BYTES {
                self.event_overflow = true;
                self.data = String::new();
                return None;
            }
            if !self.data.is_empty() {
                self.data.push('\n');
            }
            self.data.push_str(value);
        }
        // `event:` repeats the data's own `type`; `id:`, `retry:` and comments are not used.
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_split_over_many_data_lines_is_bounded() {
        let mut parser = SseParser::new();
        let line = format!("data: {}\n", "x".repeat(1024 * 1024));
        let mut items = Vec::new();
        for _ in 0..20 {
            items.extend(parser.feed(line.as_bytes()));
            assert!(parser.data.len() <= MAX_LINE_BYTES);
        }
        items.extend(parser.feed(b"\n"));
        assert!(
            matches!(&items[..], [SseItem::Invalid(why)] if why.contains("an event over")),
            "{items:?}"
        );
        // The stream goes on after it.
        let next = parser.feed(b"data: {\"type\":\"ping\"}\n\n");
        assert!(matches!(&next[..], [SseItem::Event(_)]), "{next:?}");
    }

    const STREAM: &str = "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"x\"}}\r\n\r\n: keep-alive\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hé\"}}\n\n";

    #[test]
    fn events_come_out_whole_however_the_bytes_are_cut() {
        let whole = SseParser::new().feed(STREAM.as_bytes());
        assert_eq!(whole.len(), 2);
        for cut in 1..STREAM.len() {
            let mut parser = SseParser::new();
            let mut items = parser.feed(&STREAM.as_bytes()[..cut]);
            items.extend(parser.feed(&STREAM.as_bytes()[cut..]));
            assert_eq!(items, whole, "cut at {cut}");
        }
        let SseItem::Event(event) = &whole[1] else {
            panic!("{whole:?}")
        };
        assert_eq!(event.text_delta(), Some("hé"));
    }

    #[test]
    fn data_that_is_not_json_is_reported() {
        let items = SseParser::new().feed(b"data: {nope\n\n");
        assert!(matches!(&items[..], [SseItem::Invalid(_)]), "{items:?}");
    }
}
