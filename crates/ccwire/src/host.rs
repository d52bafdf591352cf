//! The host side: start the `claude` CLI and drive it.
//!
//! - [`query`] runs one prompt and streams its messages; [`Client`] holds a multi-turn session
//!   with the whole control plane.
//! - [`callbacks`]: the traits a host answers the CLI's requests with (permissions, hooks,
//!   elicitation); `dispatch` routes each incoming request to them.
//! - [`process`]: finding, starting and stopping the CLI.
//! - [`pool`]: many sessions of one set of options, bounded, queued fairly, with prewarmed
//!   spares and per-session budgets.
//! - [`launch`]: where the CLI runs (here, through `ssh`/`docker exec`/…, or your transport).

pub mod callbacks;
mod client;
mod dispatch;
pub mod launch;
pub mod pool;
pub mod process;
mod progress;
mod query;

pub use client::{Client, Reinitialized};
pub use pool::{Pool, PoolConfig, PooledSession};
pub use query::{query, MessageStream, Prompt};
