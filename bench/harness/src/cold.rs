//! Section 1: cold start (#9: ≤ 1.5× a hello-world `lambda_http` of the same profile) and the
//! binary's size (#7: ≤ 12 MB), and the Lambda Runtime API emulator both sections 1 and 7 use.
//!
//! The emulator starts the function binary, hands it one API Gateway (REST, v1) event on
//! `GET …/invocation/next`, and times fork/exec → its answer fully received on `POST
//! …/response` (buffered or streamed). `TCP_QUICKACK` is re-armed before every read:
//! `lambda_runtime` posts streamed answers with Nagle on, so delayed ACKs would add ~40 ms.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

/// One cold start: process start → answer received; `VmHWM` then; the response mode.
pub struct ColdRun {
    pub ms: f64,
    pub hwm_kib: u64,
    pub mode: String,
}

/// What the function posted: when, whether to `…/response`, its mode and body.
type Posted = (Instant, bool, String, Vec<u8>);

/// One connection of the function to the Runtime API: the event once, then a parked poll.
async fn runtime_api(
    mut conn: http1::Conn,
    event: Arc<Vec<u8>>,
    served: Arc<AtomicBool>,
    tx: tokio::sync::mpsc::UnboundedSender<Posted>,
) {
    while let Ok(head) = conn.read(true).await {
        let received = Instant::now();
        let path = head.line.split(' ').nth(1).unwrap_or_default().to_owned();
        if !path.ends_with("/invocation/next") {
            let mode = head
                .header("lambda-runtime-function-response-mode")
                .unwrap_or("buffered")
                .to_owned();
            let _ = tx.send((
                received,
                path.ends_with("/response"),
                mode,
                std::mem::take(&mut conn.body),
            ));
            let _ = conn
                .write(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
                .await;
        } else if served.swap(true, Ordering::SeqCst) {
            let _ = conn.read(false).await; // parked until the process is killed
            return;
        } else {
            let deadline = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() + 60_000);
            let mut answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nlambda-runtime-aws-request-id: 8476a536-e9f4-11e8-9739-2dfe598c3fcd\r\n\
                 lambda-runtime-deadline-ms: {deadline}\r\nlambda-runtime-invoked-function-arn: arn:aws:lambda:us-east-1:123456789012:function:bench\r\n\
                 lambda-runtime-trace-id: Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1\r\ncontent-length: {}\r\n\r\n",
                event.len()
            )
            .into_bytes();
            answer.extend_from_slice(&event);
            let _ = conn.write(&answer).await;
        }
    }
}

/// Starts `binary` (with `env`, pinned) under a fresh emulator, feeds it `event`, and measures;
/// `expect` must occur in the answer.
pub fn cold_start(
    bench: &Bench,
    binary: &Path,
    env: &[(String, String)],
    event: &[u8],
    expect: &str,
) -> Result<ColdRun, String> {
    bench.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (event, served) = (Arc::new(event.to_vec()), Arc::new(AtomicBool::new(false)));
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                http1::quickack(&stream);
                tokio::spawn(runtime_api(
                    http1::Conn::new(stream, true),
                    event.clone(),
                    served.clone(),
                    tx.clone(),
                ));
            }
        });
        let lambda = [
            ("AWS_LAMBDA_RUNTIME_API", addr.to_string()),
            ("AWS_LAMBDA_FUNCTION_NAME", "bench".into()),
            ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST".into()),
            ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512".into()),
            ("AWS_REGION", "us-east-1".into()),
        ];
        let env: Vec<(String, String)> = lambda
            .map(|(k, v)| (k.to_owned(), v))
            .into_iter()
            .chain(env.iter().cloned())
            .collect();
        let started = Instant::now();
        let mut child = procs::command(binary, &env, bench.cpu())
            .spawn()
            .map_err(|e| format!("{}: {e}", binary.display()))?;
        let posted = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .ok()
            .flatten();
        let memory = procs::memory_kib(child.id());
        let _ = (child.kill(), child.wait());
        accept.abort();
        let (at, response, mode, body) =
            posted.ok_or_else(|| format!("{}: no answer within 20 s", binary.display()))?;
        let payload = match body.windows(8).position(|w| w == [0; 8]) {
            Some(i) if mode == "streaming" => &body[i + 8..],
            _ => &body[..],
        };
        if !response || !String::from_utf8_lossy(payload).contains(expect) {
            return Err(format!(
                "{}: answer lacks {expect:?}: {:.400}",
                binary.display(),
                String::from_utf8_lossy(payload)
            ));
        }
        Ok(ColdRun {
            ms: (at - started).as_secs_f64() * 1e3,
            hwm_kib: memory?.1,
            mode,
        })
    })
}

