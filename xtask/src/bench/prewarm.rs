//! `cargo xtask bench-prewarm`: time to the first message of a session started cold and from a
//! prewarmed process, for twinwire (`Client::connect` against a `Pool` spare) and the official
//! TypeScript SDK (`query()` against `startup()`), on `fake-claude` and on the real pinned CLI
//! offline (the scripted model server, a private HOME); plus sessions per second through a
//! pool; and on the real CLI, a session claimed from a parked spare for a folder of its own
//! (`Pool::claim` against the TypeScript SDK's `prewarm()` and `SpareProcess.claim()`). Hosts
//! alternate, round by round, in one run; prints a Markdown section.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::install::install_claude;

/// Options of `cargo xtask bench-prewarm`.
#[derive(Debug, clap::Args)]
pub struct PrewarmArgs {
    /// Rounds: each runs every host once.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Timed sessions of each kind per host process.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
}

/// One CLI the hosts drive, with its environment.
struct Target {
    name: &'static str,
    cli: PathBuf,
    env: Vec<(String, String)>,
    pooled: usize,
    /// Whether the CLI parks (`--await-claim`): then claims are timed too.
    claims: bool,
}

/// The samples of one host on one target.
#[derive(Default)]
struct Samples {
    cold: Vec<f64>,
    warm: Vec<f64>,
    cold_result: Vec<f64>,
    warm_result: Vec<f64>,
    claimed: Vec<f64>,
    claimed_result: Vec<f64>,
    /// Claims a parked spare really served (the others started cold).
    served: usize,
    pool_rates: Vec<f64>,
}

