//! What the person confirms is exactly what runs (issue #16).
//!
//! An adversarial corpus (`tests/fixtures/hostile-confirmations.json`) and a property test run
//! every destructive tool with hostile arguments and hostile records. Each case ends in one
//! of two ways: an argument error before anything is stored or sent, or a question whose facts
//! — action, object, amount, timing — equal those of the request the fake Kobana actually
//! received after a yes. The facts are read from the question by this file's own parser and
//! compared with the fake's recorded call and stored records, never with the server's code.
//!
//! Then the rest of the issue: a token Kobana rejects stores nothing, store failures answer a
//! fixed text, a `Retry-After` of `u64::MAX` neither panics nor waits, and a confirmed refund
//! whose answer was lost, confirmed again, applies once.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::Stack;
use fake_kobana::clock::{civil_from_days, local_day, parse_date_or_datetime};
use fake_kobana::{Fault, FaultKind, RecordedCall, full_token};
use kobana_mcp::confirm::{Clock, MemoryStore, NonceStore, StoreError};
use serde_json::{Value, json};

const FORM: &str = r#"{"elicitation":{"form":{}}}"#;
const CUSTOMER: &str = "972a8469-1641-4f82-8b9d-2434e465e150";
const OPEN_INVOICE: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
const PAYMENT: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
const SUBSCRIPTION: &str = "43b7a3a6-9a8d-4a03-980d-7b71d8f56413";
const ISSUED_NFE: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";

type Fut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A store that counts what is written to it, over any other store.
#[derive(Debug)]
struct CountingStore {
    inner: Arc<dyn NonceStore>,
    puts: AtomicUsize,
}

impl NonceStore for CountingStore {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> Fut<'a, Result<(), StoreError>> {
        self.puts.fetch_add(1, Ordering::SeqCst);
        self.inner.put(nonce, digest, expires_at)
    }

    fn consume<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        now: i64,
    ) -> Fut<'a, Result<bool, StoreError>> {
        self.inner.consume(nonce, digest, now)
    }
}

struct Rig {
    stack: Stack,
    store: Arc<CountingStore>,
}

async fn rig_over(inner: Arc<dyn NonceStore>, deadline: Duration) -> Rig {
    let store = Arc::new(CountingStore {
        inner,
        puts: AtomicUsize::new(0),
    });
    let clock: Clock = Arc::new(|| 1_900_000_000);
    let dyn_store: Arc<dyn NonceStore> = store.clone();
    let stack = Stack::start_full(
        move |c| c.kobana_timeout = deadline,
        Some((dyn_store, clock)),
    )
    .await;
    Rig { stack, store }
}

async fn memory_rig() -> Rig {
    rig_over(Arc::new(MemoryStore::new()), Duration::from_secs(10)).await
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

impl Rig {
    async fn call(&self, token: &str, tool: &str, args: &Value, extra: Value) -> Value {
        let mut params = json!({"name": tool, "arguments": args});
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                params[k] = v;
            }
        }
        let caps: Value = serde_json::from_str(FORM).unwrap();
        let (status, body) = self
            .stack
            .modern_with_caps(token, "tools/call", params, caps)
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    fn puts(&self) -> usize {
        self.store.puts.load(Ordering::SeqCst)
    }

    /// The requests the fake received that change something.
    fn writes(&self) -> Vec<RecordedCall> {
        self.stack
            .fake
            .calls()
            .into_iter()
            .filter(|c| c.method != "GET")
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// This file's own reading of a question and of what Kobana received.

/// Characters a person cannot see, or that reorder what they see.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x180E | 0x200B..=0x200F
            | 0x2028..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF
            | 0xE0000..=0xE0FFF)
}

/// The text a quote must show (before delimiters are replaced): one plain line.
fn shown(raw: &str) -> String {
    let words: Vec<String> = raw
        .split(char::is_whitespace)
        .map(|w| w.chars().filter(|c| !hidden(*c)).collect::<String>())
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ")
}

/// Whether a quote shows `raw`: the same characters, except that `«`/`»` became `"` (and
/// any other angle-quote look-alike may have); possibly cut at 120 characters with `…`.
fn same_quote(quoted: &str, raw: &str) -> bool {
    let expected: Vec<char> = shown(raw).chars().collect();
    let got: Vec<char> = quoted.chars().collect();
    let same = |e: char, g: char| match e {
        '«' | '»' => g == '"',
        '‹' | '›' | '≪' | '≫' | '《' | '》' | '〈' | '〉' | '⟨' | '⟩' | '⟪' | '⟫' | '❮' | '❯'
        | '❬' | '❭' | '﹤' | '﹥' | '＜' | '＞' => g == e || g == '"',
        _ => g == e,
    };
    if got.len() == expected.len() {
        return got.iter().zip(&expected).all(|(g, e)| same(*e, *g));
    }
    // Cut: at most 120 characters, ending in `…`, a prefix of the whole text.
    got.len() <= 120
        && got.len() >= 100
        && got.last() == Some(&'…')
        && got.len() - 1 <= expected.len()
        && got[..got.len() - 1]
            .iter()
            .zip(&expected)
            .all(|(g, e)| same(*e, *g))
}

const LABELS: [&str; 6] = [
    "Cliente (nome no cadastro): ",
    "Cliente (e-mail de cobrança no cadastro): ",
    "Tomador (nome na nota): ",
    "Motivo informado: ",
    "Documento (no cadastro): ",
    "Número da fatura (no cadastro): ",
];

/// A question split into its facts (the server's voice, before the first quote) and its
/// quoted texts by label. Fails unless every quote is closed, labelled, and clean.
#[derive(Debug)]
struct Read {
    facts: String,
    quotes: Vec<(String, String)>,
}

