//! The facts of every operation, as the binary carries them: `data/operations.txt`, derived
//! from the contract by the tests crate (`contract::operations`, which documents the format
//! and fails when the two disagree). Parsed once, on the first use of a generic tool.
//!
//! Per operation: method, path, success status and answer, pagination style, body and
//! parameters; per schema: what checking an argument needs (type, nullability, enum, format,
//! pattern, bounds, requiredness, extra members, alternatives).

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::Value;

/// The embedded facts, verbatim.
pub const OPERATIONS_TXT: &str = include_str!("../../../data/operations.txt");

static FACTS: LazyLock<Facts> = LazyLock::new(|| Facts::parse(OPERATIONS_TXT));

/// The parsed facts (parsed once per process, on first use).
pub fn facts() -> &'static Facts {
    &FACTS
}

/// Every operation and the schemas they name.
#[derive(Debug, Default)]
pub struct Facts {
    operations: Vec<Operation>,
    by_id: HashMap<String, usize>,
    schemas: HashMap<String, Schema>,
}

/// One operation's facts.
#[derive(Debug)]
pub struct Operation {
    /// Kobana's operationId (`patch-invoices-id`).
    pub id: String,
    /// HTTP method, upper case.
    pub method: String,
    /// Path template (`/v1/invoices/{id}`).
    pub path: String,
    /// The documented success status.
    pub status: u16,
    /// What a success carries.
    pub answer: Answer,
    /// How its list is paged.
    pub paging: Paging,
    /// The body schema, if the operation takes one.
    pub body: Option<Body>,
    /// Path parameters, in the path's order (all required).
    pub path_params: Vec<Param>,
    /// Query parameters.
    pub query: Vec<Param>,
}

/// What a success carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A JSON envelope described by this schema.
    Json(String),
    /// A binary document of this media type.
    Binary(String),
    /// Nothing the document describes.
    None,
}

/// How an operation's list is paged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paging {
    /// `page` and `per_page`.
    Page,
    /// `limit` and `offset`.
    Offset,
    /// Not paged.
    None,
}

/// An operation's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// `json` or `multipart`.
    pub media: String,
    /// Its schema.
    pub schema: String,
}

/// A path or query parameter.
#[derive(Debug)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Whether it must be given.
    pub required: bool,
    /// Its type and constraints.
    pub code: Code,
}

/// A named schema: an object's members, or one code.
#[derive(Debug)]
pub struct Schema {
    /// The members of an object.
    pub members: Vec<Member>,
    /// What an object takes beyond its members.
    pub extra: Extra,
    /// A schema that is not an object with members: its code.
    pub whole: Option<Code>,
}

/// What an object takes beyond the members it lists.
#[derive(Debug)]
pub enum Extra {
    /// Nothing else.
    Closed,
    /// Anything else.
    Any,
    /// Other members of this type.
    Typed(Box<Code>),
}

/// One member of an object schema.
#[derive(Debug)]
pub struct Member {
    /// Its name.
    pub name: String,
    /// Whether it must be present.
    pub required: bool,
    /// Its type and constraints.
    pub code: Code,
}

/// A value's type.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A string.
    String,
    /// An integer.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// An object with any members.
    Object,
    /// An array.
    Array,
    /// Anything.
    Any,
    /// The named schema.
    Ref(String),
    /// One of these.
    OneOf(Vec<Code>),
}

/// A type with its constraints.
#[derive(Debug, Clone, PartialEq)]
pub struct Code {
    /// The type.
    pub kind: Kind,
    /// Whether `null` is accepted.
    pub nullable: bool,
    /// `uuid`, `date`, `date-time`, `email`.
    pub format: Option<String>,
    /// The accepted values.
    pub allowed: Option<Vec<Value>>,
    /// Smallest accepted number.
    pub minimum: Option<f64>,
    /// Largest accepted number.
    pub maximum: Option<f64>,
    /// Smallest accepted number, excluded.
    pub exclusive_minimum: Option<f64>,
    /// Largest accepted number, excluded.
    pub exclusive_maximum: Option<f64>,
    /// Fewest and most characters of a string.
    pub length: (Option<usize>, Option<usize>),
    /// Fewest and most items of an array.
    pub items: (Option<usize>, Option<usize>),
    /// The pattern a string matches.
    pub pattern: Option<String>,
    /// An array's item.
    pub item: Option<Box<Code>>,
}

impl Code {
    fn of(kind: Kind) -> Self {
        Self {
            kind,
            nullable: false,
            format: None,
            allowed: None,
            minimum: None,
            maximum: None,
            exclusive_minimum: None,
            exclusive_maximum: None,
            length: (None, None),
            items: (None, None),
            pattern: None,
            item: None,
        }
    }
}

