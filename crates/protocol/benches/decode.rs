#![allow(clippy::unwrap_used)]
//! Decoding a 100,000-frame stdout stream (99,000 `stream_event` + 1,000 `assistant` frames,
//! shaped like the CLI's), framed by [`LineDecoder`] and parsed into typed [`Message`]s, beside a
//! bare `serde_json::Value` parse of the same lines in the same run.
//!
//! Run with `cargo bench -p twinwire-protocol --bench decode`.

use divan::{black_box, Bencher};
use twinwire_protocol::framing::LineDecoder;
use twinwire_protocol::Message;

fn main() {
    divan::main();
}

const FRAMES: usize = 100_000;
const CHUNK: usize = 64 * 1024;

/// The stream, as the CLI writes it.
fn stream() -> Vec<u8> {
    let mut out = String::new();
    for i in 0..FRAMES {
        if i % 100 == 99 {
            out.push_str(&format!(
                concat!(
                    r#"{{"type":"assistant","message":{{"id":"msg_{i:08}","type":"message","role":"assistant","#,
                    r#""model":"claude-sonnet-4-5","content":[{{"type":"text","text":"Paragraph {i}: the quick brown fox jumps over the lazy dog, and then explains at some length why it did so, with a \"quoted\" aside and a newline\nat the end."}}],"#,
                    r#""stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":1200,"cache_creation_input_tokens":0,"cache_read_input_tokens":3400,"output_tokens":87,"service_tier":"standard"}}}},"#,
                    r#""parent_tool_use_id":null,"session_id":"17410156-3eed-4557-8a29-3759344b834a","uuid":"73941eff-454f-45d0-968b-{i:012}"}}"#,
                    "\n"
                ),
                i = i
            ));
        } else {
            out.push_str(&format!(
                concat!(
                    r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"word{i} "}}}},"#,
                    r#""session_id":"17410156-3eed-4557-8a29-3759344b834a","parent_tool_use_id":null,"uuid":"612c63b0-a116-4241-a531-{i:012}"}}"#,
                    "\n"
                ),
                i = i
            ));
        }
    }
    out.into_bytes()
}

/// Frames `bytes` in 64 KiB reads and hands each line to `parse`; returns the frame count.
fn decode_with(bytes: &[u8], mut parse: impl FnMut(&str)) -> usize {
    let mut decoder = LineDecoder::new();
    let mut count = 0;
    for chunk in bytes.chunks(CHUNK) {
        decoder.push(chunk);
        while let Some(Ok(line)) = decoder.next_line() {
            parse(line.text);
            count += 1;
        }
    }
    count
}

#[divan::bench(sample_count = 20)]
fn typed_message(bencher: Bencher) {
    let bytes = stream();
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| {
            let count = decode_with(&bytes, |line| {
                black_box(Message::from_json(line).expect("valid frame"));
            });
            assert_eq!(count, FRAMES);
        });
}

#[divan::bench(sample_count = 20)]
fn serde_json_value(bencher: Bencher) {
    let bytes = stream();
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| {
            let count = decode_with(&bytes, |line| {
                black_box(serde_json::from_str::<serde_json::Value>(line).expect("valid JSON"));
            });
            assert_eq!(count, FRAMES);
        });
}

#[divan::bench(sample_count = 20)]
fn framing_only(bencher: Bencher) {
    let bytes = stream();
    bencher
        .counter(divan::counter::BytesCount::new(bytes.len()))
        .bench(|| {
            let count = decode_with(&bytes, |line| {
                black_box(line);
            });
            assert_eq!(count, FRAMES);
        });
}
