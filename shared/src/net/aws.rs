//! The AWS SDK's HTTP client: [`super::client_builder`]'s reqwest client behind the SDK's
//! [`HttpClient`] trait.
//!
//! The SDK's own default client brings a second hyper/rustls stack and aws-lc; DynamoDB
//! requests and answers are small JSON documents, so a buffered adapter over the client we
//! already have does the job. Timeouts map to [`ConnectorError::timeout`] and connection
//! failures to [`ConnectorError::io`], which is what the SDK's retry policy classifies.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;

/// The AWS SDK configuration from the environment (region, credentials, endpoint), with
/// [`http_client`] as its HTTP client: what every AWS client of the server is built from.
pub async fn sdk_config() -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(http_client())
        .load()
        .await
}

/// One DynamoDB table, and the client that reaches it: made on first use from
/// [`sdk_config`] (no I/O before that), or given. What each DynamoDB store holds.
#[derive(Debug)]
pub struct DynamoTable {
    name: String,
    client: tokio::sync::OnceCell<aws_sdk_dynamodb::Client>,
}

impl DynamoTable {
    /// The table `name`, its client made on first use.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            client: tokio::sync::OnceCell::new(),
        }
    }

    /// The table `name`, reached with an already built client.
    pub fn with_client(name: impl Into<String>, client: aws_sdk_dynamodb::Client) -> Self {
        Self {
            name: name.into(),
            client: tokio::sync::OnceCell::from(client),
        }
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The client, made now if it is the first call.
    pub async fn client(&self) -> &aws_sdk_dynamodb::Client {
        self.client
            .get_or_init(|| async { aws_sdk_dynamodb::Client::new(&sdk_config().await) })
            .await
    }
}

/// A failed DynamoDB request in words for the log: its kind, and DynamoDB's own error (which
/// names no value of an item).
pub fn describe_failure<E: std::fmt::Debug>(
    error: &aws_sdk_dynamodb::error::SdkError<E>,
) -> String {
    use aws_sdk_dynamodb::error::SdkError;
    match error {
        SdkError::TimeoutError(_) => "DynamoDB timeout".to_owned(),
        SdkError::DispatchFailure(_) => "DynamoDB unreachable".to_owned(),
        SdkError::ServiceError(e) => format!("DynamoDB error: {:?}", e.err()),
        _ => "DynamoDB request failed".to_owned(),
    }
}

/// The HTTP client to give `aws_config` (`.http_client(...)`).
pub fn http_client() -> SharedHttpClient {
    SharedHttpClient::new(ReqwestHttpClient::default())
}

/// Hands out connectors that share one lazily built reqwest client. Its connect timeout is
/// the first connector's (the SDK asks with the same settings for every DynamoDB call); the
/// read timeout applies per request.
#[derive(Debug, Default)]
struct ReqwestHttpClient {
    client: Arc<OnceLock<Result<reqwest::Client, String>>>,
}

impl HttpClient for ReqwestHttpClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(ReqwestConnector {
            client: Arc::clone(&self.client),
            connect_timeout: settings.connect_timeout(),
            read_timeout: settings.read_timeout(),
        })
    }
}

#[derive(Debug)]
struct ReqwestConnector {
    client: Arc<OnceLock<Result<reqwest::Client, String>>>,
    connect_timeout: Option<Duration>,
    read_timeout: Option<Duration>,
}

impl ReqwestConnector {
    fn client(&self) -> Result<reqwest::Client, ConnectorError> {
        let built = self.client.get_or_init(|| {
            let mut builder = super::client_builder();
            if let Some(timeout) = self.connect_timeout {
                builder = builder.connect_timeout(timeout);
            }
            builder.build().map_err(|e| e.to_string())
        });
        built
            .clone()
            .map_err(|e| ConnectorError::user(format!("HTTP client: {e}").into()))
    }
}

