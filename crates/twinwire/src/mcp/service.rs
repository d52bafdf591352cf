//! Running an `rmcp` server on one in-memory connection, with panics caught.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::model::{ClientNotification, ClientRequest, ProtocolVersion, ServerConfig, ServerResult};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, Service, ServiceExt};

use super::ServerEnd;
use crate::engine::panic_message;

/// Serves `handler` on its end of an in-memory connection until the connection ends. Never
/// panics; failures are logged.
pub(super) async fn serve<S>(name: Arc<str>, handler: S, end: ServerEnd)
where
    S: Service<RoleServer>,
{
    let guarded = PanicGuard {
        name: Arc::clone(&name),
        inner: handler,
    };
    match guarded.serve((end.outgoing, end.incoming)).await {
        Ok(running) => match running.waiting().await {
            Ok(reason) => {
                tracing::debug!(server = %name, ?reason, "SDK MCP server connection ended");
            }
            Err(error) => {
                tracing::warn!(server = %name, %error, "SDK MCP server task failed");
            }
        },
        Err(error) => {
            tracing::warn!(server = %name, %error, "SDK MCP server did not start");
        }
    }
}

/// Delegates to a service and turns a panic in a request handler into a JSON-RPC internal
/// error (and a panic in a notification handler into a log line), so that one bad handler
/// neither leaves the CLI waiting nor ends the session.
struct PanicGuard<S> {
    name: Arc<str>,
    inner: S,
}

impl<S: Service<RoleServer>> Service<RoleServer> for PanicGuard<S> {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let handled = AssertUnwindSafe(self.inner.handle_request(request, context))
            .catch_unwind()
            .await;
        handled.unwrap_or_else(|panic| {
            let message = panic_message(panic.as_ref());
            tracing::error!(server = %self.name, panic = %message, "SDK MCP server panicked");
            Err(ErrorData::internal_error(
                format!("SDK MCP server {} panicked: {message}", self.name),
                None,
            ))
        })
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let handled = AssertUnwindSafe(self.inner.handle_notification(notification, context))
            .catch_unwind()
            .await;
        handled.unwrap_or_else(|panic| {
            let message = panic_message(panic.as_ref());
            tracing::error!(
                server = %self.name,
                panic = %message,
                "SDK MCP server panicked on a notification"
            );
            Ok(())
        })
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }
}