fn read_question(message: &str) -> Result<Read, String> {
    if message.chars().any(hidden) {
        return Err(format!("hidden characters in the question: {message:?}"));
    }
    if message.chars().count() > 700 {
        return Err(format!("question too long: {message}"));
    }
    let (mut head, mut rest) = match message.split_once('«') {
        Some((head, rest)) => (head.to_owned(), rest),
        None => {
            return Ok(Read {
                facts: message.to_owned(),
                quotes: vec![],
            });
        }
    };
    let facts_end = LABELS
        .iter()
        .find_map(|l| head.strip_suffix(l).map(|f| (f.to_owned(), *l)))
        .ok_or_else(|| format!("the first quote has no label: {message}"))?;
    let facts = facts_end.0.trim_end().to_owned();
    let mut label = facts_end.1.to_owned();
    let mut quotes = Vec::new();
    loop {
        let (inner, after) = rest
            .split_once('»')
            .ok_or_else(|| format!("unclosed quote: {message}"))?;
        if inner.contains('«') {
            return Err(format!("a quote inside a quote: {message}"));
        }
        if inner.chars().count() > 120 {
            return Err(format!("a quote over 120 characters: {inner}"));
        }
        quotes.push((label.trim_end_matches(": ").to_owned(), inner.to_owned()));
        if after == "." {
            break;
        }
        let (between, next) = after
            .split_once('«')
            .ok_or_else(|| format!("text after the last quote: {after:?} in {message}"))?;
        head = between.to_owned();
        label = LABELS
            .iter()
            .find(|l| head == format!(". {l}"))
            .ok_or_else(|| format!("server text between quotes: {head:?} in {message}"))?
            .to_string();
        rest = next;
    }
    Ok(Read { facts, quotes })
}

fn brl(cents: i64) -> String {
    let negative = cents < 0;
    let cents = cents.unsigned_abs();
    let reais = (cents / 100).to_string();
    let mut grouped = String::new();
    for (n, ch) in reais.chars().enumerate() {
        if n > 0 && (reais.len() - n).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(ch);
    }
    format!(
        "{}R$ {grouped},{:02}",
        if negative { "-" } else { "" },
        cents % 100
    )
}

fn day(value: &Value) -> Option<String> {
    let epoch = parse_date_or_datetime(value.as_str()?)?;
    let (y, m, d) = civil_from_days(local_day(epoch));
    Some(format!("{d:02}/{m:02}/{y:04}"))
}

/// Every `R$ …` amount in `text`.
fn amounts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("R$ ") {
        let tail = &rest[at + 3..];
        let number: String = tail
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .collect();
        let number = number.trim_end_matches(['.', ',']).to_owned();
        let negative = rest[..at].ends_with('-');
        out.push(format!("{}R$ {number}", if negative { "-" } else { "" }));
        rest = tail;
    }
    out
}

fn plain_reference(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}

/// The records as they were when the person was asked.
struct Snapshot {
    customers: Vec<Value>,
    accounts: Vec<Value>,
    records: Vec<Value>,
}

fn find<'a>(list: &'a [Value], id: &str) -> Option<&'a Value> {
    list.iter()
        .find(|r| r["id"] == id || r["external_id"] == id)
}

impl Snapshot {
    fn take(rig: &Rig, collection: &str) -> Self {
        let fake = &rig.stack.fake;
        Self {
            customers: fake.records("customers"),
            accounts: fake.records("billing_accounts"),
            records: fake.records(collection),
        }
    }

    fn payer_name(&self, record: &Value) -> Option<String> {
        let account = find(&self.accounts, record["billing_account_id"].as_str()?)?;
        let customer = find(&self.customers, account["customer_id"].as_str()?)?;
        customer["name"].as_str().map(str::to_owned)
    }
}

fn collection_of(tool: &str) -> &'static str {
    match tool {
        "billing_customers_delete" => "customers",
        "billing_subscriptions_cancel" => "subscriptions",
        "billing_invoices_void" | "billing_invoices_delete" => "invoices",
        "billing_payments_refund" => "payments",
        "billing_nfes_cancel" => "nfes",
        other => panic!("not a destructive tool: {other}"),
    }
}

