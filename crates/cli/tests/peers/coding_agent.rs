//! Mode (e), `coding_agent`: the official SDKs drive `twinwire-agent` (the crate
//! `crates/agent`), a coding agent of its own behind Claude Code's protocol, in place of the
//! CLI, through the same scenario programs and against the same scripted model as mode (a).
//! The SDK's checks must pass and the tools must have had their real effects (what
//! [`Scenario::effects`] checks of the real CLI).

use twinwire_model_server::ModelServer;

use crate::common::twinwire_agent;
use crate::scenarios::Scenario;
use crate::world::{tail, World};
use crate::{report, Sdk};

/// Mode (e): see the module docs.
pub fn check(sdk: &str, scenario: &str) {
    let (sdk, scenario) = (Sdk::from_name(sdk), Scenario::from_name(scenario));
    let world = World::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime
        .block_on(ModelServer::start(scenario.model_script()))
        .expect("the model server starts");
    let mut env = world.env(twinwire_agent());
    env.push(("ANTHROPIC_BASE_URL".into(), server.url().into()));
    let run = world.run_sdk(sdk, scenario.name(), &env);
    let verdict = run
        .passed()
        .and_then(|()| scenario.effects(&world.path("work"), &server.message_requests()))
        .map_err(|why| format!("{why}\n--- sdk stderr (tail)\n{}", tail(&run.stderr, 4000)));
    report(
        sdk,
        scenario.name(),
        "coding_agent",
        &verdict,
        run.seconds,
        run.checks(),
    );
    runtime.block_on(server.shutdown());
    if let Err(why) = verdict {
        panic!(
            "{} {} against twinwire-agent: {why}",
            sdk.name(),
            scenario.name()
        );
    }
}
