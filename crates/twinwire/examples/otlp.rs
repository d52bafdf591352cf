//! twinwire's spans exported over OTLP (HTTP/protobuf): a session, its turn, the tool use with
//! its permission callback and hook, each control round trip. The CLI gets the session's
//! trace context as `TRACEPARENT`, so whatever it traces joins the same trace.
//!
//! The spans go to `$OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else to `/v1/traces` under
//! `$OTEL_EXPORTER_OTLP_ENDPOINT`, else to `http://localhost:4318/v1/traces` (a local
//! OpenTelemetry Collector or Jaeger).
//!
//! With an API key: `cargo run -p twinwire --features opentelemetry --example otlp`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --features opentelemetry --example offline -- otlp`. The script
//! (`examples/scripts/otlp.json`) has the model run `echo "TRACEPARENT=$TRACEPARENT"`, so the
//! example prints the trace context the CLI got.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use twinwire::host::callbacks::{can_use_tool, hook, HookMatcher, PermissionRequest};
use twinwire::protocol::content::{ContentBlock, UserContent};
use twinwire::protocol::hooks::{HookEvent, HookOutput};
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::{Client, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Built before the runtime: the exporter's blocking HTTP client must not be made or
    // dropped inside async code, and the batch processor exports from a thread of its own.
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .build()?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            Resource::builder()
                .with_service_name("twinwire-otlp-example")
                .build(),
        )
        .build();
    tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("twinwire")))
        .init();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(session().instrument(tracing::info_span!("otlp_example")));
    drop(runtime);
    // Sends what the batch still holds, then stops its thread.
    provider.shutdown()?;
    outcome
}

async fn session() -> Result<(), Box<dyn std::error::Error>> {
    let allow = can_use_tool(|request: PermissionRequest| async move {
        println!("allowed {}", request.tool_name());
        Ok(PermissionResult::allow(request.input().clone()))
    });
    let before_tool = hook(|_input, _cx| async move { Ok(HookOutput::proceed()) });
    let options = Options::builder()
        .can_use_tool(allow)
        .hook(HookEvent::PreToolUse, HookMatcher::all(before_tool))
        .build()?;
    // The session's span is a child of the current one (`otlp_example`).
    let client = Client::connect(options).await?;
    client
        .send("Print the TRACEPARENT variable with the shell")
        .await?;
    let mut turn = std::pin::pin!(client.receive_response());
    while let Some(message) = turn.next().await {
        match message? {
            Message::User(user) => {
                if let UserContent::Blocks(blocks) = &user.message.content {
                    for block in blocks {
                        if let ContentBlock::ToolResult(result) = block {
                            let text = result.content.as_ref().map(|c| c.joined_text());
                            println!("tool result: {}", text.unwrap_or_default().trim());
                        }
                    }
                }
            }
            Message::Result(result) => println!("{}", result.text().unwrap_or_default()),
            _ => {}
        }
    }
    client.close().await?;
    Ok(())
}