/// What one case came to.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Refused,
    Asked,
}

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// Runs one call of a destructive tool: an argument error before anything is stored or sent,
/// or a question whose facts equal those of the request the fake received after a yes.
async fn check_case(rig: &Rig, tool: &str, args: &Value) -> Result<(Outcome, String), String> {
    let token = full_token();
    let snapshot = Snapshot::take(rig, collection_of(tool));
    let refunded_before = rig.stack.fake.refunded_cents(PAYMENT)
        + rig
            .stack
            .fake
            .refunded_cents("9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d");
    let (puts, writes) = (rig.puts(), rig.writes().len());
    let body = rig.call(&token, tool, args, json!({})).await;
    let result = &body["result"];
    if result["resultType"] != "input_required" {
        ensure!(
            result["isError"] == true
                && result["structuredContent"]["error"] == "INVALID_ARGUMENTS",
            "neither a question nor an argument error: {body}"
        );
        ensure!(
            rig.puts() == puts,
            "an argument error stored a confirmation"
        );
        ensure!(
            rig.writes().len() == writes,
            "an argument error reached Kobana"
        );
        return Ok((Outcome::Refused, common::text_of(result)));
    }
    ensure!(
        rig.puts() == puts + 1,
        "one confirmation stored per question"
    );
    ensure!(rig.writes().len() == writes, "asking sent a write");
    let message = result["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .ok_or("no message")?
        .to_owned();
    let state = result["requestState"]
        .as_str()
        .ok_or("no state")?
        .to_owned();
    let read = read_question(&message)?;
    let done = rig
        .call(
            &token,
            tool,
            args,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    ensure!(
        done["result"]["resultType"] != "input_required",
        "a yes asked again: {done}"
    );
    let sent = rig.writes();
    ensure!(
        sent.len() == writes + 1,
        "a yes sent {} writes",
        sent.len() - writes
    );
    let call = sent.last().unwrap();
    let succeeded = done["result"]["isError"] == false;
    let refunded = rig.stack.fake.refunded_cents(PAYMENT)
        + rig
            .stack
            .fake
            .refunded_cents("9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
        - refunded_before;
    compare(tool, &read, &message, call, &snapshot, succeeded, refunded)?;
    Ok((Outcome::Asked, message))
}

/// The question's facts against the request the fake received (and the records it names).
#[allow(clippy::too_many_arguments)]
fn compare(
    tool: &str,
    read: &Read,
    message: &str,
    call: &RecordedCall,
    snapshot: &Snapshot,
    succeeded: bool,
    refunded: i64,
) -> Result<(), String> {
    let facts = read.facts.as_str();
    let body = call.body.clone().unwrap_or(Value::Null);
    let segments: Vec<&str> = call.path.trim_start_matches("/v1/").split('/').collect();
    let id = segments.get(1).copied().unwrap_or_default();
    let record = find(&snapshot.records, id)
        .ok_or_else(|| format!("the fake has no record {id} ({})", call.path))?;
    let quote = |label: &str| {
        read.quotes
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, q)| q.as_str())
    };
    let mut expected_amounts: Vec<String> = Vec::new();
    // The reason: what Kobana received, quoted; none received, none quoted.
    let check_reason = || -> Result<(), String> {
        match body.get("reason").and_then(Value::as_str) {
            Some(reason) => {
                ensure!(
                    !reason.chars().any(hidden),
                    "a hidden character reached Kobana: {reason:?}"
                );
                let q = quote("Motivo informado").ok_or("the reason sent is not shown")?;
                ensure!(
                    same_quote(q, reason),
                    "shown reason {q:?} ≠ sent {reason:?}"
                );
            }
            None => {
                ensure!(
                    quote("Motivo informado").is_none(),
                    "a reason shown that was not sent"
                );
                ensure!(
                    facts.contains("Sem motivo informado"),
                    "no reason sent, not said: {facts}"
                );
            }
        }
        Ok(())
    };
    let check_payer = |record: &Value| -> Result<(), String> {
        match snapshot.payer_name(record).filter(|n| !shown(n).is_empty()) {
            Some(name) => {
                let q = quote("Cliente (nome no cadastro)").ok_or("the customer is not named")?;
                ensure!(same_quote(q, &name), "shown customer {q:?} ≠ {name:?}");
            }
            None => ensure!(
                quote("Cliente (nome no cadastro)").is_none(),
                "a customer named where there is none"
            ),
        }
        Ok(())
    };
    match tool {
        "billing_customers_delete" => {
            ensure!(
                call.method == "DELETE" && segments.len() == 2 && segments[0] == "customers",
                "sent {} {}",
                call.method,
                call.path
            );
            ensure!(facts.starts_with("Remover o cliente"), "action: {facts}");
            match record["name"].as_str().filter(|n| !shown(n).is_empty()) {
                Some(name) => {
                    let q = quote("Cliente (nome no cadastro)").ok_or("no name")?;
                    ensure!(same_quote(q, name), "shown {q:?} ≠ {name:?}");
                }
                None => ensure!(quote("Cliente (nome no cadastro)").is_none(), "{message}"),
            }
            if let Some(doc) = record["document_number"].as_str() {
                let plain = doc
                    .bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'-'));
                if plain {
                    ensure!(facts.contains(doc), "document {doc} not in {facts}");
                } else {
                    let q = quote("Documento (no cadastro)").ok_or("document not shown")?;
                    ensure!(same_quote(q, doc), "document {q:?} ≠ {doc:?}");
                }
            }
        }
        "billing_subscriptions_cancel" => {
            ensure!(
                call.method == "POST" && segments.len() == 3 && segments[2] == "cancel",
                "sent {} {}",
                call.method,
                call.path
            );
            let at_end = body["cancel_at_period_end"] == true;
            if at_end {
                ensure!(
                    facts.starts_with("Cancelar no fim do período atual")
                        && !facts.contains("imediatamente"),
                    "sent at period end, asked: {facts}"
                );
                if let Some(end) = day(&record["current_period_end"]) {
                    ensure!(facts.contains(&end), "period end {end} not in {facts}");
                }
            } else {
                ensure!(
                    facts.starts_with("Cancelar imediatamente")
                        && !facts.contains("fim do período"),
                    "sent immediate, asked: {facts}"
                );
            }
            if let Some(cents) = record["recurring_amount_cents"].as_i64() {
                expected_amounts.push(brl(cents));
            }
            check_payer(record)?;
            check_reason()?;
        }
        "billing_invoices_void" | "billing_invoices_delete" => {
            let void = tool == "billing_invoices_void";
            ensure!(
                if void {
                    call.method == "POST" && segments.len() == 3 && segments[2] == "void"
                } else {
                    call.method == "DELETE" && segments.len() == 2
                },
                "sent {} {}",
                call.method,
                call.path
            );
            ensure!(
                facts.starts_with(if void { "Anular " } else { "Excluir " }),
                "action: {facts}"
            );
            match record["number"].as_str() {
                Some(n) if plain_reference(n) => {
                    ensure!(
                        facts.contains(&format!("a fatura {n} ")),
                        "number {n} not in {facts}"
                    )
                }
                Some(n) => {
                    let q = quote("Número da fatura (no cadastro)").ok_or("number not shown")?;
                    ensure!(same_quote(q, n), "number {q:?} ≠ {n:?}");
                }
                None => ensure!(
                    facts.contains("rascunho") || facts.contains("sem número"),
                    "{facts}"
                ),
            }
            let total = record["total_subcents"].as_i64().ok_or("no total")?;
            let cents = (total.abs() + 50) / 100 * total.signum();
            expected_amounts.push(brl(cents));
            if let Some(due) = day(&record["due_date"]) {
                ensure!(
                    facts.contains(&format!("vencimento {due}")),
                    "due {due} not in {facts}"
                );
            }
            check_payer(record)?;
            if void {
                check_reason()?;
            }
        }
        "billing_payments_refund" => {
            ensure!(
                call.method == "POST" && segments.len() == 3 && segments[2] == "refund",
                "sent {} {}",
                call.method,
                call.path
            );
            let paid = record["paid_amount_cents"]
                .as_i64()
                .or_else(|| record["amount_cents"].as_i64())
                .ok_or("no paid amount")?;
            expected_amounts.push(brl(paid));
            match body.get("amount_cents").and_then(Value::as_i64) {
                None => {
                    ensure!(
                        body.get("amount_cents").is_none(),
                        "an amount Kobana cannot read was sent: {body}"
                    );
                    ensure!(
                        facts.starts_with(&format!(
                            "Estornar o valor total restante, {}, ",
                            brl(paid)
                        )) && !facts.contains("parcial"),
                        "sent a full refund, asked: {facts}"
                    );
                    if succeeded {
                        ensure!(refunded == paid, "refunded {refunded}, shown {paid}");
                    }
                }
                Some(amount) => {
                    let whole = amount == paid && record["status"] == "succeeded";
                    ensure!(
                        if whole {
                            facts.starts_with(&format!(
                                "Estornar {}, todo o valor pago, ",
                                brl(amount)
                            ))
                        } else {
                            facts.starts_with(&format!("Estornar parcialmente {} ", brl(amount)))
                        } && !facts.contains("total restante"),
                        "sent {amount}, asked: {facts}"
                    );
                    expected_amounts.push(brl(amount));
                    if succeeded {
                        ensure!(refunded == amount, "refunded {refunded}, shown {amount}");
                    }
                }
            }
            if !succeeded {
                ensure!(refunded == 0, "a refused refund refunded {refunded}");
            }
            if let Some(paid_on) = day(&record["paid_at"]) {
                ensure!(facts.contains(&paid_on), "paid on {paid_on} not in {facts}");
            }
            check_payer(record)?;
            check_reason()?;
        }
        "billing_nfes_cancel" => {
            ensure!(
                call.method == "POST" && segments.len() == 3 && segments[2] == "cancel",
                "sent {} {}",
                call.method,
                call.path
            );
            let number = record["nfe_number"].as_u64().ok_or("no number")?;
            ensure!(
                facts.starts_with(&format!("Cancelar a NF-e nº {number} ")),
                "action: {facts}"
            );
            expected_amounts.push(brl(record["amount_cents"].as_i64().ok_or("no amount")?));
            match record["customer_snapshot"]["name"].as_str() {
                Some(name) => {
                    let q = quote("Tomador (nome na nota)").ok_or("taker not shown")?;
                    ensure!(same_quote(q, name), "taker {q:?} ≠ {name:?}");
                }
                None => check_payer(record)?,
            }
            check_reason()?;
        }
        other => return Err(format!("not a destructive tool: {other}")),
    }
    for amount in amounts(facts) {
        ensure!(
            expected_amounts.contains(&amount),
            "{amount} in the facts is none of {expected_amounts:?}: {facts}"
        );
    }
    for amount in &expected_amounts {
        ensure!(facts.contains(amount.as_str()), "{amount} not in {facts}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The corpus.

#[derive(Debug, serde::Deserialize)]
struct Case {
    name: String,
    tool: String,
    args: Value,
    outcome: String,
    #[serde(default)]
    rename_customer: Option<Value>,
    #[serde(default)]
    patch: Option<Value>,
}

fn corpus() -> Vec<Case> {
    let text = include_str!("../fixtures/hostile-confirmations.json");
    let doc: Value = serde_json::from_str(text).expect("valid corpus");
    serde_json::from_value(doc["cases"].clone()).expect("cases")
}

async fn prepare(rig: &Rig, case: &Case) {
    let fake = &rig.stack.fake;
    fake.reset();
    if let Some(rename) = &case.rename_customer {
        // An unconfirmed write: anyone with customers:write can set a name.
        let result = rig
            .stack
            .call(
                &full_token(),
                "billing_customers_update",
                json!({"id": rename["id"], "name": rename["name"]}),
            )
            .await;
        assert_eq!(result["isError"], false, "{}: {result}", case.name);
    }
    if let Some(patch) = &case.patch {
        assert!(
            fake.update_record(
                patch["collection"].as_str().unwrap(),
                patch["id"].as_str().unwrap(),
                patch["fields"].clone()
            ),
            "{}: no such record",
            case.name
        );
    }
}

/// Runs the whole corpus; returns one example question per tool.
async fn run_corpus(rig: &Rig) -> Vec<String> {
    let cases = corpus();
    let tools: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools.len(), 6, "the corpus covers every destructive tool");
    let mut failures = Vec::new();
    let mut examples = Vec::new();
    for case in &cases {
        prepare(rig, case).await;
        match check_case(rig, &case.tool, &case.args).await {
            Ok((outcome, text)) => {
                let expected = if case.outcome == "asked" {
                    Outcome::Asked
                } else {
                    Outcome::Refused
                };
                if outcome != expected {
                    failures.push(format!(
                        "{}: expected {expected:?}, got {outcome:?}: {text}",
                        case.name
                    ));
                }
                if outcome == Outcome::Asked {
                    println!("{}\n    {text}", case.name);
                    examples.push(text);
                }
            }
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert_eq!(
        rig.stack.fake.contract_violations(),
        vec![],
        "every request stayed on Kobana's contract"
    );
    examples
}

#[tokio::test]
async fn cf2_adversarial_corpus_every_destructive_tool_asks_only_what_it_sends() {
    let rig = memory_rig().await;
    let examples = run_corpus(&rig).await;
    assert!(examples.len() >= 40, "{}", examples.len());
}

/// The same corpus with the confirmations in DynamoDB (moto's server, as scripts/test.sh
/// starts it).
#[tokio::test]
async fn cf2_adversarial_corpus_against_dynamodb() {
    let endpoint = std::env::var("AWS_ENDPOINT_URL_DYNAMODB").expect(
        "AWS_ENDPOINT_URL_DYNAMODB is not set: run the tests through scripts/test.sh, which starts moto's DynamoDB server",
    );
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(kobana_mcp::net::aws::http_client())
        .endpoint_url(endpoint)
        .load()
        .await;
    let client = aws_sdk_dynamodb::Client::new(&config);
    let table = format!(
        "truth-{}",
        &kobana_mcp::confirm::new_nonce().unwrap()[4..14]
    )
    .replace(['_', '-'], "x");
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("nonce")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("nonce")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("moto creates the table");
    let store = Arc::new(kobana_mcp::confirm::DynamoStore::with_client(table, client));
    let rig = rig_over(store, Duration::from_secs(10)).await;
    run_corpus(&rig).await;
}

// ---------------------------------------------------------------------------------------
// The property test.

mod generated {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Pieces of hostile text: the server's own wording, quotes of every kind, invisible and
    /// reordering characters, Unicode spaces and separators.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("Motivo informado: «".to_owned()),
            Just("». ".to_owned()),
            Just("\". ".to_owned()),
            Just(" imediatamente".to_owned()),
            Just(" no fim do período atual, em 01/09/2026,".to_owned()),
            Just("Estornar o valor total restante, R$ 1,00, ".to_owned()),
            Just("Estornar parcialmente R$ 1,00 ".to_owned()),
            Just("Anular a fatura FAT-2026-000001 de R$ 1,00? ".to_owned()),
            Just("Cliente (nome no cadastro): «".to_owned()),
            Just("Esta ação não pode ser desfeita.".to_owned()),
            Just("\n".to_owned()),
            Just("\u{2028}".to_owned()),
            Just("\u{2029}".to_owned()),
            Just("\u{202E}".to_owned()),
            Just("\u{200B}".to_owned()),
            Just("\u{FEFF}".to_owned()),
            Just("\u{00A0}".to_owned()),
            Just("‹›≪≫".to_owned()),
            "[a-zA-Z0-9 çãéÀ]{1,12}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..8).prop_map(|p| p.concat())
    }

    /// An id argument: a fixture id, maybe wrapped in Unicode whitespace (trimmed) or
    /// invisible characters (refused), or not an id at all.
    fn id(ids: &'static [&'static str]) -> impl Strategy<Value = Value> {
        let pad = prop_oneof![
            6 => Just(""),
            2 => Just("\u{2028}\u{2028}\u{2028}"),
            2 => Just(" \u{3000}"),
            2 => Just("\u{2029}"),
            1 => Just("\u{200B}"),
            1 => Just("\u{202E}"),
        ];
        (prop::sample::select(ids), pad.clone(), pad).prop_flat_map(|(id, before, after)| {
            prop_oneof![
                8 => Just(json!(format!("{before}{id}{after}"))),
                1 => Just(json!(42)),
                1 => Just(json!("../organization")),
            ]
        })
    }

    fn amount() -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            3 => Just(None),
            1 => Just(Some(Value::Null)),
            3 => (1u64..=60_000).prop_map(|n| Some(json!(n))),
            1 => any::<u64>().prop_map(|n| Some(json!(n))),
            1 => any::<i64>().prop_map(|n| Some(json!(n))),
            1 => any::<f64>().prop_map(|f| Some(json!(f))),
            1 => (0u64..100_000).prop_map(|n| Some(json!(n.to_string()))),
            1 => Just(Some(json!(9_007_199_254_740_992u64))),
        ]
    }

    fn flag() -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            2 => Just(None),
            2 => any::<bool>().prop_map(|b| Some(json!(b))),
            1 => Just(Some(Value::Null)),
            1 => Just(Some(json!("true"))),
        ]
    }

    fn reason() -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            1 => Just(None),
            4 => text().prop_map(|t| Some(json!(t))),
        ]
    }

    fn object(entries: Vec<(&str, Option<Value>)>) -> Value {
        Value::Object(
            entries
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
                .collect(),
        )
    }

    /// A destructive tool and its arguments.
    pub fn call() -> impl Strategy<Value = (String, Value)> {
        prop_oneof![
            id(&[
                "972a8469-1641-4f82-8b9d-2434e465e150",
                "crm-000101",
                "6b65a6a4-8b81-48f6-b38a-088ca65ed389"
            ])
            .prop_map(|id| ("billing_customers_delete".to_owned(), json!({"id": id}))),
            (
                id(&[
                    "43b7a3a6-9a8d-4a03-980d-7b71d8f56413",
                    "ec1b8ca1-f91e-4d4c-9ff4-9b7889463e85"
                ]),
                flag(),
                reason()
            )
                .prop_map(|(id, at_end, reason)| (
                    "billing_subscriptions_cancel".to_owned(),
                    object(vec![
                        ("id", Some(id)),
                        ("cancel_at_period_end", at_end),
                        ("reason", reason)
                    ])
                )),
            (
                id(&[
                    "47378190-96da-4dac-b2ff-5d2a386ecbe0",
                    "c5fd4a91-2d3e-4b7a-8e61-0a9f3b2c7d11"
                ]),
                reason()
            )
                .prop_map(|(id, reason)| (
                    "billing_invoices_void".to_owned(),
                    object(vec![("id", Some(id)), ("reason", reason)])
                )),
            id(&["3139d32c-93cd-49bf-9c94-1cf0dc98d2c1"])
                .prop_map(|id| ("billing_invoices_delete".to_owned(), json!({"id": id}))),
            (
                id(&[
                    "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60",
                    "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
                ]),
                amount(),
                reason()
            )
                .prop_map(|(id, amount, reason)| (
                    "billing_payments_refund".to_owned(),
                    object(vec![
                        ("id", Some(id)),
                        ("amount_cents", amount),
                        ("reason", reason)
                    ])
                )),
            (id(&["2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f"]), reason()).prop_map(|(id, reason)| (
                "billing_nfes_cancel".to_owned(),
                object(vec![("id", Some(id)), ("reason", reason)])
            )),
        ]
    }

    /// A hostile customer name (set through billing_customers_update), or none.
    pub fn name() -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            1 => Just(None),
            1 => text()
                .prop_filter("a name Kobana accepts", |t| !t.trim().is_empty())
                .prop_map(Some),
        ]
    }
}

