//! `fake-kobana [--bind 127.0.0.1:PORT]`: runs the fake Kobana billing API until killed.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use fake_kobana::{FakeKobana, full_token, readonly_token};

const DEFAULT_BIND: &str = "127.0.0.1:4010";

fn parse_bind() -> Result<SocketAddr, String> {
    let mut args = std::env::args().skip(1);
    let mut bind = DEFAULT_BIND.to_string();
    while let Some(arg) = args.next() {
        if arg == "--bind" {
            bind = args.next().ok_or("--bind needs an address")?;
        } else if let Some(v) = arg.strip_prefix("--bind=") {
            bind = v.to_string();
        } else if arg == "-h" || arg == "--help" {
            return Err(format!(
                "usage: fake-kobana [--bind 127.0.0.1:PORT]   (default {DEFAULT_BIND})"
            ));
        } else {
            return Err(format!("unknown argument: {arg}"));
        }
    }
    bind.parse()
        .map_err(|e| format!("invalid --bind address {bind:?}: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let addr = match parse_bind() {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let fake = match FakeKobana::start_on(addr).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("fake-kobana: cannot start on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "fake-kobana listening on {}", fake.base_url());
    let _ = writeln!(out, "base_url={}", fake.base_url());
    let _ = writeln!(out, "full_token={}", full_token());
    let _ = writeln!(out, "readonly_token={}", readonly_token());
    let _ = out.flush();
    drop(out);
    std::future::pending::<()>().await;
    ExitCode::SUCCESS
}
