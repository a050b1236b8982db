//! Section 9: what the audit trail costs a write (AU-3).
//!
//! - **Store round trips per write**: `tools/call billing_customers_update` through
//!   `App::handle` (era 2026, a canned Kobana answering the fake's own customer record), with
//!   an audit store that counts its calls. Each call of the store is one DynamoDB request in
//!   the DynamoDB store (`PutItem` before the write, `UpdateItem` after): the count is the
//!   extra round trips. The same loop gives the whole call's CPU, for scale.
//! - **Server CPU per write**: the trail's own work for one write (`begin` + `finish`: the
//!   summary, the entry, the completion) against a store that does nothing; and, when a
//!   DynamoDB endpoint is at hand (`AWS_ENDPOINT_URL_DYNAMODB`, moto in the test command),
//!   against the DynamoDB store, which adds the SDK's request building, signing and HTTP. CPU
//!   is this thread's (`CLOCK_THREAD_CPUTIME_ID`) on a single-threaded runtime, so a store
//!   server in another process is not counted; wall time per write is reported beside it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kobana_mcp::access::{BearerToken, Principal};
use kobana_mcp::audit::{
    AuditStore, AuditStoreError, BoxFuture, CallAudit, Completion, Confirmation, DynamoAudit,
    Entry, ListQuery, Listed, MemoryAudit, Trail,
};
use kobana_mcp::kobana::Envelope;

use super::*;

const CUSTOMER: &str = "972a8469-1641-4f82-8b9d-2434e465e150";

/// A store that takes everything and keeps nothing: the trail's own work, without I/O.
#[derive(Debug, Default)]
struct Nothing;

impl AuditStore for Nothing {
    fn put<'a>(&'a self, _: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async { Ok(()) })
    }
    fn complete<'a>(
        &'a self,
        _: &'a str,
        _: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async { Ok(()) })
    }
    fn list<'a>(&'a self, _: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
        Box::pin(async { Ok(Listed::default()) })
    }
}

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which lives on this stack.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// What one way of writing cost, per write.
#[derive(Debug, Clone, serde::Serialize)]
struct PerWrite {
    n: usize,
    store_calls: f64,
    cpu_us: f64,
    wall_us: f64,
}

pub(crate) fn audit_cost(bench: &Bench) -> Result<Report, String> {
    let n = if bench.opts.smoke { 20 } else { 1_000 };
    let cpu = bench.cpu();
    let (call, alone, dynamo) = std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(cpu) = cpu {
                let _ = procs::pin(0, cpu);
            }
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("runtime: {e}"))?;
            runtime.block_on(async {
                let call = through_the_app(n).await?;
                let alone = trail_alone(Arc::new(Nothing), n).await?;
                let dynamo = match dynamo_store().await? {
                    Some(store) => Some(trail_alone(store, n).await?),
                    None => None,
                };
                Ok::<_, String>((call, alone, dynamo))
            })
        })
        .join()
        .map_err(|_| "audit bench panicked".to_owned())?
    })?;
    let mut r = Report::default();
    r.row(
        "AU-3",
        format!(
            "Audit: store round trips per write (`tools/call` write, n = {})",
            call.n
        ),
        format!("{:.2}", call.store_calls),
        "PutItem before, UpdateItem after",
        "",
        "≤ 2",
        Verdict::of(call.store_calls <= 2.0),
    );
    r.row(
        "AU-3",
        format!(
            "Audit: server CPU per write, the trail's own work (n = {})",
            alone.n
        ),
        us(alone.cpu_us),
        format!("whole `tools/call` write: {} CPU", us(call.cpu_us)),
        format!("{:.1} %", 100.0 * alone.cpu_us / call.cpu_us.max(1e-9)),
        "",
        Verdict::Info,
    );
    match &dynamo {
        Some(d) => r.row(
            "AU-3",
            format!("Audit: server CPU per write with the DynamoDB store (moto, n = {})", d.n),
            us(d.cpu_us),
            format!("wall {} per write ({:.2} requests)", us(d.wall_us), d.store_calls),
            "",
            "",
            Verdict::Info,
        ),
        None => r.notes.push(
            "Audit: no DynamoDB endpoint (`AWS_ENDPOINT_URL_DYNAMODB` unset): the DynamoDB store's CPU was not measured; the test command's bench smoke runs it against moto.".into(),
        ),
    }
    r.raw.insert(
        "audit".into(),
        json!({"tool_call": call, "trail_alone": alone, "trail_dynamodb": dynamo}),
    );
    Ok(r)
}

