//! Drive Claude Code from Rust, or serve its stream-json protocol.
//!
//! - [`query`] runs one prompt and streams typed messages; [`Client`] holds a multi-turn
//!   session with the whole control plane (interrupt, model and permission-mode switches,
//!   MCP, context usage, rewind, …).
//! - [`callbacks`]: permissions, hooks and elicitation answered from Rust; [`mcp`]:
//!   in-process MCP tools.
//! - [`engine`]: the connection engine both ends of the wire share.
//! - [`transport`]: finding, starting and stopping the CLI.

pub mod agent;
pub mod callbacks;
mod client;
mod dispatch;
pub mod engine;
mod error;
pub mod mcp;
pub mod options;
mod query;
pub mod transport;

pub use ccwire_protocol as protocol;
pub use client::Client;
pub use error::{Error, Result};
pub use options::Options;
pub use query::{query, MessageStream, Prompt};
