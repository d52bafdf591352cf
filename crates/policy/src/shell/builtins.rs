//! Bash's builtins: which are plain, which take variable names (and so subscripts, evaluated
//! as arithmetic), which run a command of their operands, and which run or reinterpret text.

use super::programs::{parse_wrapper, Grammar, Verdict};
use super::variables::{is_harmless_variable, is_name};
use super::{Construct, Word};

/// Builtins that run nothing and evaluate none of their operands.
const PLAIN: &[&str] = &[
    ":", "true", "false", "echo", "pwd", "cd", "pushd", "popd", "dirs", "exit", "return", "shift",
    "break", "continue", "jobs", "umask", "ulimit", "times", "type", "help", "logout", "disown",
    "suspend", "kill", "fg", "bg", "caller", "unalias",
];

/// Builtins that run or reinterpret text, define what later words mean, or evaluate
/// arithmetic: never proven.
const UNPROVEN: &[&str] = &[
    "eval", "source", ".", "trap", "alias", "shopt", "let", "hash", "enable", "bind", "complete",
    "compgen", "compopt", "fc", "history",
];

/// Flags of `set` that change nothing about what runs. `-a` (export every assignment) and
/// `-k` (assignments anywhere are environment) are not among them.
const SET_FLAGS: &[&str] = &[
    "-e", "+e", "-u", "+u", "-x", "+x", "-v", "+v", "-f", "+f", "-C", "+C", "-E", "+E", "-o", "+o",
    "--", "-",
];

/// `set -o` names that change nothing about what runs.
const SET_OPTIONS: &[&str] = &[
    "errexit",
    "nounset",
    "xtrace",
    "verbose",
    "noglob",
    "noclobber",
    "pipefail",
    "errtrace",
];

/// Declaration builtins' flags that keep operands plain (`-i` makes assignments arithmetic,
/// `-n` makes names references).
const DECLARE_FLAGS: &[char] = &['a', 'A', 'r', 'x', 'g', 'p', 'f', 'F', 'l', 'u'];

/// `exec`'s command: `exec [-cl] [-a name] command …`; without one it only redirects.
const EXEC: Grammar = Grammar {
    flags: "cl",
    valued: "a",
    ..Grammar::NONE
};

/// `command [-p] command …`; `-v` and `-V` only look the name up.
const COMMAND: Grammar = Grammar {
    flags: "p",
    ..Grammar::NONE
};

/// What a builtin does with `args` (its operands, the name excluded), or `None` when `name`
/// is no builtin.
pub fn check(name: &str, args: &[Word]) -> Option<Verdict> {
    Some(match name {
        _ if PLAIN.contains(&name) => Verdict::Plain,
        _ if UNPROVEN.contains(&name) => Verdict::Unproven(Construct::Builtin(name.to_owned())),
        "test" | "[" => test(args),
        "set" => set(args),
        "printf" => printf(args),
        "read" => names_after_options(args, "ersa", "adinNptu", &['a']),
        "mapfile" | "readarray" => {
            if args.iter().any(|w| w.text.starts_with("-C") || !w.literal) {
                Verdict::Unproven(Construct::Builtin(format!("{name} -C")))
            } else {
                names_after_options(args, "t", "dnOsuc", &[])
            }
        }
        "getopts" => match args {
            [spec, name, ..] if spec.literal => names(std::slice::from_ref(name)),
            _ => Verdict::Unproven(Construct::Indirection),
        },
        "wait" => {
            if args.iter().any(|w| w.text.starts_with("-p") || !w.literal) {
                Verdict::Unproven(Construct::Indirection)
            } else {
                Verdict::Plain
            }
        }
        "export" | "declare" | "typeset" | "local" | "readonly" => declaration(args),
        "unset" => {
            let operands: Vec<Word> = args
                .iter()
                .filter(|w| !matches!(w.text.as_str(), "-f" | "-v" | "-n" | "--"))
                .cloned()
                .collect();
            names(&operands)
        }
        "exec" => match parse_wrapper(&EXEC, args) {
            Ok(Some(at)) => Verdict::Unwrap(at),
            Ok(None) => Verdict::Plain,
            Err(why) => why,
        },
        "command" => {
            if args
                .first()
                .is_some_and(|w| matches!(w.text.as_str(), "-v" | "-V" | "-pv" | "-pV"))
            {
                Verdict::Plain
            } else {
                match parse_wrapper(&COMMAND, args) {
                    Ok(Some(at)) => Verdict::Unwrap(at),
                    Ok(None) => Verdict::Plain,
                    Err(why) => why,
                }
            }
        }
        "builtin" => match args.first() {
            Some(w) if w.literal => Verdict::Unwrap(0),
            Some(_) => Verdict::Unproven(Construct::ComputedName),
            None => Verdict::Plain,
        },
        _ => return None,
    })
}