impl HttpConnector for ReqwestConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let client = self.client();
        let read_timeout = self.read_timeout;
        HttpConnectorFuture::new(async move {
            let client = client?;
            let request = request
                .try_into_http1x()
                .map_err(|e| ConnectorError::user(e.into()))?;
            let (parts, body) = request.into_parts();
            let bytes = body
                .bytes()
                .map(bytes::Bytes::copy_from_slice)
                .ok_or_else(|| {
                    ConnectorError::user("streaming request bodies are not supported".into())
                })?;
            let mut request = reqwest::Request::try_from(http::Request::from_parts(parts, bytes))
                .map_err(|e| ConnectorError::user(e.into()))?;
            *request.timeout_mut() = read_timeout;
            let response = client.execute(request).await.map_err(classify)?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await.map_err(classify)?;
            let mut answer = http::Response::new(SdkBody::from(body));
            *answer.status_mut() = status;
            *answer.headers_mut() = headers;
            HttpResponse::try_from(answer).map_err(|e| ConnectorError::other(e.into(), None))
        })
    }
}

fn classify(error: reqwest::Error) -> ConnectorError {
    if error.is_timeout() {
        ConnectorError::timeout(error.into())
    } else {
        ConnectorError::io(error.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn connector(read_timeout: Option<Duration>) -> SharedHttpConnector {
        let mut settings = HttpConnectorSettings::builder();
        settings.set_read_timeout(read_timeout);
        let components = RuntimeComponentsBuilder::for_tests().build().unwrap();
        http_client().http_connector(&settings.build(), &components)
    }

    fn request(url: &str, body: &'static str) -> HttpRequest {
        let request = http::Request::builder()
            .method("POST")
            .uri(url)
            .header("x-amz-target", "DynamoDB_20120810.DeleteItem")
            .header("content-length", body.len().to_string())
            .body(SdkBody::from(body))
            .unwrap();
        HttpRequest::try_from(request).unwrap()
    }

    #[tokio::test]
    async fn cf6_requests_and_answers_cross_the_adapter_intact() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            while !String::from_utf8_lossy(&seen).contains("{\"a\":1}") {
                let n = socket.read(&mut buf).await.unwrap();
                seen.extend_from_slice(&buf[..n]);
            }
            let body = "{\"__type\":\"ConditionalCheckFailedException\"}";
            let answer = format!(
                "HTTP/1.1 400 Bad Request\r\nx-amzn-requestid: r-1\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(answer.as_bytes()).await.unwrap();
            String::from_utf8(seen).unwrap()
        });
        let response = connector(None)
            .call(request(&url, "{\"a\":1}"))
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400);
        assert_eq!(response.headers().get("x-amzn-requestid"), Some("r-1"));
        assert_eq!(
            response.body().bytes(),
            Some(&b"{\"__type\":\"ConditionalCheckFailedException\"}"[..])
        );
        let seen = server.await.unwrap().to_ascii_lowercase();
        assert!(seen.starts_with("post / http/1.1\r\n"), "{seen}");
        assert!(
            seen.contains("x-amz-target: dynamodb_20120810.deleteitem\r\n"),
            "{seen}"
        );
        assert_eq!(seen.matches("content-length: 7\r\n").count(), 1, "{seen}");
    }

    #[tokio::test]
    async fn cf6_a_closed_port_is_an_io_error_and_a_silent_server_a_timeout() {
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", closed.local_addr().unwrap());
        drop(closed);
        let error = connector(None).call(request(&url, "{}")).await.unwrap_err();
        assert!(error.is_io(), "{error:?}");

        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", silent.local_addr().unwrap());
        let hold = tokio::spawn(async move {
            let (socket, _) = silent.accept().await.unwrap();
            tokio::time::sleep(Duration::from_secs(5)).await;
            drop(socket);
        });
        let error = connector(Some(Duration::from_millis(200)))
            .call(request(&url, "{}"))
            .await
            .unwrap_err();
        assert!(error.is_timeout(), "{error:?}");
        hold.abort();
    }
}
