//! What `check` found, and how much of it is shown: each file's findings are gathered apart,
//! bounded per section ([`SHOWN_PER_FILE`] unless `--all`), and joined to the report when the
//! file ends, so that a file made mostly of lines that are not JSON can be reported once.

use serde::Serialize;

use super::Direction;

/// How many findings of one section are shown per file without `--all`.
pub const SHOWN_PER_FILE: usize = 20;

/// One frame that failed, came back unknown, or deviates in a way real peers do.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub(super) file: String,
    /// 1-based; 0 for a finding about the whole file.
    pub(super) line: u64,
    pub(super) direction: Direction,
    pub(super) kind: String,
    pub(super) message: String,
}

impl Finding {
    /// A finding at `line` of `file`.
    pub fn new(
        file: &str,
        line: u64,
        direction: Direction,
        kind: &str,
        message: impl std::fmt::Display,
    ) -> Self {
        Self {
            file: file.to_owned(),
            line,
            direction,
            kind: kind.to_owned(),
            message: message.to_string(),
        }
    }
}

/// The sections of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Frames that do not fit the schema.
    Errors,
    /// Deviations that real peers produce, read anyway.
    Warnings,
    /// Unknown kinds the official TypeScript SDK lists.
    UnknownListed,
    /// Unknown kinds nobody lists.
    UnknownUnlisted,
}

/// Findings of one file left out of the report for the bound.
#[derive(Debug, Clone, Serialize)]
pub struct NotShown {
    pub(super) file: String,
    pub(super) section: Section,
    pub(super) count: usize,
}

/// The findings of one section of one file: the first ones, and how many there were.
#[derive(Debug, Default)]
struct Bounded {
    shown: Vec<Finding>,
    total: usize,
}

impl Bounded {
    fn push(&mut self, finding: Finding, limit: Option<usize>) {
        self.total += 1;
        if limit.is_none_or(|limit| self.shown.len() < limit) {
            self.shown.push(finding);
        }
    }
}

/// The findings of the file being read.
#[derive(Debug)]
pub struct FileFindings {
    file: String,
    limit: Option<usize>,
    /// Lines read (frames, meta lines and lines that could not be read).
    lines: usize,
    /// Lines that are not JSON, kept apart from the other errors.
    not_json: Bounded,
    errors: Bounded,
    warnings: Bounded,
    unknown_listed: Bounded,
    unknown_unlisted: Bounded,
}

/// One section of a file's findings, as the report takes it.
#[derive(Debug)]
pub struct Part {
    /// The section.
    pub section: Section,
    /// The findings shown.
    pub shown: Vec<Finding>,
    /// How many were found in all.
    pub total: usize,
}

impl FileFindings {
    /// The findings of `file`, `limit` per section (`None`: all).
    pub fn new(file: &str, limit: Option<usize>) -> Self {
        Self {
            file: file.to_owned(),
            limit,
            lines: 0,
            not_json: Bounded::default(),
            errors: Bounded::default(),
            warnings: Bounded::default(),
            unknown_listed: Bounded::default(),
            unknown_unlisted: Bounded::default(),
        }
    }

    /// The file's name as findings show it.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Counts a line read.
    pub fn line_read(&mut self) {
        self.lines += 1;
    }

    /// A line that is not JSON (or not UTF-8).
    pub fn not_json(&mut self, finding: Finding) {
        self.not_json.push(finding, self.limit);
    }

    /// A finding of `section`.
    pub fn push(&mut self, section: Section, finding: Finding) {
        let bounded = match section {
            Section::Errors => &mut self.errors,
            Section::Warnings => &mut self.warnings,
            Section::UnknownListed => &mut self.unknown_listed,
            Section::UnknownUnlisted => &mut self.unknown_unlisted,
        };
        bounded.push(finding, self.limit);
    }

    /// The file's findings as the report takes them. When most lines are not JSON, the file is
    /// not NDJSON at all: one finding says so, with the count, instead of one per line.
    pub fn join(self) -> Vec<Part> {
        let mostly_not_json = self.not_json.total > 0 && self.not_json.total * 2 > self.lines;
        let mut errors = self.errors;
        if mostly_not_json {
            let first = self
                .not_json
                .shown
                .first()
                .map_or(0, |finding| finding.line);
            let summary = Finding::new(
                &self.file,
                0,
                Direction::Out,
                "file",
                format!(
                    "not NDJSON: {} of {} lines are not JSON (the first is line {first})",
                    thousands(self.not_json.total),
                    thousands(self.lines)
                ),
            );
            errors.total += 1;
            errors.shown.insert(0, summary);
            errors.shown.truncate(self.limit.unwrap_or(usize::MAX));
        } else {
            // Both lists hold each section's first findings, so the merged list's first ones
            // are the file's first ones.
            errors.total += self.not_json.total;
            errors.shown.extend(self.not_json.shown);
            errors.shown.sort_by_key(|finding| finding.line);
            errors.shown.truncate(self.limit.unwrap_or(usize::MAX));
        }
        [
            (Section::Errors, errors),
            (Section::Warnings, self.warnings),
            (Section::UnknownListed, self.unknown_listed),
            (Section::UnknownUnlisted, self.unknown_unlisted),
        ]
        .into_iter()
        .map(|(section, bounded)| Part {
            section,
            shown: bounded.shown,
            total: bounded.total,
        })
        .collect()
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(line: u64) -> Finding {
        Finding::new("f.jsonl", line, Direction::Out, "?", "bad")
    }

    #[test]
    fn each_section_is_bounded_and_counts_what_it_leaves_out() {
        let mut file = FileFindings::new("f.jsonl", Some(3));
        for line in 1..=10 {
            file.line_read();
            file.push(Section::Errors, finding(line));
        }
        let parts = file.join();
        assert_eq!(parts[0].section, Section::Errors);
        assert_eq!(
            parts[0].shown.iter().map(|f| f.line).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert_eq!(parts[0].total, 10);
        assert!(parts[1..].iter().all(|part| part.total == 0));
    }

    #[test]
    fn a_file_mostly_not_json_is_one_finding_with_the_count() {
        let mut file = FileFindings::new("f.jsonl", Some(20));
        for line in 1..=9 {
            file.line_read();
            file.not_json(finding(line));
        }
        file.line_read();
        file.push(Section::Errors, finding(10));
        let parts = file.join();
        let errors = &parts[0].shown;
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0]
                .message
                .contains("9 of 10 lines are not JSON (the first is line 1)"),
            "{}",
            errors[0].message
        );
        assert_eq!(errors[1].line, 10);

        // A few such lines among frames are each reported, in line order with the rest.
        let mut file = FileFindings::new("f.jsonl", None);
        for line in 1..=4 {
            file.line_read();
            if line == 2 {
                file.not_json(finding(line));
            } else {
                file.push(Section::Errors, finding(line));
            }
        }
        let errors = &file.join()[0].shown;
        assert_eq!(
            errors.iter().map(|f| f.line).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(213_201), "213,201");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
