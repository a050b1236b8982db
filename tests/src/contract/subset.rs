//! The runtime subset of the contract that the server binary embeds
//! (`shared/data/contract.txt`, read by `kobana_mcp::kobana::contract`): every operation's
//! method, path, success status and answer schema, and each answer schema's members with
//! their type, nullability, requiredness and enum, nothing else (no descriptions, formats or
//! request bodies), one line per schema. `kobana-mcp check` and the drift check read it.
//!
//! ```text
//! > invoices.get GET /v1/invoices/{id} 200 InvoiceResponse
//! InvoiceV1 id:s ~external_id:s? status:s=draft|open|paid|void|uncollectible line_items:a[@InvoiceLineItemV1
//! ```
//!
//! A member is `[~]name:code` (`~`: optional); a code is `@Schema` or a type letter (`s`
//! string, `i` integer, `n` number, `b` boolean, `o` object, `a` array, `*` anything), then `?`
//! when null is allowed, then `=a|b` (the enum) or `[code` (an array's item). A schema line
//! whose name ends in `+` takes members it does not list (the checker never refuses extra
//! members anyway). An inline object becomes a schema of its own named `Owner.member`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{Contract, Field, Type};

/// The subset's first line (it names where it comes from).
pub const HEADER: &str =
    "# kobana-mcp runtime contract: derived from tests/contract/billing-v1.json, do not edit";

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

/// Walks the answer schemas, writing their lines.
struct Writer<'c> {
    contract: &'c Contract,
    done: BTreeSet<String>,
    pending: Vec<(String, &'c Field)>,
}

impl<'c> Writer<'c> {
    fn code(&mut self, field: &'c Field, hint: &str) -> String {
        let nullable = if field.nullable { "?" } else { "" };
        if let Some(name) = &field.schema {
            self.want(name);
            return format!("@{name}{nullable}");
        }
        let ty = letter(field.ty);
        if ty == 'o' && field.fields.is_some() {
            self.pending.push((hint.to_owned(), field));
            return format!("@{hint}{nullable}");
        }
        if ty == 'a'
            && let Some(item) = &field.items
        {
            return format!("a{nullable}[{}", self.code(item, &format!("{hint}_item")));
        }
        let mut code = format!("{ty}{nullable}");
        if let Some(allowed) = &field.allowed {
            let values: Vec<String> = allowed
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect();
            let _ = write!(code, "={}", values.join("|"));
        }
        code
    }

    fn want(&mut self, name: &str) {
        if let Some(field) = self.contract.schema(name)
            && !self.done.contains(name)
            && !self.pending.iter().any(|(n, _)| n == name)
        {
            self.pending.push((name.to_owned(), field));
        }
    }

    fn line(&mut self, name: &str, field: &'c Field) -> String {
        let Some(fields) = &field.fields else {
            return format!("{name} {}", self.code(field, name));
        };
        let open = if field.additional == Some(true) {
            "+"
        } else {
            ""
        };
        let mut line = format!("{name}{open}");
        for (member, f) in fields {
            let code = self.code(f, &format!("{name}.{member}"));
            let required = field.required.contains(member);
            if code == "*" && !required {
                continue;
            }
            let optional = if required { "" } else { "~" };
            let _ = write!(line, " {optional}{member}:{code}");
        }
        line
    }
}

/// The subset's text, derived from `contract`.
pub fn runtime_subset(contract: &Contract) -> String {
    let mut writer = Writer {
        contract,
        done: BTreeSet::new(),
        pending: Vec::new(),
    };
    let mut out = format!("{HEADER}\n");
    for op in &contract.operations {
        let answer = match (&op.success.schema, &op.success.binary) {
            (Some(schema), _) => {
                writer.want(schema);
                schema.clone()
            }
            (None, Some(binary)) => format!("={}", binary.trim_start_matches("content-type ")),
            (None, None) => "=".to_owned(),
        };
        let _ = writeln!(
            out,
            "> {} {} {} {} {answer}",
            op.id, op.method, op.path, op.success.status
        );
    }
    let mut lines = BTreeMap::new();
    while let Some((name, field)) = writer.pending.pop() {
        if writer.done.insert(name.clone()) {
            let line = writer.line(&name, field);
            lines.insert(name, line);
        }
    }
    for line in lines.values() {
        out.push_str(line);
        out.push('\n');
    }
    out
}
