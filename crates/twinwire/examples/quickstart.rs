//! One prompt, every message printed as it arrives.
//!
//! With an API key: `cargo run -p twinwire --example quickstart -- "What is the capital of France?"`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- quickstart "What is the capital of France?"`.
//! The script (`examples/scripts/quickstart.json`) knows that question and echoes any other.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Say hello".to_owned());
    let mut messages = query(prompt, Options::default());
    while let Some(message) = messages.next().await {
        match message? {
            Message::Assistant(reply) => println!("{}", reply.message.text()),
            Message::Result(result) => {
                println!(
                    "-- {} turn(s), ${:.4}",
                    result.num_turns, result.total_cost_usd
                );
            }
            other => eprintln!("[{}]", other.kind()),
        }
    }
    Ok(())
}
