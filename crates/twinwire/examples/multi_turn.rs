//! A multi-turn session on one process: each answer is printed as the model writes it, and a
//! long one is interrupted once its first words are out; the session goes on after it.
//!
//! With an API key: `cargo run -p twinwire --example multi_turn`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- multi_turn`. The script
//! (`examples/scripts/multi_turn.json`) streams the essay slowly (15 s), so the interrupt
//! stops it long before its end.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use std::io::Write;

use futures::StreamExt;
use twinwire::protocol::Message;
use twinwire::{Client, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let options = Options::builder().include_partial_messages(true).build()?;
    let client = Client::connect(options).await?;

    turn(&client, "Remember the number 42.", None).await?;
    // A long answer, stopped once its first 20 words have arrived.
    turn(&client, "Write a 2,000 word essay about rivers.", Some(20)).await?;
    turn(&client, "Which number did I ask you to remember?", None).await?;

    client.close().await?;
    Ok(())
}

/// Sends `prompt` and prints the answer as it streams; with `stop_after` words, interrupts it
/// once that many have arrived.
async fn turn(client: &Client, prompt: &str, stop_after: Option<usize>) -> twinwire::Result<()> {
    println!("> {prompt}");
    client.send(prompt).await?;
    let mut words = 0;
    let mut interrupted = false;
    let mut messages = std::pin::pin!(client.receive_response());
    while let Some(message) = messages.next().await {
        match message? {
            Message::StreamEvent(frame) => {
                let Some(text) = frame.event.text_delta() else {
                    continue;
                };
                print!("{text}");
                let _ = std::io::stdout().flush();
                words += text.split_whitespace().count();
                if !interrupted && stop_after.is_some_and(|limit| words >= limit) {
                    interrupted = true;
                    // The answer keeps streaming until the CLI has stopped it; this turn's
                    // result then says so.
                    client.interrupt().await?;
                    print!(" [interrupt sent]");
                }
            }
            Message::Result(result) => println!("\n-- {}", result.subtype),
            _ => {}
        }
    }
    Ok(())
}
