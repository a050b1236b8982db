//! Confirmation of destructive tools: the attack matrix against the fake Kobana and a real
//! DynamoDB API (moto's server, through the real `aws-sdk-dynamodb` client) — CF-1…CF-6.
//!
//! The fake's own record must show zero destructive calls except the one legitimate case.

use crate::common;
use fake_kobana::fixtures::ids::{
    INV_DRAFT, INV_OPEN, INV_OVERDUE, NFE_ISSUED, PADARIA, PAY_CARD, SUB_ACTIVE,
};

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use common::dynamo::{dynamo_client, dynamo_store, dynamo_table};
use common::{FORM, Stack};
use fake_kobana::{FIXTURE_ORG_ID, full_token, scoped_token};
use kobana_mcp::canonical::idempotency_key;
use kobana_mcp::catalog::PlannedWrite;
use kobana_mcp::confirm::{
    Clock, DynamoStore, NonceStore, binding_digest, confirmed_idempotency_key,
};
use serde_json::{Value, json};

/// The store as the function builds it: SDK configuration from the environment (region,
/// credentials, `AWS_ENDPOINT_URL_DYNAMODB`), loaded on first use, through the server's own
/// HTTP client.
#[tokio::test]
async fn cf6_the_store_configured_from_the_environment_consumes_once() {
    let (table, _) = dynamo_table().await;
    let store = DynamoStore::new(table);
    let nonce = kobana_mcp::confirm::new_nonce().unwrap();
    store.put(&nonce, "digest-a", 2_000_000_000).await.unwrap();
    assert!(
        !store
            .consume(&nonce, "digest-b", 1_900_000_000)
            .await
            .unwrap()
    );
    assert!(
        store
            .consume(&nonce, "digest-a", 1_900_000_000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .consume(&nonce, "digest-a", 1_900_000_000)
            .await
            .unwrap()
    );
}

struct Rig {
    stack: Stack,
    now: Arc<AtomicI64>,
}

async fn rig() -> Rig {
    let store: Arc<dyn NonceStore> = dynamo_store().await;
    let now = Arc::new(AtomicI64::new(1_900_000_000));
    let clock_now = now.clone();
    let clock: Clock = Arc::new(move || clock_now.load(Ordering::SeqCst));
    let stack = Stack::start_full(|_| {}, Some((store, clock))).await;
    Rig { stack, now }
}

fn void_args(id: &str, reason: &str) -> Value {
    json!({"id": id, "reason": reason})
}

impl Rig {
    async fn call(&self, token: &str, tool: &str, args: Value, extra: Value) -> Value {
        self.stack.call_with_forms(token, tool, &args, extra).await
    }

    /// First call: must ask and run nothing. Returns the requestState.
    async fn ask(&self, token: &str, tool: &str, args: Value) -> String {
        let before = self.destructive_calls();
        let body = self.call(token, tool, args, json!({})).await;
        let result = &body["result"];
        assert_eq!(result["resultType"], "input_required", "{body}");
        assert!(
            result.get("ttlMs").is_none(),
            "no cache hints on input_required"
        );
        let request = &result["inputRequests"]["confirm"];
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(
            request["params"]["requestedSchema"]["properties"]["confirm"]["type"],
            "boolean"
        );
        assert_eq!(
            self.destructive_calls(),
            before,
            "CF-2: the first call runs nothing"
        );
        result["requestState"].as_str().unwrap().to_owned()
    }

    async fn retry(
        &self,
        token: &str,
        tool: &str,
        args: Value,
        state: &str,
        answer: Value,
    ) -> Value {
        self.call(
            token,
            tool,
            args,
            json!({"requestState": state, "inputResponses": {"confirm": answer}}),
        )
        .await
    }

    fn destructive_calls(&self) -> usize {
        self.stack
            .fake
            .calls()
            .into_iter()
            .filter(|c| {
                c.method == "POST"
                    && (c.path.ends_with("/void")
                        || c.path.ends_with("/cancel")
                        || c.path.ends_with("/refund"))
                    || c.method == "DELETE"
            })
            .count()
    }
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

fn assert_asks_again(body: &Value, old_state: &str) {
    assert_eq!(
        body["result"]["resultType"], "input_required",
        "CF-4 asks again: {body}"
    );
    assert_ne!(
        body["result"]["requestState"].as_str().unwrap(),
        old_state,
        "a fresh state"
    );
}

#[tokio::test]
async fn cf2_cf3_the_question_names_the_invoice_amount_and_customer_and_only_yes_executes() {
    let rig = rig().await;
    let args = void_args(INV_OPEN, "Cobrança emitida em duplicidade");
    let body = rig
        .call(
            &full_token(),
            "billing_invoices_void",
            args.clone(),
            json!({}),
        )
        .await;
    let message = body["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    // The payer: the customer the billing account embeds, else its billing e-mail.
    let payer = if common::customer_embedded() {
        "Padaria Pão Dourado Ltda"
    } else {
        "financeiro@paodourado.com.br"
    };
    for needle in [
        "Anular",
        "FAT-2026-000812",
        "R$ 499,00",
        payer,
        "duplicidade",
        "não pode ser desfeita",
    ] {
        assert!(
            message.contains(needle),
            "message lacks {needle}: {message}"
        );
    }
    let state = body["result"]["requestState"].as_str().unwrap().to_owned();

    no_and_unusable_answers_execute_nothing(&rig, &args, &state).await;
    a_yes_executes_once_keyed_by_the_confirmed_request(&rig, &args).await;
}

/// Each no, each unusable answer and the bare state: a refusal or the question again,
/// nothing executed.
async fn no_and_unusable_answers_execute_nothing(rig: &Rig, args: &Value, state: &str) {
    for no in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ] {
        let state = rig
            .ask(&full_token(), "billing_invoices_void", args.clone())
            .await;
        let body = rig
            .retry(
                &full_token(),
                "billing_invoices_void",
                args.clone(),
                &state,
                no.clone(),
            )
            .await;
        assert_eq!(body["result"]["isError"], true, "{no}: {body}");
        assert_eq!(common::error_code(&body["result"]), "USER_DECLINED");
        assert!(
            body["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("USER_DECLINED")
        );
    }
    for unusable in [
        json!({"action": "accept"}),
        json!({"action": "accept", "content": {"confirm": "sim"}}),
    ] {
        let s = rig
            .ask(&full_token(), "billing_invoices_void", args.clone())
            .await;
        let body = rig
            .retry(
                &full_token(),
                "billing_invoices_void",
                args.clone(),
                &s,
                unusable,
            )
            .await;
        assert_asks_again(&body, &s);
    }
    let body = rig
        .call(
            &full_token(),
            "billing_invoices_void",
            args.clone(),
            json!({"requestState": state}),
        )
        .await;
    assert_asks_again(&body, state);
    assert_eq!(rig.destructive_calls(), 0, "nothing so far");
}

/// A yes executes once, keyed by the confirmed request; a replayed yes executes nothing.
async fn a_yes_executes_once_keyed_by_the_confirmed_request(rig: &Rig, args: &Value) {
    let state = rig
        .ask(&full_token(), "billing_invoices_void", args.clone())
        .await;
    let body = rig
        .retry(
            &full_token(),
            "billing_invoices_void",
            args.clone(),
            &state,
            yes(),
        )
        .await;
    assert_eq!(body["result"]["isError"], false, "{body}");
    assert_eq!(
        body["result"]["structuredContent"]["invoice"]["status"],
        "void"
    );
    assert_eq!(rig.destructive_calls(), 1, "accept-true executes once");
    let call = rig
        .stack
        .kobana_calls(&format!("/v1/invoices/{INV_OPEN}/void"))
        .pop()
        .unwrap();
    // The key is bound to the confirmed request (tool, canonical request, person,
    // organization), not to the nonce: the same call confirmed again reuses it.
    let request = PlannedWrite::new(
        reqwest::Method::POST,
        &["invoices", INV_OPEN, "void"],
        Some(&json!({"reason": "Cobrança emitida em duplicidade"})),
    )
    .canonical();
    let digest = binding_digest(
        "billing_invoices_void",
        &request,
        "person-ana",
        FIXTURE_ORG_ID,
    );
    assert_eq!(
        call.idempotency_key.as_deref(),
        Some(confirmed_idempotency_key(&digest).as_str()),
        "the confirmed request is the idempotency key"
    );
    assert_ne!(
        call.idempotency_key.as_deref(),
        Some(idempotency_key(&state).as_str())
    );

    let body = rig
        .retry(
            &full_token(),
            "billing_invoices_void",
            args.clone(),
            &state,
            yes(),
        )
        .await;
    // A replayed yes executes nothing: the nonce is spent, and the invoice, read again
    // before asking, is void now, so nobody is asked either (FH-3).
    assert_eq!(
        common::error_code(&body["result"]),
        "STATE_FORBIDS_ACTION",
        "{body}"
    );
    assert_eq!(
        rig.destructive_calls(),
        1,
        "replay of a consumed state executes nothing"
    );
}

#[tokio::test]
async fn cf4_mismatched_forged_and_expired_confirmations_execute_nothing() {
    let rig = rig().await;
    let args = void_args(INV_OPEN, "Cobrança emitida em duplicidade");
    let void = "billing_invoices_void";
    let nfe_args = json!({"id": NFE_ISSUED, "reason": "Serviço não prestado ao tomador"});
    let bia = scoped_token("person-bia", FIXTURE_ORG_ID, "all");
    // (what the state was issued for) → (what the retry carries): each must simply ask again.
    let mismatches = [
        (
            "another tool",
            "billing_nfes_cancel",
            nfe_args,
            full_token(),
            args.clone(),
        ),
        (
            "another reason",
            void,
            args.clone(),
            full_token(),
            void_args(INV_OPEN, "Outro motivo qualquer"),
        ),
        (
            "another invoice",
            void,
            args.clone(),
            full_token(),
            void_args(INV_OVERDUE, "Cobrança emitida em duplicidade"),
        ),
        ("another person", void, args.clone(), bia, args.clone()),
    ];
    for (case, issued_for, issued_args, token, retry_args) in mismatches {
        let state = rig.ask(&full_token(), issued_for, issued_args).await;
        let body = rig.retry(&token, void, retry_args, &state, yes()).await;
        assert_eq!(
            body["result"]["resultType"], "input_required",
            "{case}: {body}"
        );
        assert_asks_again(&body, &state);
    }

    // Another organization: the invoice does not exist there, so nothing can run.
    let state = rig.ask(&full_token(), void, args.clone()).await;
    let other_org = scoped_token("person-ana", "11111111-2222-4333-8444-555555555555", "all");
    let body = rig
        .retry(&other_org, void, args.clone(), &state, yes())
        .await;
    assert_ne!(
        body["result"]["isError"], false,
        "never executes for another organization: {body}"
    );

    // After expiry (clock injected, not slept).
    let state = rig.ask(&full_token(), void, args.clone()).await;
    rig.now.fetch_add(301, Ordering::SeqCst);
    let body = rig
        .retry(&full_token(), void, args.clone(), &state, yes())
        .await;
    assert_asks_again(&body, &state);

    // Forged: our shape but never issued → ask again; not even our shape → -32602.
    let forged = format!("kc1_{}", "A".repeat(43));
    let body = rig
        .retry(&full_token(), void, args.clone(), &forged, yes())
        .await;
    assert_asks_again(&body, &forged);
    let body = rig
        .retry(
            &full_token(),
            void,
            args.clone(),
            "eyJhbGciOi.forged",
            yes(),
        )
        .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");

    assert_eq!(
        rig.destructive_calls(),
        0,
        "zero destructive calls in the whole matrix"
    );
}

#[tokio::test]
async fn cf6_a_hundred_concurrent_retries_with_one_state_execute_exactly_once() {
    let rig = rig().await;
    let args = void_args(INV_OPEN, "Cobrança emitida em duplicidade");
    let state = rig
        .ask(&full_token(), "billing_invoices_void", args.clone())
        .await;
    let token = full_token();
    let results = futures_util::future::join_all(
        (0..100).map(|_| rig.retry(&token, "billing_invoices_void", args.clone(), &state, yes())),
    )
    .await;
    let executed = results
        .iter()
        .filter(|b| {
            b["result"]["isError"] == false && b["result"]["resultType"] != "input_required"
        })
        .count();
    assert_eq!(executed, 1, "exactly one retry executes");
    // Every other retry is asked again, or — once the void ran — told it is impossible.
    for body in &results {
        let result = &body["result"];
        assert!(
            result["isError"] == false
                || result["resultType"] == "input_required"
                || common::error_code(result) == "STATE_FORBIDS_ACTION",
            "{body}"
        );
    }
    assert_eq!(rig.destructive_calls(), 1, "the fake saw exactly one void");
}

#[tokio::test]
async fn cf6_dynamodb_down_fails_closed() {
    let down: Arc<dyn NonceStore> = Arc::new(DynamoStore::with_client(
        "confirmations",
        dynamo_client(Some("http://127.0.0.1:9")).await,
    ));
    let clock: Clock = Arc::new(|| 1_900_000_000);
    let stack = Stack::start_full(|_| {}, Some((down, clock))).await;
    let caps: Value = serde_json::from_str(FORM).unwrap();
    let params = json!({"name": "billing_invoices_void", "arguments": void_args(INV_OPEN, "Cobrança emitida em duplicidade")});
    let (_, body) = stack
        .modern_with_caps(&full_token(), "tools/call", params, caps)
        .await;
    assert_eq!(body["result"]["isError"], true, "{body}");
    assert_eq!(
        common::error_code(&body["result"]),
        "CONFIRMATION_UNAVAILABLE"
    );
    assert!(
        stack
            .kobana_calls(&format!("/v1/invoices/{INV_OPEN}/void"))
            .is_empty()
    );
}

#[tokio::test]
async fn cf5_era_2025_and_clients_without_form_elicitation_run_directly() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            "billing_invoices_void",
            void_args(INV_OPEN, "Cobrança emitida em duplicidade"),
        )
        .await;
    assert_eq!(result["isError"], false, "{result}");
    let call = stack
        .kobana_calls(&format!("/v1/invoices/{INV_OPEN}/void"))
        .pop()
        .unwrap();
    assert!(
        call.idempotency_key.is_some(),
        "every write carries an idempotency key"
    );

    for caps in [json!({}), json!({"elicitation": {"url": {}}})] {
        let params = json!({"name": "billing_invoices_void", "arguments": void_args(INV_OVERDUE, "Cobrança emitida em duplicidade")});
        let (_, body) = stack
            .modern_with_caps(&full_token(), "tools/call", params, caps.clone())
            .await;
        assert_ne!(
            body["result"]["resultType"], "input_required",
            "{caps}: {body}"
        );
    }
    assert_eq!(
        stack
            .kobana_calls(&format!("/v1/invoices/{INV_OVERDUE}/void"))
            .len(),
        2
    );
}

#[tokio::test]
async fn cf1_every_destructive_tool_asks_first() {
    let rig = rig().await;
    for (tool, args) in [
        ("billing_customers_delete", json!({"id": PADARIA})),
        ("billing_subscriptions_cancel", json!({"id": SUB_ACTIVE})),
        (
            "billing_invoices_void",
            void_args(INV_OPEN, "Cobrança emitida em duplicidade"),
        ),
        ("billing_invoices_delete", json!({"id": INV_DRAFT})),
        (
            "billing_nfes_cancel",
            json!({"id": NFE_ISSUED, "reason": "Serviço não prestado ao tomador"}),
        ),
        (
            "billing_payments_refund",
            json!({"id": PAY_CARD, "amount_cents": 1000}),
        ),
    ] {
        let body = rig.call(&full_token(), tool, args, json!({})).await;
        assert_eq!(
            body["result"]["resultType"], "input_required",
            "{tool}: {body}"
        );
        let message = body["result"]["inputRequests"]["confirm"]["params"]["message"]
            .as_str()
            .unwrap();
        assert!(
            message.contains("não pode ser desfeita"),
            "{tool}: {message}"
        );
    }
    assert_eq!(rig.destructive_calls(), 0);
}
