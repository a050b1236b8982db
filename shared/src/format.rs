//! How values are shown to a model and a person: money in BRL, dates in America/Sao_Paulo.
//!
//! Kobana's integers are kept as they are; readable companions are added beside them
//! (`total_subcents` → `total_brl`, `due_date` → `due_date_sao_paulo`), so nothing Kobana
//! sent is lost and the model never has to divide by 100 or 10 000 itself.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Map, Value};

/// The zone Brazilian businesses bill in (bundled at build time, not read from the host).
pub fn sao_paulo() -> TimeZone {
    jiff::tz::get!("America/Sao_Paulo")
}

/// Formats an amount in cents as BRL text, e.g. `123456` → `R$ 1.234,56`.
pub fn brl_from_cents(cents: i64) -> String {
    brl(cents < 0, cents.unsigned_abs())
}

/// Formats an unsigned amount in cents (e.g. a `u64` argument) as BRL text.
pub fn brl_from_unsigned_cents(cents: u64) -> String {
    brl(false, cents)
}

fn brl(negative: bool, cents: u64) -> String {
    let reais = (cents / 100).to_string();
    let mut grouped = String::with_capacity(reais.len() + reais.len() / 3);
    for (i, digit) in reais.chars().enumerate() {
        if i > 0 && (reais.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(digit);
    }
    format!(
        "{}R$ {},{:02}",
        if negative { "-" } else { "" },
        grouped,
        cents % 100
    )
}

/// Formats subcents (1/10 000 of a real, Kobana's `*_subcents`) as BRL, rounding half up.
/// Any `i64` Kobana sends is formatted; none can overflow.
pub fn brl_from_subcents(subcents: i64) -> String {
    let magnitude = subcents.unsigned_abs();
    let cents = magnitude / 100 + u64::from(magnitude % 100 >= 50);
    brl(subcents < 0 && cents > 0, cents)
}

/// Whether `c` is invisible, or changes how the text around it reads, when shown to a person:
/// controls (Cc), format characters (Cf: bidi embeddings, overrides and isolates, zero-width
/// space/joiners, word joiner, BOM, soft hyphen, interlinear annotations, tag characters, …),
/// the line and paragraph separators (Zl, Zp), variation selectors, the combining grapheme
/// joiner, and the letters that render as blank (Hangul fillers, braille blank).
pub fn is_hidden_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c as u32,
            0x00AD
                | 0x034F
                | 0x0600..=0x0605
                | 0x061C
                | 0x06DD
                | 0x070F
                | 0x0890..=0x0891
                | 0x08E2
                | 0x115F..=0x1160
                | 0x17B4..=0x17B5
                | 0x180B..=0x180F
                | 0x200B..=0x200F
                | 0x2028..=0x202E
                | 0x2060..=0x206F
                | 0x2800
                | 0x3164
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFA0
                | 0xFFF9..=0xFFFB
                | 0x110BD
                | 0x110CD
                | 0x13430..=0x1343F
                | 0x1BCA0..=0x1BCA3
                | 0x1D173..=0x1D17A
                | 0xE0000..=0xE0FFF
        )
}

