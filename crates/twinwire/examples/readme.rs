//! The example at the top of the README, as it stands there (a test keeps the two equal).
//!
//! With an API key: `cargo run -p twinwire --example readme`
//!
//! Offline: `cargo run -p twinwire --example offline -- readme`.
#![allow(clippy::print_stdout)] // An example prints its results.

use futures::StreamExt;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let mut messages = query("What is 2 + 2?", Options::default());
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.text().unwrap_or_default());
        }
    }
    Ok(())
}