/// `test` and `[`: `-v` and `-R` take a variable name (subscripts evaluate); the rest
/// compares text and files (`-eq` of `test` requires plain integers, unlike `[[ ]]`).
fn test(args: &[Word]) -> Verdict {
    if args
        .iter()
        .any(|w| matches!(w.text.as_str(), "-v" | "-R") || (!w.literal && w.text.starts_with('-')))
    {
        Verdict::Unproven(Construct::Indirection)
    } else {
        Verdict::Plain
    }
}

fn set(args: &[Word]) -> Verdict {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if !word.literal {
            return Verdict::Unproven(Construct::Builtin("set".into()));
        }
        let text = word.text.as_str();
        if text == "--" || text == "-" {
            // Positional parameters follow.
            return Verdict::Plain;
        }
        if !text.starts_with(['-', '+']) {
            return Verdict::Plain;
        }
        // A cluster such as `-eux`, or `-euo pipefail` with the option name next.
        let sign = &text[..1];
        let cluster = &text[1..];
        let (flags, takes_option) = match cluster.strip_suffix('o') {
            Some(flags) => (flags, true),
            None => (cluster, false),
        };
        if !flags
            .chars()
            .all(|c| c != 'o' && SET_FLAGS.contains(&format!("{sign}{c}").as_str()))
        {
            return Verdict::Unproven(Construct::Builtin(format!("set {text}")));
        }
        if takes_option {
            match words.next() {
                None => return Verdict::Plain,
                Some(option) if option.literal && SET_OPTIONS.contains(&option.text.as_str()) => {}
                Some(option) => {
                    return Verdict::Unproven(Construct::Builtin(format!("set -o {}", option.text)))
                }
            }
        }
    }
    Verdict::Plain
}

fn printf(args: &[Word]) -> Verdict {
    match args {
        [flag, name, ..] if flag.text == "-v" => names(std::slice::from_ref(name)),
        [flag, ..] if flag.text.starts_with("-v") || !flag.literal => {
            Verdict::Unproven(Construct::Indirection)
        }
        _ => Verdict::Plain,
    }
}

/// A builtin whose operands after options are variable names: `flags` take no value,
/// `valued` one (the next word or the rest of the cluster), and those in `named` a name.
fn names_after_options(args: &[Word], flags: &str, valued: &str, named: &[char]) -> Verdict {
    let mut operands = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if !word.literal {
            return Verdict::Unproven(Construct::Indirection);
        }
        let text = word.text.as_str();
        if text == "--" {
            operands.extend(words.cloned());
            break;
        }
        match text.strip_prefix('-') {
            Some(cluster) if !cluster.is_empty() && operands.is_empty() => {
                for (at, c) in cluster.char_indices() {
                    if flags.contains(c) {
                        continue;
                    }
                    if valued.contains(c) {
                        let value = if at + 1 < cluster.len() {
                            Some(Word::literal(&cluster[at + 1..]))
                        } else {
                            words.next().cloned()
                        };
                        let Some(value) = value else {
                            return Verdict::Plain;
                        };
                        // A name is checked as an operand; other values are data.
                        if named.contains(&c) {
                            operands.push(value);
                        }
                        break;
                    }
                    return Verdict::Unproven(Construct::Indirection);
                }
            }
            _ => operands.push(word.clone()),
        }
    }
    names(&operands)
}

/// `export`, `declare`, `typeset`, `local`, `readonly`: flags that keep operands plain, then
/// `NAME` or `NAME=value` operands with harmless names.
fn declaration(args: &[Word]) -> Verdict {
    let mut operands = Vec::new();
    for word in args {
        let text = word.text.as_str();
        if operands.is_empty() && text.starts_with(['-', '+']) && text.len() > 1 {
            if !word.literal || !text[1..].chars().all(|c| DECLARE_FLAGS.contains(&c)) {
                return Verdict::Unproven(Construct::Builtin(format!("declaration {text}")));
            }
            continue;
        }
        operands.push(word.clone());
    }
    let names: Vec<Word> = operands
        .iter()
        .map(|w| {
            let name = w.text.split_once('=').map_or(w.text.as_str(), |(n, _)| n);
            Word {
                text: name.trim_end_matches('+').to_owned(),
                // The value after `=` may be computed; the name may not.
                literal: w.literal || w.text.split_once('=').is_some_and(|(n, _)| is_name(n)),
            }
        })
        .collect();
    self::names(&names)
}

/// Operands that are variable names: plain names that change nothing about what runs.
fn names(operands: &[Word]) -> Verdict {
    for word in operands {
        if !word.literal {
            return Verdict::Unproven(Construct::Indirection);
        }
        if word.text.contains('[') {
            return Verdict::Unproven(Construct::Subscript);
        }
        if !is_harmless_variable(&word.text) {
            return Verdict::Unproven(Construct::Assignment(word.text.clone()));
        }
    }
    Verdict::Plain
}
