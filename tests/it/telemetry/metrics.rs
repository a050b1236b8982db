//! CloudWatch metrics (OP-2): the real function binary under the Lambda Runtime API
//! emulator writes Embedded Metric Format lines on stdout; these tests parse them and find the
//! metrics of the requests they sent — by Lambda request id — and the request line carrying
//! the same id. With `MCP_METRICS=off` there are none.

use fake_kobana::fixtures::ids::{INV_OPEN, UNKNOWN};
use std::time::Duration;

use crate::lambda::support::{Harness, event, modern_event};
use fake_kobana::{Fault, FaultKind};
use serde_json::{Value, json};

/// The emulator numbers invocations from 1.
fn lambda_id(n: u64) -> String {
    format!("8f507cfc-0000-4000-8000-{n:012}")
}

/// Every EMF document in the log, checked against EMF's own rules.
fn emf_documents(logs: &str) -> Vec<Value> {
    let docs: Vec<Value> = logs
        .lines()
        .filter(|l| l.starts_with('{') && l.contains("\"_aws\":"))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad EMF line ({e}): {l}")))
        .filter(|d: &Value| d.get("_aws").is_some())
        .collect();
    for doc in &docs {
        assert!(
            doc["_aws"]["Timestamp"].as_u64().unwrap() > 1_600_000_000_000,
            "{doc}"
        );
        for directive in doc["_aws"]["CloudWatchMetrics"].as_array().unwrap() {
            assert_eq!(directive["Namespace"], "KobanaMcp");
            for set in directive["Dimensions"].as_array().unwrap() {
                for key in set.as_array().unwrap() {
                    let value = &doc[key.as_str().unwrap()];
                    assert!(
                        value.is_string(),
                        "dimension {key} is a string member: {doc}"
                    );
                }
            }
            for metric in directive["Metrics"].as_array().unwrap() {
                let value = &doc[metric["Name"].as_str().unwrap()];
                assert!(value.is_number() || value.is_array(), "{metric}: {doc}");
            }
        }
    }
    docs
}

fn request_doc<'a>(docs: &'a [Value], id: &str) -> &'a Value {
    let mine: Vec<&Value> = docs
        .iter()
        .filter(|d| d["RequestId"] == id && d.get("Requests").is_some())
        .collect();
    assert_eq!(mine.len(), 1, "one request document for {id}: {docs:#?}");
    mine[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn emf_lines_carry_the_metrics_of_each_request_sent() {
    let mut harness = Harness::start(&[]).await;
    eight_requests(&mut harness).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs = harness.logs();
    let docs = emf_documents(&logs);

    let init = request_doc(&docs, &lambda_id(1));
    assert_eq!(init["Method"], "initialize");
    assert_eq!(init["Function"], "kobana-mcp-test");
    assert_eq!(
        (init["Requests"].clone(), init["Errors"].clone()),
        (json!(1), json!(0))
    );
    assert!(init["Duration"].as_f64().unwrap() > 0.0, "{init}");
    assert!(init.get("Tool").is_none(), "{init}");
    the_tool_calls_kobana_documents(&docs);
    errors_and_confirmations(&docs);
    // The request line of each invocation carries Lambda's request id.
    for n in 1..=8 {
        let id = lambda_id(n);
        let lines = logs
            .lines()
            .filter(|l| l.contains("\"kobana_mcp::request\"") && l.contains(&id))
            .count();
        assert_eq!(lines, 1, "one request line for {id}");
    }
}

/// Eight requests: 1 initialize; 2 a tool call whose first Kobana read gets a 503, then a
/// 200; 3 a tool error; 4 no token (401); 5 a destructive call asked; 6 declined; 7 asked
/// again; 8 confirmed.
async fn eight_requests(harness: &mut Harness) {
    // 1: initialize; 2: a tool call whose first Kobana read gets a 503, then a 200.
    harness.invoke(&event("initialize")).await;
    harness.fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/customers".into(),
        kind: FaultKind::Status {
            status: 503,
            retry_after: None,
        },
        times: Some(1),
    });
    let call = json!({"name": "billing_customers_list", "arguments": {}});
    let reply = harness
        .invoke(&modern_event("tools/call", call))
        .await
        .http();
    assert_eq!(
        reply.json()["result"]["isError"],
        false,
        "{:?}",
        reply.json()
    );
    // 3: a tool error; 4: no token (401).
    let call = json!({"name": "billing_invoices_get",
        "arguments": {"id": UNKNOWN}});
    harness.invoke(&modern_event("tools/call", call)).await;
    harness.invoke(&event("no-token")).await;
    // 5: a destructive call asked; 6: declined; 7: asked again; 8: confirmed.
    let void = json!({"name": "billing_invoices_void",
        "arguments": {"id": INV_OPEN, "reason": "metricas"}});
    for answer in [
        json!({"action": "decline"}),
        json!({"action": "accept", "content": {"confirm": true}}),
    ] {
        let asked = harness
            .invoke(&modern_event("tools/call", void.clone()))
            .await
            .http()
            .json();
        let state = asked["result"]["requestState"].clone();
        assert!(state.is_string(), "{asked}");
        let mut retry = void.clone();
        retry["requestState"] = state;
        retry["inputResponses"] = json!({"confirm": answer});
        harness.invoke(&modern_event("tools/call", retry)).await;
    }
}

