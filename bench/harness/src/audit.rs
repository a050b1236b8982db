//! Section 9: what the audit trail costs one write (#33, AU-3: extra DynamoDB round trips ≤ 2,
//! and server CPU).
//!
//! - Round trips: `tools/call billing_customers_update` through `App::handle` (a canned Kobana
//!   answering the fake's record) with an audit store that counts its calls: each is one
//!   DynamoDB request in the DynamoDB store (`PutItem` before the write, `UpdateItem` after).
//! - CPU: the trail's own work for one write (`begin` + `finish`) against a store that does
//!   nothing; and, when `AWS_ENDPOINT_URL_DYNAMODB` names an endpoint (moto in the test
//!   command), against the DynamoDB store (request building, signing, HTTP). CPU is this
//!   thread's (`CLOCK_THREAD_CPUTIME_ID`) on a single-threaded runtime, so the store's server
//!   is not counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kobana_mcp::access::{BearerToken, Principal};
use kobana_mcp::audit::{
    AuditStore, AuditStoreError, BoxFuture, CallAudit, Completion, Confirmation, DynamoAudit,
    Entry, ListQuery, Listed, Trail,
};
use kobana_mcp::kobana::Envelope;

use super::*;

const CUSTOMER: &str = "972a8469-1641-4f82-8b9d-2434e465e150";

/// Counts the calls of a store (`None`: one that takes everything and keeps nothing).
#[derive(Debug)]
struct Counting(Option<Arc<dyn AuditStore>>, AtomicUsize);

impl Counting {
    fn over(inner: Option<Arc<dyn AuditStore>>) -> Arc<Self> {
        Arc::new(Self(inner, AtomicUsize::new(0)))
    }

    fn count<'a, T: Default + Send + 'a>(
        &'a self,
        call: Option<BoxFuture<'a, Result<T, AuditStoreError>>>,
    ) -> BoxFuture<'a, Result<T, AuditStoreError>> {
        self.1.fetch_add(1, Ordering::SeqCst);
        call.unwrap_or_else(|| Box::pin(async { Ok(T::default()) }))
    }
}

impl AuditStore for Counting {
    fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        self.count(self.0.as_ref().map(|s| s.put(entry)))
    }
    fn complete<'a>(
        &'a self,
        id: &'a str,
        completion: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        self.count(self.0.as_ref().map(|s| s.complete(id, completion)))
    }
    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
        self.count(self.0.as_ref().map(|s| s.list(query)))
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

/// `write` run `n + 1` times: this thread's CPU and the wall time per write (µs), the first
/// (which sets up clients) not counted.
async fn per_write<F: Future<Output = Result<(), String>>>(
    n: usize,
    mut write: impl FnMut() -> F,
) -> Result<(f64, f64), String> {
    let (mut cpu, mut wall) = (Duration::ZERO, Duration::ZERO);
    for i in 0..=n {
        let (c0, w0) = (thread_cpu(), Instant::now());
        write().await?;
        if i > 0 {
            (cpu, wall) = (cpu + (thread_cpu() - c0), wall + w0.elapsed());
        }
    }
    Ok((
        cpu.as_secs_f64() * 1e6 / n as f64,
        wall.as_secs_f64() * 1e6 / n as f64,
    ))
}

/// Store calls per `tools/call` write through the app, and the whole write's CPU (µs).
async fn through_the_app(token: &str, n: usize) -> Result<(f64, f64), String> {
    let (upstream, _) = inproc::canned_fake(token, &format!("/v1/customers/{CUSTOMER}")).await?;
    let store = Counting::over(Some(Arc::new(kobana_mcp::audit::MemoryAudit::new())));
    let config = kobana_mcp::Config {
        kobana_api_url: format!("http://{upstream}"),
        ..Default::default()
    };
    let confirmations = Arc::new(kobana_mcp::confirm::MemoryStore::new());
    let app = kobana_mcp::App::with_audit(
        config,
        confirmations,
        kobana_mcp::confirm::system_clock(),
        store.clone(),
    )
    .map_err(|e| e.to_string())?;
    let params = json!({"name": "billing_customers_update", "arguments": {"id": CUSTOMER, "nickname": "bench"}});
    let (app, params) = (&app, &params);
    let write = || async move {
        inproc::handle(
            app,
            inproc::request(token, "tools/call", params.clone(), true),
        )
        .await
        .map(drop)
    };
    let (cpu, _) = per_write(n, write).await?;
    Ok((store.1.load(Ordering::SeqCst) as f64 / (n + 1) as f64, cpu))
}

