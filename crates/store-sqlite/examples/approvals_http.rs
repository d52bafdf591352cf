//! Durable approvals over HTTP: the requests a twinwire host parked in a SQLite file, listed
//! and answered from anywhere that reaches this server.
//!
//! ```sh
//! cargo run -p twinwire-store-sqlite --example approvals_http -- approvals.db 127.0.0.1:8787
//! curl http://127.0.0.1:8787/pending
//! curl -X POST -d '{"behavior":"allow"}' http://127.0.0.1:8787/pending/ID
//! curl -X POST -d '{"behavior":"deny","message":"not today"}' http://127.0.0.1:8787/pending/ID
//! ```
//!
//! - `GET /pending`: the requests still waiting, oldest first (JSON array).
//! - `GET /pending/{id}`: one request, waiting or answered; 404 when there is none.
//! - `POST /pending/{id}` with an answer (a permission result, or a hook output for a hook):
//!   200 when it was taken, 400 when it does not answer the request, 404 when there is no such
//!   request, 409 when it was answered already (the first answer wins).
//!
//! The host side: `Options::builder().parking(Parking::new(Arc::new(SqlitePendingStore::open(
//! "approvals.db")?)))` and a `can_use_tool` that returns `request.park()`. Put it behind your
//! own authentication: whoever reaches it can allow a tool.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};
use twinwire::host::parking::{check_answer, PendingStore};
use twinwire_store_sqlite::SqlitePendingStore;

/// The largest answer taken.
const MAX_BODY: usize = 64 * 1024;

type Store = Arc<dyn PendingStore>;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let db = args.next().unwrap_or_else(|| "approvals.db".into());
    let listen = args.next().unwrap_or_else(|| "127.0.0.1:8787".into());
    let store: Store = Arc::new(SqlitePendingStore::open(&db)?);
    let app = Router::new()
        .route("/pending", get(waiting))
        .route("/pending/{id}", get(one).post(answer))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(store);
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    // The address (a port of 0 is chosen by the system), for whoever started this.
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

fn reply(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn failed(err: impl std::fmt::Display) -> Response {
    reply(
        StatusCode::INTERNAL_SERVER_ERROR,
        &json!({"error": err.to_string()}),
    )
}

async fn waiting(State(store): State<Store>) -> Response {
    match store.list().await {
        Ok(all) => {
            let waiting: Vec<_> = all.into_iter().filter(|r| !r.is_answered()).collect();
            reply(StatusCode::OK, &json!(waiting))
        }
        Err(err) => failed(err),
    }
}

async fn one(State(store): State<Store>, Path(id): Path<String>) -> Response {
    match store.get(id).await {
        Ok(Some(request)) => reply(StatusCode::OK, &json!(request)),
        Ok(None) => reply(StatusCode::NOT_FOUND, &json!({"error": "no such request"})),
        Err(err) => failed(err),
    }
}

async fn answer(State(store): State<Store>, Path(id): Path<String>, body: String) -> Response {
    let answer: Value = match serde_json::from_str(&body) {
        Ok(answer) => answer,
        Err(err) => {
            return reply(
                StatusCode::BAD_REQUEST,
                &json!({"error": format!("not JSON: {err}")}),
            )
        }
    };
    let request = match store.get(id.clone()).await {
        Ok(Some(request)) => request,
        Ok(None) => return reply(StatusCode::NOT_FOUND, &json!({"error": "no such request"})),
        Err(err) => return failed(err),
    };
    if let Err(why) = check_answer(&request.asked, &answer) {
        return reply(StatusCode::BAD_REQUEST, &json!({"error": why}));
    }
    match store.answer(id.clone(), answer).await {
        Ok(true) => reply(StatusCode::OK, &json!({"answered": id})),
        Ok(false) => reply(StatusCode::CONFLICT, &json!({"error": "answered already"})),
        Err(err) => failed(err),
    }
}
