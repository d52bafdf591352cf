//! The session pool: its limit under 200 concurrent callers, its fair queue, its spares
//! (ready ahead, replaced when taken or dead), its budgets and metrics.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use twinwire::host::pool::{Budget, Claim, Pool, PoolConfig, Start};
use twinwire::Error;

use super::*;

fn echo_script() -> serde_json::Value {
    serde_json::json!({"turns": [{"steps": [{"text": "hello"}]}, {"steps": [{"text": "again"}]}]})
}

/// Reads until the turn's result.
async fn one_turn(session: &mut twinwire::host::PooledClient, prompt: &str) -> Result<()> {
    session.send(prompt).await?;
    while let Some(message) = session.receive().await {
        if message?.result_is_error().is_some() {
            return Ok(());
        }
    }
    Err(Error::Closed)
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_callers_never_exceed_the_limit() {
    let fake = Fake::new(echo_script());
    let pool = Pool::new(fake.options(), PoolConfig::default().max_live(8).spares(2));
    let in_use = Arc::new(AtomicU64::new(0));
    let peak = Arc::new(AtomicU64::new(0));
    let peak_live = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for i in 0..200 {
        let pool = pool.clone();
        let (in_use, peak, peak_live) = (in_use.clone(), peak.clone(), peak_live.clone());
        tasks.push(tokio::spawn(async move {
            let mut session = pool.session().await?;
            let now = in_use.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            peak_live.fetch_max(pool.metrics().live, Ordering::SeqCst);
            let turn = one_turn(&mut session, &format!("prompt {i}")).await;
            in_use.fetch_sub(1, Ordering::SeqCst);
            turn?;
            session.close().await
        }));
    }
    let mut queued_seen = 0;
    for _ in 0..10 {
        queued_seen = queued_seen.max(pool.metrics().queued);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for task in tasks {
        within(120, task).await.unwrap().unwrap();
    }
    assert!(
        peak.load(Ordering::SeqCst) <= 8,
        "peak {}",
        peak.load(Ordering::SeqCst)
    );
    assert!(peak_live.load(Ordering::SeqCst) <= 8);
    assert!(
        queued_seen > 0,
        "nobody ever waited: the limit was not exercised"
    );
    let metrics = pool.metrics();
    assert_eq!(metrics.live, 0);
    assert_eq!(metrics.completed, 200);
    assert_eq!(metrics.failed, 0, "{metrics:?}");
    assert_eq!(metrics.queued, 0);
    // 200 sessions, plus the spares standing by now.
    assert!(metrics.started >= 200, "{metrics:?}");
    pool.shutdown().await;
}

#[tokio::test]
async fn the_queue_is_first_come_first_served() {
    let fake = Fake::new(echo_script());
    let pool = Pool::new(fake.options(), PoolConfig::default().max_live(1).spares(0));
    let first = pool.session().await.unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for i in 0..6 {
        let (waiting, order) = (pool.clone(), order.clone());
        tasks.push(tokio::spawn(async move {
            let session = waiting.session().await.unwrap();
            order.lock().unwrap().push(i);
            session.close().await.unwrap();
        }));
        // Each caller is in the queue before the next one comes.
        let expected = i + 1;
        wait_until("queued", || pool.metrics().queued == expected).await;
    }
    first.close().await.unwrap();
    for task in tasks {
        within(30, task).await.unwrap();
    }
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn spares_are_taken_and_replaced_even_when_they_die() {
    let fake = Fake::new(echo_script());
    let pool = Pool::new(fake.options(), PoolConfig::default().max_live(4).spares(2));
    wait_until("two spares", || pool.metrics().spare == 2).await;
    let before = pool.spare_pids();

    // A session takes a spare: no new process for it, and the pool makes another spare.
    let mut session = pool.session().await.unwrap();
    assert!(session.prewarmed());
    assert!(before.contains(&session.client().pid().unwrap()));
    one_turn(&mut session, "hi").await.unwrap();
    wait_until("replaced after a checkout", || pool.metrics().spare == 2).await;

    // A spare that dies is replaced.
    let victim = pool.spare_pids()[0];
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_until("the dead spare replaced", || {
        let pids = pool.spare_pids();
        pids.len() == 2 && !pids.contains(&victim)
    })
    .await;
    assert!(pool.metrics().failed >= 1);
    session.close().await.unwrap();
    pool.shutdown().await;
    assert_eq!(pool.metrics().spare, 0);
    assert!(matches!(pool.session().await, Err(Error::Closed)));
}

#[tokio::test]
async fn budgets_stop_a_session() {
    // Turns.
    let fake = Fake::new(echo_script());
    let budget = Budget::default().max_turns(1);
    let pool = Pool::new(
        fake.options(),
        PoolConfig::default().max_live(2).spares(0).budget(budget),
    );
    let mut session = pool.session().await.unwrap();
    one_turn(&mut session, "one").await.unwrap();
    let refused = session.send("two").await;
    assert!(
        matches!(
            refused,
            Err(Error::BudgetExceeded {
                what: "turns",
                turns: 1,
                ..
            })
        ),
        "{refused:?}"
    );
    session.close().await.unwrap();

    // Wall time: a turn that takes too long is interrupted and reported.
    let fake = Fake::new(
        serde_json::json!({"turns": [{"steps": [{"sleep_ms": 10000}, {"text": "late"}]}]}),
    );
    let budget = Budget::default().max_wall(Duration::from_millis(500));
    let pool = Pool::new(
        fake.options(),
        PoolConfig::default().max_live(2).spares(0).budget(budget),
    );
    let mut session = pool.session().await.unwrap();
    session.send("slow").await.unwrap();
    let started = std::time::Instant::now();
    let mut outcome = None;
    while let Some(message) = within(10, session.receive()).await {
        if let Err(err) = message {
            outcome = Some(err);
            break;
        }
    }
    assert!(
        matches!(
            outcome,
            Some(Error::BudgetExceeded {
                what: "wall time",
                ..
            })
        ),
        "{outcome:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(session);
    assert_eq!(pool.metrics().live, 0);
}

/// The `system/init` of a session's first turn.
async fn first_init(session: &mut twinwire::host::PooledClient) -> serde_json::Value {
    session.send("hi").await.unwrap();
    let mut init = None;
    while let Some(message) = within(20, session.receive()).await {
        let message = message.unwrap();
        let value = message.to_value();
        if value["type"] == "system" && value["subtype"] == "init" {
            init = Some(value);
        }
        if message.result_is_error().is_some() {
            break;
        }
    }
    init.expect("a system/init")
}

#[tokio::test]
async fn a_claim_spares_cannot_take_starts_a_cli_with_the_claim_in_its_options() {
    let fake = Fake::new(echo_script());
    let folder = tempfile::tempdir().unwrap();
    // Spares started as the options say (not parked): the claim's folder and model need a CLI
    // of their own; the spare stays for a session of the pool's options.
    let pool = Pool::new(fake.options(), PoolConfig::default().max_live(2).spares(1));
    wait_until("a spare", || pool.metrics().spare == 1).await;
    let spare = pool.spare_pids()[0];
    let claim = Claim::new(folder.path()).model("claude-claimed-model");
    let mut session = within(20, pool.claim(claim)).await.unwrap();
    let Start::Cold { reason } = session.start() else {
        panic!("{:?}", session.start());
    };
    assert!(reason.contains("not parked"), "{reason}");
    assert_ne!(session.client().pid(), Some(spare));
    assert_eq!(pool.spare_pids(), [spare], "the spare was kept for others");
    let init = first_init(&mut session).await;
    assert_eq!(init["model"], "claude-claimed-model");
    assert_eq!(
        std::path::Path::new(init["cwd"].as_str().unwrap()),
        folder.path().canonicalize().unwrap()
    );
    session.close().await.unwrap();
    // A claim that asks for nothing new takes the spare.
    let here = std::env::current_dir().unwrap();
    let session = within(20, pool.claim(Claim::new(here))).await.unwrap();
    assert!(
        matches!(session.start(), Start::Spare),
        "{:?}",
        session.start()
    );
    assert_eq!(session.client().pid(), Some(spare));
    session.close().await.unwrap();
    pool.shutdown().await;
}

#[tokio::test]
async fn a_cli_that_does_not_know_claim_session_is_claimed_cold_and_parks_no_more() {
    // fake-claude ignores `--await-claim` and answers `claim_session` "unsupported".
    let fake = Fake::new(echo_script());
    let folder = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let options = fake.builder().env("HOME", home.path()).build().unwrap();
    let pool = Pool::new(
        options,
        PoolConfig::default().max_live(2).spares(1).parked(true),
    );
    wait_until("a parked spare", || pool.metrics().spare == 1).await;
    let parked = pool.spare_pids()[0];
    let spares_dir = home.path().join(".claude/spares");
    assert_eq!(std::fs::read_dir(&spares_dir).unwrap().count(), 1);
    let claim = Claim::new(folder.path()).title("t");
    let mut session = within(20, pool.claim(claim)).await.unwrap();
    let Start::Cold { reason } = session.start() else {
        panic!("{:?}", session.start());
    };
    assert!(reason.contains("claim_session"), "{reason}");
    assert_ne!(session.client().pid(), Some(parked));
    let init = first_init(&mut session).await;
    assert_eq!(
        std::path::Path::new(init["cwd"].as_str().unwrap()),
        folder.path().canonicalize().unwrap()
    );
    session.close().await.unwrap();
    assert_eq!(pool.metrics().refused, 1);
    // The next spare is an ordinary one, and the parking place is gone.
    wait_until("an ordinary spare", || {
        let pids = pool.spare_pids();
        pids.len() == 1 && pids[0] != parked
    })
    .await;
    wait_until("the parking place removed", || {
        std::fs::read_dir(&spares_dir).unwrap().count() == 0
    })
    .await;
    let session = within(20, pool.session()).await.unwrap();
    assert!(
        matches!(session.start(), Start::Spare),
        "{:?}",
        session.start()
    );
    session.close().await.unwrap();
    pool.shutdown().await;
}

#[tokio::test]
async fn a_claim_with_hook_settings_is_refused_before_anything_is_sent() {
    let fake = Fake::new(echo_script());
    let pool = Pool::new(fake.options(), PoolConfig::default().spares(0));
    let settings = serde_json::from_value(serde_json::json!({"disableAllHooks": true})).unwrap();
    let refused = pool.claim(Claim::new("/").settings(settings)).await;
    assert!(
        matches!(&refused, Err(Error::InvalidOptions(why)) if why.contains("disableAllHooks")),
        "{refused:?}"
    );
    assert_eq!(pool.metrics().started, 0);
}

/// A fake whose `claim_session` answer is scripted (fake-claude parks nothing: it ignores
/// `--await-claim` and answers the claim as the script says), with a private HOME for the
/// parking places.
fn claimable(claim_session: serde_json::Value) -> (Fake, tempfile::TempDir, twinwire::Options) {
    let mut script = echo_script();
    script["requests"] = serde_json::json!({ "claim_session": claim_session });
    let fake = Fake::new(script);
    let home = tempfile::tempdir().unwrap();
    let options = fake.builder().env("HOME", home.path()).build().unwrap();
    (fake, home, options)
}

fn parking_places(home: &tempfile::TempDir) -> usize {
    std::fs::read_dir(home.path().join(".claude/spares")).map_or(0, Iterator::count)
}

#[tokio::test]
async fn a_parked_spare_serves_a_claim_in_one_round_trip_and_nothing_outlives_the_pool() {
    let answer = serde_json::json!({"cwd": "/claimed", "session_id": "s-claimed", "parked_ms": 42});
    let (fake, home, options) = claimable(serde_json::json!({ "payload": answer }));
    let pool = Pool::new(
        options,
        PoolConfig::default().max_live(2).spares(1).parked(true),
    );
    wait_until("a parked spare", || pool.metrics().spare == 1).await;
    let parked = pool.spare_pids()[0];
    assert_eq!(parking_places(&home), 1);
    let folder = tempfile::tempdir().unwrap();
    let claim = Claim::new(folder.path())
        .model("claude-claimed-model")
        .permission_mode(twinwire::protocol::permission::PermissionMode::AcceptEdits)
        .title("claimed title")
        .append_system_prompt("appended")
        .credential("CLAUDE_CODE_OAUTH_TOKEN", "token-1")
        .add_dir("extra");
    let session = within(20, pool.claim(claim)).await.unwrap();
    assert_eq!(
        session.client().pid(),
        Some(parked),
        "the parked process serves it"
    );
    let claimed = session.claimed().expect("claimed");
    assert_eq!(claimed.session_id, "s-claimed");
    assert_eq!(claimed.parked, Some(Duration::from_millis(42)));
    assert!(claimed.not_applied.is_empty(), "{claimed:?}");
    let sent = fake.received();
    let claims: Vec<_> = sent
        .iter()
        .filter(|frame| frame["request"]["subtype"] == "claim_session")
        .collect();
    assert_eq!(claims.len(), 1, "one claim_session request");
    let request = &claims[0]["request"];
    assert_eq!(request["cwd"], folder.path().to_str().unwrap());
    assert_eq!(request["permission_mode"], "acceptEdits");
    assert_eq!(request["title"], "claimed title");
    assert_eq!(request["append_system_prompt"], "appended");
    assert_eq!(request["env"]["CLAUDE_CODE_OAUTH_TOKEN"], "token-1");
    assert_eq!(
        request["additional_directories"],
        serde_json::json!(["extra"])
    );
    assert_eq!(request["include_initialize"], true);
    assert!(
        sent.iter()
            .any(|frame| frame["request"]["subtype"] == "set_model"
                && frame["request"]["model"] == "claude-claimed-model"),
        "the model follows the claim"
    );
    assert_eq!(pool.metrics().claimed, 1);
    // The claimed spare's parking place is gone; its replacement parks in a new one.
    wait_until("a new parked spare", || {
        let pids = pool.spare_pids();
        pids.len() == 1 && pids[0] != parked
    })
    .await;
    assert_eq!(parking_places(&home), 1);
    let replacement = pool.spare_pids()[0];
    session.close().await.unwrap();
    pool.shutdown().await;
    wait_until("no CLI left", || !alive(parked) && !alive(replacement)).await;
    assert_eq!(parking_places(&home), 0);
}

#[tokio::test]
async fn a_refused_claim_starts_cold_says_why_and_lets_the_spare_go() {
    let refusal = "project_settings_not_claimable: the folder's settings choose a model";
    let (_fake, home, options) =
        claimable(serde_json::json!({"respond": "error", "error": refusal}));
    let pool = Pool::new(
        options,
        PoolConfig::default().max_live(2).spares(1).parked(true),
    );
    wait_until("a parked spare", || pool.metrics().spare == 1).await;
    let parked = pool.spare_pids()[0];
    let folder = tempfile::tempdir().unwrap();
    let mut session = within(20, pool.claim(Claim::new(folder.path()).model("m-cold")))
        .await
        .unwrap();
    let Start::Cold { reason } = session.start() else {
        panic!("{:?}", session.start());
    };
    assert_eq!(reason, refusal);
    let cold = session.client().pid().unwrap();
    assert_ne!(cold, parked);
    let init = first_init(&mut session).await;
    assert_eq!(init["model"], "m-cold");
    assert_eq!(
        std::path::Path::new(init["cwd"].as_str().unwrap()),
        folder.path().canonicalize().unwrap()
    );
    assert_eq!(pool.metrics().refused, 1);
    // The refusing spare is ended; a refusal of one folder does not stop the pool parking.
    wait_until("the refusing spare ended", || !alive(parked)).await;
    wait_until("a new parked spare", || {
        let pids = pool.spare_pids();
        pids.len() == 1 && pids[0] != parked
    })
    .await;
    assert_eq!(parking_places(&home), 1);
    let replacement = pool.spare_pids()[0];
    session.close().await.unwrap();
    pool.shutdown().await;
    wait_until("no CLI left", || !alive(cold) && !alive(replacement)).await;
    assert_eq!(parking_places(&home), 0);
}

#[tokio::test]
async fn a_parked_spare_that_dies_is_replaced_and_its_parking_place_removed() {
    let (_fake, home, options) = claimable(serde_json::json!({}));
    let pool = Pool::new(
        options,
        PoolConfig::default().max_live(2).spares(1).parked(true),
    );
    wait_until("a parked spare", || pool.metrics().spare == 1).await;
    let victim = pool.spare_pids()[0];
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_until("the dead spare replaced", || {
        let pids = pool.spare_pids();
        pids.len() == 1 && !pids.contains(&victim)
    })
    .await;
    assert!(pool.metrics().failed >= 1);
    assert_eq!(
        parking_places(&home),
        1,
        "the dead spare's parking place is removed"
    );
    let folder = tempfile::tempdir().unwrap();
    let session = within(20, pool.claim(Claim::new(folder.path())))
        .await
        .unwrap();
    assert!(session.claimed().is_some(), "{:?}", session.start());
    let pid = session.client().pid().unwrap();
    session.close().await.unwrap();
    pool.shutdown().await;
    wait_until("no CLI left", || !alive(pid)).await;
    wait_until("no spare left", || pool.spare_pids().is_empty()).await;
}
