//! The session's transcript store: the mirror task that appends the CLI's `transcript_mirror`
//! frames to it, and the restore that writes a stored session where the CLI resumes it.

use std::sync::Arc;

use twinwire_protocol::Message;

mod remote;

use super::launch;
use super::options::Options;
use crate::redact::Redactor;
use crate::sessions::mirror::{self, MirrorEvent};
use crate::sessions::restore;
use crate::sessions::stores::{RedactingStore, StoreRedaction, TranscriptStore};
use crate::Result;

/// The transcript mirror: a task that batches the CLI's `transcript_mirror` frames into the
/// options' store; it ends (after a last flush) when the reader drops its sender. A batch it
/// has to drop comes into the session's stream as a `system/mirror_error` message.
pub(super) struct Mirror;

pub(super) type MirrorStarted = (
    Option<tokio::sync::mpsc::UnboundedSender<MirrorEvent>>,
    Option<tokio::task::JoinHandle<()>>,
    Option<tokio::sync::mpsc::UnboundedReceiver<Message>>,
);

impl Mirror {
    pub(super) fn start(options: &Options) -> MirrorStarted {
        let Some(store) = &options.transcript_store else {
            return (None, None, None);
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (failures_tx, failures_rx) = tokio::sync::mpsc::unbounded_channel();
        let projects = options.cli_projects_dir();
        let config = mirror::MirrorConfig {
            flush: options.transcript_store_flush,
            ..mirror::MirrorConfig::default()
        };
        let on_failure: mirror::OnFailure = Box::new(move |failure| {
            let _ = failures_tx.send(mirror_error(failure));
        });
        let redaction = options
            .transcript_redaction
            .clone()
            .unwrap_or_else(|| StoreRedaction::with(session_redactor(options)));
        let store: Arc<dyn TranscriptStore> = if redaction.is_on() {
            Arc::new(RedactingStore::with(Arc::clone(store), redaction))
        } else {
            Arc::clone(store)
        };
        let task = tokio::spawn(mirror::run(store, projects, rx, config, on_failure));
        (Some(tx), Some(task), Some(failures_rx))
    }
}

/// A redactor that knows the secrets of the session's environment: the host's variables and
/// the options' (a value the options remove is still looked for: it may have reached the CLI
/// another way).
fn session_redactor(options: &Options) -> Redactor {
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    env.extend(options.env.iter().filter_map(|(name, value)| {
        Some((
            name.to_str()?.to_owned(),
            value.as_ref()?.to_str()?.to_owned(),
        ))
    }));
    Redactor::from_env(env.iter().map(|(n, v)| (n.as_str(), v.as_str())))
}

/// The `system/mirror_error` message the official SDKs deliver for a dropped batch.
fn mirror_error(failure: mirror::MirrorFailure) -> Message {
    use twinwire_protocol::system::{MirrorError, MirrorKey, SystemMessage};
    let key = failure.key;
    Message::System(Box::new(SystemMessage::MirrorError(MirrorError {
        error: failure.error,
        session_id: key.session_id.clone(),
        key: MirrorKey {
            project_key: key.project_key,
            session_id: key.session_id,
            subpath: key.subpath,
            extra: Default::default(),
        },
        uuid: uuid::Uuid::new_v4().to_string(),
        extra: Default::default(),
    })))
}

/// With a transcript store and `resume` (or `continue`: the store's newest session, then
/// resumed by its id), writes the stored session into a temporary configuration directory for
/// the CLI (see [`crate::sessions::restore`]). Through a prefix launcher, that directory is
/// sent to the far side and unpacked there ([`remote`]); through a custom launcher, whose far
/// side has no known way in, the CLI resumes from its own files.
pub(super) async fn restore_from_store(options: &mut Options) -> Result<Option<tempfile::TempDir>> {
    let Some(store) = options.transcript_store.clone() else {
        return Ok(None);
    };
    if options.resume.is_none() && !options.continue_conversation {
        return Ok(None);
    }
    let prefix = match &options.launcher {
        launch::Launcher::Local => None,
        launch::Launcher::Prefix(prefix) => Some(prefix.clone()),
        launch::Launcher::Custom(_) => {
            tracing::warn!(
                "a store-backed resume through a custom launcher: resuming from the CLI's \
                 own files"
            );
            return Ok(None);
        }
    };
    let cwd = match &options.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir()?,
    };
    let projects = options.cli_projects_dir();
    // The far side copies its own credentials and settings: none of this machine's go there.
    let config_dir = match prefix {
        Some(_) => None,
        None => Some(projects.parent().unwrap_or(&projects).to_owned()),
    };
    let config_dir = config_dir.as_deref();
    let timeout = options.transcript_store_load_timeout;
    let restored = match options.resume.clone() {
        Some(session) => {
            restore::restore(store.as_ref(), &session, &cwd, config_dir, timeout).await
        }
        None => restore::restore_newest(store.as_ref(), &cwd, config_dir, timeout)
            .await
            .map(|found| {
                found.map(|(session, dir)| {
                    // `--continue` is resolved: the CLI resumes that session by its id.
                    options.resume = Some(session);
                    options.continue_conversation = false;
                    dir
                })
            }),
    }
    .map_err(std::io::Error::other)?;
    let Some(dir) = restored else {
        return Ok(None);
    };
    let Some(prefix) = prefix else {
        options
            .env
            .push(("CLAUDE_CONFIG_DIR".into(), Some(dir.path().into())));
        return Ok(Some(dir));
    };
    let far_config = options
        .env
        .iter()
        .rev()
        .find(|(name, _)| name == "CLAUDE_CONFIG_DIR")
        .and_then(|(_, value)| value.as_ref()?.to_str().map(str::to_owned));
    let far = remote::send(&prefix, dir.path(), far_config.as_deref(), timeout).await?;
    options
        .env
        .push(("CLAUDE_CONFIG_DIR".into(), Some(far.clone().into())));
    options
        .env
        .push((remote::RESTORED_DIR_ENV.into(), Some(far.into())));
    Ok(None)
}
