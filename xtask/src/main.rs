//! Project tasks, run as `cargo xtask <task>`.
//!
//! - `test`: everything CI proves: the workspace's tests (unit, transcript, property, process
//!   tests), a run of the `twinwire` binary over the recorded transcripts, the conformance suite
//!   against the real pinned Claude Code CLI (installed first if needed), the peers suite (the
//!   official SDKs through `twinwire tap`, against `fake-claude` and against `twinwire replay`;
//!   installed first if needed), `package`, `msrv`, `platforms`, `bench --quick`, then
//!   `semver` (its builds run beside the rest).
//! - `platforms`: clippy (`-D warnings`) on every published crate for Windows and macOS (see
//!   `platforms.rs` and docs/platforms.md).
//! - `record [--version V]…`: run the conformance suite on each CLI generation (and the peers
//!   suite on the pinned one) through `twinwire tap` and write the normalized recordings to
//!   `tests/fixtures/transcripts/claude-<version>/`.
//! - `drift --version V`: run the conformance scenarios on CLI V through `twinwire tap` and print
//!   what the typed schema does not know yet (see `drift.rs`).
//! - `fuzz-rules [--seconds N] [--seed S]`: the differential test of the permission rules
//!   for a while (generated commands in real bash, under strace, in a sandbox).
//! - `fidelity [--case NAME]…`: twinwire-agent's tools against Claude Code 2.1.332's, every
//!   case of the fidelity suite, with a report in `target/fidelity/report.md`.
//! - `install-claude [--version V]`: download a Claude Code build from npm into twinwire's cache
//!   and print the path of its executable.
//! - `install-sdks`: install the official Python and TypeScript SDKs under `target/sdks` and
//!   print the environment the peers suite reads.
//! - `bench [--quick] [--reps N]`: twinwire against the official TypeScript and Python SDKs and
//!   bare Rust loops on the same fake CLI; writes its section of `docs/benchmarks.md`.
//! - `bench-agent`: the real CLI against `twinwire-agent` on the same session workloads.
//! - `package [--allow-dirty]`: package every published crate as `cargo publish` would, check
//!   their sizes, install `fake-claude` as docs/fake-claude.md says.
//! - `msrv`: build the libraries and binaries with the declared `rust-version`.
//! - `semver`: the library crates' public APIs against `xtask/semver-baseline`.

// A command-line tool: stdout and stderr are its interface.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
#[path = "bench/agent.rs"]
mod bench_agent;
mod build;
mod cmd;
mod conformance;
mod corpus;
mod debian;
mod disk;
mod docs;
mod drift;
mod fidelity;
mod install;
mod listed;
mod msrv;
mod normalize;
mod peers;
mod plan;
mod platforms;
mod publish;
mod sdks;
mod semver;
mod settle;
mod tally;
mod targets;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

use cmd::run;
use install::{install_claude, PINNED_CLI_VERSION};

/// The environment variable that gives the conformance and peers suites the CLI to drive.
const CLAUDE_PATH_ENV: &str = "TWINWIRE_CLAUDE_PATH";

/// The test target of `crates/testkit` that drives the real CLI.
const CONFORMANCE_TEST: &str = "conformance";

/// The test target of `crates/cli` that runs the official SDKs as peers.
const PEERS_TEST: &str = "peers";

/// The environment variable that names the directory of real commands the rules' usability
/// test reads, and the one that bounds it (every n-th command) in `cargo xtask test`.
const CORPUS_ENV: &str = "TWINWIRE_RULES_CORPUS";
const CORPUS_LIMIT_ENV: &str = "TWINWIRE_RULES_CORPUS_LIMIT";
/// The test targets that run on their own, after the workspace's other tests: the two suites
/// above, and `otlp`, which needs the feature `opentelemetry`.
const SEPARATE_TESTS: [&str; 3] = [CONFORMANCE_TEST, PEERS_TEST, "otlp"];

