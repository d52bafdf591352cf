//! `cargo xtask bench`: twinwire measured side by side with the official TypeScript and Python
//! SDKs, and with bare Rust loops, on the same fake CLI, in one run.
//!
//! 1. Build `fake-claude` and the Rust hosts (release), install the official SDKs under
//!    `target/sdks` (once; later runs reuse them).
//! 2. For each workload (flood, round trips, startup, sessions), run every host as its own
//!    process, interleaved (A B C A B C …), `--reps` times after one warm-up round. Each host
//!    prints its inner timings; xtask adds wall time and CPU from outside (see [`measure`]).
//! 3. Find how many concurrent sessions each host manages, up to a cap.
//! 4. Print the tables; without `--quick`, rewrite this task's section of
//!    `docs/benchmarks.md` and the charts `docs/benchmarks-*.svg`.
//!
//! A host that fails, prints garbage or runs out of time is reported as such; the harness goes
//! on. `--quick` runs everything at a tiny size to prove the harness works, and fails if any
//! run failed.

pub mod chart;
mod measure;
pub mod prewarm;
pub mod report;
mod setup;
pub mod workload;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use measure::Sample;
use setup::{Machine, Tools};
use workload::{Host, Sizes, Workload};

/// Options of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Everything at a tiny size (1,000 frames, 20 round trips, 5 sessions), one repetition,
    /// no warm-up, on the dev build; the docs are left alone. Fails if any run failed.
    #[arg(long)]
    quick: bool,
    /// Timed repetitions of every workload (default 9; 1 with `--quick`).
    #[arg(long)]
    reps: Option<u32>,
    /// Only these workloads (flood, slowflood, unknownflood, roundtrip, startup, sessions),
    /// comma-separated.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// The largest session count tried (default 1,000; 10 with `--quick`).
    #[arg(long)]
    max_sessions: Option<u64>,
    /// Time limit of one host run, in seconds.
    #[arg(long, default_value_t = 180)]
    timeout: u64,
    /// Print the results but leave docs/ alone.
    #[arg(long)]
    no_docs: bool,
}

impl BenchArgs {
    /// `--quick` and nothing else: what `cargo xtask test` runs.
    pub fn quick() -> Self {
        Self {
            quick: true,
            reps: None,
            only: Vec::new(),
            max_sessions: None,
            timeout: 180,
            no_docs: true,
        }
    }
}

/// The runs of one host.
#[derive(Debug)]
pub struct HostRuns {
    /// The host.
    pub host: Host,
    /// Its timed runs, in order.
    pub samples: Vec<Sample>,
}

/// The runs of one workload.
#[derive(Debug)]
pub struct WorkloadRuns {
    /// The workload.
    pub workload: Workload,
    /// Its sizes.
    pub sizes: Sizes,
    /// Per host, in column order.
    pub hosts: Vec<HostRuns>,
}

/// One attempt of the session search.
#[derive(Debug)]
pub struct Attempt {
    /// Sessions asked for.
    pub sessions: u64,
    /// The run.
    pub sample: Sample,
}

/// The session search of one host.
#[derive(Debug)]
pub struct Search {
    /// The host.
    pub host: Host,
    /// Its attempts, smallest first; the timed count comes first.
    pub attempts: Vec<Attempt>,
}

impl Search {
    /// The largest count that completed.
    pub fn largest(&self) -> Option<u64> {
        self.attempts
            .iter()
            .filter(|a| a.sample.ok())
            .map(|a| a.sessions)
            .max()
    }
}

/// Everything a report is made of.
#[derive(Debug)]
pub struct Results {
    /// The command line, for the docs.
    pub command: String,
    /// The day of the run (UTC).
    pub date: String,
    /// Timed repetitions.
    pub reps: u32,
    /// Untimed rounds before them.
    pub warmups: u32,
    /// The Cargo profile of the Rust hosts and the fake.
    pub profile: &'static str,
    /// `/proc/loadavg` (1, 5, 15 min) before the first run and after the last.
    pub load_before: String,
    /// See `load_before`.
    pub load_after: String,
    /// Sizes.
    pub sizes: Sizes,
    /// The time limit of one session-search attempt, in seconds.
    pub attempt_timeout_s: u64,
    /// The machine.
    pub machine: Machine,
    /// SDK installs and how long they took.
    pub installs: Vec<(String, Option<f64>)>,
    /// The timed workloads.
    pub workloads: Vec<WorkloadRuns>,
    /// The session search.
    pub searches: Vec<Search>,
}

