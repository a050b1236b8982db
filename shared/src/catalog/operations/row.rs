//! One reviewed row per operation of Kobana's billing API: what the document cannot say.
//!
//! The facts of an operation (method, path, parameters, body and answer schemas) come from
//! the contract (`tests/contract/billing-v1.json`, generated into `shared/data/`). A row adds
//! what a person decides and reviews like code: a pt-BR title and search words, the effect
//! class (by what the operation does, never by its verb), the unit of its money fields where
//! the schema-level table ([`super::units`]) does not settle them, the confirmation sentence
//! of a destructive row, and, for what must never pass through a model, why it is excluded.

use super::template::{Template, TemplateError};

/// What an operation does to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Changes nothing at Kobana a person would see (every GET, and the three POST look-ups).
    Read,
    /// Creates or changes data in a way the API itself can undo, and moves no money.
    Write,
    /// Removes data, ends or reverses something with no documented undo, moves or grants
    /// money, or issues a fiscal document. Asked first (era 2026, clients with forms).
    Destructive {
        /// The pt-BR sentence of the question, a template over the request that would be
        /// sent (see [`Row::asks`]).
        asks: &'static str,
    },
}

/// The unit of one money (or percent) field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Centavos: ÷100 is reais.
    Cents,
    /// Subcentavos: ÷10 000 is reais.
    Subcents,
    /// Reais, as a decimal number or a decimal string.
    Reais,
    /// A percentage (`5` or `"5.00"` = 5 %).
    Percent,
    /// A fraction (`0.05` = 5 %).
    Fraction,
    /// The unit is in doubt (the document contradicts itself, or it depends on another
    /// field): shown as Kobana sent it with this pt-BR note, never turned into BRL.
    Uncertain(&'static str),
}

/// One reviewed row.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// Kobana's `operationId` (`patch-invoices-id`).
    pub operation: &'static str,
    /// Short pt-BR title (`Alterar fatura`).
    pub title: &'static str,
    /// Search words, pt-BR and English, space-separated, accents allowed: what a finance
    /// person would say when they want this operation (`prorrogar vencimento data …`).
    pub words: &'static str,
    /// What it does.
    pub class: Class,
    /// Units of the row's own money fields not settled by the schema-level table, by
    /// place: `query.<name>`, `path.<name>`, `body.<dotted.path>` or `answer.<dotted.path>`
    /// (from the answer's root, arrays walked through: `answer.data.amount_cents`). A row's
    /// entry wins over the table; untyped answers get theirs here.
    pub units: &'static [(&'static str, Unit)],
    /// `Some(why)`, in pt-BR: the operation never goes through a model (raw card data,
    /// certificates and their passwords, captured provider traffic, team and role
    /// administration). The generic tools refuse it with this text and call nothing.
    pub excluded: Option<&'static str>,
    /// Why the class differs from the verb or from the first reading in
    /// `kobana-billing-operations.md`, or why a sensitive operation is not excluded; empty
    /// when there is nothing to explain.
    pub why: &'static str,
}

impl Row {
    /// The confirmation sentence template of a destructive row.
    ///
    /// Template language ([`super::template`], which parses, checks and renders it): literal
    /// pt-BR text with placeholders `{path.<name>}`, `{query.<name>}`, `{body.<dotted.path>}`
    /// and `{record}`; plain groups `[…]`, kept only when every placeholder directly inside
    /// has a value; conditional groups `[?place: …]`, `[!place: …]`, `[?place=value: …]` and
    /// `[!place=value: …]`, kept when the member is sent, not sent, sent with that value, or
    /// not sent with it (the text starts right after the colon).
    ///
    /// `{record}` is the record the path names, described from Kobana (number, amount, key
    /// date) to follow its noun: "a fatura {record}". It is read with the GET of the longest
    /// path prefix that ends in a parameter and has one ([`super::template::record_path`]).
    ///
    /// A placeholder may name only a field that is not free text (an id, a date, an enum
    /// value, a number, a boolean, money of a certain unit); money is rendered in BRL by its
    /// unit. A placeholder shown whatever the request (outside plain groups, not guarded by
    /// `[?place…]` on itself) names a path parameter, the record or a required member. Free-text
    /// members are never put in the sentence: the question appends every member that will be
    /// sent, free text as quoted data. The sentence states what will run and its consequence
    /// (money that moves, a fiscal document issued, what cannot be undone).
    pub fn asks(&self) -> Option<&'static str> {
        match self.class {
            Class::Destructive { asks } => Some(asks),
            _ => None,
        }
    }

    /// The parsed sentence of a destructive row; `None` for a read or a write.
    pub fn template(&self) -> Option<Result<Template<'static>, TemplateError>> {
        self.asks().map(Template::parse)
    }
}
