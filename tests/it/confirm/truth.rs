//! What the person confirms is exactly what runs (CQ-1): the corpus and the property.
//!
//! An adversarial corpus (`tests/fixtures/hostile-confirmations.json`) and a property test run
//! every destructive tool with hostile arguments and hostile records. Each case ends in one
//! of two ways: an argument error before anything is stored or sent, or a question whose facts
//! — action, object, amount, timing — equal those of the request the fake Kobana actually
//! received after a yes. The facts are read from the question by `crate::confirm::support`'s own
//! parser and compared with the fake's recorded call and stored records, never with the
//! server's code. The rest of the issue is in `refusals.rs`.

use crate::common;
use fake_kobana::fixtures::ids::PADARIA;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::confirm::support::*;
use fake_kobana::full_token;
use serde_json::{Value, json};

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
    let text = include_str!("../../fixtures/hostile-confirmations.json");
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
    assert_eq!(tools.len(), 12, "the corpus covers every destructive tool");
    let mut failures = Vec::new();
    let mut examples = Vec::new();
    for case in &cases {
        prepare(rig, case).await;
        match check_case(rig, &case.tool, &case.args).await {
            Ok((outcome, text)) => {
                let expected = match case.outcome.as_str() {
                    "asked" => Outcome::Asked,
                    "impossible" => Outcome::Impossible,
                    _ => Outcome::Refused,
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
    let store = common::dynamo::dynamo_store().await;
    let rig = rig_over(store, Duration::from_secs(10)).await;
    run_corpus(&rig).await;
}

// ---------------------------------------------------------------------------------------
// The property test.

mod generated {
    use fake_kobana::fixtures::ids::{
        CREDIT_USED, CREDIT_WELCOME, INV_DRAFT, INV_OPEN, INV_OVERDUE, INV_PAID_NFE_ERROR,
        NFE_ERROR, NFE_ISSUED, PADARIA, PAY_CARD, PAY_PIX, RAFAEL, SUB_ACTIVE, SUB_PAST_DUE,
    };
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
            id(&[PADARIA, "crm-000101", RAFAEL])
                .prop_map(|id| ("billing_customers_delete".to_owned(), json!({"id": id}))),
            (id(&[SUB_ACTIVE, SUB_PAST_DUE]), flag(), reason()).prop_map(|(id, at_end, reason)| (
                "billing_subscriptions_cancel".to_owned(),
                object(vec![
                    ("id", Some(id)),
                    ("cancel_at_period_end", at_end),
                    ("reason", reason)
                ])
            )),
            (id(&[INV_OPEN, INV_OVERDUE]), reason()).prop_map(|(id, reason)| (
                "billing_invoices_void".to_owned(),
                object(vec![("id", Some(id)), ("reason", reason)])
            )),
            id(&[INV_DRAFT])
                .prop_map(|id| ("billing_invoices_delete".to_owned(), json!({"id": id}))),
            (id(&[PAY_CARD, PAY_PIX]), amount(), reason()).prop_map(|(id, amount, reason)| (
                "billing_payments_refund".to_owned(),
                object(vec![
                    ("id", Some(id)),
                    ("amount_cents", amount),
                    ("reason", reason)
                ])
            )),
            (id(&[NFE_ISSUED]), reason()).prop_map(|(id, reason)| (
                "billing_nfes_cancel".to_owned(),
                object(vec![("id", Some(id)), ("reason", reason)])
            )),
            settlement(),
        ]
    }

    /// The destructive tools past CF-1's six: finalizing, issuing NF-e, recording a payment,
    /// undoing it, applying credits (WA-4).
    fn settlement() -> BoxedStrategy<(String, Value)> {
        let invoices = &[INV_OPEN, INV_OVERDUE, INV_DRAFT, INV_PAID_NFE_ERROR];
        let credits = prop_oneof![
            3 => Just(json!([CREDIT_WELCOME])),
            1 => Just(json!([CREDIT_USED])),
            1 => Just(json!([])),
            1 => Just(json!(CREDIT_WELCOME)),
        ];
        prop_oneof![
            id(invoices)
                .prop_map(|id| ("billing_invoices_finalize".to_owned(), json!({"id": id})))
                .boxed(),
            id(invoices)
                .prop_map(|id| ("billing_invoices_issue_nfe".to_owned(), json!({"id": id})))
                .boxed(),
            id(&[NFE_ERROR, NFE_ISSUED])
                .prop_map(|id| ("billing_nfes_issue".to_owned(), json!({"id": id})))
                .boxed(),
            (id(invoices), amount())
                .prop_map(|(id, amount)| (
                    "billing_invoices_mark_paid".to_owned(),
                    object(vec![("id", Some(id)), ("amount_cents", amount)])
                ))
                .boxed(),
            (id(invoices), reason())
                .prop_map(|(id, reason)| (
                    "billing_invoices_undo_payment".to_owned(),
                    object(vec![("id", Some(id)), ("reason", reason)])
                ))
                .boxed(),
            (id(invoices), credits, amount())
                .prop_map(|(id, credits, amount)| (
                    "billing_invoices_apply_credits".to_owned(),
                    object(vec![
                        ("id", Some(id)),
                        ("credit_ids", Some(credits)),
                        ("amount_cents", amount)
                    ])
                ))
                .boxed(),
        ]
        .boxed()
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
                        json!({"id": PADARIA, "name": name}),
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
                Ok((Outcome::Refused | Outcome::Impossible, _)) => Ok(()),
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
