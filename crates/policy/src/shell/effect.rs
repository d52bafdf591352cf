//! What a command does beyond printing, as the checks of the table and of `git` say it.

use super::Word;

/// An entry's own check of a command's words (after the name).
pub type Check = fn(&[Word]) -> Option<Effect>;

/// What a command of a [`Known`](super::known::Known) program does beyond printing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// It may run another program (why).
    Runs(String),
    /// It writes, deletes or changes something (why).
    Writes(String),
}
