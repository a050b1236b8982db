//! A generic call's arguments checked against its operation's facts before anything is sent:
//! every path parameter given and a safe path segment, no unknown query parameter or body
//! member (unless the schema takes extra members), every value of its type, in its enum,
//! format, pattern and bounds, every required member present. Each problem names the
//! argument as the model wrote it (`body.line_items[0].quantity`), in pt-BR.
//!
//! What passes becomes the request that is sent: path segments, query pairs (text, as
//! Kobana reads them) and the JSON body as given.

use serde_json::{Map, Value};

use super::facts::{Code, Extra, Facts, Kind, Operation, Param, Schema};
use crate::kobana::segment_is_safe;

/// Most problems one answer names.
pub const MAX_PROBLEMS: usize = 5;

/// Most names listed when a member is unknown.
const MAX_NAMES_LISTED: usize = 30;

/// The request a checked call sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Path segments under `/v1`.
    pub segments: Vec<String>,
    /// Query pairs, in the order given.
    pub query: Vec<(String, String)>,
    /// The JSON body, for an operation that takes one.
    pub body: Option<Value>,
}

/// Checks `path`, `query` and `body` (each a JSON object, or absent) against `op`. `Err`: the
/// problems, in pt-BR, each naming its argument.
pub fn check(
    facts: &Facts,
    op: &Operation,
    path: Option<&Map<String, Value>>,
    query: Option<&Map<String, Value>>,
    body: Option<&Map<String, Value>>,
) -> Result<Checked, String> {
    let mut checker = Checker {
        facts,
        problems: Vec::new(),
    };
    let segments = checker.path(op, path);
    let query = checker.query(op, query);
    let body = checker.body(op, body);
    if checker.problems.is_empty() {
        Ok(Checked {
            segments,
            query,
            body,
        })
    } else {
        Err(checker.problems.join("; "))
    }
}

/// What a type is called in a problem.
fn type_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::String => "um texto",
        Kind::Integer => "um número inteiro",
        Kind::Number => "um número",
        Kind::Boolean => "true ou false",
        Kind::Object | Kind::Ref(_) => "um objeto",
        Kind::Array => "uma lista",
        Kind::Any | Kind::OneOf(_) => "um valor",
    }
}

/// What a received value is called in a problem.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "um booleano",
        Value::Number(n) if n.is_i64() || n.is_u64() => "um número inteiro",
        Value::Number(_) => "um número",
        Value::String(_) => "um texto",
        Value::Array(_) => "uma lista",
        Value::Object(_) => "um objeto",
    }
}

fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

fn listed(names: impl Iterator<Item = String>) -> String {
    let names: Vec<String> = names.collect();
    if names.is_empty() {
        return "nenhum".to_owned();
    }
    let more = names.len().saturating_sub(MAX_NAMES_LISTED);
    let mut text = names
        .into_iter()
        .take(MAX_NAMES_LISTED)
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        text.push_str(&format!(" e mais {more}"));
    }
    text
}

fn format_label(format: &str) -> Option<&'static str> {
    Some(match format {
        "uuid" => "um UUID (ex.: 47378190-96da-4dac-b2ff-5d2a386ecbe0)",
        "date" => "uma data AAAA-MM-DD (ex.: 2026-08-31)",
        "date-time" => "uma data e hora ISO 8601 (ex.: 2026-08-31T12:00:00-03:00)",
        "email" => "um e-mail",
        _ => return None,
    })
}

/// Whether `text` has `format` (an unknown format always has).
pub fn has_format(format: &str, text: &str) -> bool {
    match format {
        "uuid" => crate::catalog::uuid_arg("", text).is_ok() && text.trim() == text,
        "date" => text.len() == 10 && text.parse::<jiff::civil::Date>().is_ok(),
        "date-time" => text.parse::<jiff::Timestamp>().is_ok(),
        "email" => text.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !text.chars().any(char::is_whitespace)
        }),
        _ => true,
    }
}

struct Checker<'f> {
    facts: &'f Facts,
    problems: Vec<String>,
}

