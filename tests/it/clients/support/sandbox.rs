//! A host's own home: `HOME`, the XDG directories and a project directory in a fresh temporary
//! directory, and an environment built from nothing (no proxy, no telemetry, no auto-update,
//! the test's Node 22 first on `PATH`), so a host reads only what the test wrote and reaches
//! only loopback.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// How long one host command may run before the test fails (the hosts take 0.1–5 s here).
pub const HOST_COMMAND_LIMIT: Duration = Duration::from_secs(90);

/// `clients/hosts/`, where `scripts/setup.sh` installs the pinned host CLIs.
pub fn hosts_dir() -> PathBuf {
    crate::common::clients_dir().join("hosts")
}

/// The directory of the hosts' executables (`node_modules/.bin`).
pub fn bin_dir() -> PathBuf {
    hosts_dir().join("node_modules/.bin")
}

/// A host's temporary home and the environment its commands run with.
pub struct Sandbox {
    label: &'static str,
    root: PathBuf,
    /// `HOME`.
    pub home: PathBuf,
    /// The working directory of every command (a project the person works in).
    pub project: PathBuf,
    env: Vec<(String, String)>,
}

impl Sandbox {
    /// A fresh sandbox under Cargo's test temp dir (kept out of `/tmp`, where Codex refuses to
    /// place its helper links).
    pub fn new(label: &'static str) -> Self {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("hosts-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let project = root.join("project");
        for dir in [&home, &project] {
            std::fs::create_dir_all(dir).expect("sandbox directories");
        }
        let node = crate::common::node();
        assert!(
            node.is_file(),
            "{} is missing: run scripts/setup.sh",
            node.display()
        );
        assert!(
            bin_dir().is_dir(),
            "{} is missing: run scripts/setup.sh (it installs the host CLIs)",
            bin_dir().display()
        );
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            node.parent().unwrap().display(),
            bin_dir().display()
        );
        let mut sandbox = Self {
            label,
            root,
            home,
            project,
            env: Vec::new(),
        };
        let home = sandbox.home.display().to_string();
        for (key, value) in [
            ("PATH", path),
            ("HOME", home.clone()),
            ("XDG_CONFIG_HOME", format!("{home}/.config")),
            ("XDG_DATA_HOME", format!("{home}/.local/share")),
            ("XDG_STATE_HOME", format!("{home}/.local/state")),
            ("XDG_CACHE_HOME", format!("{home}/.cache")),
            ("LANG", "C.UTF-8".to_owned()),
            ("TERM", "dumb".to_owned()),
            ("NO_COLOR", "1".to_owned()),
            ("NO_PROXY", "127.0.0.1,localhost".to_owned()),
        ] {
            sandbox.set(key, &value);
        }
        sandbox
    }

    /// Sets (or replaces) one variable of the commands' environment.
    pub fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_owned(), value.to_owned()));
    }

    /// Writes `text` to `path` (relative to the sandbox's root), making its directories.
    pub fn write(&self, path: &str, text: &str) -> PathBuf {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A command for host executable `program` (from `node_modules/.bin`) with the sandbox's
    /// environment, in the project directory.
    pub fn command(&self, program: &str, args: &[&str]) -> tokio::process::Command {
        self.prepared(bin_dir().join(program), args)
    }

    fn prepared(&self, program: impl AsRef<Path>, args: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(program.as_ref());
        command
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.project)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        command
    }

    /// Runs host executable `program` with `extra` variables; answers its output.
    pub async fn run(&self, program: &str, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let mut command = self.command(program, args);
        command.envs(extra.iter().copied());
        self.output(command, &format!("{program} {}", args.join(" ")))
            .await
    }

    /// Runs `script` with `sh -c`, as a person pastes a snippet into a shell.
    pub async fn shell(&self, script: &str) -> Output {
        self.output(self.prepared("/bin/sh", &["-c", script]), script)
            .await
    }

    /// Runs `command` within [`HOST_COMMAND_LIMIT`]; answers its output.
    pub async fn output(&self, mut command: tokio::process::Command, what: &str) -> Output {
        let what = format!("{}: {what}", self.label);
        let started = std::time::Instant::now();
        let output =
            crate::common::output_within(HOST_COMMAND_LIMIT, command.output(), &what).await;
        eprintln!(
            "{what}: exit {} in {:.1} s",
            output.status,
            started.elapsed().as_secs_f64()
        );
        output
    }

    /// Runs host executable `program` and asserts it succeeded; answers stdout and stderr.
    pub async fn ok(
        &self,
        program: &str,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> (String, String) {
        let output = self.run(program, args, extra).await;
        crate::common::succeeded(&output, &format!("{} {program}", self.label))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
