//! Bare relays: the floors for any server that answers a PDF fetched from Kobana, on this
//! machine.
//!
//! One OS thread pinned where the measured servers run, blocking sockets, no async runtime, no
//! MCP, no JSON-RPC parsing: for each request on its keep-alive connection it GETs the document
//! from the fake Kobana over its own keep-alive connection and answers a chunked body. In
//! [`Mode::Base64`] that body is a fixed JSON prefix, the document in base64 (the same
//! `base64-simd` encoder as our server, in 128 KiB frames) and a fixed suffix: whatever our
//! server spends beyond it is protocol and runtime. In [`Mode::Raw`] the document's bytes go
//! out untouched: what that costs beyond a plain fetch is the second hop alone.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Base64 bytes gathered before one chunk is written (as in our server).
const FRAME: usize = 128 * 1024;
/// Socket read size.
const READ: usize = 256 * 1024;
/// Room for the chunk-size line in front of a frame (`ffffff\r\n`).
const HEAD: usize = 10;

/// What the relay answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `prefix`, the document in base64, `suffix`.
    Base64,
    /// The document's bytes as they came (prefix and suffix still around them).
    Raw,
}

/// The running relay; dropping it stops it after its current connection.
pub struct Relay {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the blocking accept so that the thread sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Starts the relay on a loopback port: each request it receives is answered with the body of
/// `upstream_request` (pre-built bytes) sent to `upstream`, base64-encoded inside `prefix` …
/// `suffix` (or untouched, in [`Mode::Raw`]). The thread pins itself to `cpu`.
pub fn start(
    mode: Mode,
    upstream: SocketAddr,
    upstream_request: Vec<u8>,
    prefix: Vec<u8>,
    suffix: Vec<u8>,
    cpu: Option<usize>,
) -> io::Result<Relay> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("bare-relay".into())
        .spawn(move || {
            if let Some(cpu) = cpu
                && let Err(e) = crate::procs::pin(0, cpu)
            {
                eprintln!("relay: cannot pin to CPU {cpu}: {e}");
            }
            let job = Job {
                mode,
                upstream,
                upstream_request,
                prefix,
                suffix,
            };
            for client in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    return;
                }
                if let Ok(client) = client
                    && let Err(e) = job.serve(client)
                    && e.kind() != io::ErrorKind::UnexpectedEof
                {
                    eprintln!("relay: {e}");
                }
            }
        })?;
    Ok(Relay { addr, stop })
}

struct Job {
    mode: Mode,
    upstream: SocketAddr,
    upstream_request: Vec<u8>,
    prefix: Vec<u8>,
    suffix: Vec<u8>,
}

impl Job {
    /// Serves one client connection until it closes.
    fn serve(&self, client: TcpStream) -> io::Result<()> {
        client.set_nodelay(true)?;
        let mut writer = client.try_clone()?;
        let mut from_client = Reader::new(client);
        let up = TcpStream::connect(self.upstream)?;
        up.set_nodelay(true)?;
        let mut to_up = up.try_clone()?;
        let mut from_up = Reader::new(up);
        let mut out = Encoder::new(self.mode);
        loop {
            let request = from_client.head()?;
            let length = request
                .header("content-length")
                .map(|v| v.parse::<usize>().map_err(|_| bad("bad content-length")))
                .transpose()?
                .unwrap_or(0);
            from_client.take(length, |_| Ok(()))?;

            to_up.write_all(&self.upstream_request)?;
            let response = from_up.head()?;
            if !response.start.starts_with("HTTP/1.1 200") {
                return Err(bad(format!("upstream answered {}", response.start)));
            }
            let mut start = Vec::with_capacity(128 + self.prefix.len());
            start.extend_from_slice(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
            );
            chunk(&mut start, &self.prefix);
            writer.write_all(&start)?;

            if let Some(length) = response.header("content-length") {
                let n = length.parse().map_err(|_| bad("bad content-length"))?;
                from_up.take(n, |piece| out.push(piece, &mut writer))?;
            } else {
                loop {
                    let line = from_up.line()?;
                    let size = line.split(';').next().unwrap_or("").trim();
                    let size = usize::from_str_radix(size, 16).map_err(|_| bad("chunk size"))?;
                    if size == 0 {
                        while !from_up.line()?.is_empty() {}
                        break;
                    }
                    from_up.take(size, |piece| out.push(piece, &mut writer))?;
                    from_up.line()?;
                }
            }
            out.finish(&mut writer)?;
            let mut end = Vec::with_capacity(16 + self.suffix.len());
            chunk(&mut end, &self.suffix);
            end.extend_from_slice(b"0\r\n\r\n");
            writer.write_all(&end)?;
        }
    }
}

