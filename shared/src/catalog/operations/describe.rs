//! What `billing_operations_search` answers: the rows a query finds among those the caller
//! may run, or one operation's arguments as a compact schema (`*` marks what is required),
//! with the unit of every money field and whether it asks first.

use serde_json::{Map, Value, json};

use super::facts::{Answer, Code, Extra, Facts, Kind, Operation, Paging};
use super::money::{unit_label, unit_of};
use super::row::{Class, Row};
use super::tools::tool_for;
use crate::access::Level;

/// Deepest nesting of schemas a description spells out.
const MAX_DEPTH: usize = 4;

/// The name of a class on the wire.
pub fn effect_name(class: Class) -> &'static str {
    match class {
        Class::Read => "read",
        Class::Write => "write",
        Class::Destructive { .. } => "destructive",
    }
}

/// The level of permission a class needs.
pub fn level_of(class: Class) -> Level {
    match class {
        Class::Read => Level::Read,
        _ => Level::Write,
    }
}

/// One search hit: operation, method and path, title, effect and the tool that runs it.
pub fn hit(row: &Row, op: &Operation) -> Value {
    json!({
        "operation": row.operation,
        "method": op.method,
        "path": op.path,
        "title": row.title,
        "effect": effect_name(row.class),
        "tool": tool_for(row.class),
    })
}

/// One operation described: its hit, whether it asks first, its arguments and its answer.
pub fn operation(facts: &Facts, row: &Row, op: &Operation) -> Value {
    let mut out = hit(row, op);
    if let Some(why) = row.excluded {
        out["excluded"] = json!(why);
        return out;
    }
    let describer = Describer { facts, row };
    let params = |params: &[super::facts::Param], at: &str| -> Value {
        let map: Map<String, Value> = params
            .iter()
            .map(|p| {
                let place = format!("{at}.{}", p.name);
                (
                    key(&p.name, p.required),
                    describer.code(&p.code, &place, None, 0),
                )
            })
            .collect();
        Value::Object(map)
    };
    let mut arguments = json!({});
    if !op.path_params.is_empty() {
        arguments["path"] = params(&op.path_params, "path");
    }
    if !op.query.is_empty() {
        arguments["query"] = params(&op.query, "query");
    }
    if let Some(body) = &op.body {
        arguments["body"] = describer.named(&body.schema, "body", 0);
    }
    out["asks_first"] = json!(matches!(row.class, Class::Destructive { .. }));
    out["arguments"] = arguments;
    out["answer"] = json!(answer_text(facts, op));
    out["legend"] = json!("* = obrigatório");
    out
}

fn key(name: &str, required: bool) -> String {
    if required {
        format!("{name}*")
    } else {
        name.to_owned()
    }
}

fn answer_text(facts: &Facts, op: &Operation) -> String {
    match &op.answer {
        Answer::Binary(media) => format!(
            "documento {media}: a resposta dá o kobana:// do recurso para ler, nunca os bytes"
        ),
        Answer::None => "nada descrito".to_owned(),
        Answer::Json(schema) => {
            let list = facts.schema(schema).is_some_and(|s| {
                let data = s.members.iter().find(|m| m.name == "data").map(|m| &m.code);
                data.or(s.whole.as_ref())
                    .is_some_and(|code| code.kind == Kind::Array)
            });
            match (list, op.paging) {
                (false, _) => "um registro em data".to_owned(),
                (true, Paging::Page) => {
                    "lista em data, paginada por query.page e query.per_page".to_owned()
                }
                (true, Paging::Offset) => {
                    "lista em data, paginada por query.limit e query.offset".to_owned()
                }
                (true, Paging::None) => "lista em data, sem paginação".to_owned(),
            }
        }
    }
}

struct Describer<'a> {
    facts: &'a Facts,
    row: &'a Row,
}

