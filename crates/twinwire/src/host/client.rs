//! [`Client`]: the host's handle on one `claude` process, for many turns of its session; its
//! control requests are in `client/requests.rs`.

mod requests;

use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use serde_json::Value;
use tokio::sync::{watch, Mutex};
use twinwire_protocol::content::UserContent;
use twinwire_protocol::control::{
    ControlRequestBody, ControlRequestKind, InitializeRequest, InitializeResponse,
};
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::{Message, UserMessage};

use super::control::HostControl;
use super::launch::{self, Carrier, Started};
use super::progress::{self, accepts_cancel, end_cause, observe, Progress};
use super::spans::SessionSpans;
use super::transcripts::{restore_from_store, Mirror};
use super::usage::TurnUsage;
use super::warnings::{self, Warning};
use super::watch::SessionWatch;
use crate::engine::{Connection, HostSide, Inbound};
use crate::mcp::McpRouter;
use crate::sessions::mirror::MirrorEvent;
use crate::trace;
use tracing::Instrument;

/// How long `close` waits for the transcript mirror's last batch.
const MIRROR_CLOSE_WAIT: Duration = Duration::from_secs(10);
/// How long each in-process server may take to answer its handshake for a manifest.
const MANIFEST_WAIT: Duration = Duration::from_secs(1);
use crate::error::{Error, Result};
use crate::host::options::{McpServer, Options};