/// Runs `cargo xtask bench` from the workspace at `root`.
pub fn bench(root: &Path, args: &BenchArgs) -> Result<()> {
    let started = Instant::now();
    let sizes = match (args.quick, args.max_sessions) {
        (true, cap) => Sizes {
            max_sessions: cap.unwrap_or(Sizes::QUICK.max_sessions),
            ..Sizes::QUICK
        },
        (false, cap) => Sizes {
            max_sessions: cap.unwrap_or(Sizes::FULL.max_sessions),
            ..Sizes::FULL
        },
    };
    let reps = args.reps.unwrap_or(if args.quick { 1 } else { 9 }).max(1);
    let warmups = u32::from(!args.quick);
    let workloads = selected(&args.only)?;
    let dir = crate::sdks::target_dir(root).join("bench");
    let tools = setup::prepare(root, !args.quick)?;
    let machine = setup::machine(&tools);
    let limit = Duration::from_secs(args.timeout);
    let scripts = dir.join(if args.quick {
        "scripts-quick"
    } else {
        "scripts"
    });
    std::fs::create_dir_all(&scripts).with_context(|| format!("creating {}", scripts.display()))?;

    let mut results = Results {
        command: command_line(args),
        date: today(),
        reps,
        warmups,
        profile: tools.profile,
        load_before: load_average(),
        load_after: String::new(),
        sizes,
        attempt_timeout_s: args.timeout,
        machine,
        installs: tools.installs.clone(),
        workloads: Vec::new(),
        searches: Vec::new(),
    };
    for workload in workloads {
        let script = scripts.join(format!("{}.json", workload.name()));
        std::fs::write(&script, workload.script(&sizes).to_string())
            .with_context(|| format!("writing {}", script.display()))?;
        results.workloads.push(run_workload(
            &tools, workload, &script, &sizes, reps, warmups, limit,
        ));
        if workload == Workload::Sessions {
            results.searches = search_sessions(&tools, &script, &sizes, &results.workloads, limit);
        }
    }

    results.load_after = load_average();
    let charts = if args.quick || args.no_docs {
        Vec::new()
    } else {
        write_charts(&root.join("docs"), &results)?
    };
    let section = report::section(&results, &charts);
    println!("{section}");
    let raw = dir.join(if args.quick {
        "results-quick.md"
    } else {
        "results.md"
    });
    std::fs::write(&raw, &section).with_context(|| format!("writing {}", raw.display()))?;
    if !args.quick && !args.no_docs {
        report::update_docs(&root.join("docs/benchmarks.md"), &section)?;
        eprintln!(
            "bench: wrote docs/benchmarks.md ({}) and {} charts",
            report::HEADING,
            charts.len()
        );
    }
    eprintln!("bench: done in {:.0} s", started.elapsed().as_secs_f64());
    let failed: usize = results
        .workloads
        .iter()
        .flat_map(|w| &w.hosts)
        .flat_map(|h| &h.samples)
        .chain(
            results
                .searches
                .iter()
                .flat_map(|s| s.attempts.iter().map(|a| &a.sample)),
        )
        .filter(|s| !s.ok())
        .count();
    if args.quick && failed > 0 {
        bail!("{failed} benchmark runs failed (see the tables above)");
    }
    Ok(())
}

fn selected(only: &[String]) -> Result<Vec<Workload>> {
    if only.is_empty() {
        return Ok(Workload::ALL.to_vec());
    }
    only.iter()
        .map(|name| {
            Workload::parse(name.trim()).with_context(|| {
                format!(
                    "unknown workload `{name}` (flood, slowflood, unknownflood, roundtrip, \
                     startup, sessions)"
                )
            })
        })
        .collect()
}

/// Every host of `workload`, round-robin: `warmups` untimed rounds, then `reps` timed ones.
fn run_workload(
    tools: &Tools,
    workload: Workload,
    script: &Path,
    sizes: &Sizes,
    reps: u32,
    warmups: u32,
    limit: Duration,
) -> WorkloadRuns {
    let n = workload.n(sizes);
    let mut hosts: Vec<HostRuns> = workload
        .hosts()
        .iter()
        .map(|&host| HostRuns {
            host,
            samples: Vec::new(),
        })
        .collect();
    for round in 0..warmups + reps {
        let timed = round >= warmups;
        for runs in &mut hosts {
            let sample = run_host(tools, runs.host, workload, script, sizes, n, limit);
            eprintln!(
                "bench: {} {} {} {}: {}",
                workload.name(),
                if timed { "rep" } else { "warm-up" },
                if timed {
                    round - warmups + 1
                } else {
                    round + 1
                },
                runs.host.label(),
                summary(workload, &sample, sizes)
            );
            if timed {
                runs.samples.push(sample);
            }
        }
    }
    WorkloadRuns {
        workload,
        sizes: *sizes,
        hosts,
    }
}

