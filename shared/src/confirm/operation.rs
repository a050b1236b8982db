//! The question of a destructive operation run by the generic tool
//! (`billing_operations_write_destructive`): rendered from the planned write, never from the
//! raw arguments, with the reviewed row's sentence.
//!
//! The sentence's placeholders are filled from the request that would be sent, by type:
//! money in BRL by its reviewed unit (a unit in doubt is said, never turned into BRL),
//! booleans `sim`/`não`, ids, dates and enum values as they are (only when they are plain
//! tokens); `{record}` is the record the path names, read from Kobana (number, amount, due
//! date; its name quoted), and any failure to read it refuses like the curated questions. A
//! group `[…]` whose placeholders are not all in the request is left out.
//!
//! After the sentence comes every value that will be sent, path, query and body, each by
//! its place (`body.amount_cents`): the plain ones in the server's voice, every free text
//! last as quoted data («…», one plain line; the generic tool sends only texts that already
//! are one, so every character sent is shown).

use serde_json::{Map, Value};

use super::question::{quoted, quoted_whole};
use crate::catalog::operations::facts::{Answer, Code, Facts, Kind, Operation, facts};
use crate::catalog::operations::find;
use crate::catalog::operations::money::{brl, unit_label, unit_of};
use crate::catalog::operations::row::{Row, Unit};
use crate::catalog::operations::template::{Place, Values, record_path};
use crate::catalog::{PlannedWrite, ToolCtx, ToolError};
use crate::format::brl_from_cents;
use crate::format::money::{invoice_total_cents, is_invoice};

/// Most values a question lists; a request with more is not put into words (refused).
pub const MAX_LISTED_VALUES: usize = 60;

/// Longest question, in characters; a longer one is refused.
pub const MAX_QUESTION_CHARS: usize = 6000;

/// Longest value shown as it is (an id, a date, an enum value).
const MAX_TOKEN_CHARS: usize = 64;

/// One value of the request, by place, as the question shows it.
#[derive(Debug)]
struct Shown {
    place: String,
    /// In the server's voice (`R$ 50,00`, `sim`, an id); `None` for free text.
    plain: Option<String>,
    /// The value as sent, for free text.
    raw: String,
}

/// The question for `write`, planned by the generic destructive tool. `Err`: the refusal
/// (the record cannot be read, or the request cannot be put into words).
pub async fn question(ctx: &ToolCtx, write: &PlannedWrite) -> Result<String, ToolError> {
    let facts = facts();
    let (row, op) = write
        .operation
        .and_then(find)
        .and_then(|row| Some((row, facts.operation(row.operation)?)))
        .ok_or(ToolError::Undescribable)?;
    let template = row
        .template()
        .ok_or(ToolError::Undescribable)?
        .map_err(|error| {
            tracing::error!(%error, "a destructive row's sentence does not parse: refused");
            ToolError::Undescribable
        })?;
    let values = shown_values(facts, row, op, write)?;
    let mut quotes = Vec::new();
    let record = if template.places().contains(&Place::Record) {
        Some(record(ctx, facts, row, op, write, &mut quotes).await?)
    } else {
        None
    };
    let request = Request {
        write,
        values: &values,
        record: record.as_deref(),
    };
    // The rows' sentences ask (`…?`) and may say the consequence after.
    let mut out = template.render(&request).trim().to_owned();
    if !out.contains('?') {
        out.push('?');
    }
    let plain: Vec<String> = values
        .iter()
        .filter_map(|v| Some(format!("{} = {}", v.place, v.plain.as_ref()?)))
        .collect();
    if !plain.is_empty() {
        out.push_str(&format!(" Dados enviados: {}.", plain.join("; ")));
    }
    for value in values.iter().filter(|v| v.plain.is_none()) {
        out.push_str(&format!(
            " {} (texto enviado): {}.",
            value.place,
            quoted_whole(&value.raw)
        ));
    }
    for (label, text) in quotes {
        out.push_str(&format!(" {label}: {text}."));
    }
    if out.chars().count() > MAX_QUESTION_CHARS {
        return Err(ToolError::Undescribable);
    }
    Ok(out)
}

