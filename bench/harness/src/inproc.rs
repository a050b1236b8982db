//! Section 3: in-process overhead (#9: p50 ≤ 50 µs, upstream time excluded): `App::handle`
//! called directly with an `http::Request` (no network hop) on one single-threaded runtime on
//! the servers' CPU. The tool call's Kobana is a canned server on the same runtime answering
//! from memory the fake's own bytes; the median round trip to it with the bench's raw client
//! (the "upstream floor") is subtracted from the call's p50 and p99. Also the in-process
//! helpers of sections 9 and 11.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use kobana_mcp::{App, Config};

use super::*;

/// An MCP request for `App::handle`.
pub fn request(
    token: &str,
    method: &str,
    params: Value,
    modern: bool,
) -> http::Request<Full<Bytes>> {
    let name = params["name"].as_str().map(str::to_owned);
    let mut builder = http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", "127.0.0.1");
    for (k, v) in http1::mcp_headers(token, method, name.as_deref(), modern) {
        builder = builder.header(k, v);
    }
    builder
        .body(Full::new(Bytes::from(http1::mcp_body(
            method, params, modern,
        ))))
        .expect("request")
}

/// `App::handle` and the whole answer, which must be 200 with a result (not `isError` for a
/// tool call).
pub async fn handle(app: &App, request: http::Request<Full<Bytes>>) -> Result<Bytes, String> {
    let tool_call = request
        .headers()
        .get("mcp-method")
        .is_some_and(|m| m == "tools/call");
    let response = app.handle(request).await;
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    if status != 200 || !http1::answer_ok(&body, tool_call) {
        return Err(format!(
            "answer {status}: {:.400}",
            String::from_utf8_lossy(&body)
        ));
    }
    Ok(body)
}

/// A canned Kobana on the calling runtime answering the fake's bytes for `GET path` to every
/// request, and the request our server sends it.
pub async fn canned_fake(token: &str, path: &str) -> Result<(SocketAddr, Vec<u8>), String> {
    let fake = fake_kobana::FakeKobana::start().await;
    let (status, captured) = http1::once(fake.addr(), &http1::kobana_get(fake.addr(), token, path))
        .await
        .map_err(|e| e.to_string())?;
    if status != 200 {
        return Err(format!("fake Kobana: {path}: {status}"));
    }
    let upstream = http1::canned(captured).await?;
    Ok((upstream, http1::kobana_get(upstream, token, path)))
}

/// Our app against `kobana`.
pub fn app(kobana: SocketAddr) -> Result<App, String> {
    let config = Config {
        kobana_api_url: format!("http://{kobana}"),
        ..Config::default()
    };
    App::new(config).map_err(|e| format!("app: {e}"))
}

/// (label, p50, p99, floor, answer bytes) per operation, µs.
type Timing = (&'static str, f64, f64, f64, usize);

async fn timings(token: &str, (warmup, n): (usize, usize)) -> Result<Vec<Timing>, String> {
    let (upstream, floor_request) = canned_fake(token, "/v1/customers?page=1&per_page=20").await?;
    let app = app(upstream)?;
    let mut conn = http1::Conn::connect(upstream)
        .await
        .map_err(|e| e.to_string())?;
    let mut floor = Vec::new();
    for i in 0..warmup + n {
        let t0 = Instant::now();
        conn.send(&floor_request, false)
            .await
            .map_err(|e| e.to_string())?;
        floor.extend((i >= warmup).then(|| t0.elapsed().as_secs_f64() * 1e6));
    }
    let call = json!({"name": "billing_customers_list", "arguments": {}});
    let ops = [
        ("tools/list", json!({}), 0.0),
        ("resources/templates/list", json!({}), 0.0),
        ("tools/call", call, stats::median(&floor)),
    ];
    let mut out = Vec::new();
    for (method, params, floor) in ops {
        let (mut times, mut bytes) = (Vec::new(), 0);
        for i in 0..warmup + n {
            let request = request(token, method, params.clone(), true);
            let t0 = Instant::now();
            bytes = handle(&app, request)
                .await
                .map_err(|e| format!("{method}: {e}"))?
                .len();
            times.extend((i >= warmup).then(|| t0.elapsed().as_secs_f64() * 1e6));
        }
        out.push((
            method,
            stats::percentile(&times, 50.0),
            stats::percentile(&times, 99.0),
            floor,
            bytes,
        ));
    }
    Ok(out)
}

pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let timings = std::thread::scope(|s| {
        let thread = s.spawn(|| {
            procs::pin(bench.cpu());
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(timings(&bench.token, bench.counts.inproc))
        });
        thread
            .join()
            .map_err(|_| "the in-process thread panicked".to_owned())?
    })?;
    for (op, p50, p99, floor, bytes) in timings {
        let (net50, net99) = (p50 - floor, p99 - floor);
        let reference = if floor > 0.0 {
            format!("raw p50 {} − upstream floor {}", us(p50), us(floor))
        } else {
            "no Kobana call".into()
        };
        r.row(
            3,
            cells![
                format!(
                    "In-process `App::handle`: {op}{} ({} B answer, n = {})",
                    if floor > 0.0 {
                        " billing_customers_list"
                    } else {
                        ""
                    },
                    thousands(bytes as f64),
                    thousands(bench.counts.inproc.1 as f64)
                ),
                format!("p50 {} · p99 {}", us(net50), us(net99)),
                reference,
                "",
                "p50 ≤ 50 µs (#9)",
            ],
            Some(net50 <= 50.0),
        );
    }
    Ok(r)
}
