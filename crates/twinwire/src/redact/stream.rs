//! Secrets split across streamed deltas: the text of one content block (one message's block at
//! one index, for one `parent_tool_use_id`) arrives in `content_block_delta` frames cut
//! anywhere, down to one character each. A recorder (`twinwire tap`'s) holds a delta back until
//! [`LOOKAHEAD`] bytes of its block have followed it, or the block ends, and redacts it with
//! what the text around it shows. The relay is never held: only the recording lags.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::escapes::unescape;
use super::Redactor;

/// Bytes of a block's text that must follow a delta before it is written: a secret whose
/// start is in the delta is recognized within this many bytes after it (the longest key of a
/// known kind is about 110 characters; a named value, its name and 4 characters).
pub const LOOKAHEAD: usize = 1024;

/// The held text is looked at again each time this many bytes have come.
const STEP: usize = 256;

/// Text kept before a secret that goes on past the written part (its name or prefix), so
/// its rest is still recognized.
const CONTEXT_BEFORE: usize = 256;

/// The most text of a block kept from before the written part, for a secret that goes on.
const MAX_CONTEXT: usize = 64 * 1024;

/// Blocks open at once, at most: a new block past this many ends the others (a CLI streams
/// a few at a time; this bounds the memory of one that never ends its blocks).
pub const MAX_OPEN_BLOCKS: usize = 64;

/// One content block of one message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockKey {
    /// The `parent_tool_use_id` of the stream (subagents stream beside the main thread).
    pub parent: Option<String>,
    /// The block's `index` in its message.
    pub index: u64,
}

/// What a frame means for the streamed blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamFrame {
    /// A `content_block_delta` with text (`text`, `thinking` or `partial_json`): its
    /// unescaped text, and the range of the escaped text between its quotes in the line.
    Delta {
        /// The block it belongs to.
        key: BlockKey,
        /// The delta's text, unescaped.
        text: String,
        /// The escaped text between its quotes, as a range of the line.
        interior: Range<usize>,
    },
    /// `content_block_start` or `content_block_stop`: a block begins or ends.
    BlockBoundary(BlockKey),
    /// `message_start` or `message_stop`: every block of that stream ends.
    MessageBoundary(Option<String>),
    /// A `result`: every stream ends.
    TurnEnd,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    event: Option<Event<'a>>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    text: Option<&'a RawValue>,
    #[serde(default, borrow)]
    thinking: Option<&'a RawValue>,
    #[serde(default, borrow)]
    partial_json: Option<&'a RawValue>,
}

/// What `line` (a frame from the CLI) means for the streamed blocks, if anything.
pub fn classify(line: &str) -> Option<StreamFrame> {
    use memchr::memmem::Finder;
    use std::sync::OnceLock;
    // Built once: building a searcher costs more than searching one line.
    static STREAM: OnceLock<Finder<'static>> = OnceLock::new();
    static RESULT: OnceLock<Finder<'static>> = OnceLock::new();
    let stream = STREAM.get_or_init(|| Finder::new("\"stream_event\""));
    let result = RESULT.get_or_init(|| Finder::new("\"result\""));
    if stream.find(line.as_bytes()).is_none() {
        result.find(line.as_bytes())?;
        let frame: Line = serde_json::from_str(line).ok()?;
        return (frame.kind == "result").then_some(StreamFrame::TurnEnd);
    }
    let frame: Line = serde_json::from_str(line).ok()?;
    if frame.kind != "stream_event" {
        return (frame.kind == "result").then_some(StreamFrame::TurnEnd);
    }
    let event = frame.event?;
    let parent = frame.parent_tool_use_id.map(Cow::into_owned);
    let key = |index: Option<u64>| BlockKey {
        parent: parent.clone(),
        index: index.unwrap_or(0),
    };
    match event.kind.as_ref() {
        "content_block_delta" => {
            let delta = event.delta?;
            let raw = delta.text.or(delta.thinking).or(delta.partial_json)?.get();
            let at = raw.as_ptr() as usize - line.as_ptr() as usize;
            // A string literal: the text between its quotes.
            if raw.len() < 2 || !raw.starts_with('"') {
                return None;
            }
            let interior = at + 1..at + raw.len() - 1;
            Some(StreamFrame::Delta {
                key: key(event.index),
                text: unescape(&line[interior.clone()]),
                interior,
            })
        }
        "content_block_start" | "content_block_stop" => {
            Some(StreamFrame::BlockBoundary(key(event.index)))
        }
        "message_start" | "message_stop" => Some(StreamFrame::MessageBoundary(parent)),
        _ => None,
    }
}

