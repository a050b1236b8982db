//! Confirmation on the generic path (WA-2, CF-2…CF-6): `billing_operations_write_destructive`
//! asks first exactly as the curated destructive tools do — era 2026 with form elicitation,
//! the same nonce store, binding and single use — with its row's sentence, then every value
//! that will be sent. The curated tools' integrity tests run here on the generic path: the
//! adversarial corpus, mismatched, forged and expired confirmations, a hundred concurrent
//! retries. Questions are read by this file's own reader and compared with what the fake
//! Kobana received, never with the server's code.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::{Map, Value, json};

use crate::common::{Stack, error_code};
use crate::confirm::support::{hidden, same_whole_quote};
use crate::operations::support::*;
use fake_kobana::{FIXTURE_ORG_ID, RecordedCall, full_token, scoped_token};
use kobana_mcp::confirm::{Clock, MemoryStore, NonceStore};

struct Rig {
    stack: Stack,
    now: Arc<AtomicI64>,
}

async fn rig() -> Rig {
    let store: Arc<dyn NonceStore> = Arc::new(MemoryStore::new());
    let now = Arc::new(AtomicI64::new(1_900_000_000));
    let clock_now = now.clone();
    let clock: Clock = Arc::new(move || clock_now.load(Ordering::SeqCst));
    let stack = Stack::start_full(|_| {}, Some((store, clock))).await;
    Rig { stack, now }
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

fn void(id: &str, reason: &str) -> Value {
    json!({"operation": "post-invoices-id-void", "path": {"id": id}, "body": {"reason": reason}})
}

impl Rig {
    async fn call(&self, token: &str, args: &Value, extra: Value) -> Value {
        self.stack
            .call_with_forms(token, DESTRUCTIVE, args, extra)
            .await
    }

    /// The requests the fake received that change something.
    fn writes(&self) -> Vec<RecordedCall> {
        self.stack.fake.writes()
    }

    /// First call: must ask and send nothing. Answers the question and the state.
    async fn ask(&self, token: &str, args: &Value) -> (String, String) {
        let before = self.writes().len();
        let body = self.call(token, args, json!({})).await;
        let result = &body["result"];
        assert_eq!(result["resultType"], "input_required", "{body}");
        assert_eq!(self.writes().len(), before, "asking sends nothing");
        let request = &result["inputRequests"]["confirm"];
        assert_eq!(request["method"], "elicitation/create");
        (
            request["params"]["message"].as_str().unwrap().to_owned(),
            result["requestState"].as_str().unwrap().to_owned(),
        )
    }

    async fn retry(&self, token: &str, args: &Value, state: &str, answer: Value) -> Value {
        self.call(
            token,
            args,
            json!({"requestState": state, "inputResponses": {"confirm": answer}}),
        )
        .await
    }
}

/// This file's reading of a generic question: the sentence (up to its `?`), the plain values
/// listed after `Dados enviados:` by place, and the quoted texts by label.
#[derive(Debug)]
struct Read {
    sentence: String,
    values: Vec<(String, String)>,
    quotes: Vec<(String, String)>,
}

fn read_question(message: &str) -> Result<Read, String> {
    if message.chars().any(hidden) {
        return Err(format!("hidden characters: {message:?}"));
    }
    // The server's voice comes first and holds no quote: the row's sentence (its question and
    // consequence), then the plain values after `Dados enviados:`, then the quoted texts, each
    // `<label>: «…».`, closed, none inside another.
    let first_quote = message.find('«').unwrap_or(message.len());
    let voice = &message[..first_quote];
    let label_start = if first_quote == message.len() {
        voice.len()
    } else {
        voice.rfind(". ").map_or(0, |at| at + 2)
    };
    let (voice, mut label) = voice.split_at(label_start);
    let (sentence, list) = match voice.split_once(" Dados enviados: ") {
        Some((sentence, list)) => (sentence, Some(list.trim_end())),
        None => (voice.trim_end(), None),
    };
    if !sentence.contains('?') {
        return Err(format!("the sentence asks nothing: {message}"));
    }
    let mut values = Vec::new();
    if let Some(list) = list {
        let list = list
            .strip_suffix('.')
            .ok_or_else(|| format!("the values do not end: {list:?}"))?;
        for item in list.split("; ") {
            let (place, value) = item
                .split_once(" = ")
                .ok_or_else(|| format!("not a value: {item:?}"))?;
            values.push((place.to_owned(), value.to_owned()));
        }
    }
    let mut quotes = Vec::new();
    let mut quoted = &message[first_quote..];
    while let Some(inner) = quoted.strip_prefix('«') {
        let (text, after) = inner
            .split_once('»')
            .ok_or_else(|| format!("unclosed quote: {message}"))?;
        if text.contains('«') {
            return Err(format!("a quote inside a quote: {message}"));
        }
        let name = label.trim().trim_end_matches(':').to_owned();
        quotes.push((name, text.to_owned()));
        let after = after
            .strip_prefix('.')
            .ok_or_else(|| format!("text after a quote: {message}"))?;
        match after.split_once('«') {
            Some((next_label, _)) => {
                label = next_label;
                quoted = &after[next_label.len()..];
            }
            None if after.is_empty() => break,
            None => return Err(format!("server text after the quotes: {after:?}")),
        }
    }
    Ok(Read {
        sentence: sentence.to_owned(),
        values,
        quotes,
    })
}

/// Every leaf of a sent body, by place (`body.line_items[0].quantity`).
fn leaves(value: &Value, at: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => map
            .iter()
            .for_each(|(k, v)| leaves(v, &format!("{at}.{k}"), out)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(n, v)| leaves(v, &format!("{at}[{n}]"), out)),
        other => out.push((at.to_owned(), other.clone())),
    }
}

