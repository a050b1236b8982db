//! The real function binary, started as Lambda would start it: with the `AWS_LAMBDA_*`
//! variables pointing at the Runtime API emulator, a clean environment, and its stdout/stderr
//! captured (they are the function's CloudWatch log).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::common::root;

/// `KOBANA_MCP_BIN`, else `kobana-mcp` in the profile directory this test was built into
/// (`<target>/debug/deps/lambda-…` → `<target>/debug/kobana-mcp`).
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("KOBANA_MCP_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.parent()
        .and_then(Path::parent)
        .map(|profile| profile.join("kobana-mcp"))
        .unwrap_or_else(|| root().join("target/debug/kobana-mcp"))
}

fn newest_source(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let time = if path.is_dir() {
            newest_source(&path)
        } else {
            entry.metadata().and_then(|m| m.modified()).ok()
        };
        newest = newest.max(time);
    }
    newest
}

fn warn_if_stale(bin: &Path) {
    let built = std::fs::metadata(bin).and_then(|m| m.modified()).ok();
    let root = root();
    let sources = ["functions/mcp/src", "shared/src", "tests/src"]
        .iter()
        .filter_map(|d| newest_source(&root.join(d)))
        .max();
    if let (Some(built), Some(sources)) = (built, sources)
        && sources > built
    {
        eprintln!(
            "warning: {} is older than the sources; run `cargo build -p kobana-mcp` to test the current code",
            bin.display()
        );
    }
}

/// A running function process; killed when dropped.
pub struct Function {
    child: Child,
    log: Arc<Mutex<Vec<u8>>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl Function {
    /// Starts the binary against the Runtime API at `runtime_api` (`host:port`) with
    /// `env` added to the Lambda variables. Panics, saying how to build it, when missing.
    pub fn start(runtime_api: &str, env: &[(&str, &str)]) -> Self {
        let bin = binary();
        assert!(
            bin.is_file(),
            "function binary {} not found: run `cargo build -p kobana-mcp` first \
             (scripts/test.sh does), or point KOBANA_MCP_BIN at a built binary",
            bin.display()
        );
        warn_if_stale(&bin);
        let mut command = Command::new(&bin);
        command
            .env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", runtime_api)
            .env("AWS_LAMBDA_FUNCTION_NAME", "kobana-mcp-test")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/kobana-mcp-test")
            .env(
                "AWS_LAMBDA_LOG_STREAM_NAME",
                "2026/11/30/[$LATEST]0123456789abcdef",
            )
            // Never let an AWS SDK look for credentials beyond these dummies.
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let log = Arc::new(Mutex::new(Vec::new()));
        let outputs: [Box<dyn Read + Send>; 2] = [
            Box::new(child.stdout.take().expect("piped stdout")),
            Box::new(child.stderr.take().expect("piped stderr")),
        ];
        let mut readers = Vec::new();
        for mut output in outputs {
            let log = log.clone();
            readers.push(std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = output.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    log.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            }));
        }
        Self {
            child,
            log,
            readers,
        }
    }

    /// Everything the function wrote to stdout and stderr so far.
    pub fn logs(&self) -> String {
        String::from_utf8_lossy(&self.log.lock().unwrap()).into_owned()
    }

    /// How the process ended, if it already has. Once it has, every byte it wrote is in
    /// [`Function::logs`]: its pipes are read to their end first.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        let status = self.child.try_wait().ok().flatten()?;
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        Some(status)
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