impl Checker<'_> {
    fn push(&mut self, problem: String) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(problem);
        }
    }

    fn full(&self) -> bool {
        self.problems.len() >= MAX_PROBLEMS
    }

    fn path(&mut self, op: &Operation, given: Option<&Map<String, Value>>) -> Vec<String> {
        let empty = Map::new();
        let given = given.unwrap_or(&empty);
        for name in given.keys() {
            if !op.path_params.iter().any(|p| &p.name == name) {
                let names = op.path_params.iter().map(|p| p.name.clone());
                self.push(format!(
                    "`path.{name}` não existe nesta operação; aceitos: {}",
                    listed(names)
                ));
            }
        }
        let mut segments = Vec::new();
        for segment in op.path.trim_start_matches("/v1/").split('/') {
            let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                segments.push(segment.to_owned());
                continue;
            };
            let at = format!("path.{name}");
            let param = op.path_params.iter().find(|p| p.name == name);
            match (given.get(name), param) {
                (Some(value), Some(param)) => {
                    if let Some(text) = self.scalar(&at, param, value) {
                        if !segment_is_safe(&text) {
                            self.push(format!(
                                "`{at}` deve ser um id do Kobana (letras, dígitos, -, _ ou .); recebido {}",
                                shown(value)
                            ));
                        }
                        segments.push(text);
                    }
                }
                _ => self.push(format!("`{at}` é obrigatório nesta operação")),
            }
        }
        segments
    }

    fn query(
        &mut self,
        op: &Operation,
        given: Option<&Map<String, Value>>,
    ) -> Vec<(String, String)> {
        let empty = Map::new();
        let given = given.unwrap_or(&empty);
        let mut pairs = Vec::new();
        for (name, value) in given {
            let at = format!("query.{name}");
            let Some(param) = op.query.iter().find(|p| &p.name == name) else {
                let names = op.query.iter().map(|p| p.name.clone());
                self.push(format!(
                    "`{at}` não existe nesta operação; aceitos: {}",
                    listed(names)
                ));
                continue;
            };
            if let Some(text) = self.scalar(&at, param, value) {
                pairs.push((name.clone(), text));
            }
        }
        for param in op.query.iter().filter(|p| p.required) {
            if !given.contains_key(&param.name) {
                self.push(format!("`query.{}` é obrigatório", param.name));
            }
        }
        pairs
    }

    /// A path or query value, checked against its parameter and written as text. A `true`
    /// or `false` where the parameter is the text `"true"`/`"false"` is taken as that text.
    fn scalar(&mut self, at: &str, param: &Param, value: &Value) -> Option<String> {
        let value = match value {
            Value::Bool(b) if param.code.kind == Kind::String && is_text_boolean(&param.code) => {
                Value::String(b.to_string())
            }
            other => other.clone(),
        };
        let before = self.problems.len();
        if matches!(value, Value::Array(_) | Value::Object(_) | Value::Null) {
            self.push(format!(
                "`{at}` deve ser {}; recebido {}",
                type_name(&param.code.kind),
                kind_of(&value)
            ));
            return None;
        }
        self.value(at, &param.code, &value);
        if self.problems.len() > before {
            return None;
        }
        Some(match value {
            Value::String(s) => s,
            other => other.to_string(),
        })
    }

    fn body(&mut self, op: &Operation, given: Option<&Map<String, Value>>) -> Option<Value> {
        let Some(body) = &op.body else {
            if given.is_some_and(|b| !b.is_empty()) {
                self.push("`body` não é aceito por esta operação: omita-o".to_owned());
            }
            return None;
        };
        if body.media != "json" {
            self.push(format!(
                "esta operação recebe `{}`, que as tools genéricas não enviam",
                body.media
            ));
            return None;
        }
        let value = Value::Object(given.cloned().unwrap_or_default());
        self.named("body", &body.schema, &value);
        Some(value)
    }

    fn named(&mut self, at: &str, name: &str, value: &Value) {
        let Some(schema) = self.facts.schema(name) else {
            self.push(format!("`{at}`: esquema {name} desconhecido"));
            return;
        };
        match (&schema.whole, value) {
            (Some(code), _) => self.value(at, code, value),
            (None, Value::Object(map)) => self.object(at, schema, map),
            (None, other) => self.push(format!(
                "`{at}` deve ser um objeto; recebido {}",
                kind_of(other)
            )),
        }
    }

    fn object(&mut self, at: &str, schema: &Schema, map: &Map<String, Value>) {
        for member in schema.members.iter().filter(|m| m.required) {
            if !map.contains_key(&member.name) {
                self.push(format!("`{at}.{}` é obrigatório", member.name));
            }
        }
        for (name, value) in map {
            if self.full() {
                return;
            }
            let inner = format!("{at}.{name}");
            match (
                schema.members.iter().find(|m| &m.name == name),
                &schema.extra,
            ) {
                (Some(member), _) => self.value(&inner, &member.code, value),
                (None, Extra::Any) => {}
                (None, Extra::Typed(code)) => self.value(&inner, code, value),
                (None, Extra::Closed) => {
                    let names = schema.members.iter().map(|m| m.name.clone());
                    self.push(format!(
                        "`{inner}` não existe aqui; aceitos: {}",
                        listed(names)
                    ));
                }
            }
        }
    }

    /// `value` against `code`.
    fn value(&mut self, at: &str, code: &Code, value: &Value) {
        if value.is_null() {
            if !(code.nullable || code.kind == Kind::Any) {
                self.push(format!("`{at}` não aceita null"));
            }
            return;
        }
        let fits = match &code.kind {
            Kind::String => value.is_string(),
            Kind::Integer => value.is_i64() || value.is_u64(),
            Kind::Number => value.is_number(),
            Kind::Boolean => value.is_boolean(),
            Kind::Object => value.is_object(),
            Kind::Array => value.is_array(),
            Kind::Any => true,
            Kind::Ref(name) => return self.named(at, name, value),
            Kind::OneOf(alternatives) => return self.one_of(at, alternatives, value),
        };
        if !fits {
            self.push(format!(
                "`{at}` deve ser {}; recebido {} {}",
                type_name(&code.kind),
                kind_of(value),
                shown(value)
            ));
            return;
        }
        if let Some(allowed) = &code.allowed
            && !allowed.contains(value)
        {
            let values = allowed
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
            self.push(format!(
                "`{at}` deve ser um destes: {}; recebido {}",
                listed(values),
                shown(value)
            ));
            return;
        }
        match value {
            Value::String(text) => self.text(at, code, text),
            Value::Number(n) => self.number(at, code, n.as_f64().unwrap_or(0.0)),
            Value::Array(items) => self.array(at, code, items),
            _ => {}
        }
    }

    fn one_of(&mut self, at: &str, alternatives: &[Code], value: &Value) {
        let mut first = None;
        for alternative in alternatives {
            let mut trial = Checker {
                facts: self.facts,
                problems: Vec::new(),
            };
            trial.value(at, alternative, value);
            if trial.problems.is_empty() {
                return;
            }
            first.get_or_insert(trial.problems.remove(0));
        }
        self.push(format!(
            "`{at}` não tem nenhuma das {} formas aceitas (a primeira: {})",
            alternatives.len(),
            first.unwrap_or_default()
        ));
    }

    fn text(&mut self, at: &str, code: &Code, text: &str) {
        let chars = text.chars().count();
        if let (Some(min), _) = code.length
            && chars < min
        {
            self.push(format!("`{at}` precisa de ao menos {min} caracteres"));
        }
        if let (_, Some(max)) = code.length
            && chars > max
        {
            self.push(format!(
                "`{at}` aceita até {max} caracteres; recebido {chars}"
            ));
        }
        if let Some(format) = &code.format
            && !has_format(format, text)
            && let Some(label) = format_label(format)
        {
            self.push(format!("`{at}` deve ser {label}; recebido {text:?}"));
        }
        if let Some(pattern) = &code.pattern
            && !regex_lite::Regex::new(pattern).is_ok_and(|re| re.is_match(text))
        {
            self.push(format!(
                "`{at}` não tem a forma pedida ({pattern}); recebido {text:?}"
            ));
        }
    }

    fn number(&mut self, at: &str, code: &Code, x: f64) {
        let fmt = |v: f64| {
            if v.fract() == 0.0 {
                format!("{}", v as i64)
            } else {
                v.to_string()
            }
        };
        if let Some(min) = code.minimum
            && x < min
        {
            self.push(format!("`{at}` deve ser ao menos {}", fmt(min)));
        }
        if let Some(max) = code.maximum
            && x > max
        {
            self.push(format!("`{at}` deve ser no máximo {}", fmt(max)));
        }
        if let Some(min) = code.exclusive_minimum
            && x <= min
        {
            self.push(format!("`{at}` deve ser maior que {}", fmt(min)));
        }
        if let Some(max) = code.exclusive_maximum
            && x >= max
        {
            self.push(format!("`{at}` deve ser menor que {}", fmt(max)));
        }
    }

    fn array(&mut self, at: &str, code: &Code, items: &[Value]) {
        if let (Some(min), _) = code.items
            && items.len() < min
        {
            self.push(format!("`{at}` precisa de ao menos {min} itens"));
        }
        if let (_, Some(max)) = code.items
            && items.len() > max
        {
            self.push(format!(
                "`{at}` aceita até {max} itens; recebido {}",
                items.len()
            ));
        }
        if let Some(item) = &code.item {
            for (n, value) in items.iter().enumerate() {
                if self.full() {
                    return;
                }
                self.value(&format!("{at}[{n}]"), item, value);
            }
        }
    }
}

