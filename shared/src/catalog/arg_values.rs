//! Checks of single argument values (ids, dates, free text), each error naming the
//! argument in pt-BR.

use super::ToolError;
use crate::kobana::{is_uuid, segment_is_safe};

/// Checks that `value` is a UUID (Kobana's ids), naming the argument when it is not.
pub fn uuid_arg<'a>(name: &str, value: &'a str) -> Result<&'a str, ToolError> {
    let v = value.trim();
    if is_uuid(v) {
        Ok(v)
    } else {
        Err(ToolError::InvalidArguments(format!(
            "`{name}` deve ser um UUID do Kobana (ex.: 47378190-96da-4dac-b2ff-5d2a386ecbe0); recebido {value:?}"
        )))
    }
}

/// Checks an id that may also be an `external_id` (customers): letters, digits, `-`, `_`, `.`.
pub fn ref_arg<'a>(name: &str, value: &'a str) -> Result<&'a str, ToolError> {
    let v = value.trim();
    if segment_is_safe(v) {
        Ok(v)
    } else {
        Err(ToolError::InvalidArguments(format!(
            "`{name}` deve ser o UUID ou o external_id do registro (letras, dígitos, -, _ ou .); recebido {value:?}"
        )))
    }
}

/// Adds `key=value` to a query when the value is present.
pub fn push_opt(query: &mut Vec<(String, String)>, key: &str, value: Option<impl ToString>) {
    if let Some(value) = value {
        let value = value.to_string();
        if !value.trim().is_empty() {
            query.push((key.to_owned(), value.trim().to_owned()));
        }
    }
}

/// Checks a required free-text argument: present once trimmed, at most `max` characters.
pub fn text_arg<'a>(name: &str, value: &'a str, max: usize) -> Result<&'a str, ToolError> {
    let v = value.trim();
    if v.is_empty() {
        return Err(ToolError::InvalidArguments(format!(
            "`{name}` não pode ficar em branco"
        )));
    }
    let len = v.chars().count();
    if len > max {
        return Err(ToolError::InvalidArguments(format!(
            "`{name}` aceita até {max} caracteres; recebido {len}"
        )));
    }
    Ok(v)
}

/// Longest reason a destructive tool sends (void, refund, cancel), in characters; the
/// question shows it whole.
pub const MAX_REASON_CHARS: usize = 500;
/// Longest reason for cancelling an NF-e (it goes to the city hall too), in characters.
pub const MAX_NFE_REASON_CHARS: usize = 1000;

/// Checks and normalizes a free-text reason: one plain line (hidden characters — controls,
/// bidi and zero-width format characters, line/paragraph separators — removed, every run of
/// whitespace one space, trimmed, the question's quote marks and their look-alikes made
/// `"`), not blank, at most `max` characters. What is sent is exactly what the person is
/// shown, whole (BW-6).
pub fn reason_arg(name: &str, value: &str, max: usize) -> Result<String, ToolError> {
    let line = crate::format::quotable_line(value);
    text_arg(name, &line, max)?;
    Ok(line)
}

/// Checks an optional `YYYY-MM-DD` date argument (a real calendar date), naming it when wrong.
pub fn date_arg(name: &str, value: Option<&str>) -> Result<Option<String>, ToolError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let ok = v.len() == 10 && v.parse::<jiff::civil::Date>().is_ok();
    if ok {
        Ok(Some(v.to_owned()))
    } else {
        Err(ToolError::InvalidArguments(format!(
            "`{name}` deve ser uma data AAAA-MM-DD válida (ex.: 2026-08-31); recebido {v:?}"
        )))
    }
}

/// Checks that `from` is not after `to` when both dates are given.
pub fn date_range(
    from_name: &str,
    from: &Option<String>,
    to_name: &str,
    to: &Option<String>,
) -> Result<(), ToolError> {
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return Err(ToolError::InvalidArguments(format!(
            "`{from_name}` ({from}) é posterior a `{to_name}` ({to}); inverta as datas"
        )));
    }
    Ok(())
}
