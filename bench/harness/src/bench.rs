//! The harness's options, repetition counts and shared state (`Bench`), and the machine description.

use super::*;

pub(crate) struct Opts {
    pub(crate) smoke: bool,
    pub(crate) kobana_bin: PathBuf,
    pub(crate) hello_bin: PathBuf,
    /// The arm64 build `sam build` makes (`cargo lambda build --release --arm64`), if built.
    pub(crate) arm64_bin: Option<PathBuf>,
    pub(crate) node: PathBuf,
    pub(crate) python: PathBuf,
    pub(crate) peers: PathBuf,
    pub(crate) sdk: PathBuf,
    pub(crate) out: PathBuf,
    pub(crate) benchmarks_md: Option<PathBuf>,
    pub(crate) sections: Vec<String>,
    pub(crate) info: Vec<(String, String)>,
}

impl Opts {
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut map = std::collections::HashMap::new();
        let mut info = Vec::new();
        let mut smoke = false;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--smoke" => smoke = true,
                "--info" => {
                    let v = it.next().ok_or("--info needs K=V")?;
                    let (k, v) = v.split_once('=').ok_or("--info needs K=V")?;
                    info.push((k.to_owned(), v.to_owned()));
                }
                flag if flag.starts_with("--") => {
                    let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
                    map.insert(flag.trim_start_matches("--").to_owned(), v.clone());
                }
                other => return Err(format!("unexpected argument {other}")),
            }
        }
        let path = |k: &str| {
            map.get(k)
                .map(PathBuf::from)
                .ok_or_else(|| format!("--{k} is required"))
        };
        Ok(Self {
            smoke,
            kobana_bin: path("kobana-bin")?,
            hello_bin: path("hello-bin")?,
            arm64_bin: map.get("arm64-bin").map(PathBuf::from),
            node: path("node")?,
            python: path("python")?,
            peers: path("peers")?,
            sdk: path("sdk")?,
            out: path("out")?,
            benchmarks_md: map.get("benchmarks-md").map(PathBuf::from),
            sections: map
                .get("sections")
                .map(|s| s.split(',').map(str::to_owned).collect())
                .unwrap_or_else(|| {
                    [
                        "context", "load", "fanout", "generic", "pdf", "cold", "inproc", "memory",
                        "bounded", "audit",
                    ]
                    .map(str::to_owned)
                    .to_vec()
                }),
            info,
        })
    }

    pub(crate) fn wants(&self, section: &str) -> bool {
        self.sections.iter().any(|s| s == section)
    }
}

/// Repetition counts: full run or smoke.
pub(crate) struct Counts {
    pub(crate) cold_runs: usize,
    pub(crate) load_rounds: usize,
    pub(crate) load_warmup: Duration,
    pub(crate) load_window: Duration,
    pub(crate) server_warmup: Duration,
    pub(crate) fanout_reps: usize,
    pub(crate) pdf_reps: usize,
    pub(crate) inproc_warmup: usize,
    pub(crate) inproc_n: usize,
    /// Bounded work, BW-1: (batches, requests per batch), timed per batch (10 ms CPU ticks).
    pub(crate) bounded_batches: (usize, usize),
    /// Bounded work, BW-8: requests per 400 MB body.
    pub(crate) bounded_reps: usize,
    /// Fan-out with a cold name cache: fresh servers, one prompt each.
    pub(crate) fanout_cold_reps: usize,
    /// Generic tools: (rounds, calls per round), CPU timed per round (10 ms ticks).
    pub(crate) generic: (usize, usize),
}

impl Counts {
    pub(crate) fn new(smoke: bool) -> Self {
        if smoke {
            Self {
                cold_runs: 2,
                load_rounds: 1,
                load_warmup: Duration::from_millis(100),
                load_window: Duration::from_millis(300),
                server_warmup: Duration::from_millis(200),
                fanout_reps: 2,
                pdf_reps: 2,
                inproc_warmup: 50,
                inproc_n: 300,
                bounded_batches: (1, 1),
                bounded_reps: 1,
                fanout_cold_reps: 1,
                generic: (1, 5),
            }
        } else {
            Self {
                cold_runs: 21,
                load_rounds: 5,
                load_warmup: Duration::from_secs(1),
                load_window: Duration::from_secs(4),
                server_warmup: Duration::from_secs(3),
                fanout_reps: 9,
                pdf_reps: 31,
                inproc_warmup: 2_000,
                inproc_n: 20_000,
                bounded_batches: (9, 5),
                bounded_reps: 5,
                fanout_cold_reps: 9,
                generic: (9, 200),
            }
        }
    }
}

/// The harness's shared state: a single-threaded runtime for control requests, the work dir.
pub(crate) struct Bench {
    pub(crate) opts: Opts,
    pub(crate) counts: Counts,
    pub(crate) rt: tokio::runtime::Runtime,
    pub(crate) work: PathBuf,
    pub(crate) token: String,
    pub(crate) pin: bool,
}