/// The request (and the record) a sentence is rendered with.
struct Request<'a> {
    write: &'a PlannedWrite,
    values: &'a [Shown],
    record: Option<&'a str>,
}

impl Values for Request<'_> {
    fn raw(&self, place: &Place<'_>) -> Option<Value> {
        let value = match place {
            Place::Record => return self.record.map(|_| Value::Bool(true)),
            Place::Path(_) | Place::Query(_) => {
                let key = place.key();
                let shown = self.values.iter().find(|v| v.place == key)?;
                Value::String(shown.raw.clone())
            }
            Place::Body(path) => member(self.write.body.as_ref()?, path)?,
        };
        (!value.is_null()).then_some(value)
    }

    fn shown(&self, place: &Place<'_>, _: &Value) -> String {
        if *place == Place::Record {
            return self.record.unwrap_or_default().to_owned();
        }
        // Every leaf at the place (arrays walked through), as the list after the sentence
        // shows it; a free text is never put in the sentence: it is quoted after it.
        let key = place.key();
        let shown: Vec<String> = self
            .values
            .iter()
            .filter(|v| without_indexes(&v.place) == key)
            .map(|v| {
                v.plain
                    .clone()
                    .unwrap_or_else(|| "(texto abaixo)".to_owned())
            })
            .collect();
        shown.join(", ")
    }
}

/// The member at a dotted `path` of `body`, arrays walked through (their members' values
/// gathered in a list).
fn member(body: &Value, path: &str) -> Option<Value> {
    let mut current = vec![body];
    for name in path.split('.') {
        let mut next = Vec::new();
        for value in current {
            match value {
                Value::Object(map) => next.extend(map.get(name)),
                Value::Array(items) => next.extend(items.iter().filter_map(|i| i.get(name))),
                _ => {}
            }
        }
        current = next;
    }
    match current.as_slice() {
        [] => None,
        [one] => Some((*one).clone()),
        many => Some(Value::Array(many.iter().map(|v| (*v).clone()).collect())),
    }
}