impl Samples {
    fn add(&mut self, report: &Value) {
        let take = |key: &str| -> Vec<f64> {
            report[key]
                .as_array()
                .map(|values| values.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default()
        };
        self.cold.extend(take("cold_ms"));
        self.warm.extend(take("warm_ms"));
        self.cold_result.extend(take("cold_result_ms"));
        self.warm_result.extend(take("warm_result_ms"));
        self.claimed.extend(take("claimed_ms"));
        self.claimed_result.extend(take("claimed_result_ms"));
        self.served += report["claims_served"].as_u64().unwrap_or(0) as usize;
        if let (Some(n), Some(s)) = (
            report["pool_sessions"].as_f64(),
            report["pool_seconds"].as_f64(),
        ) {
            if n > 0.0 && s > 0.0 {
                self.pool_rates.push(n / s);
            }
        }
    }
}

/// Runs the benchmark and prints its section.
pub fn bench_prewarm(root: &Path, args: &PrewarmArgs) -> Result<()> {
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let built = Command::new(&cargo)
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--locked",
            "-p",
            "twinwire-bench",
            "--bin",
            "twinwire-prewarm",
        ])
        .args([
            "-p",
            "twinwire-testkit",
            "--bin",
            "fake-claude",
            "-p",
            "twinwire-cli",
            // `--bin` selects among every package named: the model server's binary too.
            "--bin",
            "twinwire",
        ])
        .status()?;
    if !built.success() {
        bail!("cargo build failed");
    }
    let release = root.join("target/release");
    let claude = install_claude(crate::install::PINNED_CLI_VERSION)?;
    let sdks = crate::sdks::install(&crate::sdks::sdk_dir(root))?;
    let dir = crate::sdks::target_dir(root).join("bench/prewarm");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("home"))?;
    let fake_script = dir.join("fake.json");
    std::fs::write(
        &fake_script,
        r#"{"turns": [{"steps": [{"text": "hello"}]}]}"#,
    )?;
    let model_script = dir.join("model.json");
    std::fs::write(&model_script, r#"{"rules": [], "default": {"echo": true}}"#)?;
    let mut server = Command::new(release.join("twinwire"))
        .args(["model-server", "--script"])
        .arg(&model_script)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the model server")?;
    let url = {
        use std::io::BufRead;
        let stdout = server.stdout.take().context("model server stdout")?;
        let mut line = String::new();
        std::io::BufReader::new(stdout).read_line(&mut line)?;
        line.trim().to_owned()
    };
    let targets = [
        Target {
            name: "fake-claude",
            cli: release.join("fake-claude"),
            env: vec![(
                "TWINWIRE_FAKE_SCRIPT".into(),
                fake_script.display().to_string(),
            )],
            pooled: 200,
            claims: false,
        },
        Target {
            name: "Claude Code 2.1.330, offline",
            cli: claude,
            env: vec![
                ("HOME".into(), dir.join("home").display().to_string()),
                ("ANTHROPIC_BASE_URL".into(), url.clone()),
                ("ANTHROPIC_API_KEY".into(), "bench-key".into()),
                (
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                    "1".into(),
                ),
                ("DISABLE_TELEMETRY".into(), "1".into()),
                ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ],
            pooled: 8,
            claims: true,
        },
    ];
    let mut md = format!(
        "### Prewarmed sessions\n\nCommand: `cargo xtask bench-prewarm --rounds {} --reps {}` \
         ({} timed sessions of each kind per host and CLI), {}.\n\n\
         | CLI | figure | twinwire cold | twinwire spare | twinwire spare, refill after 2 s | TS `query()` | TS `startup()` | spare / cold | twinwire spare / TS `startup()` |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        args.rounds,
        args.reps,
        args.rounds * args.reps,
        crate::bench::today()
    );
    let claim_dir = dir.join("claimed-project");
    std::fs::create_dir_all(&claim_dir)?;
    let claim_env = |target: &Target| -> Vec<(String, String)> {
        let mut env = target.env.clone();
        if target.claims {
            env.push((
                "TWINWIRE_BENCH_CLAIM_DIR".into(),
                claim_dir.display().to_string(),
            ));
        }
        env
    };
    let mut claims_md = String::new();
    let mut rates = Vec::new();
    for target in &targets {
        let (mut twinwire, mut delayed, mut ts) =
            (Samples::default(), Samples::default(), Samples::default());
        for round in 0..args.rounds {
            eprintln!("bench-prewarm: {} round {}", target.name, round + 1);
            let pooled = if round == 0 { target.pooled } else { 0 };
            twinwire.add(&host(
                Command::new(release.join("twinwire-prewarm"))
                    .arg(&target.cli)
                    .arg(args.reps.to_string())
                    .arg(pooled.to_string()),
                &claim_env(target),
            )?);
            delayed.add(&host(
                Command::new(release.join("twinwire-prewarm"))
                    .arg(&target.cli)
                    .arg(args.reps.to_string())
                    .arg("0")
                    .env("TWINWIRE_BENCH_REFILL_DELAY_MS", "2000"),
                &claim_env(target),
            )?);
            ts.add(&host(
                Command::new(&sdks.node)
                    .arg(root.join("bench/node/prewarm.mjs"))
                    .arg(&target.cli)
                    .arg(args.reps.to_string())
                    .env("TWINWIRE_BENCH_TS_SDK", &sdks.ts_sdk),
                &claim_env(target),
            )?);
        }
        for (figure, pick) in [("first message", 0usize), ("result of the first turn", 1)] {
            let get = |s: &Samples, warm: bool| -> f64 {
                let values = match (pick, warm) {
                    (0, false) => &s.cold,
                    (0, true) => &s.warm,
                    (_, false) => &s.cold_result,
                    (_, true) => &s.warm_result,
                };
                median(values)
            };
            let (cold, spare, late, ts_cold, ts_warm) = (
                get(&twinwire, false),
                get(&twinwire, true),
                get(&delayed, true),
                get(&ts, false),
                get(&ts, true),
            );
            md.push_str(&format!(
                "| {} | {figure} | {cold:.1} ms | {spare:.1} ms | {late:.1} ms | {ts_cold:.1} ms | {ts_warm:.1} ms | {:.2} | {:.2} |\n",
                target.name,
                spare / cold,
                spare / ts_warm,
            ));
        }
        if target.claims {
            for (figure, ours, late, theirs, cold, ts_cold) in [
                (
                    "first message",
                    &twinwire.claimed,
                    &delayed.claimed,
                    &ts.claimed,
                    &twinwire.cold,
                    &ts.cold,
                ),
                (
                    "result of the first turn",
                    &twinwire.claimed_result,
                    &delayed.claimed_result,
                    &ts.claimed_result,
                    &twinwire.cold_result,
                    &ts.cold_result,
                ),
            ] {
                let (ours, late, theirs, cold, ts_cold) = (
                    median(ours),
                    median(late),
                    median(theirs),
                    median(cold),
                    median(ts_cold),
                );
                claims_md.push_str(&format!(
                    "| {} | {figure} | {cold:.1} ms | {ours:.1} ms | {late:.1} ms | {ts_cold:.1} ms | {theirs:.1} ms | {:.2} | {:.2} |\n",
                    target.name,
                    ours / cold,
                    late / theirs,
                ));
            }
            claims_md.push_str(&format!(
                "\nClaims a parked spare served: twinwire {} of {}, TypeScript {} of {}.\n",
                twinwire.served + delayed.served,
                twinwire.claimed.len() + delayed.claimed.len(),
                ts.served,
                ts.claimed.len()
            ));
        }
        rates.push((target.name, target.pooled, median(&twinwire.pool_rates)));
    }
    md.push_str(
        "\nSessions per second through a `Pool` (8 live, 2 spares), one echo turn each:\n\n",
    );
    for (name, sessions, rate) in rates {
        md.push_str(&format!(
            "- {name}: {sessions} sessions, {rate:.1} sessions/s\n"
        ));
    }
    if !claims_md.is_empty() {
        md.push_str(
            "\nClaimed from a parked spare (`--await-claim`) for a folder of its own with its own \
             model: twinwire's `Pool::claim` (a parked pool) against the TypeScript SDK's \
             `prewarm()` then `claim()`, the clock started once the spare is parked:\n\n\
             | CLI | figure | twinwire cold | twinwire claimed | twinwire claimed, refill after 2 s | TS `query()` | TS `prewarm().claim()` | claimed / cold | twinwire claimed (refill after 2 s) / TS claimed |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        md.push_str(&claims_md);
    }
    let _ = server.kill();
    let _ = server.wait();
    println!("{md}");
    std::fs::write(dir.join("results.md"), &md)?;
    eprintln!(
        "bench-prewarm: done in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs one host process with `env` added and returns its JSON line.
fn host(command: &mut Command, env: &[(String, String)]) -> Result<Value> {
    let output = command
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::inherit())
        .output()
        .context("running a host")?;
    if !output.status.success() {
        bail!("a host failed: {:?}", command);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).with_context(|| format!("reading the host's report: {line}"))
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}