impl Bench {
    pub(crate) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// One request on a fresh connection; returns status and body.
    pub(crate) fn send(&self, addr: SocketAddr, request: &[u8]) -> Result<(u16, Vec<u8>), String> {
        self.block_on(async {
            tokio::time::timeout(Duration::from_secs(60), http1::once(addr, request))
                .await
                .map_err(|_| format!("{addr}: no answer within 60 s"))?
                .map_err(|e| format!("{addr}: {e}"))
        })
    }

    /// An MCP request to `addr` (`/mcp`), modern or legacy era.
    pub(crate) fn mcp(
        &self,
        addr: SocketAddr,
        method: &str,
        params: Value,
        name: Option<&str>,
        modern: bool,
        extra: &[(&str, &str)],
    ) -> Result<(u16, Value, usize), String> {
        let mut headers = http1::mcp_headers(&self.token, method, name, modern);
        headers.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        let body = http1::mcp_body(1, method, params, modern);
        let request = http1::request("POST", addr, "/mcp", &headers, &body);
        let (status, body) = self.send(addr, &request)?;
        let text = String::from_utf8_lossy(&body);
        // SSE framing: take the last `data:` line.
        let json_text = if text.starts_with("event:") || text.starts_with("data:") {
            text.lines()
                .rev()
                .find_map(|l| l.strip_prefix("data:"))
                .unwrap_or("")
                .trim()
                .to_owned()
        } else {
            text.into_owned()
        };
        let value: Value = serde_json::from_str(&json_text).unwrap_or(Value::Null);
        Ok((status, value, body.len()))
    }

    /// A JSON control request to the fake Kobana (`/__fake/*`).
    pub(crate) fn control(
        &self,
        fake: SocketAddr,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<(), String> {
        let body = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        let headers = if body.is_empty() {
            vec![]
        } else {
            vec![("content-type".to_owned(), "application/json".to_owned())]
        };
        let request = http1::request(method, fake, path, &headers, &body);
        let (status, answer) = self.send(fake, &request)?;
        if !(200..300).contains(&status) {
            return Err(format!(
                "{method} {path}: {status} {}",
                String::from_utf8_lossy(&answer)
            ));
        }
        Ok(())
    }

    pub(crate) fn cpu(&self) -> Option<usize> {
        self.pin.then_some(SERVER_CPU)
    }

    pub(crate) fn log(&self, name: &str) -> PathBuf {
        self.work.join(format!("{name}.log"))
    }

    /// Starts the fake Kobana (pinned with the harness) and returns it with its address.
    pub(crate) fn start_fake(&self) -> Result<(Proc, SocketAddr), String> {
        let me = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut proc = procs::spawn(
            "fake Kobana",
            &me,
            &[
                "fake".to_owned(),
                "--bind".to_owned(),
                "127.0.0.1:0".to_owned(),
            ],
            &[],
            self.pin.then_some(HARNESS_CPU),
            &self.log("fake-kobana"),
            true,
        )?;
        let url = procs::first_line(&mut proc, Duration::from_secs(30))?;
        let addr = http1::addr_of(&url)?;
        Ok((proc, addr))
    }

    /// Starts our server against `fake` and waits until it answers.
    pub(crate) fn start_ours(
        &self,
        fake: SocketAddr,
        tag: &str,
    ) -> Result<(Proc, SocketAddr), String> {
        let port = procs::free_port()?;
        let proc = procs::spawn(
            "kobana-mcp",
            &self.opts.kobana_bin,
            &[],
            &[
                ("MCP_BIND".into(), format!("127.0.0.1:{port}")),
                ("KOBANA_API_URL".into(), format!("http://{fake}")),
                ("KOBANA_TIMEOUT_MS".into(), "30000".into()),
            ],
            self.cpu(),
            &self.log(&format!("kobana-mcp-{tag}")),
            false,
        )?;
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
        self.wait_ready(proc, addr)
    }

    pub(crate) fn wait_ready(
        &self,
        mut proc: Proc,
        addr: SocketAddr,
    ) -> Result<(Proc, SocketAddr), String> {
        let name = proc.name.clone();
        procs::wait_until(&name, Duration::from_secs(60), || {
            proc.check_alive()?;
            let (status, body, _) = self.mcp(addr, "tools/list", json!({}), None, true, &[])?;
            if status == 200 && body["result"]["tools"].is_array() {
                Ok(())
            } else {
                Err(format!("status {status}: {body}"))
            }
        })?;
        Ok((proc, addr))
    }
}

pub(crate) fn machine_info() -> Vec<(String, String)> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_else(|| "unknown".into());
    let cpus = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    let mem_kib: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .unwrap_or_default()
        .trim()
        .to_owned();
    let load = std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    vec![
        ("nproc".into(), cpus.to_string()),
        ("cpu".into(), model),
        (
            "memory".into(),
            format!("{:.1} GiB", mem_kib as f64 / 1048576.0),
        ),
        ("kernel".into(), kernel),
        ("load average at start".into(), load),
    ]
}
