//! A coding agent behind Claude Code's stream-json protocol.
//!
//! `ccwire-agent` reads Claude Code's command line and serves its end of the wire with
//! ccwire's agent side ([`ccwire::agent::serve`]), so the official SDKs and ccwire's own
//! host drive it as they drive `claude`: its own model loop over the Messages API
//! ([`model`]), Claude Code's tools by the same names and input schemas ([`tools`]), the
//! permission rules of `ccwire-policy` and the host's `can_use_tool`, the host's hooks, and
//! sessions saved where and as Claude Code saves them.

pub mod agent;
pub mod args;
pub mod config;
pub mod hooks;
pub mod in_process;
pub mod model;
pub mod permissions;
pub mod prompt;
pub mod session_end;
pub mod tools;
pub mod transcript;

pub use agent::{serve_stdio, CodingAgent, StartError};
pub use args::Args;
pub use config::{Config, ConfigError, Limits, SessionStart};
