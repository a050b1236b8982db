//! The local listener's header-read and idle timeouts (BW-7).
//!
//! Replayed: connections that send part of a request head and then nothing (the attempt left
//! three of them open after 35 s) are closed once the header-read timeout has passed; a
//! connection whose head is complete but whose body stalls is closed once the idle timeout
//! has passed. The timeouts are set short here (`MCP_HEADER_READ_TIMEOUT_MS`,
//! `MCP_IDLE_TIMEOUT_MS`); their defaults are checked in `config.rs`. The bounds asserted are
//! generous (seconds over the timeout), never tight.

use crate::common;

use std::time::{Duration, Instant};

use common::Stack;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const HEADER_READ: Duration = Duration::from_millis(500);
const IDLE: Duration = Duration::from_millis(800);
/// How much later than its timeout a connection may close and still pass.
const MARGIN: Duration = Duration::from_secs(5);
/// The timeout a test does not exercise: far longer than the test runs.
const LONG: Duration = Duration::from_secs(60);

/// A stack whose listener has these two timeouts.
async fn stack(header_read: Duration, idle: Duration) -> Stack {
    Stack::start_with(|c| {
        c.header_read_timeout = header_read;
        c.idle_timeout = idle;
    })
    .await
}

fn address(stack: &Stack) -> String {
    stack
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// Reads until the server closes the connection; how long that took, or `None` if it was
/// still open after `limit`.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at((started + limit).into(), stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn n10_partial_header_connections_are_closed_within_the_header_read_timeout() {
    let stack = stack(HEADER_READ, LONG).await;
    let mut streams = Vec::new();
    for i in 0..3 {
        let mut stream = TcpStream::connect(address(&stack)).await.unwrap();
        let partial = format!("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-{i}: ");
        stream.write_all(partial.as_bytes()).await.unwrap();
        streams.push(stream);
    }
    for (i, stream) in streams.iter_mut().enumerate() {
        let waited = closed_within(stream, HEADER_READ + MARGIN).await;
        let waited = waited.unwrap_or_else(|| panic!("connection {i} still open"));
        eprintln!("partial head {i}: closed after {waited:?}");
    }
    // The server still answers a whole request on a fresh connection.
    let (status, _) = stack
        .legacy(&fake_kobana::full_token(), "ping", serde_json::json!({}))
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn n10_a_stalled_body_is_closed_within_the_idle_timeout() {
    let stack = stack(LONG, IDLE).await;
    let mut stream = TcpStream::connect(address(&stack)).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 100\r\n\r\n{{\"jsonrpc\":",
        fake_kobana::full_token()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let waited = closed_within(&mut stream, IDLE + MARGIN).await;
    let waited = waited.expect("the stalled connection is closed");
    eprintln!("stalled body: closed after {waited:?}");
}

#[tokio::test]
async fn n10_an_idle_kept_alive_connection_is_closed_too() {
    let stack = stack(HEADER_READ, LONG).await;
    let mut stream = TcpStream::connect(address(&stack)).await.unwrap();
    let request =
        "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200", "the request is answered");
    let waited = closed_within(&mut stream, HEADER_READ + MARGIN).await;
    waited.expect("the kept-alive connection is closed once idle");
}
