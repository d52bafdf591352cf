//! Parked spares claimed with per-session options (`--await-claim`, `claim_session`), and the
//! cold start that serves a claim a spare cannot. Claude Code 2.1.330 and newer park spares and
//! take claims; older generations cannot park (`unknown option '--await-claim'`), so every claim
//! there starts a CLI of its own with the claim in its options: the scenarios that check the
//! claim itself are their expected differences, the one that checks what any claim gets is not.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use twinwire::host::pool::{Claim, Pool, PoolConfig, Start};
use twinwire::protocol::control::AgentDefinition;
use twinwire::protocol::permission::PermissionMode;

use crate::{inits, kinds, script, the_result, turn, within, Scenario};

/// One parked spare, not replaced once taken: each scenario starts the same CLIs every run
/// (the recordings depend on it).
fn one_spare() -> PoolConfig {
    PoolConfig::default()
        .max_live(2)
        .spares(1)
        .parked(true)
        .refill_delay(Duration::from_secs(3600))
}

/// A pool of parked spares whose CLIs wait in `park` (never a session's folder).
fn parked_pool(s: &Scenario, park: &Path) -> Pool {
    std::fs::create_dir_all(park).unwrap();
    let options = s.builder().cwd(park).build().unwrap();
    Pool::new(options, one_spare())
}

async fn wait_for_a_spare(pool: &Pool, s: &Scenario) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while pool.metrics().spare == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no spare became ready: {:?}\nstderr:\n{}",
            pool.metrics(),
            s.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The project directory the CLI keeps `folder`'s sessions in.
fn project_dir(s: &Scenario, folder: &Path) -> std::path::PathBuf {
    let key: String = folder
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    s.home().join(".claude/projects").join(key)
}

#[tokio::test]
async fn a_parked_spare_takes_a_session_with_its_own_folder_model_mode_prompt_title_and_agents() {
    let s = Scenario::start(script(json!([]), json!({"echo": true}))).await;
    let pool = parked_pool(&s, &s.home().join("park"));
    wait_for_a_spare(&pool, &s).await;
    let spare_pid = pool.spare_pids()[0];
    let reviewer = AgentDefinition {
        description: "Reviews diffs".into(),
        prompt: "You review diffs.".into(),
        ..AgentDefinition::default()
    };
    let claim = Claim::new(s.work())
        .model("claude-haiku-4-5")
        .permission_mode(PermissionMode::AcceptEdits)
        .append_system_prompt("APPENDED-7f3a")
        .title("Claimed title 7f3a")
        .agent("reviewer-7f3a", reviewer)
        .settings(serde_json::from_value(json!({"effortLevel": "high"})).unwrap())
        .credential("CLAUDE_CODE_HOST_SESSION_ID", "host-7f3a");
    let session = within(pool.claim(claim)).await.unwrap();
    // The parked process itself serves the session, bound to its folder.
    let Some(claimed) = session.claimed() else {
        panic!(
            "the parked spare did not take the claim: {:?}",
            session.start()
        );
    };
    assert_eq!(session.client().pid(), Some(spare_pid));
    assert!(claimed.not_applied.is_empty(), "{claimed:?}");
    assert!(claimed.parked.is_some());
    let agents = claimed
        .initialize
        .as_ref()
        .expect("initialize")
        .agents
        .clone();
    assert!(
        agents
            .unwrap_or_default()
            .iter()
            .any(|agent| agent.name == "reviewer-7f3a"),
        "the claimed session's agents are not in the claim's answer"
    );
    assert_eq!(pool.metrics().claimed, 1);
    assert_eq!(pool.metrics().refused, 0);
    let items = turn(session.client(), "hello from the claim").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let init = inits(&items)[0];
    assert_eq!(
        Path::new(&init.cwd).canonicalize().unwrap(),
        s.work().canonicalize().unwrap()
    );
    assert_eq!(init.model, "claude-haiku-4-5");
    assert_eq!(init.permission_mode, PermissionMode::AcceptEdits);
    let request = &s.requests_for("hello from the claim")[0];
    assert_eq!(request["model"], "claude-haiku-4-5");
    assert!(
        request["system"].to_string().contains("APPENDED-7f3a"),
        "the appended prompt is not in the system prompt: {}",
        request["system"]
    );
    let agents = init.agents.clone().unwrap_or_default();
    assert!(
        agents.iter().any(|agent| agent == "reviewer-7f3a"),
        "the claimed agent is not in the session: {agents:?}"
    );
    let settings = within(session.client().get_settings()).await.unwrap();
    assert_eq!(settings.effective.unwrap()["effortLevel"], "high");
    assert_eq!(claimed.session_id, init.session_id);
    // The session's transcript is the claimed folder's, under the session id of the init.
    let transcript = project_dir(&s, &s.work()).join(format!("{}.jsonl", init.session_id));
    within(session.close()).await.unwrap();
    let written = std::fs::read_to_string(&transcript)
        .unwrap_or_else(|err| panic!("no transcript at {}: {err}", transcript.display()));
    assert!(
        written.contains("Claimed title 7f3a"),
        "the claim's title is not in the transcript"
    );
    pool.shutdown().await;
}

