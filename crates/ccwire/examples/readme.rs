//! The example at the top of the README, as it stands there (a test keeps the two equal).
//!
//! With an API key: `cargo run -p ccwire --example readme`
//!
//! Offline: `cargo run -p ccwire --example offline -- readme`.
#![allow(clippy::print_stdout)] // An example prints its results.

use ccwire::protocol::Message;
use ccwire::{query, Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ccwire::Result<()> {
    let mut messages = query("What is 2 + 2?", Options::default());
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.text().unwrap_or_default());
        }
    }
    Ok(())
}