/// Whether a text code is the document's boolean filter (`"true"` / `"false"`).
fn is_text_boolean(code: &Code) -> bool {
    code.allowed.as_ref().is_some_and(|values| {
        values.len() == 2
            && values.contains(&Value::from("true"))
            && values.contains(&Value::from("false"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FACTS: &str = "\
> post-things-id POST /v1/things/{id} 200 @Thing - json@ThingRequest path.id:s;f=uuid ~query.hard:s;e=true,false ~query.page:i;min=1
Thing id:s
ThingRequest ~status:s;e=open,paid line_items:a;items=1..2[@ThingRequest.line_items] ~slug:s;p=%5E%5Ba-z%5D%2B%24 ~extra:o? ~kind:(n;e=1|n;e=2)
ThingRequest.line_items quantity:i;min=1 ~description:s;len=..5
";

    fn run(path: Value, query: Value, body: Value) -> Result<Checked, String> {
        let facts = Facts::parse(FACTS);
        let op = facts.operation("post-things-id").unwrap();
        check(
            &facts,
            op,
            path.as_object(),
            query.as_object(),
            body.as_object(),
        )
    }

    const ID: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";

    #[test]
    fn wa2_a_valid_call_becomes_the_request_sent() {
        let checked = run(
            json!({"id": ID}),
            json!({"hard": true, "page": 2}),
            json!({"line_items": [{"quantity": 1}], "slug": "abc", "kind": 2, "extra": null}),
        )
        .unwrap();
        assert_eq!(checked.segments, ["things", ID]);
        assert_eq!(
            checked.query,
            [("hard".into(), "true".into()), ("page".into(), "2".into())]
        );
        assert_eq!(checked.body.unwrap()["line_items"][0]["quantity"], 1);
    }

    #[test]
    fn wa2_each_problem_names_its_argument_in_pt_br() {
        let body = |b: Value| run(json!({"id": ID}), json!({}), b).unwrap_err();
        let cases = [
            (
                json!({"line_items": [{"quantity": "1"}]}),
                "`body.line_items[0].quantity` deve ser um número inteiro; recebido um texto \"1\"",
            ),
            (
                json!({"line_items": [{}]}),
                "`body.line_items[0].quantity` é obrigatório",
            ),
            (json!({}), "`body.line_items` é obrigatório"),
            (
                json!({"line_items": [{"quantity": 1}], "status": "x"}),
                "`body.status` deve ser um destes: open, paid; recebido \"x\"",
            ),
            (
                json!({"line_items": [{"quantity": 1}], "nope": 1}),
                "`body.nope` não existe aqui; aceitos: status, line_items, slug, extra, kind",
            ),
            (
                json!({"line_items": [{"quantity": 0}]}),
                "`body.line_items[0].quantity` deve ser ao menos 1",
            ),
            (
                json!({"line_items": [{"quantity": 1, "description": "longo demais"}]}),
                "`body.line_items[0].description` aceita até 5 caracteres",
            ),
            (
                json!({"line_items": []}),
                "`body.line_items` precisa de ao menos 1 itens",
            ),
            (
                json!({"line_items": [{"quantity": 1}], "slug": "A B"}),
                "`body.slug` não tem a forma pedida",
            ),
            (
                json!({"line_items": [{"quantity": 1}], "kind": 3}),
                "`body.kind` não tem nenhuma das 2 formas aceitas",
            ),
        ];
        for (given, expected) in cases {
            let problem = body(given.clone());
            assert!(problem.contains(expected), "{given}: {problem}");
        }
        let problem = run(
            json!({"id": "../x"}),
            json!({}),
            json!({"line_items": [{"quantity": 1}]}),
        )
        .unwrap_err();
        assert!(problem.contains("`path.id` deve ser um UUID"), "{problem}");
        let problem = run(json!({}), json!({"nope": 1, "page": 0}), json!({})).unwrap_err();
        for expected in [
            "`path.id` é obrigatório",
            "`query.nope` não existe nesta operação; aceitos: hard, page",
            "`query.page` deve ser ao menos 1",
            "`body.line_items` é obrigatório",
        ] {
            assert!(problem.contains(expected), "{problem}");
        }
        let problem = run(json!({"id": [ID]}), json!({}), json!({})).unwrap_err();
        assert!(
            problem.contains("`path.id` deve ser um texto; recebido uma lista"),
            "{problem}"
        );
    }

    #[test]
    fn formats_are_checked_like_kobana_reads_them() {
        assert!(has_format("uuid", ID));
        assert!(!has_format("uuid", " 47378190-96da-4dac-b2ff-5d2a386ecbe0"));
        assert!(has_format("date", "2026-08-31"));
        assert!(!has_format("date", "2026-02-30"));
        assert!(has_format("date-time", "2026-08-31T12:00:00-03:00"));
        assert!(!has_format("date-time", "2026-08-31"));
        assert!(has_format("email", "ana@example.com"));
        assert!(!has_format("email", "ana at example"));
    }
}
