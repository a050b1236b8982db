//! Values made from the contract's schemas: deterministic, valid under the fake's own check,
//! and realistic enough to read (pt-BR names, valid CNPJ, São Paulo addresses, amounts in the
//! unit the member's name says). A `full` value has every member down to a depth; a minimal
//! one (a request a test sends) only the required ones.

use serde_json::{Map, Value, json};

use crate::contract::{Contract, Field, Type};
use crate::ids;

/// Deepest nesting of optional members in a full value (required ones go deeper).
const OPTIONAL_DEPTH: usize = 3;
/// Deepest nesting at all (a guard against schemas that refer to themselves).
const MAX_DEPTH: usize = 8;

/// The ids a member may name: `billing_account_id` → one of the organization's accounts.
pub type KnownIds<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Makes values of the contract's schemas.
pub struct Synth<'a> {
    contract: &'a Contract,
    seed: String,
    full: bool,
    known: KnownIds<'a>,
}

impl<'a> Synth<'a> {
    /// A maker of full values (answers), ids derived from `seed`.
    pub fn full(contract: &'a Contract, seed: &str, known: KnownIds<'a>) -> Self {
        Synth {
            contract,
            seed: seed.to_owned(),
            full: true,
            known,
        }
    }

    /// A maker of minimal values (only required members: what a request must carry).
    pub fn minimal(contract: &'a Contract, seed: &str, known: KnownIds<'a>) -> Self {
        Synth {
            full: false,
            ..Synth::full(contract, seed, known)
        }
    }

    /// A value of `field`, named `name` (its member name: it picks realistic text).
    pub fn value(&self, field: &Field, name: &str) -> Value {
        self.at(field, name, 0, "")
    }

    /// The named schema's fields, followed through `ref`s.
    pub fn resolve<'f>(&self, field: &'f Field) -> &'f Field
    where
        'a: 'f,
    {
        match field
            .schema
            .as_deref()
            .and_then(|n| self.contract.schema(n))
        {
            Some(named) => self.resolve(named),
            None => field,
        }
    }

    fn at(&self, field: &Field, name: &str, depth: usize, path: &str) -> Value {
        let field = self.resolve(field);
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        if let Some(first) = field.any_of.first().or(field.one_of.first()) {
            return self.at(first, name, depth, path);
        }
        if !field.all_of.is_empty() {
            let mut merged = Map::new();
            for part in &field.all_of {
                if let Value::Object(map) = self.at(part, name, depth, path) {
                    merged.extend(map);
                }
            }
            return Value::Object(merged);
        }
        if let Some(constant) = &field.constant {
            return constant.clone();
        }
        if let Some(first) = field.allowed.iter().flatten().find(|v| !v.is_null()) {
            return first.clone();
        }
        let path = format!("{path}.{name}");
        match field.ty {
            Some(Type::String) => Value::String(self.string(field, name, &path)),
            Some(Type::Integer) => json!(integer(field, name)),
            Some(Type::Number) => json!(number(field, name)),
            Some(Type::Boolean) => json!(boolean(name)),
            Some(Type::Array) => self.array(field, name, depth, &path),
            Some(Type::Object) => self.object(field, depth, &path),
            Some(Type::Any) | None if field.fields.is_some() => self.object(field, depth, &path),
            Some(Type::Any) | None => Value::Null,
        }
    }

    fn array(&self, field: &Field, name: &str, depth: usize, path: &str) -> Value {
        let wanted = field.min_items.unwrap_or(0).max(usize::from(self.full));
        let count = wanted.min(field.max_items.unwrap_or(usize::MAX));
        let item = match &field.items {
            Some(item) => item,
            None => return json!([]),
        };
        let singular = name.strip_suffix('s').unwrap_or(name);
        Value::Array(
            (0..count)
                .map(|n| self.at(item, singular, depth + 1, &format!("{path}[{n}]")))
                .collect(),
        )
    }

    fn object(&self, field: &Field, depth: usize, path: &str) -> Value {
        let mut map = Map::new();
        for (member, f) in field.fields.iter().flatten() {
            let required = field.required.contains(member);
            let names_a_record = depth == 0 && (self.known)(member).is_some();
            let wanted = required || names_a_record || (self.full && depth < OPTIONAL_DEPTH);
            if !wanted {
                continue;
            }
            let value = if self.full && !required && quiet_when_optional(member, f) {
                continue;
            } else if self.full && f.nullable && event_time(member) {
                Value::Null
            } else {
                self.at(f, member, depth + 1, path)
            };
            map.insert(member.clone(), value);
        }
        Value::Object(map)
    }

    fn string(&self, field: &Field, name: &str, path: &str) -> String {
        let text = match field.format.as_deref() {
            Some("uuid") => (self.known)(name)
                .unwrap_or_else(|| ids::derived_uuid(&format!("{}{path}", self.seed))),
            Some("date") => "2026-08-20".to_owned(),
            Some("date-time") => "2026-08-20T15:00:00Z".to_owned(),
            Some("email") => "financeiro@padariaaurora.com.br".to_owned(),
            Some("uri") => "https://faturas.padariaaurora.com.br/2026/08".to_owned(),
            _ if names_an_id(name) => (self.known)(name)
                .unwrap_or_else(|| ids::derived_uuid(&format!("{}{path}", self.seed))),
            _ => text_for(name).to_owned(),
        };
        let text = match &field.pattern {
            Some(pattern) => fitting(pattern, text),
            None => text,
        };
        sized(field, text)
    }
}