/// The question shows every value the fake received, each where it belongs, and nothing
/// that was not sent: plain values by place (money may be its BRL text), free text quoted
/// whole under `<place> (texto enviado)`.
fn shows_what_was_sent(
    read: &Read,
    path_ids: &Map<String, Value>,
    call: &RecordedCall,
) -> Result<(), String> {
    let mut sent = Vec::new();
    if let Some(body) = &call.body {
        leaves(body, "body", &mut sent);
    }
    for (name, id) in path_ids {
        sent.push((format!("path.{name}"), id.clone()));
    }
    for (place, value) in &sent {
        let plain = read.values.iter().find(|(p, _)| p == place);
        let quote = read
            .quotes
            .iter()
            .find(|(label, _)| *label == format!("{place} (texto enviado)"));
        let shown = match (plain, quote, value) {
            // In the server's voice only a plain token (an id, a date, an enum value).
            (Some((_, v)), None, Value::String(s)) => {
                v == s
                    && s.chars().count() <= 64
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_.:/+@-".contains(&b))
            }
            (Some((_, v)), None, Value::Bool(b)) => v == if *b { "sim" } else { "não" },
            (Some((_, v)), None, Value::Number(n)) => {
                v == &n.to_string() || v.starts_with("R$ ") || v.starts_with(&n.to_string())
            }
            (None, Some((_, q)), Value::String(s)) => same_whole_quote(q, s),
            _ => false,
        };
        if !shown {
            return Err(format!("{place} = {value} is not shown as sent: {read:?}"));
        }
    }
    for (place, _) in &read.values {
        if !sent.iter().any(|(p, _)| p == place) {
            return Err(format!("{place} is shown but was not sent"));
        }
    }
    Ok(())
}

