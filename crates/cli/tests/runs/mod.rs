//! What the tests of `twinwire run` share: a finished run and the summary line's shape.
// Each test target uses its own subset.
#![allow(dead_code)]

use std::process::Output;

/// A finished `twinwire` process: its exit code and its output.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
        }
    }
}

/// `✓ 3 steps · $0.0012 · 1.4 s` (or `✗ <subtype> · …`).
pub fn is_summary(line: &str, mark: &str) -> bool {
    let Some(rest) = line.strip_prefix(mark) else {
        return false;
    };
    let parts: Vec<&str> = rest.split(" · ").collect();
    let stats = &parts[parts.len().saturating_sub(3)..];
    stats.len() == 3
        && (stats[0].ends_with(" step") || stats[0].ends_with(" steps"))
        && stats[1].starts_with('$')
        && stats[1][1..].parse::<f64>().is_ok()
        && stats[2].ends_with(" s")
}