/// Request 2's document, and one Kobana document per upstream answer (the 503, the 200).
fn the_tool_calls_kobana_documents(docs: &[Value]) {
    let list = request_doc(docs, &lambda_id(2));
    assert_eq!(
        (list["Method"].clone(), list["Tool"].clone()),
        (json!("tools/call"), json!("billing_customers_list"))
    );
    assert_eq!(
        list["_aws"]["CloudWatchMetrics"][0]["Dimensions"][1],
        json!(["Function", "Method", "Tool"])
    );
    assert_eq!(list["Errors"], 0);
    let kobana: Vec<&Value> = docs
        .iter()
        .filter(|d| d["RequestId"] == lambda_id(2).as_str() && d.get("KobanaCalls").is_some())
        .collect();
    let by_status = |status: &str| {
        kobana
            .iter()
            .find(|d| d["KobanaStatus"] == status)
            .unwrap_or_else(|| panic!("no Kobana {status} document: {kobana:#?}"))
    };
    let failed = by_status("503");
    assert_eq!(
        (
            failed["KobanaCalls"].clone(),
            failed["Kobana5xx"].clone(),
            failed["KobanaErrors"].clone()
        ),
        (json!(1), json!(1), json!(1))
    );
    assert!(
        failed["KobanaLatency"][0].as_f64().unwrap() > 0.0,
        "{failed}"
    );
    let ok = by_status("200");
    assert_eq!(
        (ok["Kobana5xx"].clone(), ok["KobanaErrors"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(
        ok["_aws"]["CloudWatchMetrics"][0]["Dimensions"][1],
        json!(["Function"])
    );
}

/// Requests 3 and 4 are errors; 5 to 8 count the questions asked, confirmed and declined.
fn errors_and_confirmations(docs: &[Value]) {
    let not_found = request_doc(docs, &lambda_id(3));
    assert_eq!(not_found["Errors"], 1);
    assert!(docs.iter().any(|d| d["RequestId"] == lambda_id(3).as_str()
        && d["KobanaStatus"] == "404"
        && d["KobanaErrors"] == 1));
    let unauthenticated = request_doc(docs, &lambda_id(4));
    assert_eq!(
        (
            unauthenticated["Method"].clone(),
            unauthenticated["Errors"].clone()
        ),
        (json!("http"), json!(1))
    );

    let step = |n: u64| {
        let doc = request_doc(docs, &lambda_id(n));
        assert_eq!(doc["Tool"], "billing_invoices_void");
        [
            doc["ConfirmationsAsked"].as_u64(),
            doc["ConfirmationsConfirmed"].as_u64(),
            doc["ConfirmationsDeclined"].as_u64(),
        ]
    };
    assert_eq!(step(5), [Some(1), Some(0), Some(0)]);
    assert_eq!(step(6), [Some(0), Some(0), Some(1)]);
    assert_eq!(step(7), [Some(1), Some(0), Some(0)]);
    assert_eq!(step(8), [Some(0), Some(1), Some(0)]);
    assert_eq!(
        request_doc(docs, &lambda_id(6))["Errors"],
        1,
        "a declined call is a tool error"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_emf_lines_when_metrics_are_off() {
    let mut harness = Harness::start(&[("MCP_METRICS", "off")]).await;
    harness.invoke(&event("initialize")).await;
    harness.invoke(&event("no-token")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs = harness.logs();
    assert!(
        logs.contains("\"kobana_mcp::request\""),
        "the request lines are still there"
    );
    assert!(emf_documents(&logs).is_empty(), "{logs}");
    assert!(!logs.contains("\"_aws\""), "{logs}");
}

/// The Kobana alarm reads metrics this server writes: the namespace, the metric names and the
/// `Function` dimension of the EMF documents; every alarm notifies the optional topic only.
#[test]
fn the_template_alarms_read_the_metrics_the_function_writes() {
    use kobana_mcp::telemetry::emf;
    use kobana_mcp::telemetry::record::{Fields, KobanaCall};
    let fields = Fields {
        kobana: vec![KobanaCall {
            status: Some(502),
            millis: 1.0,
        }],
        ..Fields::default()
    };
    let documents = emf::lines(&fields, "f", "r", 1.0, 1_700_000_000_000);
    let kobana: Value = serde_json::from_str(&documents[1]).unwrap();
    let lines = &*crate::common::TEMPLATE;
    let body = &lines[crate::common::template_at("Kobana5xxRateAlarm:")..];
    let body = &body[..body
        .iter()
        .position(|l| l.starts_with("OKActions:"))
        .unwrap()];
    for metric in ["Kobana5xx", "KobanaCalls"] {
        assert!(
            body.contains(&format!("MetricName: {metric}").as_str()),
            "{metric}"
        );
        assert_eq!(kobana[metric], 1, "the function writes {metric}");
    }
    assert!(body.contains(&format!("Namespace: {}", emf::NAMESPACE).as_str()));
    assert!(body.contains(&"- Name: Function"));
    assert_eq!(
        kobana["_aws"]["CloudWatchMetrics"][0]["Dimensions"][1],
        json!(["Function"])
    );
    for name in [
        "FunctionErrorsAlarm:",
        "FunctionThrottlesAlarm:",
        "Kobana5xxRateAlarm:",
    ] {
        assert!(lines.contains(&name), "{name}");
    }
    let actions = lines
        .iter()
        .filter(|l| l.starts_with("AlarmActions:") || l.starts_with("OKActions:"))
        .collect::<Vec<_>>();
    assert_eq!(actions.len(), 6);
    assert!(
        actions
            .iter()
            .all(|l| l.ends_with("!If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]")),
        "{actions:?}"
    );
    assert!(lines.contains(&"Default: \"\""), "no topic by default");
}

/// RK-7: a live Kobana answer off the contract (an unknown status) fires `ContractDrift` by
/// operation, with one WARN line naming the member, never its value; a token whose scope
/// words this server does not know fires `UnknownScopeWords`, and one log field names the
/// words, never the token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rk4_rk7_drift_and_unknown_scope_words_fire_their_metrics() {
    let mut harness = Harness::start(&[]).await;
    for (path, pointer, value) in [
        (
            format!("/v1/invoices/{INV_OPEN}"),
            "/data/status",
            "em_atraso",
        ),
        (
            "/v1/payments".to_owned(),
            "/data/0/status",
            "estorno_parcial",
        ),
    ] {
        harness.fake.inject(Fault {
            method: Some("GET".into()),
            path_prefix: path,
            kind: FaultKind::Member {
                pointer: pointer.into(),
                value: json!(value),
            },
            times: None,
        });
    }
    let call = json!({"name": "billing_invoices_get", "arguments": {"id": INV_OPEN}});
    harness.invoke(&modern_event("tools/call", call)).await;
    let token = fake_kobana::scoped_token(
        "person-ana",
        fake_kobana::FIXTURE_ORG_ID,
        "billing.all inbox.emails",
    );
    let mut list = modern_event("tools/list", json!({}));
    let bearer = format!("Bearer {token}");
    list["headers"]["Authorization"] = json!(bearer);
    list["multiValueHeaders"]["Authorization"] = json!([bearer]);
    harness.invoke(&list).await;
    let payments = json!({"name": "billing_payments_list", "arguments": {}});
    harness.invoke(&modern_event("tools/call", payments)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs = harness.logs();
    let docs = emf_documents(&logs);
    let drift = docs
        .iter()
        .find(|d| d["RequestId"] == lambda_id(1).as_str() && d.get("ContractDrift").is_some())
        .unwrap_or_else(|| panic!("no ContractDrift document: {docs:#?}"));
    assert_eq!(
        (
            drift["Operation"].clone(),
            drift["Field"].clone(),
            drift["Kind"].clone()
        ),
        (
            json!("invoices.get"),
            json!("data.status"),
            json!("unknown_enum_value")
        )
    );
    // Exactly one WARN line per drift, naming its operation and member, never the value.
    let warns: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("left the contract"))
        .collect();
    assert_eq!(warns.len(), 2, "one line per drift: {warns:#?}");
    for (operation, field) in [
        ("invoices.get", "data.status"),
        ("payments.list", "data[].status"),
    ] {
        let named: Vec<&&str> = warns
            .iter()
            .filter(|l| {
                l.contains(&format!("\"operation\":\"{operation}\""))
                    && l.contains(&format!("\"field\":\"{field}\""))
            })
            .collect();
        assert_eq!(named.len(), 1, "{operation} {field}: {warns:#?}");
        assert!(named[0].contains("WARN"), "{}", named[0]);
    }
    for value in ["em_atraso", "estorno_parcial"] {
        assert!(
            !logs.contains(value),
            "never a value: {:?}",
            logs.lines()
                .filter(|l| l.contains(value))
                .collect::<Vec<_>>()
        );
    }
    let scopes = docs
        .iter()
        .find(|d| d["RequestId"] == lambda_id(2).as_str() && d.get("UnknownScopeWords").is_some())
        .unwrap_or_else(|| panic!("no UnknownScopeWords document: {docs:#?}"));
    assert_eq!(scopes["ScopeWords"], "billing.all inbox.emails");
    assert!(
        logs.lines()
            .any(|l| l.contains("\"unknown_scopes\":\"billing.all inbox.emails\"")),
        "{logs}"
    );
    assert!(!logs.contains(&token), "never the token");
}