/// `body.items[0].amount` → `body.items.amount`.
fn without_indexes(place: &str) -> String {
    let mut out = String::with_capacity(place.len());
    let mut skipping = false;
    for c in place.chars() {
        match c {
            '[' => skipping = true,
            ']' => skipping = false,
            c if !skipping => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every value the request sends, by place, in the order path, query, body.
fn shown_values(
    facts: &Facts,
    row: &Row,
    op: &Operation,
    write: &PlannedWrite,
) -> Result<Vec<Shown>, ToolError> {
    let mut out = Vec::new();
    let template: Vec<&str> = op.path.trim_start_matches("/v1/").split('/').collect();
    for (part, segment) in template.iter().zip(&write.segments) {
        if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            // A path segment is a safe token by construction (`kobana::segment_is_safe`).
            let segment = Value::from(segment.as_str());
            let mut shown = leaf(row, &format!("path.{name}"), None, None, &segment);
            if shown.plain.is_none() && is_token(&shown.raw) {
                shown.plain = Some(shown.raw.clone());
            }
            out.push(shown);
        }
    }
    for (name, value) in &write.query {
        let code = op.query.iter().find(|p| &p.name == name).map(|p| &p.code);
        out.push(leaf(
            row,
            &format!("query.{name}"),
            None,
            code,
            &Value::from(value.as_str()),
        ));
    }
    if let (Some(body), Some(schema)) = (&write.body, op.body.as_ref()) {
        let mut walker = Walker {
            facts,
            row,
            out: &mut out,
        };
        walker.named(&schema.schema, "body", "body", body);
    }
    if out.len() > MAX_LISTED_VALUES {
        return Err(ToolError::Undescribable);
    }
    Ok(out)
}

/// Walks a body by its schema, collecting its leaves.
struct Walker<'a> {
    facts: &'a Facts,
    row: &'a Row,
    out: &'a mut Vec<Shown>,
}

impl Walker<'_> {
    fn named(&mut self, schema: &str, place: &str, unit_place: &str, value: &Value) {
        let found = self.facts.schema(schema);
        if let Some(whole) = found.and_then(|s| s.whole.clone()) {
            return self.code(&whole, place, unit_place, None, value);
        }
        let Value::Object(map) = value else {
            return self.code(&any(), place, unit_place, None, value);
        };
        for (key, child) in map {
            let member = found.and_then(|s| s.members.iter().find(|m| &m.name == key));
            let code = member.map_or_else(any, |m| m.code.clone());
            self.code(
                &code,
                &format!("{place}.{key}"),
                &format!("{unit_place}.{key}"),
                Some((schema, key)),
                child,
            );
        }
    }

    fn code(
        &mut self,
        code: &Code,
        place: &str,
        unit_place: &str,
        member: Option<(&str, &str)>,
        value: &Value,
    ) {
        match (&code.kind, value) {
            (Kind::Ref(name), Value::Object(_)) => self.named(name, place, unit_place, value),
            (Kind::OneOf(alternatives), Value::Object(_)) => {
                let reference = alternatives.iter().find_map(|a| match &a.kind {
                    Kind::Ref(name) => Some(name.clone()),
                    _ => None,
                });
                match reference {
                    Some(name) => self.named(&name, place, unit_place, value),
                    None => self.plain_object(place, value),
                }
            }
            (_, Value::Array(items)) => {
                let item = code.item.as_deref().cloned().unwrap_or_else(any);
                for (n, child) in items.iter().enumerate() {
                    self.code(&item, &format!("{place}[{n}]"), unit_place, member, child);
                }
            }
            (_, Value::Object(_)) => self.plain_object(place, value),
            _ => self
                .out
                .push(leaf(self.row, unit_place, member, Some(code), value).at(place)),
        }
    }

    /// An object the schema does not describe member by member: each member as text.
    fn plain_object(&mut self, place: &str, value: &Value) {
        if let Value::Object(map) = value {
            for (key, child) in map {
                let inner = format!("{place}.{key}");
                self.code(&any(), &inner, &inner, None, child);
            }
        }
    }
}

fn any() -> Code {
    crate::catalog::operations::facts::parse_code("*")
}

impl Shown {
    fn at(mut self, place: &str) -> Self {
        self.place = place.to_owned();
        self
    }
}

/// One leaf as the question shows it. `unit_place` is its place with array indexes left out
/// (how the rows name units).
fn leaf(
    row: &Row,
    unit_place: &str,
    member: Option<(&str, &str)>,
    code: Option<&Code>,
    value: &Value,
) -> Shown {
    let raw = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let unit = unit_of(row, unit_place, member);
    let plain = match (value, unit) {
        (Value::Null, _) => Some("null (vazio)".to_owned()),
        (Value::Bool(b), _) => Some(if *b { "sim" } else { "não" }.to_owned()),
        (_, Some(unit @ Unit::Uncertain(_))) => Some(format!("{raw} ({})", unit_label(unit))),
        (value, Some(unit)) => Some(brl(value, unit).unwrap_or_else(|| match unit {
            Unit::Percent => format!("{raw}%"),
            _ => format!("{raw} ({})", unit_label(unit)),
        })),
        (Value::Number(_), None) => Some(raw.clone()),
        (Value::String(s), None) if is_token(s) && code.is_some_and(structured) => Some(s.clone()),
        _ => None,
    };
    Shown {
        place: unit_place.to_owned(),
        plain,
        raw,
    }
}

/// Whether a text is not free text: an enum value, an id, a date.
fn structured(code: &Code) -> bool {
    code.allowed.is_some()
        || code.pattern.is_some()
        || matches!(code.format.as_deref(), Some("uuid" | "date" | "date-time"))
}

/// Whether a text can be shown as it is: a short token of letters, digits and `_.:/+@-`.
fn is_token(s: &str) -> bool {
    (1..=MAX_TOKEN_CHARS).contains(&s.chars().count())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:/+@-".contains(&b))
}