/// `%XX` escapes decoded (the generator's `encode`).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads codes from a line, one character at a time.
struct Reader<'t> {
    text: &'t [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Up to (not including) the first of `stops`.
    fn until(&mut self, stops: &[u8]) -> String {
        let start = self.at;
        while self.peek().is_some_and(|b| !stops.contains(&b)) {
            self.at += 1;
        }
        String::from_utf8_lossy(&self.text[start..self.at]).into_owned()
    }

    fn code(&mut self) -> Code {
        let kind = match self.peek() {
            Some(b'@') => {
                self.at += 1;
                Kind::Ref(self.until(b"?;[]|)"))
            }
            Some(b'(') => {
                self.at += 1;
                let mut alternatives = vec![self.code()];
                while self.peek() == Some(b'|') {
                    self.at += 1;
                    alternatives.push(self.code());
                }
                self.at += 1; // `)`
                Kind::OneOf(alternatives)
            }
            letter => {
                self.at += 1;
                match letter {
                    Some(b's') => Kind::String,
                    Some(b'i') => Kind::Integer,
                    Some(b'n') => Kind::Number,
                    Some(b'b') => Kind::Boolean,
                    Some(b'o') => Kind::Object,
                    Some(b'a') => Kind::Array,
                    _ => Kind::Any,
                }
            }
        };
        let mut code = Code::of(kind);
        loop {
            match self.peek() {
                Some(b'?') => {
                    self.at += 1;
                    code.nullable = true;
                }
                Some(b'[') => {
                    self.at += 1;
                    code.item = Some(Box::new(self.code()));
                    self.at += 1; // `]`
                }
                Some(b';') => {
                    self.at += 1;
                    let key = self.until(b"=");
                    self.at += 1;
                    let value = self.until(b";?[]|)");
                    code.attribute(&key, &value);
                }
                _ => return code,
            }
        }
    }
}

fn bounds(value: &str) -> (Option<usize>, Option<usize>) {
    let (a, b) = value.split_once("..").unwrap_or((value, value));
    (a.parse().ok(), b.parse().ok())
}

impl Code {
    fn attribute(&mut self, key: &str, value: &str) {
        let number = || value.parse::<f64>().ok();
        match key {
            "f" => self.format = Some(decode(value)),
            "e" => {
                let values: Vec<Value> = value
                    .split(',')
                    .map(|v| self.enum_value(decode(v)))
                    .collect();
                self.allowed = Some(values);
            }
            "min" => self.minimum = number(),
            "max" => self.maximum = number(),
            "xmin" => self.exclusive_minimum = number(),
            "xmax" => self.exclusive_maximum = number(),
            "len" => self.length = bounds(value),
            "items" => self.items = bounds(value),
            "p" => self.pattern = Some(decode(value)),
            _ => {}
        }
    }

    /// An enum value as the JSON value of this code's type.
    fn enum_value(&self, text: String) -> Value {
        match self.kind {
            Kind::Integer | Kind::Number => {
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            }
            Kind::Boolean => match text.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::String(text),
            },
            _ => Value::String(text),
        }
    }
}

/// Parses one code (what follows `name:` or `=`).
pub fn parse_code(text: &str) -> Code {
    Reader {
        text: text.as_bytes(),
        at: 0,
    }
    .code()
}

impl Facts {
    /// Parses the file (see the tests crate's `contract::operations` for the format).
    pub fn parse(text: &str) -> Facts {
        let mut facts = Facts::default();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            match line.strip_prefix("> ") {
                Some(operation) => {
                    let operation = parse_operation(operation);
                    facts
                        .by_id
                        .insert(operation.id.clone(), facts.operations.len());
                    facts.operations.push(operation);
                }
                None => {
                    let (name, schema) = parse_schema(line);
                    facts.schemas.insert(name, schema);
                }
            }
        }
        facts
    }

    /// Every operation, in the contract's order.
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// The operation with this operationId.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.by_id.get(id).map(|&at| &self.operations[at])
    }

    /// The named schema.
    pub fn schema(&self, name: &str) -> Option<&Schema> {
        self.schemas.get(name)
    }

    /// How many schemas the file holds.
    pub fn schema_count(&self) -> usize {
        self.schemas.len()
    }
}

