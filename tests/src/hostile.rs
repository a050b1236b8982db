//! A hostile Kobana: a raw HTTP/1.1 server on loopback that answers each route as a test (or
//! the benchmark's bounded-work section) scripts it — huge bodies (chunked, or with a `Content-Length` that lies), answers that
//! never come, bodies that trickle, the wrong media type — and counts what it is sent:
//! every request (the server's Kobana calls) and the most in flight at once.
//!
//! It speaks just enough HTTP for reqwest: one request per connection, `Connection: close`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// 400 MB, the hostile bodies of BW-8.
pub const HUGE: u64 = 400 * 1000 * 1000;

/// One block of a streamed body.
const BLOCK: usize = 64 * 1024;
/// Longest request head read.
const MAX_HEAD: usize = 64 * 1024;

/// How one route answers.
#[derive(Debug, Clone)]
pub enum Answer {
    /// `status` with a JSON body and its true `Content-Length`.
    Json {
        /// HTTP status.
        status: u16,
        /// The body.
        body: String,
    },
    /// `status` with `bytes` bytes of filler (`{"data":"aaaa…`), chunked when `declared` is
    /// `None`, else under `Content-Length: declared` (a lie when it differs).
    Stream {
        /// HTTP status.
        status: u16,
        /// `Content-Type`.
        content_type: &'static str,
        /// Bytes actually sent (the peer may hang up first).
        bytes: u64,
        /// `Content-Length` sent, if any.
        declared: Option<u64>,
    },
    /// The request is read and never answered (until the peer hangs up).
    Stall,
    /// `200` with a true `Content-Length` of `bytes`, `chunk` bytes every `every` (filler
    /// after a `%PDF-` head for `application/pdf`, spaces otherwise).
    Trickle {
        /// `Content-Type`.
        content_type: &'static str,
        /// Body size.
        bytes: u64,
        /// Bytes sent at a time.
        chunk: usize,
        /// Time between chunks.
        every: Duration,
    },
    /// `answer`, once `after` has passed (the request is read first).
    Delayed {
        /// The wait before answering.
        after: Duration,
        /// What is answered then.
        answer: Box<Answer>,
    },
}

impl Answer {
    /// `self`, after `after`.
    pub fn after(self, after: Duration) -> Answer {
        Answer::Delayed {
            after,
            answer: Box::new(self),
        }
    }
}

/// `status` with `body` as its JSON answer.
pub fn json_answer(status: u16, body: serde_json::Value) -> Answer {
    Answer::Json {
        status,
        body: body.to_string(),
    }
}

/// A page of `n` open invoices, each on its own billing account, each with two line items.
pub fn invoice_page(n: usize) -> serde_json::Value {
    let invoices: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "id": format!("00000000-0000-4000-8000-{i:012}"),
                "number": format!("FAT-2026-{i:06}"),
                "status": "open",
                "billing_account_id": format!("10000000-0000-4000-8000-{i:012}"),
                "total_subcents": 4_990_000, "subtotal_subcents": 4_990_000,
                "amount_due_subcents": 4_990_000, "amount_paid_subcents": 0,
                "amount_remaining_cents": 49_900, "net_value_cents": 49_900,
                "total_withheld_cents": 0, "due_date": "2026-08-25T03:00:00Z",
                "line_items": [
                    {"description": "Assinatura", "amount_cents": 40_000},
                    {"description": "Adicional", "amount_cents": 9_900}
                ]
            })
        })
        .collect();
    serde_json::json!({"data": invoices, "meta": {"current_page": 1, "per_page": n, "total_count": n, "total_pages": 1}})
}

/// BW-1's attack: `billing_invoices_list` arguments naming one field `copies` times (75,000
/// copies are about 980 KB).
pub fn n1_arguments(copies: usize) -> serde_json::Value {
    serde_json::json!({"per_page": 100, "fields": vec!["line_items"; copies]})
}

type Route = (String, String, Arc<dyn Fn(&str) -> Answer + Send + Sync>);

/// A request the upstream received: method and path (query included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// `GET`, `POST`, …
    pub method: String,
    /// `/v1/invoices?page=1&per_page=100`
    pub target: String,
}

