//! The rows checked on their own (the contract test in `tests/it/operations/rows.rs` checks
//! them against the operations and schemas of Kobana's document).

use std::collections::BTreeSet;

use super::search::rank;
use super::units::SCHEMA_UNITS;
use super::{Class, Row, Unit, all, find};

/// The class an operation's verb suggests: GET reads, DELETE destroys, the rest writes.
fn class_by_verb(row: &Row) -> &'static str {
    match row.operation.split('-').next() {
        Some("get") => "read",
        Some("delete") => "destructive",
        _ => "write",
    }
}

fn class_name(class: &Class) -> &'static str {
    match class {
        Class::Read => "read",
        Class::Write => "write",
        Class::Destructive { .. } => "destructive",
    }
}

/// Common Portuguese words; a pt-BR text of a sentence or more has at least one.
const PT_MARKERS: &[&str] = &[
    " de ", " da ", " do ", " não ", " que ", " e ", " o ", " a ", " os ", " as ", " é ", " ao ",
];

/// English words that give away a text not written in pt-BR.
const EN_MARKERS: &[&str] = &[
    " the ", " is ", " will ", " and ", " not ", " this ", " of ",
];

fn reads_as_pt_br(text: &str) -> bool {
    let padded = format!(" {} ", text.to_lowercase());
    PT_MARKERS.iter().any(|w| padded.contains(w)) && !EN_MARKERS.iter().any(|w| padded.contains(w))
}

#[test]
fn wa1_operation_ids_are_unique_and_spell_a_method() {
    let mut seen = BTreeSet::new();
    for row in all() {
        assert!(seen.insert(row.operation), "{} has two rows", row.operation);
        let verb = row.operation.split('-').next().unwrap_or_default();
        assert!(
            ["get", "post", "put", "patch", "delete"].contains(&verb),
            "{}: an operationId starts with its method",
            row.operation
        );
        assert_eq!(
            find(row.operation).map(|r| r.operation),
            Some(row.operation)
        );
    }
    assert_eq!(seen.len(), 260, "one row per operation of the document");
}

#[test]
fn wa1_titles_and_words_are_there_and_titles_tell_rows_apart() {
    let mut titles = BTreeSet::new();
    for row in all() {
        let first = row.title.chars().next().unwrap_or(' ');
        assert!(
            first.is_uppercase(),
            "{}: title starts with a capital",
            row.operation
        );
        assert!(
            !row.title.ends_with('.'),
            "{}: a title is no sentence",
            row.operation
        );
        assert!(
            titles.insert(row.title),
            "{}: title {:?} repeats",
            row.operation,
            row.title
        );
        let words = row.words.split_whitespace().count();
        assert!(
            words >= 4,
            "{}: search words are few ({words})",
            row.operation
        );
        assert_eq!(row.words, row.words.trim(), "{}", row.operation);
    }
}

#[test]
fn wa1_every_destructive_row_has_a_sentence_that_parses_and_no_other_row_has_one() {
    for row in all() {
        match (&row.class, row.template()) {
            (Class::Destructive { asks }, Some(Ok(template))) => {
                assert!(asks.contains('?'), "{}: the sentence asks", row.operation);
                assert!(
                    asks.ends_with('.') || asks.ends_with(']'),
                    "{}: the sentence ends with its consequence",
                    row.operation
                );
                assert!(
                    reads_as_pt_br(asks),
                    "{}: the sentence is pt-BR",
                    row.operation
                );
                assert!(
                    !template.places().is_empty(),
                    "{}: names what runs",
                    row.operation
                );
            }
            (Class::Destructive { .. }, Some(Err(err))) => {
                panic!("{}: the sentence does not parse: {err}", row.operation)
            }
            (_, None) => assert!(row.asks().is_none()),
            (class, Some(_)) => panic!("{}: a {class:?} row has a sentence", row.operation),
        }
    }
}

#[test]
fn wa1_excluded_rows_say_why_in_pt_br() {
    let mut excluded = 0;
    for row in all() {
        let Some(why) = row.excluded else { continue };
        excluded += 1;
        let first = why.chars().next().unwrap_or(' ');
        assert!(
            first.is_uppercase() && why.ends_with('.'),
            "{}: {why}",
            row.operation
        );
        assert!(
            reads_as_pt_br(why),
            "{}: the refusal is pt-BR: {why}",
            row.operation
        );
        assert!(
            why.contains("assistente"),
            "{}: says it never goes through the assistant",
            row.operation
        );
    }
    for must in [
        "post-payments",
        "post-certificates",
        "get-nfes-id-requests-requestid",
        "post-dashboard-users",
        "patch-team-roles-id",
    ] {
        assert!(
            find(must).and_then(|r| r.excluded).is_some(),
            "{must} must be excluded"
        );
    }
    assert!(excluded >= 5);
}

