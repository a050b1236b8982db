//! In-process handler timing: `App::handle` called directly with an `http::Request` (no MCP
//! network hop), on one single-threaded runtime on one CPU.
//!
//! Upstream time is taken out like this: the app's Kobana URL points at a canned server on
//! the same runtime that answers every request from memory with the exact bytes the real
//! fake Kobana returns for `GET /v1/customers?page=1&per_page=20` (no token check, no JSON
//! work). What remains of the upstream in the measured time is one loopback round trip to
//! that canned server; it is measured on its own with the bench's raw client on the same
//! runtime ("upstream floor") and its median is subtracted from the tool call's p50 and p99.
//! The floor includes a minimal client's own work, so the subtraction slightly flatters us
//! by what reqwest costs over a raw client — that is within our handler, so the raw p50 is
//! reported too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use kobana_mcp::{App, Config};
use serde::Serialize;

use crate::http1::{self, Conn};
use crate::stats;

/// One operation's timing, microseconds.
#[derive(Debug, Clone, Serialize)]
pub struct OpTiming {
    /// MCP method (and tool).
    pub op: String,
    /// Iterations measured.
    pub n: usize,
    /// `App::handle` + collecting the body, p50.
    pub p50_us: f64,
    /// p99.
    pub p99_us: f64,
    /// Upstream floor subtracted (0 for methods that make no upstream call).
    pub floor_p50_us: f64,
    /// p50 with the floor's median subtracted.
    pub net_p50_us: f64,
    /// p99 with the floor's median subtracted.
    pub net_p99_us: f64,
    /// Response body bytes.
    pub body_bytes: usize,
}

fn request(
    token: &str,
    method: &str,
    params: serde_json::Value,
    name: Option<&str>,
) -> http::Request<Full<Bytes>> {
    let body = http1::mcp_body(1, method, params, true);
    let mut builder = http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", "127.0.0.1");
    for (k, v) in http1::mcp_headers(token, method, name, true) {
        builder = builder.header(k, v);
    }
    builder.body(Full::new(Bytes::from(body))).expect("request")
}

async fn time_op(
    app: &App,
    token: &str,
    method: &str,
    params: serde_json::Value,
    name: Option<&str>,
    warmup: usize,
    n: usize,
) -> Result<(Vec<f64>, usize), String> {
    let mut times = Vec::with_capacity(n);
    let mut body_bytes = 0;
    for i in 0..warmup + n {
        let req = request(token, method, params.clone(), name);
        let t0 = Instant::now();
        let response = app.handle(req).await;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("{method}: body: {e}"))?
            .to_bytes();
        let dt = t0.elapsed();
        if status != 200 || !crate::loadgen::answer_ok(&body, method == "tools/call") {
            return Err(format!(
                "{method}: unexpected answer {status}: {}",
                String::from_utf8_lossy(&body[..body.len().min(400)])
            ));
        }
        body_bytes = body.len();
        if i >= warmup {
            times.push(dt.as_secs_f64() * 1e6);
        }
    }
    Ok((times, body_bytes))
}

/// Runs the three measurements on the calling thread (pin it first).
pub fn run(warmup: usize, n: usize) -> Result<Vec<OpTiming>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    runtime.block_on(async move {
        let token = fake_kobana::full_token();
        // The real fake's answer, captured once.
        let fake = fake_kobana::FakeKobana::start().await;
        let fake_addr = fake.addr();
        // The request the server makes for the tool call, as the bench's raw client sends it.
        let customers_request = |addr| {
            http1::request(
                "GET",
                addr,
                "/v1/customers?page=1&per_page=20",
                &[
                    ("authorization".to_owned(), format!("Bearer {token}")),
                    (
                        "user-agent".to_owned(),
                        "Kobana MCP Server/0.1.0 <suporte@kobana.com.br>".to_owned(),
                    ),
                    ("accept".to_owned(), "application/json".to_owned()),
                    // Asked of every request, bodyless ones too (docs/contract.md).
                    ("content-type".to_owned(), "application/json".to_owned()),
                ],
                b"",
            )
        };
        let upstream_request = customers_request(fake_addr);
        let (status, captured) = http1::once(fake_addr, &upstream_request)
            .await
            .map_err(|e| format!("fake Kobana: {e}"))?;
        if status != 200 {
            return Err(format!("fake Kobana answered {status}"));
        }
        drop(fake);

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("canned upstream: {e}"))?;
        let upstream = listener.local_addr().map_err(|e| e.to_string())?;
        tokio::spawn(crate::canned::serve(
            listener,
            Arc::new(crate::canned::response("application/json", &captured)),
        ));
        let config = Config {
            kobana_api_url: format!("http://{upstream}"),
            kobana_timeout: Duration::from_secs(10),
            ..Config::default()
        };
        let app = App::new(config).map_err(|e| format!("app: {e}"))?;

        // The floor: the same upstream round trip with the bench's raw client.
        let floor_request = customers_request(upstream);
        let mut conn = Conn::connect(upstream).await.map_err(|e| e.to_string())?;
        let mut floor = Vec::with_capacity(n);
        for i in 0..warmup + n {
            let t0 = Instant::now();
            conn.send(&floor_request, false)
                .await
                .map_err(|e| e.to_string())?;
            if i >= warmup {
                floor.push(t0.elapsed().as_secs_f64() * 1e6);
            }
        }
        let floor_p50 = stats::percentile(&floor, 50.0);

        let ops: [(&str, serde_json::Value, Option<&str>, &str, bool); 3] = [
            (
                "tools/list",
                serde_json::json!({}),
                None,
                "tools/list",
                false,
            ),
            (
                "resources/templates/list",
                serde_json::json!({}),
                None,
                "resources/templates/list",
                false,
            ),
            (
                "tools/call",
                serde_json::json!({"name": "billing_customers_list", "arguments": {}}),
                Some("billing_customers_list"),
                "tools/call billing_customers_list",
                true,
            ),
        ];
        let mut out = Vec::new();
        for (method, params, name, label, upstream_call) in ops {
            let (times, body_bytes) =
                time_op(&app, &token, method, params, name, warmup, n).await?;
            let p50 = stats::percentile(&times, 50.0);
            let p99 = stats::percentile(&times, 99.0);
            let floor_p50_us = if upstream_call { floor_p50 } else { 0.0 };
            out.push(OpTiming {
                op: label.to_owned(),
                n,
                p50_us: p50,
                p99_us: p99,
                floor_p50_us,
                net_p50_us: p50 - floor_p50_us,
                net_p99_us: p99 - floor_p50_us,
                body_bytes,
            });
        }
        Ok(out)
    })
}
