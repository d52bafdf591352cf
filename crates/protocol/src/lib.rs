//! The typed wire schema of Claude Code's stream-json protocol, and its line framing.
//!
//! Claude Code (the `claude` CLI) is driven over newline-delimited JSON on stdin and stdout.
//! This crate has no I/O: it turns one line into one typed value and back.
//!
//! - [`Message`]: every frame the CLI writes to stdout; [`InputMessage`]: every frame a host
//!   writes to the CLI's stdin.
//! - [`control`]: the control plane, requests and responses in both directions.
//! - [`framing`]: a line decoder with a length limit that survives bad input.
//!
//! Forward compatibility is the rule everywhere: a `type` or `subtype` this version does not
//! know becomes an [`Unknown`] that keeps the whole object, an unknown string value lands in an
//! `Other(String)` variant, and fields nobody has declared are kept in each struct's `extra` map
//! and written back. A known kind with a broken payload is a [`DecodeError`] that names the kind
//! and the field.
//!
//! ```
//! use ccwire_protocol::Message;
//!
//! let line = r#"{"type":"system","subtype":"session_state_changed","state":"idle","session_id":"s","uuid":"u"}"#;
//! let message = Message::from_json(line).unwrap();
//! assert_eq!(message.kind(), "system/session_state_changed");
//! ```

pub mod content;
pub mod control;
pub mod coverage;
mod error;
pub mod events;
pub mod framing;
pub mod hooks;
pub mod lenient;
pub mod mcp;
mod message;
pub mod permission;
pub mod result;
pub(crate) mod serde_util;
pub mod stream;
pub mod system;
#[doc(hidden)]
pub mod union;
pub mod usage;

pub use error::{decode, decode_with_repairs, from_value, DecodeError};
pub use lenient::{Decoded, Repair, RepairAction};
pub use message::*;
pub use union::{Malformed, Unknown};
