//! `twinwire-prewarm CLI ROUNDS POOL_SESSIONS`: time to the first message (`system/init`) and to
//! the result of a session's first turn, started cold (`Client::connect`, then the prompt) and
//! from a prewarmed spare of a `Pool` (the spare is ready before the clock starts),
//! alternating, ROUNDS of each; then POOL_SESSIONS one-turn
//! sessions through a pool (8 live, 2 spares). With `TWINWIRE_BENCH_CLAIM_DIR` set, ROUNDS more
//! sessions claimed from a parked spare (`PoolConfig::parked`, `Pool::claim` with that folder and
//! a model), counting how many the spare really served. The CLI's environment (a fake's script,
//! or the real CLI's private HOME and model server) comes from this process's. Prints one JSON
//! line: `{"cold_ms", "warm_ms", "cold_result_ms", "warm_result_ms", "claimed_ms",
//! "claimed_result_ms": [...], "claims_served": N, "pool_sessions": N, "pool_seconds": S}`.

// A benchmark binary: its report goes to stdout, its diagnostics to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant};

use twinwire::host::pool::{Claim, Pool, PoolConfig, Start};
use twinwire::{Client, Options};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(cli), Some(rounds), Some(pooled)) = (
        args.get(1),
        args.get(2).and_then(|n| n.parse::<usize>().ok()),
        args.get(3).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: twinwire-prewarm CLI ROUNDS POOL_SESSIONS");
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    match runtime.block_on(run(cli, rounds, pooled)) {
        Ok(line) => println!("{line}"),
        Err(err) => {
            eprintln!("twinwire-prewarm: {err}");
            std::process::exit(1);
        }
    }
}

fn options(cli: &str) -> twinwire::Result<Options> {
    Options::builder()
        .cli_path(cli)
        .include_partial_messages(true)
        .build()
}

/// Sends the prompt and reads the turn to its result; returns the times from `start` to
/// the turn's `system/init` (the first message the official SDKs yield; twinwire also yields the
/// CLI's `session_state_changed` before it) and to the result.
async fn timed_turn(client: &Client, start: Instant) -> twinwire::Result<(f64, f64)> {
    let trace = std::env::var_os("TWINWIRE_BENCH_TRACE").is_some();
    client.send("go").await?;
    let mut init = None;
    while let Some(message) = client.receive().await {
        let message = message?;
        if trace {
            eprintln!("{:.1} {}", ms(start.elapsed()), message.kind());
        }
        if init.is_none() && message.kind() == "system/init" {
            init = Some(ms(start.elapsed()));
        }
        if message.result_is_error().is_some() {
            let done = ms(start.elapsed());
            return Ok((init.unwrap_or(done), done));
        }
    }
    Err(twinwire::Error::Closed)
}

async fn run(cli: &str, rounds: usize, pooled: usize) -> twinwire::Result<serde_json::Value> {
    let pool = Pool::new(
        options(cli)?,
        PoolConfig::default()
            .max_live(1)
            .spares(1)
            .refill_delay(refill_delay()),
    );
    let (mut cold_ms, mut cold_result_ms) = (Vec::new(), Vec::new());
    let (mut warm_ms, mut warm_result_ms) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        // No spare may be booting while a session is timed (it would compete for the CPU).
        while pool.metrics().spare < 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let start = Instant::now();
        let client = Client::connect(options(cli)?).await?;
        let (init, result) = timed_turn(&client, start).await?;
        cold_ms.push(init);
        cold_result_ms.push(result);
        client.close().await?;

        while pool.metrics().spare < 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let start = Instant::now();
        let session = pool.session().await?;
        let (init, result) = timed_turn(session.client(), start).await?;
        warm_ms.push(init);
        warm_result_ms.push(result);
        session.close().await?;
    }
    pool.shutdown().await;

    let pool = Pool::new(options(cli)?, PoolConfig::default().max_live(8).spares(2));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..pooled {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            let session = pool.session().await?;
            timed_turn(session.client(), Instant::now()).await?;
            session.close().await
        }));
    }
    for task in tasks {
        task.await
            .map_err(|err| twinwire::Error::InvalidOptions(err.to_string()))??;
    }
    let pool_seconds = start.elapsed().as_secs_f64();
    pool.shutdown().await;
    let (claimed_ms, claimed_result_ms, claims_served) =
        match std::env::var_os("TWINWIRE_BENCH_CLAIM_DIR") {
            Some(dir) => claimed(cli, rounds, dir.into()).await?,
            None => (Vec::new(), Vec::new(), 0),
        };
    Ok(serde_json::json!({
        "cold_ms": cold_ms,
        "warm_ms": warm_ms,
        "cold_result_ms": cold_result_ms,
        "warm_result_ms": warm_result_ms,
        "claimed_ms": claimed_ms,
        "claimed_result_ms": claimed_result_ms,
        "claims_served": claims_served,
        "pool_sessions": pooled,
        "pool_seconds": pool_seconds,
    }))
}

/// `rounds` sessions claimed from a parked spare for folder `dir` with their own model: the
/// times to the first message and to the result, and how many a parked spare served (the
/// others started cold).
async fn claimed(
    cli: &str,
    rounds: usize,
    dir: std::path::PathBuf,
) -> twinwire::Result<(Vec<f64>, Vec<f64>, usize)> {
    let pool = Pool::new(
        options(cli)?,
        PoolConfig::default()
            .max_live(1)
            .spares(1)
            .parked(true)
            .refill_delay(refill_delay()),
    );
    let (mut first, mut result, mut served) = (Vec::new(), Vec::new(), 0);
    for _ in 0..rounds {
        while pool.metrics().spare < 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let start = Instant::now();
        let session = pool
            .claim(Claim::new(&dir).model("claude-haiku-4-5"))
            .await?;
        let (init, done) = timed_turn(session.client(), start).await?;
        first.push(init);
        result.push(done);
        served += usize::from(matches!(session.start(), Start::Claimed(_)));
        session.close().await?;
    }
    pool.shutdown().await;
    Ok((first, result, served))
}

/// `TWINWIRE_BENCH_REFILL_DELAY_MS` (default 0: the replacement starts at once, competing for
/// the CPU with the timed session).
fn refill_delay() -> Duration {
    let ms = std::env::var("TWINWIRE_BENCH_REFILL_DELAY_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(0);
    Duration::from_millis(ms)
}

fn ms(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * 1000.0
}