/// The environment variable that gives the peers suite the Python SDK's venv interpreter.
const PYTHON_ENV: &str = "TWINWIRE_PEERS_PYTHON";

/// The environment variable that gives the peers suite the TypeScript SDK's `sdk.mjs`.
const TS_SDK_ENV: &str = "TWINWIRE_PEERS_TS_SDK";

#[derive(Debug, Parser)]
#[command(name = "xtask")]
struct Args {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run every test: unit, transcript, property and process tests, `twinwire check` over the
    /// recorded transcripts, the conformance suite against the real pinned CLI, the peers suite
    /// (the official SDKs as clients of `twinwire tap`, `fake-claude` and `twinwire replay`), then
    /// `package`, `msrv`, the checks for Windows and macOS (`platforms`), then
    /// `bench --quick`. It says what it needs and what that costs before it starts.
    Test(TestArgs),
    /// Lint every published crate with clippy (`-D warnings`) for x86_64-pc-windows-gnu,
    /// aarch64-apple-darwin and x86_64-apple-darwin (see docs/platforms.md).
    Platforms,
    /// Record the conformance scenarios on each CLI generation (default: all four) and the
    /// peers scenarios on the pinned one, through `twinwire tap`, into
    /// `tests/fixtures/transcripts/claude-<version>/`, normalized so that recording again gives
    /// the same bytes.
    Record {
        /// A version to record (repeatable).
        #[arg(long)]
        version: Vec<String>,
        /// Compare with the committed recordings instead of rewriting them.
        #[arg(long)]
        check: bool,
    },
    /// Run the conformance scenarios on a CLI build through `twinwire tap` and print what the
    /// typed schema does not know yet: kinds, control subtypes, hook events, untyped fields.
    Drift {
        /// The CLI version to examine.
        #[arg(long)]
        version: String,
    },
    /// Fuzz the three places the wire enters twinwire (framing, a CLI's stdout frame, a host's
    /// frame on the agent side) with inputs grown from the recorded sessions; fails if any input
    /// panics or breaks an invariant (each such input is saved under `target/fuzz/crashes`).
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
        /// The random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Build with optimizations (many more inputs per second; a longer build).
        #[arg(long)]
        release: bool,
    },
    /// Run the differential test of the permission rules for a while: generated commands in
    /// real bash under strace in a sandbox, every program executed checked against the rules
    /// that allowed the command (see crates/policy/tests/differential). Fails on a violation.
    FuzzRules {
        /// Seconds to keep generating.
        #[arg(long, default_value_t = 600)]
        seconds: u64,
        /// The random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Commands per round.
        #[arg(long, default_value_t = 5_000)]
        cases: u64,
    },
    /// Play the same scripted tool calls to Claude Code 2.1.332 and to twinwire-agent in
    /// identical trees, every case of the fidelity suite, and compare what each gave (results,
    /// errors, file effects, the first request); writes target/fidelity/report.md. Fails on a
    /// difference that crates/agent/tests/fidelity/differences.json does not list.
    Fidelity {
        /// Only the cases whose names contain this (repeatable).
        #[arg(long = "case")]
        cases: Vec<String>,
    },
    /// Download a Claude Code CLI build from npm into twinwire's cache (a no-op when it is
    /// already there) and print the path of its executable as the last line of stdout.
    InstallClaude {
        /// The version to install.
        #[arg(long, default_value = PINNED_CLI_VERSION)]
        version: String,
    },
    /// Install the official Python and TypeScript SDKs under `target/sdks` (a no-op when the
    /// pinned versions are there) and print the environment the peers suite reads.
    InstallSdks,
    /// Measure twinwire against the official TypeScript and Python SDKs and bare Rust loops on
    /// the same fake CLI, and rewrite its section of docs/benchmarks.md (see docs/benchmarks.md).
    Bench(bench::BenchArgs),
    /// Time to the first message, cold and from a prewarmed process: twinwire's Pool spares
    /// against the TypeScript SDK's startup(), on fake-claude and the real CLI offline; prints
    /// a section for docs/benchmarks.md.
    BenchPrewarm(bench::prewarm::PrewarmArgs),
    /// The real CLI against twinwire-agent, offline, on the same session workloads (startup,
    /// first message, memory, sessions at once); writes its section of docs/benchmarks.md.
    BenchAgent(bench_agent::AgentBenchArgs),
    /// Package every published crate as `cargo publish` would (in dependency order, each
    /// built from its `.crate`), fail if one exceeds the size limit, and install `fake-claude`
    /// the way docs/fake-claude.md says.
    Package {
        /// Package uncommitted changes too.
        #[arg(long)]
        allow_dirty: bool,
    },
    /// Install the declared rust-version's toolchain with rustup and build the libraries and
    /// binaries with it.
    Msrv,
    /// Check every library crate's public API against the commit in xtask/semver-baseline
    /// with cargo-semver-checks (installed once into twinwire's tool cache), on rustdoc JSON
    /// built under target/semver.
    Semver,
}

