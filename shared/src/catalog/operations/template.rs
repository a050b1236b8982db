//! The template language of a destructive row's confirmation sentence ([`super::Row::asks`]):
//! parsed and checked here (the rows' tests and the contract test use [`Template::parse`]),
//! rendered by the confirmation machinery through [`Template::render`].
//!
//! A template is pt-BR text with:
//!
//! - **placeholders** `{path.<name>}`, `{query.<name>}`, `{body.<dotted.path>}` and `{record}`,
//!   each replaced by the value the request would send (or, for `{record}`, by a short
//!   description of the record the path names, see [`record_path`]);
//! - **plain groups** `[…]`, kept only when every placeholder directly inside has a value;
//! - **conditional groups**, kept when a request member is present or absent, or has or has
//!   not one value: `[?place: …]` (present), `[!place: …]` (absent), `[?place=value: …]`
//!   (equals) and `[!place=value: …]` (absent or different). The group's text starts right
//!   after the colon, a space there included. `value` is an enum member, `true`, `false` or a
//!   number, compared with the member's JSON text.
//!
//! Groups nest (at most [`MAX_DEPTH`] deep). The characters `{`, `}`, `[` and `]` have no other
//! use: there is no escape.

use serde_json::Value;
use thiserror::Error;

/// Deepest nesting of groups a template may use.
pub const MAX_DEPTH: usize = 4;

/// A template that does not parse: where, and what is wrong (for the rows' authors and tests).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("template error at byte {at}: {what}")]
pub struct TemplateError {
    /// Byte offset in the template.
    pub at: usize,
    /// What is wrong.
    pub what: &'static str,
}