/// The host's handle on one `claude` process, for the many turns of its session: what the host
/// sends and reads through (the mirror of the agent side's [`Peer`](crate::agent::Peer)).
/// Cheap to clone; every clone drives the same process. The process ends when [`Client::close`] is called, or at once when the
/// last clone is dropped.
///
/// ```no_run
/// # async fn demo() -> twinwire::Result<()> {
/// use twinwire::{Client, Options};
/// use futures::StreamExt;
///
/// let client = Client::connect(Options::default()).await?;
/// client.send("What is 2 + 2?").await?;
/// let mut turn = std::pin::pin!(client.receive_response());
/// while let Some(message) = turn.next().await {
///     println!("{}", message?.kind());
/// }
/// client.close().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    connection: Connection,
    process: Carrier,
    inbound: Arc<Mutex<Inbound<Message>>>,
    initialize: Option<InitializeResponse>,
    /// The `initialize` request as first sent, sent again by `reinitialize`.
    initialize_request: InitializeRequest,
    progress: Arc<watch::Sender<Progress>>,
    /// Results seen when the latest user message was sent: its turn ends at the next one.
    results_at_last_send: AtomicU64,
    /// The configuration directory a store-backed resume wrote the session into; removed with
    /// the client.
    _restored: Option<tempfile::TempDir>,
    /// The transcript mirror's task, awaited by `close` so its last batch is stored.
    mirror: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    options: Options,
    /// The session's spans: the session, its turns and tool uses.
    spans: Arc<SessionSpans>,
    /// What the reader saw of the session: usage per turn, agent and tool call.
    watch: Arc<SessionWatch>,
    /// The session's misconfigurations: the options', then what `system/init` showed.
    warnings: Arc<std::sync::Mutex<Vec<Warning>>>,
    /// The options' `SessionStart` and `SessionEnd` callbacks, which the host calls itself.
    lifecycle: super::lifecycle::Lifecycle,
    /// The record of the live session, for a re-attach after a crash: removed when the
    /// session closes or the client goes.
    record: Option<Arc<super::reattach::LiveRecord>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("pid", &self.inner.process.pid())
            .field("connection", &self.inner.connection)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// The record of the live session, when the options keep one.
    pub(crate) fn live_record(&self) -> Option<&Arc<super::reattach::LiveRecord>> {
        self.inner.record.as_ref()
    }

    /// Starts `claude` with `options` and initializes the session: the session restored from
    /// a transcript store if it resumes from one, the host's answers set up, the CLI started,
    /// the engine started with what it watches, and `initialize` answered.
    pub async fn connect(options: Options) -> Result<Self> {
        let mut options = options;
        let warnings = Arc::new(std::sync::Mutex::new(logged(warnings::check(&options))));
        let spans = Arc::new(SessionSpans::start(options.model.as_deref()));
        let session_watch = Arc::new(SessionWatch::with_decisions(
            Arc::clone(&spans),
            super::explaining::explainer(&options),
            options.on_permission_decision.clone(),
        ));
        let session = spans.session();
        let record = super::reattach::prepare(&mut options)?;
        let restored = restore_from_store(&mut options)
            .instrument(session.clone())
            .await
            .inspect_err(|err| spans.close(Some(trace::error_type(err))))?;
        let servers = InProcessServers::of(&options);
        let (control, hooks) = HostControl::new(
            super::reattach::recording(options.host(), record.as_ref()),
            options.permission_timeout,
            &options.hooks,
            servers.router.clone(),
            Arc::clone(&session_watch),
        );
        let control = control.with_parking(
            options.parking.clone(),
            options
                .session_id
                .clone()
                .or_else(|| options.resume.clone().filter(|_| !options.fork_session)),
            match &options.cwd {
                Some(cwd) => cwd.clone(),
                None => std::env::current_dir()?,
            },
            record.as_ref().map(Arc::downgrade),
        );
        let mut plan = options.launch_plan();
        // First, so that the options' own `TRACEPARENT`/`TRACESTATE`, which come later, win.
        plan.env.splice(0..0, trace::context_env(&session));
        let Started {
            carrier: process,
            reader: stdout,
            writer: stdin,
        } = launch::start(plan)
            .instrument(session.clone())
            .await
            .inspect_err(|err| spans.close(Some(trace::error_type(err))))?;
        if let (Some(record), Some(pid)) = (&record, process.pid()) {
            if let Err(err) = record.launched(pid) {
                process.kill();
                spans.close(Some("io"));
                return Err(err.into());
            }
        }
        // Runs only once the CLI's stdout has ended (an async block waits until polled).
        let output_ended = process.output_ended(options.shutdown);
        let (mirror, mirror_task, mirror_failures) = Mirror::start(&options);
        let progress = Arc::new(watch::channel(Progress::default()).0);
        let seen = progress.subscribe();
        let mut config = options.engine_config();
        // Off until system/init names a CLI that accepts `control_cancel_request`.
        config.withdraw_abandoned = false;
        let watchers = crate::engine::Watchers {
            observer: Some(watcher(
                &options,
                Arc::clone(&progress),
                mirror,
                &session_watch,
                &warnings,
                record.as_ref().map(Arc::downgrade),
            )),
            deferred: Some(session_watch.tap()),
            lines: None,
        };
        let control = Arc::new(control);
        let lifecycle = super::lifecycle::Lifecycle::new(Arc::clone(&control));
        let (connection, inbound) = Connection::start_watched::<HostSide, _, _>(
            stdout,
            stdin,
            control,
            config,
            Box::new(move |end| Box::pin(end_cause(output_ended, end, seen))),
            watchers,
        );
        let inbound = match mirror_failures {
            Some(failures) => inbound.with_side_channel(failures),
            None => inbound,
        };
        connection.trace_under(session.clone());
        let mut initialize_request = options.initialize_request(hooks, servers.names);
        if let (true, Some(router)) = (options.sdk_mcp_manifests, &servers.router) {
            let manifests = router.manifests(MANIFEST_WAIT).await;
            initialize_request.sdk_mcp_server_manifests =
                (!manifests.is_empty()).then_some(manifests);
        }
        let initialize = match initialize(&connection, &options, initialize_request.clone())
            .instrument(session)
            .await
        {
            Ok(initialize) => initialize,
            Err(err) => {
                process.kill();
                connection.end_trace();
                spans.close(Some(trace::error_type(&err)));
                return Err(err);
            }
        };
        Ok(Self {
            inner: Arc::new(Inner {
                connection,
                process,
                inbound: Arc::new(Mutex::new(inbound)),
                initialize,
                initialize_request,
                progress,
                results_at_last_send: AtomicU64::new(0),
                mirror: std::sync::Mutex::new(mirror_task),
                _restored: restored,
                options,
                spans,
                watch: session_watch,
                warnings,
                lifecycle,
                record,
            }),
        })
    }

    /// Sends a user turn.
    pub async fn send(&self, prompt: impl Into<UserContent>) -> Result<()> {
        self.send_message(UserMessage::new(prompt)).await
    }

    /// Sends a user message as given (priority, uuid, session id, …).
    pub async fn send_message(&self, mut message: UserMessage) -> Result<()> {
        if let Some(context) = self.inner.lifecycle.start(&self.inner.options).await {
            let content = std::mem::take(&mut message.message.content);
            message.message.content = super::lifecycle::with_context(content, &context);
        }
        if self.inner.options.verbatim_prompts() {
            // The CLI then takes the prompt as written (no slash-command expansion).
            message
                .extra
                .insert("client_composed".to_owned(), Value::Bool(true));
        }
        let results = self.inner.progress.borrow().results;
        self.inner
            .results_at_last_send
            .store(results, Ordering::SeqCst);
        self.inner.progress.send_if_modified(|p| {
            p.turn_sent = true;
            !std::mem::replace(&mut p.awaiting_result, true)
        });
        self.inner.spans.turn_sent();
        let connection = &self.inner.connection;
        match connection.send(&twinwire_protocol::InputMessage::User(Box::new(message))) {
            Ok(()) => Ok(()),
            // The CLI is gone: say why (its exit status and stderr), not only that it is.
            Err(_) => Err(connection
                .send_failure_cause(self.inner.options.request_timeout)
                .await),
        }
    }

    /// The next message from the CLI, or `None` once its output has ended. Recoverable
    /// errors (a frame that did not decode) come as `Some(Err(_))` and reading can go on.
    pub async fn receive(&self) -> Option<Result<Message>> {
        self.inner.inbound.lock().await.recv().await
    }

    /// Every message from now on until the CLI's output ends, for a reader that keeps them
    /// all to itself (a [`query`]'s stream): one lock for the whole session instead of one per
    /// message. The stream owns the client: dropping it ends the CLI at once.
    ///
    /// [`query`]: crate::query
    pub fn into_messages(self) -> Messages {
        let inbound = Arc::clone(&self.inner.inbound);
        Messages {
            _client: self,
            state: MessagesState::Locking(Box::pin(inbound.lock_owned())),
        }
    }

    /// The messages of the current turn, up to and including its `result`. With
    /// [`usage_limits`](crate::options::OptionsBuilder::usage_limits), a result that reports a
    /// reached limit is followed by the wait and the messages of the continued turn.
    pub fn receive_response(&self) -> impl Stream<Item = Result<Message>> + '_ {
        super::limits::turn_stream(self, self.inner.options.usage_limits.as_ref())
    }

    /// Every message until the CLI's output ends.
    pub fn receive_all(&self) -> impl Stream<Item = Result<Message>> + '_ {
        futures::stream::unfold((), move |()| async move {
            self.receive().await.map(|item| (item, ()))
        })
    }

    /// The CLI's answer to `initialize`: commands, agents, models, account, version, …
    pub fn initialize_response(&self) -> Option<&InitializeResponse> {
        self.inner.initialize.as_ref()
    }

    /// The CLI's exit status, once it has exited (`None` while it runs). Through a launcher,
    /// the status of the local program that carries it.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.inner.process.exit_status()
    }

    /// What the turn that `result` ended used, per agent (the main thread, each subagent) and
    /// per tool call, with the shares of its cost (see [`TurnUsage`]); `None` for a result
    /// this session did not end (or one of more than the last 256 turns).
    pub fn turn_usage(&self, result: &ResultMessage) -> Option<TurnUsage> {
        self.inner.watch.turn_usage(&result.uuid)
    }

    /// The permission decision of each tool call so far (up to the last 1,024), oldest first:
    /// whether it ran and who decided (a rule and its source, the mode, a hook, the host's
    /// callback, the CLI's settings), and why the CLI asked when it asked (see
    /// [`PermissionDecision`](super::decisions::PermissionDecision)). Each is known once the
    /// tool's result is in (a failed call the CLI did not report: at the turn's result).
    pub fn permission_decisions(&self) -> Vec<super::decisions::PermissionDecision> {
        self.inner.watch.decisions()
    }

    /// The session's misconfigurations (see [`Warning`]): what the options and the settings
    /// files showed before it started, then what the CLI's first `system/init` showed (MCP
    /// servers it did not load, rules naming tools it does not have). Each was also logged
    /// (target `twinwire::warnings`).
    pub fn warnings(&self) -> Vec<Warning> {
        crate::engine::lock(&self.inner.warnings).clone()
    }

    /// The usage of the session's last turns (up to 256), oldest first.
    pub fn usage_by_turn(&self) -> Vec<TurnUsage> {
        self.inner.watch.turns()
    }

    /// The process id of the CLI.
    pub fn pid(&self) -> Option<u32> {
        self.inner.process.pid()
    }

    /// The underlying connection, for raw frames and requests.
    pub fn connection(&self) -> &Connection {
        &self.inner.connection
    }

    /// Sends any typed control request and waits for its typed answer.
    pub async fn request<K: ControlRequestKind>(&self, request: K) -> Result<K::Response> {
        self.inner.connection.request(request).await
    }

    /// Sends any control request, typed or not, and waits for the raw answer.
    pub async fn request_raw(&self, request: ControlRequestBody) -> Result<Option<Value>> {
        let timeout = self.inner.options.request_timeout;
        self.inner.connection.request_body(request, timeout).await
    }

    /// Whether a turn is running: a user message was sent and the CLI has not yet written the
    /// `result` that ends it (as read by the reader, before the user takes it).
    pub fn is_turn_running(&self) -> bool {
        self.inner.progress.borrow().awaiting_result
    }

    /// Closes stdin once the session no longer needs it: after the result of the latest turn
    /// sent (even if that result has already arrived) and, when callbacks may still be called
    /// (background tasks), once the CLI reports it is idle or after the configured ceiling.
    pub async fn end_input_when_idle(&self) {
        let baseline = self.inner.results_at_last_send.load(Ordering::SeqCst);
        self.end_input_after(baseline).await;
    }

    /// Closes stdin once more than `baseline` results were seen (see
    /// [`Client::end_input_when_idle`]).
    async fn end_input_after(&self, baseline: u64) {
        let options = &self.inner.options;
        let progress = self.inner.progress.subscribe();
        progress::input_done(
            progress,
            baseline,
            options.has_callbacks(),
            options.stdin_idle_ceiling,
        )
        .await;
        self.end_input().await;
    }

    /// Ends the input, after the options' `SessionEnd` callbacks (once).
    async fn end_input(&self) {
        self.inner
            .lifecycle
            .end(&self.inner.options, &self.inner.watch)
            .await;
        self.inner.connection.close_input();
    }

    /// Ends the session gracefully: closes stdin, waits for the CLI to exit, then SIGTERM,
    /// then SIGKILL. Returns its exit status.
    pub async fn close(&self) -> Result<Option<ExitStatus>> {
        self.end_input().await;
        let status = self
            .inner
            .process
            .shutdown(self.inner.options.shutdown)
            .await;
        // The output has ended, so the mirror has all there is: wait (bounded) for its last
        // batch to reach the store.
        let mirror = self
            .inner
            .mirror
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(task) = mirror {
            if tokio::time::timeout(MIRROR_CLOSE_WAIT, task).await.is_err() {
                tracing::warn!("the transcript store took too long: its last batch may be lost");
            }
        }
        // A clean end: nothing is left to re-attach.
        if let Some(record) = &self.inner.record {
            record.remove();
        }
        // The session's span ends here, not when the last clone of the client goes.
        self.inner.connection.end_trace();
        self.inner.spans.close(None);
        Ok(status)
    }

    /// Waits up to `limit` for the CLI to exit on its own.
    pub async fn wait(&self, limit: Duration) -> Option<ExitStatus> {
        self.inner.process.wait_for_exit(limit).await
    }

    /// Sends the `initialize` request again, as first sent (the same hooks and callback ids),
    /// and returns the CLI's fresh answer with the requests it is still waiting on (after a
    /// gap in the transport, the permission requests and dialogs to answer again).
    /// [`Client::initialize_response`] keeps the first answer.
    pub async fn reinitialize(&self) -> Result<Reinitialized> {
        let timeout = self.inner.options.initialize_timeout;
        let request = ControlRequestBody::from(self.inner.initialize_request.clone());
        let success = self
            .inner
            .connection
            .request_success(request, timeout)
            .await?;
        // Read leniently, as every typed answer is (see `Connection::request_with_timeout`).
        let payload = success
            .response
            .unwrap_or_else(|| Value::Object(Default::default()));
        let response = twinwire_protocol::from_value::<InitializeResponse>(payload)
            .map_err(|source| Error::Decode { line: 0, source })?
            .value;
        Ok(Reinitialized {
            response,
            pending_permission_requests: success.pending_permission_requests.unwrap_or_default(),
            pending_user_dialog_requests: success.pending_user_dialog_requests.unwrap_or_default(),
            pending_elicitation_requests: success.pending_elicitation_requests.unwrap_or_default(),
        })
    }
}