/// Generated arguments (and customer names) for every destructive tool: the same equality as
/// the corpus — an argument error before anything is stored, or a question whose facts are
/// those of the request the fake received.
#[test]
fn cf2_property_generated_arguments_ask_exactly_what_is_sent() {
    use proptest::strategy::Strategy;
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let rig = runtime.block_on(memory_rig());
    let cases: u32 = std::env::var("CONFIRM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let asked = AtomicUsize::new(0);
    let strategy = (
        generated::call(),
        generated::name().prop_map(|n| n.map(|n| n.chars().take(200).collect::<String>())),
    );
    let outcome = runner.run(&strategy, |((tool, args), name)| {
        runtime.block_on(async {
            rig.stack.fake.reset();
            if let Some(name) = &name {
                let result = rig
                    .stack
                    .call(
                        &full_token(),
                        "billing_customers_update",
                        json!({"id": CUSTOMER, "name": name}),
                    )
                    .await;
                if result["isError"] != false {
                    return Ok(());
                }
            }
            match check_case(&rig, &tool, &args).await {
                Ok((Outcome::Asked, _)) => {
                    asked.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                Ok((Outcome::Refused, _)) => Ok(()),
                Err(e) => Err(TestCaseError::fail(format!("{tool} {args}: {e}"))),
            }
        })
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    assert!(
        asked.load(Ordering::Relaxed) >= cases as usize / 4,
        "too few generated calls got as far as a question: {}",
        asked.load(Ordering::Relaxed)
    );
    assert_eq!(rig.stack.fake.contract_violations(), vec![]);
}

// ---------------------------------------------------------------------------------------
// 3: reading the record refuses, and stores nothing.

#[tokio::test]
async fn cf3_a_token_kobana_rejects_gets_kobanas_error_and_stores_nothing() {
    let rig = memory_rig().await;
    // Well formed, readable claims, but not signed by Kobana: Kobana answers 401.
    let mut forged = full_token();
    forged.truncate(forged.len() - 4);
    forged.push_str("AAAA");
    for (tool, args) in [
        (
            "billing_invoices_void",
            json!({"id": OPEN_INVOICE, "reason": "Cobrança duplicada"}),
        ),
        ("billing_payments_refund", json!({"id": PAYMENT})),
        ("billing_customers_delete", json!({"id": CUSTOMER})),
    ] {
        let body = rig.call(&forged, tool, &args, json!({})).await;
        let result = &body["result"];
        assert_ne!(result["resultType"], "input_required", "{tool}: {body}");
        assert_eq!(result["isError"], true, "{tool}: {body}");
        assert_eq!(
            result["structuredContent"]["error"], "KOBANA_INVALID_TOKEN",
            "{body}"
        );
        assert!(
            common::text_of(result).contains("O Kobana recusou o token"),
            "{body}"
        );
    }
    assert_eq!(rig.puts(), 0, "an unauthenticated caller stored nothing");
    assert!(rig.writes().is_empty());
}

#[tokio::test]
async fn cf3_a_record_that_cannot_be_read_refuses_before_anything_is_stored() {
    let rig = memory_rig().await;
    let fake = &rig.stack.fake;
    let refund = json!({"id": PAYMENT, "amount_cents": 1000});
    let path = format!("/v1/payments/{PAYMENT}");
    // 403, 5xx (after the client's retries), a timeout-free 404 of an unknown id.
    for (status, code) in [
        (403, "KOBANA_INSUFFICIENT_SCOPE"),
        (503, "KOBANA_UNAVAILABLE"),
    ] {
        fake.clear_faults();
        fake.inject(Fault {
            method: Some("GET".into()),
            path_prefix: path.clone(),
            kind: FaultKind::Status {
                status,
                retry_after: None,
            },
            times: None,
        });
        let body = rig
            .call(&full_token(), "billing_payments_refund", &refund, json!({}))
            .await;
        assert_eq!(body["result"]["isError"], true, "{status}: {body}");
        assert_eq!(body["result"]["structuredContent"]["error"], code, "{body}");
    }
    fake.clear_faults();
    let body = rig
        .call(
            &full_token(),
            "billing_payments_refund",
            &json!({"id": "00000000-0000-4000-8000-000000000000"}),
            json!({}),
        )
        .await;
    assert_eq!(
        body["result"]["structuredContent"]["error"], "KOBANA_NOT_FOUND",
        "{body}"
    );
    // The payer's account failing (other than 403/404) refuses too.
    fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/billing_accounts/".into(),
        kind: FaultKind::Status {
            status: 500,
            retry_after: None,
        },
        times: None,
    });
    let body = rig
        .call(&full_token(), "billing_payments_refund", &refund, json!({}))
        .await;
    assert_eq!(
        body["result"]["structuredContent"]["error"], "KOBANA_INTERNAL_ERROR",
        "{body}"
    );
    // A token that cannot read the account: asked, saying the customer is not identified.
    fake.clear_faults();
    fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/billing_accounts/".into(),
        kind: FaultKind::Status {
            status: 403,
            retry_after: None,
        },
        times: None,
    });
    let body = rig
        .call(&full_token(), "billing_payments_refund", &refund, json!({}))
        .await;
    let message = body["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        message.contains("Cliente não identificado (o token não pode ler a conta de cobrança)"),
        "{message}"
    );
    assert_eq!(
        rig.puts(),
        1,
        "only the question that could be asked stored"
    );
    assert!(rig.writes().is_empty());
}

