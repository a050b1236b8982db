//! `kobana-mcp`: the Kobana billing MCP server's entry point.
//!
//! Under AWS Lambda (`AWS_LAMBDA_RUNTIME_API` set) it serves API Gateway events with a
//! streaming response; anywhere else it listens on `MCP_BIND` (default 127.0.0.1:3000).
//! `--demo` serves a fake Kobana with sample data in-process (no account, no network), and
//! `--demo check` checks that fake as `check` would a real account; `check …` checks a real
//! account or endpoint. `main` only wires; the server is the library.

use std::process::ExitCode;

use kobana_mcp::{App, Config};

const USAGE: &str = "usage: kobana-mcp [--demo] | kobana-mcp [--demo] check --help | kobana-mcp --version\n\
  --demo         serve a built-in fake Kobana with sample data (no account or network needed)\n\
  --demo check   run `check` against that built-in fake (no token needed)\n\
  --version      print the version\n";

/// The usage text: the switches, then every environment variable from the configuration's
/// one table (`kobana_mcp::config::VARIABLES`).
fn usage() -> String {
    format!("{USAGE}{}", kobana_mcp::config::variables::usage())
}

fn main() -> ExitCode {
    let under_lambda =
        std::env::var_os(kobana_mcp::config::variables::LAMBDA_RUNTIME_API).is_some();
    // Lambda hands an instance one event at a time: a single-threaded runtime starts faster
    // and never moves work between threads. The local server gets a worker per core.
    let runtime = if under_lambda {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    }
    .enable_all()
    .build();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let version = |a: &String| a == "--version" || a == "-V";
    if matches!(args.as_slice(), [flag] | [_, flag] if version(flag) && (args.len() == 1 || args[0] == "--demo"))
    {
        println!("kobana-mcp {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    match runtime {
        Ok(runtime) if args.first().is_some_and(|a| a == "check") => {
            runtime.block_on(kobana_mcp::check::run(&args[1..]))
        }
        Ok(runtime) if args.len() > 1 && args[0] == "--demo" && args[1] == "check" => {
            runtime.block_on(demo::check(&args[2..]))
        }
        Ok(runtime) => runtime.block_on(run(under_lambda, args)),
        Err(error) => fail(1, format!("cannot start the async runtime: {error}")),
    }
}

async fn run(under_lambda: bool, args: Vec<String>) -> ExitCode {
    let demo = match args.as_slice() {
        [] => false,
        [flag] if flag == "--demo" => true,
        [flag] if flag == "--help" || flag == "-h" => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        _ => {
            eprint!("{}", usage());
            return ExitCode::from(2);
        }
    };
    // Load the tool registry on another thread, not inside the first request.
    std::thread::spawn(|| {
        kobana_mcp::catalog::registry();
    });
    kobana_mcp::telemetry::logging::init(under_lambda);
    let mut config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => return fail(2, error),
    };
    let _fake = if demo {
        match demo::start(&mut config).await {
            Some(fake) => Some(fake),
            None => return ExitCode::from(2),
        }
    } else {
        None
    };
    let app = match App::new(config.clone()) {
        Ok(app) => app,
        Err(error) => return fail(1, error),
    };
    if under_lambda {
        return match lambda::run(app).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                tracing::error!(%error, "lambda runtime stopped");
                ExitCode::FAILURE
            }
        };
    }
    let listener = match tokio::net::TcpListener::bind(config.bind).await {
        Ok(listener) => listener,
        Err(error) => return fail(1, format!("cannot listen on {}: {error}", config.bind)),
    };
    let url = format!(
        "http://{}/mcp",
        listener.local_addr().map_or(config.bind, |a| a)
    );
    eprintln!("kobana-mcp {} serving {url}", env!("CARGO_PKG_VERSION"));
    if let Some(fake) = &_fake {
        demo::banner(fake, &config);
    }
    match kobana_mcp::serve(app, listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(1, error),
    }
}

/// Says what went wrong on stderr and exits with `code`.
fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("kobana-mcp: {message}");
    ExitCode::from(code)
}

mod demo;
mod lambda;