/// The answer to [`Client::reinitialize`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reinitialized {
    /// The CLI's answer to `initialize`: commands, agents, models, account, version, ….
    pub response: InitializeResponse,
    /// The `can_use_tool` requests the CLI has sent and not yet seen answered.
    pub pending_permission_requests: Vec<twinwire_protocol::control::ControlRequest>,
    /// The `request_user_dialog` requests not yet answered.
    pub pending_user_dialog_requests: Vec<twinwire_protocol::control::ControlRequest>,
    /// The `elicitation` requests not yet answered.
    pub pending_elicitation_requests: Vec<twinwire_protocol::control::ControlRequest>,
}

/// A session's messages until the CLI's output ends ([`Client::into_messages`]).
pub struct Messages {
    _client: Client,
    state: MessagesState,
}

enum MessagesState {
    Locking(futures::future::BoxFuture<'static, tokio::sync::OwnedMutexGuard<Inbound<Message>>>),
    Reading(tokio::sync::OwnedMutexGuard<Inbound<Message>>),
}

impl Messages {
    /// What the turn that `result` ended used, per agent and tool call (see
    /// [`Client::turn_usage`]).
    pub fn turn_usage(&self, result: &ResultMessage) -> Option<TurnUsage> {
        self._client.turn_usage(result)
    }
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Messages")
    }
}

