//! Drift: every live JSON answer is checked, cheaply, against Kobana's contract
//! ([`super::contract`]) — an unknown enum value, a missing required member, a type
//! mismatch. Each deviation becomes one WARN line naming the operation and the member (never
//! a value) and, through the request's record, one `ContractDrift` metric: a contract change
//! shows in CloudWatch before a customer notices. A request logs each drift once and at most
//! [`MAX_DRIFTS`](crate::telemetry::record::MAX_DRIFTS) of them (BW-3): a hostile answer
//! cannot fill the log.

use serde_json::Value;

use super::contract::contract;
use crate::telemetry::{Drift, RequestRecord};

/// Checks the answer of `method /v1/<segments>` (`data`, `meta`) and reports what left the
/// contract. An operation the contract lacks, and a DELETE's empty 204, are not checked.
pub fn check(
    method: &str,
    segments: &[&str],
    data: &Value,
    meta: Option<&Value>,
    record: Option<&RequestRecord>,
) {
    let Some(operation) = contract().find(method, segments) else {
        return;
    };
    let Some(schema) = operation.schema.as_deref() else {
        return;
    };
    if method.eq_ignore_ascii_case("DELETE") && data.is_null() {
        return;
    }
    let deviations = if contract().answers_bare(method, segments) {
        contract().check_answer(schema, data)
    } else {
        contract().check_envelope(schema, data, meta)
    };
    for deviation in deviations {
        let drift = Drift {
            operation: operation.id.as_str(),
            field: deviation.field,
            kind: deviation.kind,
        };
        // One line per drift the request keeps (each once, at most `MAX_DRIFTS` per request,
        // whatever its answers hold); without a request, per answer (`MAX_DEVIATIONS`).
        if record.is_none_or(|record| record.drift(drift.clone())) {
            tracing::warn!(
                operation = drift.operation,
                field = drift.field.as_str(),
                kind = drift.kind,
                "Kobana's answer left the contract"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_drift_is_recorded_by_operation_and_member() {
        let record = RequestRecord::new("r".into(), "POST");
        let mut odd = super::super::contract::tests::payment();
        odd["status"] = json!("em_atraso");
        let data = json!([odd]);
        check(
            "GET",
            &["payments"],
            &data,
            Some(&json!({"total": 1, "page": 1,
            "per_page": 20, "total_pages": 1})),
            Some(&record),
        );
        let drift = record.snapshot().drift;
        assert!(
            drift.contains(&Drift {
                operation: "payments.list",
                field: "data[].status".into(),
                kind: super::super::contract::UNKNOWN_ENUM,
            }),
            "{drift:?}"
        );
        // A DELETE's 204, and an operation the contract lacks, are not checked.
        let record = RequestRecord::new("r".into(), "POST");
        check(
            "DELETE",
            &["invoices", "x"],
            &Value::Null,
            None,
            Some(&record),
        );
        check("GET", &["nothing"], &json!(1), None, Some(&record));
        assert!(record.snapshot().drift.is_empty());
    }
}
