//! A Lambda Runtime API emulator for cold starts: spawn the function binary, hand it one API
//! Gateway (REST, v1) event on `GET …/invocation/next`, and time process start → its answer
//! fully received on `POST …/invocation/{id}/response` (buffered or streamed, chunked with
//! trailers). Later `next` polls are parked until the process is killed.
//!
//! Every accepted socket has `TCP_NODELAY`, and `TCP_QUICKACK` is set again before each
//! read: `lambda_runtime` posts streamed answers with Nagle on, so an emulator that delays
//! its ACKs would add ~40 ms to every streamed answer (see aws-lambda.md, "Measured
//! pitfalls").

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

/// One cold start.
#[derive(Debug, Clone, Serialize)]
pub struct ColdRun {
    /// Process start → answer fully received.
    pub elapsed_ms: f64,
    /// `VmRSS` right after the answer, KiB.
    pub rss_kib: u64,
    /// `VmHWM` right after the answer, KiB.
    pub hwm_kib: u64,
    /// `buffered` or `streaming`.
    pub mode: String,
}

struct Outcome {
    at: Instant,
    kind: String,
    mode: String,
    body: Vec<u8>,
}

#[derive(Default)]
struct State {
    event_taken: bool,
    outcome: Option<Outcome>,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

fn quickack(stream: &TcpStream) {
    let one: libc::c_int = 1;
    // SAFETY: a valid socket fd and a pointer to a c_int of the right size.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_QUICKACK,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// Buffered reads that re-arm `TCP_QUICKACK` before every `read`.
struct Reader {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Reader {
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        if self.end == self.buf.len() {
            let grow = self.buf.len();
            self.buf.resize(self.buf.len() + grow, 0);
        }
        quickack(&self.stream);
        let n = self.stream.read(&mut self.buf[self.end..])?;
        self.end += n;
        Ok(n > 0)
    }

    fn line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if let Some(i) = self.buf[self.start..self.end]
                .windows(2)
                .position(|w| w == b"\r\n")
            {
                let line =
                    String::from_utf8_lossy(&self.buf[self.start..self.start + i]).into_owned();
                self.start += i + 2;
                return Ok(Some(line));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn take(&mut self, mut n: usize, out: &mut Vec<u8>) -> std::io::Result<bool> {
        while n > 0 {
            if self.start == self.end && !self.fill()? {
                return Ok(false);
            }
            let k = n.min(self.end - self.start);
            out.extend_from_slice(&self.buf[self.start..self.start + k]);
            self.start += k;
            n -= k;
        }
        Ok(true)
    }
}

struct Head {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn read_request(r: &mut Reader) -> std::io::Result<Option<(Head, Vec<u8>)>> {
    let Some(request_line) = r.line()? else {
        return Ok(None);
    };
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let Some(line) = r.line()? else {
            return Ok(None);
        };
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let head = Head {
        method,
        path,
        headers,
    };
    let mut body = Vec::new();
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        loop {
            let Some(size_line) = r.line()? else {
                return Ok(None);
            };
            let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
                .unwrap_or(0);
            if size == 0 {
                // Trailers (Lambda-Runtime-Function-Error-*), then the empty line.
                while let Some(line) = r.line()? {
                    if line.is_empty() {
                        break;
                    }
                }
                break;
            }
            if !r.take(size, &mut body)? {
                return Ok(None);
            }
            r.line()?;
        }
    } else if let Some(n) = head.header("content-length").and_then(|v| v.parse().ok())
        && !r.take(n, &mut body)?
    {
        return Ok(None);
    }
    Ok(Some((head, body)))
}

fn connection(stream: TcpStream, shared: Shared, event: Arc<Vec<u8>>) {
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut r = Reader {
        stream,
        buf: vec![0; 64 * 1024],
        start: 0,
        end: 0,
    };
    loop {
        let Ok(Some((head, body))) = read_request(&mut r) else {
            return;
        };
        let received = Instant::now();
        if head.method == "GET" && head.path.ends_with("/runtime/invocation/next") {
            let first = {
                let mut state = shared.0.lock().expect("lock");
                !std::mem::replace(&mut state.event_taken, true)
            };
            if !first {
                // Park the long poll until the process goes away.
                let mut sink = [0u8; 256];
                while matches!(r.stream.read(&mut sink), Ok(n) if n > 0) {}
                return;
            }
            let deadline = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() + 60_000)
                .unwrap_or(0);
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                 lambda-runtime-aws-request-id: 8476a536-e9f4-11e8-9739-2dfe598c3fcd\r\n\
                 lambda-runtime-deadline-ms: {deadline}\r\n\
                 lambda-runtime-invoked-function-arn: arn:aws:lambda:us-east-1:123456789012:function:bench\r\n\
                 lambda-runtime-trace-id: Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1\r\n\
                 content-length: {}\r\n\r\n",
                event.len()
            );
            let mut out = head.into_bytes();
            out.extend_from_slice(&event);
            if writer.write_all(&out).is_err() {
                return;
            }
        } else if head.method == "POST"
            && (head.path.ends_with("/response") || head.path.ends_with("/error"))
        {
            let _ = writer.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n");
            let kind = if head.path.ends_with("/response") {
                "response"
            } else {
                "error"
            };
            let mode = head
                .header("lambda-runtime-function-response-mode")
                .unwrap_or("buffered")
                .to_owned();
            let (lock, cvar) = &*shared;
            let mut state = lock.lock().expect("lock");
            if state.outcome.is_none() {
                state.outcome = Some(Outcome {
                    at: received,
                    kind: kind.to_owned(),
                    mode,
                    body,
                });
                cvar.notify_all();
            }
        } else {
            let _ = writer.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
        }
    }
}

/// Starts `binary` under a fresh emulator with `env`, feeds it `event`, and measures.
/// `expect` must occur in the answer's payload.
pub fn cold_start(
    binary: &Path,
    env: &[(String, String)],
    event: &[u8],
    expect: &str,
    cpu: Option<usize>,
) -> Result<ColdRun, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("emulator: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("emulator: {e}"))?;
    let shared: Shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let event = Arc::new(event.to_vec());
    let acceptor = {
        let shared = shared.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                quickack(&stream);
                let shared = shared.clone();
                let event = event.clone();
                std::thread::spawn(move || connection(stream, shared, event));
            }
        })
    };
    let mut command = Command::new(binary);
    command
        .env_clear()
        .envs(crate::procs::base_env())
        .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", "bench")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
        .env("AWS_REGION", "us-east-1")
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    crate::procs::pinned(&mut command, cpu);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let pid = child.id();
    let outcome = {
        let (lock, cvar) = &*shared;
        let state = lock.lock().expect("lock");
        let (mut state, _) = cvar
            .wait_timeout_while(state, Duration::from_secs(20), |s| s.outcome.is_none())
            .expect("lock");
        state.outcome.take()
    };
    let memory = crate::procs::memory_kib(pid);
    let _ = child.kill();
    let _ = child.wait();
    stop.store(true, Ordering::SeqCst);
    let _ = TcpStream::connect(addr);
    let _ = acceptor.join();
    let outcome = outcome.ok_or_else(|| {
        format!(
            "{}: no answer from the function within 20 s",
            binary.display()
        )
    })?;
    if outcome.kind != "response" {
        return Err(format!(
            "{}: the function reported an error: {}",
            binary.display(),
            String::from_utf8_lossy(&outcome.body)
        ));
    }
    let payload = match outcome.body.windows(8).position(|w| w == [0u8; 8]) {
        Some(i) if outcome.mode == "streaming" => &outcome.body[i + 8..],
        _ => &outcome.body[..],
    };
    if !String::from_utf8_lossy(payload).contains(expect) {
        return Err(format!(
            "{}: answer lacks {expect:?}: {}",
            binary.display(),
            String::from_utf8_lossy(&payload[..payload.len().min(400)])
        ));
    }
    let (rss_kib, hwm_kib) = memory?;
    Ok(ColdRun {
        elapsed_ms: (outcome.at - started).as_secs_f64() * 1e3,
        rss_kib,
        hwm_kib,
        mode: outcome.mode,
    })
}

