//! Asking again the permission requests a dead host left unanswered, and answering the model's
//! next request for the same call from that answer, so the user is asked once.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::CanUseToolRequest;
use twinwire_protocol::permission::PermissionResult;

use super::{PendingPermission, Reattached};
use crate::host::callbacks::PermissionRequest;

/// How long a request asked again may wait when the options set no `permission_timeout`.
const DEFAULT_WAIT: Duration = Duration::from_secs(600);
/// Answers kept for the model's next request; older ones are dropped first.
const MAX_GRANTS: usize = 64;

/// A permission request the dead host left unanswered, asked again, with its answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reasked {
    /// The request as the record kept it.
    pub permission: PendingPermission,
    /// The tool's input, from the transcript (`Value::Null` when the transcript lacks the
    /// tool use: such a request is denied without asking).
    pub input: Value,
    /// The answer: the session's `can_use_tool`, or a denial when asking failed, timed out or
    /// the input is not known. Never an allow because something failed.
    pub answer: PermissionResult,
}

impl Reasked {
    /// Whether the call may run.
    pub fn allowed(&self) -> bool {
        matches!(self.answer, PermissionResult::Allow(_))
    }
}

/// Answers given on a re-attach, each used once, for the model's next request of the same tool
/// with the same input.
#[derive(Debug, Default)]
pub(crate) struct Grants(Mutex<Vec<(String, Value, PermissionResult)>>);

impl Grants {
    fn give(&self, tool_name: &str, input: &Value, answer: PermissionResult) {
        let mut grants = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if grants.len() >= MAX_GRANTS {
            grants.remove(0);
        }
        grants.push((tool_name.to_owned(), input.clone(), answer));
    }

    /// The answer given for this call, taken (it answers one request).
    pub(crate) fn take(&self, tool_name: &str, input: &Value) -> Option<PermissionResult> {
        let mut grants = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = grants
            .iter()
            .position(|(tool, given, _)| tool == tool_name && given == input)?;
        Some(grants.remove(at).2)
    }
}

impl Reattached {
    /// Asks the session's `can_use_tool` again for each permission request the dead host left
    /// unanswered ([`ReattachReport::pending_permissions`](super::ReattachReport)), with the
    /// tool's input read from the transcript, and waits for the answers (up to the options'
    /// `permission_timeout`, else ten minutes; a request that fails or times out is denied).
    ///
    /// The tool did not run: the CLI asks before it runs a tool. Tell the model the answers
    /// (the resumed session does not know them); when it asks for the same call again, this
    /// answer is given without asking again, once.
    pub async fn reask(&self) -> Vec<Reasked> {
        let wait = self.permission_timeout.unwrap_or(DEFAULT_WAIT);
        let grants = self.client.live_record().map(|record| record.grants());
        let mut answers = Vec::new();
        for permission in &self.report.pending_permissions {
            let input = self
                .report
                .interrupted
                .iter()
                .find(|used| match &permission.tool_use_id {
                    Some(id) => &used.tool_use_id == id,
                    None => used.name == permission.tool_name,
                })
                .map(|used| used.input.clone());
            let answer = match &input {
                Some(input) => self.ask(permission, input, wait).await,
                None => PermissionResult::deny(
                    "the host stopped while this call waited, and its input is not in the transcript",
                ),
            };
            let input = input.unwrap_or(Value::Null);
            if let Some(grants) = grants {
                if !input.is_null() {
                    grants.give(&permission.tool_name, &input, answer.clone());
                }
            }
            answers.push(Reasked {
                permission: permission.clone(),
                input,
                answer,
            });
        }
        answers
    }

    async fn ask(
        &self,
        permission: &PendingPermission,
        input: &Value,
        wait: Duration,
    ) -> PermissionResult {
        let cancel = CancellationToken::new();
        let request = PermissionRequest {
            request: CanUseToolRequest {
                tool_name: permission.tool_name.clone(),
                input: input.clone(),
                tool_use_id: permission.tool_use_id.clone(),
                ..CanUseToolRequest::default()
            },
            cancel: cancel.clone(),
        };
        let parked = request.request.clone();
        let asked = self.host.can_use_tool(request);
        let answer = match tokio::time::timeout(wait, asked).await {
            Ok(Ok(answer)) => answer,
            // Parked: the answer in the store, the one parked before the crash if it is there
            // (the wait is the parking's own, not `permission_timeout`).
            Ok(Err(err)) if crate::host::parking::is_park(&err) => match &self.parking {
                Some(parking) => parking
                    .permission(
                        Some(self.report.session_id.clone()),
                        self.report.record.cwd.clone(),
                        &parked,
                        cancel,
                    )
                    .await
                    .unwrap_or_else(|reason| PermissionResult::deny(format!("parked: {reason}"))),
                None => PermissionResult::deny(crate::host::parking::Park.to_string()),
            },
            Ok(Err(err)) => PermissionResult::deny(format!("asking again failed: {err}")),
            Err(_) => {
                cancel.cancel();
                PermissionResult::deny(format!(
                    "no answer within {} s when asked again",
                    wait.as_secs()
                ))
            }
        };
        tracing::info!(
            tool = %permission.tool_name,
            tool_use_id = ?permission.tool_use_id,
            allowed = matches!(answer, PermissionResult::Allow(_)),
            "a permission request left by a dead host was asked again"
        );
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_grant_answers_the_same_call_once() {
        let grants = Grants::default();
        let input = json!({"command": "ls"});
        grants.give("Bash", &input, PermissionResult::allow(input.clone()));
        assert_eq!(grants.take("Bash", &json!({"command": "rm -rf /"})), None);
        assert_eq!(grants.take("Read", &input), None);
        assert!(matches!(
            grants.take("Bash", &input),
            Some(PermissionResult::Allow(_))
        ));
        assert_eq!(grants.take("Bash", &input), None, "used once");
    }

    #[test]
    fn grants_are_bounded() {
        let grants = Grants::default();
        for n in 0..MAX_GRANTS + 5 {
            grants.give("Bash", &json!(n), PermissionResult::deny("no"));
        }
        assert_eq!(
            grants.take("Bash", &json!(0)),
            None,
            "the oldest went first"
        );
        assert!(grants.take("Bash", &json!(MAX_GRANTS + 4)).is_some());
    }
}
