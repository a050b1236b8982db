//! CloudWatch metrics through the Embedded Metric Format: one JSON document per line on
//! stdout, which Lambda ships to CloudWatch Logs and CloudWatch turns into metrics — no API
//! call, no client, no added latency.
//!
//! Per request: `Requests`, `Errors`, `Duration` by `Method` and by `Method` + `Tool`, with
//! `ConfirmationsAsked` / `Confirmed` / `Declined` on destructive calls; per Kobana status
//! seen: `KobanaCalls`, `KobanaErrors`, `Kobana5xx` and `KobanaLatency` by `KobanaStatus` and
//! for the function as a whole (the alarm's input); `UnknownScopeWords` when the token's
//! scope words are not ones this server knows, and `ContractDrift` by `Operation` when a live
//! answer left Kobana's contract; `AuditEntries` by `Tool` and `Outcome` per audit entry
//! written, and `AuditStoreFailures` when the audit store refused a step. Every dimension
//! set starts with `Function`, so two stacks in one account never mix.
//!
//! No crate on crates.io fitted (the few EMF crates are unmaintained or pull in a metrics
//! facade and a background flusher); the format is small enough to write here.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::record::{ConfirmationStep, Fields};

/// The CloudWatch namespace of every metric.
pub const NAMESPACE: &str = "KobanaMcp";

/// The `KobanaStatus` of a call that got no answer (timeout, connection failure).
pub const NO_ANSWER: &str = "none";

fn document(
    timestamp_ms: u64,
    dimensions: Vec<Vec<&str>>,
    metrics: &[(&str, &str, Value)],
    properties: &[(&str, Value)],
) -> String {
    let mut doc = Map::new();
    let definitions: Vec<Value> = metrics
        .iter()
        .map(|(name, unit, _)| json!({"Name": name, "Unit": unit}))
        .collect();
    doc.insert(
        "_aws".into(),
        json!({
            "Timestamp": timestamp_ms,
            "CloudWatchMetrics": [{
                "Namespace": NAMESPACE,
                "Dimensions": dimensions,
                "Metrics": definitions,
            }],
        }),
    );
    for (key, value) in properties {
        doc.insert((*key).to_owned(), value.clone());
    }
    for (name, _, value) in metrics {
        doc.insert((*name).to_owned(), value.clone());
    }
    Value::Object(doc).to_string()
}

/// The EMF lines for one finished request: the request's document, the vocabulary and drift
/// documents, and one document per Kobana status.
pub fn lines(
    fields: &Fields,
    function: &str,
    request_id: &str,
    duration_ms: f64,
    timestamp_ms: u64,
) -> Vec<String> {
    let mut out = vec![request_document(
        fields,
        function,
        request_id,
        duration_ms,
        timestamp_ms,
    )];
    out.extend(vocabulary_and_drift(
        fields,
        function,
        request_id,
        timestamp_ms,
    ));
    out.extend(kobana_documents(fields, function, request_id, timestamp_ms));
    out.extend(audit_documents(fields, function, request_id, timestamp_ms));
    out
}

/// One document per audit entry the request wrote: `AuditEntries` by `Tool` and `Outcome`
/// (and for the function), with `AuditStoreFailures` when the store refused its completion
/// (the entry stays `unknown`); a store that refused the first write (nothing was sent)
/// gives `AuditStoreFailures` by `Tool` alone. `StoreStep` names the step refused.
fn audit_documents(
    fields: &Fields,
    function: &str,
    request_id: &str,
    timestamp_ms: u64,
) -> Vec<String> {
    fields
        .audit
        .iter()
        .map(|note| {
            let failed = u8::from(note.store_failure.is_some());
            let mut properties = vec![
                ("Function", json!(function)),
                ("Tool", json!(note.tool)),
                ("RequestId", json!(request_id)),
            ];
            if let Some(step) = note.store_failure {
                properties.push(("StoreStep", json!(step)));
            }
            let (dimensions, metrics) = match note.outcome {
                Some(outcome) => {
                    properties.push(("Outcome", json!(outcome)));
                    (
                        vec![vec!["Function", "Tool", "Outcome"], vec!["Function"]],
                        vec![
                            ("AuditEntries", "Count", json!(1)),
                            ("AuditStoreFailures", "Count", json!(failed)),
                        ],
                    )
                }
                None => (
                    vec![vec!["Function", "Tool"], vec!["Function"]],
                    vec![("AuditStoreFailures", "Count", json!(failed))],
                ),
            };
            document(timestamp_ms, dimensions, &metrics, &properties)
        })
        .collect()
}

