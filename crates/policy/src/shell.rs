//! Reading a Bash command the way bash will run it, and proving what it can execute.
//!
//! [`analyze`] parses the command with `brush-parser` (a bash grammar with a word-level parser
//! for quotes and expansions) and walks every place a command can hide: lists, pipelines,
//! subshells, groups, `if`/`for`/`while`/`case` bodies, functions, command and process
//! substitutions, here-documents, the defaults of parameter expansions. Each simple command
//! becomes a [`Command`] with its words unquoted.
//!
//! The walk accepts only what it can prove. Whatever makes what runs depend on evaluation at
//! run time is recorded as [`Unproven`], with the construct and the text where it was seen:
//! a command word that is computed, globbed or brace-expanded; arithmetic anywhere (array
//! subscripts are evaluated, and evaluation runs command substitutions hidden in variables);
//! parameter transformations and indirection; `eval`, `source`, `trap`, `alias`, `shopt` and
//! the other builtins that run or reinterpret text; assignments to variables that change what
//! runs (`PATH`, `BASH_ENV`, `PS4`, `GIT_*`, …: only a short list of harmless names is
//! accepted); and programs that execute their arguments ([`programs::EXECUTORS`], a table with
//! a tested example per entry). Wrappers whose command is read exactly (`timeout 5 make`,
//! `env X=1 cargo test`, `nice -n 5 ls`) are unwrapped: the inner command is a [`Command`] of
//! its own that the rules must allow too.
//!
//! A command with nothing unproven has `commands` that list every program and builtin bash can
//! execute for it; the differential test runs generated commands in real bash under `strace`
//! and checks exactly that.

pub(crate) mod builtins;
mod effect;
pub mod git;
pub mod known;
pub mod programs;
mod scripts;
mod variables;
mod walk;
mod word;

use std::fmt;

pub use word::Word;

/// How deep `bash -c`, substitutions and unwrapped wrappers may nest before the command is
/// not read.
pub const MAX_DEPTH: usize = 8;

/// What a command holds.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Every simple command, in the order written; the commands of wrappers (`timeout 5 ls` has
    /// `timeout 5 ls` and `ls`) and of shell strings (`bash -c 'ls'`) follow theirs.
    pub commands: Vec<Command>,
    /// Why the commands may not be all that runs; empty when the analysis is a proof.
    pub unproven: Vec<Unproven>,
    /// The parser could not read the command: nothing about it is known.
    pub unreadable: bool,
}

impl Analysis {
    /// Whether `commands` is provably everything bash can execute for the command.
    pub fn is_proven(&self) -> bool {
        !self.unreadable && self.unproven.is_empty()
    }

    fn unproven(&mut self, construct: Construct, near: impl Into<String>) {
        let near = near.into();
        if !self
            .unproven
            .iter()
            .any(|u| u.construct == construct && u.near == near)
        {
            self.unproven.push(Unproven { construct, near });
        }
    }
}

/// One simple command bash would run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    /// Its assignments (`X=1`), as written before the command word.
    pub assignments: Vec<Word>,
    /// The command word and its arguments.
    pub words: Vec<Word>,
    /// The files it writes through a redirection (`>`, `>>`, `<>`, `>|`, `&>`; not
    /// `/dev/null`, `/dev/stdout` or `/dev/stderr`), unquoted, each with whether its name is
    /// computed.
    pub written_files: Vec<(String, bool)>,
    /// It has any redirection besides duplicating a descriptor.
    pub redirects: bool,
    /// It was read out of another command: a wrapper's operand or a shell string.
    pub nested: bool,
}

impl Command {
    /// The command word when it is literal (bash runs exactly this name).
    pub fn name(&self) -> Option<&str> {
        self.words
            .first()
            .filter(|w| w.literal)
            .map(|w| w.text.as_str())
    }

    /// The words as written, unquoted, one space apart: what allow rules match. Assignments
    /// before the command are not part of it: only harmless ones are proven (`LANG=C ls`).
    pub fn written(&self) -> String {
        self.words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The words with the command word's directory taken off (`/bin/rm -rf x` → `rm -rf x`):
    /// what deny rules match.
    pub fn program_form(&self) -> String {
        let mut words = self.words.iter().map(|w| w.text.as_str());
        let Some(first) = words.next() else {
            return String::new();
        };
        std::iter::once(base_name(first))
            .chain(words)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Notes a file written through a redirection.
    fn wrote(&mut self, path: String, computed: bool) {
        if !matches!(path.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr") {
            self.written_files.push((path, computed));
        }
    }
}

/// A command word without its directory (`/usr/bin/rm` → `rm`, `./x` → `x`).
pub fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Something that makes what runs depend on run-time evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unproven {
    /// What it is.
    pub construct: Construct,
    /// The text where it was seen.
    pub near: String,
}

impl fmt::Display for Unproven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.near, self.construct)
    }
}