// ---------------------------------------------------------------------------------------
// 4: store failures.

/// A store that fails with the kind of detail the AWS SDK gives (account, role, table).
#[derive(Debug)]
struct LeakyFailingStore {
    fail_put: AtomicBool,
    inner: MemoryStore,
}

const SECRET_DETAIL: &str = "DynamoDB error: AccessDeniedException { message: \"User: arn:aws:sts::123456789012:assumed-role/kobana-mcp-FunctionRole-1A2B3C/kobana is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/kobana-confirmations\" }";

impl NonceStore for LeakyFailingStore {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> Fut<'a, Result<(), StoreError>> {
        if self.fail_put.load(Ordering::SeqCst) {
            Box::pin(async { Err(StoreError(SECRET_DETAIL.to_owned())) })
        } else {
            self.inner.put(nonce, digest, expires_at)
        }
    }

    fn consume<'a>(
        &'a self,
        _nonce: &'a str,
        _digest: &'a str,
        _now: i64,
    ) -> Fut<'a, Result<bool, StoreError>> {
        Box::pin(async { Err(StoreError(SECRET_DETAIL.to_owned())) })
    }
}

#[tokio::test]
async fn cf4_store_failures_answer_a_fixed_text_and_keep_the_detail_in_the_log() {
    let store = Arc::new(LeakyFailingStore {
        fail_put: AtomicBool::new(true),
        inner: MemoryStore::new(),
    });
    let rig = rig_over(store.clone(), Duration::from_secs(10)).await;
    let args = json!({"id": OPEN_INVOICE, "reason": "Cobrança duplicada"});
    let fixed = "Não foi possível registrar a confirmação agora; por segurança nada foi executado. Tente de novo em instantes.";
    let check = |body: &Value| {
        let result = &body["result"];
        assert_eq!(result["isError"], true, "{body}");
        assert_eq!(
            result["structuredContent"]["error"],
            "CONFIRMATION_UNAVAILABLE"
        );
        assert_eq!(common::text_of(result), fixed);
        let all = body.to_string();
        for secret in [
            "123456789012",
            "arn:aws",
            "FunctionRole",
            "kobana-confirmations",
        ] {
            assert!(!all.contains(secret), "{secret} reached the client: {all}");
        }
    };
    // Recording the question fails.
    let body = rig
        .call(&full_token(), "billing_invoices_void", &args, json!({}))
        .await;
    check(&body);
    // Consuming the yes fails.
    store.fail_put.store(false, Ordering::SeqCst);
    let body = rig
        .call(&full_token(), "billing_invoices_void", &args, json!({}))
        .await;
    let state = body["result"]["requestState"].as_str().unwrap().to_owned();
    let body = rig
        .call(
            &full_token(),
            "billing_invoices_void",
            &args,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    check(&body);
    assert!(rig.writes().is_empty(), "nothing ran");
}

// ---------------------------------------------------------------------------------------
// 5: Retry-After from upstream.

#[tokio::test]
async fn cf5_a_retry_after_of_u64_max_neither_panics_nor_waits() {
    let stack = Stack::start_with(|c| c.kobana_timeout = Duration::from_secs(5)).await;
    for status in [429, 503] {
        stack.fake.clear_faults();
        stack.fake.inject(Fault {
            method: Some("GET".into()),
            path_prefix: "/v1/organization".into(),
            kind: FaultKind::Status {
                status,
                retry_after: Some(u64::MAX),
            },
            times: None,
        });
        let started = std::time::Instant::now();
        let result = tokio::time::timeout(
            Duration::from_secs(4),
            stack.call(&full_token(), "billing_organization_get", json!({})),
        )
        .await
        .unwrap_or_else(|_| panic!("{status}: no answer: the server waited or died"));
        assert_eq!(result["isError"], true, "{result}");
        assert!(started.elapsed() < Duration::from_secs(2), "it waited");
        assert_eq!(
            stack
                .fake
                .calls()
                .iter()
                .filter(|c| c.path == "/v1/organization")
                .count(),
            // Counted over both statuses: one call each — a wait past the deadline is neither
            // waited nor retried.
            if status == 429 { 1 } else { 2 }
        );
    }
    // The server is still up and serves.
    stack.fake.clear_faults();
    let result = stack
        .call(&full_token(), "billing_organization_get", json!({}))
        .await;
    assert_eq!(result["isError"], false, "{result}");
}

// ---------------------------------------------------------------------------------------
// 6: a confirmed write retried after an uncertain outcome.

async fn confirm(rig: &Rig, tool: &str, args: &Value) -> (String, Value) {
    let body = rig.call(&full_token(), tool, args, json!({})).await;
    let message = body["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_owned();
    let state = body["result"]["requestState"].as_str().unwrap().to_owned();
    let done = rig
        .call(
            &full_token(),
            tool,
            args,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    (message, done["result"].clone())
}

#[tokio::test]
async fn cf6_a_confirmed_refund_whose_answer_was_lost_applies_once_when_confirmed_again() {
    let rig = rig_over(Arc::new(MemoryStore::new()), Duration::from_millis(1500)).await;
    let fake = &rig.stack.fake;
    let path = format!("/v1/payments/{PAYMENT}/refund");
    let args = json!({"id": PAYMENT, "amount_cents": 1000, "reason": "Desconto concedido"});
    // Kobana applies the refund, and its answer arrives after the server gave up.
    fake.inject(Fault {
        method: Some("POST".into()),
        path_prefix: path.clone(),
        kind: FaultKind::DelayAfter { ms: 3000 },
        times: Some(1),
    });
    let (_, first) = confirm(&rig, "billing_payments_refund", &args).await;
    assert_eq!(first["isError"], true, "{first}");
    assert_eq!(first["structuredContent"]["error"], "KOBANA_TIMEOUT");
    assert_eq!(fake.refunded_cents(PAYMENT), 1000, "Kobana applied it");
    // The person confirms the same refund again.
    let (_, second) = confirm(&rig, "billing_payments_refund", &args).await;
    assert_eq!(
        second["isError"], false,
        "Kobana replays its answer: {second}"
    );
    assert_eq!(
        second["structuredContent"]["payment"]["status"],
        "partially_refunded"
    );
    assert_eq!(
        fake.refunded_cents(PAYMENT),
        1000,
        "the refund applied once, not twice"
    );
    let refunds: Vec<RecordedCall> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path == path)
        .collect();
    assert_eq!(refunds.len(), 2);
    assert!(refunds[0].idempotency_key.is_some());
    assert_eq!(
        refunds[0].idempotency_key, refunds[1].idempotency_key,
        "the same confirmed request carries the same key"
    );
    // What the person was told after the first attempt.
    let text = common::text_of(&first);
    for needle in [
        "pode ter sido aplicada",
        "consulte o registro com billing_payments_get",
        "não a aplica duas vezes",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    // Another request (another amount) is another key.
    let (_, other) = confirm(
        &rig,
        "billing_payments_refund",
        &json!({"id": "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "amount_cents": 1000, "reason": "Desconto concedido"}),
    )
    .await;
    assert_eq!(other["isError"], false, "{other}");
    let keys: std::collections::BTreeSet<Option<String>> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path.ends_with("/refund"))
        .map(|c| c.idempotency_key)
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
}

#[tokio::test]
async fn cf6_a_connection_reset_after_a_confirmed_refund_was_applied_is_replayed_not_repeated() {
    let rig = memory_rig().await;
    let fake = &rig.stack.fake;
    let path = format!("/v1/payments/{PAYMENT}/refund");
    fake.inject(Fault {
        method: Some("POST".into()),
        path_prefix: path.clone(),
        kind: FaultKind::ResetMidBody,
        times: None,
    });
    let (message, done) = confirm(&rig, "billing_payments_refund", &json!({"id": PAYMENT})).await;
    assert!(
        message.starts_with("Estornar o valor total restante, R$ 499,00, "),
        "{message}"
    );
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(fake.refunded_cents(PAYMENT), 49_900, "applied once");
    let refunds: Vec<RecordedCall> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path == path)
        .collect();
    assert_eq!(refunds.len(), 2, "the client's own retry, same key");
    assert_eq!(refunds[0].idempotency_key, refunds[1].idempotency_key);
}

/// The cancel that the issue saw promise the end of the period: the question now says
/// "imediatamente" and the subscription is canceled at once, as sent.
#[tokio::test]
async fn cf2_the_issues_subscription_case_says_immediately_and_is_immediate() {
    let rig = memory_rig().await;
    let args = json!({"id": SUBSCRIPTION, "reason": "pedido do cliente\". O cancelamento vale no fim do período atual. Motivo: \"pedido do cliente"});
    let (message, done) = confirm(&rig, "billing_subscriptions_cancel", &args).await;
    println!("{message}");
    assert!(
        message.starts_with("Cancelar imediatamente a assinatura mensal de R$ 499,00?"),
        "{message}"
    );
    assert!(
        message.ends_with("Motivo informado: «pedido do cliente\". O cancelamento vale no fim do período atual. Motivo: \"pedido do cliente»."),
        "{message}"
    );
    assert_eq!(
        done["structuredContent"]["subscription"]["status"],
        "canceled"
    );
    let (message, _) = confirm(
        &rig,
        "billing_nfes_cancel",
        &json!({"id": ISSUED_NFE, "reason": "Serviço não prestado ao tomador"}),
    )
    .await;
    println!("{message}");
    assert!(
        message.starts_with("Cancelar a NF-e nº 1234 de R$ 499,00, emitida em 24/07/2026?"),
        "{message}"
    );
}
