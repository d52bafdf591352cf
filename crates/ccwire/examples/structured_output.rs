//! Structured output: the final answer conforms to a JSON schema derived from a Rust type.
//!
//! `cargo run -p ccwire --example structured_output`
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use ccwire::protocol::Message;
use ccwire::{query, Options};
use futures::StreamExt;
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug` only.
struct Capital {
    country: String,
    capital: String,
    population_millions: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = serde_json::to_value(schemars::schema_for!(Capital))?;
    let options = Options::builder().json_schema(schema).build()?;
    let mut messages = query("Tell me about the capital of Japan.", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            match &result.structured_output {
                Some(value) => {
                    let capital: Capital = serde_json::from_value(value.clone())?;
                    println!("{capital:?}");
                }
                None => println!("no structured output: {:?}", result.text()),
            }
        }
    }
    Ok(())
}
