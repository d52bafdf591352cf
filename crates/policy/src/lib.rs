//! Claude Code's permission rules, decided on what can be proven.
//!
//! ```rust
//! use twinwire_policy::PermissionPolicy;
//! use serde_json::json;
//!
//! let policy = PermissionPolicy::parse(&["Bash(git log:*)", "Read(./src/**)"], &["Bash(rm:*)"])?;
//! assert!(policy.decide("Bash", &json!({"command": "git log --oneline"})).is_allowed());
//! // Not proven: `git log` is allowed, but `rm` may run through the second command.
//! assert!(!policy.decide("Bash", &json!({"command": "git log && rm -rf build"})).is_allowed());
//! # Ok::<(), twinwire_policy::RuleError>(())
//! ```
//!
//! A [`PermissionPolicy`] holds allow and deny rules in Claude Code's own syntax (so rules
//! from settings files can be reused) and decides one tool call at a time:
//!
//! | Rule | Matches |
//! |---|---|
//! | `Write`, `WebSearch` | every call of that tool (exactly that name) |
//! | `mcp__server`, `mcp__server__*` | every tool of one MCP server |
//! | `mcp__*`, `*` | a glob over tool names (`*` any run of characters, `?` one) |
//! | `Bash(npm run test:*)` | a command that is `npm run test` or starts with it and a space |
//! | `Bash(git log*)` | a glob over the command (`*` matches anything, `/` included) |
//! | `Read(./src/**)`, `Edit(src/*.rs)` | a path relative to the session's directory |
//! | `Read(~/notes/*)`, `Edit(//etc/hosts)` | a path under `HOME`; an absolute path |
//! | `Write(/tmp/*)` | an absolute path (see below) |
//! | `Edit(C:\proj\**)`, `Read(C:/proj/**)`, `Read(//c/proj/**)` | on Windows, a path on drive `C:` |
//! | `Read(*.env)` | a file name in any directory (no `/` in the pattern) |
//! | `WebFetch(domain:example.com)` | a fetch of that host |
//!
//! Path patterns are globs with `*` inside one directory and `**` across them (`globset`).
//! `Edit(…)` covers every tool that edits files (Edit, Write, MultiEdit, NotebookEdit) and
//! `Read(…)` every tool that reads them (Read, NotebookRead, Glob, Grep, LS), as in Claude Code.
//! A rule naming a tool Claude Code does not have (`bash(ls)`, `NotATool`) is an error;
//! [`Rule::parse_any_tool`] reads one for a tool of a newer CLI.
//!
//! How a call is decided (deny wins over allow; nothing is allowed because something failed):
//! - **Bash commands** are read by [`shell::analyze`] the way bash will run them. A command is
//!   allowed only when every program and builtin bash could execute for it is known and an
//!   allow rule covers each; anything whose effect depends on evaluation at run time (a
//!   computed or globbed command name, arithmetic, parameter transformations, `eval`,
//!   `source`, `trap`, aliases, assignments to variables such as `PATH`, programs that
//!   execute their arguments such as `xargs`, `find -exec`, `bash -c`, `python -c`) is not
//!   proven, and so not allowed: the call is asked about, or denied where nobody can be asked.
//!   This holds under deny rules too: with `Bash` allowed and `Bash(rm:*)` denied, a command
//!   that could run `rm` by any such path is not allowed. Deny rules see each command's
//!   program without its directory, the commands of wrappers (`timeout 5 rm` is an `rm`), every
//!   run of words of an executor, and a crude split of the text in case the parser disagrees
//!   with bash. A file written through a redirection is an edit of that file.
//! - **Paths** are judged in every form they take on their way to the file ([`Base::forms`]):
//!   as written, lexically normalized as the tools do, with every symbolic link followed
//!   (a dangling one too), and as the kernel resolves the written form. An allow needs every
//!   form inside the rule, a deny any; every path field of the input is judged.
//! - **Windows paths** are matched in the POSIX form Claude Code matches them in (`C:\proj`
//!   is `/c/proj`; [`winpath`]): `\` and `/` alike, the drive letter in either case, `.`,
//!   `..` and the dots and spaces ending a name taken out as Win32 does. A path whose file
//!   cannot be told from its text (a network share, a device, a stream such as
//!   `secret::$DATA`, a verbatim `\\?\` path with names Win32 would change) is never allowed.
//! - **Case**: where the file system folds case ([`Case`]: Windows and macOS by default, set
//!   [`Base::case`] otherwise or from [`Case::probe`]), a deny rule matches its names in any
//!   case; an allow rule never does (a name in another case is asked about), as case
//!   sensitivity can differ per volume and, on Windows, per directory.
//! - **Tool names** match exactly; a name with characters no tool has is never allowed.
//!
//! Where this differs from Claude Code: `Write(/tmp/*)` (one leading slash) is absolute here,
//! while Claude Code reads it relative to the settings file's directory; a deny rule of that
//! form matches both readings, so reusing one can only deny more.
//!
//! What the rules cannot promise: an allowed program may itself run others that no rule sees
//! (`make`, `npm test`, `cargo build` and its build scripts, git hooks, a `python` script).
//! For guarantees that hold whatever runs, use Claude Code's sandbox settings.

mod decision;
pub mod lint;
mod modes;
pub mod paths;
mod policy;
mod rule;
pub mod shell;
pub mod winpath;

pub use modes::Directories;
pub use paths::{Base, Case};
pub use policy::{Decision, PermissionPolicy, Reason};
pub use rule::{known_tools, Rule, RuleError};