#[tokio::test]
async fn a_claim_the_cli_refuses_starts_the_session_cold_in_that_folder() {
    let s = Scenario::start(script(json!([]), json!({"echo": true}))).await;
    // Project settings that pick a model cannot be claimed (the spare started without them).
    let folder = s.work().join("pinned-model");
    std::fs::create_dir_all(folder.join(".claude")).unwrap();
    std::fs::write(
        folder.join(".claude/settings.json"),
        r#"{"model": "claude-haiku-4-5"}"#,
    )
    .unwrap();
    let pool = parked_pool(&s, &s.home().join("park"));
    wait_for_a_spare(&pool, &s).await;
    let session = within(pool.claim(Claim::new(&folder))).await.unwrap();
    let Start::Cold { reason } = session.start() else {
        panic!("a refused claim must start cold: {:?}", session.start());
    };
    assert!(
        reason.starts_with("project_settings_not_claimable"),
        "{reason}"
    );
    assert_eq!(pool.metrics().refused, 1);
    let items = turn(session.client(), "hello in the pinned folder").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let init = inits(&items)[0];
    assert_eq!(
        Path::new(&init.cwd).canonicalize().unwrap(),
        folder.canonicalize().unwrap()
    );
    assert_eq!(init.model, "claude-haiku-4-5");
    within(session.close()).await.unwrap();
    pool.shutdown().await;
}

#[tokio::test]
async fn a_plain_session_from_a_parked_pool_runs_in_the_pools_folder() {
    let s = Scenario::start(script(json!([]), json!({"echo": true}))).await;
    let options = s.builder().build().unwrap();
    let pool = Pool::new(options, one_spare());
    wait_for_a_spare(&pool, &s).await;
    let session = within(pool.session()).await.unwrap();
    assert!(session.prewarmed(), "{:?}", session.start());
    let items = turn(session.client(), "hello plainly").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    assert_eq!(
        Path::new(&inits(&items)[0].cwd).canonicalize().unwrap(),
        s.work().canonicalize().unwrap()
    );
    within(session.close()).await.unwrap();
    pool.shutdown().await;
}

#[tokio::test]
async fn a_claim_gets_its_folder_model_and_permission_mode_however_the_session_starts() {
    let s = Scenario::start(script(json!([]), json!({"echo": true}))).await;
    let folder = s.work().join("claimed");
    std::fs::create_dir_all(&folder).unwrap();
    let pool = parked_pool(&s, &s.home().join("park"));
    wait_for_a_spare(&pool, &s).await;
    let claim = Claim::new(&folder)
        .model("claude-haiku-4-5")
        .permission_mode(PermissionMode::AcceptEdits);
    let session = within(pool.claim(claim)).await.unwrap();
    let items = turn(session.client(), "hello wherever").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let init = inits(&items)[0];
    assert_eq!(
        Path::new(&init.cwd).canonicalize().unwrap(),
        folder.canonicalize().unwrap(),
        "{:?}",
        session.start()
    );
    assert_eq!(init.model, "claude-haiku-4-5");
    assert_eq!(init.permission_mode, PermissionMode::AcceptEdits);
    assert_eq!(
        s.requests_for("hello wherever")[0]["model"],
        "claude-haiku-4-5"
    );
    // However it started, the pool says how.
    match session.start() {
        Start::Claimed(claimed) => assert_eq!(claimed.session_id, init.session_id),
        Start::Cold { reason } => assert!(!reason.is_empty()),
        other => panic!("a spare of the pool's options cannot serve another folder: {other:?}"),
    }
    within(session.close()).await.unwrap();
    pool.shutdown().await;
}