/// The trail alone over `store`: `begin`, then `finish` with a success, per write (CPU, wall).
async fn trail_alone(store: Arc<Counting>, token: &str, n: usize) -> Result<(f64, f64), String> {
    let principal =
        Principal::from_token(BearerToken::new(token.to_owned()), 0).map_err(|e| e.to_string())?;
    let arguments = json!({"id": CUSTOMER, "nickname": "bench", "notes": "a note"});
    let call = CallAudit::for_call(
        Arc::new(Trail::new(store, 400)),
        "billing_customers_update",
        arguments.as_object(),
        &principal,
        None,
        Some(Confirmation::NotAskedNotDestructive),
    );
    let body = json!({"nickname": "bench", "notes": "a note", "tags": ["a"]});
    let data = json!({"id": CUSTOMER, "name": "x"});
    let answer = Envelope {
        data,
        meta: None,
        status: 200,
        request_id: Some("3f1c9b9e-8a51-4c55-9c39-6f7d2a1b0c4e".into()),
    };
    let (call, body, answer) = (&call, &body, &answer);
    per_write(n, || async move {
        let pending = call
            .begin("PATCH", &["customers", CUSTOMER], Some(body))
            .await
            .map_err(|e| e.to_string())?;
        pending.finish(Ok(answer)).await;
        Ok(())
    })
    .await
}

/// A fresh audit table on the DynamoDB endpoint of the environment, when there is one.
async fn dynamo_store() -> Result<Option<Arc<dyn AuditStore>>, String> {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    if std::env::var_os("AWS_ENDPOINT_URL_DYNAMODB").is_none() {
        return Ok(None);
    }
    let client = aws_sdk_dynamodb::Client::new(&kobana_mcp::net::aws::sdk_config().await);
    let table = format!("bench-audit-{}", std::process::id());
    let key = KeySchemaElement::builder()
        .attribute_name("id")
        .key_type(KeyType::Hash)
        .build();
    let attribute = AttributeDefinition::builder()
        .attribute_name("id")
        .attribute_type(ScalarAttributeType::S)
        .build();
    let create = client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest);
    let create = create
        .attribute_definitions(attribute.map_err(|e| e.to_string())?)
        .key_schema(key.map_err(|e| e.to_string())?);
    create
        .send()
        .await
        .map_err(|e| format!("create the bench's audit table: {e:?}"))?;
    Ok(Some(Arc::new(DynamoAudit::with_client(table, client))))
}

pub fn run(bench: &Bench) -> Result<Report, String> {
    let n = bench.counts.reps * 200;
    let token = &bench.token;
    let ((calls, whole), alone, dynamo) = std::thread::scope(|s| {
        let thread = s.spawn(|| {
            procs::pin(bench.cpu());
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(async {
                let app = through_the_app(token, n).await?;
                let alone = trail_alone(Counting::over(None), token, n).await?;
                let dynamo = match dynamo_store().await? {
                    Some(store) => Some(trail_alone(Counting::over(Some(store)), token, n).await?),
                    None => None,
                };
                Ok::<_, String>((app, alone, dynamo))
            })
        });
        thread
            .join()
            .map_err(|_| "the audit thread panicked".to_owned())?
    })?;
    let mut r = Report::default();
    r.row(
        9,
        cells![
            format!("Audit: store round trips per `tools/call` write (n = {n})"),
            format!("{calls:.2}"),
            "PutItem before, UpdateItem after",
            "",
            "≤ 2 (#33)"
        ],
        Some(calls <= 2.0),
    );
    r.row(
        9,
        cells![
            "Audit: server CPU per write, the trail's own work (a store that does nothing)",
            us(alone.0),
            format!("the whole `tools/call` write: {}", us(whole)),
            format!("{:.1} %", 100.0 * alone.0 / whole.max(1e-9)),
            "reported (#33)"
        ],
        None,
    );
    match dynamo {
        Some((cpu, wall)) => r.row(9, cells!["Audit: server CPU per write with the DynamoDB store (moto)", us(cpu), format!("wall {} per write", us(wall)), "", "reported (#33)"], None),
        None => r.notes.push("Audit: `AWS_ENDPOINT_URL_DYNAMODB` unset: the DynamoDB store's CPU was not measured (run the bench with moto, as scripts/test.sh starts it).".into()),
    }
    Ok(r)
}