/// `text` as one plain line: every whitespace character (tabs, newlines, U+2028/U+2029, the
/// Unicode spaces) becomes a space, every other [hidden character](is_hidden_char) goes,
/// runs of spaces become one, and the ends are trimmed.
pub fn plain_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else if !is_hidden_char(c) {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Characters that look like the question's quote marks (`«…»`): inside quoted text they
/// become `"`, so no text can close its quote.
pub fn is_delimiter_like(c: char) -> bool {
    matches!(
        c,
        '«' | '»'
            | '‹'
            | '›'
            | '≪'
            | '≫'
            | '《'
            | '》'
            | '〈'
            | '〉'
            | '⟨'
            | '⟩'
            | '⟪'
            | '⟫'
            | '❮'
            | '❯'
            | '❬'
            | '❭'
            | '﹤'
            | '﹥'
            | '＜'
            | '＞'
    )
}

/// `text` as [one plain line](plain_line) with every [delimiter look-alike](is_delimiter_like)
/// replaced by `"`: what a person is shown between «…», and — for a reason — what is sent.
pub fn quotable_line(text: &str) -> String {
    plain_line(text)
        .chars()
        .map(|c| if is_delimiter_like(c) { '"' } else { c })
        .collect()
}

/// An ISO 8601 date-time (or `YYYY-MM-DD` date) shown in America/Sao_Paulo, ISO with offset.
pub fn sao_paulo_time(iso: &str) -> Option<String> {
    let ts: Timestamp = iso.parse().ok()?;
    let local = ts.to_zoned_datetime(sao_paulo());
    Some(local.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string())
}

fn is_date_key(key: &str) -> bool {
    key.ends_with("_at")
        || key.ends_with("_date")
        || matches!(
            key,
            "period_start"
                | "period_end"
                | "current_period_start"
                | "current_period_end"
                | "trial_start"
                | "trial_end"
                | "resumes_at"
                | "next_payment_attempt"
        )
}

/// Adds `<base>_brl` beside every `<base>_cents` / `<base>_subcents` integer and
/// `<key>_sao_paulo` beside every date-time, recursively.
pub fn enrich(value: &mut Value) {
    match value {
        Value::Object(map) => enrich_object(map),
        Value::Array(items) => items.iter_mut().for_each(enrich),
        _ => {}
    }
}

fn enrich_object(map: &mut Map<String, Value>) {
    let mut added = Vec::new();
    for (key, value) in map.iter_mut() {
        if let Some(n) = value.as_i64() {
            if let Some(base) = key.strip_suffix("_subcents") {
                added.push((format!("{base}_brl"), Value::String(brl_from_subcents(n))));
            } else if let Some(base) = key.strip_suffix("_cents") {
                added.push((format!("{base}_brl"), Value::String(brl_from_cents(n))));
            }
        } else if let Some(text) = value.as_str() {
            if is_date_key(key)
                && text.contains('T')
                && let Some(local) = sao_paulo_time(text)
            {
                added.push((format!("{key}_sao_paulo"), Value::String(local)));
            }
        } else {
            enrich(value);
        }
    }
    for (key, value) in added {
        map.entry(key).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn t3_brl_formatting() {
        assert_eq!(brl_from_cents(0), "R$ 0,00");
        assert_eq!(brl_from_cents(5), "R$ 0,05");
        assert_eq!(brl_from_cents(49900), "R$ 499,00");
        assert_eq!(brl_from_cents(123456), "R$ 1.234,56");
        assert_eq!(brl_from_cents(1198800), "R$ 11.988,00");
        assert_eq!(brl_from_cents(100000000), "R$ 1.000.000,00");
        assert_eq!(brl_from_cents(-2550), "-R$ 25,50");
        assert_eq!(brl_from_subcents(4990000), "R$ 499,00");
        assert_eq!(brl_from_subcents(119880000), "R$ 11.988,00");
        assert_eq!(brl_from_subcents(49), "R$ 0,00");
        assert_eq!(brl_from_subcents(-49), "R$ 0,00");
        assert_eq!(brl_from_subcents(-50), "-R$ 0,01");
    }

    #[test]
    fn cf2_plain_line_drops_what_hides_or_reorders_text() {
        assert_eq!(
            plain_line("  a\n\tb\u{2028}c\u{2029}d\u{00A0}e\u{3000}f  "),
            "a b c d e f"
        );
        assert_eq!(
            plain_line("x\u{202E}y\u{200B}z\u{200D}w\u{2066}v\u{FEFF}u\u{00AD}t\u{E0041}s"),
            "xyzwvuts"
        );
        assert_eq!(plain_line("\u{202E}\u{200B}\n"), "");
        assert_eq!(
            plain_line("Padaria Pão Dourado Ltda"),
            "Padaria Pão Dourado Ltda"
        );
        for c in [
            '\u{0000}', '\u{001B}', '\u{007F}', '\u{0085}', '\u{061C}', '\u{180E}',
        ] {
            assert!(is_hidden_char(c) || c.is_whitespace(), "{c:?}");
        }
        for c in ['a', 'ç', '€', '«', '»', ' ', '"'] {
            assert!(!is_hidden_char(c), "{c:?}");
        }
    }

    /// Numbers from upstream can be anything an `i64` holds: formatting never overflows.
    #[test]
    fn t3_extreme_amounts_from_kobana_never_panic() {
        assert_eq!(brl_from_cents(i64::MIN), "-R$ 92.233.720.368.547.758,08");
        assert_eq!(brl_from_cents(i64::MAX), "R$ 92.233.720.368.547.758,07");
        assert_eq!(brl_from_subcents(i64::MIN), "-R$ 922.337.203.685.477,58");
        assert_eq!(brl_from_subcents(i64::MAX), "R$ 922.337.203.685.477,58");
        assert_eq!(
            brl_from_unsigned_cents(u64::MAX),
            "R$ 184.467.440.737.095.516,15"
        );
        let mut record = json!({"total_subcents": i64::MIN, "amount_cents": i64::MAX});
        enrich(&mut record);
        assert!(record["total_brl"].is_string() && record["amount_brl"].is_string());
    }

    #[test]
    fn t3_dates_in_sao_paulo() {
        assert_eq!(
            sao_paulo_time("2026-08-25T03:00:00Z").as_deref(),
            Some("2026-08-25T00:00:00-03:00")
        );
        assert_eq!(
            sao_paulo_time("2026-07-24T11:42:00-03:00").as_deref(),
            Some("2026-07-24T11:42:00-03:00")
        );
        assert!(sao_paulo_time("not a date").is_none());
    }

    #[test]
    fn t3_enrich_adds_companions_and_keeps_originals() {
        let mut v = json!({"total_subcents": 4990000, "amount_remaining_cents": 49900,
            "due_date": "2026-08-25T03:00:00Z", "name": "x", "birthday": "1988-03-14",
            "items": [{"amount_cents": 150000}]});
        enrich(&mut v);
        assert_eq!(v["total_subcents"], 4990000);
        assert_eq!(v["total_brl"], "R$ 499,00");
        assert_eq!(v["amount_remaining_brl"], "R$ 499,00");
        assert_eq!(v["due_date_sao_paulo"], "2026-08-25T00:00:00-03:00");
        assert_eq!(v["items"][0]["amount_brl"], "R$ 1.500,00");
        assert!(v.get("birthday_sao_paulo").is_none());
        assert!(v.get("name_brl").is_none());
    }
}