/// Appends `data` as one chunk (nothing when empty: a zero-size chunk ends the body).
fn chunk(out: &mut Vec<u8>, data: &[u8]) {
    if data.is_empty() {
        return;
    }
    out.extend_from_slice(format!("{:x}\r\n", data.len()).as_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// A request or response head.
struct Head {
    /// The request or status line.
    start: String,
    headers: Vec<(String, String)>,
}

impl Head {
    /// A header's value (the first one with that name).
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Buffered reads from a blocking socket.
struct Reader {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Reader {
    fn new(stream: TcpStream) -> Self {
        Self {
            stream,
            buf: vec![0; READ],
            start: 0,
            end: 0,
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.buf.len() {
                return Err(bad("line longer than the read buffer"));
            }
        }
        let n = self.stream.read(&mut self.buf[self.end..])?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed"));
        }
        self.end += n;
        Ok(())
    }

    /// One line without its CRLF.
    fn line(&mut self) -> io::Result<String> {
        loop {
            let window = &self.buf[self.start..self.end];
            if let Some(i) = window.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&window[..i]).into_owned();
                self.start += i + 2;
                return Ok(line);
            }
            self.fill()?;
        }
    }

    /// A request or response head.
    fn head(&mut self) -> io::Result<Head> {
        let mut head = Head {
            start: self.line()?,
            headers: Vec::new(),
        };
        loop {
            let line = self.line()?;
            if line.is_empty() {
                return Ok(head);
            }
            if let Some((name, value)) = line.split_once(':') {
                head.headers
                    .push((name.to_owned(), value.trim().to_owned()));
            }
        }
    }

    /// Hands `n` bytes to `each`, piece by piece as they arrive, without copying them again.
    fn take(
        &mut self,
        mut n: usize,
        mut each: impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        while n > 0 {
            if self.start == self.end {
                self.fill()?;
            }
            let k = n.min(self.end - self.start);
            each(&self.buf[self.start..self.start + k])?;
            self.start += k;
            n -= k;
        }
        Ok(())
    }
}

/// Incremental base64 into chunked frames, at most two bytes carried between pieces (or, in
/// [`Mode::Raw`], the bytes copied into the frames as they are).
struct Encoder {
    mode: Mode,
    buf: Vec<u8>,
    len: usize,
    carry: [u8; 3],
    carried: usize,
}

impl Encoder {
    fn new(mode: Mode) -> Self {
        Self {
            mode,
            // One frame, plus the largest piece's encoding, plus the trailing CRLF.
            buf: vec![0; HEAD + FRAME + READ.div_ceil(3) * 4 + 8],
            len: HEAD,
            carry: [0; 3],
            carried: 0,
        }
    }

    fn push(&mut self, mut piece: &[u8], w: &mut TcpStream) -> io::Result<()> {
        if self.mode == Mode::Raw {
            self.buf[self.len..self.len + piece.len()].copy_from_slice(piece);
            self.len += piece.len();
            return if self.len - HEAD >= FRAME {
                self.flush(w)
            } else {
                Ok(())
            };
        }
        if self.carried > 0 {
            let take = (3 - self.carried).min(piece.len());
            self.carry[self.carried..self.carried + take].copy_from_slice(&piece[..take]);
            self.carried += take;
            piece = &piece[take..];
            if self.carried < 3 {
                return Ok(());
            }
            let carry = self.carry;
            self.append(&carry);
            self.carried = 0;
        }
        let whole = piece.len() / 3 * 3;
        self.append(&piece[..whole]);
        let rest = &piece[whole..];
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carried = rest.len();
        if self.len - HEAD >= FRAME {
            self.flush(w)?;
        }
        Ok(())
    }

    fn append(&mut self, src: &[u8]) {
        let n = base64_simd::STANDARD.encoded_length(src.len());
        let _ = base64_simd::STANDARD.encode(
            src,
            base64_simd::Out::from_slice(&mut self.buf[self.len..self.len + n]),
        );
        self.len += n;
    }

    fn flush(&mut self, w: &mut TcpStream) -> io::Result<()> {
        let size = self.len - HEAD;
        if size == 0 {
            return Ok(());
        }
        let line = format!("{size:x}\r\n");
        let from = HEAD - line.len();
        self.buf[from..HEAD].copy_from_slice(line.as_bytes());
        self.buf[self.len..self.len + 2].copy_from_slice(b"\r\n");
        w.write_all(&self.buf[from..self.len + 2])?;
        self.len = HEAD;
        Ok(())
    }

    /// The end of the document: the carried bytes with padding, and the last frame.
    fn finish(&mut self, w: &mut TcpStream) -> io::Result<()> {
        let carry = self.carry;
        self.append(&carry[..self.carried]);
        self.carried = 0;
        self.flush(w)
    }
}
