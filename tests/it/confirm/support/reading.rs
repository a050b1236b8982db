//! This suite's own reading of a question and of what the fake Kobana received — never the
//! server's code: hidden characters, quotes, labels, days and amounts.

use fake_kobana::clock::{civil_from_days, local_day, parse_date_or_datetime};
use serde_json::Value;

/// Characters a person cannot see, or that reorder what they see.
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x180E | 0x200B..=0x200F
            | 0x2028..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF
            | 0xE0000..=0xE0FFF)
}

/// The text a quote must show (before delimiters are replaced): one plain line.
pub fn shown(raw: &str) -> String {
    let words: Vec<String> = raw
        .split(char::is_whitespace)
        .map(|w| w.chars().filter(|c| !hidden(*c)).collect::<String>())
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ")
}

/// Whether a quote shows `raw` whole: the same characters, except that `«`/`»` became `"`
/// (and any other angle-quote look-alike may have). What is sent — a reason — is held to
/// this (BW-6): every character sent is a character shown, whatever its length.
pub fn same_whole_quote(quoted: &str, raw: &str) -> bool {
    let expected: Vec<char> = shown(raw).chars().collect();
    let got: Vec<char> = quoted.chars().collect();
    got.len() == expected.len() && got.iter().zip(&expected).all(|(g, e)| same_char(*e, *g))
}

/// Whether a quote shows `raw`, a text from Kobana's records (shown, never sent): whole as
/// in [`same_whole_quote`], or cut at 120 characters with `…`.
pub fn same_quote(quoted: &str, raw: &str) -> bool {
    if same_whole_quote(quoted, raw) {
        return true;
    }
    let expected: Vec<char> = shown(raw).chars().collect();
    let got: Vec<char> = quoted.chars().collect();
    // Cut: at most 120 characters, ending in `…`, a prefix of the whole text.
    got.len() <= 120
        && got.len() >= 100
        && got.last() == Some(&'…')
        && got.len() - 1 <= expected.len()
        && got[..got.len() - 1]
            .iter()
            .zip(&expected)
            .all(|(g, e)| same_char(*e, *g))
}

/// Whether `got` shows the expected character `e`: itself, or `"` for a quote delimiter.
fn same_char(e: char, got: char) -> bool {
    match e {
        '«' | '»' => got == '"',
        '‹' | '›' | '≪' | '≫' | '《' | '》' | '〈' | '〉' | '⟨' | '⟩' | '⟪' | '⟫' | '❮' | '❯'
        | '❬' | '❭' | '﹤' | '﹥' | '＜' | '＞' => got == e || got == '"',
        _ => got == e,
    }
}

pub const LABELS: [&str; 6] = [
    "Cliente (nome no cadastro): ",
    "Cliente (e-mail de cobrança no cadastro): ",
    "Tomador (nome na nota): ",
    "Motivo informado: ",
    "Documento (no cadastro): ",
    "Número da fatura (no cadastro): ",
];

/// A question split into its facts (the server's voice, before the first quote) and its
/// quoted texts by label. Fails unless every quote is closed, labelled, and clean.
#[derive(Debug)]
pub struct Read {
    pub facts: String,
    pub quotes: Vec<(String, String)>,
}

pub fn read_question(message: &str) -> Result<Read, String> {
    if message.chars().any(hidden) {
        return Err(format!("hidden characters in the question: {message:?}"));
    }
    // The facts and the quoted names stay short; a reason is shown whole (BW-6), up to the
    // longest a tool takes.
    if message.chars().count() > 700 + kobana_mcp::catalog::MAX_NFE_REASON_CHARS {
        return Err(format!("question too long: {message}"));
    }
    let (mut head, mut rest) = match message.split_once('«') {
        Some((head, rest)) => (head.to_owned(), rest),
        None => {
            return Ok(Read {
                facts: message.to_owned(),
                quotes: vec![],
            });
        }
    };
    let facts_end = LABELS
        .iter()
        .find_map(|l| head.strip_suffix(l).map(|f| (f.to_owned(), *l)))
        .ok_or_else(|| format!("the first quote has no label: {message}"))?;
    let facts = facts_end.0.trim_end().to_owned();
    let mut label = facts_end.1.to_owned();
    let mut quotes = Vec::new();
    loop {
        let (inner, after) = rest
            .split_once('»')
            .ok_or_else(|| format!("unclosed quote: {message}"))?;
        if inner.contains('«') {
            return Err(format!("a quote inside a quote: {message}"));
        }
        // Names taken from Kobana's records are cut at 120 characters; the reason, which is
        // sent, is shown whole (BW-6), up to the longest reason a tool takes.
        let longest = if label == "Motivo informado: " {
            kobana_mcp::catalog::MAX_NFE_REASON_CHARS
        } else {
            120
        };
        if inner.chars().count() > longest {
            return Err(format!("a quote over {longest} characters: {inner}"));
        }
        quotes.push((label.trim_end_matches(": ").to_owned(), inner.to_owned()));
        if after == "." {
            break;
        }
        let (between, next) = after
            .split_once('«')
            .ok_or_else(|| format!("text after the last quote: {after:?} in {message}"))?;
        head = between.to_owned();
        label = LABELS
            .iter()
            .find(|l| head == format!(". {l}"))
            .ok_or_else(|| format!("server text between quotes: {head:?} in {message}"))?
            .to_string();
        rest = next;
    }
    Ok(Read { facts, quotes })
}

pub fn day(value: &Value) -> Option<String> {
    let epoch = parse_date_or_datetime(value.as_str()?)?;
    let (y, m, d) = civil_from_days(local_day(epoch));
    Some(format!("{d:02}/{m:02}/{y:04}"))
}

/// Every `R$ …` amount in `text`.
pub fn amounts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("R$ ") {
        let tail = &rest[at + 3..];
        let number: String = tail
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .collect();
        let number = number.trim_end_matches(['.', ',']).to_owned();
        let negative = rest[..at].ends_with('-');
        out.push(format!("{}R$ {number}", if negative { "-" } else { "" }));
        rest = tail;
    }
    out
}

pub fn plain_reference(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}
