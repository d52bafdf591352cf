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

use super::Word;

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

/// An entry's own check of a command's words (after the name).
pub type Check = fn(&[Word]) -> Option<Effect>;

/// What a command of a [`Known`] program does beyond printing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// It may run another program (why).
    Runs(String),
    /// It writes, deletes or changes something (why).
    Writes(String),
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
fn find(args: &[Word]) -> Option<Effect> {
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
fn sed(args: &[Word]) -> Option<Effect> {
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
fn awk(args: &[Word]) -> Option<Effect> {
    super::scripts::awk(args).map(Effect::Runs)
}

/// `tar`: runs a program from options (`-I`, `--to-command`, …) and, with a remote archive
/// (`host:file`), its remote shell; creating or extracting writes files.
fn tar(args: &[Word]) -> Option<Effect> {
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
fn hostname(args: &[Word]) -> Option<Effect> {
    args.iter()
        .find(|w| !w.text.starts_with('-') || w.text.starts_with("-F") || w.text == "-b")
        .map(|w| Effect::Writes(format!("sets the host's name (`{}`)", w.text)))
}

/// `env` and `printenv` print the environment; `env` with a command runs it (read by the
/// wrapper grammar, not here).
fn environment(_args: &[Word]) -> Option<Effect> {
    None
}

/// `git`: the subcommands that run nothing of their own and change nothing, and those that
/// change the repository without running anything; see [`super::git`].
fn git(args: &[Word]) -> Option<Effect> {
    super::git::effect(args)
}

/// The programs known to run no other program (given the options each entry names).
pub const KNOWN: &[Known] = &[
    Known {
        names: &["cat", "rev"],
        operands: Operands::Read,
        example: "cat README.md",
        ..Known::NONE
    },
    Known {
        names: &["tac"],
        operands: Operands::Read,
        valued: "s",
        long_valued: &["separator"],
        example: "tac README.md",
        ..Known::NONE
    },
    Known {
        names: &["nl"],
        operands: Operands::Read,
        valued: "bdfhilnsvw",
        example: "nl -ba README.md",
        ..Known::NONE
    },
    Known {
        names: &["head", "tail"],
        operands: Operands::Read,
        valued: "cns",
        long_valued: &[
            "bytes",
            "lines",
            "sleep-interval",
            "pid",
            "max-unchanged-stats",
        ],
        example: "head -n 5 README.md",
        ..Known::NONE
    },
    Known {
        names: &["wc"],
        operands: Operands::Read,
        long_read_valued: &["files0-from"],
        example: "wc -l README.md",
        ..Known::NONE
    },
    Known {
        names: &["ls", "dir", "vdir"],
        operands: Operands::Read,
        valued: "ITw",
        long_valued: &[
            "block-size",
            "format",
            "hide",
            "ignore",
            "indicator-style",
            "quoting-style",
            "sort",
            "tabsize",
            "time",
            "time-style",
            "width",
        ],
        example: "ls -la src",
        ..Known::NONE
    },
    Known {
        names: &["grep", "egrep", "fgrep"],
        operands: Operands::PatternThenRead,
        valued: "emABCdD",
        long_valued: &[
            "regexp",
            "max-count",
            "after-context",
            "before-context",
            "context",
            "label",
            "include",
            "exclude",
            "exclude-dir",
            "binary-files",
            "devices",
            "directories",
            "group-separator",
        ],
        read_valued: "f",
        long_read_valued: &["file", "exclude-from"],
        example: "grep -rn main src",
        ..Known::NONE
    },
    Known {
        names: &["rg"],
        operands: Operands::PatternThenRead,
        valued: "eABCgjmMtTErd",
        long_valued: &[
            "regexp",
            "after-context",
            "before-context",
            "context",
            "glob",
            "iglob",
            "threads",
            "max-count",
            "max-columns",
            "type",
            "type-not",
            "type-add",
            "type-clear",
            "encoding",
            "replace",
            "colors",
            "color",
            "sort",
            "sortr",
            "max-depth",
            "max-filesize",
            "context-separator",
            "field-match-separator",
            "field-context-separator",
            "path-separator",
            "dfa-size-limit",
            "regex-size-limit",
            "engine",
            "hyperlink-format",
            "generate",
        ],
        read_valued: "f",
        long_read_valued: &["file", "ignore-file"],
        runs: "z",
        long_runs: &["pre", "pre-glob", "search-zip", "hostname-bin"],
        example: "rg -n 'fn main' src",
        counter: "rg --pre /bin/touch foo .",
        ..Known::NONE
    },
    Known {
        names: &["find"],
        operands: Operands::Find,
        check: Some(find),
        example: "find . -name '*.rs' -type f",
        counter: "find . -name x -delete",
        ..Known::NONE
    },
    Known {
        names: &["sort"],
        operands: Operands::Read,
        valued: "kStT",
        long_valued: &[
            "key",
            "buffer-size",
            "field-separator",
            "batch-size",
            "parallel",
        ],
        long_read_valued: &["files0-from", "random-source"],
        writes: "oT",
        long_writes: &["output", "temporary-directory"],
        long_runs: &["compress-program"],
        example: "sort -u -k 2 README.md",
        counter: "sort -o ../elsewhere/out x",
        ..Known::NONE
    },
    Known {
        names: &["uniq"],
        operands: Operands::ReadAtMost(1),
        valued: "fsw",
        long_valued: &[
            "skip-fields",
            "skip-chars",
            "check-chars",
            "group",
            "all-repeated",
        ],
        example: "uniq -c README.md",
        counter: "uniq README.md out.txt",
        ..Known::NONE
    },
    Known {
        names: &["cut"],
        operands: Operands::Read,
        valued: "bcdf",
        long_valued: &[
            "bytes",
            "characters",
            "delimiter",
            "fields",
            "output-delimiter",
        ],
        example: "cut -d : -f 1 README.md",
        ..Known::NONE
    },
    Known {
        names: &["paste", "comm", "fold", "expand", "unexpand"],
        operands: Operands::Read,
        valued: "dwt",
        long_valued: &["delimiters", "output-delimiter", "width", "tabs"],
        example: "paste -d , a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["join"],
        operands: Operands::Read,
        valued: "aejot12",
        example: "join -t , a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["column"],
        operands: Operands::Read,
        valued: "csoNRWHOEl",
        example: "column -t README.md",
        ..Known::NONE
    },
    Known {
        names: &["cmp"],
        operands: Operands::Read,
        valued: "in",
        long_valued: &["bytes", "ignore-initial"],
        example: "cmp a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["diff"],
        operands: Operands::Read,
        valued: "CFUILWx",
        long_valued: &[
            "context",
            "unified",
            "label",
            "ignore-matching-lines",
            "show-function-line",
            "width",
            "tabsize",
            "line-format",
            "old-line-format",
            "new-line-format",
            "unchanged-line-format",
            "old-group-format",
            "new-group-format",
            "changed-group-format",
            "unchanged-group-format",
            "horizon-lines",
            "color",
            "palette",
            "bytes",
            "ignore-initial",
        ],
        read_valued: "SX",
        long_read_valued: &["from-file", "to-file", "starting-file", "exclude-from"],
        example: "diff -u a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["tree"],
        operands: Operands::Read,
        valued: "LPIH",
        long_valued: &[
            "charset",
            "filelimit",
            "timefmt",
            "sort",
            "hintro",
            "houtro",
        ],
        long_read_valued: &["fromfile"],
        writes: "oR",
        example: "tree -L 2 src",
        counter: "tree -o ../out.txt",
        ..Known::NONE
    },
    Known {
        names: &["file"],
        operands: Operands::Read,
        valued: "eFP",
        long_valued: &["exclude", "exclude-quiet", "separator", "parameter"],
        read_valued: "fm",
        long_read_valued: &["files-from", "magic-file"],
        writes: "C",
        long_writes: &["compile"],
        example: "file README.md",
        counter: "file -C -m x.magic",
        ..Known::NONE
    },
    Known {
        names: &["stat"],
        operands: Operands::Read,
        valued: "c",
        long_valued: &["format", "printf", "cached"],
        example: "stat -c %s README.md",
        ..Known::NONE
    },
    Known {
        names: &["du"],
        operands: Operands::Read,
        valued: "Bdt",
        read_valued: "X",
        long_valued: &[
            "block-size",
            "max-depth",
            "threshold",
            "time-style",
            "exclude",
            "time",
        ],
        long_read_valued: &["files0-from", "exclude-from"],
        example: "du -sh src",
        ..Known::NONE
    },
    Known {
        names: &["df"],
        operands: Operands::Read,
        valued: "BtxF",
        long_valued: &["block-size", "output", "type", "exclude-type"],
        example: "df -h .",
        ..Known::NONE
    },
    Known {
        names: &["date"],
        operands: Operands::Text,
        valued: "dIR",
        long_valued: &["date", "iso-8601", "rfc-3339", "resolution"],
        read_valued: "fr",
        long_read_valued: &["file", "reference"],
        writes: "s",
        long_writes: &["set"],
        example: "date -u +%Y-%m-%d",
        counter: "date -s '2000-01-01'",
        ..Known::NONE
    },
    Known {
        names: &[
            "echo", "printf", "true", "false", "pwd", "basename", "dirname", "seq", "whoami", "id",
            "groups", "uname", "arch", "nproc", "tty", "which", "expr", "yes", "sleep", "locale",
            "getconf", "factor", "numfmt", "tr", "logname", "users", "uptime",
        ],
        operands: Operands::Text,
        valued: "sfwtF",
        example: "basename src/main.rs",
        ..Known::NONE
    },
    Known {
        names: &["realpath", "readlink"],
        operands: Operands::Read,
        long_valued: &["relative-to", "relative-base"],
        example: "realpath src",
        ..Known::NONE
    },
    Known {
        names: &[
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
        ],
        operands: Operands::Read,
        valued: "al",
        long_valued: &["algorithm", "length"],
        example: "sha256sum README.md",
        ..Known::NONE
    },
    Known {
        names: &["od"],
        operands: Operands::Read,
        valued: "AjNSt",
        long_valued: &[
            "address-radix",
            "skip-bytes",
            "read-bytes",
            "strings",
            "format",
        ],
        example: "od -c README.md",
        ..Known::NONE
    },
    Known {
        names: &["hexdump", "hd"],
        operands: Operands::Read,
        valued: "ens",
        read_valued: "f",
        example: "hexdump -C README.md",
        ..Known::NONE
    },
    Known {
        names: &["strings"],
        operands: Operands::Read,
        valued: "ntes",
        long_valued: &["bytes", "radix", "encoding", "output-separator"],
        example: "strings README.md",
        ..Known::NONE
    },
    Known {
        names: &["base32", "base64", "basenc"],
        operands: Operands::Read,
        valued: "w",
        long_valued: &["wrap"],
        example: "base64 README.md",
        ..Known::NONE
    },
    Known {
        names: &["xxd"],
        operands: Operands::ReadAtMost(1),
        valued: "cglosn",
        example: "xxd -l 16 README.md",
        counter: "xxd README.md out.hex",
        ..Known::NONE
    },
    Known {
        names: &["hostname"],
        operands: Operands::Custom,
        writes: "Fb",
        long_writes: &["file", "boot"],
        check: Some(hostname),
        example: "hostname -s",
        counter: "hostname other",
        ..Known::NONE
    },
    Known {
        names: &["env"],
        operands: Operands::Text,
        prints_secrets: true,
        check: Some(environment),
        example: "env",
        ..Known::NONE
    },
    Known {
        names: &["printenv"],
        operands: Operands::Text,
        prints_secrets: true,
        example: "printenv LANG",
        ..Known::NONE
    },
    Known {
        names: &["sed"],
        operands: Operands::PatternThenRead,
        valued: "el",
        long_valued: &["expression", "line-length"],
        read_valued: "f",
        long_read_valued: &["file"],
        check: Some(sed),
        example: "sed -n '1,5p' README.md",
        counter: "sed -i 's/a/b/' README.md",
        ..Known::NONE
    },
    Known {
        names: &["awk", "gawk", "mawk"],
        operands: Operands::PatternThenRead,
        valued: "vFe",
        read_valued: "f",
        check: Some(awk),
        example: "awk '{ print $1 }' README.md",
        counter: "awk 'BEGIN { system(\"touch x\") }'",
        ..Known::NONE
    },
    Known {
        names: &["git"],
        operands: Operands::Custom,
        check: Some(git),
        example: "git log --oneline -5",
        counter: "git commit -m x",
        ..Known::NONE
    },
    Known {
        names: &["tar", "gtar"],
        operands: Operands::Read,
        valued: "CbHKNTVXg",
        read_valued: "f",
        long_read_valued: &["file"],
        check: Some(tar),
        example: "tar -tzf a.tgz",
        counter: "tar -czf out.tgz src",
        ..Known::NONE
    },
    Known {
        names: &["touch"],
        operands: Operands::Edit,
        valued: "dt",
        long_valued: &["date", "time"],
        read_valued: "r",
        long_read_valued: &["reference"],
        reads_only: false,
        example: "touch new.txt",
        ..Known::NONE
    },
    Known {
        names: &["mkdir"],
        operands: Operands::Edit,
        valued: "m",
        long_valued: &["mode", "context"],
        reads_only: false,
        example: "mkdir -p build/out",
        ..Known::NONE
    },
    Known {
        names: &["cp", "mv"],
        operands: Operands::Copy,
        valued: "S",
        long_valued: &[
            "suffix", "backup", "sparse", "reflink", "preserve", "update",
        ],
        edit_valued: "t",
        long_edit_valued: &["target-directory"],
        reads_only: false,
        example: "cp a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &[
            "rm", "rmdir", "ln", "chmod", "chown", "chgrp", "truncate", "shred", "tee", "unlink",
            "mktemp",
        ],
        operands: Operands::Edit,
        reads_only: false,
        example: "ln -s a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["split", "csplit"],
        operands: Operands::Edit,
        valued: "abClnf",
        long_valued: &[
            "suffix-length",
            "bytes",
            "line-bytes",
            "lines",
            "number",
            "prefix",
        ],
        long_runs: &["filter"],
        reads_only: false,
        example: "split -l 10 a.txt part-",
        counter: "split --filter='touch y' a.txt",
        ..Known::NONE
    },
    Known {
        names: &["install"],
        operands: Operands::Edit,
        valued: "gmot",
        long_runs: &["strip-program", "strip"],
        runs: "s",
        reads_only: false,
        example: "install -m 644 a.txt b.txt",
        counter: "install -s a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["curl"],
        operands: Operands::Text,
        reads_only: false,
        example: "curl -fsSL http://127.0.0.1:9/x",
        ..Known::NONE
    },
    Known {
        names: &["sqlite3"],
        operands: Operands::Custom,
        reads_only: false,
        check: Some(sqlite),
        example: "sqlite3 db.sqlite 'select 1'",
        counter: "sqlite3 db.sqlite '.shell touch y'",
        ..Known::NONE
    },
];

/// `sqlite3 DB [SQL]`: the dot-commands `.shell`, `.system`, `.once`/`.output` to a pipe,
/// `.load` run programs; input from standard input or `-init`, `-cmd` is not read.
fn sqlite(args: &[Word]) -> Option<Effect> {
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
