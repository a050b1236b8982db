//! Minimal HTTP/1.1 over raw loopback TCP, both ways: pre-built request bytes out, a message
//! (request or response) read back with its body (Content-Length or chunked). Lean on purpose,
//! so that the load generator costs far less than any server it measures; the same reader
//! serves the canned upstream and the Lambda Runtime API emulator.

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Builds a request: `method path`, `Host`, the extra headers, and `body` with its length.
pub fn request(
    method: &str,
    addr: SocketAddr,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\nhost: {addr}\r\n");
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The headers of an MCP POST in era 2026 (`modern`) or 2025 with a bearer token.
pub fn mcp_headers(
    token: &str,
    method: &str,
    name: Option<&str>,
    modern: bool,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        (
            "mcp-protocol-version",
            if modern { "2026-07-28" } else { "2025-11-25" },
        ),
    ]
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .to_vec();
    headers.push(("authorization".to_owned(), format!("Bearer {token}")));
    if modern {
        headers.push(("mcp-method".to_owned(), method.to_owned()));
        headers.extend(name.map(|n| ("mcp-name".to_owned(), n.to_owned())));
    }
    headers
}

/// A JSON-RPC request body in the given era (`_meta` envelope for 2026-07-28).
pub fn mcp_body(method: &str, mut params: Value, modern: bool) -> Vec<u8> {
    if modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "kobana-bench", "version": "0"}
        });
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

/// A whole MCP POST to `addr`'s `/mcp`.
pub fn mcp_post(
    addr: SocketAddr,
    token: &str,
    method: &str,
    params: Value,
    modern: bool,
) -> Vec<u8> {
    let name = params["name"].as_str().or(params["uri"].as_str());
    let headers = mcp_headers(token, method, name, modern);
    request(
        "POST",
        addr,
        "/mcp",
        &headers,
        &mcp_body(method, params, modern),
    )
}

/// A GET to the fake Kobana as our server sends it (bodyless requests carry Content-Type too:
/// docs/contract.md).
pub fn kobana_get(addr: SocketAddr, token: &str, path: &str) -> Vec<u8> {
    let headers = [
        ("authorization", format!("Bearer {token}")),
        (
            "user-agent",
            "kobana-bench <suporte@kobana.com.br>".to_owned(),
        ),
        ("accept", "application/json".to_owned()),
        ("content-type", "application/json".to_owned()),
    ]
    .map(|(k, v)| (k.to_owned(), v));
    request("GET", addr, path, &headers, b"")
}

/// Whether a body is a successful JSON-RPC answer (`result` near its start) and, for a tool
/// call, not `isError`.
pub fn answer_ok(body: &[u8], tool_call: bool) -> bool {
    let has = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    has(&body[..body.len().min(160)], b"\"result\"")
        && !(tool_call && has(body, b"\"isError\":true"))
}

/// The start line and headers of a message.
pub struct Head {
    /// `GET /path HTTP/1.1` or `HTTP/1.1 200 OK`.
    pub line: String,
    /// Header names and values as sent.
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut found = self
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name));
        found.next().map(|(_, v)| v.as_str())
    }

    /// A response's status.
    pub fn status(&self) -> u16 {
        self.line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_owned())
}

/// One keep-alive connection.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Re-arm `TCP_QUICKACK` before every read (the emulator: see `cold.rs`).
    quickack: bool,
    /// The last message's body (when kept).
    pub body: Vec<u8>,
}

impl Conn {
    /// Wraps a stream with `TCP_NODELAY`.
    pub fn new(stream: TcpStream, quickack: bool) -> Self {
        let _ = stream.set_nodelay(true);
        let buf = vec![0; 64 * 1024];
        Self {
            stream,
            buf,
            start: 0,
            end: 0,
            quickack,
            body: Vec::new(),
        }
    }

    /// Connects to `addr`.
    pub async fn connect(addr: SocketAddr) -> io::Result<Self> {
        Ok(Self::new(TcpStream::connect(addr).await?, false))
    }