/// `n` writes through `App::handle`, against a canned Kobana, with a counting audit store.
async fn through_the_app(n: usize) -> Result<PerWrite, String> {
    let token = fake_kobana::full_token();
    let fake = fake_kobana::FakeKobana::start().await;
    let answer = reqwest_free_get(fake.addr(), &token).await?;
    drop(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let upstream = listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(crate::canned::serve(
        listener,
        Arc::new(crate::canned::response("application/json", &answer)),
    ));
    let config = kobana_mcp::Config {
        kobana_api_url: format!("http://{upstream}"),
        kobana_timeout: Duration::from_secs(10),
        ..kobana_mcp::Config::default()
    };
    let store = Arc::new(CountingOver {
        inner: Arc::new(MemoryAudit::new()),
        calls: AtomicUsize::new(0),
    });
    let app = kobana_mcp::App::with_audit(
        config,
        Arc::new(kobana_mcp::confirm::MemoryStore::new()),
        kobana_mcp::confirm::system_clock(),
        store.clone(),
    )
    .map_err(|e| format!("app: {e}"))?;
    let params = json!({"name": "billing_customers_update",
        "arguments": {"id": CUSTOMER, "nickname": "bench"}});
    let (mut cpu, mut wall) = (Duration::ZERO, Duration::ZERO);
    for i in 0..n + 1 {
        let body = crate::http1::mcp_body(1, "tools/call", params.clone(), true);
        let mut request = http::Request::builder()
            .method("POST")
            .uri("/mcp")
            .header("host", "127.0.0.1");
        for (k, v) in
            crate::http1::mcp_headers(&token, "tools/call", Some("billing_customers_update"), true)
        {
            request = request.header(k, v);
        }
        let request = request
            .body(http_body_util::Full::new(bytes::Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        let (c0, w0) = (thread_cpu(), Instant::now());
        let response = app.handle(request).await;
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        if !crate::loadgen::answer_ok(&body, true) {
            return Err(format!(
                "audit write: {}",
                String::from_utf8_lossy(&body[..body.len().min(400)])
            ));
        }
        // The first call sets up the Kobana client: not counted.
        if i > 0 {
            cpu += thread_cpu() - c0;
            wall += w0.elapsed();
        }
    }
    let calls = store.calls.load(Ordering::SeqCst);
    Ok(PerWrite {
        n,
        store_calls: calls as f64 / (n + 1) as f64,
        cpu_us: cpu.as_secs_f64() * 1e6 / n as f64,
        wall_us: wall.as_secs_f64() * 1e6 / n as f64,
    })
}

/// The fake's answer for the customer, read once (the canned upstream serves it to the write).
async fn reqwest_free_get(fake: SocketAddr, token: &str) -> Result<Vec<u8>, String> {
    let request = crate::http1::request(
        "GET",
        fake,
        &format!("/v1/customers/{CUSTOMER}"),
        &[
            ("authorization".to_owned(), format!("Bearer {token}")),
            (
                "user-agent".to_owned(),
                "kobana-bench <suporte@kobana.com.br>".to_owned(),
            ),
            ("accept".to_owned(), "application/json".to_owned()),
            // Asked of every request, bodyless ones too (docs/contract.md).
            ("content-type".to_owned(), "application/json".to_owned()),
        ],
        b"",
    );
    let (status, body) = crate::http1::once(fake, &request)
        .await
        .map_err(|e| format!("fake Kobana: {e}"))?;
    if status != 200 {
        return Err(format!(
            "fake Kobana answered {status}: {}",
            String::from_utf8_lossy(&body)
        ));
    }
    Ok(body)
}

/// `n` writes' worth of the trail alone (`begin`, then `finish` with a success) over `store`.
async fn trail_alone(store: Arc<dyn AuditStore>, n: usize) -> Result<PerWrite, String> {
    let counting = Arc::new(CountingOver {
        inner: store,
        calls: AtomicUsize::new(0),
    });
    let trail = Arc::new(Trail::new(counting.clone(), 400));
    let principal = Principal::from_token(BearerToken::new(fake_kobana::full_token()), 0)
        .map_err(|e| e.to_string())?;
    let arguments = json!({"id": CUSTOMER, "nickname": "bench", "notes": "a note"});
    let call = CallAudit::for_call(
        trail,
        "billing_customers_update",
        arguments.as_object(),
        &principal,
        None,
        Some(Confirmation::NotAskedNotDestructive),
    );
    let body = json!({"nickname": "bench", "notes": "a note", "tags": ["a"]});
    let answer = Envelope {
        data: json!({"id": CUSTOMER, "name": "x"}),
        meta: None,
        status: 200,
        request_id: Some("3f1c9b9e-8a51-4c55-9c39-6f7d2a1b0c4e".into()),
    };
    let (mut cpu, mut wall) = (Duration::ZERO, Duration::ZERO);
    for i in 0..n + 1 {
        let (c0, w0) = (thread_cpu(), Instant::now());
        let pending = call
            .begin("PATCH", &["customers", CUSTOMER], Some(&body))
            .await
            .map_err(|e| format!("audit begin: {e}"))?;
        pending.finish(Ok(&answer)).await;
        // The first write loads the store's client (SDK configuration): not counted.
        if i > 0 {
            cpu += thread_cpu() - c0;
            wall += w0.elapsed();
        }
    }
    Ok(PerWrite {
        n,
        store_calls: counting.calls.load(Ordering::SeqCst) as f64 / (n + 1) as f64,
        cpu_us: cpu.as_secs_f64() * 1e6 / n as f64,
        wall_us: wall.as_secs_f64() * 1e6 / n as f64,
    })
}

/// Counts the calls of any store (each a DynamoDB request in the DynamoDB store).
#[derive(Debug)]
struct CountingOver {
    inner: Arc<dyn AuditStore>,
    calls: AtomicUsize,
}

impl AuditStore for CountingOver {
    fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.put(entry)
    }
    fn complete<'a>(
        &'a self,
        id: &'a str,
        completion: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.complete(id, completion)
    }
    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.list(query)
    }
}

/// A fresh audit table on the DynamoDB endpoint of the environment, when there is one.
async fn dynamo_store() -> Result<Option<Arc<dyn AuditStore>>, String> {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType,
    };
    if std::env::var_os("AWS_ENDPOINT_URL_DYNAMODB").is_none() {
        return Ok(None);
    }
    let client = aws_sdk_dynamodb::Client::new(&kobana_mcp::net::aws::sdk_config().await);
    let table = format!("bench-audit-{}", std::process::id());
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .map_err(|e| e.to_string())
    };
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .map_err(|e| e.to_string())
    };
    let index = GlobalSecondaryIndex::builder()
        .index_name(kobana_mcp::audit::BY_ORGANIZATION)
        .key_schema(key("organization", KeyType::Hash)?)
        .key_schema(key("id", KeyType::Range)?)
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
        )
        .build()
        .map_err(|e| e.to_string())?;
    client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("id")?)
        .attribute_definitions(attribute("organization")?)
        .key_schema(key("id", KeyType::Hash)?)
        .global_secondary_indexes(index)
        .send()
        .await
        .map_err(|e| format!("create the bench's audit table: {e:?}"))?;
    Ok(Some(Arc::new(DynamoAudit::with_client(table, client))))
}
