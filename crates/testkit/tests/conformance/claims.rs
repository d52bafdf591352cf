//! Parked spares claimed with per-session options (`--await-claim`, `claim_session`), and the
//! cold start that serves a claim a spare cannot: on the pinned CLI the claim binds a parked
//! spare; on a CLI without `--await-claim` every claim starts cold with its options.

use std::path::Path;
use std::time::Duration;

use ccwire::host::pool::{Claim, Pool, PoolConfig, Start};
use ccwire::protocol::control::AgentDefinition;
use ccwire::protocol::permission::PermissionMode;
use serde_json::json;

use crate::{cli_version, inits, kinds, script, the_result, turn, within, Scenario, PINNED_VERSION};

/// Whether the CLI under test parks spares.
fn parks() -> bool {
    cli_version() == PINNED_VERSION
}

/// A pool of parked spares whose CLIs wait in `park` (never a session's folder).
fn parked_pool(s: &Scenario, park: &Path) -> Pool {
    std::fs::create_dir_all(park).unwrap();
    let options = s.builder().cwd(park).build().unwrap();
    Pool::new(options, PoolConfig::default().max_live(2).spares(1).parked(true))
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
    assert!(
        request["tools"].to_string().contains("reviewer-7f3a"),
        "the claimed agent is not offered to the model"
    );
    let settings = within(session.client().get_settings()).await.unwrap();
    assert_eq!(settings.effective.unwrap()["effortLevel"], "high");
    if parks() {
        // The parked process itself serves the session, bound to its folder.
        assert_eq!(session.client().pid(), Some(spare_pid));
        let claimed = session.claimed().expect("claimed");
        assert!(claimed.not_applied.is_empty(), "{claimed:?}");
        assert!(claimed.parked.is_some());
        let agents = claimed.initialize.as_ref().expect("initialize").agents.clone();
        assert!(
            agents
                .unwrap_or_default()
                .iter()
                .any(|agent| agent.name == "reviewer-7f3a"),
            "the claimed session's agents are not in the claim's answer"
        );
        assert_eq!(pool.metrics().claimed, 1);
        assert_eq!(pool.metrics().refused, 0);
    } else {
        let Start::Cold { reason } = session.start() else {
            panic!("a CLI without --await-claim cannot be claimed: {:?}", session.start());
        };
        assert!(reason.contains("--await-claim"), "{reason}");
        assert_ne!(session.client().pid(), Some(spare_pid));
    }
    // The session's transcript is the claimed folder's, under the session id of the init.
    let transcript = project_dir(&s, &s.work()).join(format!("{}.jsonl", init.session_id));
    within(session.close()).await.unwrap();
    assert!(transcript.is_file(), "no transcript at {}", transcript.display());
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
        r#"{"model": "claude-opus-4-1"}"#,
    )
    .unwrap();
    let pool = parked_pool(&s, &s.home().join("park"));
    wait_for_a_spare(&pool, &s).await;
    let session = within(pool.claim(Claim::new(&folder))).await.unwrap();
    let Start::Cold { reason } = session.start() else {
        panic!("a refused claim must start cold: {:?}", session.start());
    };
    if parks() {
        assert!(
            reason.starts_with("project_settings_not_claimable"),
            "{reason}"
        );
        assert_eq!(pool.metrics().refused, 1);
    }
    let items = turn(session.client(), "hello in the pinned folder").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let init = inits(&items)[0];
    assert_eq!(
        Path::new(&init.cwd).canonicalize().unwrap(),
        folder.canonicalize().unwrap()
    );
    assert_eq!(init.model, "claude-opus-4-1");
    within(session.close()).await.unwrap();
    pool.shutdown().await;
}

#[tokio::test]
async fn a_plain_session_from_a_parked_pool_runs_in_the_pools_folder() {
    let s = Scenario::start(script(json!([]), json!({"echo": true}))).await;
    let options = s.builder().build().unwrap();
    let pool = Pool::new(
        options,
        PoolConfig::default().max_live(2).spares(1).parked(true),
    );
    wait_for_a_spare(&pool, &s).await;
    let session = within(pool.session()).await.unwrap();
    assert!(session.prewarmed() || !parks(), "{:?}", session.start());
    let items = turn(session.client(), "hello plainly").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    assert_eq!(
        Path::new(&inits(&items)[0].cwd).canonicalize().unwrap(),
        s.work().canonicalize().unwrap()
    );
    within(session.close()).await.unwrap();
    pool.shutdown().await;
}
