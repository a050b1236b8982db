//! Text helpers of the contract check: formats, percent-decoding and query strings.

use crate::{clock, ids};

/// Whether a `User-Agent` carries a contact e-mail (`Name/1.0 <ops@example.com>`).
pub fn has_contact_email(user_agent: &str) -> bool {
    user_agent
        .split(|c: char| c.is_whitespace() || "<>()[],;\"'".contains(c))
        .any(is_email)
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.split('.').count() >= 2
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
}

/// Whether `value` has the named format (unknown formats pass).
pub fn has_format(format: &str, value: &str) -> bool {
    match format {
        "uuid" => ids::is_uuid(value),
        "date" => clock::parse_date(value).is_some(),
        "date-time" => clock::parse_datetime(value).is_some(),
        "email" => is_email(value),
        "uri" => is_uri(value),
        _ => true,
    }
}

/// An absolute URI: a scheme (a letter, then letters, digits, `+`, `-`, `.`), `:`, more.
fn is_uri(value: &str) -> bool {
    value.split_once(':').is_some_and(|(scheme, rest)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.is_empty()
    })
}

pub(super) fn format_label(format: &str) -> &str {
    match format {
        "uuid" => "a uuid",
        "date" => "a date (YYYY-MM-DD)",
        "date-time" => "a date-time (RFC 3339)",
        "email" => "an e-mail",
        "uri" => "an absolute URI",
        other => other,
    }
}

/// Decodes `%XX` escapes and `+` (form encoding, query strings) into text; bad escapes stay
/// as they are.
pub fn percent_decode(s: &str) -> String {
    decode(s, true)
}

/// Decodes `%XX` escapes of a path segment (`+` stays `+`).
pub fn percent_decode_path(s: &str) -> String {
    decode(s, false)
}

fn decode(s: &str, plus_is_space: bool) -> String {
    let hex = |c: u8| char::from(c).to_digit(16);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'+', _, _) if plus_is_space => out.push(b' '),
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 2;
            }
            (x, _, _) => out.push(x),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits a raw query string into decoded `(name, value)` pairs.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}
