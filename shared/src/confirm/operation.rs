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

use super::question::{Question, day, due_day, invoice_object, is_reference, quoted, text};
use crate::access::Resource;
use crate::catalog::operations::facts::{Answer, Code, Facts, Kind, Operation, facts};
use crate::catalog::operations::money::{brl, unit_label, unit_of};
use crate::catalog::operations::row::{Row, Unit};
use crate::catalog::operations::template::{Piece, parse, places};
use crate::catalog::operations::{answer::resource_of, find};
use crate::catalog::{PlannedWrite, ToolCtx, ToolError};
use crate::format::money::is_invoice;

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
    let template = row.asks().ok_or(ToolError::Undescribable)?;
    let pieces = parse(template).map_err(|error| {
        tracing::error!(%error, "a destructive row's sentence does not parse: refused");
        ToolError::Undescribable
    })?;
    let values = shown_values(facts, row, op, write)?;
    let mut quotes = Vec::new();
    let record = if places(&pieces).contains(&"record") {
        Some(record(ctx, facts, row, op, write, &mut quotes).await?)
    } else {
        None
    };
    let mut sentence = render(&pieces, &values, record.as_deref());
    sentence.push('?');
    let plain: Vec<String> = values
        .iter()
        .filter_map(|v| Some(format!("{} = {}", v.place, v.plain.as_ref()?)))
        .collect();
    let mut out = sentence;
    if !plain.is_empty() {
        out.push_str(&format!(" Dados enviados: {}.", plain.join("; ")));
    }
    for value in values.iter().filter(|v| v.plain.is_none()) {
        out.push_str(&format!(
            " {} (texto enviado): {}.",
            value.place,
            super::question::quoted_whole(&value.raw)
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

/// The sentence with its placeholders filled; a group with a placeholder the request lacks
/// is left out.
fn render(pieces: &[Piece], values: &[Shown], record: Option<&str>) -> String {
    let value = |place: &str| -> Option<String> {
        if place == "record" {
            return record.map(str::to_owned);
        }
        let shown = values.iter().find(|v| v.place == place)?;
        // A free text is never put in the sentence: it is quoted after it.
        Some(
            shown
                .plain
                .clone()
                .unwrap_or_else(|| "(texto abaixo)".to_owned()),
        )
    };
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Place(place) => match value(place) {
                Some(text) => out.push_str(&text),
                None => out.push_str("(não informado)"),
            },
            Piece::Group(inner) => {
                if places(inner).iter().all(|p| value(p).is_some()) {
                    out.push_str(&render(inner, values, record));
                }
            }
        }
    }
    out.trim().to_owned()
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
    let (get, segments) = record_read(facts, op, write).ok_or_else(|| {
        tracing::error!("a destructive row asks for {{record}} but no read names it: refused");
        ToolError::Undescribable
    })?;
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let data = ctx
        .kobana
        .get(&ctx.principal.token, &segments, &[])
        .await?
        .data;
    let id = segments.last().copied().unwrap_or_default();
    Ok(describe_record(facts, row, get, &data, id, quotes))
}

/// The read of the record `write` names: the longest prefix of its path ending in a
/// parameter that a `GET` of one record serves.
fn record_read<'f>(
    facts: &'f Facts,
    op: &Operation,
    write: &PlannedWrite,
) -> Option<(&'f Operation, Vec<String>)> {
    let template: Vec<&str> = op.path.trim_start_matches("/v1/").split('/').collect();
    (1..=template.len().min(write.segments.len()))
        .rev()
        .filter(|&n| template[n - 1].starts_with('{'))
        .find_map(|n| {
            let path = format!("/v1/{}", template[..n].join("/"));
            let get = facts.operations().iter().find(|o| {
                o.method == "GET" && o.path == path && matches!(o.answer, Answer::Json(_))
            })?;
            Some((get, write.segments[..n].to_vec()))
        })
}

/// "a fatura FAT-… de R$ 499,00, vencimento 25/08/2026", "o crédito 5f0c… de R$ 50,00".
fn describe_record(
    facts: &Facts,
    row: &Row,
    get: &Operation,
    record: &Value,
    id: &str,
    quotes: &mut Vec<(&'static str, String)>,
) -> String {
    if record.as_object().is_some_and(is_invoice) {
        let mut q = Question::default();
        let object = invoice_object(record, &mut q);
        quotes.extend(q.into_quoted());
        return object;
    }
    let mut out = resource_of(get).map_or("o registro", noun).to_owned();
    let number = ["number", "nfe_number", "code"]
        .iter()
        .find_map(|key| text(record, key));
    match number {
        Some(n) if is_reference(&n) => out.push_str(&format!(" {n}")),
        Some(n) => {
            out.push_str(&format!(" {id}"));
            quotes.push(("Número (no cadastro)", quoted(&n)));
        }
        None => out.push_str(&format!(" {id}")),
    }
    if let Some(amount) = record_amount(facts, row, get, record) {
        out.push_str(&format!(" de {amount}"));
    }
    if let Some(due) = due_day(record).or_else(|| day(record, "expires_at")) {
        out.push_str(&format!(", vencimento {due}"));
    }
    if let Some(name) = text(record, "name") {
        quotes.push(("Nome (no cadastro)", quoted(&name)));
    }
    out
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

/// How the question names a record of `resource`.
fn noun(resource: Resource) -> &'static str {
    match resource {
        Resource::Organization => "a organização",
        Resource::Customers => "o cliente",
        Resource::BillingAccounts => "a conta de cobrança",
        Resource::Plans => "o plano",
        Resource::Products => "o produto",
        Resource::Subscriptions => "a assinatura",
        Resource::Invoices => "a fatura",
        Resource::Payments => "o pagamento",
        Resource::Nfes => "a NF-e",
        Resource::PlanGroups => "o grupo de planos",
        Resource::ProductGroups => "o grupo de produtos",
        Resource::Companies => "a empresa",
        Resource::Certificates => "o certificado",
        Resource::Coupons => "o cupom",
        Resource::Credits => "o crédito",
        Resource::PaymentMethods => "o método de pagamento",
        Resource::Proposals => "a proposta",
        Resource::ProposalTemplates => "o modelo de proposta",
        Resource::PlanChanges => "a mudança de plano",
        Resource::SubscriptionChanges => "a mudança de assinatura",
        Resource::SubscriptionItemChanges => "a mudança de item de assinatura",
        Resource::Usage => "o registro de uso",
        Resource::TaxRules => "a regra tributária",
        Resource::TaxPeriods => "o período tributário",
        Resource::Withholdings => "a retenção",
        Resource::ServiceItems => "o item de serviço",
        Resource::DashboardUsers => "o usuário do painel",
        Resource::TeamRoles => "o papel da equipe",
    }
}
