//! The operation facts the server binary embeds for its generic tools
//! (`shared/data/operations.txt`, read lazily by `kobana_mcp::catalog::operations::facts`):
//! every operation's method, path, success status and answer, pagination style, body and
//! parameters, and every schema they name with what an argument check needs (type,
//! nullability, enum, format, pattern, bounds, requiredness, extra members, alternatives),
//! nothing else (no descriptions, defaults or units: units are reviewed in the rows).
//!
//! ```text
//! > get-invoices GET /v1/invoices 200 @InvoiceListResponse page - ~query.page:i;min=1 …
//! InvoiceCreateRequest billing_account_id:s;f=uuid ~line_items:a;items=1..200[@InvoiceLineItemCreateInput] …
//! ```
//!
//! An operation line: `>`, the operationId, method, path, success status, the answer (`@Schema`,
//! `=media/type` for a binary document, `-` for none), the pagination (`page`, `offset`, `-`),
//! the body (`json@Schema`, `multipart@Schema`, `-`; an inline answer or body is a schema of
//! its own named `<operationId>.answer` / `<operationId>.body`), then each parameter as
//! `[~]path.<name>:<code>` or `[~]query.<name>:<code>` (`~`: optional).
//!
//! A schema line: its name, then `+` (any other member allowed) or `+<code>` (other members of
//! that type) when it takes members it does not list, then each member as `[~]name:<code>`;
//! or, for a schema that is not an object with members, `=<code>`. An inline object becomes a
//! schema of its own named `Owner.member` (an array's item too; an alternative `Owner.member.N`;
//! the type of an open object's other members `Owner.extra`), and `allOf` parts are merged
//! into one object.
//!
//! A code: a type letter (`s` string, `i` integer, `n` number, `b` boolean, `o` object, `a`
//! array, `*` anything), `@Schema`, or `(code|code…)` (one of the alternatives); then `?` when
//! null is allowed, `;f=` format, `;e=` enum (values comma-separated; a `const` is an enum of
//! one), `;min=`/`;max=` bounds, `;xmin=` exclusive minimum, `;len=a..b` characters, `;items=a..b` array items, `;p=`
//! pattern, and `[code]` an array's item. Values are percent-encoded (anything but ASCII
//! letters, digits and `_.-+:/@`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{Contract, Field, Operation, Type};

/// The file's first line (it names where it comes from).
pub const HEADER: &str =
    "# kobana-mcp operations: derived from tests/contract/billing-v1.json, do not edit";

/// Kobana's operationId of `op`.
pub fn operation_id(op: &Operation) -> String {
    op.operation_id.clone()
}

/// `text` with every character but ASCII letters, digits and `_.-+:/@` percent-encoded.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"_.-+:/@".contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

fn letter(ty: Option<Type>) -> char {
    match ty {
        Some(Type::String) => 's',
        Some(Type::Integer) => 'i',
        Some(Type::Number) => 'n',
        Some(Type::Boolean) => 'b',
        Some(Type::Object) => 'o',
        Some(Type::Array) => 'a',
        Some(Type::Any) | None => '*',
    }
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn range(min: Option<usize>, max: Option<usize>) -> String {
    let side = |v: Option<usize>| v.map(|v| v.to_string()).unwrap_or_default();
    format!("{}..{}", side(min), side(max))
}

/// An object's members, `allOf` parts merged: each member with its field and whether it is
/// required, and what the object takes besides them.
#[derive(Default)]
struct Members<'c> {
    fields: BTreeMap<&'c str, &'c Field>,
    required: BTreeSet<&'c str>,
    open: bool,
    extra: Option<&'c Field>,
}

/// Walks the schemas an operation names, writing their lines.
struct Writer<'c> {
    contract: &'c Contract,
    lines: BTreeMap<String, String>,
    pending: Vec<(String, &'c Field)>,
    wanted: BTreeSet<String>,
}

/// Whether `field` is an object described member by member (or by its `allOf` parts).
fn is_object(field: &Field) -> bool {
    field.fields.is_some() || !field.all_of.is_empty() || field.additional_field().is_some()
}

impl<'c> Writer<'c> {
    fn want(&mut self, name: &str) {
        if let Some(field) = self.contract.schema(name)
            && self.wanted.insert(name.to_owned())
        {
            self.pending.push((name.to_owned(), field));
        }
    }

    /// An inline schema of its own, named `hint`.
    fn inline(&mut self, hint: &str, field: &'c Field) -> String {
        if self.wanted.insert(hint.to_owned()) {
            self.pending.push((hint.to_owned(), field));
        }
        format!("@{hint}")
    }

    /// The code of `field`; `hint` names an inline object it holds.
    fn code(&mut self, field: &'c Field, hint: &str) -> String {
        let alternatives = if field.one_of.is_empty() {
            &field.any_of
        } else {
            &field.one_of
        };
        let mut code = if !alternatives.is_empty() {
            let codes: Vec<String> = alternatives
                .iter()
                .enumerate()
                .map(|(n, alt)| self.code(alt, &format!("{hint}.{n}")))
                .collect();
            format!("({})", codes.join("|"))
        } else if let Some(name) = &field.schema {
            self.want(name);
            format!("@{name}")
        } else if is_object(field) {
            self.inline(hint, field)
        } else {
            letter(field.ty).to_string()
        };
        if field.nullable {
            code.push('?');
        }
        if code.starts_with('@') || code.starts_with('(') {
            return code;
        }
        self.attributes(field, &mut code);
        if let Some(item) = &field.items {
            let item = self.code(item, hint);
            let _ = write!(code, "[{item}]");
        }
        code
    }

