//! `GET /v1/organization`.

use axum::Extension;
use axum::extract::State;
use serde_json::Value;

use crate::api::{ApiResult, data};
use crate::auth::AuthCtx;
use crate::store::App;

/// The token's organization (the fixture org, or a generated one for any other id).
pub async fn get(State(app): State<App>, Extension(ctx): Extension<AuthCtx>) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    Ok(data(Value::Object(org.organization.clone())))
}