/// CF-2, CF-3: the generic destructive tool asks first with its row's sentence — the record
/// the path names read from Kobana — then every value sent; a no runs nothing; only a yes runs,
/// once, with the idempotency key derived from the binding.
#[tokio::test]
async fn wa2_cf2_cf3_a_destructive_row_asks_its_sentence_first_and_only_yes_runs() {
    let rig = rig().await;
    let token = full_token();
    let args = void(INV_OPEN, "Cobrança emitida em duplicidade");
    let (message, state) = rig.ask(&token, &args).await;
    println!("{message}");
    let record = rig.stack.fake.record("invoices", INV_OPEN).unwrap();
    let read = read_question(&message).unwrap();
    let number = record["number"].as_str().unwrap();
    assert!(
        read.sentence
            .starts_with(&format!("Anular a fatura {number} de R$ ")),
        "{message}"
    );
    assert!(read.sentence.contains(", vencimento "), "{message}");
    assert_eq!(
        read.values,
        [("path.id".to_owned(), INV_OPEN.to_owned())],
        "{message}"
    );
    assert_eq!(
        read.quotes,
        [(
            "body.reason (texto enviado)".to_owned(),
            "Cobrança emitida em duplicidade".to_owned()
        )]
    );
    let declined = rig
        .retry(&token, &args, &state, json!({"action": "decline"}))
        .await;
    assert_eq!(
        error_code(&declined["result"]),
        "USER_DECLINED",
        "{declined}"
    );
    assert!(rig.writes().is_empty(), "a no runs nothing");
    let (_, state) = rig.ask(&token, &args).await;
    let done = rig.retry(&token, &args, &state, yes()).await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    let writes = rig.writes();
    assert_eq!(writes.len(), 1, "a yes runs once");
    assert_eq!(writes[0].path, format!("/v1/invoices/{INV_OPEN}/void"));
    assert!(writes[0].idempotency_key.is_some());
    shows_what_was_sent(&read, args["path"].as_object().unwrap(), &writes[0]).unwrap();
    assert_eq!(rig.stack.fake.contract_violations(), vec![]);
}

