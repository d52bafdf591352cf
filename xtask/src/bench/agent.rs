//! `cargo xtask bench-agent`: the same session workloads on the real Claude Code CLI and on
//! `twinwire-agent`, side by side in one run, both offline against one `twinwire model-server`:
//! spawn → `system/init`, spawn → first assistant message, RSS once idle after a turn and
//! its peak, then many sessions alive at once (each answered a turn, then idle) and the
//! sessions that fit in 24 GiB at that footprint. Writes its section of docs/benchmarks.md.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// The memory the capacity figure is computed for.
const MACHINE_BYTES: f64 = 24.0 * 1024.0 * 1024.0 * 1024.0;
/// How long one session may take to answer before the run fails.
const TURN_LIMIT: Duration = Duration::from_secs(60);
/// How long a session rests after its turn before its idle memory is read.
const SETTLE: Duration = Duration::from_secs(1);

/// `cargo xtask bench-agent`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentBenchArgs {
    /// Single-session runs per subject.
    #[arg(long, default_value_t = 5)]
    pub reps: usize,
    /// Sessions alive at once on twinwire-agent (each a process).
    #[arg(long, default_value_t = 1000)]
    pub sessions: usize,
    /// twinwire-agent sessions alive at once in one host process (`in_process`); 0 skips.
    #[arg(long, default_value_t = 10_000)]
    pub in_process: usize,
    /// Sessions alive at once on the CLI (each costs about 200 MB).
    #[arg(long, default_value_t = 8)]
    pub cli_sessions: usize,
    /// Print the section instead of writing it into docs/benchmarks.md.
    #[arg(long)]
    pub dry_run: bool,
}

/// One program under test.
struct Subject {
    name: &'static str,
    program: PathBuf,
}

/// What one session showed.
#[derive(Debug, Clone, Copy, Default)]
struct Session {
    init_s: f64,
    first_message_s: f64,
    idle_rss: u64,
    peak_rss: u64,
}

