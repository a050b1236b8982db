use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;

/// A request as a map from place key to value; shows strings bare and the record as `#R`.
struct Request(BTreeMap<String, Value>);

impl Values for Request {
    fn raw(&self, place: &Place<'_>) -> Option<Value> {
        match place {
            Place::Record => Some(Value::Null),
            other => self.0.get(&other.key()).filter(|v| !v.is_null()).cloned(),
        }
    }

    fn shown(&self, place: &Place<'_>, value: &Value) -> String {
        match (place, value) {
            (Place::Record, _) => "#R".to_owned(),
            (_, Value::String(s)) => s.clone(),
            (_, other) => other.to_string(),
        }
    }
}

fn request(members: Value) -> Request {
    let map = members.as_object().unwrap();
    Request(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
}

const PAY: &str = "[?body.payment_method:Cobrar a fatura {record}[ de {body.amount_cents}]?]\
                   [!body.payment_method:Dar baixa na fatura {record}?][?body.payment_method=card: O cartão é debitado.]";

#[test]
fn places_conditions_and_groups_parse() {
    let t = Template::parse(PAY).unwrap();
    let keys: Vec<String> = t.places().iter().map(Place::key).collect();
    assert_eq!(
        keys,
        [
            "body.payment_method",
            "record",
            "body.amount_cents",
            "body.payment_method",
            "record",
            "body.payment_method"
        ]
    );
    assert_eq!(t.compared(), [(Place::Body("payment_method"), "card")]);
    assert_eq!(t.shown(), [Place::Record, Place::Body("amount_cents")]);
    assert_eq!(t.unguarded(), [Place::Record, Place::Record]);
}

#[test]
fn groups_render_by_what_the_request_sends() {
    let t = Template::parse(PAY).unwrap();
    assert_eq!(t.render(&request(json!({}))), "Dar baixa na fatura #R?");
    assert_eq!(
        t.render(&request(
            json!({"body.payment_method": "pix", "body.amount_cents": 500})
        )),
        "Cobrar a fatura #R de 500?"
    );
    assert_eq!(
        t.render(&request(json!({"body.payment_method": "card"}))),
        "Cobrar a fatura #R? O cartão é debitado."
    );
}

#[test]
fn booleans_and_numbers_compare_by_their_json_text() {
    let t = Template::parse("[?query.hard=true:Excluir][!query.hard=true:Arquivar]").unwrap();
    assert_eq!(t.render(&request(json!({"query.hard": true}))), "Excluir");
    assert_eq!(t.render(&request(json!({"query.hard": "true"}))), "Excluir");
    assert_eq!(t.render(&request(json!({"query.hard": false}))), "Arquivar");
    assert_eq!(t.render(&request(json!({}))), "Arquivar");
}

#[test]
fn a_missing_unguarded_value_is_said_not_given() {
    let t = Template::parse("Estornar {body.amount_cents}.").unwrap();
    assert_eq!(t.unguarded(), [Place::Body("amount_cents")]);
    assert_eq!(t.render(&request(json!({}))), "Estornar (não informado).");
}

#[test]
fn broken_templates_name_the_place_of_the_error() {
    for (src, at) in [
        ("Cancelar {record", 9),
        ("Cancelar record}", 15),
        ("Cancelar [a fatura", 9),
        ("Cancelar a fatura]", 17),
        ("Cancelar [a fatura]", 9),
        ("Cancelar {body}", 10),
        ("Cancelar {query.a.b}", 10),
        ("Cancelar {header.x}", 10),
        ("Cancelar {body.a..b}", 10),
        ("[?body.x no colon]", 2),
        ("[?record: x]", 2),
        ("[?body.x=a b: x]", 2),
        ("[[[[[{record}]]]]]", 4),
        ("[?body.x:]", 0),
    ] {
        let err = Template::parse(src).unwrap_err();
        assert_eq!(err.at, at, "{src}: {err}");
    }
}

#[test]
fn the_record_is_the_longest_readable_prefix_ending_in_a_parameter() {
    let readable = ["/v1/invoices/{id}", "/v1/customers/{id}/users/{user_id}"];
    let has_get = |p: &str| readable.contains(&p);
    assert_eq!(
        record_path(
            "/v1/invoices/{id}/installments/{installmentId}/pay",
            has_get
        ),
        Some("/v1/invoices/{id}")
    );
    assert_eq!(
        record_path("/v1/customers/{id}/users/{user_id}", has_get),
        Some("/v1/customers/{id}/users/{user_id}")
    );
    assert_eq!(record_path("/v1/credits", has_get), None);
    assert_eq!(record_path("/v1/plans/{id}", has_get), None);
}
