//! End-to-end tests of the NF-e toolset against the fake Kobana: every tool runs (T-1) and
//! refusals say what to change (T-4).

use crate::common;

use crate::catalog::support::*;
use common::{Stack, assert_refusals, assert_refused_before_kobana};
use fake_kobana::{DocKind, full_token};
use serde_json::{Value, json};

// ---------------------------------------------------------------- nfes

#[tokio::test]
async fn t1_nfes_tools_run_end_to_end() {
    let stack = Stack::start().await;

    let issued = stack
        .ok("billing_nfes_list", json!({"status": "issued"}))
        .await;
    assert_eq!(ids(&issued["nfes"]), [NFE_ISSUED]);
    assert_eq!(issued["nfes"][0]["nfe_number"], 1234);
    assert_eq!(issued["nfes"][0]["amount_brl"], "R$ 499,00");
    let rejected = stack
        .ok("billing_nfes_list", json!({"status": "error"}))
        .await;
    assert_eq!(ids(&rejected["nfes"]), [NFE_ERROR]);
    assert!(
        rejected["nfes"][0]["error_message"]
            .as_str()
            .unwrap()
            .contains("Rejeição")
    );
    let by_invoice = stack
        .ok(
            "billing_nfes_list",
            json!({"invoice_id": INV_PAID_NFE_ISSUED, "billing_account_id": BA_PADARIA}),
        )
        .await;
    assert_eq!(ids(&by_invoice["nfes"]), [NFE_ISSUED]);
    let by_date = stack.ok("billing_nfes_list", json!({"issue_date_from": "2026-07-01", "issue_date_to": "2026-07-31", "sort_by": "issue_date"})).await;
    assert_eq!(ids(&by_date["nfes"]), [NFE_ISSUED]);

    let got = stack
        .ok("billing_nfes_get", json!({"id": NFE_ISSUED}))
        .await;
    assert_eq!(got["nfe"]["verification_code"], "K7Q2-M9XA");
    assert_eq!(
        got["nfe"]["issue_date_sao_paulo"],
        "2026-07-24T14:32:10-03:00"
    );

    let pdf = stack
        .ok("billing_nfes_pdf", json!({"id": NFE_ISSUED}))
        .await;
    let size = stack
        .fake
        .pdf_bytes(DocKind::Nfe, NFE_ISSUED)
        .unwrap()
        .len();
    assert_eq!(
        pdf,
        json!({"pdf": {"nfe_id": NFE_ISSUED, "mime_type": "application/pdf", "size_bytes": size,
            "resource_uri": format!("kobana://billing/nfes/{NFE_ISSUED}/pdf")}})
    );
    let xml = stack
        .ok("billing_nfes_xml", json!({"id": NFE_ISSUED}))
        .await;
    let xml = &xml["xml"];
    assert_eq!(xml["nfe_id"], NFE_ISSUED);
    assert_eq!(xml["mime_type"], "application/xml");
    assert!(xml["size_bytes"].as_u64().is_some_and(|n| n > 500), "{xml}");
    assert_eq!(
        xml["resource_uri"],
        format!("kobana://billing/nfes/{NFE_ISSUED}/xml")
    );

    let retried = stack
        .ok("billing_nfes_issue", json!({"id": NFE_ERROR}))
        .await;
    assert_eq!(retried["nfe"]["status"], "pending");
    assert_eq!(retried["nfe"]["error_message"], Value::Null);

    let reason = "Serviço não prestado; cancelamento pedido pelo tomador";
    let canceled = stack
        .ok(
            "billing_nfes_cancel",
            json!({"id": NFE_ISSUED, "reason": reason}),
        )
        .await;
    assert_eq!(canceled["nfe"]["status"], "pending_cancel");
    let call = stack.kobana_calls(&format!("/v1/nfes/{NFE_ISSUED}/cancel"));
    assert_eq!(call[0].body, Some(json!({"reason": reason})));
}

#[tokio::test]
async fn t4_nfe_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();

    // A 10-character reason is refused here, in pt-BR, before Kobana is called.
    assert_refused_before_kobana(
        &stack,
        &token,
        vec![
            (
                "billing_nfes_cancel",
                json!({"id": NFE_ISSUED, "reason": "Duplicada."}),
                &["`reason`", "15 caracteres", "10"],
            ),
            ("billing_nfes_xml", json!({"id": "nfe-1234"}), &["UUID"]),
            (
                "billing_nfes_list",
                json!({"issue_date_from": "2026-13-01"}),
                &["issue_date_from"],
            ),
        ],
    )
    .await;
    assert_eq!(
        calls(&stack, "/v1/"),
        0,
        "no Kobana call for a short reason"
    );

    // Business rules, from Kobana.
    assert_refusals(
        &stack,
        &token,
        vec![
            (
                "billing_nfes_cancel",
                json!({"id": NFE_ERROR, "reason": "Serviço não prestado ao tomador"}),
                &["Somente NF-e emitidas", "error"],
            ),
            (
                "billing_nfes_issue",
                json!({"id": NFE_ISSUED}),
                &["já emitida"],
            ),
            (
                "billing_nfes_pdf",
                json!({"id": NFE_ERROR}),
                &["Não encontrado"],
            ),
            (
                "billing_nfes_get",
                json!({"id": UNKNOWN}),
                &["Não encontrado"],
            ),
        ],
    )
    .await;
}