/// Options of `cargo xtask test`.
#[derive(Debug, clap::Args)]
struct TestArgs {
    /// A first run: the workspace's tests and the conformance suite on the pinned CLI only
    /// (one Claude Code build, no official SDKs, no second toolchain, no other targets, no
    /// Wine); what it leaves out is said at the end.
    #[arg(long)]
    quick: bool,
    /// Keep the builds that one step alone uses (the packages' verification, the MSRV
    /// toolchain's, the other platforms', the semver check's): a next run is faster, the
    /// target directory larger.
    #[arg(long)]
    keep_builds: bool,
}

fn main() -> std::process::ExitCode {
    workspace_root();
    forget_cargo_run_variables();
    // The error and its causes, without the backtrace anyhow's `Debug` adds under
    // RUST_BACKTRACE: what failed is in the words.
    match task(Args::parse().task) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("Error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn task(task: Task) -> Result<()> {
    match task {
        Task::Test(args) => test(&args),
        Task::Platforms => platforms::check(&workspace_root()),
        Task::Record { version, check } => record(&version, check),
        Task::Drift { version } => {
            let root = workspace_root();
            let tap = build_tap(&root)?;
            drift::drift(&root, &version, &tap)
        }
        Task::InstallClaude { version } => {
            let path = install_claude(&version)?;
            println!("{}", path.display());
            Ok(())
        }
        Task::InstallSdks => {
            let sdks = sdks::install(&sdks::sdk_dir(&workspace_root()))?;
            println!("{PYTHON_ENV}={}", sdks.python.display());
            println!("{TS_SDK_ENV}={}", sdks.ts_sdk.display());
            Ok(())
        }
        Task::FuzzRules {
            seconds,
            seed,
            cases,
        } => fuzz_rules(&workspace_root(), seconds, seed, cases),
        Task::Fidelity { cases } => fidelity::fidelity(&workspace_root(), &cases),
        Task::Bench(args) => bench::bench(&workspace_root(), &args),
        Task::BenchPrewarm(args) => bench::prewarm::bench_prewarm(&workspace_root(), &args),
        Task::BenchAgent(args) => bench_agent::bench_agent(&workspace_root(), &args),
        Task::Fuzz {
            seconds,
            seed,
            release,
        } => fuzz(&workspace_root(), seconds, seed, release),
        Task::Package { allow_dirty } => publish::package(&workspace_root(), allow_dirty),
        Task::Msrv => msrv::check(&workspace_root()),
        Task::Semver => semver::check(&workspace_root()),
    }
}

/// `cargo xtask fuzz-rules`: see [`Task::FuzzRules`].
fn fuzz_rules(root: &Path, seconds: u64, seed: u64, cases: u64) -> Result<()> {
    let strace = debian::STRACE.install()?;
    let bwrap = debian::BWRAP.install()?;
    let corpus = corpus::sheets()?;
    // The whole corpus of real commands, then the generated ones for as long as asked.
    run(Command::new(cargo())
        .current_dir(root)
        .env(debian::STRACE.env, &strace)
        .env(debian::BWRAP.env, &bwrap)
        .env(CORPUS_ENV, &corpus)
        .args([
            "test",
            "--release",
            "--locked",
            "-p",
            "twinwire-policy",
            "--test",
            "differential",
            "real_commands",
            "--",
            "--nocapture",
        ]))
    .context("real commands: the rules allowed one outside its rule, or too few within it")?;
    run(Command::new(cargo())
        .current_dir(root)
        .env(debian::STRACE.env, &strace)
        .env(debian::BWRAP.env, &bwrap)
        .env("TWINWIRE_RULES_SECONDS", seconds.to_string())
        .env("TWINWIRE_RULES_SEED", seed.to_string())
        .env("TWINWIRE_RULES_CASES", cases.to_string())
        .args([
            "test",
            "--release",
            "--locked",
            "-p",
            "twinwire-policy",
            "--test",
            "differential",
            "generated",
            "--",
            "--nocapture",
        ]))
    .context("the rules let a command run a program they do not allow")
}

/// `cargo xtask fuzz`: see [`Task::Fuzz`].
fn fuzz(root: &Path, seconds: f64, seed: u64, release: bool) -> Result<()> {
    let mut command = if release {
        let mut command = Command::new(cargo());
        command.current_dir(root).args([
            "run",
            "--quiet",
            "--locked",
            "-p",
            "twinwire-testkit",
            "--bin",
            "twinwire-fuzz",
            "--release",
        ]);
        command.arg("--");
        command
    } else {
        // The dev build the tests made (see [`build`]).
        let mut command = Command::new(build::all(root)?.join("twinwire-fuzz"));
        command.current_dir(root);
        command
    };
    let crashes = sdks::target_dir(root).join("fuzz/crashes");
    command
        .args([
            "--seconds",
            &seconds.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .arg("--crashes")
        .arg(&crashes);
    run(&mut command).with_context(|| {
        format!(
            "the fuzz run found inputs that fail (saved in {}; replay one with \
             `twinwire-fuzz --replay FILE TARGET`)",
            crashes.display()
        )
    })
}

/// Takes away the variables `cargo run` sets for xtask itself (`CARGO_MANIFEST_DIR`,
/// `CARGO_PKG_*`, …) before any `cargo` starts from here: ring's build script watches them, so a
/// build started here and one from a shell or a test would recompile ring, rustls, reqwest and
/// twinwire-agent for each other. Called first, while xtask has one thread.
fn forget_cargo_run_variables() {
    let names: Vec<_> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| {
            let name = name.to_string_lossy();
            ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_BIN_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                ]
                .contains(&name.as_ref())
        })
        .collect();
    for name in names {
        std::env::remove_var(name);
    }
}

/// `cargo xtask test`: the plan, the suites, and one line that says how it went (after the
/// error, if one ended the run).
fn test(args: &TestArgs) -> Result<()> {
    let root = workspace_root();
    let started = tally::started();
    // Everything the suites need, said first and installed before any suite runs.
    plan::print(&root, args.quick)?;
    let mut meter = disk::Meter::new(&root);
    let outcome = if args.quick {
        quick(&root, &mut meter)
    } else {
        full(&root, args.keep_builds, &mut meter)
    };
    if let Err(err) = &outcome {
        eprintln!("Error: {err:#}");
    }
    eprintln!(
        "{}",
        tally::summary(outcome.is_ok(), started.elapsed(), meter.now())
    );
    if outcome.is_err() {
        std::process::exit(1);
    }
    Ok(())
}

/// `cargo xtask test`: every suite, with the semver check's builds beside them.
fn full(root: &Path, keep_builds: bool, meter: &mut disk::Meter) -> Result<()> {
    // The semver check's builds (the tool's install, once per machine, and rustdoc JSON of
    // every library at the baseline and now) run beside the suites at the lowest CPU priority,
    // in the time the suites spend waiting on CLIs and downloads; the comparison comes last.
    let semver = std::thread::spawn({
        let root = root.to_path_buf();
        move || semver::prepare(&root, true)
    });
    if let Err(err) = suites(root, keep_builds, meter) {
        semver::stop_background();
        let _ = semver.join();
        return Err(err);
    }
    let waited = std::time::Instant::now();
    let prepared = semver
        .join()
        .map_err(|_| anyhow::anyhow!("the semver builds panicked"))??;
    eprintln!(
        "semver: waited {:.0} s for its builds",
        waited.elapsed().as_secs_f64()
    );
    tally::step("semver");
    prepared.compare()?;
    let freed = disk::remove_all(&[semver::build_dir(root)], keep_builds)?;
    eprintln!("semver: removed its builds ({})", disk::gigabytes(freed));
    meter.after("semver");
    Ok(())
}

/// `cargo xtask test --quick`: the workspace's tests and the conformance suite on the pinned CLI.
fn quick(root: &Path, meter: &mut disk::Meter) -> Result<()> {
    tally::skipped(&[
        "the conformance suite on the other CLI generations and twinwire-agent",
        "the recordings check",
        "peers",
        "package",
        "msrv",
        "platforms",
        "fuzz",
        "bench",
        "semver",
    ]);
    let claude = install_claude(PINNED_CLI_VERSION)?;
    let programs = TestPrograms::install()?;
    workspace_tests(root, &claude, &programs)?;
    meter.after("the workspace's tests");
    let tap = build_tap(root)?;
    let suite = record_generation(root, PINNED_CLI_VERSION, &tap, None)?;
    let differences = conformance::differences(root)?;
    let expected = differences
        .get(PINNED_CLI_VERSION)
        .cloned()
        .unwrap_or_default();
    suite.check(&expected)?;
    meter.after("conformance");
    Ok(())
}

/// The programs some of the workspace's tests drive (Debian's, unless their variables name
/// others), installed before the tests start.
struct TestPrograms {
    chromium: PathBuf,
    tmux: PathBuf,
    sshd: PathBuf,
    ip: PathBuf,
    strace: PathBuf,
    bwrap: PathBuf,
    /// The rules' corpus of real commands (not a program, fetched the same way: once).
    corpus: PathBuf,
}

impl TestPrograms {
    fn install() -> Result<Self> {
        let programs = Self {
            chromium: debian::CHROMIUM.install()?,
            tmux: debian::TMUX.install()?,
            sshd: debian::SSHD.install()?,
            ip: debian::IPROUTE.install()?,
            strace: debian::STRACE.install()?,
            bwrap: debian::BWRAP.install()?,
            corpus: corpus::sheets()?,
        };
        // Claude Code's sandbox finds it on PATH.
        debian::SOCAT.install()?;
        Ok(programs)
    }
}

/// The workspace's tests but the two suites that drive other programs: every unit,
/// integration and doc test in one selection of the workspace (see [`build`]), all run even
/// when one fails; the feature `opentelemetry` on its own; `twinwire check` over the
/// recordings.
fn workspace_tests(root: &Path, claude: &Path, programs: &TestPrograms) -> Result<()> {
    // Every binary and example first, so that the tests' helpers take these rather than
    // build their own in another selection.
    build::all(root)?;
    // The fidelity suite's judge (its bounded subset runs with the agent crate's tests).
    let judge = install_claude(fidelity::JUDGE_VERSION)?;
    let mut tests = build::workspace(root, "test");
    tests
        .arg("--no-fail-fast")
        .args(["--lib", "--bins", "--benches"])
        .env(build::PREBUILT_ENV, "1")
        .env(CLAUDE_PATH_ENV, claude)
        .env("TWINWIRE_FIDELITY_CLAUDE", &judge)
        .env(debian::STRACE.env, &programs.strace)
        .env(debian::BWRAP.env, &programs.bwrap)
        .env(debian::CHROMIUM.env, &programs.chromium)
        .env(debian::TMUX.env, &programs.tmux)
        .env(debian::SSHD.env, &programs.sshd)
        .env(debian::IPROUTE.env, &programs.ip)
        .env(CORPUS_ENV, &programs.corpus)
        // A third of the real commands: about 30 s beside the generated ones.
        .env(CORPUS_LIMIT_ENV, "330");
    for target in targets::workspace_test_targets(root)? {
        if !SEPARATE_TESTS.contains(&target.as_str()) {
            tests.args(["--test", &target]);
        }
    }
    tally::run("workspace", &mut tests)?;
    tally::run("doc tests", build::workspace(root, "test").arg("--doc"))?;
    // The feature `opentelemetry` on its own (linted, and its OTLP test against the fake CLI
    // and the real one): kept out of the run above so that the other tests see the default
    // build's environment handling.
    tally::step("clippy --all-features");
    run(Command::new(cargo()).current_dir(root).args([
        "clippy",
        "-p",
        "twinwire",
        "--all-features",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    tally::run(
        "otlp",
        Command::new(cargo())
            .current_dir(root)
            .env(CLAUDE_PATH_ENV, claude)
            .env(build::PREBUILT_ENV, "1")
            .args([
                "test",
                "-p",
                "twinwire",
                "--features",
                "opentelemetry",
                "--test",
                "otlp",
                "--locked",
            ]),
    )?;
    tally::step("twinwire check");
    run(Command::new(build_tap(root)?)
        .arg("check")
        .arg(conformance::fixtures_dir(root)))
}

/// Every suite of `cargo xtask test` but semver's comparison, in order; each step's own builds
/// taken away once it passed, unless `keep_builds`.
fn suites(root: &Path, keep_builds: bool, meter: &mut disk::Meter) -> Result<()> {
    let root = root.to_path_buf();
    for version in conformance::GENERATIONS {
        install_claude(version)?;
    }
    let claude = install_claude(PINNED_CLI_VERSION)?;
    eprintln!("conformance CLI: {}", claude.display());
    let sdks = sdks::install(&sdks::sdk_dir(&root))?;
    let programs = TestPrograms::install()?;
    workspace_tests(&root, &claude, &programs)?;
    meter.after("the workspace's tests");
    // The packages as crates.io gets them (strict about a clean tree in CI, whose clone is
    // fresh) and the declared MSRV: builds of their own, taken away after.
    tally::step("package");
    let sweep = disk::Sweep::begin(&root);
    publish::package(&root, std::env::var_os("CI").is_none())?;
    let freed = sweep.end(keep_builds)?;
    eprintln!(
        "package: removed its verification builds ({})",
        disk::gigabytes(freed)
    );
    meter.after("package");
    tally::step("msrv");
    let sweep = disk::Sweep::begin(&root);
    msrv::check(&root)?;
    let freed = sweep.end(keep_builds)?;
    eprintln!("msrv: removed its builds ({})", disk::gigabytes(freed));
    meter.after("msrv");
    tally::step("platforms");
    platforms::check(&root)?;
    let freed = disk::remove_all(&platforms::build_dirs(&root), keep_builds)?;
    eprintln!(
        "platforms: removed their builds ({})",
        disk::gigabytes(freed)
    );
    meter.after("platforms");
    let tap = build_tap(&root)?;
    let differences = conformance::differences(&root)?;
    let mut failures = Vec::new();
    for version in conformance::GENERATIONS {
        let mut suite = record_generation(&root, version, &tap, Some(&sdks))?;
        let expected = differences.get(version).cloned().unwrap_or_default();
        if let Err(err) = suite.check(&expected) {
            failures.push(format!("{err:#}"));
        }
        // The committed recordings are the ones a run gives (`cargo xtask record --check`).
        settle::settle(
            &root,
            &mut suite,
            &install_claude(version)?,
            &tap,
            Some(&sdks),
        )?;
        if let Err(err) = suite.compare(&root) {
            failures.push(format!("{err:#}"));
        }
    }
    let agent = conformance::run_agent_column(&root, &tap)?;
    let expected = differences
        .get(conformance::AGENT_COLUMN)
        .cloned()
        .unwrap_or_default();
    if let Err(err) = agent.check(&expected) {
        failures.push(format!("{err:#}"));
    }
    meter.after("conformance and peers");
    if !failures.is_empty() {
        bail!("conformance:\n{}", failures.join("\n"));
    }
    // A short fuzz run (the dev build, 10 s per target, a fixed seed so that a failure can be
    // replayed; `cargo xtask fuzz --release --seed N` is the long one, see docs/reliability.md).
    tally::step("fuzz");
    fuzz(&root, 10.0, 1, false)?;
    // Proves the benchmark harness works (tiny sizes, dev build): about a minute with the
    // one-time SDK installs, seconds after.
    tally::step("bench");
    bench::bench(&root, &bench::BenchArgs::quick())?;
    meter.after("fuzz and bench");
    Ok(())
}

/// `cargo xtask record`: see [`Task::Record`].
fn record(versions: &[String], check: bool) -> Result<()> {
    let root = workspace_root();
    let versions: Vec<String> = if versions.is_empty() {
        conformance::GENERATIONS
            .iter()
            .map(|v| v.to_string())
            .collect()
    } else {
        versions.to_vec()
    };
    let tap = build_tap(&root)?;
    // Claude Code's sandbox, which a scenario shows, finds it on PATH.
    debian::SOCAT.install()?;
    let differences = conformance::differences(&root)?;
    let sdks = if versions.iter().any(|v| v == PINNED_CLI_VERSION) {
        Some(sdks::install(&sdks::sdk_dir(&root))?)
    } else {
        None
    };
    let mut failures = Vec::new();
    for version in &versions {
        let mut suite = record_generation(&root, version, &tap, sdks.as_ref())?;
        let expected = differences.get(version).cloned().unwrap_or_default();
        if let Err(err) = suite.check(&expected) {
            eprintln!("warning: {err:#}");
        }
        if check {
            settle::settle(
                &root,
                &mut suite,
                &install_claude(version)?,
                &tap,
                sdks.as_ref(),
            )?;
            if let Err(err) = suite.compare(&root) {
                failures.push(format!("{err:#}"));
            }
        } else {
            suite.write(&root)?;
        }
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("\n"));
    }
    Ok(())
}

/// The conformance suite on CLI `version` through the tap at `tap`, and on the pinned CLI the
/// peers suite too (with `sdks`), their recordings together.
fn record_generation(
    root: &Path,
    version: &str,
    tap: &Path,
    sdks: Option<&sdks::Sdks>,
) -> Result<conformance::Run> {
    let claude = install_claude(version)?;
    let mut suite = conformance::run_suite(root, &claude, version, tap)?;
    if let (PINNED_CLI_VERSION, Some(sdks)) = (version, sdks) {
        let kept = conformance::scratch_dir(root, "peers")?;
        peers::run_suite(root, &claude, sdks, &kept)?;
        conformance::add_recordings(&mut suite, &kept)?;
    }
    Ok(suite)
}

/// Builds the `twinwire` binary (with every other binary and example of the workspace, in
/// the selection the tests build: see [`build`]) and returns its path: the tap the suites
/// record through.
fn build_tap(root: &Path) -> Result<PathBuf> {
    Ok(build::all(root)?.join("twinwire"))
}

fn workspace_root() -> PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        // `cargo xtask` (`cargo run -p xtask`) names the manifest directory at run time too;
        // the one compiled in is only the fallback, as a binary built in another checkout has
        // another. Read once, before `forget_cargo_run_variables` takes the variable away.
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
        manifest_dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    })
    .clone()
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}
