//! What held frames really cost, measured by an allocator that counts: the budget's estimate
//! of a decoded frame bounds its memory, and a flood of frames the reader decodes (unknown
//! kinds) is held within the budget.
//!
//! The counting allocator wraps the system's for this whole test binary; each thread counts
//! its own live bytes, so that tests running beside each other do not disturb the figures
//! (the engine tests here run on a current-thread runtime: reader, peer and user on one
//! thread). A block is counted as glibc's malloc spends it: the size plus an 8-byte header,
//! rounded up to 16, at least 32.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use super::*;
use crate::engine::budget::decoded_cost;

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn block(size: usize) -> isize {
    isize::try_from(((size + 8 + 15) & !15).max(32)).unwrap_or(isize::MAX)
}

fn count(delta: isize) {
    // After the thread's locals are gone (its last frees), nothing is counted.
    let _ = LIVE.try_with(|live| live.set(live.get() + delta));
}

/// The live bytes this thread allocated and has not freed.
fn live() -> isize {
    LIVE.with(Cell::get)
}

// SAFETY: every call is passed on to the system allocator unchanged; only counts are added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(block(layout.size()));
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(block(layout.size()));
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-block(layout.size()));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            count(block(new_size) - block(layout.size()));
        }
        moved
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Small objects cost many times their text: the shapes that cost most per byte.
fn odd_frames() -> Vec<String> {
    let mut frames = vec![
        r#"{"type":"x_future"}"#.to_owned(),
        r#"{"type":"x_future","a":{"b":{"c":{"d":{"e":{}}}}}}"#.to_owned(),
        r#"{"type":"x_future","list":[[],[],[],[],[],[],[]]}"#.to_owned(),
        r#"{"type":"x_future","list":[{"a":1},{"b":2},{"c":3},{"d":4}]}"#.to_owned(),
        r#"{"type":"x_future","s":["","","","","",""]}"#.to_owned(),
        r#"{"type":"system","subtype":"init"}"#.to_owned(),
        r#"{"type":"system","subtype":"x_future","a":{"b":[1,2,{"c":"d"}]}}"#.to_owned(),
        r#"{"type":"result","subtype":"success","is_error":false}"#.to_owned(),
        r#"{"type":"result","subtype":"success","is_error":"maybe","usage":[1]}"#.to_owned(),
        r#"{"type":"tool_progress","tool_use_id":"t","tool_name":"Bash"}"#.to_owned(),
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}"#.to_owned(),
        r#"{"type":"user","message":{"role":"user","content":"a"}}"#.to_owned(),
    ];
    let wide: Vec<String> = (0..200).map(|i| format!(r#""k{i}":{{}}"#)).collect();
    frames.push(format!(r#"{{"type":"x_future",{}}}"#, wide.join(",")));
    let deep = "[".repeat(100) + &"]".repeat(100);
    frames.push(format!(r#"{{"type":"x_future","deep":{deep}}}"#));
    frames
}

/// Every frame the CLIs wrote in the project's recordings, as its line.
fn recorded_frames() -> Vec<String> {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts");
    let mut frames = Vec::new();
    for version in std::fs::read_dir(&root).unwrap().flatten() {
        for file in std::fs::read_dir(version.path()).unwrap().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".jsonl") || name.ends_with(".api.jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(file.path()).unwrap();
            for line in text.lines() {
                let recorded: Value = serde_json::from_str(line).unwrap();
                if recorded["dir"] == "out" {
                    frames.push(recorded["msg"].to_string());
                }
            }
        }
    }
    assert!(
        frames.len() > 1_000,
        "only {} recorded frames",
        frames.len()
    );
    frames
}

#[test]
fn a_decoded_frame_costs_at_most_its_estimate() {
    let mut frames = odd_frames();
    frames.extend(recorded_frames());
    let mut worst = (0.0f64, String::new());
    for text in &frames {
        let before = live();
        let decoded = Message::from_json(text);
        let cost = live() - before;
        drop(decoded);
        let estimate = decoded_cost(text);
        assert!(
            cost <= isize::try_from(estimate).unwrap(),
            "{cost} bytes held, {estimate} estimated, for {text}"
        );
        let ratio = cost as f64 / text.len() as f64;
        if ratio > worst.0 {
            worst = (ratio, text.clone());
        }
    }
    // The text alone is not a bound: some frames cost many times their length.
    assert!(worst.0 > 8.0, "{worst:?}");
}

/// An unknown kind, about 250 bytes, nested like the CLI's frames: decoded by the reader (the
/// engine cannot know it is only data), so what waits for the user is a JSON tree.
fn unknown_frame(i: usize) -> String {
    format!(
        r#"{{"type":"x_future_event","uuid":"u-{i}","session_id":"s","event":{{"kind":"tick","n":{i},"tags":["a","b","c"],"detail":{{"ok":true,"at":[1,2,3],"by":{{"who":"x"}}}}}},"meta":{{"v":1}}}}"#
    )
}

/// A peer floods unknown kinds and the user takes nothing: what the engine holds, counted by
/// the allocator, stays within the budget (plus the reader's one read and the pipe), where
/// charging only their text held several times the budget.
#[tokio::test(flavor = "current_thread")]
async fn a_flood_of_decoded_frames_is_held_within_the_budget() {
    const BUDGET: usize = 1024 * 1024;
    let before = live();
    let (our_reader, mut peer_writer) = tokio::io::duplex(8 * 1024);
    let (_peer_reader, our_writer) = tokio::io::duplex(64 * 1024);
    let config = EngineConfig {
        max_buffered_bytes: BUDGET,
        ..EngineConfig::default()
    };
    let (connection, inbound) = Connection::start::<HostSide, _, _>(
        our_reader,
        our_writer,
        Arc::new(NoHandler),
        config,
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    let written = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&written);
    let writing = tokio::spawn(async move {
        for i in 0..200_000 {
            let line = unknown_frame(i) + "\n";
            peer_writer.write_all(line.as_bytes()).await.unwrap();
            counted.fetch_add(line.len(), Ordering::Relaxed);
        }
    });
    // Until the reader stops (the budget is full) and the peer's writes block.
    let mut last = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = written.load(Ordering::Relaxed);
        if now == last {
            break;
        }
        last = now;
    }
    assert!(!writing.is_finished(), "the reader never stopped");
    let held = live() - before;
    let text_held = connection.shared.budget.held();
    // The budget, one read past it (8 KiB of text through this pipe, about 250 KB decoded),
    // the reader's buffer and the pipes: half the budget is room enough. Charged their text,
    // the same frames held ten times the budget.
    let bound = BUDGET + BUDGET / 2;
    assert!(
        held <= isize::try_from(bound).unwrap(),
        "{held} bytes held for a budget of {BUDGET} (charged {text_held}), after {last} bytes \
         written"
    );
    drop(inbound);
    writing.abort();
}
