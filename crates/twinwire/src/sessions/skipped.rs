//! What reading a transcript left out, and why: each damaged line costs its own entry, not
//! the session, and is reported with its line number.

/// At most this many are kept in detail; the rest are only counted.
pub(crate) const MAX_REPORTED: usize = 1000;

/// A line of a transcript that was left out, or a chain of parents cut short.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Skipped {
    /// The line is not valid UTF-8: its entry is not shown (the entries around it are).
    #[error("line {line}: not valid UTF-8 (first bad byte at {offset} in the line): skipped")]
    InvalidUtf8 {
        /// Its 1-based line number.
        line: u64,
        /// Where in the line the first bad byte is.
        offset: usize,
    },
    /// The line is not JSON (cut short by a crash, or damaged).
    #[error("line {line}: not JSON ({error}): skipped")]
    Malformed {
        /// Its 1-based line number.
        line: u64,
        /// What the JSON parser said.
        error: String,
    },
    /// The line is longer than the limit ([`SavedSessions::max_line_bytes`]); its bytes were
    /// passed over without being kept.
    ///
    /// [`SavedSessions::max_line_bytes`]: super::SavedSessions::max_line_bytes
    #[error("line {line}: {len} bytes, over the limit of {max}: skipped")]
    TooLong {
        /// Its 1-based line number.
        line: u64,
        /// Its length in bytes.
        len: u64,
        /// The limit in force.
        max: usize,
    },
    /// Following `parentUuid` from this entry led back to an entry already visited (the
    /// one on `parent_line`): the walk stopped there.
    #[error(
        "line {line}: its chain of parents loops back to line {parent_line}: followed no further"
    )]
    Cycle {
        /// The line of the entry whose parent closed the loop.
        line: u64,
        /// The line of the entry met a second time.
        parent_line: u64,
    },
    /// The line could not be read again as it was the first time (the file was rewritten
    /// while it was read).
    #[error("line {line}: changed while it was read: skipped")]
    Changed {
        /// Its 1-based line number.
        line: u64,
    },
}

/// The reports of one read, bounded.
#[derive(Debug, Default, Clone)]
pub(crate) struct Notes {
    pub(crate) kept: Vec<Skipped>,
    /// How many there were in all (kept or not).
    pub(crate) total: u64,
}

impl Notes {
    pub(crate) fn push(&mut self, skipped: Skipped) {
        self.total += 1;
        if self.kept.len() < MAX_REPORTED {
            tracing::warn!("session transcript: {skipped}");
            self.kept.push(skipped);
        }
    }
}
