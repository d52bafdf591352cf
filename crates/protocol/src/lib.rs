//! The typed wire schema of Claude Code's stream-json protocol, and its line framing.
//!
//! Claude Code (the `claude` CLI) is driven over newline-delimited JSON on stdin and stdout.
//! This crate has no I/O: it turns one line into one typed value and back.
//!
//! - [`Message`]: every frame the CLI writes to stdout; [`InputMessage`]: every frame a host
//!   writes to the CLI's stdin.
//! - [`control`]: the control plane, requests and responses in both directions.
//! - [`framing`]: a line decoder with a length limit that survives bad input.
//! - [`lenient`]: how frames that do not fit the schema are still read.
//!
//! # Decode policy: a liberal reader, a strict writer
//!
//! Future CLI builds drop and retype fields; third-party agent servers and minimal hosts send
//! partial frames. Reading is therefore liberal, and nothing a peer wrote is lost:
//!
//! - **Only the fields that route a frame are required**: `type`; the `subtype` of a `system`
//!   frame and of a control request or response body; a control frame's `request_id`, a
//!   string or a number ([`control::RequestId`], answered in the same JSON type). A few payloads
//!   that are the frame (a `stream_event`'s `event`, a `hook_callback`'s `input`) are required
//!   too: there is no sensible default for them.
//! - **Every other field reads leniently.** Missing or `null` → absent (`None`) or its default;
//!   an integer given as `10.0` or `"10"` → the number when that loses nothing; a number given
//!   where a string is expected → its text; `"true"` where a boolean is expected → `true`; one
//!   value where a list is expected → a list of one; anything else that does not fit → left out
//!   (the field reads as its default). Unknown values of open string sets land in their
//!   `Other(String)` variant; unknown fields are kept in each struct's `extra` map and written
//!   back; unknown tags are kept whole as [`Unknown`].
//! - **What still cannot be typed is kept raw, in place.** A union object (a content block, a
//!   stream event, a hook input, a control body, a whole frame) whose tag is known but whose
//!   payload cannot be read even after repairs, or that has no tag, becomes that union's
//!   `Malformed` variant: a [`Malformed`] with its tag, its raw JSON and the error, inside an
//!   otherwise typed message. So [`Message::from_json`] reads every JSON object; it fails only
//!   for a line that is not a JSON object.
//! - **Writing is strict**: a value writes back exactly what it holds (what it read, less what
//!   had to be left out), in the field names and shapes the CLI and the SDKs write.
//!
//! Reading has a fast path (serde's strict derive, what almost every frame takes, at no extra
//! cost) and a slow one for what does not fit: see [`lenient`]. Every change the slow path made
//! is listed, with the value as received, by [`Message::decode`] ([`Decoded::repairs`]).
//!
//! ```
//! use twinwire_protocol::Message;
//!
//! let line = r#"{"type":"system","subtype":"session_state_changed","state":"idle","session_id":"s","uuid":"u"}"#;
//! let message = Message::from_json(line).unwrap();
//! assert_eq!(message.kind(), "system/session_state_changed");
//! ```

pub mod content;
pub mod control;
pub mod coverage;
mod delta_line;
mod error;
pub mod events;
pub mod framing;
pub mod hooks;
pub mod lenient;
pub mod limits;
pub mod mcp;
mod message;
mod meta;
pub mod permission;
pub mod recording;
pub mod result;
pub(crate) mod serde_util;
pub mod stream;
pub mod system;
#[cfg(test)]
mod test_fixtures;
pub mod tool_output;
pub mod tools;
#[doc(hidden)]
pub mod union;
pub mod usage;

pub use error::{decode, decode_with_repairs, from_value, DecodeError};

/// The Claude Code version this release is tested against: the one its schema is recorded
/// from, the one `twinwire install-claude` installs by default and the one discovery looks for
/// in twinwire's cache. One constant for the crates and the project's own tooling alike.
pub const CLAUDE_CODE_VERSION: &str = "2.1.330";
pub use lenient::{Decoded, Repair, RepairAction};
pub use message::*;
pub use union::{Malformed, Unknown};