/// An API Gateway REST (v1) proxy event POSTing `body` to `/mcp` with a bearer token.
pub fn apigw_event(token: &str, body: &str) -> Vec<u8> {
    let host = "abc123defg.execute-api.us-east-1.amazonaws.com";
    let headers = serde_json::json!({
        "Accept": "application/json, text/event-stream",
        "Authorization": format!("Bearer {token}"),
        "Content-Type": "application/json",
        "Host": host,
        "MCP-Protocol-Version": "2025-11-25",
        "User-Agent": "kobana-bench/0",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Port": "443"
    });
    let multi: serde_json::Map<String, serde_json::Value> = headers
        .as_object()
        .expect("object")
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::json!([v])))
        .collect();
    serde_json::json!({
        "resource": "/mcp",
        "path": "/mcp",
        "httpMethod": "POST",
        "headers": headers,
        "multiValueHeaders": multi,
        "queryStringParameters": null,
        "multiValueQueryStringParameters": null,
        "pathParameters": null,
        "stageVariables": null,
        "requestContext": {
            "resourceId": "a1b2c3",
            "resourcePath": "/mcp",
            "httpMethod": "POST",
            "requestTime": "30/Nov/2026:12:00:00 +0000",
            "path": "/prod/mcp",
            "accountId": "123456789012",
            "protocol": "HTTP/1.1",
            "stage": "prod",
            "domainPrefix": "abc123defg",
            "requestTimeEpoch": 1796040000000u64,
            "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
            "identity": {"sourceIp": "127.0.0.1", "userAgent": "kobana-bench/0"},
            "domainName": host,
            "apiId": "abc123defg"
        },
        "body": body,
        "isBase64Encoded": false
    })
    .to_string()
    .into_bytes()
}