/// Where a value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'t> {
    /// The record the path names, described from Kobana.
    Record,
    /// A path parameter.
    Path(&'t str),
    /// A query parameter.
    Query(&'t str),
    /// A body member by dotted path (arrays walked through).
    Body(&'t str),
}

impl<'t> Place<'t> {
    /// Reads `record`, `path.<name>`, `query.<name>` or `body.<a.b>`.
    fn parse(text: &'t str, at: usize) -> Result<Self, TemplateError> {
        let fail = |what| Err(TemplateError { at, what });
        if text == "record" {
            return Ok(Place::Record);
        }
        let Some((kind, name)) = text.split_once('.') else {
            return fail("a place is record, path.<name>, query.<name> or body.<path>");
        };
        let segment_ok =
            |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        match kind {
            "path" | "query" if !segment_ok(name) => fail("a path or query name is one word"),
            "body" if !name.split('.').all(segment_ok) => fail("a body path is dotted words"),
            "path" => Ok(Place::Path(name)),
            "query" => Ok(Place::Query(name)),
            "body" => Ok(Place::Body(name)),
            _ => fail("a place is record, path.<name>, query.<name> or body.<path>"),
        }
    }

    /// The place as written in a template and in [`super::Row::units`]: `body.amount_cents`.
    pub fn key(&self) -> String {
        match self {
            Place::Record => "record".to_owned(),
            Place::Path(name) => format!("path.{name}"),
            Place::Query(name) => format!("query.{name}"),
            Place::Body(path) => format!("body.{path}"),
        }
    }
}

/// When a group is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition<'t> {
    /// `[…]`: every placeholder directly inside has a value.
    Filled,
    /// `[?place: …]`: the member is sent.
    Present(Place<'t>),
    /// `[!place: …]`: the member is not sent.
    Absent(Place<'t>),
    /// `[?place=value: …]`: the member is sent with this value.
    Equals(Place<'t>, &'t str),
    /// `[!place=value: …]`: the member is not sent, or is sent with another value.
    Differs(Place<'t>, &'t str),
}

impl<'t> Condition<'t> {
    /// The place the condition reads, if any.
    pub fn place(&self) -> Option<&Place<'t>> {
        match self {
            Condition::Filled => None,
            Condition::Present(p) | Condition::Absent(p) => Some(p),
            Condition::Equals(p, _) | Condition::Differs(p, _) => Some(p),
        }
    }
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'t> {
    /// Literal text.
    Text(&'t str),
    /// A placeholder.
    Value(Place<'t>),
    /// A group and what it holds.
    Group(Condition<'t>, Vec<Piece<'t>>),
}

/// The values a template is rendered with: the request that would be sent and the record.
pub trait Values {
    /// The value at `place`, `None` when it is not sent (or is `null`). For
    /// [`Place::Record`], any value: only [`Values::shown`] reads it.
    fn raw(&self, place: &Place<'_>) -> Option<Value>;
    /// How `value` is written in the sentence (money in BRL by its unit, dates as
    /// dd/mm/aaaa, the record described).
    fn shown(&self, place: &Place<'_>, value: &Value) -> String;
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template<'t> {
    /// Its pieces, in order.
    pub pieces: Vec<Piece<'t>>,
}

impl<'t> Template<'t> {
    /// Parses `source`; any error names the byte where it is.
    pub fn parse(source: &'t str) -> Result<Self, TemplateError> {
        let mut parser = Parser {
            src: source,
            pos: 0,
        };
        let pieces = parser.sequence(0)?;
        if parser.pos < source.len() {
            return Err(TemplateError {
                at: parser.pos,
                what: "`]` without a group to close",
            });
        }
        Ok(Template { pieces })
    }

    /// Every place the template names, in placeholders and in conditions.
    pub fn places(&self) -> Vec<Place<'t>> {
        let mut out = Vec::new();
        collect(&self.pieces, &mut |piece| match piece {
            Piece::Value(place) => out.push(*place),
            Piece::Group(cond, _) => out.extend(cond.place().copied()),
            Piece::Text(_) => {}
        });
        out
    }

    /// The places shown by a placeholder (not those only a condition reads), each once.
    pub fn shown(&self) -> Vec<Place<'t>> {
        let mut out: Vec<Place<'t>> = Vec::new();
        collect(&self.pieces, &mut |piece| {
            if let Piece::Value(place) = piece
                && !out.contains(place)
            {
                out.push(*place);
            }
        });
        out
    }

    /// The `(place, value)` of every `=value` condition, to check against the member's type.
    pub fn compared(&self) -> Vec<(Place<'t>, &'t str)> {
        let mut out = Vec::new();
        collect(&self.pieces, &mut |piece| {
            if let Piece::Group(Condition::Equals(p, v) | Condition::Differs(p, v), _) = piece {
                out.push((*p, *v));
            }
        });
        out
    }

    /// The placeholders shown whatever the request: outside every plain group and not
    /// guarded by a condition that the same member is sent. Each must always have a value
    /// (a path parameter, the record, a required member).
    pub fn unguarded(&self) -> Vec<Place<'t>> {
        let mut out = Vec::new();
        unguarded(&self.pieces, &mut Vec::new(), &mut out);
        out
    }

    /// The sentence for `values`. A placeholder with no value outside any group (which
    /// [`Template::unguarded`] rules out in the rows) is written `(não informado)`.
    pub fn render(&self, values: &dyn Values) -> String {
        let mut out = String::new();
        render(&self.pieces, values, &mut out);
        out
    }
}

/// Calls `visit` on every piece, groups' contents included.
fn collect<'t>(pieces: &[Piece<'t>], visit: &mut dyn FnMut(&Piece<'t>)) {
    for piece in pieces {
        visit(piece);
        if let Piece::Group(_, inner) = piece {
            collect(inner, visit);
        }
    }
}

fn unguarded<'t>(pieces: &[Piece<'t>], guards: &mut Vec<Place<'t>>, out: &mut Vec<Place<'t>>) {
    for piece in pieces {
        match piece {
            Piece::Value(place) if !guards.contains(place) => out.push(*place),
            Piece::Group(Condition::Filled, _) | Piece::Value(_) | Piece::Text(_) => {}
            Piece::Group(cond, inner) => {
                let guard = match cond {
                    Condition::Present(p) | Condition::Equals(p, _) => Some(*p),
                    _ => None,
                };
                guards.extend(guard);
                unguarded(inner, guards, out);
                if guard.is_some() {
                    guards.pop();
                }
            }
        }
    }
}

/// The JSON text a condition compares: a string's content, else the value as JSON.
fn compared_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Renders `pieces` into `out`; whether every placeholder directly among them had a value.
fn render(pieces: &[Piece<'_>], values: &dyn Values, out: &mut String) -> bool {
    let mut filled = true;
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Value(place) => match values.raw(place) {
                Some(value) => out.push_str(&values.shown(place, &value)),
                None => {
                    filled = false;
                    out.push_str("(não informado)");
                }
            },
            Piece::Group(Condition::Filled, inner) => {
                let mut text = String::new();
                if render(inner, values, &mut text) {
                    out.push_str(&text);
                }
            }
            Piece::Group(cond, inner) => {
                let keep = match cond {
                    Condition::Present(p) => values.raw(p).is_some(),
                    Condition::Absent(p) => values.raw(p).is_none(),
                    Condition::Equals(p, v) => {
                        values.raw(p).is_some_and(|x| compared_text(&x) == *v)
                    }
                    Condition::Differs(p, v) => {
                        values.raw(p).is_none_or(|x| compared_text(&x) != *v)
                    }
                    Condition::Filled => unreachable!("handled above"),
                };
                if keep {
                    render(inner, values, out);
                }
            }
        }
    }
    filled
}