impl Stream for Messages {
    type Item = Result<Message>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        loop {
            match &mut self.state {
                MessagesState::Locking(locking) => {
                    let inbound = std::task::ready!(locking.as_mut().poll(cx));
                    self.state = MessagesState::Reading(inbound);
                }
                MessagesState::Reading(inbound) => {
                    return std::pin::Pin::new(&mut **inbound).poll_next(cx)
                }
            }
        }
    }
}

/// The options' in-process MCP servers: their router (`mcp_message` requests) and names (for
/// `initialize`).
struct InProcessServers {
    router: Option<Arc<McpRouter>>,
    names: Vec<String>,
}

impl InProcessServers {
    fn of(options: &Options) -> Self {
        let servers: Vec<_> = options
            .mcp_servers
            .values()
            .filter_map(|server| match server {
                McpServer::InProcess(server) => Some(server.clone()),
                _ => None,
            })
            .collect();
        let router = (!servers.is_empty()).then(|| Arc::new(McpRouter::new(servers)));
        let names = router.as_ref().map(|r| r.names()).unwrap_or_default();
        Self { router, names }
    }
}

/// What the reader watches in the CLI's output before the user reads it: whether the CLI
/// accepts `control_cancel_request` (and whether it is older than the options accept), the
/// session's progress, what the session's watch keeps track of (spans, usage), and the frames
/// the transcript mirror stores.
fn watcher(
    options: &Options,
    progress: Arc<watch::Sender<Progress>>,
    mirror: Option<tokio::sync::mpsc::UnboundedSender<MirrorEvent>>,
    session: &Arc<SessionWatch>,
    warnings: &Arc<std::sync::Mutex<Vec<Warning>>>,
    record: Option<std::sync::Weak<super::reattach::LiveRecord>>,
) -> crate::engine::Observer<Message> {
    let session = Arc::clone(session);
    let warnings = Arc::clone(warnings);
    let checked_init = std::sync::atomic::AtomicBool::new(false);
    let for_init = options.clone();
    let minimum = options.minimum_cli_version.clone();
    let warned = std::sync::atomic::AtomicBool::new(false);
    Box::new(
        move |owned: Message, settings: &crate::engine::Settings<'_>| {
            let message = &owned;
            if let Some(accepts) = accepts_cancel(message) {
                settings.withdraw_abandoned(accepts);
                // Every turn begins with `system/init`: one warning is enough.
                if let Some(minimum) = minimum
                    .as_ref()
                    .filter(|_| !warned.swap(true, Ordering::Relaxed))
                {
                    progress::warn_if_old(message, minimum);
                }
            }
            observe(&progress, message);
            session.observe(message);
            if let Message::System(system) = message {
                if let twinwire_protocol::system::SystemMessage::Init(init) = &**system {
                    if !checked_init.swap(true, Ordering::Relaxed) {
                        let found = logged(warnings::at_init(&for_init, init));
                        crate::engine::lock(&warnings).extend(found);
                    }
                    if let Some(record) = record.as_ref().and_then(std::sync::Weak::upgrade) {
                        record.session_seen(&init.session_id);
                    }
                }
            }
            if let Some(mirror) = &mirror {
                match message {
                    Message::TranscriptMirror(frame) => {
                        let _ = mirror.send(MirrorEvent::Entries {
                            file_path: frame.file_path.clone(),
                            entries: frame.entries.clone(),
                        });
                    }
                    _ if message.result_is_error().is_some() => {
                        let _ = mirror.send(MirrorEvent::Flush);
                    }
                    _ => {}
                }
            }
            Some(owned)
        },
    )
}

/// Logs each warning once, and keeps them.
fn logged(found: Vec<Warning>) -> Vec<Warning> {
    for warning in &found {
        tracing::warn!(target: "twinwire::warnings", %warning, "misconfiguration");
    }
    found
}

/// Sends `initialize` and checks the CLI's version against the options' minimum. An answer
/// that cannot be read is still an answer: the session works without it.
async fn initialize(
    connection: &Connection,
    options: &Options,
    request: InitializeRequest,
) -> Result<Option<InitializeResponse>> {
    let initialize = match connection
        .request_with_timeout(request, options.initialize_timeout)
        .await
    {
        Ok(response) => Some(response),
        Err(Error::Decode { source, .. }) => {
            tracing::warn!(%source, "could not read the answer to `initialize`; going on");
            None
        }
        Err(err) => return Err(progress::during_initialize(err)),
    };
    let reported = initialize
        .as_ref()
        .and_then(|i| i.claude_code_version.clone());
    if let (Some(found), Some(minimum)) = (reported, &options.minimum_cli_version) {
        if progress::older_than(&found, minimum) {
            return Err(Error::CliTooOld {
                found,
                minimum: minimum.clone(),
            });
        }
    }
    Ok(initialize)
}