/// CF-4: a confirmation bound to another operation, body, record, person or tool, an expired
/// one and a forged one execute nothing: each asks again (or, not even our format, -32602).
#[tokio::test]
async fn wa2_cf4_mismatched_forged_and_expired_confirmations_execute_nothing() {
    let rig = rig().await;
    let token = full_token();
    let args = void(INV_OPEN, "Cobrança emitida em duplicidade");
    let bia = scoped_token("person-bia", FIXTURE_ORG_ID, "all");
    let refund =
        json!({"operation": "post-payments-id-refund", "path": {"id": PAY_CARD}, "body": {}});
    let mismatches: Vec<(&str, Value, String, Value)> = vec![
        ("another operation", refund, token.clone(), args.clone()),
        (
            "another body",
            args.clone(),
            token.clone(),
            void(INV_OPEN, "Outro motivo"),
        ),
        (
            "another invoice",
            args.clone(),
            token.clone(),
            void(INV_OVERDUE, "Cobrança emitida em duplicidade"),
        ),
        ("another person", args.clone(), bia, args.clone()),
    ];
    for (case, issued_for, retry_token, retry_args) in mismatches {
        let (_, state) = rig.ask(&token, &issued_for).await;
        let body = rig.retry(&retry_token, &retry_args, &state, yes()).await;
        assert_eq!(
            body["result"]["resultType"], "input_required",
            "{case}: {body}"
        );
        assert_ne!(
            body["result"]["requestState"],
            state.as_str(),
            "{case}: a fresh state"
        );
    }
    // Issued for the curated tool: the generic tool's same request is another binding.
    let curated = rig
        .stack
        .call_with_forms(
            &token,
            "billing_invoices_void",
            &json!({"id": INV_OPEN, "reason": "Cobrança emitida em duplicidade"}),
            json!({}),
        )
        .await;
    let state = curated["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = rig.retry(&token, &args, &state, yes()).await;
    assert_eq!(body["result"]["resultType"], "input_required", "{body}");
    // Expired (clock injected), forged in our format, and not our format at all.
    let (_, state) = rig.ask(&token, &args).await;
    rig.now.fetch_add(301, Ordering::SeqCst);
    let body = rig.retry(&token, &args, &state, yes()).await;
    assert_eq!(
        body["result"]["resultType"], "input_required",
        "expired: {body}"
    );
    let forged = format!("kc1_{}", "A".repeat(43));
    let body = rig.retry(&token, &args, &forged, yes()).await;
    assert_eq!(
        body["result"]["resultType"], "input_required",
        "forged: {body}"
    );
    let body = rig.retry(&token, &args, "eyJhbGciOi.forged", yes()).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(rig.writes().is_empty(), "nothing ran in the whole matrix");
}

/// CF-6: a hundred concurrent retries of one confirmation execute exactly once.
#[tokio::test]
async fn wa2_cf6_a_hundred_concurrent_retries_with_one_state_execute_exactly_once() {
    let rig = rig().await;
    let token = full_token();
    let args = void(INV_OPEN, "Cobrança emitida em duplicidade");
    let (_, state) = rig.ask(&token, &args).await;
    let results =
        futures_util::future::join_all((0..100).map(|_| rig.retry(&token, &args, &state, yes())))
            .await;
    let executed = results
        .iter()
        .filter(|b| b["result"]["resultType"] != "input_required")
        .count();
    assert_eq!(executed, 1, "exactly one retry executes");
    assert_eq!(rig.writes().len(), 1, "the fake saw exactly one void");
}

/// CF-5: era 2025, and era 2026 without form elicitation, run directly (the client's own
/// confirmation applies).
#[tokio::test]
async fn wa2_cf5_era_2025_and_clients_without_forms_run_directly() {
    let rig = rig().await;
    let result = rig
        .stack
        .call(
            &full_token(),
            DESTRUCTIVE,
            void(INV_OPEN, "Cobrança emitida em duplicidade"),
        )
        .await;
    assert_eq!(result["isError"], false, "{result}");
    let params = json!({"name": DESTRUCTIVE, "arguments": void(INV_OVERDUE, "Cobrança emitida em duplicidade")});
    let (_, body) = rig
        .stack
        .modern_with_caps(&full_token(), "tools/call", params, json!({}))
        .await;
    assert_ne!(body["result"]["resultType"], "input_required", "{body}");
    assert_eq!(rig.writes().len(), 2);
}

/// CF-3: a record the question cannot read refuses before anything is stored or sent; a free
/// text the question could not show exactly as sent is refused before asking.
#[tokio::test]
async fn wa2_cf3_what_cannot_be_shown_faithfully_is_refused_before_asking() {
    let rig = rig().await;
    let token = full_token();
    let body = rig.call(&token, &void(UNKNOWN, "Motivo"), json!({})).await;
    assert_eq!(error_code(&body["result"]), "KOBANA_NOT_FOUND", "{body}");
    for reason in [
        "linha 1\nlinha 2",
        "oculto\u{202E}x",
        "aspas «falsas»",
        "  espaços",
    ] {
        let body = rig.call(&token, &void(INV_OPEN, reason), json!({})).await;
        assert_eq!(
            error_code(&body["result"]),
            "INVALID_ARGUMENTS",
            "{reason:?}: {body}"
        );
        assert!(
            crate::common::text_of(&body["result"]).contains("`body.reason`"),
            "{body}"
        );
    }
    assert!(rig.writes().is_empty());
}

/// CF-2: the question states the amount the request sends in BRL by its reviewed unit, and
/// the record's own facts, and shows every value sent.
#[tokio::test]
async fn wa2_cf2_money_in_the_question_is_in_brl_by_its_unit() {
    let rig = rig().await;
    let token = full_token();
    let args = json!({"operation": "post-payments-id-refund", "path": {"id": PAY_CARD},
        "body": {"amount_cents": 1000, "reason": "Desconto combinado"}});
    let (message, state) = rig.ask(&token, &args).await;
    println!("{message}");
    let read = read_question(&message).unwrap();
    // The amount sent in BRL by its unit (centavos), the payment by the id the path names and
    // its own amount read from Kobana.
    let paid = rig.stack.fake.record("payments", PAY_CARD).unwrap()["amount_cents"]
        .as_i64()
        .unwrap();
    let expected = format!(
        "Estornar R$ 10,00 do pagamento {PAY_CARD} de {}?",
        crate::confirm::support::brl(paid)
    );
    assert!(read.sentence.starts_with(&expected), "{message}");
    assert!(
        read.values
            .contains(&("body.amount_cents".to_owned(), "R$ 10,00".to_owned())),
        "{message}"
    );
    let done = rig.retry(&token, &args, &state, yes()).await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    let writes = rig.writes();
    shows_what_was_sent(&read, args["path"].as_object().unwrap(), &writes[0]).unwrap();
    assert_eq!(rig.stack.fake.refunded_cents(PAY_CARD), 1000);
}

/// The curated corpus's case as a call of the generic tool: the operation the curated tool
/// runs, its `id` in `path`, every other argument in `body`. `None` for the destructive tools
/// added after CF-1's six (finalize, NF-e issuance, the settlements): their arguments are not
/// their operation's body one for one, and their rows run in the table test
/// (`wa2_every_row_runs_through_its_tool_against_the_fake_on_the_contract`).
fn generic_call(tool: &str, args: &Value) -> Option<Value> {
    let operation = match tool {
        "billing_customers_delete" => "delete-customers-id",
        "billing_subscriptions_cancel" => "post-subscriptions-id-cancel",
        "billing_invoices_void" => "post-invoices-id-void",
        "billing_invoices_delete" => "delete-invoices-id",
        "billing_payments_refund" => "post-payments-id-refund",
        "billing_nfes_cancel" => "post-nfes-id-cancel",
        _ => return None,
    };
    let mut call = json!({"operation": operation});
    let mut body = args.as_object().cloned().unwrap_or_default();
    if let Some(id) = body.remove("id") {
        call["path"] = json!({"id": id});
    }
    if !body.is_empty() {
        call["body"] = Value::Object(body);
    }
    Some(call)
}

/// The collection of the fake that keeps the record the path of `operation` names.
fn collection(operation: &str) -> &'static str {
    match operation.split('-').nth(1).unwrap_or_default() {
        "customers" => "customers",
        "subscriptions" => "subscriptions",
        "invoices" => "invoices",
        "payments" => "payments",
        _ => "nfes",
    }
}

