//! Partial messages: print the text as the model writes it.
//!
//! With an API key: `cargo run -p twinwire --example streaming -- "Write a haiku about pipes"`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- streaming "Write a haiku about pipes"`. The
//! script (`examples/scripts/streaming.json`) streams a haiku, or the count to ten asked by
//! default, in pieces 80 ms apart; "Tell a long story" takes 15 s, to stop with Ctrl-C.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use std::io::Write;

use futures::StreamExt;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Count to ten".to_owned());
    let options = Options::builder().include_partial_messages(true).build()?;
    let mut messages = query(prompt, options);
    let mut stdout = std::io::stdout();
    while let Some(message) = messages.next().await {
        match message? {
            Message::StreamEvent(frame) => {
                if let Some(text) = frame.event.text_delta() {
                    print!("{text}");
                    let _ = stdout.flush();
                }
            }
            Message::Result(_) => println!(),
            _ => {}
        }
    }
    Ok(())
}
