//! [`Decision`]: what the rules decide for one call, and [`Reason`]: why.

use std::fmt;

use crate::rule::Rule;
use crate::shell::Unproven;

/// What the rules decide for one call: there is no fourth answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// An allow rule covers the call (the first one that did).
    Allow(Rule),
    /// A deny rule matches.
    Deny(Rule),
    /// The rules do not allow the call: ask, or deny when nobody can be asked.
    Ask(Reason),
}

impl Decision {
    /// Whether the call may run without asking.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allow(_))
    }
}

/// Why a call is not allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// No allow rule covers these parts of the call: commands as written, files written
    /// through redirections, or the call itself.
    NotCovered(Vec<String>),
    /// The command may run something the analysis cannot see.
    Unproven(Unproven),
    /// The command could not be read.
    Unreadable,
    /// A deny rule's program runs with options before its subcommand, which may reach what
    /// the rule forbids.
    NearDeny {
        /// The deny rule, as written.
        rule: String,
        /// The command.
        command: String,
    },
    /// The tool name holds characters no tool has.
    BadToolName,
    /// A path's links cannot be followed to an end (a loop).
    Unresolvable(String),
    /// A path whose file cannot be told from its text (on Windows: a network share, a
    /// device, a stream, a verbatim path with names the system would change).
    UnprovenPath {
        /// The path, as the tool got it.
        path: String,
        /// Why.
        why: &'static str,
    },
    /// Nothing to decide on: an empty command, no path for a path rule.
    Empty,
    /// A program that may run others, under a deny rule it could reach that way.
    MayReach {
        /// The deny rule, as written.
        rule: String,
        /// The command.
        command: String,
        /// Why it may run others.
        why: String,
    },
    /// The command does more than read (for the modes that allow reads or edits alone).
    NotReadOnly {
        /// The command.
        command: String,
        /// What it does.
        why: String,
    },
    /// A path outside the session's allowed directories (or one whose place the text cannot
    /// tell).
    Outside(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NotCovered(parts) => {
                let parts: Vec<String> = parts.iter().map(|p| format!("`{p}`")).collect();
                write!(f, "no allow rule covers {}", parts.join(", "))
            }
            Reason::Unproven(unproven) => write!(f, "{unproven}"),
            Reason::Unreadable => f.write_str("the command cannot be read as bash reads it"),
            Reason::NearDeny { rule, command } => write!(
                f,
                "`{command}` has options before its subcommand, which may reach what \
                 `{rule}` denies"
            ),
            Reason::BadToolName => f.write_str("the tool name holds characters no tool has"),
            Reason::Unresolvable(path) => {
                write!(f, "the links of `{path}` cannot be followed to an end")
            }
            Reason::UnprovenPath { path, why } => write!(f, "`{path}`: {why}"),
            Reason::Empty => f.write_str("there is nothing the rules could allow"),
            Reason::MayReach { rule, command, why } => write!(
                f,
                "`{command}` may run other programs ({why}), and so what `{rule}` denies"
            ),
            Reason::NotReadOnly { command, why } => write!(f, "`{command}` {why}"),
            Reason::Outside(path) => write!(
                f,
                "`{path}` is outside the session's allowed directories (or where it leads \
                 cannot be told)"
            ),
        }
    }
}