/// Reads the record the path names and describes it (number, amount, due date), putting its
/// name among the `quotes`. Any failure to read it refuses.
async fn record(
    ctx: &ToolCtx,
    facts: &Facts,
    row: &Row,
    op: &Operation,
    write: &PlannedWrite,
    quotes: &mut Vec<(&'static str, String)>,
) -> Result<String, ToolError> {
    let read = |path: &str| {
        facts
            .operations()
            .iter()
            .find(|o| o.method == "GET" && o.path == path && matches!(o.answer, Answer::Json(_)))
    };
    let get = record_path(&op.path, |path| read(path).is_some())
        .and_then(read)
        .ok_or_else(|| {
            tracing::error!("a destructive row asks for {{record}} but no read names it: refused");
            ToolError::Undescribable
        })?;
    let depth = get.path.trim_start_matches("/v1/").split('/').count();
    let segments: Vec<&str> = write.segments[..depth.min(write.segments.len())]
        .iter()
        .map(String::as_str)
        .collect();
    let data = ctx.kobana.get(&segments, &[]).await?.data;
    let id = segments.last().copied().unwrap_or_default();
    Ok(describe_record(facts, row, get, &data, id, quotes))
}

/// What follows the record's noun in a sentence ("a fatura {record}"): its number (or the
/// path's id), amount and due date — "FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026".
/// A number that is not a plain token, and the record's name, are quoted after.
fn describe_record(
    facts: &Facts,
    row: &Row,
    get: &Operation,
    record: &Value,
    id: &str,
    quotes: &mut Vec<(&'static str, String)>,
) -> String {
    let number = ["number", "nfe_number", "code"]
        .iter()
        .find_map(|key| text(record, key));
    let mut out = match number {
        Some(n) if is_token(&n) => n,
        Some(n) => {
            quotes.push(("Número (no cadastro)", quoted(&n)));
            id.to_owned()
        }
        None => id.to_owned(),
    };
    let amount = match record.as_object() {
        Some(map) if is_invoice(map) => invoice_amount(map),
        _ => record_amount(facts, row, get, record).map(|brl| format!(" de {brl}")),
    };
    out.push_str(&amount.unwrap_or_default());
    if let Some(due) = record
        .get("due_date")
        .and_then(Value::as_str)
        .and_then(crate::format::calendar_day)
    {
        out.push_str(&format!(", vencimento {}", due.strftime("%d/%m/%Y")));
    }
    if let Some(name) = text(record, "name") {
        quotes.push(("Nome (no cadastro)", quoted(&name)));
    }
    out
}

/// A non-blank text member (a number as its digits), as Kobana sent it.
fn text(record: &Value, key: &str) -> Option<String> {
    match record.get(key)? {
        Value::String(s) if !crate::format::plain_line(s).is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An invoice's total under the unit its own members settle (`format::money`); while that is
/// in doubt, what is still owed, whose unit is not.
fn invoice_amount(map: &Map<String, Value>) -> Option<String> {
    let record = Value::Object(map.clone());
    match (
        invoice_total_cents(&record),
        map.get("amount_remaining_cents").and_then(Value::as_i64),
    ) {
        (Some(total), _) => Some(format!(" de {}", brl_from_cents(total))),
        (None, Some(owed)) => Some(format!(
            " de total não conferido (saldo em aberto {})",
            brl_from_cents(owed)
        )),
        (None, None) => None,
    }
}

/// The record's amount in BRL: its first money member whose reviewed unit is money.
fn record_amount(facts: &Facts, row: &Row, get: &Operation, record: &Value) -> Option<String> {
    let Answer::Json(envelope) = &get.answer else {
        return None;
    };
    let schema = facts
        .schema(envelope)?
        .members
        .iter()
        .find(|m| m.name == "data")
        .and_then(|m| match &m.code.kind {
            Kind::Ref(name) => Some(name.clone()),
            _ => None,
        })?;
    let map: &Map<String, Value> = record.as_object()?;
    facts.schema(&schema)?.members.iter().find_map(|member| {
        let value = map.get(&member.name)?;
        let unit = unit_of(row, "", Some((&schema, &member.name)))?;
        brl(value, unit)
    })
}
