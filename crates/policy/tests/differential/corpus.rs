//! Real commands nobody on the project wrote, each under the rule its page implies: the
//! usability half of the differential test. The corpus is the community cheatsheets of the
//! `cheat` package (PyPI, version and checksum pinned in xtask), fetched and cached by
//! `cargo xtask`, never committed; `TWINWIRE_RULES_CORPUS` names its directory of sheets.
//!
//! A sheet is named after a program; its commands are the lines that start with that name.
//! The rule a command is tried under is `Bash(<program> <subcommand>:*)` when its second word
//! is a plain word (`git log`, `apt update`), else `Bash(<program>:*)`. Ground truth is bash:
//! a command is within its rule when every program bash ran for it (through wrappers that
//! only wrap) is allowed by the rule; programs not installed here are stand-ins, as only
//! what bash itself runs is judged.

use std::path::Path;

/// One command of the corpus and the rule its sheet implies.
pub struct Example {
    pub command: String,
    pub rule: String,
}

/// The commands of every sheet in `dir`, sorted by sheet and line.
pub fn read(dir: &Path) -> Vec<Example> {
    let mut sheets: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("reading the corpus at {}: {err}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    sheets.sort();
    let mut examples = Vec::new();
    for sheet in sheets {
        let Some(program) = sheet.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(&sheet).unwrap_or_default();
        for line in text.lines() {
            let line = line.trim_end();
            let mut words = line.split_whitespace();
            if words.next() != Some(program) || line.contains('\t') {
                continue;
            }
            let rule = match words.next() {
                Some(sub)
                    if sub.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        && sub.chars().all(|c| c.is_ascii_lowercase() || c == '-') =>
                {
                    format!("Bash({program} {sub}:*)")
                }
                _ => format!("Bash({program}:*)"),
            };
            examples.push(Example {
                command: line.to_owned(),
                rule,
            });
        }
    }
    examples
}