impl Describer<'_> {
    fn named(&self, name: &str, place: &str, depth: usize) -> Value {
        let Some(schema) = self.facts.schema(name) else {
            return json!("objeto");
        };
        if let Some(whole) = &schema.whole {
            return self.code(whole, place, None, depth);
        }
        if depth >= MAX_DEPTH {
            return json!("objeto");
        }
        let mut map = Map::new();
        for member in &schema.members {
            let inner = format!("{place}.{}", member.name);
            map.insert(
                key(&member.name, member.required),
                self.code(&member.code, &inner, Some((name, &member.name)), depth + 1),
            );
        }
        match &schema.extra {
            Extra::Closed => {}
            Extra::Any => {
                map.insert("…".to_owned(), json!("outros campos livres"));
            }
            Extra::Typed(code) => {
                let text = self.code(code, place, None, depth + 1);
                map.insert("…".to_owned(), text);
            }
        }
        Value::Object(map)
    }

    fn code(
        &self,
        code: &Code,
        place: &str,
        schema_member: Option<(&str, &str)>,
        depth: usize,
    ) -> Value {
        match &code.kind {
            Kind::Ref(name) => return self.named(name, place, depth),
            Kind::OneOf(alternatives) => {
                let options: Vec<Value> = alternatives
                    .iter()
                    .map(|a| self.code(a, place, None, depth + 1))
                    .collect();
                return json!({ "um de": options });
            }
            Kind::Array if depth < MAX_DEPTH => {
                if let Some(item) = &code.item {
                    return json!([self.code(item, place, None, depth + 1)]);
                }
            }
            _ => {}
        }
        let mut parts = vec![scalar(code)];
        if code.nullable {
            parts.push("ou null".to_owned());
        }
        if let Some(unit) = unit_of(self.row, &place.replace("[]", ""), schema_member) {
            parts.push(unit_label(unit));
        }
        json!(parts.join(", "))
    }
}

/// A scalar's type and constraints in a few pt-BR words.
fn scalar(code: &Code) -> String {
    let mut text = match &code.kind {
        Kind::String => "texto",
        Kind::Integer => "inteiro",
        Kind::Number => "número",
        Kind::Boolean => "true/false",
        Kind::Object => "objeto livre",
        Kind::Array => "lista",
        _ => "qualquer valor",
    }
    .to_owned();
    if let Some(format) = &code.format {
        text = match format.as_str() {
            "uuid" => "uuid".to_owned(),
            "date" => "data AAAA-MM-DD".to_owned(),
            "date-time" => "data e hora ISO 8601".to_owned(),
            "email" => "e-mail".to_owned(),
            other => format!("texto {other}"),
        };
    }
    if let Some(values) = &code.allowed {
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        text = format!("um de: {}", values.join("|"));
    }
    let fmt = |x: f64| {
        if x.fract() == 0.0 {
            format!("{}", x as i64)
        } else {
            x.to_string()
        }
    };
    for (bound, sign) in [
        (code.minimum, "≥"),
        (code.maximum, "≤"),
        (code.exclusive_minimum, ">"),
        (code.exclusive_maximum, "<"),
    ] {
        if let Some(x) = bound {
            text.push_str(&format!(" {sign}{}", fmt(x)));
        }
    }
    match code.length {
        (Some(a), Some(b)) => text.push_str(&format!(" ({a}-{b} caracteres)")),
        (None, Some(b)) => text.push_str(&format!(" (até {b} caracteres)")),
        (Some(a), None) => text.push_str(&format!(" (ao menos {a} caracteres)")),
        (None, None) => {}
    }
    if let Some(pattern) = &code.pattern {
        text.push_str(&format!(" (forma {pattern})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::operations::row::Unit;

    const FACTS: &str = "\
> post-credits POST /v1/credits 201 @CreditResponse - json@CreditCreateRequest ~query.dry:s;e=true,false
CreditCreateRequest billing_account_id:s;f=uuid amount_cents:i;min=1 ~reason:s;len=..500 ~items:a[@CreditCreateRequest.items]
CreditCreateRequest.items value:n
CreditResponse data:@CreditV1
CreditV1 id:s
";

    #[test]
    fn wa2_an_operation_is_described_with_units_and_whether_it_asks() {
        let facts = Facts::parse(FACTS);
        let op = facts.operation("post-credits").unwrap();
        let row = Row {
            operation: "post-credits",
            title: "Dar crédito",
            words: "crédito",
            class: Class::Destructive {
                asks: "Dar {body.amount_cents} de crédito",
            },
            units: &[
                ("body.amount_cents", Unit::Cents),
                ("body.items.value", Unit::Uncertain("reais ou centavos")),
            ],
            excluded: None,
            why: "",
        };
        let described = operation(&facts, &row, op);
        assert_eq!(described["asks_first"], true);
        assert_eq!(described["tool"], "billing_operations_write_destructive");
        let body = &described["arguments"]["body"];
        assert_eq!(body["billing_account_id*"], "uuid");
        assert_eq!(body["amount_cents*"], "inteiro ≥1, centavos (÷100)");
        assert_eq!(body["reason"], "texto (até 500 caracteres)");
        assert_eq!(
            body["items"][0]["value*"],
            "número, unidade incerta: reais ou centavos"
        );
        assert_eq!(described["arguments"]["query"]["dry"], "um de: true|false");
        assert_eq!(described["answer"], "um registro em data");
    }
}