    /// Writes `bytes` whole.
    pub async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes).await
    }

    async fn fill(&mut self) -> io::Result<()> {
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        } else if self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
            if self.end == self.buf.len() {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        if self.quickack {
            quickack(&self.stream);
        }
        let n = self.stream.read(&mut self.buf[self.end..]).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed",
            ));
        }
        self.end += n;
        Ok(())
    }

    async fn line(&mut self) -> io::Result<String> {
        loop {
            let window = &self.buf[self.start..self.end];
            if let Some(i) = window.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&window[..i]).into_owned();
                self.start += i + 2;
                return Ok(line);
            }
            self.fill().await?;
        }
    }

    /// Takes `n` body bytes, kept in `self.body` when `keep`.
    async fn take(&mut self, mut n: usize, keep: bool) -> io::Result<()> {
        while n > 0 {
            if self.start == self.end {
                self.fill().await?;
            }
            let k = n.min(self.end - self.start);
            if keep {
                self.body
                    .extend_from_slice(&self.buf[self.start..self.start + k]);
            }
            (self.start, n) = (self.start + k, n - k);
        }
        Ok(())
    }

    /// Reads one message (a request or a response); its body is in `self.body` when `keep`.
    /// A message without Content-Length or chunking has no body.
    pub async fn read(&mut self, keep: bool) -> io::Result<Head> {
        self.body.clear();
        let line = self.line().await?;
        let mut headers = Vec::new();
        loop {
            let header = self.line().await?;
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').ok_or_else(|| bad("bad header"))?;
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let head = Head { line, headers };
        if head
            .header("transfer-encoding")
            .is_some_and(|v| v.contains("chunked"))
        {
            loop {
                let size = self.line().await?;
                let size = size.split(';').next().unwrap_or_default().trim();
                let size = usize::from_str_radix(size, 16).map_err(|_| bad("bad chunk size"))?;
                if size == 0 {
                    while !self.line().await?.is_empty() {} // trailers
                    break;
                }
                self.take(size, keep).await?;
                self.line().await?;
            }
        } else if let Some(n) = head.header("content-length") {
            self.take(n.parse().map_err(|_| bad("bad content-length"))?, keep)
                .await?;
        }
        Ok(head)
    }

    /// Sends `request` and reads the response; returns the status (body in `self.body` when
    /// `keep`).
    pub async fn send(&mut self, request: &[u8], keep: bool) -> io::Result<u16> {
        self.write(request).await?;
        Ok(self.read(keep).await?.status())
    }
}

/// Sets `TCP_QUICKACK` on a socket (the kernel clears it again after a while).
pub fn quickack(stream: &impl AsRawFd) {
    let one: libc::c_int = 1;
    // SAFETY: a valid socket fd and a pointer to a c_int of the right size.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_QUICKACK,
            (&one as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// One request on a fresh connection, body kept.
pub async fn once(addr: SocketAddr, request: &[u8]) -> io::Result<(u16, Vec<u8>)> {
    let mut conn = Conn::connect(addr).await?;
    let status = conn.send(request, true).await?;
    Ok((status, std::mem::take(&mut conn.body)))
}

/// `127.0.0.1:PORT` out of `http://127.0.0.1:PORT[/…]` (loopback only).
pub fn addr_of(url: &str) -> Result<SocketAddr, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("not http://: {url}"))?;
    let addr: SocketAddr = rest
        .split('/')
        .next()
        .unwrap_or(rest)
        .parse()
        .map_err(|e| format!("{url}: {e}"))?;
    addr.ip()
        .is_loopback()
        .then_some(addr)
        .ok_or_else(|| format!("not loopback: {addr}"))
}

/// A server that answers every request with `body` from memory (JSON, 200), on the calling
/// runtime: the in-process upstream and the load generator's ceiling. Answers its address.
pub async fn canned(body: Vec<u8>) -> Result<SocketAddr, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let response = Arc::new(response);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let response = response.clone();
            tokio::spawn(async move {
                let mut conn = Conn::new(stream, false);
                while conn.read(false).await.is_ok() && conn.write(&response).await.is_ok() {}
            });
        }
    });
    Ok(addr)
}
