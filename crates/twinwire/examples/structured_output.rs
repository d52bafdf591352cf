//! Structured output: the final answer conforms to a JSON schema derived from a Rust type.
//!
//! With an API key: `cargo run -p twinwire --example structured_output`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- structured_output`. The script
//! (`examples/scripts/structured_output.json`) answers through the `StructuredOutput` tool the
//! CLI offers for the schema, as a real model does.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug` only.
struct Capital {
    country: String,
    capital: String,
    population_millions: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Draft 7: Claude Code 2.1.330 refuses a schema that declares draft 2020-12 (schemars'
    // default) with "--json-schema is not a valid JSON Schema".
    let schema = SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<Capital>();
    let options = Options::builder()
        .json_schema(serde_json::to_value(schema)?)
        .build()?;
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
