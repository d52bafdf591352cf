//! Programs known to run no other program, and what each does with files: the positive
//! table ([`KNOWN`]) that "unknown means executor" rests on, and the knowledge of which
//! commands only read.
//!
//! Each entry names the options that make the program run another one (`sort
//! --compress-program`, `rg --pre`), the options that make it write (`sort -o`, `tree -o`,
//! `date -s`), the options whose value is a file it reads, and what its operands are (files
//! it reads, files it changes, or text). A program missing from this table, or a command of
//! one with an option that runs something, may run anything as far as the rules know: under
//! a deny rule it is asked about. Options are read as GNU getopt reads them: short flags
//! clustered, a value glued or in the next word, long options by any unambiguous prefix
//! (`sort --comp=sh` is `--compress-program`), options after operands too, `--` ending them.
//! Every entry carries an example that is read-only or harmless and one that is not; the
//! tests run both through the rules, and the differential test runs them in bash.

pub use super::effect::{Check, Effect};
use super::Word;

mod table;

pub use table::KNOWN;

/// What a program's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Files it reads (`cat a b`); none means its input or the current directory.
    Read,
    /// A pattern first (unless an option gave one), then files it reads (`grep x f`).
    PatternThenRead,
    /// At most this many files it reads; one more is a file it writes (`uniq in out`).
    ReadAtMost(usize),
    /// Files it changes or creates (`touch`, `mkdir`): every one is an edit.
    Edit,
    /// Sources it reads and a destination it writes (`cp`, `mv`): every one is an edit
    /// (`mv` removes its sources).
    Copy,
    /// Text, numbers or names, no file (`echo`, `date +%s`, `basename a/b`).
    Text,
    /// `find`: starting points, then an expression.
    Find,
    /// Read by the entry's own check.
    Custom,
}

/// One program of the table.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// Its names (the command word without its directory).
    pub names: &'static [&'static str],
    /// What its operands are.
    pub operands: Operands,
    /// Short options that take a value (the rest of the cluster or the next word).
    pub valued: &'static str,
    /// Long options that take a value (without `--`; `--opt=v` or `--opt v`).
    pub long_valued: &'static [&'static str],
    /// Short options whose value is a file it reads.
    pub read_valued: &'static str,
    /// Long options whose value is a file it reads.
    pub long_read_valued: &'static [&'static str],
    /// Short options whose value is a file or directory it writes (`cp -t DIR`).
    pub edit_valued: &'static str,
    /// Long options whose value is a file or directory it writes.
    pub long_edit_valued: &'static [&'static str],
    /// Short options that make it run another program.
    pub runs: &'static str,
    /// Long options that make it run another program (any unambiguous prefix counts).
    pub long_runs: &'static [&'static str],
    /// Short options that make it write, delete or change something.
    pub writes: &'static str,
    /// Long options that make it write, delete or change something.
    pub long_writes: &'static [&'static str],
    /// Whether it only reads and prints (with none of `writes`). `false` for programs that
    /// change files or the system but run nothing (`cp`, `chmod`).
    pub reads_only: bool,
    /// Whether what it prints may be secret even when it reads only the session's files
    /// (`env` and `printenv` print the environment, API keys included).
    pub prints_secrets: bool,
    /// A check of its own for what the option grammar cannot say (`find -exec`, `git`
    /// subcommands, `sed`'s script); `None` when the grammar is all.
    pub check: Option<Check>,
    /// A command of it that is harmless (read-only when `reads_only`).
    pub example: &'static str,
    /// A command of it that writes or runs something (empty when none can).
    pub counter: &'static str,
}

/// A command of a table program, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judged {
    /// Why it may run another program, if it may.
    pub runs: Option<String>,
    /// Why it changes something, if it does (besides its [`Operands::Edit`] operands).
    pub writes: Option<String>,
    /// The files it reads.
    pub reads: Vec<Word>,
    /// The files it writes, creates or removes.
    pub edits: Vec<Word>,
}

impl Known {
    const NONE: Known = Known {
        names: &[],
        operands: Operands::Text,
        valued: "",
        long_valued: &[],
        read_valued: "",
        long_read_valued: &[],
        edit_valued: "",
        long_edit_valued: &[],
        runs: "",
        long_runs: &[],
        writes: "",
        long_writes: &[],
        reads_only: true,
        prints_secrets: false,
        check: None,
        example: "",
        counter: "",
    };

