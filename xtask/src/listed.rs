//! The conformance suite's output as it should read: a scenario that fails as
//! `differences.json` lists it is reported as `listed`, with the reason, never as `FAILED`, and
//! its panic (and backtrace) is left out; a scenario that fails otherwise keeps every line
//! libtest and Cargo print for it. The suite's binary still fails those scenarios (the listed
//! ones must keep failing); only what is shown changes.

use std::collections::BTreeMap;

/// Where in libtest's output a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The tests' lines (`test NAME ... ok`).
    Tests,
    /// The captured output of each failed test (`---- NAME stdout ----` and what follows).
    Outputs,
    /// The names of the failed tests, after the second `failures:`.
    Names,
}

/// Rewrites libtest's output for a run whose expected differences are `listed` (scenario →
/// why).
pub struct Filter<'a> {
    listed: &'a BTreeMap<String, String>,
    part: Part,
    /// Whether the lines of the failure being read are shown.
    showing: bool,
    /// Failed scenarios that are listed (shown as `listed`).
    pub listed_failures: u64,
    /// Failed scenarios that are not.
    pub unlisted_failures: u64,
}

impl<'a> Filter<'a> {
    pub fn new(listed: &'a BTreeMap<String, String>) -> Self {
        Self {
            listed,
            part: Part::Tests,
            showing: true,
            listed_failures: 0,
            unlisted_failures: 0,
        }
    }

    /// The line to show for `line`, if any.
    pub fn line(&mut self, line: &str) -> Option<String> {
        if line == "failures:" {
            self.part = match self.part {
                Part::Tests => Part::Outputs,
                _ => Part::Names,
            };
            self.showing = true;
            // Said once, before the first failure shown.
            return None;
        }
        match self.part {
            Part::Tests => Some(self.test_line(line)),
            Part::Outputs => {
                if let Some(name) = line
                    .strip_prefix("---- ")
                    .and_then(|rest| rest.strip_suffix(" stdout ----"))
                {
                    self.showing = !self.listed.contains_key(name);
                    if self.showing {
                        return Some(format!("failures:\n\n{line}"));
                    }
                }
                self.showing.then(|| line.to_owned())
            }
            Part::Names => {
                if let Some(rest) = line.strip_prefix("test result: ") {
                    return Some(self.result_line(rest));
                }
                let name = line.trim();
                if name.is_empty() || self.listed.contains_key(name) {
                    None
                } else {
                    Some(format!("failed: {name}"))
                }
            }
        }
    }

    /// `test NAME ... FAILED` of a listed scenario → `test NAME ... listed (why)`.
    fn test_line(&mut self, line: &str) -> String {
        let Some((name, outcome)) = line
            .strip_prefix("test ")
            .and_then(|rest| rest.rsplit_once(" ... "))
        else {
            return line.to_owned();
        };
        match (outcome.trim(), self.listed.get(name)) {
            ("FAILED", Some(why)) => {
                self.listed_failures += 1;
                format!("test {name} ... listed ({})", clip(why, 100))
            }
            ("FAILED", None) => {
                self.unlisted_failures += 1;
                line.to_owned()
            }
            _ => line.to_owned(),
        }
    }

    /// libtest's `FAILED. 50 passed; 5 failed; …` with the listed ones counted apart.
    fn result_line(&self, rest: &str) -> String {
        let counts = rest.split_once(". ").map_or(rest, |(_, counts)| counts);
        let verdict = if self.unlisted_failures == 0 {
            "ok"
        } else {
            "FAILED"
        };
        let counts = counts.replacen(
            &format!("{} failed", self.listed_failures + self.unlisted_failures),
            &format!(
                "{} failed; {} listed",
                self.unlisted_failures, self.listed_failures
            ),
            1,
        );
        format!("test result: {verdict}. {counts}")
    }
}

/// Whether a line Cargo writes to stderr is only its word that the test binary failed (shown
/// when a failure is not listed, left out otherwise).
pub fn is_cargo_rerun_hint(line: &str) -> bool {
    line.starts_with("error: test failed, to rerun pass")
}

/// The first `max` characters of `text`'s first line, with `…` if cut.
fn clip(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or_default();
    if first.chars().count() <= max && first.len() == text.len() {
        return first.to_owned();
    }
    let mut cut: String = first.chars().take(max).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libtest's output for a run with one listed failure and one that is not.
    const OUTPUT: &str = "\
running 3 tests
test basics::a ... ok
test basics::listed ... FAILED
test basics::broken ... FAILED

failures:

---- basics::listed stdout ----

thread 'basics::listed' panicked at basics.rs:10:5:
the old CLI sends no such frame
stack backtrace:
   0: rust_begin_unwind

---- basics::broken stdout ----

thread 'basics::broken' panicked at basics.rs:20:5:
assertion failed: real trouble


failures:
    basics::listed
    basics::broken

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s
";

    fn filtered(listed: &[&str]) -> (String, u64, u64) {
        let listed: BTreeMap<String, String> = listed
            .iter()
            .map(|name| ((*name).to_owned(), "this CLI has no such frame".to_owned()))
            .collect();
        let mut filter = Filter::new(&listed);
        let shown: Vec<String> = OUTPUT.lines().filter_map(|l| filter.line(l)).collect();
        (
            shown.join("\n"),
            filter.listed_failures,
            filter.unlisted_failures,
        )
    }

    #[test]
    fn a_listed_failure_reads_as_listed_and_a_real_one_as_failed() {
        let (shown, listed, unlisted) = filtered(&["basics::listed"]);
        assert_eq!((listed, unlisted), (1, 1));
        assert!(
            shown.contains("test basics::listed ... listed (this CLI has no such frame)"),
            "{shown}"
        );
        assert!(
            !shown.contains("the old CLI sends no such frame"),
            "{shown}"
        );
        assert!(!shown.contains("stack backtrace"), "{shown}");
        // The real failure keeps everything that says what failed.
        assert!(shown.contains("test basics::broken ... FAILED"), "{shown}");
        assert!(shown.contains("---- basics::broken stdout ----"), "{shown}");
        assert!(shown.contains("assertion failed: real trouble"), "{shown}");
        assert!(shown.contains("failed: basics::broken"), "{shown}");
        assert!(
            shown.contains("test result: FAILED. 1 passed; 1 failed; 1 listed; 0 ignored"),
            "{shown}"
        );
    }

    #[test]
    fn a_run_with_only_listed_failures_has_no_failed_line() {
        let (shown, listed, unlisted) = filtered(&["basics::listed", "basics::broken"]);
        assert_eq!((listed, unlisted), (2, 0));
        assert!(!shown.contains("FAILED"), "{shown}");
        assert!(!shown.contains("failures:"), "{shown}");
        assert!(!shown.contains("panicked"), "{shown}");
        assert!(
            shown.ends_with("test result: ok. 1 passed; 0 failed; 2 listed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s"),
            "{shown}"
        );
    }

    #[test]
    fn cargos_rerun_hint_is_recognized() {
        assert!(is_cargo_rerun_hint(
            "error: test failed, to rerun pass `-p twinwire-testkit --test conformance`"
        ));
        assert!(!is_cargo_rerun_hint("error: could not compile"));
    }
}
