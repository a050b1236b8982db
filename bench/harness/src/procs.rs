//! Child processes pinned to a CPU, and what /proc says about them.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// CPU the measured servers run on.
pub const SERVER_CPU: usize = 0;
/// CPU the harness itself (load generator, fake Kobana, emulator) runs on.
pub const HARNESS_CPU: usize = 1;

/// Pins the calling thread (`pid` 0) or a whole process to one CPU, like `taskset -c CPU`.
pub fn pin(pid: libc::pid_t, cpu: usize) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only write inside it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The CPUs the calling thread may run on, e.g. `[1]`.
pub fn affinity() -> Vec<usize> {
    // SAFETY: as in `pin`; the set is only read after the kernel filled it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Whether the machine has a CPU `cpu` (pinning is skipped on a 1-CPU machine).
pub fn have_cpu(cpu: usize) -> bool {
    std::thread::available_parallelism().map_or(1, |n| n.get()) > cpu
        || std::fs::read_to_string("/sys/devices/system/cpu/online")
            .map(|s| s.trim() != "0")
            .unwrap_or(false)
}

/// Sets up `command` to run pinned to `cpu` (sched_setaffinity in the child before exec: the
/// same as `taskset -c CPU`, without an extra exec inside the timed window).
pub fn pinned(command: &mut Command, cpu: Option<usize>) -> &mut Command {
    if let Some(cpu) = cpu {
        // SAFETY: only async-signal-safe calls (sched_setaffinity) run between fork and exec.
        unsafe {
            command.pre_exec(move || {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_ZERO(&mut set);
                libc::CPU_SET(cpu, &mut set);
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
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

/// Spawns `program` pinned to `cpu`, stdout piped (for a first line) or null, stderr to `log`.
pub fn spawn(
    name: &str,
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    cpu: Option<usize>,
    log: &Path,
    pipe_stdout: bool,
) -> Result<Proc, String> {
    let log_file =
        std::fs::File::create(log).map_err(|e| format!("{name}: log {}: {e}", log.display()))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(base_env())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(if pipe_stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::from(log_file));
    pinned(&mut command, cpu);
    let child = command
        .spawn()
        .map_err(|e| format!("{name}: cannot start {}: {e}", program.display()))?;
    Ok(Proc {
        name: name.to_owned(),
        child,
    })
}

/// The environment every child starts from: PATH, HOME, LANG, TMPDIR only.
pub fn base_env() -> Vec<(String, String)> {
    ["PATH", "HOME", "LANG", "TMPDIR"]
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .collect()
}

/// Reads the first stdout line of `proc` (e.g. a listening address), within `timeout`.
pub fn first_line(proc: &mut Proc, timeout: Duration) -> Result<String, String> {
    let stdout = proc
        .child
        .stdout
        .take()
        .ok_or_else(|| format!("{}: stdout not piped", proc.name))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        // Keep draining so the child never blocks on a full pipe.
        let mut sink = String::new();
        while reader.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
            sink.clear();
        }
    });
    rx.recv_timeout(timeout)
        .map(|l| l.trim().to_owned())
        .map_err(|_| format!("{}: no output within {timeout:?}", proc.name))
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("free port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("free port: {e}"))
}

/// `VmRSS` and `VmHWM` of a process, in KiB.
pub fn memory_kib(pid: u32) -> Result<(u64, u64), String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| format!("/proc/{pid}/status has no {name}"))
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}

/// User + system CPU time a process has used so far (all its threads).
pub fn cpu_time(pid: u32) -> Result<Duration, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or("malformed /proc/PID/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 11 and 12 after the name.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let total = ticks(11) + ticks(12);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Ok(Duration::from_micros(total * 1_000_000 / hz))
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
