//! Reading a planned write as one of the destructive requests this server sends — or as
//! none, so nothing is described (and nothing asked) that is not understood in full.

use reqwest::Method;
use serde_json::{Map, Value};

use super::Destructive;
use crate::access::slugs::{CUSTOMERS, INVOICES, NFES, PAYMENTS, SUBSCRIPTIONS};
use crate::catalog::{Asks, PlannedWrite};

/// The body's members, refusing any member not in `allowed`.
fn members(body: Option<&Value>, allowed: &[&str]) -> Option<Map<String, Value>> {
    let map = match body {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return None,
    };
    map.keys()
        .all(|k| allowed.contains(&k.as_str()))
        .then_some(map)
}

fn opt_text(map: &Map<String, Value>, key: &str) -> Option<Option<String>> {
    match map.get(key) {
        None => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

/// A positive amount in cents, when present: `Some(None)` absent, `None` not one.
fn opt_amount(map: &Map<String, Value>) -> Option<Option<u64>> {
    match map.get("amount_cents") {
        None => Some(None),
        Some(v) => Some(Some(v.as_u64().filter(|n| *n > 0)?)),
    }
}

/// An array of ids, when present (`Some(vec![])` absent).
fn ids(map: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    match map.get(key) {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect(),
        Some(_) => None,
    }
}

/// The invoice requests: `[INVOICES, id, action]` by `POST`.
fn invoice_action(asks: Asks, id: &str, body: Option<&Value>) -> Option<Destructive> {
    let id = id.to_owned();
    Some(match asks {
        Asks::VoidInvoice => Destructive::VoidInvoice {
            reason: opt_text(&members(body, &["reason"])?, "reason")?,
            id,
        },
        Asks::FinalizeInvoice if body.is_none() => Destructive::FinalizeInvoice { id },
        Asks::IssueInvoiceNfe if body.is_none() => Destructive::IssueInvoiceNfe { id },
        Asks::MarkInvoicePaid => {
            let map = members(body, &["amount_cents", "installment_ids"])?;
            Destructive::MarkInvoicePaid {
                amount_cents: opt_amount(&map)?,
                installment_ids: ids(&map, "installment_ids")?,
                id,
            }
        }
        Asks::UndoInvoicePayment => Destructive::UndoInvoicePayment {
            reason: opt_text(&members(body, &["reason"])?, "reason")?,
            id,
        },
        Asks::ApplyCredits => {
            let map = members(body, &["credit_ids", "amount_cents"])?;
            let credit_ids = ids(&map, "credit_ids")?;
            if credit_ids.is_empty() {
                return None;
            }
            Destructive::ApplyCredits {
                amount_cents: opt_amount(&map)?,
                credit_ids,
                id,
            }
        }
        _ => return None,
    })
}

/// The last path segment each invoice action is sent to.
fn invoice_verb(asks: Asks) -> Option<&'static str> {
    Some(match asks {
        Asks::VoidInvoice => "void",
        Asks::FinalizeInvoice => "finalize",
        Asks::IssueInvoiceNfe => "issue-nfe",
        Asks::MarkInvoicePaid => "pay",
        Asks::UndoInvoicePayment => "undo-payment",
        Asks::ApplyCredits => "apply-credits",
        _ => return None,
    })
}

impl Destructive {
    /// Reads the write `tool` would send. `None` when it is not exactly one of the
    /// destructive requests this server sends — an unknown member, a member of another type,
    /// another method or path — so nothing is described (and nothing asked) that is not
    /// understood in full.
    pub fn from_planned(asks: Asks, write: &PlannedWrite) -> Option<Self> {
        let segments: Vec<&str> = write.segments.iter().map(String::as_str).collect();
        let body = write.body.as_ref();
        let (post, delete) = (write.method == Method::POST, write.method == Method::DELETE);
        match (asks, segments.as_slice()) {
            (Asks::DeleteCustomer, [CUSTOMERS, id]) if delete && body.is_none() => {
                Some(Self::DeleteCustomer {
                    id: (*id).to_owned(),
                })
            }
            (Asks::CancelSubscription, [SUBSCRIPTIONS, id, "cancel"]) if post => {
                let map = members(body, &["cancel_at_period_end", "reason"])?;
                let at_period_end = match map.get("cancel_at_period_end") {
                    None => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return None,
                };
                Some(Self::CancelSubscription {
                    id: (*id).to_owned(),
                    at_period_end,
                    reason: opt_text(&map, "reason")?,
                })
            }
            (Asks::DeleteInvoice, [INVOICES, id]) if delete && body.is_none() => {
                Some(Self::DeleteInvoice {
                    id: (*id).to_owned(),
                })
            }
            (asks, [INVOICES, id, verb]) if post && invoice_verb(asks) == Some(*verb) => {
                invoice_action(asks, id, body)
            }
            (Asks::RefundPayment, [PAYMENTS, id, "refund"]) if post => {
                let map = members(body, &["amount_cents", "reason"])?;
                Some(Self::RefundPayment {
                    id: (*id).to_owned(),
                    amount_cents: opt_amount(&map)?,
                    reason: opt_text(&map, "reason")?,
                })
            }
            (Asks::CancelNfe, [NFES, id, "cancel"]) if post => {
                let map = members(body, &["reason"])?;
                Some(Self::CancelNfe {
                    id: (*id).to_owned(),
                    reason: opt_text(&map, "reason")??,
                })
            }
            (Asks::IssueNfe, [NFES, id, "issue"]) if post && body.is_none() => {
                Some(Self::IssueNfe {
                    id: (*id).to_owned(),
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";

    fn read(
        asks: Asks,
        method: Method,
        segments: &[&str],
        body: Option<Value>,
    ) -> Option<Destructive> {
        Destructive::from_planned(asks, &PlannedWrite::new(method, segments, body.as_ref()))
    }

    #[test]
    fn cf2_only_the_exact_requests_are_described() {
        let refund = read(
            Asks::RefundPayment,
            Method::POST,
            &["payments", ID, "refund"],
            Some(json!({})),
        );
        assert_eq!(
            refund,
            Some(Destructive::RefundPayment {
                id: ID.into(),
                amount_cents: None,
                reason: None
            })
        );
        let cancel = read(
            Asks::CancelSubscription,
            Method::POST,
            &["subscriptions", ID, "cancel"],
            Some(json!({})),
        );
        assert_eq!(
            cancel,
            Some(Destructive::CancelSubscription {
                id: ID.into(),
                at_period_end: false,
                reason: None
            })
        );
        let paid = read(
            Asks::MarkInvoicePaid,
            Method::POST,
            &["invoices", ID, "pay"],
            Some(json!({"amount_cents": 100})),
        );
        assert_eq!(
            paid,
            Some(Destructive::MarkInvoicePaid {
                id: ID.into(),
                amount_cents: Some(100),
                installment_ids: vec![]
            })
        );
        let credits = read(
            Asks::ApplyCredits,
            Method::POST,
            &["invoices", ID, "apply-credits"],
            Some(json!({"credit_ids": [ID]})),
        );
        assert_eq!(
            credits,
            Some(Destructive::ApplyCredits {
                id: ID.into(),
                credit_ids: vec![ID.into()],
                amount_cents: None
            })
        );
        let issue = read(Asks::IssueNfe, Method::POST, &["nfes", ID, "issue"], None);
        assert_eq!(issue, Some(Destructive::IssueNfe { id: ID.into() }));
    }

    /// An unknown member, a member of another type, another method, another path: nothing
    /// is described, so nothing is asked. Each case: what asks, `METHOD path`, the body.
    #[test]
    fn cf2_anything_else_is_not_described() {
        let cases = [
            (
                Asks::RefundPayment,
                "POST payments/ID/refund",
                r#"{"amount": 1}"#,
            ),
            (
                Asks::RefundPayment,
                "POST payments/ID/refund",
                r#"{"amount_cents": "100"}"#,
            ),
            (
                Asks::CancelSubscription,
                "POST subscriptions/ID/cancel",
                r#"{"cancel_at_period_end": "true"}"#,
            ),
            (Asks::VoidInvoice, "DELETE invoices/ID/void", ""),
            (Asks::VoidInvoice, "POST invoices/ID", "{}"),
            (Asks::CancelNfe, "POST nfes/ID/cancel", "{}"),
            (Asks::VoidInvoice, "POST invoices/ID/finalize", ""),
            // A charge through a gateway is not a mark-paid: never described as one.
            (
                Asks::MarkInvoicePaid,
                "POST invoices/ID/pay",
                r#"{"payment_method": "pix"}"#,
            ),
            (
                Asks::MarkInvoicePaid,
                "POST invoices/ID/pay",
                r#"{"amount_cents": 0}"#,
            ),
            (
                Asks::ApplyCredits,
                "POST invoices/ID/apply-credits",
                r#"{"credit_ids": []}"#,
            ),
            (
                Asks::ApplyCredits,
                "POST invoices/ID/apply-credits",
                r#"{"credit_ids": [1]}"#,
            ),
            (Asks::FinalizeInvoice, "POST invoices/ID/finalize", "{}"),
            (Asks::IssueNfe, "POST invoices/ID/issue-nfe", ""),
        ];
        for (asks, request, body) in cases {
            let (method, path) = request.split_once(' ').unwrap();
            let method: Method = method.parse().unwrap();
            let segments: Vec<&str> = path
                .split('/')
                .map(|s| if s == "ID" { ID } else { s })
                .collect();
            let body: Option<Value> =
                (!body.is_empty()).then(|| serde_json::from_str(body).unwrap());
            let described = read(asks, method, &segments, body.clone());
            assert_eq!(described, None, "{asks:?} {request} {body:?}");
        }
    }
}
