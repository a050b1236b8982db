//! The server on a thread of its own, its own runtime, under a given tracing dispatcher: for
//! the tests that read what the server logs (a default dispatcher is per thread).

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use kobana_mcp::telemetry::logging::{json_subscriber, log_filter};
use kobana_mcp::{App, Config};

/// An in-memory log that a server's JSON-lines subscriber writes into.
#[derive(Clone, Default)]
pub struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl LogBuffer {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).expect("UTF-8 log")
    }
}

impl Write for LogBuffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A running server; [`ThreadServer::stop`] ends it and joins its thread.
pub struct ThreadServer {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ThreadServer {
    /// Starts `App::new(config)` on 127.0.0.1 with `dispatch` as the thread's dispatcher;
    /// `on_start` runs first, under it.
    pub fn start(config: Config, dispatch: tracing::Dispatch, on_start: fn()) -> Self {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let _guard = tracing::dispatcher::set_default(&dispatch);
            on_start();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let app = App::new(config).expect("app builds");
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                tokio::select! {
                    _ = kobana_mcp::serve(app, listener) => {}
                    _ = stopped => {}
                }
            });
        });
        let addr = addr_rx.recv().expect("server started");
        Self {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Starts `App::new(config)` under the server's own JSON-lines subscriber at its default
    /// filter, writing into the returned buffer.
    pub fn start_logged(config: Config) -> (Self, LogBuffer) {
        let log = LogBuffer::default();
        let writer = log.clone();
        let subscriber = json_subscriber(log_filter(None), move || writer.clone());
        let server = Self::start(config, tracing::Dispatch::new(subscriber), || {});
        (server, log)
    }

    /// The MCP endpoint's URL.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops the server and waits for its thread.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().expect("server thread");
        }
    }
}