fn run_host(
    tools: &Tools,
    host: Host,
    workload: Workload,
    script: &Path,
    sizes: &Sizes,
    n: u64,
    limit: Duration,
) -> Sample {
    let mut sample = measure::run(host.command(tools, workload, script, n), limit);
    if sample.ok() {
        sample.error = workload.check(host, &sample, sizes, n);
    }
    sample
}

fn summary(workload: Workload, sample: &Sample, sizes: &Sizes) -> String {
    match &sample.error {
        Some(error) => format!("FAILED: {error}"),
        None => {
            let metric = &workload.metrics()[0];
            let value = (metric.read)(sample, sizes);
            format!(
                "{} = {} (wall {:.0} ms)",
                metric.label,
                value.map_or_else(|| "—".to_owned(), |v| metric.unit.format(v)),
                sample.wall_s * 1e3
            )
        }
    }
}

/// For each host, larger and larger session counts (one run each) until one fails or the cap
/// is reached. The timed count's first run opens each search.
fn search_sessions(
    tools: &Tools,
    script: &Path,
    sizes: &Sizes,
    timed: &[WorkloadRuns],
    limit: Duration,
) -> Vec<Search> {
    let timed = timed.iter().find(|w| w.workload == Workload::Sessions);
    let mut searches = Vec::new();
    for &host in Workload::Sessions.hosts() {
        let mut attempts = Vec::new();
        if let Some(first) = timed
            .and_then(|w| w.hosts.iter().find(|h| h.host == host))
            .and_then(|h| h.samples.iter().find(|s| s.ok()).or(h.samples.first()))
        {
            attempts.push(Attempt {
                sessions: sizes.sessions,
                sample: first.clone(),
            });
        }
        if attempts.iter().all(|a| a.sample.ok()) {
            for sessions in sizes.session_ladder() {
                let one = Sizes { sessions, ..*sizes };
                let sample = run_host(
                    tools,
                    host,
                    Workload::Sessions,
                    script,
                    &one,
                    sessions,
                    limit,
                );
                eprintln!(
                    "bench: sessions search {} {}: {}",
                    host.label(),
                    sessions,
                    summary(Workload::Sessions, &sample, &one)
                );
                let ok = sample.ok();
                attempts.push(Attempt { sessions, sample });
                if !ok {
                    break;
                }
            }
        }
        searches.push(Search { host, attempts });
    }
    searches
}

/// Writes `docs/benchmarks-*.svg`; returns `(file name, alt text)` of each.
fn write_charts(docs: &Path, results: &Results) -> Result<Vec<(String, String)>> {
    let mut written = Vec::new();
    for runs in &results.workloads {
        let metric = &runs.workload.metrics()[0];
        let rows: Vec<(&str, report::Stats)> = runs
            .hosts
            .iter()
            .filter_map(|h| Some((h.host.label(), report::stats(runs, h.host, metric)?)))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let title = runs.workload.title(&runs.sizes);
        let subtitle = format!(
            "{}: median of {} runs, whiskers min–max; less is better",
            metric.label, results.reps
        );
        let svg = chart::bars(&title, &subtitle, metric.unit, &rows);
        let file = format!("benchmarks-{}.svg", runs.workload.name());
        let path: PathBuf = docs.join(&file);
        std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        written.push((file, format!("{title}: {}", metric.label)));
    }
    Ok(written)
}

fn command_line(args: &BenchArgs) -> String {
    let mut line = "cargo xtask bench".to_owned();
    if args.quick {
        line.push_str(" --quick");
    }
    if let Some(reps) = args.reps {
        line.push_str(&format!(" --reps {reps}"));
    }
    if !args.only.is_empty() {
        line.push_str(&format!(" --only {}", args.only.join(",")));
    }
    if let Some(cap) = args.max_sessions {
        line.push_str(&format!(" --max-sessions {cap}"));
    }
    line
}

/// The 1, 5 and 15 minute load averages: other work on the machine shows up here.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let fields: Vec<&str> = text.split_whitespace().take(3).collect();
    if fields.len() == 3 {
        fields.join(" / ")
    } else {
        "unknown".to_owned()
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub(crate) fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}