/// The BRL amounts a question may state: what the body sends in cents, and the record's own
/// amounts (its `*_cents` members; an invoice's total).
fn expected_amounts(record: &Value, body: Option<&Value>) -> Vec<String> {
    use crate::confirm::support::brl;
    let mut out = Vec::new();
    if let Some(Value::Object(map)) = record.as_object().map(|m| Value::Object(m.clone())) {
        for (key, value) in &map {
            if key.ends_with("_cents")
                && let Some(n) = value.as_i64()
            {
                out.push(brl(n));
            }
        }
        if let Some(total) = map.get("total_subcents").and_then(Value::as_i64) {
            out.push(brl((total.abs() + 50) / 100 * total.signum()));
        }
    }
    if let Some(n) = body.and_then(|b| b["amount_cents"].as_i64()) {
        out.push(brl(n));
    }
    out
}

/// CF-2 on the generic path: the curated adversarial corpus (hostile arguments, hostile
/// records), each case as a call of the generic tool, ends in an argument or Kobana refusal
/// before anything is stored or sent, or in a question whose every value is what the fake
/// received after a yes, whose record texts stay inside their quotes, and whose amounts are
/// only those of the request and the record.
#[tokio::test]
async fn wa2_cf2_adversarial_corpus_on_the_generic_path_asks_only_what_it_sends() {
    #[derive(serde::Deserialize)]
    struct Case {
        name: String,
        tool: String,
        args: Value,
        #[serde(default)]
        rename_customer: Option<Value>,
        #[serde(default)]
        patch: Option<Value>,
    }
    let doc: Value =
        serde_json::from_str(include_str!("../../fixtures/hostile-confirmations.json")).unwrap();
    let cases: Vec<Case> = serde_json::from_value(doc["cases"].clone()).unwrap();
    let rig = crate::confirm::support::memory_rig().await;
    let token = full_token();
    let (mut asked, mut failures) = (0, Vec::new());
    for case in &cases {
        let fake = &rig.stack.fake;
        fake.reset();
        if let Some(rename) = &case.rename_customer {
            fake.update_record(
                "customers",
                rename["id"].as_str().unwrap(),
                json!({"name": rename["name"]}),
            );
        }
        if let Some(patch) = &case.patch {
            fake.update_record(
                patch["collection"].as_str().unwrap(),
                patch["id"].as_str().unwrap(),
                patch["fields"].clone(),
            );
        }
        let Some(call) = generic_call(&case.tool, &case.args) else {
            continue;
        };
        let operation = call["operation"].as_str().unwrap().to_owned();
        match corpus_case(&rig, &token, &call, &operation).await {
            Ok(true) => asked += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(asked >= 30, "{asked} of {} cases asked", cases.len());
    assert_eq!(rig.stack.fake.contract_violations(), vec![]);
}

/// One corpus case: `Ok(true)` asked and ran what it showed, `Ok(false)` refused cleanly.
async fn corpus_case(
    rig: &crate::confirm::support::Rig,
    token: &str,
    call: &Value,
    operation: &str,
) -> Result<bool, String> {
    let (puts, writes) = (rig.puts(), rig.writes().len());
    let id = call["path"]["id"].as_str().unwrap_or_default().to_owned();
    let record = rig.stack.fake.record(collection(operation), &id);
    let body = rig.call(token, DESTRUCTIVE, call, json!({})).await;
    let result = &body["result"];
    if result["resultType"] != "input_required" {
        let code = error_code(result);
        if !(code == "INVALID_ARGUMENTS" || code.starts_with("KOBANA_")) {
            return Err(format!("neither a question nor a refusal: {body}"));
        }
        if rig.puts() != puts || rig.writes().len() != writes {
            return Err("a refusal stored or sent something".into());
        }
        return Ok(false);
    }
    let message = result["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let read = read_question(&message)?;
    if read.sentence.contains('«') || read.values.iter().any(|(_, v)| v.contains('«')) {
        return Err(format!("a quote outside its place: {message}"));
    }
    let state = result["requestState"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let done = rig
        .call(
            token,
            DESTRUCTIVE,
            call,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    if done["result"]["resultType"] == "input_required" {
        return Err(format!("a yes asked again: {done}"));
    }
    let sent = rig.writes();
    if sent.len() != writes + 1 {
        return Err(format!("a yes sent {} writes", sent.len() - writes));
    }
    let path_ids = call["path"].as_object().cloned().unwrap_or_default();
    shows_what_was_sent(&read, &path_ids, sent.last().unwrap())?;
    let record = record.ok_or("asked about a record the fake does not have")?;
    record_is_named(&read, &record, &message)?;
    let expected = expected_amounts(&record, call.get("body"));
    for amount in crate::confirm::support::amounts(&read.sentence) {
        if !expected.contains(&amount) {
            return Err(format!("{amount} is none of {expected:?}: {message}"));
        }
    }
    Ok(true)
}

/// The record's texts are where they belong: an invoice number that is a plain reference in
/// the sentence, any other quoted whole or cut; a record's name quoted.
fn record_is_named(read: &Read, record: &Value, message: &str) -> Result<(), String> {
    use crate::confirm::support::{plain_reference, same_quote, shown};
    let quote = |label: &str| {
        read.quotes
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, q)| q.as_str())
    };
    if record.get("total_subcents").is_some() {
        match record["number"].as_str() {
            Some(n) if plain_reference(n) && !read.sentence.contains(&format!(" {n} de ")) => {
                return Err(format!("number {n} not in {message}"));
            }
            Some(n) if plain_reference(n) => {}
            Some(n) => match quote("Número (no cadastro)") {
                Some(q) if same_quote(q, n) => {}
                _ => return Err(format!("number {n:?} not quoted: {message}")),
            },
            None => {}
        }
        return Ok(());
    }
    if let Some(name) = record["name"].as_str().filter(|n| !shown(n).is_empty()) {
        match quote("Nome (no cadastro)") {
            Some(q) if same_quote(q, name) => {}
            _ => return Err(format!("name {name:?} not quoted: {message}")),
        }
    }
    Ok(())
}