    fn attributes(&self, field: &Field, code: &mut String) {
        if let Some(format) = &field.format {
            let _ = write!(code, ";f={}", encode(format));
        }
        let allowed = field
            .allowed
            .clone()
            .or_else(|| field.constant.clone().map(|c| vec![c]));
        if let Some(allowed) = allowed {
            let values: Vec<String> = allowed
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| encode(&v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                .collect();
            let _ = write!(code, ";e={}", values.join(","));
        }
        for (key, bound) in [
            ("min", field.minimum),
            ("max", field.maximum),
            ("xmin", field.exclusive_minimum),
        ] {
            if let Some(x) = bound {
                let _ = write!(code, ";{key}={}", number(x));
            }
        }
        if field.min_length.is_some() || field.max_length.is_some() {
            let _ = write!(code, ";len={}", range(field.min_length, field.max_length));
        }
        if field.min_items.is_some() || field.max_items.is_some() {
            let _ = write!(code, ";items={}", range(field.min_items, field.max_items));
        }
        if let Some(pattern) = &field.pattern {
            let _ = write!(code, ";p={}", encode(pattern));
        }
    }

    /// `field`'s members, its `allOf` parts' merged in (refs resolved).
    fn members(&self, field: &'c Field, into: &mut Members<'c>) {
        let field = match field
            .schema
            .as_deref()
            .and_then(|n| self.contract.schema(n))
        {
            Some(named) => named,
            None => field,
        };
        for part in &field.all_of {
            self.members(part, into);
        }
        if let Some(fields) = &field.fields {
            into.fields
                .extend(fields.iter().map(|(k, f)| (k.as_str(), f)));
        }
        into.required
            .extend(field.required.iter().map(String::as_str));
        into.open |= field.is_open() && field.additional_field().is_none();
        into.extra = into.extra.or(field.additional_field());
    }

    fn line(&mut self, name: &str, field: &'c Field) -> String {
        if !(is_object(field) && field.any_of.is_empty() && field.one_of.is_empty()) {
            let code = self.code(field, name);
            return format!("{name} ={code}");
        }
        let mut members = Members::default();
        self.members(field, &mut members);
        let mut line = name.to_owned();
        match members.extra {
            Some(extra) => {
                let code = self.code(extra, &format!("{name}.extra"));
                let _ = write!(line, " +{code}");
            }
            None if members.open => line.push_str(" +"),
            None => {}
        }
        for (member, f) in &members.fields {
            let code = self.code(f, &format!("{name}.{member}"));
            let optional = if members.required.contains(member) {
                ""
            } else {
                "~"
            };
            let _ = write!(line, " {optional}{member}:{code}");
        }
        line
    }
}

fn paging(op: &Operation) -> &'static str {
    if op.query.contains_key("page") && op.query.contains_key("per_page") {
        "page"
    } else if op.query.contains_key("limit") && op.query.contains_key("offset") {
        "offset"
    } else {
        "-"
    }
}

/// The file's text, derived from `contract`.
pub fn operation_facts(contract: &Contract) -> String {
    let mut writer = Writer {
        contract,
        lines: BTreeMap::new(),
        pending: Vec::new(),
        wanted: BTreeSet::new(),
    };
    let mut out = format!("{HEADER}\n");
    for op in &contract.operations {
        let id = operation_id(op);
        let answer = match (&op.success.schema, &op.success.field, &op.success.binary) {
            (Some(schema), _, _) => {
                writer.want(schema);
                format!("@{schema}")
            }
            (None, Some(field), _) => writer.inline(&format!("{id}.answer"), field),
            (None, None, Some(binary)) => {
                format!("={}", binary.trim_start_matches("content-type "))
            }
            (None, None, None) => "-".to_owned(),
        };
        let body = match &op.body {
            Some(body) => {
                let media = if body.is_multipart() {
                    "multipart"
                } else {
                    "json"
                };
                let schema = match (&body.schema, &body.field) {
                    (Some(schema), _) => {
                        writer.want(schema);
                        format!("@{schema}")
                    }
                    (None, Some(field)) => writer.inline(&format!("{id}.body"), field),
                    (None, None) => "@-".to_owned(),
                };
                format!("{media}{schema}")
            }
            None => "-".to_owned(),
        };
        let _ = write!(
            out,
            "> {id} {} {} {} {answer} {} {body}",
            op.method,
            op.path,
            op.success.status,
            paging(op)
        );
        // In the path's order; a parameter the contract leaves undeclared is a string.
        for name in op
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        {
            let code = match op.path_params.get(name) {
                Some(field) => writer.code(field, &format!("{id}.path.{name}")),
                None => "s".to_owned(),
            };
            let _ = write!(out, " path.{name}:{code}");
        }
        for (name, field) in &op.query {
            let code = writer.code(field, &format!("{id}.query.{name}"));
            let optional = if op.required_query.contains(name) {
                ""
            } else {
                "~"
            };
            let _ = write!(out, " {optional}query.{name}:{code}");
        }
        out.push('\n');
    }
    while let Some((name, field)) = writer.pending.pop() {
        let line = writer.line(&name, field);
        writer.lines.insert(name, line);
    }
    for line in writer.lines.values() {
        out.push_str(line);
        out.push('\n');
    }
    out
}
