//! The money fields of a generic call, by the reviewed units tables: a row's own
//! [`Row::units`] first (by place: `query.<name>`, `body.<dotted.path>`, `answer.<dotted.path>`,
//! arrays walked through), then the schema-level [`SCHEMA_UNITS`] (by `Schema.member`, the
//! schema named as the facts name it; an inline object is `Owner.member`).
//!
//! In an answer each money member gets its BRL text beside it (`amount_cents` →
//! `amount_brl`) by its reviewed unit, not by its name, and the answer lists every money
//! member it holds with its unit (`units`). A member whose unit is in doubt gets no BRL
//! text at all, only the note; an invoice's `*_subcents` keep the unit its own members
//! settle (`format::money`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::facts::{Code, Extra, Facts, Kind};
use super::row::{Row, Unit};
use super::units::SCHEMA_UNITS;
use crate::format::{brl_from_cents, brl_from_subcents, money};

/// The unit of the member at `place` (`body.line_items.unit_amount_cents`), which the schema
/// `schema` (as the facts name it) holds as `member`.
pub fn unit_of(row: &Row, place: &str, schema_member: Option<(&str, &str)>) -> Option<Unit> {
    unit_in(row.units, SCHEMA_UNITS, place, schema_member)
}

fn unit_in(
    row_units: &[(&str, Unit)],
    schema_units: &[(&str, Unit)],
    place: &str,
    schema_member: Option<(&str, &str)>,
) -> Option<Unit> {
    if let Some((_, unit)) = row_units.iter().find(|(at, _)| *at == place) {
        return Some(*unit);
    }
    let (schema, member) = schema_member?;
    schema_units
        .iter()
        .find(|(key, _)| {
            key.strip_prefix(schema)
                .and_then(|rest| rest.strip_prefix('.'))
                == Some(member)
        })
        .map(|(_, unit)| *unit)
}

/// How a unit is named to a model.
pub fn unit_label(unit: Unit) -> String {
    match unit {
        Unit::Cents => "centavos (÷100)".to_owned(),
        Unit::Subcents => "subcentavos (÷10000)".to_owned(),
        Unit::Reais => "reais".to_owned(),
        Unit::Percent => "percentual (5 = 5%)".to_owned(),
        Unit::Fraction => "fração (0.05 = 5%)".to_owned(),
        Unit::Uncertain(note) => format!("unidade incerta: {note}"),
    }
}

/// `value` in `unit` as BRL text; `None` for a unit that is not money or is in doubt, or a
/// value that is not an amount.
pub fn brl(value: &Value, unit: Unit) -> Option<String> {
    match unit {
        Unit::Cents => value.as_i64().map(brl_from_cents),
        Unit::Subcents => value.as_i64().map(brl_from_subcents),
        Unit::Reais => reais_to_cents(value).map(brl_from_cents),
        Unit::Percent | Unit::Fraction | Unit::Uncertain(_) => None,
    }
}

/// An amount in reais (a number, or a decimal text `"49.90"`) in centavos, rounded half away
/// from zero; `None` when it is not one or is out of range.
fn reais_to_cents(value: &Value) -> Option<i64> {
    let x = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    let cents = (x * 100.0).round();
    (cents.is_finite() && cents.abs() < 9.0e15).then_some(cents as i64)
}

/// The member's BRL companion: `amount_cents` → `amount_brl`, `balance` → `balance_brl`.
fn brl_key(member: &str) -> String {
    let base = member
        .strip_suffix("_subcents")
        .or_else(|| member.strip_suffix("_cents"))
        .unwrap_or(member);
    format!("{base}_brl")
}

/// Walks an answer's `data` by its schema, putting each money member's BRL text beside it
/// by its reviewed unit; answers every money member found, by place (`data[].amount_cents`),
/// with its unit's label.
pub struct Annotator<'a> {
    /// The operation's facts.
    pub facts: &'a Facts,
    /// The row's own units.
    pub row_units: &'a [(&'a str, Unit)],
    /// The schema-level units.
    pub schema_units: &'a [(&'a str, Unit)],
    /// Money members found: place → unit label.
    pub found: BTreeMap<String, String>,
    /// The answer has no envelope: a row's `answer.` places start at its root, not at `data`.
    pub bare: bool,
}

impl<'a> Annotator<'a> {
    /// An annotator over `row`'s units and the schema table.
    pub fn new(facts: &'a Facts, row: &'a Row) -> Self {
        Self {
            facts,
            row_units: row.units,
            schema_units: SCHEMA_UNITS,
            found: BTreeMap::new(),
            bare: false,
        }
    }

