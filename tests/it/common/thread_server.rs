//! The server on a thread of its own, its own runtime, under a given tracing dispatcher: for
//! the tests that read what the server logs (a default dispatcher is per thread).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use kobana_mcp::{App, Config};

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
        undecided_by_default();
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
        // A callsite whose first hit raced the install above kept what it computed without
        // it; read them all again now that it is certainly there.
        tracing::callsite::rebuild_interest_cache();
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
        let subscriber = kobana_mcp::telemetry::logging::json_subscriber(
            kobana_mcp::telemetry::logging::log_filter(None),
            move || writer.clone(),
        );
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

/// Every test area shares this process, and most run servers on threads with no dispatcher.
/// A callsite first hit there is cached as "never" for the whole process, and a server whose
/// thread does have a dispatcher then loses that event. A process-wide default that answers
/// "sometimes" to every callsite (and enables nothing) keeps each callsite's interest open, so
/// each event asks the dispatcher of the thread it happens on.
fn undecided_by_default() {
    struct Undecided;
    impl tracing::Subscriber for Undecided {
        fn register_callsite(
            &self,
            _: &'static tracing::Metadata<'static>,
        ) -> tracing::subscriber::Interest {
            tracing::subscriber::Interest::sometimes()
        }
        fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
            Some(tracing::level_filters::LevelFilter::TRACE)
        }
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            false
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, _: &tracing::Event<'_>) {}
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Installing it re-reads every callsite registered so far.
        let _ = tracing::subscriber::set_global_default(Undecided);
    });
}

/// Where a test's subscriber writes the server's log lines (clone it into the writer).
#[derive(Clone, Default)]
pub struct LogBuffer(pub Arc<Mutex<Vec<u8>>>);

impl LogBuffer {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for LogBuffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
