//! Unit tests of the contract check.

use super::*;
use serde_json::json;

const UA: &str = "Kobana MCP Tests/0.1 <ops@example.com.br>";

fn req<'a>(method: &'a str, path: &'a str, query: Option<&'a str>, body: &'a [u8]) -> Request<'a> {
    Request {
        method,
        path,
        query,
        user_agent: Some(UA),
        idempotency_key: None,
        idempotency_key_alt: None,
        content_type: Some("application/json"),
        body,
    }
}

#[test]
fn every_ref_resolves_and_every_format_is_known() {
    fn walk(c: &Contract, at: &str, f: &Field, bad: &mut Vec<String>) {
        if let Some(r) = &f.schema
            && c.schema(r).is_none()
        {
            bad.push(format!("{at}: ref {r}"));
        }
        if let Some(fmt) = &f.format
            && !FORMATS.contains(&fmt.as_str())
        {
            bad.push(format!("{at}: format {fmt}"));
        }
        if let Some(pattern) = &f.pattern
            && regex_lite::Regex::new(pattern).is_err()
        {
            bad.push(format!("{at}: pattern {pattern}"));
        }
        for r in &f.required {
            if f.fields.as_ref().is_some_and(|fs| !fs.contains_key(r)) {
                bad.push(format!("{at}: required {r} not among fields"));
            }
        }
        for (n, sub) in f.fields.iter().flatten() {
            walk(c, &format!("{at}.{n}"), sub, bad);
        }
        for item in f.items.iter().map(|b| &**b).chain(f.additional_field()) {
            walk(c, &format!("{at}[]"), item, bad);
        }
        for (n, part) in f
            .all_of
            .iter()
            .chain(&f.any_of)
            .chain(&f.one_of)
            .enumerate()
        {
            walk(c, &format!("{at}|{n}"), part, bad);
        }
    }
    let c = contract();
    let mut bad = Vec::new();
    for (name, f) in &c.schemas {
        walk(c, name, f, &mut bad);
    }
    for op in &c.operations {
        for (n, f) in op.query.iter().chain(&op.path_params) {
            walk(c, &format!("{}.{n}", op.id), f, &mut bad);
        }
        for n in &op.required_query {
            if !op.query.contains_key(n) {
                bad.push(format!("{}: required query {n} not declared", op.id));
            }
        }
        let names = op.body.iter().filter_map(|b| b.schema.as_ref());
        for name in names.chain(&op.success.schema) {
            if c.schema(name).is_none() {
                bad.push(format!("{}: schema {name}", op.id));
            }
        }
        let inline = op.body.iter().filter_map(|b| b.field.as_ref());
        for f in inline.chain(&op.success.field) {
            walk(c, &op.id, f, &mut bad);
        }
        let answers = [op.success.is_json(), op.success.binary.is_some()];
        if answers.iter().filter(|a| **a).count() != 1 {
            bad.push(format!("{}: success is neither JSON nor binary", op.id));
        }
        let declared: Vec<&str> = op
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        let mut sorted = declared.clone();
        sorted.sort();
        let params: Vec<&str> = op.path_params.keys().map(String::as_str).collect();
        if sorted != params {
            bad.push(format!("{}: path params {declared:?} vs {params:?}", op.id));
        }
        if c.operations
            .iter()
            .filter(|o| o.operation_id == op.operation_id)
            .count()
            != 1
            || (op.id != op.operation_id && c.operation(&op.id).is_none())
        {
            bad.push(format!(
                "{}: operation_id {} not unique",
                op.id, op.operation_id
            ));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    assert_eq!(c.operations.len(), 260);
}

#[test]
fn literal_segments_win_over_parameters() {
    let c = contract();
    let (op, params) = c.find("GET", "/v1/invoices/pending-payment").unwrap();
    assert_eq!(op.id, "invoices.pending_payment");
    assert!(params.is_empty());
    let (op, params) = c.find("get", "/v1/invoices/abc").unwrap();
    assert_eq!(op.id, "invoices.get");
    assert_eq!(params, vec![("id", "abc")]);
    assert_eq!(
        c.find("GET", "/v1/plans/x/items").unwrap().0.id,
        "plans.items"
    );
    assert!(c.find("GET", "/v1/invoices/").is_none());
    assert!(c.find("PUT", "/v1/invoices/abc").is_none());
}

#[test]
fn request_checks_name_the_place() {
    let id = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
    let cases: Vec<(Request<'_>, &str)> = vec![
        (req("GET", "/v1/foo", None, b""), "unknown operation GET /v1/foo"),
        (req("GET", "/v1/invoices/x", None, b""), "path.id: \"x\" is not a uuid"),
        (req("GET", "/v1/invoices", Some("include=line_items"), b""), "query.include: unknown parameter"),
        (req("GET", "/v1/invoices", Some("page=abc"), b""), "query.page: \"abc\" is not an integer"),
        (req("GET", "/v1/invoices", Some("per_page=101"), b""), "query.per_page: 101 is more than the maximum 100"),
        (req("GET", "/v1/invoices", Some("page=0"), b""), "query.page: 0 is less than the minimum 1"),
        (req("GET", "/v1/invoices", Some("status=overdue"), b""), "query.status: \"overdue\" is not one of draft, open, paid, void, uncollectible"),
        (req("GET", "/v1/invoices", Some("status=open&status=paid"), b""), "query.status: repeated parameter"),
        (req("GET", "/v1/payments", Some("created_after=2026-13-01"), b""), "query.created_after: \"2026-13-01\" is not a date (YYYY-MM-DD)"),
        (req("GET", "/v1/payments", Some("amount_min=abc"), b""), "query.amount_min: \"abc\" is not a number"),
        (req("GET", "/v1/payments", Some("invoice_id=1"), b""), "query.invoice_id: \"1\" is not a uuid"),
        (req("POST", "/v1/subscriptions/43b7a3a6-9a8d-4a03-980d-7b71d8f56413/resume", None, b"{}"), "body: the operation takes no body"),
        (req("POST", "/v1/customers", None, b""), "body: missing, expected a JSON object (CustomerCreateRequest)"),
        (req("POST", "/v1/customers", None, b"[1]"), "body: expected a JSON object (CustomerCreateRequest), got array"),
        (req("POST", "/v1/customers", None, b"{x"), "body: not valid JSON"),
        (req("POST", "/v1/customers", None, br#"{"name":"A","x":1}"#), "body.x: unknown field"),
        (req("POST", "/v1/customers", None, br#"{}"#), "body.name: required field missing"),
        (req("POST", "/v1/customers", None, br#"{"name":1}"#), "body.name: expected string, got integer 1"),
        (req("POST", "/v1/customers", None, br#"{"name":null}"#), "body.name: null is not allowed"),
        (req("POST", "/v1/customers", None, br#"{"name":"A","kind":"company"}"#), "body.kind: \"company\" is not one of natural, juridical"),
        (req("POST", "/v1/customers", None, br#"{"name":"A","phones":[{"kind":"x"}]}"#), "body.phones[0].value: required field missing"),
        (req("POST", "/v1/invoices", None, br#"{"billing_account_id":"6c307511-b2b9-437a-a8df-6ec4ce4a2bbd","line_items":[]}"#), "body.line_items: 0 items, at least 1 required"),
        (req("POST", "/v1/invoices", None, br#"{"billing_account_id":"6c307511-b2b9-437a-a8df-6ec4ce4a2bbd","line_items":[{"description":"","unit_amount_subcents":1}]}"#), "body.line_items[0].description: \"\" is shorter than 1 characters"),
        (req("POST", "/v1/invoices", None, br#"{"billing_account_id":"6c307511-b2b9-437a-a8df-6ec4ce4a2bbd","line_items":[{"description":"a","unit_amount_subcents":1,"type":"x"}]}"#), "body.line_items[0].type: unknown field"),
    ];
    for (r, want) in cases {
        let v = check_request(&r);
        assert_eq!(
            v.violations.first().map(String::as_str),
            Some(want),
            "{r:?}: {:?}",
            v.violations
        );
    }
    let ok = check_request(&req("GET", &format!("/v1/invoices/{id}"), None, b""));
    assert_eq!(ok.operation.unwrap().id, "invoices.get");
    assert!(ok.violations.is_empty(), "{:?}", ok.violations);
    let mut no_contact = req("GET", "/v1/organization", None, b"");
    no_contact.user_agent = Some("curl/8.0");
    assert_eq!(
        check_request(&no_contact).violations,
        vec!["header.User-Agent: \"curl/8.0\" carries no contact e-mail"]
    );
}

#[test]
fn answers_are_checked_against_the_success_schema() {
    let op = contract().operation("payments.get").unwrap();
    let body = json!({"data": {"id": "x", "status": "paid", "refunded_at": null}}).to_string();
    let found = check_answer(
        op,
        &Answer {
            status: 200,
            content_type: Some("application/json"),
            body: Some(body.as_bytes()),
        },
    );
    for want in [
        "answer.data.id: \"x\" is not a uuid",
        "answer.data.status: \"paid\" is not one of pending, processing, succeeded, failed, canceled, partial, refunded, partially_refunded",
        "answer.data.refunded_at: unknown field",
        "answer.data.amount_cents: required field missing",
    ] {
        assert!(found.iter().any(|f| f == want), "{want} not in {found:#?}");
    }
    let pdf = contract().operation("invoices.pdf").unwrap();
    let wrong = Answer {
        status: 201,
        content_type: Some("application/json"),
        body: None,
    };
    assert_eq!(check_answer(pdf, &wrong).len(), 2);
}

#[test]
fn decoding_and_contacts() {
    assert_eq!(percent_decode("a%20b+c%"), "a b c%");
    assert_eq!(percent_decode_path("crm+1%2F2"), "crm+1/2");
    assert_eq!(percent_decode("%C3%A9%zz"), "é%zz");
    assert_eq!(
        query_pairs("a=1&&b&c=x%3Dy"),
        vec![
            ("a".into(), "1".into()),
            ("b".into(), "".into()),
            ("c".into(), "x=y".into())
        ]
    );
    assert!(has_contact_email(
        "Kobana MCP Server/0.1.0 <ops@example.com>"
    ));
    assert!(has_contact_email("bot (mailto:ops@acme.com.br)"));
    assert!(!has_contact_email(
        "Kobana MCP Server/0.1.0 <ops@localhost>"
    ));
    assert!(!has_contact_email("curl/8"));
    assert_eq!(
        violation_message(&["a".into(), "b".into()]),
        "Requisição fora do contrato da API de cobrança: a (e mais 1 desvio(s))."
    );
}

/// `shared/data/contract.txt` (what the server binary embeds for `kobana-mcp check` and the
/// drift check) is exactly the subset derived from the contract. After changing the contract:
/// `KOBANA_UPDATE_SNAPSHOTS=1 cargo test --workspace --features kobana-mcp/demo --lib runtime_subset`.
#[test]
fn the_runtime_subset_is_derived_from_the_contract() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/contract.txt");
    let derived = subset::runtime_subset(contract());
    if std::env::var_os("KOBANA_UPDATE_SNAPSHOTS").is_some() && std::env::var_os("CI").is_none() {
        std::fs::write(path, &derived).expect("write shared/data/contract.txt");
    }
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        stored == derived,
        "shared/data/contract.txt is not the subset of tests/contract/billing-v1.json; run \
         KOBANA_UPDATE_SNAPSHOTS=1 cargo test --workspace --features kobana-mcp/demo --lib runtime_subset"
    );
    // Enum values are words: the line format splits on spaces and `|`.
    for op in &contract().operations {
        assert!(derived.contains(&format!("> {} ", op.id)), "{}", op.id);
    }
    // A schema line is its members, or one code for the whole value.
    for line in derived.lines().skip(1).filter(|l| !l.starts_with('>')) {
        let words: Vec<&str> = line.split(' ').skip(1).collect();
        let whole = words.len() == 1 && !words[0].contains(':');
        for member in words.iter().filter(|_| !whole) {
            assert!(member.contains(':'), "{line}: {member}");
        }
    }
}

#[test]
fn both_idempotency_header_names_are_accepted_when_they_agree() {
    let key = "8c0f5d6e-3f8b-4cb5-9a47-d8f5b15e9b21";
    let other = "1f2e3d4c-5b6a-4980-9234-56789abcdef0";
    let send = |x: Option<&str>, alt: Option<&str>| {
        let mut r = req(
            "POST",
            "/v1/invoices/47378190-96da-4dac-b2ff-5d2a386ecbe0/finalize",
            None,
            b"",
        );
        r.idempotency_key = x;
        r.idempotency_key_alt = alt;
        check_request(&r).violations
    };
    assert_eq!(send(Some(key), Some(key)), Vec::<String>::new());
    assert_eq!(send(None, Some(key)), Vec::<String>::new());
    assert_eq!(
        send(Some(key), Some(other)),
        vec!["header.Idempotency-Key: differs from X-Idempotency-Key".to_string()]
    );
    assert_eq!(send(None, Some("k")).len(), 1);
}

/// `shared/data/operations.txt` (what the server's generic tools read: every operation's
/// facts and the schemas they name) is exactly what the contract derives. After changing the
/// contract: `KOBANA_UPDATE_SNAPSHOTS=1 cargo test -p kobana-mcp-tests --lib operation_facts`.
#[test]
fn wa2_the_operation_facts_are_derived_from_the_contract() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/operations.txt");
    let derived = super::operations::operation_facts(contract());
    if std::env::var_os("KOBANA_UPDATE_SNAPSHOTS").is_some() && std::env::var_os("CI").is_none() {
        std::fs::write(path, &derived).expect("write shared/data/operations.txt");
    }
    let stored = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        stored == derived,
        "shared/data/operations.txt is not derived from tests/contract/billing-v1.json; run \
         KOBANA_UPDATE_SNAPSHOTS=1 cargo test -p kobana-mcp-tests --lib operation_facts"
    );
    for op in &contract().operations {
        let id = super::operations::operation_id(op);
        assert!(derived.contains(&format!("> {id} {} ", op.method)), "{id}");
    }
    assert_eq!(
        super::operations::encode("a b|c,d%é"),
        "a%20b%7Cc%2Cd%25%C3%A9"
    );
}