    /// Annotates `data`: the `data` member of an answer whose envelope schema is `answer`, or
    /// the whole answer when its schema has no envelope (places then start at the answer's
    /// root: `answer.credit.amount_cents`).
    pub fn annotate(&mut self, answer: &str, data: &mut Value) {
        let Some(schema) = self.facts.schema(answer) else {
            return;
        };
        match schema.members.iter().find(|m| m.name == "data") {
            Some(member) if schema.whole.is_none() => {
                let code = member.code.clone();
                self.walk(&code, data, "data", answer);
            }
            _ => {
                self.bare = true;
                let code = super::facts::parse_code(&format!("@{answer}"));
                self.walk(&code, data, "data", answer);
            }
        }
    }

    /// `value` by `code`; `hint` names an object the code leaves untyped (`Owner.member`), whose
    /// members the schema table may still give units.
    fn walk(&mut self, code: &Code, value: &mut Value, at: &str, hint: &str) {
        match (&code.kind, value) {
            (Kind::Ref(name), value) => self.named(name, value, at),
            (Kind::OneOf(alternatives), value) => {
                let fitting = alternatives.iter().find(|alt| fits(alt, value)).cloned();
                if let Some(alternative) = fitting {
                    self.walk(&alternative, value, at, hint);
                }
            }
            (Kind::Array, Value::Array(items)) => {
                if let Some(item) = &code.item {
                    let inner = format!("{at}[]");
                    items
                        .iter_mut()
                        .for_each(|value| self.walk(item, value, &inner, hint));
                }
            }
            (Kind::Object | Kind::Any, Value::Object(map)) => self.object(hint, None, map, at),
            _ => {}
        }
    }

    fn named(&mut self, name: &str, value: &mut Value, at: &str) {
        let Some(schema) = self.facts.schema(name) else {
            return;
        };
        if let Some(whole) = &schema.whole {
            let whole = whole.clone();
            return self.walk(&whole, value, at, name);
        }
        if let Value::Object(map) = value {
            self.object(name, Some(schema), map, at);
        }
    }

    /// The members of an object of schema `owner` (`None`: an object the facts leave untyped).
    fn object(
        &mut self,
        owner: &str,
        schema: Option<&super::facts::Schema>,
        map: &mut Map<String, Value>,
        at: &str,
    ) {
        let invoice = money::is_invoice(map);
        let mut added = Vec::new();
        let keys: Vec<String> = map.keys().cloned().collect();
        for key in keys {
            let member = schema.and_then(|s| s.members.iter().find(|m| m.name == key));
            let code = match (member, schema.map(|s| &s.extra)) {
                (Some(member), _) => member.code.clone(),
                (None, Some(Extra::Typed(code))) => (**code).clone(),
                (None, Some(Extra::Closed)) => continue,
                (None, _) => super::facts::parse_code("*"),
            };
            let place = format!("{at}.{key}");
            let Some(child) = map.get_mut(&key) else {
                continue;
            };
            let from_root = place.replace("[]", "");
            let from_root = match from_root.strip_prefix("data.") {
                Some(rest) if self.bare => rest.to_owned(),
                _ => from_root,
            };
            let answer_place = format!("answer.{from_root}");
            let unit = unit_in(self.row_units, &[], &answer_place, None)
                .or_else(|| unit_in(&[], self.schema_units, "", Some((owner, &key))));
            match unit {
                Some(unit) if !(child.is_object() || child.is_array()) => {
                    if invoice && key.ends_with("_subcents") {
                        // The invoice's own members settled this unit (`format::money`).
                        continue;
                    }
                    self.found.insert(place, unit_label(unit));
                    added.push((brl_key(&key), brl(child, unit)));
                }
                _ => self.walk(&code, child, &place, &format!("{owner}.{key}")),
            }
        }
        for (key, text) in added {
            match text {
                Some(text) => {
                    map.insert(key, Value::String(text));
                }
                None => {
                    map.remove(&key);
                }
            }
        }
    }
}

/// Whether `value` has the type of `code` (an alternative of a one-of).
fn fits(code: &Code, value: &Value) -> bool {
    match &code.kind {
        Kind::String => value.is_string(),
        Kind::Integer => value.is_i64() || value.is_u64(),
        Kind::Number => value.is_number(),
        Kind::Boolean => value.is_boolean(),
        Kind::Object | Kind::Ref(_) => value.is_object(),
        Kind::Array => value.is_array(),
        Kind::Any | Kind::OneOf(_) => true,
    }
}