#[derive(Default)]
struct State {
    routes: Mutex<Vec<Route>>,
    seen: Mutex<Vec<Seen>>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

/// The running hostile upstream.
#[derive(Clone)]
pub struct Upstream {
    state: Arc<State>,
    /// `http://127.0.0.1:<port>`, for `KOBANA_API_URL`.
    pub base: String,
}

impl Upstream {
    /// Starts it on a free loopback port. A request no route matches gets a 404 envelope.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let serving = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(connection(serving.clone(), stream));
            }
        });
        Self { state, base }
    }

    /// Answers `method` requests whose path starts with `prefix` with `answer(target)`;
    /// routes added later win.
    pub fn route(
        &self,
        method: &str,
        prefix: &str,
        answer: impl Fn(&str) -> Answer + Send + Sync + 'static,
    ) {
        self.state
            .routes
            .lock()
            .unwrap()
            .insert(0, (method.to_owned(), prefix.to_owned(), Arc::new(answer)));
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// How many requests were received so far.
    pub fn calls(&self) -> usize {
        self.state.seen.lock().unwrap().len()
    }

    /// The most requests that were being answered at once.
    pub fn most_in_flight(&self) -> usize {
        self.state.most_in_flight.load(Ordering::SeqCst)
    }

    fn answer_for(&self, method: &str, target: &str) -> Answer {
        let routes = self.state.routes.lock().unwrap();
        routes
            .iter()
            .find(|(m, prefix, _)| m == method && target.starts_with(prefix.as_str()))
            .map(|(_, _, answer)| answer(target))
            .unwrap_or_else(|| Answer::Json {
                status: 404,
                body: r#"{"error":{"code":"not_found","message":"Não encontrado"}}"#.to_owned(),
            })
    }
}

/// Reads one request head; answers (method, target).
async fn read_head(stream: &mut TcpStream) -> Option<(String, String)> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 || head.len() > MAX_HEAD {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut words = text.lines().next()?.split(' ');
    Some((words.next()?.to_owned(), words.next()?.to_owned()))
}

async fn connection(state: Arc<State>, mut stream: TcpStream) {
    let Some((method, target)) = read_head(&mut stream).await else {
        return;
    };
    let upstream = Upstream {
        state: state.clone(),
        base: String::new(),
    };
    state.seen.lock().unwrap().push(Seen {
        method: method.clone(),
        target: target.clone(),
    });
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.most_in_flight.fetch_max(now, Ordering::SeqCst);
    let answer = upstream.answer_for(&method, &target);
    let _ = write_answer(&mut stream, answer).await;
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

async fn write_answer(stream: &mut TcpStream, answer: Answer) -> std::io::Result<()> {
    match answer {
        Answer::Json { status, body } => {
            let head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                reason(status),
                body.len()
            );
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await
        }
        Answer::Stream {
            status,
            content_type,
            bytes,
            declared,
        } => stream_filler(stream, status, content_type, bytes, declared).await,
        Answer::Stall => {
            // Hold the connection open until the peer gives up.
            let mut buf = [0u8; 64];
            while stream.read(&mut buf).await.is_ok_and(|n| n > 0) {}
            Ok(())
        }
        Answer::Trickle {
            content_type,
            bytes,
            chunk,
            every,
        } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {bytes}\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await?;
            let body = trickled_body(content_type, bytes);
            for piece in body.chunks(chunk.max(1)) {
                tokio::time::sleep(every).await;
                stream.write_all(piece).await?;
            }
            Ok(())
        }
        Answer::Delayed { after, answer } => {
            tokio::time::sleep(after).await;
            Box::pin(write_answer(stream, *answer)).await
        }
    }
}

/// The body a [`Answer::Trickle`] sends: a PDF head and filler, or spaces.
pub fn trickled_body(content_type: &str, bytes: u64) -> Vec<u8> {
    let mut body = vec![b' '; usize::try_from(bytes).expect("a small body")];
    if content_type == "application/pdf" {
        for (i, b) in body.iter_mut().enumerate() {
            *b = b"%PDF-1.7 trickled "[i % 18];
        }
    }
    body
}

async fn stream_filler(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    bytes: u64,
    declared: Option<u64>,
) -> std::io::Result<()> {
    let framing = match declared {
        Some(length) => format!("Content-Length: {length}"),
        None => "Transfer-Encoding: chunked".to_owned(),
    };
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\n{framing}\r\nConnection: close\r\n\r\n",
        reason(status)
    );
    stream.write_all(head.as_bytes()).await?;
    let mut block = vec![b'a'; BLOCK];
    block[..9].copy_from_slice(br#"{"data":""#);
    let mut sent = 0u64;
    while sent < bytes {
        let n = (bytes - sent).min(BLOCK as u64) as usize;
        let data = if sent == 0 {
            &block[..n]
        } else {
            &block[9..9 + n.min(BLOCK - 9)]
        };
        if declared.is_none() {
            stream
                .write_all(format!("{:x}\r\n", data.len()).as_bytes())
                .await?;
        }
        stream.write_all(data).await?;
        if declared.is_none() {
            stream.write_all(b"\r\n").await?;
        }
        sent += data.len() as u64;
    }
    if declared.is_none() {
        stream.write_all(b"0\r\n\r\n").await?;
    }
    stream.flush().await
}
