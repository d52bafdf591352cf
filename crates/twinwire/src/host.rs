//! The host side: start the `claude` CLI and drive it.
//!
//! - [`query`] runs one prompt and streams its messages; [`Client`] holds a multi-turn session
//!   with the whole control plane.
//! - [`Host`]: the host's answers to the CLI's requests, one method per request with a
//!   default (the twin of [`Agent`](crate::agent::Agent)); [`callbacks`]: the closures the
//!   options builder makes a `Host` of; `control` serves each incoming request with the `Host`,
//!   fail-closed.
//! - [`process`]: finding, starting and stopping the CLI.
//! - [`pool`]: many sessions of one set of options, bounded, queued fairly, with prewarmed
//!   spares and per-session budgets.
//! - [`options`]: every option of the official SDKs, and how each reaches the CLI (argv,
//!   environment, `initialize`).
//! - [`launch`]: where the CLI runs (here, through `ssh`/`docker exec`/…, or your transport).
//! - [`reattach`]: a record of each live session, and its re-attach after the host crashed.
//! - [`parking`]: durable approvals, requests parked in a store until answered from elsewhere.

pub mod callbacks;
mod client;
mod control;
pub mod decisions;
mod explaining;
pub mod fleet;
mod handler;
pub mod launch;
mod lifecycle;
pub mod limits;
pub mod options;
pub mod parking;
pub mod pool;
pub mod process;
mod progress;
mod query;
pub mod reattach;
mod spans;
mod transcripts;
pub mod usage;
pub mod warnings;
mod watch;

pub use callbacks::PermissionRequest;
pub use client::{Client, Messages, Reinitialized};
pub use decisions::PermissionDecision;
pub use fleet::{Fleet, FleetHost, FleetSession};
pub use handler::{HookCall, Host};
pub use pool::{Pool, PoolConfig, PooledClient};
pub use query::{query, MessageStream, Prompt};
pub use reattach::{ReattachReport, Reattached};
pub use usage::{AgentUsage, Tokens, ToolCallUsage, TurnUsage};
pub use warnings::Warning;
