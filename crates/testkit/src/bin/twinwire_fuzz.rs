//! `twinwire-fuzz`: runs the fuzz targets of `twinwire_testkit::fuzz`.
//!
//! ```text
//! twinwire-fuzz [--seconds N] [--seed S] [--crashes DIR] [TARGET…]   # framing, message, input
//! twinwire-fuzz --replay FILE TARGET                                  # one saved input again
//! ```
//!
//! Prints one JSON line per target (`target`, `inputs`, `crashes`, `seconds`, `first_crash`)
//! and exits 1 if any input panicked; each such input is saved in the crash directory.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use twinwire_testkit::fuzz::{self, Target};

fn target(name: &str) -> Target {
    Target::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no target `{name}` (framing, message, input)"))
}

#[allow(clippy::print_stdout)] // the tool's report
fn main() {
    let mut args = std::env::args().skip(1);
    let mut seconds = 10.0_f64;
    let mut seed = 1_u64;
    let mut crashes = PathBuf::from("target/fuzz/crashes");
    let mut replay = None;
    let mut targets = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} takes a value"));
        match arg.as_str() {
            "--seconds" => seconds = value().parse().expect("--seconds takes a number"),
            "--seed" => seed = value().parse().expect("--seed takes an integer"),
            "--crashes" => crashes = PathBuf::from(value()),
            "--replay" => replay = Some(PathBuf::from(value())),
            name => targets.push(target(name)),
        }
    }
    if let Some(file) = replay {
        let input = std::fs::read(&file).expect("reading the input");
        for target in targets {
            target.run(&input);
        }
        println!("{}: no panic", file.display());
        return;
    }
    if targets.is_empty() {
        targets = Target::ALL.to_vec();
    }
    // Panics are expected findings: reported once per target, not printed for each input.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = false;
    for target in targets {
        let started = Instant::now();
        let report = fuzz::run(target, Duration::from_secs_f64(seconds), seed, &crashes);
        failed |= report.crashes > 0;
        let line = serde_json::json!({
            "target": target.name(),
            "inputs": report.inputs,
            "crashes": report.crashes,
            "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            "first_crash": report.first_crash,
        });
        println!("{line}");
    }
    std::process::exit(i32::from(failed));
}
