//! Drive Claude Code from Rust, or serve its stream-json protocol.
//!
//! One prompt, with a permission callback that decides which tools run:
//!
//! ```no_run
//! use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
//! use twinwire::protocol::permission::PermissionResult;
//! use twinwire::protocol::Message;
//! use twinwire::{query, Options};
//! use futures::StreamExt;
//!
//! #[tokio::main]
//! async fn main() -> twinwire::Result<()> {
//!     // Reads run; anything else is refused, with a reason the model is told.
//!     let policy = can_use_tool(|request: PermissionRequest| async move {
//!         Ok(match request.tool_name() {
//!             "Read" | "Glob" | "Grep" => PermissionResult::allow(request.input().clone()),
//!             other => PermissionResult::deny(format!("{other} is not allowed here")),
//!         })
//!     });
//!     let options = Options::builder().can_use_tool(policy).build()?;
//!     let mut messages = query("Summarize README.md", options);
//!     while let Some(message) = messages.next().await {
//!         match message? {
//!             Message::Assistant(reply) => println!("{}", reply.message.text()),
//!             Message::Result(result) => println!("-- {}", result.subtype),
//!             _ => {} // system, user and stream frames, typed as well
//!         }
//!     }
//!     Ok(())
//! }
//! ```
//!
//! It runs the `claude` CLI (found on `PATH`, in the usual install locations, at
//! `$TWINWIRE_CLI_PATH`, or in twinwire's cache, where `twinwire::install` (feature `install`) and
//! `twinwire install-claude` put the pinned version) with your credentials, which is why the doc
//! tests build this example but do not run it; `examples/offline.rs` runs the same code against
//! a scripted model. More in the repository:
//!
//! - `crates/twinwire/examples/`: `quickstart`, `streaming` (partial messages), `permissions`
//!   (allow, rewrite, deny), `hooks`, `mcp_tool` (an in-process MCP tool), `multi_turn` (a
//!   [`Client`] session with an interrupt), `structured_output` (a JSON schema from a Rust
//!   type), `subagents`; each runs with an API key (`cargo run -p twinwire --example NAME`) or
//!   offline, with no key, against a scripted model and a private HOME (`cargo run -p twinwire
//!   --example offline -- NAME`). `echo_agent` serves the CLI's side instead.
//! - `docs/`: every option (`options.md`), failure handling (`reliability.md`), saved
//!   sessions (`sessions.md`), the offline model server (`model-server.md`), the map of the
//!   code (`architecture.md`).
//!
//! The crate mirrors the wire: one engine, and a side on each end of it.
//!
//! ```text
//!   host/  (we drive `claude`)                 agent/  (we are the CLI's side)
//!   query(), Client, Host, control,            serve(), Agent, Peer, Reply
//!   progress (when stdin closes), process
//!            \                                  /
//!             engine/: Connection over any AsyncRead/AsyncWrite pair
//!             reader (frames, routes) · writer (ordered output)
//!             peer_requests (each its own task) · pending (ours)
//!                              |
//!             twinwire-protocol: typed frames and line framing, no I/O
//! ```
//!
//! - [`host`]: [`query`] runs one prompt and streams typed messages; [`Client`] holds a
//!   multi-turn session with the whole control plane (interrupt, model and permission-mode
//!   switches, MCP, context usage, rewind, …); [`host::callbacks`] answers permissions, hooks
//!   and elicitation from Rust; [`host::process`] finds, starts and stops the CLI.
//! - [`agent`]: serve the CLI's end of the protocol, so a host (an official SDK, or twinwire's
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
#[cfg(feature = "policy")]
pub mod explain;
pub mod host;
#[cfg(feature = "install")]
pub mod install;
pub mod mcp;
#[cfg(feature = "policy")]
pub mod policy;
pub mod redact;
pub mod sessions;
pub mod settings;
mod trace;

pub use error::{EndReason, Error, Result};
pub use host::options;
pub use host::{query, Client, MessageStream, Prompt};
pub use options::Options;
pub use twinwire_protocol as protocol;
