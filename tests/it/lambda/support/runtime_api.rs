//! A small emulator of the AWS Lambda Runtime API — the part a custom runtime speaks:
//!
//! * `GET  /2018-06-01/runtime/invocation/next` hands out one queued event (long poll) with the
//!   `Lambda-Runtime-*` headers;
//! * `POST /2018-06-01/runtime/invocation/{id}/response` takes the answer, buffered or streamed
//!   (`Lambda-Runtime-Function-Response-Mode: streaming`, chunked, with the
//!   `Lambda-Runtime-Function-Error-*` trailers for mid-stream errors);
//! * `POST /2018-06-01/runtime/invocation/{id}/error` and `POST /2018-06-01/runtime/init/error`.
//!
//! Like Lambda it refuses buffered answers over 6 MB (413) and streamed ones over 200 MB.
//! Every accepted socket has `TCP_NODELAY`, so small writes are not held back by Nagle.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use http_body::Body as _;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// Lambda's limit for a buffered (non-streamed) response payload.
pub const BUFFERED_LIMIT: usize = 6 * 1024 * 1024;
/// Lambda's limit for a streamed response.
pub const STREAMED_LIMIT: usize = 200 * 1024 * 1024;
const FUNCTION_ARN: &str = "arn:aws:lambda:us-east-1:123456789012:function:kobana-mcp-test";
const DELIMITER: [u8; 8] = [0; 8];

/// How one invocation ended, as the Runtime API saw it.
#[derive(Debug)]
pub enum Outcome {
    /// `POST …/{id}/response` arrived whole.
    Response(Reply),
    /// `POST …/{id}/error`, or a response Lambda would have refused.
    Error { error_type: String, message: String },
}

/// A response as posted by the function.
#[derive(Debug)]
pub struct Reply {
    /// Posted with `Lambda-Runtime-Function-Response-Mode: streaming`.
    pub streaming: bool,
    /// The raw payload (for streaming: prelude JSON, 8 NUL bytes, body).
    pub payload: Vec<u8>,
    /// Trailers of a chunked post (mid-stream errors travel here).
    pub trailers: HeaderMap,
}

/// The HTTP answer API Gateway would build from a [`Reply`].
#[derive(Debug)]
pub struct HttpReply {
    /// Status code.
    pub status: u16,
    /// Headers, names lower-cased; repeated values joined with `, `.
    pub headers: HashMap<String, String>,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl HttpReply {
    /// A header value, if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The body as JSON (panics with the start of the body when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            let head = String::from_utf8_lossy(&self.body[..self.body.len().min(300)]);
            panic!("body is not JSON ({e}): {head}")
        })
    }
}

fn header_map(value: &Value) -> HashMap<String, String> {
    let Some(map) = value.as_object() else {
        return HashMap::new();
    };
    map.iter()
        .map(|(name, v)| {
            let joined = match v {
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.as_str().unwrap_or_default().to_owned(),
            };
            (name.to_ascii_lowercase(), joined)
        })
        .collect()
}

impl Reply {
    /// The mid-stream error reported in the trailers, if any: `(type, body)`.
    pub fn stream_error(&self) -> Option<(String, String)> {
        let text = |name: &str| {
            self.trailers
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        text("lambda-runtime-function-error-type").map(|kind| {
            (
                kind,
                text("lambda-runtime-function-error-body").unwrap_or_default(),
            )
        })
    }

    /// Decodes the payload into status, headers and body, as the proxy integration does.
    pub fn http(&self) -> HttpReply {
        if self.streaming {
            let split = self
                .payload
                .windows(DELIMITER.len())
                .position(|w| w == DELIMITER)
                .expect("a streamed payload has a JSON prelude and 8 NUL bytes");
            let prelude: Value = serde_json::from_slice(&self.payload[..split])
                .expect("the streaming prelude is JSON");
            HttpReply {
                status: prelude["statusCode"].as_u64().expect("prelude statusCode") as u16,
                headers: header_map(&prelude["headers"]),
                body: self.payload[split + DELIMITER.len()..].to_vec(),
            }
        } else {
            let proxy: Value =
                serde_json::from_slice(&self.payload).expect("a buffered payload is proxy JSON");
            let text = proxy["body"].as_str().unwrap_or_default();
            let body = if proxy["isBase64Encoded"] == true {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .expect("base64 body")
            } else {
                text.as_bytes().to_vec()
            };
            let mut headers = header_map(&proxy["multiValueHeaders"]);
            headers.extend(header_map(&proxy["headers"]));
            HttpReply {
                status: proxy["statusCode"].as_u64().expect("statusCode") as u16,
                headers,
                body,
            }
        }
    }
}

struct Queued {
    id: String,
    event: Bytes,
    done: oneshot::Sender<Outcome>,
}

struct Shared {
    queue: tokio::sync::Mutex<mpsc::Receiver<Queued>>,
    in_flight: Mutex<HashMap<String, oneshot::Sender<Outcome>>>,
    init_error: Mutex<Option<String>>,
}

impl Shared {
    fn finish(&self, id: &str, outcome: Outcome) {
        let waiter = self.in_flight.lock().unwrap().remove(id);
        match waiter {
            Some(done) => {
                let _ = done.send(outcome);
            }
            None => eprintln!("runtime api: answer for unknown invocation {id}: {outcome:?}"),
        }
    }
}

/// A running emulator; stops when dropped.
pub struct RuntimeApi {
    addr: SocketAddr,
    queue: mpsc::Sender<Queued>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    task: tokio::task::JoinHandle<()>,
}

impl RuntimeApi {
    /// Starts on an ephemeral loopback port of the current tokio runtime.
    pub async fn start() -> Self {
        let (queue, receiver) = mpsc::channel(16);
        let shared = Arc::new(Shared {
            queue: tokio::sync::Mutex::new(receiver),
            in_flight: Mutex::new(HashMap::new()),
            init_error: Mutex::new(None),
        });
        let router = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route(
                "/2018-06-01/runtime/invocation/{id}/response",
                post(response),
            )
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self {
            addr,
            queue,
            shared,
            next_id: AtomicU64::new(1),
            task,
        }
    }

