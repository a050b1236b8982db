//! What the trail keeps and tells (AU-1, AU-6): no value a person typed is stored or logged
//! — the DynamoDB items (moto) and every log line at `trace` are scanned for each — and each
//! entry gives one metric by tool and outcome under the real function binary.

use crate::common;
use fake_kobana::fixtures::ids::{INV_OPEN, NFE_ISSUED, PADARIA};

use std::time::Duration;

use crate::audit::support::{audit_table, scan};
use crate::lambda::support::Harness;
use common::Stack;
use common::thread_server::{LogBuffer, ThreadServer};
use fake_kobana::full_token;
use kobana_mcp::Config;
use kobana_mcp::telemetry::logging::{json_subscriber, log_filter};
use serde_json::{Value, json};

/// Values a person types that are personal or free text: none may be stored or logged.
const PRIVATE: [&str; 9] = [
    "Zuleica Quintanilha",
    "529.982.247-25",
    "52998224725",
    "zuleica.q@example.org",
    "+55 11 98765-4321",
    "Rua das Acácias",
    "CPF52998224725",
    "cobrança em duplicidade da Zuleica",
    "nota emitida para o tomador errado",
];

#[tokio::test]
async fn au1_no_value_a_person_typed_is_stored_or_logged() {
    let fake = fake_kobana::FakeKobana::start().await;
    let (table, client) = audit_table().await;
    let config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: Duration::from_secs(10),
        audit: kobana_mcp::config::AuditConfig {
            table: Some(table.clone()),
            ..Default::default()
        },
        ..Config::default()
    };
    let log = LogBuffer::default();
    let writer = log.clone();
    let dispatch = tracing::Dispatch::new(json_subscriber(log_filter(Some("trace")), move || {
        writer.clone()
    }));
    let mut server = ThreadServer::start(config, dispatch, || {});
    let stack = Stack {
        fake,
        url: server.url(),
        http: kobana_mcp::net::client_builder().build().unwrap(),
    };
    let token = full_token();
    let calls = [
        (
            "billing_customers_create",
            json!({"name": PRIVATE[0], "document_number": PRIVATE[1], "email": PRIVATE[3],
                "phone": PRIVATE[4], "external_id": PRIVATE[6],
                "addresses": [{"street": PRIVATE[5], "number": "12", "city": "São Paulo",
                    "state": "SP", "postal_code": "01234-000"}]}),
        ),
        (
            "billing_customers_update",
            json!({"id": PRIVATE[6], "nickname": PRIVATE[0]}),
        ),
        (
            "billing_customers_update",
            json!({"id": PADARIA, "notes": PRIVATE[7], "document_number": PRIVATE[2]}),
        ),
        (
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": PRIVATE[7]}),
        ),
        (
            "billing_nfes_cancel",
            json!({"id": NFE_ISSUED, "reason": PRIVATE[8]}),
        ),
    ];
    for (tool, args) in &calls {
        let result = stack.call(&token, tool, args.clone()).await;
        assert_ne!(result["isError"], true, "{tool}: {result}");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.stop();
    let items = scan(&client, &table).await;
    assert_eq!(items.len(), calls.len(), "{items:#?}");
    // The path id that was an external_id is kept as a mark, never as its value.
    assert!(
        items
            .iter()
            .any(|i| i["operation"]["ids"] == json!(["external_id"])),
        "{items:#?}"
    );
    let stored = serde_json::to_string(&items).unwrap();
    let logged = log.text();
    assert!(
        logged.contains("kobana_mcp::request"),
        "the log was captured"
    );
    for value in PRIVATE {
        assert!(!stored.contains(value), "stored: {value:?} in {stored}");
        assert!(!logged.contains(value), "logged: {value:?}");
    }
    // Names and free text are counted, not kept.
    assert!(items.iter().all(|i| i["summary"].is_object()));
    assert!(
        items
            .iter()
            .all(|i| i["summary"]["omitted_fields"].as_u64() >= Some(1)),
        "{items:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn au6_each_entry_gives_one_metric_by_tool_and_outcome() {
    let mut harness = Harness::start(&[]).await;
    let void = json!({"name": "billing_invoices_void",
        "arguments": {"id": INV_OPEN, "reason": "metricas"}});
    for answer in [
        json!({"action": "decline"}),
        json!({"action": "accept", "content": {"confirm": true}}),
    ] {
        let asked = harness
            .invoke(&crate::lambda::support::modern_event(
                "tools/call",
                void.clone(),
            ))
            .await
            .http()
            .json();
        let mut retry = void.clone();
        retry["requestState"] = asked["result"]["requestState"].clone();
        retry["inputResponses"] = json!({"confirm": answer});
        harness
            .invoke(&crate::lambda::support::modern_event("tools/call", retry))
            .await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs = harness.logs();
    let audit: Vec<Value> = logs
        .lines()
        .filter(|l| l.starts_with('{') && l.contains("\"AuditEntries\""))
        .map(|l| serde_json::from_str(l).expect("an EMF line"))
        .collect();
    let seen: Vec<(String, String)> = audit
        .iter()
        .map(|d| {
            assert_eq!(d["AuditEntries"], 1, "{d}");
            assert_eq!(d["AuditStoreFailures"], 0, "{d}");
            assert_eq!(
                d["_aws"]["CloudWatchMetrics"][0]["Dimensions"][0],
                json!(["Function", "Tool", "Outcome"])
            );
            (
                d["Tool"].as_str().unwrap().to_owned(),
                d["Outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let void = "billing_invoices_void".to_owned();
    assert_eq!(
        seen,
        [
            (void.clone(), "declined".to_owned()),
            (void, "done".to_owned())
        ],
        "one per entry, none for the questions"
    );
}