    /// Reads a command of this program (`args`: its words after the name).
    pub fn judge(&self, args: &[Word]) -> Judged {
        let mut judged = Judged::default();
        if let Some(check) = self.check {
            match check(args) {
                Some(Effect::Runs(why)) => judged.runs = Some(why),
                Some(Effect::Writes(why)) => judged.writes = Some(why),
                None => {}
            }
        }
        let mut operands: Vec<Word> = Vec::new();
        let mut pattern_given = false;
        let mut words = args.iter();
        let mut options_end = false;
        let dangerous = !self.runs.is_empty()
            || !self.long_runs.is_empty()
            || !self.writes.is_empty()
            || !self.long_writes.is_empty();
        while let Some(word) = words.next() {
            let text = word.text.as_str();
            if options_end || text == "-" || !text.starts_with('-') {
                if !word.literal && !options_end && dangerous && could_be_option(word) {
                    // `sort $x` or `sort *`: the word may become `-o file`.
                    judged.runs.get_or_insert_with(|| {
                        format!("`{text}` is computed and may become an option")
                    });
                }
                operands.push(word.clone());
                continue;
            }
            if !word.literal && dangerous {
                judged
                    .runs
                    .get_or_insert_with(|| format!("`{text}` is computed and may be any option"));
            }
            if text == "--" {
                options_end = true;
                continue;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (name, glued) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (long, None),
                };
                if abbreviates(name, self.long_runs) {
                    judged
                        .runs
                        .get_or_insert_with(|| format!("runs a program (`{text}`)"));
                }
                if abbreviates(name, self.long_writes) {
                    judged
                        .writes
                        .get_or_insert_with(|| format!("writes or changes something (`{text}`)"));
                }
                let reads = self.long_read_valued.contains(&name);
                let edits = self.long_edit_valued.contains(&name);
                if reads || edits || self.long_valued.contains(&name) {
                    let value = match glued {
                        Some(value) => Some(Word {
                            text: value.to_owned(),
                            literal: word.literal,
                        }),
                        None => words.next().cloned(),
                    };
                    match value {
                        Some(value) if reads => judged.reads.push(value),
                        Some(value) if edits => judged.edits.push(value),
                        _ => {}
                    }
                    if matches!(name, "regexp" | "file" | "expression") {
                        pattern_given = true;
                    }
                }
                continue;
            }
            let cluster = &text[1..];
            for (at, c) in cluster.char_indices() {
                if self.runs.contains(c) {
                    judged
                        .runs
                        .get_or_insert_with(|| format!("runs a program (`-{c}`)"));
                }
                if self.writes.contains(c) {
                    judged
                        .writes
                        .get_or_insert_with(|| format!("writes or changes something (`-{c}`)"));
                }
                let (reads, edits) = (self.read_valued.contains(c), self.edit_valued.contains(c));
                if reads || edits || self.valued.contains(c) {
                    let rest = &cluster[at + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        words.next().cloned()
                    } else {
                        Some(Word {
                            text: rest.to_owned(),
                            literal: word.literal,
                        })
                    };
                    match value {
                        Some(value) if reads => judged.reads.push(value),
                        Some(value) if edits => judged.edits.push(value),
                        _ => {}
                    }
                    if matches!(c, 'e' | 'f') && self.operands == Operands::PatternThenRead {
                        pattern_given = true;
                    }
                    break;
                }
            }
        }
        match self.operands {
            Operands::Read => judged.reads.extend(operands),
            Operands::PatternThenRead => {
                let skip = usize::from(!pattern_given && !operands.is_empty());
                judged.reads.extend(operands.into_iter().skip(skip));
            }
            Operands::ReadAtMost(most) => {
                if operands.len() > most {
                    judged.writes.get_or_insert_with(|| {
                        format!("writes its operand `{}`", operands[most].text)
                    });
                    judged.edits.extend(operands[most..].iter().cloned());
                }
                judged.reads.extend(operands.into_iter().take(most));
            }
            Operands::Edit | Operands::Copy => judged.edits.extend(operands),
            Operands::Find => judged.reads.extend(
                operands
                    .into_iter()
                    .take_while(|w| !w.text.starts_with(['-', '(', '!', ')'])),
            ),
            Operands::Text | Operands::Custom => {}
        }
        judged
    }
}

/// Whether a computed word may expand to something that starts with `-`.
fn could_be_option(word: &Word) -> bool {
    !word
        .text
        .starts_with(|c: char| c.is_alphanumeric() || matches!(c, '.' | '/' | '_'))
        || word.text.starts_with(['*', '?', '['])
}

