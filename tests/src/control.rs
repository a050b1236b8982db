//! `/__fake/*`: the test controls over HTTP (no auth, not recorded).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::auth::{Claims, mint_token};
use crate::faults::Fault;
use crate::store::App;

/// The control routes.
pub fn router() -> Router<App> {
    Router::new()
        .route("/__fake/health", get(health))
        .route("/__fake/calls", get(calls).delete(clear_calls))
        .route("/__fake/faults", post(inject).delete(clear_faults))
        .route("/__fake/pdf-size", post(pdf_size))
        .route("/__fake/pdf-content-length", post(pdf_content_length))
        .route("/__fake/reset", post(reset))
        .route("/__fake/token", post(token))
}

async fn health() -> Response {
    Json(json!({"ok": true})).into_response()
}

async fn calls(State(app): State<App>) -> Response {
    Json(app.lock().calls.clone()).into_response()
}

async fn clear_calls(State(app): State<App>) -> StatusCode {
    app.lock().calls.clear();
    StatusCode::NO_CONTENT
}

async fn inject(State(app): State<App>, Json(fault): Json<Fault>) -> StatusCode {
    app.lock().faults.push(fault);
    StatusCode::NO_CONTENT
}

async fn clear_faults(State(app): State<App>) -> StatusCode {
    app.lock().faults.clear();
    StatusCode::NO_CONTENT
}

#[derive(Deserialize)]
struct PdfSize {
    id: String,
    bytes: usize,
}

async fn pdf_size(State(app): State<App>, Json(req): Json<PdfSize>) -> StatusCode {
    crate::set_pdf_size_in(&app, &req.id, req.bytes);
    StatusCode::NO_CONTENT
}

#[derive(Deserialize)]
struct ContentLength {
    send: bool,
}

async fn pdf_content_length(State(app): State<App>, Json(req): Json<ContentLength>) -> StatusCode {
    app.lock().pdf_content_length = req.send;
    StatusCode::NO_CONTENT
}

async fn reset(State(app): State<App>) -> StatusCode {
    app.reset();
    StatusCode::NO_CONTENT
}

async fn token(Json(claims): Json<Claims>) -> Response {
    Json(json!({"token": mint_token(&claims)})).into_response()
}
