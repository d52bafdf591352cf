//! The spans as a subscriber sees them: a layer that records each span's name, parent, fields
//! and whether it closed; the agent side's session and control spans over in-memory pipes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;
use twinwire_protocol::control::{GetSettingsRequest, InterruptRequest};

use crate::agent::{agent, serve, Peer, Turn};
use crate::engine::{Connection, EngineConfig, HostSide, NoHandler};
use crate::error::Error;

/// One span as recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorded {
    pub(crate) name: &'static str,
    /// The recorded id of the parent span.
    pub(crate) parent: Option<u64>,
    pub(crate) fields: BTreeMap<String, String>,
    pub(crate) closed: bool,
}

impl Recorded {
    pub(crate) fn field(&self, key: &str) -> &str {
        self.fields.get(key).map_or("", String::as_str)
    }
}

/// Records every span of the thread it is the default subscriber of.
#[derive(Clone, Default)]
pub(crate) struct Recorder {
    spans: Arc<Mutex<BTreeMap<u64, Recorded>>>,
}

impl Recorder {
    /// Installs the recorder as this thread's subscriber until the guard drops.
    pub(crate) fn install(&self) -> tracing::subscriber::DefaultGuard {
        tracing::subscriber::set_default(tracing_subscriber::registry().with(self.clone()))
    }

    /// Every span so far, by id.
    pub(crate) fn spans(&self) -> BTreeMap<u64, Recorded> {
        self.spans.lock().unwrap().clone()
    }

    /// The spans named `name`, with their ids.
    pub(crate) fn named(&self, name: &str) -> Vec<(u64, Recorded)> {
        self.spans()
            .into_iter()
            .filter(|(_, span)| span.name == name)
            .collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S> Layer<S> for Recorder
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent = ctx
            .span(id)
            .and_then(|span| span.parent())
            .map(|parent| parent.id().into_u64());
        let mut span = Recorded {
            name: attrs.metadata().name(),
            parent,
            ..Recorded::default()
        };
        attrs.record(&mut Fields(&mut span.fields));
        self.spans.lock().unwrap().insert(id.into_u64(), span);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(span) = self.spans.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_close(&self, id: Id, _ctx: Context<'_, S>) {
        if let Some(span) = self.spans.lock().unwrap().get_mut(&id.into_u64()) {
            span.closed = true;
        }
    }
}

#[tokio::test]
async fn the_agent_side_spans_its_session_and_each_control_round_trip() {
    let recorder = Recorder::default();
    let _guard = recorder.install();
    let (agent_reader, host_writer) = tokio::io::duplex(1 << 16);
    let (host_reader, agent_writer) = tokio::io::duplex(1 << 16);
    let echo = agent(|turn: Turn, session: Peer| async move {
        session.success(&format!("echo: {}", turn.text()))
    });
    let served = tokio::spawn(serve(
        agent_reader,
        agent_writer,
        echo,
        EngineConfig::default(),
    ));
    let (host, _inbound) = Connection::start::<HostSide, _, _>(
        host_reader,
        host_writer,
        std::sync::Arc::new(NoHandler),
        EngineConfig::default(),
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    let root = tracing::info_span!("host_root");
    let _entered = root.enter();
    host.request(InterruptRequest::default()).await.unwrap();
    let refused = host.request(GetSettingsRequest::default()).await;
    assert!(refused.is_err(), "{refused:?}");
    host.close_input();
    tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .expect("the agent ends when its input does")
        .unwrap()
        .unwrap();

    let [(session_id, session)] = recorder.named("session").try_into().unwrap_or_else(|s| {
        panic!("one session span: {s:?}");
    });
    assert_eq!(session.field("twinwire.side"), "agent");
    assert_eq!(session.field("gen_ai.provider.name"), "anthropic");
    assert!(!session.field("gen_ai.conversation.id").is_empty());
    assert!(session.closed, "the session's span ends with serving");
    let (root_id, _) = recorder.named("host_root")[0].clone();
    let controls = recorder.named("control");
    let control = |direction: &str, subtype: &str| {
        let found: Vec<&Recorded> = controls
            .iter()
            .map(|(_, span)| span)
            .filter(|span| span.field("twinwire.control.direction") == direction)
            .filter(|span| span.field("twinwire.control.subtype") == subtype)
            .collect();
        assert_eq!(found.len(), 1, "{direction} {subtype}: {controls:?}");
        found[0].clone()
    };
    // The agent's side of each round trip is under its session; the host's, which has no
    // session here, under the caller's span.
    let served_interrupt = control("incoming", "interrupt");
    assert_eq!(served_interrupt.parent, Some(session_id));
    assert_eq!(served_interrupt.field("error.type"), "");
    assert_eq!(
        served_interrupt.field("twinwire.control.request_id"),
        "req_1"
    );
    let sent_interrupt = control("outgoing", "interrupt");
    assert_eq!(sent_interrupt.parent, Some(root_id));
    assert_eq!(sent_interrupt.field("twinwire.control.request_id"), "req_1");
    // A refused request says why on both ends.
    let served_settings = control("incoming", "get_settings");
    assert_eq!(served_settings.field("error.type"), "unsupported_request");
    assert_eq!(
        control("outgoing", "get_settings").field("error.type"),
        "control_error"
    );
    assert!(controls.iter().all(|(_, span)| span.closed));
}
