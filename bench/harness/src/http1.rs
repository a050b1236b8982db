//! A minimal HTTP/1.1 keep-alive client over a raw TCP stream: pre-built request bytes in,
//! status and body out (Content-Length or chunked). Lean on purpose, so that the client side
//! costs far less than any server it measures.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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
        out.push_str(name);
        out.push_str(": ");
        out.push_str(value);
        out.push_str("\r\n");
    }
    if method != "GET" || !body.is_empty() {
        out.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The standard headers of an MCP POST in the given era with a bearer token.
pub fn mcp_headers(
    token: &str,
    method: &str,
    name: Option<&str>,
    modern: bool,
) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        (
            "accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
        ("authorization".to_owned(), format!("Bearer {token}")),
    ];
    if modern {
        headers.push(("mcp-protocol-version".to_owned(), "2026-07-28".to_owned()));
        headers.push(("mcp-method".to_owned(), method.to_owned()));
        if let Some(name) = name {
            headers.push(("mcp-name".to_owned(), name.to_owned()));
        }
    } else {
        headers.push(("mcp-protocol-version".to_owned(), "2025-11-25".to_owned()));
    }
    headers
}

/// A JSON-RPC request body in the given era (`_meta` envelope for 2026-07-28).
pub fn mcp_body(id: u64, method: &str, mut params: serde_json::Value, modern: bool) -> Vec<u8> {
    if modern {
        params["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "kobana-bench", "version": "0"}
        });
    }
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

/// One keep-alive connection.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The last response's body (only when the request asked to keep it).
    pub body: Vec<u8>,
    /// The last response's body length.
    pub body_len: usize,
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

impl Conn {
    /// Connects with `TCP_NODELAY`.
    pub async fn connect(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            buf: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            body: Vec::new(),
            body_len: 0,
        })
    }

    async fn fill(&mut self) -> io::Result<()> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                let grow = self.buf.len();
                self.buf.resize(self.buf.len() + grow, 0);
            }
        }
        let n = self.stream.read(&mut self.buf[self.end..]).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "server closed the connection",
            ));
        }
        self.end += n;
        Ok(())
    }

    async fn line(&mut self) -> io::Result<(usize, usize)> {
        loop {
            if let Some(i) = find(&self.buf[self.start..self.end], b"\r\n") {
                let line = (self.start, self.start + i);
                self.start += i + 2;
                return Ok(line);
            }
            self.fill().await?;
        }
    }

    /// Takes `n` body bytes (kept or only counted), reading as needed.
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
            self.body_len += k;
            self.start += k;
            n -= k;
        }
        Ok(())
    }

    /// Sends `request` and reads the whole response; returns the status. The body is in
    /// `self.body` when `keep_body`, and its length in `self.body_len` either way.
    pub async fn send(&mut self, request: &[u8], keep_body: bool) -> io::Result<u16> {
        self.stream.write_all(request).await?;
        self.read_response(keep_body).await
    }

    /// Reads one response (after the request was written).
    pub async fn read_response(&mut self, keep_body: bool) -> io::Result<u16> {
        self.body.clear();
        self.body_len = 0;
        let (a, b) = self.line().await?;
        let status_line = &self.buf[a..b];
        let status = status_line
            .split(|c| *c == b' ')
            .nth(1)
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| bad("malformed status line"))?;
        let mut length: Option<usize> = None;
        let mut chunked = false;
        loop {
            let (a, b) = self.line().await?;
            if a == b {
                break;
            }
            let header = &self.buf[a..b];
            let Some(colon) = header.iter().position(|c| *c == b':') else {
                continue;
            };
            let name = &header[..colon];
            let value = std::str::from_utf8(&header[colon + 1..])
                .unwrap_or("")
                .trim();
            if name.eq_ignore_ascii_case(b"content-length") {
                length = Some(value.parse().map_err(|_| bad("bad content-length"))?);
            } else if name.eq_ignore_ascii_case(b"transfer-encoding")
                && value.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            }
        }
        if chunked {
            loop {
                let (a, b) = self.line().await?;
                let size_text = std::str::from_utf8(&self.buf[a..b]).unwrap_or("");
                let size_text = size_text.split(';').next().unwrap_or("").trim();
                let size =
                    usize::from_str_radix(size_text, 16).map_err(|_| bad("bad chunk size"))?;
                if size == 0 {
                    // Trailers, then the empty line.
                    loop {
                        let (a, b) = self.line().await?;
                        if a == b {
                            break;
                        }
                    }
                    break;
                }
                self.take(size, keep_body).await?;
                let (a, b) = self.line().await?;
                if a != b {
                    return Err(bad("chunk not followed by CRLF"));
                }
            }
        } else if let Some(n) = length {
            self.take(n, keep_body).await?;
        } else if status != 204 && status != 304 && !(100..200).contains(&status) {
            return Err(bad(
                "response without length (read-to-close is not supported)",
            ));
        }
        Ok(status)
    }
}

/// One request on a fresh connection, body kept.
pub async fn once(addr: SocketAddr, request: &[u8]) -> io::Result<(u16, Vec<u8>)> {
    let mut conn = Conn::connect(addr).await?;
    let status = conn.send(request, true).await?;
    Ok((status, std::mem::take(&mut conn.body)))
}

/// `127.0.0.1:PORT` out of `http://127.0.0.1:PORT[/…]`.
pub fn addr_of(url: &str) -> Result<SocketAddr, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("not an http:// URL: {url}"))?;
    let host = rest.split('/').next().unwrap_or(rest);
    let addr: SocketAddr = host
        .parse()
        .map_err(|e| format!("not an IP:port URL ({url}): {e}"))?;
    if !addr.ip().is_loopback() {
        return Err(format!("refusing a non-loopback address: {addr}"));
    }
    Ok(addr)
}
