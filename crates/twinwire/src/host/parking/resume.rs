//! Resuming a session that stopped while a request of it was parked.

use super::pending::{Asked, PendingRequest};
use crate::error::{Error, Result};
use crate::host::reattach::{AttachRecord, ReattachReport};
use crate::host::Client;
use crate::options::Options;

/// A session resumed after it stopped with requests parked: its client, and those requests.
#[derive(Debug)]
#[non_exhaustive]
pub struct ResumedParked {
    /// The session, resumed in a new CLI.
    pub client: Client,
    /// Its parked requests that were answered. When the model asks for one of these calls
    /// again, the stored answer is given without asking anyone.
    pub answered: Vec<PendingRequest>,
    /// Its parked requests still waiting.
    pub waiting: Vec<PendingRequest>,
    /// When the host that parked them died with the session live (its record left in the
    /// options' `attach_records`): what re-attaching found and fenced.
    pub reattached: Option<ReattachReport>,
}

impl ResumedParked {
    /// What to tell the model of the answered requests, as the next prompt (the resumed
    /// session does not know them: its tool calls ended unanswered); `None` when none was.
    pub fn message(&self) -> Option<String> {
        let lines: Vec<String> = self
            .answered
            .iter()
            .filter_map(|request| {
                let Asked::Permission {
                    tool_name, input, ..
                } = &request.asked
                else {
                    return None;
                };
                let verdict = match request.permission_answer()? {
                    twinwire_protocol::permission::PermissionResult::Allow(_) => {
                        "was approved: run it again".to_owned()
                    }
                    twinwire_protocol::permission::PermissionResult::Deny(deny) => {
                        format!("was denied ({})", deny.message)
                    }
                    _ => return None,
                };
                Some(format!("- {tool_name} {input} {verdict}"))
            })
            .collect();
        (!lines.is_empty()).then(|| {
            format!(
                "While this session was stopped, the calls waiting for approval were answered:\n{}",
                lines.join("\n")
            )
        })
    }
}

impl Client {
    /// Resumes `session_id` after it stopped with requests parked in the options'
    /// [`parking`](crate::options::OptionsBuilder::parking) store, in the working directory
    /// they were parked in unless the options set one. When the options keep
    /// [`attach_records`](crate::options::OptionsBuilder::attach_records) and the session's
    /// record is there (its host died), this re-attaches it ([`Client::reattach`]: the old CLI
    /// fenced first); else it resumes it (`--resume`).
    ///
    /// Send [`ResumedParked::message`] next: when the model asks for an answered call again,
    /// the answer in the store is given, once.
    pub async fn resume_parked(options: Options, session_id: &str) -> Result<ResumedParked> {
        let failed = |why: String| Error::Reattach {
            session_id: session_id.to_owned(),
            why,
        };
        let Some(parking) = options.parking.clone() else {
            return Err(Error::InvalidOptions(
                "resume_parked needs the options' `parking` store".into(),
            ));
        };
        let parked: Vec<PendingRequest> = parking
            .store()
            .list()
            .await
            .map_err(|err| failed(format!("the pending store failed: {err}")))?
            .into_iter()
            .filter(|r| r.session_id.as_deref() == Some(session_id))
            .collect();
        let mut options = options;
        if options.cwd.is_none() {
            options.cwd = parked.first().map(|r| r.cwd.clone());
        }
        let record = match &options.attach_records {
            Some(dir) => {
                AttachRecord::read(dir, session_id).map_err(|err| failed(err.to_string()))?
            }
            None => None,
        };
        let (client, reattached) = if record.is_some() {
            let reattached = Client::reattach(options, session_id).await?;
            (reattached.client, Some(reattached.report))
        } else {
            options.resume = Some(session_id.to_owned());
            options.session_id = None;
            options.continue_conversation = false;
            options.fork_session = false;
            (Client::connect(options).await?, None)
        };
        let (answered, waiting) = parked.into_iter().partition(PendingRequest::is_answered);
        Ok(ResumedParked {
            client,
            answered,
            waiting,
            reattached,
        })
    }
}