/// The request's own document: requests, errors and duration by function and method (and
/// tool), and the confirmation step it reached.
fn request_document(
    fields: &Fields,
    function: &str,
    request_id: &str,
    duration_ms: f64,
    timestamp_ms: u64,
) -> String {
    let method = fields.mcp_method.as_deref().unwrap_or("http");
    let tool = fields.target.as_deref().filter(|_| method == "tools/call");
    let mut dimensions = vec![vec!["Function", "Method"]];
    let mut properties = vec![
        ("Function", json!(function)),
        ("Method", json!(method)),
        ("RequestId", json!(request_id)),
    ];
    if let Some(tool) = tool {
        dimensions.push(vec!["Function", "Method", "Tool"]);
        properties.push(("Tool", json!(tool)));
    }
    let mut metrics = vec![
        ("Requests", "Count", json!(1)),
        ("Errors", "Count", json!(u8::from(fields.is_error()))),
        ("Duration", "Milliseconds", json!(duration_ms)),
    ];
    if let Some(step) = fields.confirmation {
        let asked = matches!(step, ConfirmationStep::Asked | ConfirmationStep::Mismatched);
        metrics.push(("ConfirmationsAsked", "Count", json!(u8::from(asked))));
        metrics.push((
            "ConfirmationsConfirmed",
            "Count",
            json!(u8::from(step == ConfirmationStep::Confirmed)),
        ));
        metrics.push((
            "ConfirmationsDeclined",
            "Count",
            json!(u8::from(step == ConfirmationStep::Declined)),
        ));
    }
    document(timestamp_ms, dimensions, &metrics, &properties)
}

/// One document per Kobana status the request saw: calls, errors, 5xx and latencies.
fn kobana_documents(
    fields: &Fields,
    function: &str,
    request_id: &str,
    timestamp_ms: u64,
) -> Vec<String> {
    let mut by_status: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for call in &fields.kobana {
        let status = call
            .status
            .map_or_else(|| NO_ANSWER.to_owned(), |s| s.to_string());
        by_status.entry(status).or_default().push(call.millis);
    }
    let mut out = Vec::with_capacity(by_status.len());
    for (status, latencies) in by_status {
        let code: u16 = status.parse().unwrap_or(0);
        let count = latencies.len();
        let error = code == 0 || code >= 400;
        let server_side = code == 0 || code >= 500;
        let metrics = [
            ("KobanaCalls", "Count", json!(count)),
            (
                "KobanaErrors",
                "Count",
                json!(if error { count } else { 0 }),
            ),
            (
                "Kobana5xx",
                "Count",
                json!(if server_side { count } else { 0 }),
            ),
            ("KobanaLatency", "Milliseconds", json!(latencies)),
        ];
        let properties = [
            ("Function", json!(function)),
            ("KobanaStatus", json!(status)),
            ("RequestId", json!(request_id)),
        ];
        out.push(document(
            timestamp_ms,
            vec![vec!["Function", "KobanaStatus"], vec!["Function"]],
            &metrics,
            &properties,
        ));
    }
    out
}

