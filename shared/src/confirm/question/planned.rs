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

    fn planned(method: Method, segments: &[&str], body: Option<Value>) -> PlannedWrite {
        PlannedWrite::new(method, segments, body.as_ref())
    }

    #[test]
    fn cf2_only_the_exact_requests_are_described() {
        let id = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
        let read = |asks, method, segments: &[&str], body| {
            Destructive::from_planned(asks, &planned(method, segments, body))
        };
        assert_eq!(
            read(
                Asks::RefundPayment,
                Method::POST,
                &["payments", id, "refund"],
                Some(json!({}))
            ),
            Some(Destructive::RefundPayment {
                id: id.into(),
                amount_cents: None,
                reason: None
            })
        );
        assert_eq!(
            read(
                Asks::CancelSubscription,
                Method::POST,
                &["subscriptions", id, "cancel"],
                Some(json!({}))
            ),
            Some(Destructive::CancelSubscription {
                id: id.into(),
                at_period_end: false,
                reason: None
            })
        );
        assert_eq!(
            read(
                Asks::MarkInvoicePaid,
                Method::POST,
                &["invoices", id, "pay"],
                Some(json!({"amount_cents": 100}))
            ),
            Some(Destructive::MarkInvoicePaid {
                id: id.into(),
                amount_cents: Some(100),
                installment_ids: vec![]
            })
        );
        assert_eq!(
            read(
                Asks::ApplyCredits,
                Method::POST,
                &["invoices", id, "apply-credits"],
                Some(json!({"credit_ids": [id]}))
            ),
            Some(Destructive::ApplyCredits {
                id: id.into(),
                credit_ids: vec![id.into()],
                amount_cents: None
            })
        );
        assert_eq!(
            read(Asks::IssueNfe, Method::POST, &["nfes", id, "issue"], None),
            Some(Destructive::IssueNfe { id: id.into() })
        );
        for (asks, method, segments, body) in [
            // An unknown member, a member of another type, another method, another path.
            (
                Asks::RefundPayment,
                Method::POST,
                vec!["payments", id, "refund"],
                Some(json!({"amount": 1})),
            ),
            (
                Asks::RefundPayment,
                Method::POST,
                vec!["payments", id, "refund"],
                Some(json!({"amount_cents": "100"})),
            ),
            (
                Asks::CancelSubscription,
                Method::POST,
                vec!["subscriptions", id, "cancel"],
                Some(json!({"cancel_at_period_end": "true"})),
            ),
            (
                Asks::VoidInvoice,
                Method::DELETE,
                vec!["invoices", id, "void"],
                None,
            ),
            (
                Asks::VoidInvoice,
                Method::POST,
                vec!["invoices", id],
                Some(json!({})),
            ),
            (
                Asks::CancelNfe,
                Method::POST,
                vec!["nfes", id, "cancel"],
                Some(json!({})),
            ),
            (
                Asks::VoidInvoice,
                Method::POST,
                vec!["invoices", id, "finalize"],
                None,
            ),
            // A charge through a gateway is not a mark-paid: never described as one.
            (
                Asks::MarkInvoicePaid,
                Method::POST,
                vec!["invoices", id, "pay"],
                Some(json!({"payment_method": "pix"})),
            ),
            (
                Asks::MarkInvoicePaid,
                Method::POST,
                vec!["invoices", id, "pay"],
                Some(json!({"amount_cents": 0})),
            ),
            (
                Asks::ApplyCredits,
                Method::POST,
                vec!["invoices", id, "apply-credits"],
                Some(json!({"credit_ids": []})),
            ),
            (
                Asks::ApplyCredits,
                Method::POST,
                vec!["invoices", id, "apply-credits"],
                Some(json!({"credit_ids": [1]})),
            ),
            (
                Asks::FinalizeInvoice,
                Method::POST,
                vec!["invoices", id, "finalize"],
                Some(json!({})),
            ),
            (
                Asks::IssueNfe,
                Method::POST,
                vec!["invoices", id, "issue-nfe"],
                None,
            ),
        ] {
            assert_eq!(
                read(asks, method.clone(), &segments, body.clone()),
                None,
                "{asks:?} {method} {segments:?} {body:?}"
            );
        }
    }
}
