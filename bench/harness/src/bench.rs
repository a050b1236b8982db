//! The harness's options, repetition counts and shared state (`Bench`), and the machine.

use std::collections::HashMap;

use fake_kobana::FakeKobana;

use super::*;

const REQUIRED: [&str; 7] = [
    "kobana-bin",
    "hello-bin",
    "node",
    "python",
    "peers",
    "sdk",
    "out",
];

/// `--key value` options (paths, `--sections a,b`), `--smoke`, and `--info K=V` lines.
pub struct Opts {
    pub smoke: bool,
    values: HashMap<String, String>,
    pub info: Vec<(String, String)>,
}

impl Opts {
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut opts = Opts {
            smoke: false,
            values: HashMap::new(),
            info: Vec::new(),
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            if flag == "--smoke" {
                opts.smoke = true;
                continue;
            }
            let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            match flag.strip_prefix("--") {
                Some("info") => {
                    let (k, v) = value.split_once('=').ok_or("--info needs K=V")?;
                    opts.info.push((k.to_owned(), v.to_owned()));
                }
                Some(key) => drop(opts.values.insert(key.to_owned(), value.clone())),
                None => return Err(format!("unexpected argument {flag}")),
            }
        }
        for key in REQUIRED {
            opts.values.get(key).ok_or(format!("--{key} is required"))?;
        }
        Ok(opts)
    }

    /// The path given as `--key`.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.values.get(key).map(PathBuf::from)
    }

    /// Whether `section` runs (all do without `--sections`).
    pub fn wants(&self, section: &str) -> bool {
        self.values
            .get("sections")
            .is_none_or(|list| list.split(',').any(|s| s == section))
    }
}

/// Repetition counts: full run or smoke.
pub struct Counts {
    pub cold_runs: usize,
    pub load_rounds: usize,
    pub load_warmup: Duration,
    pub load_window: Duration,
    pub server_warmup: Duration,
    pub fanout_reps: usize,
    pub pdf_reps: usize,
    /// In-process: (warm-up, measured) iterations.
    pub inproc: (usize, usize),
    /// CPU from `/proc/PID/stat` (10 ms ticks) is timed over batches: (batches, per batch).
    pub batches: (usize, usize),
    /// Requests per BW-8 body, rounds of RP-1's four at once, writes of the audit (×100).
    pub reps: usize,
    /// Generic tools: (rounds, calls per round).
    pub generic: (usize, usize),
    /// Memory size: cold starts per size (warm requests: three times as many).
    pub memory_reps: usize,
}

impl Counts {
    pub fn new(smoke: bool) -> Self {
        let n = |full: usize, smoke_n: usize| if smoke { smoke_n } else { full };
        let ms = |full, smoke_n| Duration::from_millis(n(full, smoke_n) as u64);
        Self {
            cold_runs: n(21, 2),
            load_rounds: n(5, 1),
            load_warmup: ms(1_000, 100),
            load_window: ms(4_000, 300),
            server_warmup: ms(3_000, 200),
            fanout_reps: n(9, 2),
            pdf_reps: n(31, 2),
            inproc: (n(2_000, 50), n(20_000, 300)),
            batches: (n(9, 1), n(5, 1)),
            reps: n(5, 1),
            generic: (n(9, 1), n(200, 5)),
            memory_reps: n(11, 1),
        }
    }
}

/// The harness's shared state.
pub struct Bench {
    pub opts: Opts,
    pub counts: Counts,
    pub kobana_bin: PathBuf,
    /// A single-threaded runtime for the harness's own requests.
    pub rt: tokio::runtime::Runtime,
    /// One worker thread (on the harness's CPU) serving the fake and the hostile Kobana.
    pub svc: tokio::runtime::Runtime,
    pub work: PathBuf,
    pub token: String,
    pub pin: bool,
}

impl Bench {
    pub fn new(opts: Opts, work: PathBuf, pin: bool) -> Self {
        let svc = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build();
        Bench {
            counts: Counts::new(opts.smoke),
            kobana_bin: opts.path("kobana-bin").unwrap_or_default(),
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime"),
            svc: svc.expect("runtime"),
            work,
            token: fake_kobana::full_token(),
            pin,
            opts,
        }
    }

    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// The CPU measured servers are pinned to, when pinning.
    pub fn cpu(&self) -> Option<usize> {
        self.pin.then_some(SERVER_CPU)
    }