/// Runs the benchmark.
pub fn bench_agent(root: &Path, args: &AgentBenchArgs) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let builds: [(&[&str], &str); 3] = [
        (
            &[
                "--release",
                "-p",
                "twinwire-agent",
                "--bin",
                "twinwire-agent",
            ],
            "twinwire-agent",
        ),
        (
            &[
                "--release",
                "-p",
                "twinwire-agent",
                "--example",
                "many_sessions",
            ],
            "the in-process example",
        ),
        (
            &["-p", "twinwire-cli", "--bin", "twinwire"],
            "twinwire (for its model server)",
        ),
    ];
    for (flags, what) in builds {
        let built = Command::new(&cargo)
            .current_dir(root)
            .arg("build")
            .args(flags)
            .status()?;
        if !built.success() {
            bail!("building {what} failed");
        }
    }
    let claude = match std::env::var_os(crate::CLAUDE_PATH_ENV).filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => crate::install::install_claude(crate::install::PINNED_CLI_VERSION)?,
    };
    let scratch = root.join("target/bench-agent");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let script = scratch.join("script.json");
    std::fs::write(
        &script,
        json!({"rules": [
            {"when": {"last_is_tool_result": true}, "reply": {"text": "Found them."}},
            {"when": {"last_user_text_contains": "LIST"},
             "reply": {"tool_use": {"name": "Glob", "input": {"pattern": "*.txt"}}}}
        ], "default": {"text": "Hello from the model."}})
        .to_string(),
    )?;
    let (mut server, url) = model_server(&root.join("target/debug/twinwire"), &script)?;
    let subjects = [
        Subject {
            name: "Claude Code 2.1.330",
            program: claude,
        },
        Subject {
            name: "twinwire-agent",
            program: root.join("target/release/twinwire-agent"),
        },
    ];
    let mut rows = Vec::new();
    for subject in &subjects {
        eprintln!("bench-agent: {} ({} runs)", subject.name, args.reps);
        let mut runs = Vec::new();
        for rep in 0..args.reps {
            let dir = scratch.join(format!("{}-{rep}", slug(subject.name)));
            let mut live = start(subject, &dir, &url, "say hello")?;
            let session = live.finish_turn(true)?;
            live.close();
            runs.push(session);
        }
        let many = if subject.name == "twinwire-agent" {
            args.sessions
        } else {
            args.cli_sessions
        };
        eprintln!("bench-agent: {} with {many} sessions at once", subject.name);
        let concurrent = concurrent(subject, &scratch, &url, many)?;
        rows.push((subject.name, runs, concurrent));
    }
    let in_process = if args.in_process > 0 {
        eprintln!("bench-agent: {} in-process sessions", args.in_process);
        let example = root.join("target/release/examples/many_sessions");
        Some(in_process(&example, &scratch, &url, args.in_process)?)
    } else {
        None
    };
    let _ = server.kill();
    let _ = server.wait();
    let section = report(&rows, in_process.as_ref(), args);
    if args.dry_run {
        println!("{section}");
    } else {
        for (file, svg) in charts(&rows, in_process.as_ref()) {
            std::fs::write(root.join("docs").join(file), svg)?;
        }
        write_section(&root.join("docs/benchmarks.md"), &section)?;
        println!("{section}");
        eprintln!("bench-agent: docs/benchmarks.md updated");
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// `twinwire model-server` on a free port; its URL.
fn model_server(twinwire: &Path, script: &Path) -> Result<(Child, String)> {
    let mut child = Command::new(twinwire)
        .args(["model-server", "--script"])
        .arg(script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting twinwire model-server")?;
    let stdout = child.stdout.take().context("its stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let url = line.trim().to_owned();
    if !url.starts_with("http://") {
        bail!("twinwire model-server said {url:?}, not its URL");
    }
    Ok((child, url))
}

/// A session being measured.
struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<(Instant, Value)>,
    spawned: Instant,
}

fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Spawns `subject` in a private home and directory and sends it `prompt` at once.
fn start(subject: &Subject, dir: &Path, url: &str, prompt: &str) -> Result<Live> {
    let (home, tmp, work) = (dir.join("home"), dir.join("tmp"), dir.join("work"));
    for path in [&home, &tmp, &work] {
        std::fs::create_dir_all(path)?;
    }
    let spawned = Instant::now();
    let mut child = Command::new(&subject.program)
        .args([
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
            "--verbose",
        ])
        .current_dir(&work)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "bench-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", subject.program.display()))?;
    let mut stdin = child.stdin.take().context("stdin")?;
    std::fs::write(work.join("notes.txt"), "a file for the tool turn\n")?;
    write_prompt(&mut stdin, prompt)?;
    let stdout = child.stdout.take().context("stdout")?;
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
            if let Ok(value) = serde_json::from_str::<Value>(&line) {
                if send.send((Instant::now(), value)).is_err() {
                    return;
                }
            }
        }
    });
    Ok(Live {
        child,
        stdin: Some(stdin),
        lines,
        spawned,
    })
}

/// One user message on the session's stdin.
fn write_prompt(stdin: &mut ChildStdin, text: &str) -> Result<()> {
    let prompt = json!({"type": "user", "session_id": "",
                        "message": {"role": "user", "content": text},
                        "parent_tool_use_id": null});
    writeln!(stdin, "{prompt}")?;
    stdin.flush()?;
    Ok(())
}

impl Live {
    /// Sends the next prompt; returns when it was written.
    fn send(&mut self, text: &str) -> Result<()> {
        write_prompt(self.stdin.as_mut().context("stdin closed")?, text)
    }

