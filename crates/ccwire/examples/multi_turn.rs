//! A multi-turn session on one process, with an interrupt of a long answer.
//!
//! `cargo run -p ccwire --example multi_turn`
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use std::time::Duration;

use ccwire::protocol::Message;
use ccwire::{Client, Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ccwire::Result<()> {
    let client = Client::connect(Options::default()).await?;

    client.send("Remember the number 42.").await?;
    print_turn(&client).await?;

    // Start a long answer and stop it after a second.
    client
        .send("Write a 2,000 word essay about rivers.")
        .await?;
    let interrupter = client.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let _ = interrupter.interrupt().await;
    });
    print_turn(&client).await?;

    client
        .send("Which number did I ask you to remember?")
        .await?;
    print_turn(&client).await?;

    client.close().await?;
    Ok(())
}

async fn print_turn(client: &Client) -> ccwire::Result<()> {
    let mut turn = std::pin::pin!(client.receive_response());
    while let Some(message) = turn.next().await {
        match message? {
            Message::Assistant(reply) => println!("{}", reply.message.text()),
            Message::Result(result) => println!("-- {}", result.subtype),
            _ => {}
        }
    }
    Ok(())
}
