//! [`Profile`]: what the agent side's server needs to know of an agent before the first
//! frame.

use super::Framing;

/// What the server needs to know of an agent before the first frame.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Profile {
    /// What the server writes around each turn.
    pub framing: Framing,
    /// The session's id, written on every frame (a resumed session keeps its own); `None`
    /// for a new random one.
    pub session_id: Option<String>,
    /// Whether a turn ends itself when the host interrupts it (it watches
    /// [`Peer::interrupted`](super::Peer::interrupted) and returns the result to write, having written what Claude Code
    /// writes for an interrupted turn). Otherwise the server stops the turn and writes the
    /// interrupted-turn marker and an aborted result. A turn that watches is given
    /// [`INTERRUPT_GRACE`](super::INTERRUPT_GRACE) to end before it is stopped all the same.
    pub watches_interrupts: bool,
    /// Whether `system/session_state_changed` (`running`, `idle`) is written around turns:
    /// Claude Code writes it only for a host that says it reads it
    /// (`CLAUDE_CODE_SDK_READS_SESSION_STATE=1`).
    pub session_state_events: bool,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            framing: Framing::Managed,
            session_id: None,
            watches_interrupts: false,
            session_state_events: true,
        }
    }
}

impl Profile {
    /// The profile of a managed agent (the default).
    pub fn new() -> Self {
        Self::default()
    }

    /// With this framing.
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    /// With this session id.
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Turns end themselves when interrupted.
    pub fn watches_interrupts(mut self, on: bool) -> Self {
        self.watches_interrupts = on;
        self
    }

    /// Whether `system/session_state_changed` is written.
    pub fn session_state_events(mut self, on: bool) -> Self {
        self.session_state_events = on;
        self
    }
}
