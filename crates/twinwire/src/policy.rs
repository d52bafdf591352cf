//! Claude Code's permission rules as a `can_use_tool` callback: [`PermissionPolicy`] from
//! `twinwire-policy`, which allows a Bash command only when every program it can run is proven
//! and allowed, and judges paths in every form they take (see the crate's docs).
//!
//! A policy alone answers every request: what its rules do not allow is denied with the
//! reason. [`with_fallback`] asks another callback (a person, a service) instead.
//!
//! ```
//! use twinwire::policy::{self, PermissionPolicy};
//! use twinwire::host::callbacks::can_use_tool;
//! use twinwire::protocol::permission::PermissionResult;
//!
//! let rules = PermissionPolicy::parse(&["Read", "Bash(git log:*)"], &["Bash(rm:*)"]).unwrap();
//! let options = twinwire::Options::builder()
//!     .can_use_tool(policy::with_fallback(
//!         rules,
//!         can_use_tool(|request| async move {
//!             Ok(PermissionResult::deny(format!("{} needs a person", request.tool_name())))
//!         }),
//!     ))
//!     .build();
//! # let _ = options;
//! ```

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
pub use twinwire_policy::*;

use crate::host::callbacks::{CallbackResult, CanUseTool, PermissionRequest};
use crate::protocol::permission::PermissionResult;

/// The answer of the rules: allowed, denied by a rule, or `Err` with why the rules neither
/// allow nor deny the call.
fn answer(
    policy: &PermissionPolicy,
    request: &PermissionRequest,
) -> std::result::Result<PermissionResult, Reason> {
    match policy.decide(request.tool_name(), request.input()) {
        Decision::Allow(_) => Ok(PermissionResult::allow(request.input().clone())),
        Decision::Deny(rule) => Ok(PermissionResult::deny(format!("denied by the rule {rule}"))),
        Decision::Ask(reason) => Err(reason),
    }
}

impl CanUseTool for PermissionPolicy {
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
        let result = answer(self, &request).unwrap_or_else(|reason| {
            PermissionResult::deny(format!("not allowed by the rules: {reason}"))
        });
        async move { Ok(result) }.boxed()
    }

    fn deny_rules(&self) -> Vec<String> {
        PermissionPolicy::deny_rules(self)
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect()
    }
}

/// The rules first; what they neither allow nor deny goes to `fallback`.
pub fn with_fallback(
    policy: PermissionPolicy,
    fallback: Arc<dyn CanUseTool>,
) -> Arc<dyn CanUseTool> {
    Arc::new(WithFallback { policy, fallback })
}

struct WithFallback {
    policy: PermissionPolicy,
    fallback: Arc<dyn CanUseTool>,
}

impl CanUseTool for WithFallback {
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
        match answer(&self.policy, &request) {
            Ok(result) => async move { Ok(result) }.boxed(),
            Err(_) => self.fallback.can_use_tool(request),
        }
    }

    fn deny_rules(&self) -> Vec<String> {
        let mut rules = CanUseTool::deny_rules(&self.policy);
        rules.extend(self.fallback.deny_rules());
        rules
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::host::callbacks::can_use_tool;

    fn request(command: &str) -> PermissionRequest {
        PermissionRequest {
            request: serde_json::from_value(
                json!({"tool_name": "Bash", "input": {"command": command}}),
            )
            .unwrap(),
            cancel: CancellationToken::new(),
        }
    }

    #[tokio::test]
    async fn a_policy_answers_alone_and_with_a_fallback() {
        let rules = PermissionPolicy::parse(&["Bash"], &["Bash(rm:*)"]).unwrap();
        let alone: Arc<dyn CanUseTool> = Arc::new(rules.clone());
        let allowed = alone.can_use_tool(request("ls")).await.unwrap();
        assert!(matches!(allowed, PermissionResult::Allow(_)));
        let PermissionResult::Deny(denied) =
            alone.can_use_tool(request("timeout 1 rm x")).await.unwrap()
        else {
            panic!("allowed");
        };
        assert!(denied.message.contains("Bash(rm:*)"), "{}", denied.message);
        let PermissionResult::Deny(unproven) = alone.can_use_tool(request("$X y")).await.unwrap()
        else {
            panic!("allowed");
        };
        assert!(
            unproven.message.contains("computed"),
            "{}",
            unproven.message
        );

        let asked = with_fallback(
            rules,
            can_use_tool(|_| async { Ok(PermissionResult::deny("asked")) }),
        );
        let PermissionResult::Deny(fallback) = asked.can_use_tool(request("$X y")).await.unwrap()
        else {
            panic!("allowed");
        };
        assert_eq!(fallback.message, "asked");
        let PermissionResult::Deny(rule) = asked.can_use_tool(request("rm x")).await.unwrap()
        else {
            panic!("allowed");
        };
        assert!(rule.message.contains("Bash(rm:*)"));
    }
}
