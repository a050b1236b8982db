//! Serving the app on a local TCP listener (outside Lambda).
//!
//! Every connection is bounded in time (BW-7), by two limits of the configuration:
//!
//! - the header-read timeout (`MCP_HEADER_READ_TIMEOUT_MS`, hyper's own): a request head must
//!   be complete within it, counted from the moment the connection is ready for one (accepted,
//!   or its previous answer sent), so neither a partial head nor an idle kept-alive
//!   connection holds a slot longer;
//! - the idle timeout (`MCP_IDLE_TIMEOUT_MS`, [`IdleIo`]): once a head is in, a connection
//!   on which no byte moves either way for that long (a stalled body, a client that stopped
//!   reading) is closed.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::time::{Instant, Sleep};

use super::App;

/// How long to wait before accepting again after `accept` failed (e.g. out of descriptors).
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until the process ends. Each connection runs on its own task,
/// under the configuration's header-read and idle timeouts.
pub async fn serve(app: App, listener: TcpListener) -> std::io::Result<()> {
    let header_read_timeout = app.config().header_read_timeout;
    let idle_timeout = app.config().idle_timeout;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let app = app.clone();
                async move { Ok::<_, Infallible>(app.handle(request).await) }
            });
            let io = TokioIo::new(IdleIo::new(stream, idle_timeout));
            if let Err(error) = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout)
                .keep_alive(true)
                .serve_connection(io, service)
                .await
            {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
        });
    }
}

/// An I/O stream that fails with [`io::ErrorKind::TimedOut`] once a read or write has waited
/// `idle` since the last byte moved either way.
pub(crate) struct IdleIo<T> {
    inner: T,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<T> IdleIo<T> {
    /// Wraps `inner`; the clock starts now.
    pub(crate) fn new(inner: T, idle: Duration) -> Self {
        Self {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    /// Something moved: the clock starts again.
    fn progressed(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.idle);
    }

    /// The inner stream is waiting: an error once the idle time is spent (the sleep's waker
    /// is registered either way, so the wait ends on its own).
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "connection idle too long")
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.progressed();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, data) {
            Poll::Ready(Ok(written)) => {
                if written > 0 {
                    this.progressed();
                }
                Poll::Ready(Ok(written))
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_stream_that_moves_nothing_times_out_and_one_that_moves_does_not() {
        let idle = Duration::from_millis(400);
        let (mut client, server) = tokio::io::duplex(64);
        let mut io = IdleIo::new(server, idle);
        tokio::spawn(async move {
            for _ in 0..4 {
                tokio::time::sleep(idle / 4).await;
                client.write_all(b"x").await.unwrap();
            }
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(client);
        });
        let mut byte = [0u8; 1];
        for _ in 0..4 {
            io.read_exact(&mut byte)
                .await
                .expect("a byte every 100 ms keeps it alive");
        }
        let started = Instant::now();
        let error = io.read_exact(&mut byte).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= idle / 2 && waited < Duration::from_secs(10),
            "{waited:?}"
        );
    }
}