struct Parser<'t> {
    src: &'t str,
    pos: usize,
}

impl<'t> Parser<'t> {
    fn fail<T>(&self, at: usize, what: &'static str) -> Result<T, TemplateError> {
        Err(TemplateError { at, what })
    }

    /// Pieces up to the end, or up to (not past) a `]` when inside a group.
    fn sequence(&mut self, depth: usize) -> Result<Vec<Piece<'t>>, TemplateError> {
        let mut pieces = Vec::new();
        while let Some(c) = self.src[self.pos..].chars().next() {
            match c {
                '{' => pieces.push(Piece::Value(self.placeholder()?)),
                '}' => return self.fail(self.pos, "`}` without a placeholder to close"),
                '[' => pieces.push(self.group(depth + 1)?),
                ']' => return Ok(pieces),
                _ => {
                    let rest = &self.src[self.pos..];
                    let len = rest.find(['{', '}', '[', ']']).unwrap_or(rest.len());
                    pieces.push(Piece::Text(&rest[..len]));
                    self.pos += len;
                }
            }
        }
        Ok(pieces)
    }

    fn placeholder(&mut self) -> Result<Place<'t>, TemplateError> {
        let start = self.pos;
        let rest = &self.src[start + 1..];
        let Some(len) = rest.find('}') else {
            return self.fail(start, "`{` without its `}`");
        };
        let name = &rest[..len];
        self.pos = start + 1 + len + 1;
        Place::parse(name, start + 1)
    }

    fn group(&mut self, depth: usize) -> Result<Piece<'t>, TemplateError> {
        let start = self.pos;
        if depth > MAX_DEPTH {
            return self.fail(start, "groups nest too deep");
        }
        self.pos += 1;
        let cond = self.condition()?;
        let inner = self.sequence(depth)?;
        if !self.src[self.pos..].starts_with(']') {
            return self.fail(start, "`[` without its `]`");
        }
        self.pos += 1;
        if cond == Condition::Filled && !inner.iter().any(|p| matches!(p, Piece::Value(_))) {
            return self.fail(
                start,
                "a plain group holds no placeholder, so it would always show",
            );
        }
        if inner.is_empty() {
            return self.fail(start, "an empty group");
        }
        Ok(Piece::Group(cond, inner))
    }

    /// After `[`: `?place[=value]:` or `!place[=value]:`, or nothing (a plain group).
    fn condition(&mut self) -> Result<Condition<'t>, TemplateError> {
        let rest = &self.src[self.pos..];
        let present = match rest.chars().next() {
            Some('?') => true,
            Some('!') => false,
            _ => return Ok(Condition::Filled),
        };
        let at = self.pos + 1;
        let Some(colon) = rest.find(':') else {
            return self.fail(at, "a condition ends with `:`");
        };
        let head = &rest[1..colon];
        self.pos += colon + 1;
        let (place, value) = match head.split_once('=') {
            Some((place, value)) => (place, Some(value)),
            None => (head, None),
        };
        let place = Place::parse(place, at)?;
        if place == Place::Record {
            return self.fail(at, "a condition reads a request member, not the record");
        }
        let value_ok = |v: &str| {
            !v.is_empty()
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        };
        Ok(match (present, value) {
            (_, Some(v)) if !value_ok(v) => return self.fail(at, "a compared value is one word"),
            (true, None) => Condition::Present(place),
            (false, None) => Condition::Absent(place),
            (true, Some(v)) => Condition::Equals(place, v),
            (false, Some(v)) => Condition::Differs(place, v),
        })
    }
}

/// The path template of the record `{record}` describes: the longest prefix of `path` that
/// ends in a parameter and that `has_get` says can be read (`/v1/invoices/{id}` for
/// `/v1/invoices/{id}/installments/{installmentId}/pay`); `None` when there is none.
pub fn record_path(path: &str, has_get: impl Fn(&str) -> bool) -> Option<&str> {
    let mut ends: Vec<usize> = path
        .match_indices('}')
        .map(|(at, _)| at + 1)
        .filter(|end| path[*end..].is_empty() || path[*end..].starts_with('/'))
        .collect();
    ends.reverse();
    ends.into_iter()
        .map(|end| &path[..end])
        .find(|p| has_get(p))
}

#[cfg(test)]
mod tests;
