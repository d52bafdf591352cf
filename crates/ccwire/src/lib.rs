//! Drive Claude Code from Rust, or serve its stream-json protocol.
//!
//! The crate mirrors the wire: one engine, and a side on each end of it.
//!
//! ```text
//!   host/  (we drive `claude`)                 agent/  (we are the CLI's side)
//!   query(), Client, callbacks, dispatch,      serve(), Agent, Session, Reply
//!   progress (when stdin closes), process
//!            \                                  /
//!             engine/: Connection over any AsyncRead/AsyncWrite pair
//!             reader (frames, routes) · writer (ordered output)
//!             peer_requests (each its own task) · pending (ours)
//!                              |
//!             ccwire-protocol: typed frames and line framing, no I/O
//! ```
//!
//! - [`host`]: [`query`] runs one prompt and streams typed messages; [`Client`] holds a
//!   multi-turn session with the whole control plane (interrupt, model and permission-mode
//!   switches, MCP, context usage, rewind, …); [`host::callbacks`] answers permissions, hooks
//!   and elicitation from Rust; [`host::process`] finds, starts and stops the CLI.
//! - [`agent`]: serve the CLI's end of the protocol, so a host (an official SDK, or ccwire's
//!   own host side) can drive a Rust agent.
//! - [`engine`]: the connection engine both sides share.
//! - [`options`]: every option of the official SDKs, and how each reaches the CLI;
//!   [`mcp`]: in-process MCP tools; [`policy`] (feature `policy`, on by default): Claude
//!   Code's permission rules as a `can_use_tool` callback that allows only what it proves.
//!
//! docs/architecture.md follows one frame through each direction and lists where every control
//! subtype is handled.

pub mod agent;
pub mod engine;
mod error;
pub mod host;
pub mod mcp;
pub mod options;
#[cfg(feature = "policy")]
pub mod policy;
pub mod sessions;

pub use ccwire_protocol as protocol;
pub use error::{EndReason, Error, Result};
pub use host::{query, Client, MessageStream, Prompt};
pub use options::Options;