    /// Reads up to the turn's result; the times of `system/init` and the first assistant
    /// frame; the memory once idle (after a rest, when `settle`).
    fn finish_turn(&mut self, settle: bool) -> Result<Session> {
        let mut session = Session::default();
        let deadline = Instant::now() + TURN_LIMIT;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let (at, frame) = self
                .lines
                .recv_timeout(wait)
                .context("no result within a minute")?;
            let since = (at - self.spawned).as_secs_f64();
            match (frame["type"].as_str(), frame["subtype"].as_str()) {
                (Some("system"), Some("init")) if session.init_s == 0.0 => session.init_s = since,
                (Some("assistant"), _) if session.first_message_s == 0.0 => {
                    session.first_message_s = since;
                }
                (Some("result"), _) => {
                    if frame["is_error"] == true {
                        bail!("the turn failed: {frame}");
                    }
                    break;
                }
                _ => {}
            }
        }
        if settle {
            std::thread::sleep(SETTLE);
        }
        let (rss, peak) = memory(self.child.id());
        session.idle_rss = rss;
        session.peak_rss = peak;
        Ok(session)
    }

    /// Closes stdin and waits for the exit (killing after 10 s).
    fn close(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A process's resident memory now and at its peak, in bytes (`/proc/PID/status`).
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Many sessions at once, each a process: a tool turn, then a text turn, then idle.
struct Concurrent {
    sessions: usize,
    /// From the first spawn to the last session's second result.
    all_answered_s: f64,
    /// Spawn → first assistant message, per session.
    first_message_s: Vec<f64>,
    /// Sessions still running when they were all idle.
    alive: usize,
    total_rss: u64,
    /// Proportional set size: shared pages divided among the processes sharing them.
    total_pss: u64,
}

fn concurrent(subject: &Subject, scratch: &Path, url: &str, many: usize) -> Result<Concurrent> {
    let started = Instant::now();
    let mut live = Vec::new();
    let result = (|| -> Result<Vec<f64>> {
        for i in 0..many {
            let dir = scratch.join(format!("{}-many-{i}", slug(subject.name)));
            live.push(start(subject, &dir, url, "LIST the text files")?);
        }
        let mut first_message_s = Vec::with_capacity(many);
        for session in &mut live {
            let turn = session.finish_turn(false)?;
            first_message_s.push(turn.first_message_s);
            session.send("say hello")?;
        }
        for session in &mut live {
            session.finish_turn(false)?;
        }
        Ok(first_message_s)
    })();
    let all_answered_s = started.elapsed().as_secs_f64();
    std::thread::sleep(SETTLE);
    let mut alive = 0;
    for session in &mut live {
        if matches!(session.child.try_wait(), Ok(None)) {
            alive += 1;
        }
    }
    let total_rss = live.iter().map(|s| memory(s.child.id()).0).sum();
    let total_pss = live.iter().map(|s| pss(s.child.id())).sum();
    for session in &mut live {
        session.close();
    }
    let first_message_s =
        result.with_context(|| format!("{} sessions of {}", many, subject.name))?;
    Ok(Concurrent {
        sessions: many,
        all_answered_s,
        first_message_s,
        alive,
        total_rss,
        total_pss,
    })
}

/// Runs `sessions` in-process sessions in one host process (the `many_sessions` example);
/// the figures it prints.
fn in_process(example: &Path, scratch: &Path, url: &str, sessions: usize) -> Result<Value> {
    let dir = scratch.join("in-process");
    std::fs::create_dir_all(&dir)?;
    let out = Command::new(example)
        .arg(sessions.to_string())
        .arg(url)
        .arg(&dir)
        .stderr(Stdio::inherit())
        .output()
        .context("running the many_sessions example")?;
    if !out.status.success() {
        bail!(
            "{sessions} in-process sessions failed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_slice(&out.stdout).context("the example's figures")
}

/// A process's proportional set size in bytes (`/proc/PID/smaps_rollup`), 0 when unknown.
fn pss(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// The value at `share` (0 to 1) of `values` sorted.
fn percentile(mut values: Vec<f64>, share: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let at = ((values.len() as f64 - 1.0) * share).round() as usize;
    values.get(at).copied().unwrap_or(0.0)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / 1024.0 / 1024.0)
}

/// The section, in Markdown.
/// The live runs drawn: memory per idle session, and the first message's time (p50, whiskers
/// from the fastest to p99), for the processes run together and the in-process sessions.
fn charts(
    rows: &[(&str, Vec<Session>, Concurrent)],
    in_process: Option<&Value>,
) -> Vec<(&'static str, String)> {
    use crate::bench::report::Stats;
    use crate::bench::workload::Unit;
    let one = |v: f64| Stats {
        min: v,
        median: v,
        max: v,
    };
    let spread = |times: &[f64]| Stats {
        min: times.iter().copied().fold(f64::INFINITY, f64::min),
        median: percentile(times.to_vec(), 0.5),
        max: percentile(times.to_vec(), 0.99),
    };
    let mut labels = Vec::new();
    let mut memory = Vec::new();
    let mut latency = Vec::new();
    for (name, _, many) in rows {
        // Short: the labels stand left of the bars in 120 pixels.
        let short = if name.starts_with("Claude Code") {
            "Claude Code"
        } else {
            "processes"
        };
        labels.push(format!("{short} ×{}", many.sessions));
        memory.push(one(many.total_pss as f64
            / many.sessions.max(1) as f64
            / 1024.0));
        latency.push(spread(&many.first_message_s));
    }
    if let Some(run) = in_process {
        let number = |v: &Value| v.as_f64().unwrap_or(0.0);
        let figures = &run["figures"];
        let sessions = number(&run["sessions"]);
        labels.push(format!("in process ×{sessions:.0}"));
        let per_session =
            (number(&figures["idle_rss"]) - number(&run["rss_before"])) / sessions.max(1.0);
        memory.push(one(per_session / 1024.0));
        latency.push(Stats {
            min: number(&figures["first_message_p50_s"]),
            median: number(&figures["first_message_p50_s"]),
            max: number(&figures["first_message_p99_s"]),
        });
    }
    let rows_of = |stats: &[Stats]| -> Vec<(&str, Stats)> {
        labels
            .iter()
            .map(String::as_str)
            .zip(stats.iter().copied())
            .collect()
    };
    vec![
        (
            "benchmarks-agent-memory.svg",
            crate::bench::chart::bars(
                "Memory per idle session, all sessions alive at once",
                "processes: PSS per process; in process: the host's RSS per session; less is better",
                Unit::Kib,
                &rows_of(&memory),
            ),
        ),
        (
            "benchmarks-agent-latency.svg",
            crate::bench::chart::bars(
                "First message, all sessions started together",
                "median; whiskers from the fastest (in process: the median) to p99; less is better",
                Unit::Ms,
                &rows_of(&latency),
            ),
        ),
    ]
}

fn report(
    rows: &[(&str, Vec<Session>, Concurrent)],
    in_process: Option<&Value>,
    args: &AgentBenchArgs,
) -> String {
    let mut out = String::new();
    out.push_str("| | spawn → `system/init` | first message | RSS idle | RSS peak |\n");
    out.push_str("|---|---|---|---|---|\n");
    let mut medians = Vec::new();
    for (name, runs, many) in rows {
        let init = median(runs.iter().map(|r| r.init_s).collect());
        let first = median(runs.iter().map(|r| r.first_message_s).collect());
        let idle = median(runs.iter().map(|r| r.idle_rss as f64).collect());
        let peak = median(runs.iter().map(|r| r.peak_rss as f64).collect());
        out.push_str(&format!(
            "| {name} | {:.0} ms | {:.0} ms | {} | {} |\n",
            init * 1000.0,
            first * 1000.0,
            mib(idle),
            mib(peak),
        ));
        let per_session = many.total_pss as f64 / many.sessions.max(1) as f64;
        medians.push((first, idle, (MACHINE_BYTES / per_session.max(1.0)).floor()));
    }
    out.push_str("\nMany sessions alive at once, each a process: a tool turn (`Glob`) and a text turn, then idle.\n\n");
    out.push_str("| | sessions | alive at the end | all answered in | turns per second | first message p50 / p99 | RSS of all | PSS per idle session | fit in 24 GiB (PSS) |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for (name, _, many) in rows {
        let per_session = many.total_pss as f64 / many.sessions.max(1) as f64;
        out.push_str(&format!(
            "| {name} | {} | {} | {:.1} s | {:.0} | {:.0} ms / {:.0} ms | {} | {} | {:.0} |\n",
            many.sessions,
            many.alive,
            many.all_answered_s,
            (2 * many.sessions) as f64 / many.all_answered_s.max(f64::EPSILON),
            percentile(many.first_message_s.clone(), 0.5) * 1000.0,
            percentile(many.first_message_s.clone(), 0.99) * 1000.0,
            mib(many.total_rss as f64),
            mib(per_session),
            (MACHINE_BYTES / per_session.max(1.0)).floor(),
        ));
    }
    if let Some(run) = in_process {
        let figures = &run["figures"];
        let number = |v: &Value| v.as_f64().unwrap_or(0.0);
        let sessions = number(&run["sessions"]);
        let per_session =
            (number(&figures["idle_rss"]) - number(&run["rss_before"])) / sessions.max(1.0);
        let answered = number(&figures["all_answered_s"]);
        out.push_str(&format!(
            "| twinwire-agent in one host process | {sessions:.0} | {sessions:.0} | {answered:.1} s | {:.0} | {:.0} ms / {:.0} ms | {} | {:.0} KiB (RSS) | {:.0} |\n",
            2.0 * sessions / answered.max(f64::EPSILON),
            number(&figures["first_message_p50_s"]) * 1000.0,
            number(&figures["first_message_p99_s"]) * 1000.0,
            mib(number(&figures["idle_rss"])),
            per_session / 1024.0,
            (MACHINE_BYTES / per_session.max(1.0)).floor(),
        ));
        out.push_str(&format!(
            "\nIn one host process: {sessions:.0} twinwire `Client`s with \
             `twinwire_agent::in_process::launcher()`, started 64 at a time, each answering the \
             same two turns and then idle; the host process's RSS a second after the last result, \
             less its RSS before the first session, divided by the sessions; {} threads in the \
             process then. Its first-message times run from `Client::connect`.\n",
            number(&figures["threads"])
        ));
    }
    out.push_str(
        "\n![Memory per idle session](benchmarks-agent-memory.svg)\n\n\
         ![First message, all sessions started together](benchmarks-agent-latency.svg)\n",
    );
    if let [cli, agent] = medians[..] {
        out.push_str(&format!(
            "\ntwinwire-agent's first message takes {:.1}% of the CLI's time (goal: at most 5%), \
             its idle RSS is {:.1}% of the CLI's (goal: at most 10%), and {:.0} of its sessions \
             fit in 24 GiB by their measured PSS (goal: at least 1,000).\n",
            100.0 * agent.0 / cli.0.max(f64::EPSILON),
            100.0 * agent.1 / cli.1.max(f64::EPSILON),
            agent.2
        ));
    }
    out.push_str(&format!(
        "\nMedians of {} single-session runs per program (a prompt written at spawn, one \
         text turn from the model server, memory read from `/proc` one second after the \
         result). Then {} twinwire-agent processes and {} CLI processes started together; each \
         answers a tool turn and a text turn and stays alive; a second after the last result \
         every process is checked to be running and its RSS and PSS (`smaps_rollup`: shared \
         pages divided among the processes sharing them) are read and summed. Turns per second \
         counts both turns of every session over the whole run, spawns included. \
         twinwire-agent is the release build.\n",
        args.reps, args.sessions, args.cli_sessions
    ));
    out
}

const START: &str = "<!-- generated by `cargo xtask bench-agent`: edit outside these markers -->";
const END: &str = "<!-- end of the bench-agent part -->";

/// Replaces the generated part of the section (or adds the section at the end).
fn write_section(file: &Path, section: &str) -> Result<()> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let generated = format!("{START}\n\n{section}\n{END}");
    let updated = match (text.find(START), text.find(END)) {
        (Some(start), Some(end)) if start < end => {
            format!("{}{generated}{}", &text[..start], &text[end + END.len()..])
        }
        _ => format!(
            "{}\n\n## twinwire-agent against Claude Code\n\n{generated}\n",
            text.trim_end()
        ),
    };
    std::fs::write(file, updated)?;
    Ok(())
}
