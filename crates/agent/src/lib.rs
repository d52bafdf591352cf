//! A coding agent behind Claude Code's stream-json protocol.
//!
//! `twinwire-agent` reads Claude Code's command line and serves its end of the wire with
//! twinwire's agent side ([`twinwire::agent::serve`]), so the official SDKs and twinwire's own
//! host drive it as they drive `claude`: its own model loop over the Messages API
//! ([`model`]), Claude Code's tools by the same names and input schemas ([`tools`]), the
//! permission rules of `twinwire-policy` and the host's `can_use_tool`, the host's hooks, and
//! sessions saved where and as Claude Code saves them.
//!
//! A session is configured from the command line a host gives `claude`, as the binary reads
//! it; [`serve_stdio`] then serves it (not run here: it reads stdin and calls the model):
//!
//! ```
//! use twinwire_agent::{Args, Config};
//! use clap::Parser as _;
//!
//! let args = Args::try_parse_from([
//!     "twinwire-agent", "--input-format", "stream-json", "--output-format", "stream-json",
//!     "--model", "sonnet", "--max-turns", "3",
//! ])?;
//! let config = Config::from_args_in(&args, Default::default(), std::env::temp_dir())?;
//! assert!(config.model.contains("sonnet"));
//! assert_eq!(config.max_turns, Some(3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod agent;
mod agent_hooks;
pub mod agents;
pub mod args;
mod beneath;
mod checkpoints;
pub mod child_env;
pub mod command_hooks;
mod commands;
mod compaction;
pub mod config;
mod context_usage;
mod flag_settings;
mod history;
pub mod hooks;
mod host_files;
mod http_hooks;
pub mod in_process;
mod listings;
mod mcp;
mod mcp_call;
mod mcp_control;
pub mod memory;
pub mod model;
mod nested_memory;
pub mod output_styles;
pub mod permissions;
mod plan_file;
mod plan_mode;
pub mod prompt;
mod prompt_hooks;
pub mod reaper;
mod refusal;
mod requests;
mod session;
pub mod session_end;
mod session_info;
mod session_requests;
pub mod settings;
pub mod state;
mod subagents;
mod tasks;
mod thread;
pub mod tools;
pub mod transcript;
mod turn;

pub use agent::{serve_stdio, CodingAgent, Served, StartError};
pub use args::Args;
pub use config::{Config, ConfigError, Limits, SessionStart};
pub use state::State;

/// The version `system/init` and the `initialize` answer name, in Claude Code's
/// `claude_code_version` field.
pub const VERSION: &str = concat!("twinwire-agent ", env!("CARGO_PKG_VERSION"));