    /// `host:port`, the value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    /// Queues `event` for the function and waits for its answer.
    pub async fn invoke(&self, event: &[u8], timeout: Duration) -> Result<Outcome, String> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = format!("8f507cfc-0000-4000-8000-{n:012}");
        let (done, answer) = oneshot::channel();
        let queued = Queued {
            id: id.clone(),
            event: Bytes::copy_from_slice(event),
            done,
        };
        self.queue
            .send(queued)
            .await
            .map_err(|_| "the runtime api stopped".to_owned())?;
        match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(_)) => Err(format!("invocation {id} was dropped")),
            Err(_) => {
                let init = self.shared.init_error.lock().unwrap().clone();
                Err(format!(
                    "no answer to invocation {id} within {timeout:?} (init error: {init:?})"
                ))
            }
        }
    }
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

async fn next(State(shared): State<Arc<Shared>>) -> Response {
    // Long poll: the function waits here until the test queues the next event.
    let queued = shared.queue.lock().await.recv().await;
    let Some(queued) = queued else {
        return Response::builder()
            .status(StatusCode::GONE)
            .body(Body::empty())
            .unwrap();
    };
    shared
        .in_flight
        .lock()
        .unwrap()
        .insert(queued.id.clone(), queued.done);
    Response::builder()
        .header("content-type", "application/json")
        .header("lambda-runtime-aws-request-id", &queued.id)
        .header(
            "lambda-runtime-deadline-ms",
            (now_ms() + 120_000).to_string(),
        )
        .header("lambda-runtime-invoked-function-arn", FUNCTION_ARN)
        .header(
            "lambda-runtime-trace-id",
            "Root=1-67890abc-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=0",
        )
        .body(Body::from(queued.event))
        .unwrap()
}

/// Reads a request body frame by frame, keeping the trailers.
async fn read_all(mut body: Body) -> Result<(Vec<u8>, HeaderMap), axum::Error> {
    let mut data = Vec::new();
    let mut trailers = HeaderMap::new();
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        match frame?.into_data() {
            Ok(bytes) => data.extend_from_slice(&bytes),
            Err(frame) => {
                if let Ok(t) = frame.into_trailers() {
                    trailers.extend(t);
                }
            }
        }
    }
    Ok((data, trailers))
}

async fn response(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    request: Request,
) -> StatusCode {
    let streaming = request
        .headers()
        .get("lambda-runtime-function-response-mode")
        .is_some_and(|mode| mode == "streaming");
    let (payload, trailers) = match read_all(request.into_body()).await {
        Ok(read) => read,
        Err(e) => {
            let message = format!("the response stream broke: {e}");
            shared.finish(
                &id,
                Outcome::Error {
                    error_type: "Runtime.StreamBroken".into(),
                    message,
                },
            );
            return StatusCode::BAD_REQUEST;
        }
    };
    let limit = if streaming {
        STREAMED_LIMIT
    } else {
        BUFFERED_LIMIT
    };
    if payload.len() > limit {
        let message = format!(
            "{} response of {} bytes exceeds Lambda's {limit}-byte limit",
            if streaming { "streamed" } else { "buffered" },
            payload.len()
        );
        let error_type = "Function.ResponseSizeTooLarge".into();
        shared.finish(
            &id,
            Outcome::Error {
                error_type,
                message,
            },
        );
        return StatusCode::PAYLOAD_TOO_LARGE;
    }
    let reply = Reply {
        streaming,
        payload,
        trailers,
    };
    shared.finish(&id, Outcome::Response(reply));
    StatusCode::ACCEPTED
}

async fn error(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let error_type = headers
        .get("lambda-runtime-function-error-type")
        .and_then(|v| v.to_str().ok())
        .or(parsed["errorType"].as_str())
        .unwrap_or("Unknown")
        .to_owned();
    let message = parsed["errorMessage"].as_str().map_or_else(
        || String::from_utf8_lossy(&body).into_owned(),
        str::to_owned,
    );
    shared.finish(
        &id,
        Outcome::Error {
            error_type,
            message,
        },
    );
    StatusCode::ACCEPTED
}

async fn init_error(State(shared): State<Arc<Shared>>, body: Bytes) -> StatusCode {
    *shared.init_error.lock().unwrap() = Some(String::from_utf8_lossy(&body).into_owned());
    StatusCode::ACCEPTED
}
