//! `kobana-mcp`: the Kobana billing MCP server's entry point.
//!
//! Under AWS Lambda (`AWS_LAMBDA_RUNTIME_API` set) it serves API Gateway events with a
//! streaming response; anywhere else it listens on `MCP_BIND` (default 127.0.0.1:3000).
//! `--demo` starts a fake Kobana with sample data in-process, so everything can be tried
//! with no Kobana account and no network. `main` only wires; the server is the library.

use std::process::ExitCode;

use kobana_mcp::{App, Config};

const USAGE: &str = "usage: kobana-mcp [--demo]\n\
  --demo   serve a built-in fake Kobana with sample data (no account or network needed)\n\
environment: MCP_BIND, KOBANA_API_URL, CONFIRMATIONS_TABLE, MCP_ALLOWED_HOSTS,\n\
  MCP_ALLOWED_ORIGINS, MCP_PUBLIC_URL, MCP_AUTHORIZATION_SERVERS, KOBANA_TIMEOUT_MS, RUST_LOG";

fn init_tracing(json: bool) {
    // The Lambda runtime logs whole events (Authorization header included) at trace level:
    // keep it at info whatever RUST_LOG says, so the token can never reach a log line.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"))
        .add_directive("lambda_runtime=info".parse().expect("valid directive"))
        .add_directive("lambda_http=info".parse().expect("valid directive"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder
            .json()
            .with_ansi(false)
            .with_current_span(true)
            .without_time()
            .init();
    } else {
        builder.compact().init();
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let demo = match args.as_slice() {
        [] => false,
        [flag] if flag == "--demo" => true,
        [flag] if flag == "--help" || flag == "-h" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    // Build the tool registry and the schema catalog on another core while the runtime
    // starts and waits for the first event, instead of inside the first request.
    std::thread::spawn(|| {
        kobana_mcp::catalog::registry();
        kobana_mcp::catalog::schemas::catalog();
    });
    let under_lambda = std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some();
    init_tracing(under_lambda);
    let mut config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("kobana-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    let _fake = if demo {
        let fake = fake_kobana::FakeKobana::start().await;
        config.kobana_api_url = fake.base_url();
        config.anonymous_token = Some(fake_kobana::full_token());
        Some(fake)
    } else {
        None
    };
    let app = match App::new(config.clone()) {
        Ok(app) => app,
        Err(error) => {
            eprintln!("kobana-mcp: {error}");
            return ExitCode::FAILURE;
        }
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
        Err(error) => {
            eprintln!("kobana-mcp: cannot listen on {}: {error}", config.bind);
            return ExitCode::FAILURE;
        }
    };
    let url = format!(
        "http://{}/mcp",
        listener.local_addr().map_or(config.bind, |a| a)
    );
    eprintln!("kobana-mcp {} serving {url}", env!("CARGO_PKG_VERSION"));
    if demo {
        eprintln!(
            "demo mode: fake Kobana at {} with sample data; requests without a token act as the demo user.\n\
             full token:      {}\nread-only token: {}",
            config.kobana_api_url,
            fake_kobana::full_token(),
            fake_kobana::readonly_token()
        );
    }
    match kobana_mcp::serve(app, listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("kobana-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

mod lambda {
    //! The Lambda entry point: every API Gateway event is one request to the app, answered
    //! with a streamed response (so bodies over Lambda's 6 MB buffered limit work).

    use kobana_mcp::App;
    use lambda_http::{Error, Request, RequestExt, service_fn};
    use tracing::Instrument;

    /// Runs the Lambda runtime loop until the environment shuts the function down. Every log
    /// line of an invocation carries its Lambda request id.
    pub async fn run(app: App) -> Result<(), Error> {
        lambda_http::run_with_streaming_response(service_fn(move |request: Request| {
            let app = app.clone();
            let request_id = request
                .lambda_context_ref()
                .map(|context| context.request_id.clone())
                .unwrap_or_default();
            let span = tracing::info_span!("invocation", request_id = %request_id);
            async move { Ok::<_, Error>(app.handle(request).await) }.instrument(span)
        }))
        .await
    }
}