/// The constructs whose effect the analysis cannot prove.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Construct {
    /// The command word is computed (`$cmd`, `$(…)`, `~/x`, `$'\x72m'`).
    ComputedName,
    /// The command word is a glob (`/bin/r?`) or a brace expansion (`{rm,x}`).
    PatternName,
    /// Arithmetic (`$((…))`, `((…))`, `let`, `[[ x -eq y ]]`, `${x:1:2}`, `$[…]`): evaluating
    /// it evaluates array subscripts, which run command substitutions hidden in variables.
    Arithmetic,
    /// An array subscript (`${a[i]}`, `a[i]=x`, `unset 'a[i]'`): evaluated as arithmetic.
    Subscript,
    /// A parameter transformation (`${x@P}` expands a prompt, which runs substitutions).
    Transformation,
    /// Indirection (`${!x}`) or a name reference (`declare -n`, `[[ -v x ]]`): the name
    /// comes from a value.
    Indirection,
    /// An assignment that can change what runs (`PATH`, `BASH_ENV`, `PS4`, `GIT_*`, …).
    Assignment(String),
    /// A builtin that runs or reinterprets text (`eval`, `source`, `trap`, `alias`, …).
    Builtin(String),
    /// A program that executes its arguments or its input (`xargs`, `find -exec`, `bash`,
    /// `python -c`, …; see [`programs::EXECUTORS`]).
    Executor(String),
    /// Backquotes holding a backslash, whose unescaping the analysis does not model.
    Backquotes,
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Characters bash reads otherwise than the parser (NUL, carriage return, other
    /// controls).
    ControlCharacter,
}

impl fmt::Display for Construct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Construct::ComputedName => f.write_str("the command name is computed when it runs"),
            Construct::PatternName => f.write_str("the command name is a pattern bash expands"),
            Construct::Arithmetic => f.write_str(
                "arithmetic, which evaluates array subscripts and the commands they may hide",
            ),
            Construct::Subscript => {
                f.write_str("an array subscript, evaluated as arithmetic when it runs")
            }
            Construct::Transformation => {
                f.write_str("a parameter transformation, which may run commands")
            }
            Construct::Indirection => f.write_str("a name taken from a value when it runs"),
            Construct::Assignment(name) => {
                write!(f, "setting `{name}` can change what runs")
            }
            Construct::Builtin(name) => write!(f, "`{name}` runs or reinterprets text"),
            Construct::Executor(why) => f.write_str(why),
            Construct::Backquotes => f.write_str("backquotes with backslashes"),
            Construct::TooDeep => f.write_str("nested too deep to read"),
            Construct::ControlCharacter => {
                f.write_str("a control character bash may read otherwise")
            }
        }
    }
}

/// Reads `command` as bash would, and proves what it can execute.
pub fn analyze(command: &str) -> Analysis {
    scan(command).analysis
}

/// [`analyze`] with what the rules need besides: each command's origin and role.
pub(crate) fn scan(command: &str) -> Scan {
    let mut scan = Scan::default();
    if let Some(c) = command
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
    {
        scan.unproven(Construct::ControlCharacter, format!("{c:?}"));
    }
    walk::read_program(command, &mut scan, 0);
    scan
}

/// What the rules need beyond [`Analysis`]: for each command, where it was read from and
/// what the tables know of its program.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    pub analysis: Analysis,
    /// One per command of `analysis`, in the same order.
    pub info: Vec<Info>,
    /// What cannot be proven whatever the rules name: everything unproven but programs that
    /// may run others (those are in their command's [`Info`]).
    pub hard: Vec<Unproven>,
    /// Files read through `<` while a command's redirections are read.
    pub(crate) pending_reads: Vec<(String, bool)>,
}

impl Scan {
    /// Records something no rule can cover.
    fn unproven(&mut self, construct: Construct, near: impl Into<String>) {
        let near = near.into();
        let unproven = Unproven { construct, near };
        if !self.hard.contains(&unproven) {
            self.hard.push(unproven.clone());
        }
        self.analysis.unproven(unproven.construct, unproven.near);
    }

    /// Records that the command at `at` may run other programs.
    fn soft(&mut self, at: usize, construct: Construct, near: impl Into<String>) {
        let near = near.into();
        self.info[at].runs = Some(Unproven {
            construct: construct.clone(),
            near: near.clone(),
        });
        self.analysis.unproven(construct, near);
    }

    /// Adds a command read out of `parent` (or bash's own), with the files it reads through
    /// `<`; returns its index.
    fn push(
        &mut self,
        command: Command,
        parent: Option<usize>,
        reads: Vec<(String, bool)>,
    ) -> usize {
        self.analysis.commands.push(command);
        self.info.push(Info {
            parent,
            reads,
            ..Info::default()
        });
        self.analysis.commands.len() - 1
    }
}

/// What the rules know of one command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Info {
    /// The command it was read out of: a wrapper's operands, a shell string.
    pub parent: Option<usize>,
    /// What its program is to the tables.
    pub role: Role,
    /// Why it may run other programs, when it may.
    pub runs: Option<Unproven>,
    /// Files it reads through `<`, each with whether its name is computed.
    pub reads: Vec<(String, bool)>,
}

/// What a command's program is to the tables.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Role {
    /// A builtin, or a command with no words.
    #[default]
    Builtin,
    /// In the positive table, with options that keep it from running others.
    Known,
    /// A wrapper whose command is read (the next command, with this one as its parent).
    Wrapper,
    /// It may run others (an executor, or a known program with an option that runs one).
    Executor,
    /// In no table: it may run anything.
    Unknown,
}