/// The `units` member of an answer: every money member found with its unit, or `None`.
pub fn units_member(found: BTreeMap<String, String>) -> Option<Value> {
    (!found.is_empty()).then(|| {
        Value::Object(
            found
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect::<Map<String, Value>>(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FACTS: &str = "\
CreditListResponse data:a[@CreditV1]
CreditV1 id:s amount_cents:i ~balance:n ~rate:n ~odd_cents:i ~items:a[@CreditV1.items] ~changes:a[o]
CreditV1.items value_subcents:i
";

    #[test]
    fn wa2_money_members_get_brl_by_their_reviewed_unit_and_doubt_gets_none() {
        let facts = Facts::parse(FACTS);
        let schema_units = [
            ("CreditV1.amount_cents", Unit::Cents),
            ("CreditV1.balance", Unit::Reais),
            ("CreditV1.rate", Unit::Percent),
            ("CreditV1.items.value_subcents", Unit::Subcents),
            ("CreditV1.changes.fee_cents", Unit::Cents),
        ];
        let row_units = [(
            "answer.data.odd_cents",
            Unit::Uncertain("centavos ou reais, conforme o tipo"),
        )];
        let mut annotator = Annotator {
            facts: &facts,
            row_units: &row_units,
            schema_units: &schema_units,
            found: BTreeMap::new(),
            bare: false,
        };
        // `odd_cents_brl` is what a suffix reading would have added: the doubt removes it.
        let mut data = json!([{"id": "c1", "amount_cents": 5000, "balance": "12.5", "rate": 5,
            "odd_cents": 300, "odd_brl": "R$ 3,00", "items": [{"value_subcents": 4990000}],
            "changes": [{"fee_cents": 250}]}]);
        annotator.annotate("CreditListResponse", &mut data);
        let record = &data[0];
        assert_eq!(record["amount_brl"], "R$ 50,00");
        assert_eq!(record["balance_brl"], "R$ 12,50");
        assert!(record.get("rate_brl").is_none());
        assert!(record.get("odd_brl").is_none(), "{record}");
        assert_eq!(record["items"][0]["value_brl"], "R$ 499,00");
        // A member of an object the facts leave untyped, by the table's `Owner.member.key`.
        assert_eq!(record["changes"][0]["fee_brl"], "R$ 2,50");
        assert_eq!(annotator.found["data[].amount_cents"], "centavos (÷100)");
        assert_eq!(
            annotator.found["data[].odd_cents"],
            "unidade incerta: centavos ou reais, conforme o tipo"
        );
        assert_eq!(
            annotator.found["data[].items[].value_subcents"],
            "subcentavos (÷10000)"
        );
        assert_eq!(annotator.found["data[].rate"], "percentual (5 = 5%)");
    }

    /// Every key of the schema-level table names a member of a schema the generic tools
    /// read (`Schema.member`, an inline object named `Owner.member` as the facts name it): a
    /// unit the tools would never find is a unit not shown.
    #[test]
    fn wa2_every_unit_of_the_schema_table_names_a_member_the_facts_hold() {
        let facts = super::super::facts::facts();
        let mut missing = Vec::new();
        for (key, _) in SCHEMA_UNITS {
            let Some((schema, member)) = key.rsplit_once('.') else {
                missing.push(key.to_string());
                continue;
            };
            // A member of an object the facts leave untyped (`Owner.member.key`) counts when
            // `Owner.member` is such an object.
            let untyped = schema.rsplit_once('.').is_some_and(|(owner, inner)| {
                facts.schema(owner).is_some_and(|s| {
                    s.members.iter().any(|m| {
                        let code = m.code.item.as_deref().unwrap_or(&m.code);
                        m.name == inner && matches!(code.kind, Kind::Object | Kind::Any)
                    })
                })
            });
            let found = untyped
                || facts
                    .schema(schema)
                    .is_some_and(|s| s.members.iter().any(|m| m.name == member));
            if !found {
                missing.push(key.to_string());
            }
        }
        assert!(missing.is_empty(), "{} keys: {missing:?}", missing.len());
    }

    #[test]
    fn a_rows_unit_wins_over_the_schema_table() {
        let row = [("body.amount", Unit::Cents)];
        let schema = [("Req.amount", Unit::Reais), ("ReqX.amount", Unit::Cents)];
        assert_eq!(
            unit_in(&row, &schema, "body.amount", Some(("Req", "amount"))),
            Some(Unit::Cents)
        );
        assert_eq!(
            unit_in(&[], &schema, "body.amount", Some(("Req", "amount"))),
            Some(Unit::Reais)
        );
        assert_eq!(unit_in(&[], &schema, "body.x", Some(("Req", "x"))), None);
        assert_eq!(reais_to_cents(&json!("49.905")), Some(4991));
        assert_eq!(reais_to_cents(&json!(-1.5)), Some(-150));
        assert_eq!(brl(&json!("x"), Unit::Reais), None);
    }
}
