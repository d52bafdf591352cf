//! The example at the top of the README, as it stands there (a test keeps the two equal).
//!
//! With an API key: `cargo run -p twinwire --example readme`
//!
//! Offline, with no account: `cargo run -p twinwire-cli -- offline --model-script
//! crates/twinwire/examples/scripts/readme.json -- cargo run -p twinwire --example readme`
//! (or `cargo run -p twinwire --example offline -- readme`).
#![allow(clippy::print_stdout)] // An example prints its results.

use futures::StreamExt;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let mut messages = query("What is 2 + 2?", Options::default());
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.answer()?);
        }
    }
    Ok(())
}