    pub fn log(&self, name: &str) -> PathBuf {
        self.work.join(format!("{name}.log"))
    }

    /// The fake Kobana, served by `svc`.
    pub fn fake(&self) -> FakeKobana {
        self.svc.block_on(FakeKobana::start())
    }

    /// One request on a fresh connection; returns status and body.
    pub fn send(&self, addr: SocketAddr, request: &[u8]) -> Result<(u16, Vec<u8>), String> {
        let once = async {
            tokio::time::timeout(Duration::from_secs(60), http1::once(addr, request)).await
        };
        let answer = self.block_on(once);
        answer
            .map_err(|_| format!("{addr}: no answer within 60 s"))?
            .map_err(|e| format!("{addr}: {e}"))
    }

    /// An MCP request to `addr`: status, answer, bytes.
    pub fn mcp(
        &self,
        addr: SocketAddr,
        method: &str,
        params: Value,
        modern: bool,
    ) -> Result<(u16, Value, usize), String> {
        let (status, body) = self.send(
            addr,
            &http1::mcp_post(addr, &self.token, method, params, modern),
        )?;
        Ok((
            status,
            serde_json::from_slice(&body).unwrap_or(Value::Null),
            body.len(),
        ))
    }

    /// An MCP request that must answer 200 and a result (not `isError` for a tool call).
    pub fn checked(
        &self,
        addr: SocketAddr,
        request: &[u8],
        tool_call: bool,
    ) -> Result<f64, String> {
        let t0 = Instant::now();
        let (status, body) = self.send(addr, request)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if status != 200 || !http1::answer_ok(&body, tool_call) {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
            return Err(format!("{addr} answered {status}: {text}"));
        }
        Ok(ms)
    }

    /// Starts a server (`program` with `args` and `env`, pinned) listening on `port`, and
    /// waits until its `tools/list` answers.
    pub fn start(
        &self,
        name: &str,
        program: &Path,
        args: &[String],
        env: &[(String, String)],
        port: u16,
    ) -> Result<(Proc, SocketAddr), String> {
        let mut proc = procs::spawn(name, program, args, env, self.cpu(), &self.log(name))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        procs::wait_until(name, Duration::from_secs(60), || {
            proc.check_alive()?;
            let (status, body, _) = self.mcp(addr, "tools/list", json!({}), true)?;
            let ok = status == 200 && body["result"]["tools"].is_array();
            ok.then_some(())
                .ok_or_else(|| format!("status {status}: {body}"))
        })?;
        Ok((proc, addr))
    }

    /// Our server (`program`: the release binary, or a wrapper of it) against `kobana`.
    pub fn start_ours_as(
        &self,
        program: &Path,
        kobana: SocketAddr,
        tag: &str,
    ) -> Result<(Proc, SocketAddr), String> {
        let port = procs::free_port()?;
        let env = [
            ("MCP_BIND", format!("127.0.0.1:{port}")),
            ("KOBANA_API_URL", format!("http://{kobana}")),
            ("KOBANA_TIMEOUT_MS", "60000".into()),
        ];
        self.start(
            &format!("kobana-mcp-{tag}"),
            program,
            &[],
            &env.map(|(k, v)| (k.to_owned(), v)),
            port,
        )
    }

    /// Our server against `kobana`.
    pub fn start_ours(&self, kobana: SocketAddr, tag: &str) -> Result<(Proc, SocketAddr), String> {
        self.start_ours_as(&self.kobana_bin, kobana, tag)
    }
}

/// What the machine is, and how busy at the start.
pub fn machine_info() -> Vec<(String, String)> {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned());
    let mem_kib: f64 = read("/proc/meminfo")
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    let load: Vec<String> = read("/proc/loadavg")
        .split_whitespace()
        .take(3)
        .map(str::to_owned)
        .collect();
    [
        (
            "nproc",
            cpuinfo
                .lines()
                .filter(|l| l.starts_with("processor"))
                .count()
                .to_string(),
        ),
        ("cpu", model.unwrap_or_default()),
        ("memory", format!("{:.1} GiB", mem_kib / 1048576.0)),
        (
            "kernel",
            read("/proc/sys/kernel/osrelease").trim().to_owned(),
        ),
        ("load average at start", load.join(" ")),
    ]
    .map(|(k, v)| (k.to_owned(), v))
    .to_vec()
}
