//! A server that answers every request with the same bytes from memory: the generator's
//! ceiling (how fast the load generator can go when the server costs ~nothing) and the
//! in-process upstream for the handler timing.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A complete `200 OK` response carrying `body`.
pub fn response(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn content_length(head: &[u8]) -> usize {
    let text = String::from_utf8_lossy(head);
    text.lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}

async fn connection(mut stream: TcpStream, response: Arc<Vec<u8>>) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut have = 0usize;
    loop {
        let head_end = loop {
            if let Some(i) = find(&buf[..have], b"\r\n\r\n") {
                break i + 4;
            }
            if have == buf.len() {
                buf.resize(buf.len() * 2, 0);
            }
            let n = stream.read(&mut buf[have..]).await?;
            if n == 0 {
                return Ok(());
            }
            have += n;
        };
        let total = head_end + content_length(&buf[..head_end]);
        while have < total {
            if total > buf.len() {
                buf.resize(total, 0);
            }
            let n = stream.read(&mut buf[have..]).await?;
            if n == 0 {
                return Ok(());
            }
            have += n;
        }
        buf.copy_within(total..have, 0);
        have -= total;
        stream.write_all(&response).await?;
    }
}

/// Serves `response` to every request on `listener` until the runtime stops.
pub async fn serve(listener: TcpListener, response: Arc<Vec<u8>>) {
    while let Ok((stream, _)) = listener.accept().await {
        let response = response.clone();
        tokio::spawn(async move {
            let _ = connection(stream, response).await;
        });
    }
}

/// Runs [`serve`] on its own thread, pinned to `cpu`, with a single-threaded runtime.
/// Returns the address; the thread lives until the process ends.
pub fn spawn_thread(cpu: Option<usize>, response: Vec<u8>) -> Result<SocketAddr, String> {
    let std_listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("canned server: {e}"))?;
    std_listener
        .set_nonblocking(true)
        .map_err(|e| format!("canned server: {e}"))?;
    let addr = std_listener
        .local_addr()
        .map_err(|e| format!("canned server: {e}"))?;
    let response = Arc::new(response);
    std::thread::Builder::new()
        .name("canned-server".into())
        .spawn(move || {
            if let Some(cpu) = cpu {
                let _ = crate::procs::pin(0, cpu);
            }
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("listener");
                serve(listener, response).await;
            });
        })
        .map_err(|e| format!("canned server thread: {e}"))?;
    Ok(addr)
}