/// `UnknownScopeWords` (the words in `ScopeWords`, a property: a token's claims are not
/// verified here, so they never become a dimension) and one `ContractDrift` per place a
/// Kobana answer left the contract, by `Operation` (`Field` and `Kind` as properties).
fn vocabulary_and_drift(
    fields: &Fields,
    function: &str,
    request_id: &str,
    timestamp_ms: u64,
) -> Vec<String> {
    let mut out = Vec::new();
    if !fields.unknown_scopes.is_empty() {
        out.push(document(
            timestamp_ms,
            vec![vec!["Function"]],
            &[("UnknownScopeWords", "Count", json!(1))],
            &[
                ("Function", json!(function)),
                ("RequestId", json!(request_id)),
                ("ScopeWords", json!(fields.unknown_scopes.join(" "))),
            ],
        ));
    }
    for drift in &fields.drift {
        out.push(document(
            timestamp_ms,
            vec![vec!["Function", "Operation"], vec!["Function"]],
            &[("ContractDrift", "Count", json!(1))],
            &[
                ("Function", json!(function)),
                ("Operation", json!(drift.operation)),
                ("Field", json!(drift.field)),
                ("Kind", json!(drift.kind)),
                ("RequestId", json!(request_id)),
            ],
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::record::KobanaCall;

    #[test]
    fn a_request_gives_one_document_plus_one_per_kobana_status() {
        let fields = Fields {
            mcp_method: Some("tools/call".into()),
            target: Some("billing_invoices_void".into()),
            tool_error: Some("USER_DECLINED".into()),
            confirmation: Some(ConfirmationStep::Declined),
            kobana: vec![
                KobanaCall {
                    status: Some(503),
                    millis: 4.0,
                },
                KobanaCall {
                    status: Some(200),
                    millis: 2.0,
                },
                KobanaCall {
                    status: None,
                    millis: 9.0,
                },
                KobanaCall {
                    status: Some(503),
                    millis: 5.0,
                },
            ],
            ..Fields::default()
        };
        let lines = lines(&fields, "fn", "req-1", 12.5, 1_700_000_000_000);
        assert_eq!(lines.len(), 4, "{lines:#?}");
        let docs: Vec<Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let request = &docs[0];
        let directive = &request["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Namespace"], NAMESPACE);
        assert_eq!(
            directive["Dimensions"][1],
            json!(["Function", "Method", "Tool"])
        );
        assert_eq!(request["Tool"], "billing_invoices_void");
        assert_eq!(request["Errors"], 1);
        assert_eq!(request["ConfirmationsDeclined"], 1);
        assert_eq!(request["ConfirmationsAsked"], 0);
        // Every metric a directive names is a member of the document (EMF's own rule).
        for doc in &docs {
            for metric in doc["_aws"]["CloudWatchMetrics"][0]["Metrics"]
                .as_array()
                .unwrap()
            {
                assert!(doc.get(metric["Name"].as_str().unwrap()).is_some(), "{doc}");
            }
        }
        let s503 = docs.iter().find(|d| d["KobanaStatus"] == "503").unwrap();
        assert_eq!(
            (s503["KobanaCalls"].clone(), s503["Kobana5xx"].clone()),
            (json!(2), json!(2))
        );
        assert_eq!(s503["KobanaLatency"], json!([4.0, 5.0]));
        let none = docs
            .iter()
            .find(|d| d["KobanaStatus"] == NO_ANSWER)
            .unwrap();
        assert_eq!(none["KobanaErrors"], 1);
        let ok = docs.iter().find(|d| d["KobanaStatus"] == "200").unwrap();
        assert_eq!(ok["KobanaErrors"], 0);
    }

    #[test]
    fn au6_one_document_per_audit_entry_by_tool_and_outcome() {
        use crate::telemetry::AuditNote;
        let fields = Fields {
            audit: vec![
                AuditNote {
                    tool: "billing_invoices_void",
                    outcome: Some("done"),
                    store_failure: None,
                },
                AuditNote {
                    tool: "billing_payments_refund",
                    outcome: Some("unknown"),
                    store_failure: Some("complete"),
                },
                AuditNote {
                    tool: "billing_nfes_cancel",
                    outcome: None,
                    store_failure: Some("begin"),
                },
            ],
            ..Fields::default()
        };
        let docs: Vec<Value> = lines(&fields, "fn", "req-3", 1.0, 1_700_000_000_000)
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let audit: Vec<&Value> = docs
            .iter()
            .filter(|d| d.get("AuditStoreFailures").is_some())
            .collect();
        assert_eq!(audit.len(), 3, "{docs:#?}");
        assert_eq!(
            (audit[0]["Tool"].clone(), audit[0]["Outcome"].clone()),
            (json!("billing_invoices_void"), json!("done"))
        );
        assert_eq!(
            (
                audit[0]["AuditEntries"].clone(),
                audit[0]["AuditStoreFailures"].clone()
            ),
            (json!(1), json!(0))
        );
        assert_eq!(
            audit[0]["_aws"]["CloudWatchMetrics"][0]["Dimensions"][0],
            json!(["Function", "Tool", "Outcome"])
        );
        assert_eq!(audit[1]["AuditStoreFailures"], 1);
        assert_eq!(audit[1]["StoreStep"], "complete");
        assert!(audit[2].get("AuditEntries").is_none());
        assert_eq!(audit[2]["StoreStep"], "begin");
    }

    #[test]
    fn unknown_scope_words_and_drift_get_their_own_documents() {
        let fields = Fields {
            mcp_method: Some("tools/list".into()),
            unknown_scopes: vec!["billing.all".into()],
            drift: vec![crate::telemetry::Drift {
                operation: "invoices.get",
                field: "data.status".into(),
                kind: "unknown_enum_value",
            }],
            ..Fields::default()
        };
        let docs: Vec<Value> = lines(&fields, "fn", "req-2", 1.0, 1_700_000_000_000)
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let scopes = docs
            .iter()
            .find(|d| d.get("UnknownScopeWords").is_some())
            .unwrap();
        assert_eq!(scopes["ScopeWords"], "billing.all");
        let drift = docs
            .iter()
            .find(|d| d.get("ContractDrift").is_some())
            .unwrap();
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
        assert_eq!(
            drift["_aws"]["CloudWatchMetrics"][0]["Dimensions"][0],
            json!(["Function", "Operation"])
        );
        assert_eq!(lines(&Fields::default(), "fn", "r", 1.0, 1).len(), 1);
    }
}