/// A delta whose secrets are known: `spans` of its text to redact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// The id the delta was given.
    pub id: u64,
    /// Byte ranges of the delta's (unescaped) text.
    pub spans: Vec<(usize, usize)>,
}

#[derive(Debug)]
struct Held {
    id: u64,
    start: usize,
    end: usize,
}

/// One block's text: what is held, and context before it.
#[derive(Debug, Default)]
struct Block {
    /// The text from `start` (an offset in the block's whole text) on.
    text: String,
    start: usize,
    /// Everything before this offset is written.
    done: usize,
    held: VecDeque<Held>,
}

impl Block {
    fn end(&self) -> usize {
        self.start + self.text.len()
    }

    /// Settles the held deltas that end at `limit` or before.
    fn settle(&mut self, redactor: &Redactor, limit: usize, out: &mut Vec<Settled>) {
        let spans: Vec<(usize, usize)> = redactor
            .spans(&self.text)
            .into_iter()
            .map(|(s, e)| (s + self.start, e + self.start))
            .collect();
        while let Some(held) = self.held.front() {
            if held.end > limit {
                break;
            }
            let piece = spans
                .iter()
                .filter(|&&(s, e)| s < held.end && e > held.start)
                .map(|&(s, e)| (s.max(held.start) - held.start, e.min(held.end) - held.start))
                .collect();
            out.push(Settled {
                id: held.id,
                spans: piece,
            });
            self.done = held.end;
            self.held.pop_front();
        }
        // Keep the look-behind, and the start of a secret that goes on past what is written.
        let mut keep = self.done.saturating_sub(LOOKAHEAD);
        for &(s, e) in &spans {
            if s < self.done && e > self.done {
                keep = keep.min(s.saturating_sub(CONTEXT_BEFORE));
            }
        }
        let keep = keep
            .max(self.done.saturating_sub(MAX_CONTEXT))
            .max(self.start);
        let mut cut = keep - self.start;
        while !self.text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.drain(..cut);
        self.start += cut;
    }
}

/// The blocks being streamed, and their held deltas.
#[derive(Debug, Default)]
pub struct Blocks {
    open: HashMap<BlockKey, Block>,
}

impl Blocks {
    /// A delta of `key`'s block, given `id`; settles what has enough text after it.
    pub fn delta(
        &mut self,
        redactor: &Redactor,
        key: BlockKey,
        id: u64,
        text: &str,
        out: &mut Vec<Settled>,
    ) {
        if self.open.len() >= MAX_OPEN_BLOCKS && !self.open.contains_key(&key) {
            self.end_all(redactor, out);
        }
        let block = self.open.entry(key).or_default();
        let start = block.end();
        block.text.push_str(text);
        block.held.push_back(Held {
            id,
            start,
            end: block.end(),
        });
        let end = block.end();
        if end - block.done >= LOOKAHEAD + STEP {
            block.settle(redactor, end - LOOKAHEAD, out);
        }
    }

    /// The block of `key` ends: its deltas are settled.
    pub fn end_block(&mut self, redactor: &Redactor, key: &BlockKey, out: &mut Vec<Settled>) {
        if let Some(mut block) = self.open.remove(key) {
            block.settle(redactor, usize::MAX, out);
        }
    }

    /// Every block of the stream of `parent` ends.
    pub fn end_message(
        &mut self,
        redactor: &Redactor,
        parent: Option<&str>,
        out: &mut Vec<Settled>,
    ) {
        let keys: Vec<BlockKey> = self
            .open
            .keys()
            .filter(|key| key.parent.as_deref() == parent)
            .cloned()
            .collect();
        for key in keys {
            self.end_block(redactor, &key, out);
        }
    }

    /// Every block ends.
    pub fn end_all(&mut self, redactor: &Redactor, out: &mut Vec<Settled>) {
        for (_, mut block) in self.open.drain() {
            block.settle(redactor, usize::MAX, out);
        }
    }

    /// Settles every held delta now, with the text there is (past the recorder's limits);
    /// the blocks stay open, with their context.
    pub fn settle_all(&mut self, redactor: &Redactor, out: &mut Vec<Settled>) {
        for block in self.open.values_mut() {
            block.settle(redactor, usize::MAX, out);
        }
    }
}
