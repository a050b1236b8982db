//! The front's key from AWS Secrets Manager: one `GetSecretValue` call.
//!
//! Not `aws-sdk-secretsmanager`: the call is one signed JSON POST, and everything it needs is
//! already in the binary for DynamoDB — the SDK configuration (region, credential chain,
//! endpoint override) from [`crate::confirm::sdk_config`], SigV4 from `aws-sigv4`, and the
//! server's own HTTP client ([`crate::net::client_builder`]). The generated client would add
//! its operation, serde and error code for one call. Endpoint: `AWS_ENDPOINT_URL_SECRETS_MANAGER`,
//! else `AWS_ENDPOINT_URL`, else the regional one. The secret's value never reaches a log line,
//! an error or a `Debug` output.

use std::time::{Duration, SystemTime};

use aws_credential_types::provider::ProvideCredentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use serde_json::Value;

/// The signing name of the service.
const SERVICE: &str = "secretsmanager";
/// The operation, as the JSON 1.1 protocol names it.
const TARGET: &str = "secretsmanager.GetSecretValue";
/// Deadline of the whole call (connect, send, answer).
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest answer read (a secret is at most 64 KiB; its envelope is small).
const MAX_ANSWER_BYTES: usize = 80 * 1024;

/// Why the secret could not be read. Never carries the secret.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// No region in the environment.
    #[error("no AWS region configured")]
    NoRegion,
    /// The credential chain gave nothing.
    #[error("no AWS credentials: {0}")]
    Credentials(String),
    /// The request could not be built or signed.
    #[error("could not sign the Secrets Manager request: {0}")]
    Signing(String),
    /// No answer.
    #[error("Secrets Manager unreachable: {0}")]
    Unreachable(String),
    /// An error answer (its `__type`, e.g. `ResourceNotFoundException`).
    #[error("Secrets Manager answered HTTP {status} ({kind})")]
    Refused {
        /// HTTP status.
        status: u16,
        /// The error type AWS named.
        kind: String,
    },
    /// A 200 without a `SecretString` (a binary secret, or not JSON).
    #[error("the secret has no SecretString")]
    NoString,
}

fn endpoint(sdk: &aws_config::SdkConfig, region: &str) -> String {
    let configured = std::env::var("AWS_ENDPOINT_URL_SECRETS_MANAGER")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| sdk.endpoint_url().map(str::to_owned));
    match configured {
        Some(url) => format!("{}/", url.trim().trim_end_matches('/')),
        None => format!("https://{SERVICE}.{region}.amazonaws.com/"),
    }
}

/// The signed `GetSecretValue` request for `secret_id`.
async fn signed_request(secret_id: &str) -> Result<reqwest::Request, SecretError> {
    let sdk = crate::confirm::sdk_config().await;
    let region = sdk.region().ok_or(SecretError::NoRegion)?.to_string();
    let provider = sdk
        .credentials_provider()
        .ok_or_else(|| SecretError::Credentials("no provider".to_owned()))?;
    let credentials = provider
        .provide_credentials()
        .await
        .map_err(|e| SecretError::Credentials(e.to_string()))?;
    let url = endpoint(&sdk, &region);
    let body = serde_json::json!({ "SecretId": secret_id }).to_string();
    let headers = [
        ("content-type", "application/x-amz-json-1.1"),
        ("x-amz-target", TARGET),
    ];
    let identity = credentials.into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(&region)
        .name(SERVICE)
        .time(SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| SecretError::Signing(e.to_string()))?
        .into();
    let signable = SignableRequest::new(
        "POST",
        &url,
        headers.iter().copied(),
        SignableBody::Bytes(body.as_bytes()),
    )
    .map_err(|e| SecretError::Signing(e.to_string()))?;
    let (instructions, _) = sign(signable, &params)
        .map_err(|e| SecretError::Signing(e.to_string()))?
        .into_parts();
    let mut request = http::Request::post(&url);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let mut request = request
        .body(body)
        .map_err(|e| SecretError::Signing(e.to_string()))?;
    instructions.apply_to_request_http1x(&mut request);
    reqwest::Request::try_from(request).map_err(|e| SecretError::Signing(e.to_string()))
}

/// Reads the `SecretString` of `secret_id` (an ARN or a name).
pub async fn secret_string(secret_id: &str) -> Result<String, SecretError> {
    let request = signed_request(secret_id).await?;
    let client = crate::net::client_builder()
        .timeout(CALL_TIMEOUT)
        .build()
        .map_err(|e| SecretError::Unreachable(e.to_string()))?;
    let mut response = client
        .execute(request)
        .await
        .map_err(|e| SecretError::Unreachable(e.to_string()))?;
    let status = response.status().as_u16();
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| SecretError::Unreachable(e.to_string()))?
    {
        if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(SecretError::Unreachable("answer too large".to_owned()));
        }
        bytes.extend_from_slice(&chunk);
    }
    let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if status != 200 {
        let kind = answer["__type"].as_str().unwrap_or("unknown");
        let kind = kind.rsplit('#').next().unwrap_or(kind).to_owned();
        return Err(SecretError::Refused { status, kind });
    }
    answer["SecretString"]
        .as_str()
        .map(str::to_owned)
        .ok_or(SecretError::NoString)
}
