//! A fleet's placement around a host that cannot start sessions, against `fake-claude` (the
//! loss of a host mid-turn, over real SSH, is `tests/fleet.rs`).

use std::sync::Arc;

use twinwire::host::fleet::{Fleet, FleetEvent, FleetHost};
use twinwire::host::launch::Launcher;
use twinwire::sessions::stores::InMemoryTranscriptStore;

use super::*;

/// The first host's launcher fails at once: the session goes to the second, the first is
/// probed, found down and announced, and the next session does not try it.
#[tokio::test]
async fn a_host_that_cannot_start_a_session_is_taken_down_and_the_next_one_used() {
    let fake = Fake::new(serde_json::json!({"turns": [{"steps": [{"text": "hello"}]},
                                                       {"steps": [{"text": "again"}]}]}));
    let options = fake
        .builder()
        .transcript_store(Arc::new(InMemoryTranscriptStore::new()))
        .build()
        .unwrap();
    let fleet = Fleet::builder(options)
        .host(FleetHost::new("broken", Launcher::via("false").unwrap()))
        .host(FleetHost::new("local", Launcher::Local))
        .health_every(Duration::from_secs(3600))
        .build()
        .unwrap();
    let mut events = fleet.subscribe();
    let mut first = fleet.session("acme").await.unwrap();
    assert_eq!(first.host(), "local");
    let turn = first.turn("hi").await.unwrap();
    assert_eq!(
        turn.result().and_then(|r| r.result.as_deref()),
        Some("hello")
    );
    assert!(turn.moved.is_empty());
    let down = loop {
        match events.recv().await.unwrap() {
            FleetEvent::HostDown { host, reason } => break (host, reason),
            _ => continue,
        }
    };
    assert_eq!(down.0, "broken", "{down:?}");
    let hosts = fleet.hosts();
    assert!(!hosts[0].healthy && hosts[1].healthy, "{hosts:?}");
    assert_eq!((hosts[0].sessions, hosts[1].sessions), (0, 1));
    first.close().await.unwrap();
    assert_eq!(
        fleet.hosts()[1].sessions,
        0,
        "a closed session frees its place"
    );
}