/// Whether long option `name` (without `--`) is one of `options` or an abbreviation of one.
fn abbreviates(name: &str, options: &[&str]) -> bool {
    !name.is_empty() && options.iter().any(|o| o.starts_with(name))
}

/// The table entry of `name`.
pub fn known(name: &str) -> Option<&'static Known> {
    KNOWN.iter().find(|k| k.names.contains(&name))
}

/// `find`: `-exec`, `-execdir`, `-ok`, `-okdir` run commands; `-delete` deletes and
/// `-fprint`, `-fprint0`, `-fprintf`, `-fls` write files.
pub(super) fn find(args: &[Word]) -> Option<Effect> {
    for word in args {
        if !word.literal {
            return Some(Effect::Runs(format!(
                "has a computed operand `{}`",
                word.text
            )));
        }
        match word.text.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                return Some(Effect::Runs(format!("runs commands (`{}`)", word.text)))
            }
            "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                return Some(Effect::Writes(format!(
                    "deletes or writes files (`{}`)",
                    word.text
                )))
            }
            _ => {}
        }
    }
    None
}

/// `sed`: its script may run (`e`) or write (`w`); `-i` edits its files in place.
pub(super) fn sed(args: &[Word]) -> Option<Effect> {
    if let Some(why) = super::scripts::sed(args) {
        return Some(Effect::Runs(why));
    }
    args.iter()
        .take_while(|w| w.text != "--")
        .find(|w| {
            w.text.starts_with("--in-place")
                || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('i'))
        })
        .map(|w| Effect::Writes(format!("edits files in place (`{}`)", w.text)))
}

/// `awk`: its program may run commands or write files.
pub(super) fn awk(args: &[Word]) -> Option<Effect> {
    super::scripts::awk(args).map(Effect::Runs)
}

/// `tar`: runs a program from options (`-I`, `--to-command`, …) and, with a remote archive
/// (`host:file`), its remote shell; creating or extracting writes files.
pub(super) fn tar(args: &[Word]) -> Option<Effect> {
    if let Some(why) = super::scripts::tar(args) {
        return Some(Effect::Runs(why));
    }
    if args
        .iter()
        .any(|w| !w.literal || (w.text.contains(':') && !w.text.starts_with('-')))
    {
        return Some(Effect::Runs(
            "may reach a remote archive through its remote shell".into(),
        ));
    }
    let mode = args.first().map(|w| w.text.trim_start_matches('-'));
    let lists = mode.is_some_and(|m| m.contains('t'))
        || args.iter().any(|w| w.text == "--list" || w.text == "-t");
    (!lists).then(|| Effect::Writes("creates or extracts an archive".into()))
}

/// `hostname NAME`, `-F`, `-b` set the host's name.
pub(super) fn hostname(args: &[Word]) -> Option<Effect> {
    args.iter()
        .find(|w| !w.text.starts_with('-') || w.text.starts_with("-F") || w.text == "-b")
        .map(|w| Effect::Writes(format!("sets the host's name (`{}`)", w.text)))
}

/// `env` and `printenv` print the environment; `env` with a command runs it (read by the
/// wrapper grammar, not here).
pub(super) fn environment(_args: &[Word]) -> Option<Effect> {
    None
}

/// `git`: the subcommands that run nothing of their own and change nothing, and those that
/// change the repository without running anything; see [`super::git`].
pub(super) fn git(args: &[Word]) -> Option<Effect> {
    super::git::effect(args)
}

/// `sqlite3 DB [SQL]`: the dot-commands `.shell`, `.system`, `.once`/`.output` to a pipe,
/// `.load` run programs; input from standard input or `-init`, `-cmd` is not read.
pub(super) fn sqlite(args: &[Word]) -> Option<Effect> {
    let mut operands = Vec::new();
    for word in args {
        if !word.literal {
            return Some(Effect::Runs(format!(
                "has a computed operand `{}`",
                word.text
            )));
        }
        let text = word.text.as_str();
        if text.starts_with('-') {
            if matches!(text.trim_start_matches('-'), "cmd" | "init" | "interactive") {
                return Some(Effect::Runs(format!("reads commands from `{text}`")));
            }
            continue;
        }
        operands.push(text);
    }
    match operands.as_slice() {
        [_database, sql, ..]
            if !sql.contains('.') && !sql.contains("load_extension") && !sql.contains("edit") =>
        {
            None
        }
        [_database, _sql, ..] => Some(Effect::Runs(
            "runs dot-commands or extensions (`.shell`, `.system`, `.load`)".into(),
        )),
        _ => Some(Effect::Runs("reads commands from its input".into())),
    }
}
