//! Child processes pinned to a CPU, and what /proc says about them.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// CPU the measured servers run on.
pub const SERVER_CPU: usize = 0;
/// CPU the harness itself (load generator, fake Kobana, emulator) runs on.
pub const HARNESS_CPU: usize = 1;

fn set_affinity(pid: libc::pid_t, cpu: usize) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only write inside it; only
    // async-signal-safe calls, so this may run between fork and exec.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(pid, size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Pins the calling thread to one CPU, like `taskset -c CPU`.
pub fn pin(cpu: Option<usize>) {
    if let Some(cpu) = cpu {
        let _ = set_affinity(0, cpu);
    }
}

/// Sets up `command` to run pinned to `cpu` (sched_setaffinity in the child before exec: the
/// same as `taskset -c CPU`, without an extra exec inside a timed window), from an environment
/// of PATH, HOME, LANG and TMPDIR only, plus `env`.
pub fn command(program: &Path, env: &[(String, String)], cpu: Option<usize>) -> Command {
    let mut command = Command::new(program);
    let base =
        ["PATH", "HOME", "LANG", "TMPDIR"].map(|k| (k, std::env::var(k).unwrap_or_default()));
    command
        .env_clear()
        .envs(base)
        .envs(env.iter().map(|(k, v)| (k, v)));
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(cpu) = cpu {
        // SAFETY: only async-signal-safe calls run between fork and exec.
        unsafe { command.pre_exec(move || set_affinity(0, cpu)) };
    }
    command
}

/// A child process that is killed when dropped.
pub struct Proc {
    /// What it is, for messages.
    pub name: String,
    /// The child.
    pub child: Child,
}

impl Proc {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails when the process has exited.
    pub fn check_alive(&mut self) -> Result<(), String> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(format!("{} exited early ({status})", self.name)),
            Err(e) => Err(format!("{}: {e}", self.name)),
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns `program` with `args` pinned to `cpu`, stderr to `log`.
pub fn spawn(
    name: &str,
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    cpu: Option<usize>,
    log: &Path,
) -> Result<Proc, String> {
    let log_file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let child = command(program, env, cpu)
        .args(args)
        .stderr(log_file)
        .spawn()
        .map_err(|e| format!("{name}: cannot start {}: {e}", program.display()))?;
    Ok(Proc {
        name: name.to_owned(),
        child,
    })
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

/// `VmRSS` and `VmHWM` of a process, in KiB.
pub fn memory_kib(pid: u32) -> Result<(u64, u64), String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name));
        let value = line.and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
        value.ok_or_else(|| format!("/proc/{pid}/status has no {name}"))
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}

/// User + system CPU time a process has used so far (all its threads; 10 ms ticks).
pub fn cpu_time(pid: u32) -> Result<Duration, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // After the command name (in parentheses, may hold spaces): utime and stime are the 12th
    // and 13th fields.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or("malformed /proc/PID/stat")?;
    let ticks: u64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Ok(Duration::from_micros(ticks * 1_000_000 / hz))
}

/// What `step` cost process `pid`: its CPU (ms) and peak RSS growth (bytes: `VmHWM` after,
/// reset through `/proc/PID/clear_refs` first, minus `VmRSS` before).
pub fn cost<T>(
    pid: u32,
    step: impl FnOnce() -> Result<T, String>,
) -> Result<(T, f64, f64), String> {
    let _ = std::fs::write(format!("/proc/{pid}/clear_refs"), "5");
    let (rss_before, _) = memory_kib(pid)?;
    let cpu_before = cpu_time(pid)?;
    let out = step()?;
    // The answer is out; let the server finish the request (its line, its drops).
    std::thread::sleep(Duration::from_millis(100));
    let (_, hwm_after) = memory_kib(pid)?;
    let cpu_ms = (cpu_time(pid)? - cpu_before).as_secs_f64() * 1e3;
    Ok((
        out,
        cpu_ms,
        hwm_after.saturating_sub(rss_before) as f64 * 1024.0,
    ))
}

/// Waits until `check` succeeds, polling every 20 ms, for at most `timeout`.
pub fn wait_until(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Result<(), String>,
) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        match check() {
            Ok(()) => return Ok(()),
            Err(e) if Instant::now() >= deadline => {
                return Err(format!("{what}: not ready after {timeout:?}: {e}"));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}
