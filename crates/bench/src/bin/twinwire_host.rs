//! `twinwire-host WORKLOAD FAKE SCRIPT N`: drives `fake-claude` through twinwire on a
//! multi-threaded tokio runtime and prints one JSON line (see `twinwire_bench::Report`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::StreamExt;
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::{query, Client, Options};
use twinwire_bench::{cpu_self_s, monotonic_ns, proc_status_kib, Args, Report, PROMPT, SCRIPT_ENV};

fn main() {
    let main_ns = monotonic_ns();
    let mut report = Report::new(main_ns);
    match Args::from_env() {
        Ok(args) => match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime.block_on(run(&args, &mut report)),
            Err(err) => report.fail(format!("starting tokio: {err}")),
        },
        Err(err) => report.fail(err),
    }
    std::process::exit(report.finish());
}

async fn run(args: &Args, report: &mut Report) {
    let options = Options::builder()
        .cli_path(&args.fake)
        .env(SCRIPT_ENV, &args.script)
        .include_partial_messages(true);
    match args.workload.as_str() {
        "flood" | "startup" => match options.build() {
            Ok(options) => drain(options, false, report).await,
            Err(err) => report.fail(err.to_string()),
        },
        "slowflood" | "unknownflood" => match options.build() {
            Ok(options) => drain(options, true, report).await,
            Err(err) => report.fail(err.to_string()),
        },
        "roundtrip" => roundtrip(options, report).await,
        "sessions" => match options.build() {
            Ok(options) => sessions(options, args.n, report).await,
            Err(err) => report.fail(err.to_string()),
        },
        other => report.fail(format!("unknown workload `{other}`")),
    }
}

/// The slow consumer of the `slowflood` workload pauses this long after every
/// [`PAUSE_EVERY`] messages (the same in every host).
const PAUSE: std::time::Duration = std::time::Duration::from_millis(5);
const PAUSE_EVERY: u64 = 1_000;

/// One `query`, every message counted (the flood, and the startup's echo turn); with `slow`,
/// the consumer pauses now and then (the `slowflood` workload).
async fn drain(options: Options, slow: bool, report: &mut Report) {
    let cpu_start = cpu_self_s();
    let start = monotonic_ns();
    let mut first = 0;
    let (mut events, mut assistants, mut results, mut others) = (0u64, 0u64, 0u64, 0u64);
    let mut messages = query(PROMPT, options);
    while let Some(item) = messages.next().await {
        if first == 0 {
            first = monotonic_ns();
        }
        if slow && (events + assistants + others) % PAUSE_EVERY == PAUSE_EVERY - 1 {
            tokio::time::sleep(PAUSE).await;
        }
        match item {
            Ok(Message::StreamEvent(_)) => events += 1,
            Ok(Message::Assistant(_)) => assistants += 1,
            Ok(Message::Result(_)) => results += 1,
            Ok(_) => others += 1,
            Err(err) => report.fail(err.to_string()),
        }
    }
    report.set("start_ns", start);
    report.set("first_ns", first);
    report.set("end_ns", monotonic_ns());
    report.set("cpu_start_s", cpu_start);
    report.set("cpu_end_s", cpu_self_s());
    report.set("stream_events", events);
    report.set("assistants", assistants);
    report.set("results", results);
    report.set("others", others);
}

/// One `query` whose permission requests are all answered "allow" by a callback.
async fn roundtrip(options: twinwire::options::OptionsBuilder, report: &mut Report) {
    let calls = Arc::new(AtomicU64::new(0));
    let first_cb = Arc::new(AtomicU64::new(0));
    let last_cb = Arc::new(AtomicU64::new(0));
    let callback = {
        let (calls, first_cb, last_cb) = (calls.clone(), first_cb.clone(), last_cb.clone());
        can_use_tool(move |request: PermissionRequest| {
            let now = monotonic_ns();
            if calls.fetch_add(1, Ordering::Relaxed) == 0 {
                first_cb.store(now, Ordering::Relaxed);
            }
            last_cb.store(now, Ordering::Relaxed);
            async move { Ok(PermissionResult::allow(request.input().clone())) }
        })
    };
    match options.can_use_tool(callback).build() {
        Ok(options) => drain(options, false, report).await,
        Err(err) => return report.fail(err.to_string()),
    }
    report.set("callbacks", calls.load(Ordering::Relaxed));
    report.set("first_cb_ns", first_cb.load(Ordering::Relaxed));
    report.set("last_cb_ns", last_cb.load(Ordering::Relaxed));
}

/// `n` clients at once, each through one echo turn, all held open and idle while the RSS is
/// read, then all closed.
async fn sessions(options: Options, n: u64, report: &mut Report) {
    let rss_before = proc_status_kib("VmRSS");
    let cpu_start = cpu_self_s();
    let start = monotonic_ns();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..n {
        let options = options.clone();
        tasks.spawn(async move { one_turn(options).await });
    }
    let mut clients = Vec::new();
    let mut failures = 0u64;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok(client)) => clients.push(client),
            Ok(Err(err)) => {
                failures += 1;
                report.fail(err);
            }
            Err(err) => {
                failures += 1;
                report.fail(format!("session task: {err}"));
            }
        }
    }
    let ready = monotonic_ns();
    let rss_idle = proc_status_kib("VmRSS");
    let closes = clients.iter().map(|client| client.close());
    for closed in futures::future::join_all(closes).await {
        if let Err(err) = closed {
            failures += 1;
            report.fail(format!("close: {err}"));
        }
    }
    report.set("start_ns", start);
    report.set("first_ns", ready);
    report.set("end_ns", monotonic_ns());
    report.set("cpu_start_s", cpu_start);
    report.set("cpu_end_s", cpu_self_s());
    report.set("sessions", clients.len() as u64);
    report.set("failures", failures);
    report.set("rss_before_kib", rss_before);
    report.set("rss_idle_kib", rss_idle);
}

async fn one_turn(options: Options) -> Result<Client, String> {
    let client = Client::connect(options)
        .await
        .map_err(|err| format!("connect: {err}"))?;
    client
        .send(PROMPT)
        .await
        .map_err(|err| format!("send: {err}"))?;
    let mut result = false;
    {
        let mut turn = std::pin::pin!(client.receive_response());
        while let Some(item) = turn.next().await {
            match item {
                Ok(Message::Result(_)) => result = true,
                Ok(_) => {}
                Err(err) => return Err(format!("receive: {err}")),
            }
        }
    }
    if !result {
        return Err("the turn ended without a result".into());
    }
    Ok(client)
}