/// An API Gateway REST (v1) proxy event: `tools/list` (era 2025) POSTed to `/mcp` with a bearer.
pub fn tools_list_event(token: &str) -> Vec<u8> {
    let host = "abc123defg.execute-api.us-east-1.amazonaws.com";
    let headers = json!({
        "Accept": "application/json, text/event-stream", "Authorization": format!("Bearer {token}"),
        "Content-Type": "application/json", "Host": host, "MCP-Protocol-Version": "2025-11-25",
        "User-Agent": "kobana-bench/0", "X-Forwarded-Proto": "https", "X-Forwarded-Port": "443"
    });
    let multi: serde_json::Map<String, Value> = headers
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), json!([v])))
        .collect();
    let body =
        String::from_utf8(http1::mcp_body("tools/list", json!({}), false)).unwrap_or_default();
    json!({
        "resource": "/mcp", "path": "/mcp", "httpMethod": "POST", "headers": headers, "multiValueHeaders": multi,
        "queryStringParameters": null, "multiValueQueryStringParameters": null, "pathParameters": null, "stageVariables": null,
        "requestContext": {
            "resourceId": "a1b2c3", "resourcePath": "/mcp", "httpMethod": "POST", "requestTime": "30/Nov/2026:12:00:00 +0000",
            "path": "/prod/mcp", "accountId": "123456789012", "protocol": "HTTP/1.1", "stage": "prod", "domainPrefix": "abc123defg",
            "requestTimeEpoch": 1796040000000u64, "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
            "identity": {"sourceIp": "127.0.0.1", "userAgent": "kobana-bench/0"}, "domainName": host, "apiId": "abc123defg"
        },
        "body": body, "isBase64Encoded": false
    })
    .to_string()
    .into_bytes()
}

pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let event = tools_list_event(&bench.token);
    let hello = bench.opts.path("hello-bin").unwrap_or_default();
    let env = [
        ("MCP_ALLOWED_HOSTS", "*"),
        ("KOBANA_API_URL", "http://127.0.0.1:9"),
    ]
    .map(|(k, v)| (k.to_owned(), v.to_owned()));
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut mode = String::new();
    // One unrecorded start each (page cache), then they alternate.
    for i in 0..=bench.counts.cold_runs {
        let o = cold_start(bench, &bench.kobana_bin, &env, &event, "\"tools\"")?;
        let h = cold_start(bench, &hello, &[], &event, "hello")?;
        if i > 0 {
            ours.push(o.ms);
            theirs.push(h.ms);
            mode = o.mode;
        }
    }
    let (o, h) = (stats::median(&ours), stats::median(&theirs));
    r.row(1, cells![
        format!("Cold start: process start → first event (`tools/list`) answered ({mode}) under the Runtime API emulator, median of {}", ours.len()),
        ms(o), format!("hello-world lambda_http {}", ms(h)), ratio(o / h), "≤ 1.5× (#9)",
    ], Some(o / h <= 1.5));
    let mut sizes = vec![("host x86_64", bench.kobana_bin.clone())];
    sizes.extend(bench.opts.path("arm64-bin").map(|p| {
        (
            "arm64, `cargo lambda build --release --arm64` (what `sam build` deploys)",
            p,
        )
    }));
    for (what, path) in sizes {
        let bytes = std::fs::metadata(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .len() as f64;
        r.row(
            1,
            cells![
                format!("Release binary size, stripped, {what}"),
                format!("{} ({} B)", mb(bytes), thousands(bytes)),
                "",
                "",
                "≤ 12 MB (#7)"
            ],
            Some(bytes <= 12e6),
        );
    }
    r.notes.push("Cold start: the bench's Runtime API emulator (TCP_QUICKACK re-armed before every read) hands one API Gateway REST event to a fresh process pinned to the servers' CPU; the clock runs from just before fork/exec to the last byte of the answer. The hello world is `bench/hello-lambda` (lambda_http with the same features, `run_with_streaming_response`, the same release profile); ours is built as `sam build` builds it (default features: no `demo`).".into());
    Ok(r)
}