/// Whether a member names a record by its id (`id`, `user_id`, `requestId`), not an id of
/// another system (`external_id`).
fn names_an_id(name: &str) -> bool {
    name == "id" || ((name.ends_with("_id") || name.ends_with("Id")) && !name.contains("xternal"))
}

/// Optional members a full record leaves out: free-form objects with nothing to say.
fn quiet_when_optional(member: &str, field: &Field) -> bool {
    field.ty.is_none() && field.schema.is_none() && field.fields.is_none() && member != "id"
}

/// A nullable timestamp of something that has not happened (`canceled_at`, `paid_at`).
fn event_time(member: &str) -> bool {
    member.ends_with("_at") && !matches!(member, "created_at" | "updated_at")
}

/// Realistic text for a member, by its name.
fn text_for(name: &str) -> &'static str {
    const BY_NAME: [(&str, &str); 30] = [
        ("legal_name", "Padaria Aurora Comércio de Alimentos Ltda"),
        ("trade_name", "Padaria Aurora"),
        ("nickname", "Aurora"),
        ("name", "Padaria Aurora Ltda"),
        ("email", "financeiro@padariaaurora.com.br"),
        ("document_type", "cnpj"),
        ("document", "45.321.287/0001-90"),
        ("cnpj", "45.321.287/0001-90"),
        ("cpf", "529.982.247-25"),
        ("phone", "+55 11 98765-4321"),
        ("zip", "01310-100"),
        ("postal", "01310-100"),
        ("city", "São Paulo"),
        ("state", "SP"),
        ("country", "BR"),
        ("neighborhood", "Bela Vista"),
        ("street", "Avenida Paulista"),
        ("currency", "BRL"),
        ("description", "Mensalidade do plano Profissional"),
        ("slug", "plano-profissional"),
        ("code", "BEMVINDO10"),
        ("url", "https://faturas.padariaaurora.com.br/2026/08"),
        ("reason", "Solicitado pelo cliente"),
        ("external_id", "ERP-000123"),
        ("percent", "10.00"),
        ("amount", "150.00"),
        ("year", "2026"),
        ("month", "2026-08"),
        ("password", "senha-de-teste"),
        ("number", "1000"),
    ];
    BY_NAME.iter().find(|(key, _)| name.contains(key)).map_or(
        "Conforme contrato de prestação de serviços",
        |(_, text)| text,
    )
}

/// `text`, or the first stock text that matches `pattern`.
fn fitting(pattern: &str, text: String) -> String {
    let Ok(re) = regex_lite::Regex::new(pattern) else {
        return text;
    };
    if re.is_match(&text) {
        return text;
    }
    ["financeiro", "2026", "2026-08-20", "plano-profissional"]
        .into_iter()
        .find(|t| re.is_match(t))
        .map_or(text, str::to_owned)
}

/// `text` within the field's length bounds.
fn sized(field: &Field, mut text: String) -> String {
    if let Some(max) = field.max_length {
        text = text.chars().take(max).collect();
    }
    while text.chars().count() < field.min_length.unwrap_or(0) {
        text.push('0');
    }
    text
}

/// An integer for a member, by its name and unit, within its bounds.
fn integer(field: &Field, name: &str) -> i64 {
    let guess: i64 = if name.ends_with("_subcents") {
        1_599_000
    } else if name.ends_with("_cents") || name.contains("amount") {
        15_990
    } else if name.contains("year") {
        2026
    } else if name.contains("month") {
        8
    } else if name.contains("day") {
        10
    } else if name == "ambiente" {
        2
    } else if name == "per_page" || name == "limit" {
        20
    } else if name == "offset" {
        0
    } else {
        1
    };
    let low = field
        .minimum
        .map(|m| m.ceil() as i64)
        .into_iter()
        .chain(field.exclusive_minimum.map(|m| m.floor() as i64 + 1))
        .max();
    let high = field.maximum.map(|m| m.floor() as i64);
    let mut x = guess.max(low.unwrap_or(i64::MIN));
    if let Some(high) = high {
        x = x.min(high);
    }
    x
}

/// A number for a member, by its name, within its bounds.
fn number(field: &Field, name: &str) -> f64 {
    let guess: f64 = if name.contains("percent") || name.contains("rate") {
        10.0
    } else if name.contains("amount") || name.contains("value") {
        159.9
    } else {
        1.0
    };
    let mut x = guess;
    if let Some(min) = field.minimum {
        x = x.max(min);
    }
    if let Some(min) = field.exclusive_minimum
        && x <= min
    {
        x = min + 1.0;
    }
    if let Some(max) = field.maximum {
        x = x.min(max);
    }
    x
}

/// A boolean for a member: what it says is on for flags that name a state one is in.
fn boolean(name: &str) -> bool {
    [
        "deleted",
        "success",
        "active",
        "enabled",
        "allow",
        "is_active",
        "valid",
    ]
    .iter()
    .any(|word| name.contains(word))
}