#[test]
fn wa1_a_class_other_than_the_verbs_says_why() {
    for row in all() {
        if class_name(&row.class) != class_by_verb(row) {
            assert!(
                !row.why.is_empty(),
                "{}: {} by its verb, {} by its row: say why",
                row.operation,
                class_by_verb(row),
                class_name(&row.class)
            );
        }
    }
    // The look-ups, the restoring DELETE and the charging POST are what the verb hides.
    assert_eq!(
        find("post-nfes-fetch-from-sefaz").map(|r| r.class),
        Some(Class::Read)
    );
    assert_eq!(
        find("delete-product-groups-id-archive").map(|r| r.class),
        Some(Class::Write)
    );
    assert!(matches!(
        find("post-invoices-id-pay").map(|r| r.class),
        Some(Class::Destructive { .. })
    ));
}

#[test]
fn wa1_unit_places_are_well_formed_and_the_schema_table_is_sorted() {
    for row in all() {
        let mut seen = BTreeSet::new();
        for (place, _) in row.units {
            let (kind, rest) = place.split_once('.').unwrap_or_default();
            assert!(
                ["query", "path", "body", "answer"].contains(&kind) && !rest.is_empty(),
                "{}: unit place {place}",
                row.operation
            );
            assert!(seen.insert(*place), "{}: {place} twice", row.operation);
        }
    }
    let keys: Vec<&str> = SCHEMA_UNITS.iter().map(|(k, _)| *k).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(keys, sorted, "SCHEMA_UNITS is sorted, each key once");
    for (key, unit) in SCHEMA_UNITS {
        assert!(
            key.split_once('.')
                .is_some_and(|(s, f)| !s.is_empty() && !f.is_empty()),
            "{key}"
        );
        if let Unit::Uncertain(note) = unit {
            assert!(
                reads_as_pt_br(note) && note.ends_with('.'),
                "{key}: the note is pt-BR"
            );
        }
    }
}

/// What a finance person asks, and the row that must come among the first `within`.
#[rustfmt::skip]
const ASKED: &[(&str, &str, usize)] = &[
    ("prorrogar vencimento",                           "patch-invoices-id", 3),
    ("prorrogar vencimento",                           "post-payments-id-change-due-date", 3),
    ("prorroga o vencimento da fatura para o dia 20",  "patch-invoices-id", 2),
    ("extrato",                                        "get-customers-id-statement", 1),
    ("o extrato do cliente",                           "get-customers-id-statement", 1),
    ("dá baixa manual, o cliente pagou por fora",      "post-invoices-id-pay", 1),
    ("desfaz a baixa, lancei errado",                  "post-invoices-id-undo-payment", 1),
    ("aplica o crédito na fatura",                     "post-invoices-id-apply-credits", 1),
    ("dá R$ 50 de crédito pro cliente",                "post-credits", 1),
    ("parcela em 6x",                                  "post-invoices-id-installments", 1),
    ("reenvia o boleto para o financeiro deles",       "post-payments-id-send-email", 1),
    ("tenta o cartão de novo",                         "post-payments-id-retry", 1),
    ("cria um cupom de 10% de desconto",               "post-coupons", 1),
    ("quais cupons estão ativos",                      "get-coupons", 2),
    ("quanto o cliente já consumiu este mês",          "get-usage-summary", 2),
    ("registrar o consumo medido",                     "post-usage", 1),
    ("fazer upgrade do plano com proração",            "post-plan-changes", 2),
    ("suspender a conta do cliente inadimplente",      "post-billing-accounts-id-suspend", 1),
    ("reativar a conta suspensa",                      "post-billing-accounts-id-reactivate", 1),
    ("retenções de impostos do cliente",               "get-withholdings", 1),
    ("converter a retenção em crédito",                "post-withholdings-id-convert-to-credit", 2),
    ("apuração de impostos do mês, o DAS",             "get-tax-periods", 1),
    ("estornar o pagamento",                           "post-payments-id-refund", 1),
    ("cancelar a nota fiscal",                         "post-nfes-id-cancel", 2),
    ("emitir a nota fiscal da fatura",                 "post-invoices-id-issue-nfe", 1),
    ("faturas vencidas",                               "get-invoices-pending-payment", 1),
    ("segunda via da fatura",                          "get-invoices-id-pdf", 2),
    ("cancelar a assinatura",                          "post-subscriptions-id-cancel", 1),
    ("pausar a assinatura",                            "post-subscriptions-id-pause", 1),
    ("anular a fatura",                                "post-invoices-id-void", 1),
    ("cobrar no pix",                                  "post-invoices-id-pay", 2),
    ("saldo de crédito do cliente",                    "get-billing-accounts-id-credits", 2),
    ("notas pendentes de emissão",                     "get-invoices-pending-nfe", 2),
    ("trocar o e-mail de cobrança do cliente",         "patch-billing-accounts-id", 1),
];

#[test]
fn wa1_search_finds_the_row_a_finance_person_means() {
    let mut missed = Vec::new();
    for (query, operation, within) in ASKED {
        let found: Vec<&str> = rank(query, all(), *within)
            .iter()
            .map(|r| r.operation)
            .collect();
        if !found.contains(operation) {
            let top: Vec<&str> = rank(query, all(), 5).iter().map(|r| r.operation).collect();
            missed.push(format!(
                "{query:?} → {operation} not in first {within}: {top:?}"
            ));
        }
    }
    assert!(missed.is_empty(), "search misses:\n{}", missed.join("\n"));
    assert!(ASKED.len() >= 20);
}
