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
//! the body (`json@Schema`, `multipart@Schema`, `-`), then each parameter as
//! `[~]path.<name>:<code>` or `[~]query.<name>:<code>` (`~`: optional).
//!
//! A schema line: its name, then `+` (any other member allowed) or `+<code>` (other members of
//! that type) when it takes members it does not list, then each member as `[~]name:<code>`;
//! or, for a schema that is not an object with members, `=<code>`. An inline object becomes a
//! schema of its own named `Owner.member` (an array's item too; an alternative `Owner.member.N`).
//!
//! A code: a type letter (`s` string, `i` integer, `n` number, `b` boolean, `o` object, `a`
//! array, `*` anything), `@Schema`, or `(code|code…)` (one of the alternatives); then `?` when
//! null is allowed, `;f=` format, `;e=` enum (values comma-separated), `;min=`/`;max=` bounds,
//! `;xmin=`/`;xmax=` exclusive bounds, `;len=a..b` characters, `;items=a..b` array items, `;p=`
//! pattern, and `[code]` an array's item. Values are percent-encoded (anything but ASCII
//! letters, digits and `_.-+:/@`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{Contract, Field, Operation, Type};

/// The file's first line (it names where it comes from).
pub const HEADER: &str =
    "# kobana-mcp operations: derived from tests/contract/billing-v1.json, do not edit";

/// Kobana's operationId of `op`: the contract's own when it carries one, else the rule every
/// operationId of the document follows (`<method>-<path under /v1, / and _ as ->`, lower case).
pub fn operation_id(op: &Operation) -> String {
    let path = op.path.trim_start_matches("/v1/");
    let words: String = path
        .chars()
        .filter(|c| !matches!(c, '{' | '}'))
        .map(|c| if matches!(c, '/' | '_') { '-' } else { c })
        .collect();
    format!("{}-{words}", op.method.to_ascii_lowercase()).to_ascii_lowercase()
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

/// Walks the schemas an operation names, writing their lines.
struct Writer<'c> {
    contract: &'c Contract,
    lines: BTreeMap<String, String>,
    pending: Vec<(String, &'c Field)>,
    wanted: BTreeSet<String>,
}

impl<'c> Writer<'c> {
    fn want(&mut self, name: &str) {
        if let Some(field) = self.contract.schema(name)
            && self.wanted.insert(name.to_owned())
        {
            self.pending.push((name.to_owned(), field));
        }
    }

    /// The code of `field`; `hint` names an inline object it holds.
    fn code(&mut self, field: &'c Field, hint: &str) -> String {
        let mut code = if let Some(name) = &field.schema {
            self.want(name);
            format!("@{name}")
        } else if field.ty == Some(Type::Object) && field.fields.is_some() {
            if self.wanted.insert(hint.to_owned()) {
                self.pending.push((hint.to_owned(), field));
            }
            format!("@{hint}")
        } else {
            letter(field.ty).to_string()
        };
        if field.nullable {
            code.push('?');
        }
        if field.schema.is_some() || code.starts_with('@') {
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
        if let Some(allowed) = &field.allowed {
            let values: Vec<String> = allowed
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| encode(&v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                .collect();
            let _ = write!(code, ";e={}", values.join(","));
        }
        if let Some(min) = field.minimum {
            let _ = write!(code, ";min={}", number(min));
        }
        if let Some(max) = field.maximum {
            let _ = write!(code, ";max={}", number(max));
        }
        if field.min_length.is_some() || field.max_length.is_some() {
            let _ = write!(code, ";len={}", range(field.min_length, field.max_length));
        }
        if field.min_items.is_some() || field.max_items.is_some() {
            let _ = write!(code, ";items={}", range(field.min_items, field.max_items));
        }
    }

    fn line(&mut self, name: &str, field: &'c Field) -> String {
        let Some(fields) = &field.fields else {
            let code = self.code(field, name);
            return format!("{name} ={code}");
        };
        let mut line = name.to_owned();
        if field.additional == Some(true) {
            line.push_str(" +");
        }
        for (member, f) in fields {
            let code = self.code(f, &format!("{name}.{member}"));
            let optional = if field.required.contains(member) {
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
        let answer = match (&op.success.schema, &op.success.binary) {
            (Some(schema), _) => {
                writer.want(schema);
                format!("@{schema}")
            }
            (None, Some(binary)) => format!("={}", binary.trim_start_matches("content-type ")),
            (None, None) => "-".to_owned(),
        };
        let body = match &op.body {
            Some(body) => {
                writer.want(&body.schema);
                format!("json@{}", body.schema)
            }
            None => "-".to_owned(),
        };
        let id = operation_id(op);
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
            let _ = write!(out, " ~query.{name}:{code}");
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
