//! Dynamic client registration (RFC 7591), stateless: the `client_id` answered is the checked
//! metadata, sealed ([`super::client::registered_id`]). Registration is open, as MCP hosts
//! expect; what protects the person is that the page names the client as it named itself
//! and says where they go back to, and that a code only ever reaches a registered redirect
//! URI with its PKCE verifier.

use http::{Response, StatusCode};
use serde_json::{Value, json};

use super::client::{ClientMetadata, registered_id};
use super::params::{body, content_type_is, json_answer, oauth_error};
use super::{FrontRequest, TokenFront};
use crate::body::ResponseBody;

/// Largest registration request read.
pub const MAX_REGISTRATION_BYTES: usize = 16 * 1024;

impl TokenFront {
    /// `POST /register`.
    pub(super) async fn register(&self, request: &FrontRequest) -> Response<ResponseBody> {
        let refuse = |message: &str| {
            oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", message)
        };
        if !content_type_is(request.headers(), "application/json") {
            return refuse("expected a JSON body");
        }
        let Some(bytes) = body(request, MAX_REGISTRATION_BYTES) else {
            return refuse("unreadable or too large");
        };
        let Ok(document) = serde_json::from_slice::<Value>(bytes) else {
            return refuse("not JSON");
        };
        let metadata = match ClientMetadata::check(&document) {
            Ok(metadata) => metadata,
            Err(error) => {
                tracing::info!(error = error.code(), "token front: registration refused");
                return oauth_error(StatusCode::BAD_REQUEST, error.code(), &error.to_string());
            }
        };
        let Ok(sealer) = self.keys.sealer().await else {
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "try again",
            );
        };
        let Some(client_id) = registered_id(sealer, &metadata) else {
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "try again",
            );
        };
        tracing::info!("token front: client registered");
        let mut answer = json!({
            "client_id": client_id,
            "client_id_issued_at": (self.clock)(),
            "redirect_uris": metadata.redirect_uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
        });
        if let Some(name) = metadata.client_name {
            answer["client_name"] = Value::String(name);
        }
        json_answer(StatusCode::CREATED, &answer)
    }
}