fn parse_operation(line: &str) -> Operation {
    let mut words = line.split(' ');
    let mut next = || words.next().unwrap_or_default().to_owned();
    let (id, method, path, status, answer, paging, body) =
        (next(), next(), next(), next(), next(), next(), next());
    let answer = if let Some(schema) = answer.strip_prefix('@') {
        Answer::Json(schema.to_owned())
    } else if let Some(media) = answer.strip_prefix('=') {
        Answer::Binary(media.to_owned())
    } else {
        Answer::None
    };
    let paging = match paging.as_str() {
        "page" => Paging::Page,
        "offset" => Paging::Offset,
        _ => Paging::None,
    };
    let body = body.split_once('@').map(|(media, schema)| Body {
        media: media.to_owned(),
        schema: schema.to_owned(),
    });
    let (mut path_params, mut query) = (Vec::new(), Vec::new());
    for word in words {
        let (required, word) = match word.strip_prefix('~') {
            Some(rest) => (false, rest),
            None => (true, word),
        };
        let Some((place, code)) = word.split_once(':') else {
            continue;
        };
        let (list, name) = match place.split_once('.') {
            Some(("path", name)) => (&mut path_params, name),
            Some((_, name)) => (&mut query, name),
            None => continue,
        };
        list.push(Param {
            name: name.to_owned(),
            required,
            code: parse_code(code),
        });
    }
    Operation {
        id,
        method,
        path,
        status: status.parse().unwrap_or(200),
        answer,
        paging,
        body,
        path_params,
        query,
    }
}

fn parse_schema(line: &str) -> (String, Schema) {
    let mut words = line.split(' ');
    let name = words.next().unwrap_or_default().to_owned();
    let mut schema = Schema {
        members: Vec::new(),
        extra: Extra::Closed,
        whole: None,
    };
    for word in words {
        if let Some(code) = word.strip_prefix('=') {
            schema.whole = Some(parse_code(code));
        } else if let Some(code) = word.strip_prefix('+') {
            schema.extra = if code.is_empty() {
                Extra::Any
            } else {
                Extra::Typed(Box::new(parse_code(code)))
            };
        } else {
            let (required, word) = match word.strip_prefix('~') {
                Some(rest) => (false, rest),
                None => (true, word),
            };
            if let Some((member, code)) = word.split_once(':') {
                schema.members.push(Member {
                    name: member.to_owned(),
                    required,
                    code: parse_code(code),
                });
            }
        }
    }
    (name, schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wa2_codes_read_every_construct() {
        let code = parse_code("a?;items=1..200[@InvoiceLineItemCreateInput]");
        assert!(code.nullable);
        assert_eq!(code.items, (Some(1), Some(200)));
        assert_eq!(
            code.item.as_deref().map(|c| &c.kind),
            Some(&Kind::Ref("InvoiceLineItemCreateInput".into()))
        );
        let code = parse_code("s;f=uuid;e=a%20b,c%2Cd;len=..500;p=%5E%5Cd%2B%24");
        assert_eq!(code.format.as_deref(), Some("uuid"));
        assert_eq!(
            code.allowed,
            Some(vec![Value::from("a b"), Value::from("c,d")])
        );
        assert_eq!(code.length, (None, Some(500)));
        assert_eq!(code.pattern.as_deref(), Some(r"^\d+$"));
        let code = parse_code("(n;e=1|n;e=2|a[@X])?");
        let Kind::OneOf(alternatives) = &code.kind else {
            panic!("{code:?}")
        };
        assert_eq!(alternatives.len(), 3);
        assert_eq!(alternatives[0].allowed, Some(vec![Value::from(1)]));
        assert!(code.nullable);
        let code = parse_code("i;min=1;max=100;xmin=0");
        assert_eq!(
            (code.minimum, code.maximum, code.exclusive_minimum),
            (Some(1.0), Some(100.0), Some(0.0))
        );
    }

    #[test]
    fn wa2_the_embedded_facts_name_every_schema_they_use() {
        let facts = facts();
        assert!(!facts.operations().is_empty());
        let mut missing = Vec::new();
        let mut check = |code: &Code, at: &str| {
            walk(code, &mut |name| {
                if facts.schema(name).is_none() {
                    missing.push(format!("{at}: {name}"));
                }
            })
        };
        for op in facts.operations() {
            assert!(facts.operation(&op.id).is_some());
            for param in op.path_params.iter().chain(&op.query) {
                check(&param.code, &op.id);
            }
            if let Some(body) = &op.body {
                check(&Code::of(Kind::Ref(body.schema.clone())), &op.id);
            }
            if let Answer::Json(schema) = &op.answer {
                check(&Code::of(Kind::Ref(schema.clone())), &op.id);
            }
        }
        for (name, schema) in &facts.schemas {
            for member in &schema.members {
                check(&member.code, name);
            }
            if let Some(whole) = &schema.whole {
                check(whole, name);
            }
        }
        assert!(missing.is_empty(), "{missing:?}");
    }

    fn walk(code: &Code, found: &mut dyn FnMut(&str)) {
        match &code.kind {
            Kind::Ref(name) => found(name),
            Kind::OneOf(alternatives) => alternatives.iter().for_each(|a| walk(a, found)),
            _ => {}
        }
        if let Some(item) = &code.item {
            walk(item, found);
        }
    }
}
