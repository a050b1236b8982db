//! The runtime subset of the contract that the server binary embeds
//! (`shared/data/contract.txt`, read by `kobana_mcp::kobana::contract`): every operation's
//! method, path, success statuses and answer schema, and each answer schema's members with
//! their type, nullability, requiredness and enum, nothing else (no descriptions, formats or
//! request bodies), one line per schema. `kobana-mcp check` and the drift check read it.
//!
//! ```text
//! > invoices.get GET /v1/invoices/{id} 200 InvoiceResponse
//! > post-usage POST /v1/usage 200|207 UsageRecordCreateResponse
//! InvoiceV1 id:s ~external_id:s? status:s=draft|open|paid|void|uncollectible line_items:a[@InvoiceLineItemV1
//! ```
//!
//! A member is `[~]name:code` (`~`: optional); a code is `@Schema`, a type letter (`s`
//! string, `i` integer, `n` number, `b` boolean, `o` object, `a` array, `*` anything) or
//! `{code,code}` (any of the alternatives), then `?` when null is allowed, then `=a|b` (the
//! enum, or the one `const` value) or `[code` (an array's item). A schema line whose name
//! ends in `+` takes members it does not list (the checker never refuses extra members
//! anyway). An inline object becomes a schema of its own named `Owner.member`, an inline
//! answer one named `<operation id>.answer`; the members of an `allOf` are merged into one
//! line.

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
        let alternatives = if field.one_of.is_empty() {
            &field.any_of
        } else {
            &field.one_of
        };
        if !alternatives.is_empty() {
            let codes: Vec<String> = alternatives
                .iter()
                .enumerate()
                .map(|(n, alt)| self.code(alt, &format!("{hint}_{n}")))
                .collect();
            return format!("{{{}}}{nullable}", codes.join(","));
        }
        if let Some(name) = &field.schema {
            self.want(name);
            return format!("@{name}{nullable}");
        }
        let ty = letter(field.ty);
        if !field.all_of.is_empty() || (ty == 'o' && field.fields.is_some()) {
            self.pending.push((hint.to_owned(), field));
            return format!("@{hint}{nullable}");
        }
        if ty == 'a'
            && let Some(item) = &field.items
        {
            return format!("a{nullable}[{}", self.code(item, &format!("{hint}_item")));
        }
        let mut code = format!("{ty}{nullable}");
        let values: Vec<String> = match (&field.allowed, &field.constant) {
            (Some(allowed), _) => allowed.iter().filter(|v| !v.is_null()).map(word).collect(),
            (None, Some(constant)) => vec![word(constant)],
            (None, None) => Vec::new(),
        };
        if !values.is_empty() {
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

    /// The members of an object (an `allOf`'s parts merged), whether it takes others, and
    /// which are required.
    fn members(&self, field: &'c Field) -> (BTreeMap<&'c str, &'c Field>, bool, Vec<&'c str>) {
        let mut fields: BTreeMap<&str, &Field> = field
            .fields
            .iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        let mut open = field.is_open();
        let mut required: Vec<&str> = field.required.iter().map(String::as_str).collect();
        for part in &field.all_of {
            let part = match part.schema.as_deref().and_then(|n| self.contract.schema(n)) {
                Some(named) => named,
                None => part,
            };
            let (theirs, their_open, their_required) = self.members(part);
            fields.extend(theirs);
            open |= their_open;
            required.extend(their_required);
        }
        (fields, open, required)
    }

    fn line(&mut self, name: &str, field: &'c Field) -> String {
        if field.fields.is_none() && field.all_of.is_empty() {
            return format!("{name} {}", self.code(field, name));
        }
        let (fields, open, required) = self.members(field);
        let mut line = format!("{name}{}", if open { "+" } else { "" });
        for (member, f) in fields {
            let code = self.code(f, &format!("{name}.{member}"));
            let required = required.contains(&member);
            if code == "*" && !required {
                continue;
            }
            let optional = if required { "" } else { "~" };
            let _ = write!(line, " {optional}{member}:{code}");
        }
        line
    }
}

/// An enum value as a word of the line.
fn word(v: &serde_json::Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
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
        let success = &op.success;
        let answer = match (&success.schema, &success.field, &success.binary) {
            (Some(schema), _, _) => {
                writer.want(schema);
                schema.clone()
            }
            (None, Some(field), _) => {
                let name = format!("{}.answer", op.id);
                writer.pending.push((name.clone(), field));
                name
            }
            (None, None, Some(binary)) => {
                format!("={}", binary.trim_start_matches("content-type "))
            }
            (None, None, None) => "=".to_owned(),
        };
        let statuses: Vec<String> = std::iter::once(success.status)
            .chain(success.also.iter().copied())
            .map(|s| s.to_string())
            .collect();
        let _ = writeln!(
            out,
            "> {} {} {} {} {answer}",
            op.id,
            op.method,
            op.path,
            statuses.join("|")
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
