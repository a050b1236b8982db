//! How values are shown to a model and a person: money in BRL, dates in America/Sao_Paulo.
//!
//! Kobana's integers are kept as they are; readable companions are added beside them
//! (`total_subcents` → `total_brl`, `due_date` → `due_date_sao_paulo`), so nothing Kobana
//! sent is lost and the model never has to divide by 100 or 10 000 itself.

pub mod clock;
pub mod money;
pub mod pay_codes;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde_json::{Map, Value};

pub use clock::BillingClock;
use money::Scale;

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

/// An ISO 8601 date-time (seconds optional, any offset) shown in America/Sao_Paulo, ISO
/// with offset.
pub fn sao_paulo_time(iso: &str) -> Option<String> {
    let ts: Timestamp = iso.parse().ok()?;
    let local = ts.to_zoned_datetime(sao_paulo());
    Some(local.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string())
}

/// The calendar day a Kobana day field (a due date) names, in whichever form it comes
/// (reading `due_date_form`): a bare `2026-08-25` is that day; midnight UTC
/// (`2026-08-25T00:00:00Z`) is its UTC date, a day stored as a date; any other instant
/// (`2026-08-25T03:00:00Z`, `2026-08-25T00:00:00-03:00`) is its São Paulo date.
pub fn calendar_day(text: &str) -> Option<Date> {
    let text = text.trim();
    if text.len() == 10 {
        return text.parse().ok();
    }
    let ts: Timestamp = text.parse().ok()?;
    let zone = if ts.as_second().rem_euclid(86_400) == 0 && ts.subsec_nanosecond() == 0 {
        TimeZone::UTC
    } else {
        sao_paulo()
    };
    Some(ts.to_zoned_datetime(zone).date())
}

/// Whether a member names a calendar day rather than an instant (`due_date`).
pub fn is_day_key(key: &str) -> bool {
    key.ends_with("due_date")
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

/// The member an invoice carries when its amounts are not what the names say, or cannot be
/// checked (see [`money`]).
pub const AMOUNTS_NOTE: &str = "amounts_note";

/// Adds `<base>_brl` beside every `<base>_cents` / `<base>_subcents` integer and
/// `<key>_sao_paulo` beside every date-time, recursively. An invoice's `*_subcents` are
/// turned into reais under the scale its own members settle ([`money`]); when that is not
/// the names' scale the invoice gets [`AMOUNTS_NOTE`] in pt-BR, and when the scale is in
/// doubt its `*_subcents` get no BRL text at all, only the note naming both candidates.
pub fn enrich(value: &mut Value) {
    enrich_in(value, Unit::Names);
}

/// The unit of the `*_subcents` members of an object, from its surroundings.
#[derive(Clone, Copy)]
enum Unit {
    /// Outside an invoice: what the names say (÷10 000).
    Names,
    /// Settled by the invoice's own members.
    Settled(Scale),
    /// Inside an invoice whose unit is in doubt: no BRL text.
    InDoubt,
}

fn enrich_in(value: &mut Value, inherited: Unit) {
    match value {
        Value::Object(map) => enrich_object(map, inherited),
        Value::Array(items) => items.iter_mut().for_each(|v| enrich_in(v, inherited)),
        _ => {}
    }
}

fn enrich_object(map: &mut Map<String, Value>, inherited: Unit) {
    let mut added = Vec::new();
    let unit = if money::is_invoice(map) {
        let (scale, note) = money::invoice_unit(map);
        if let Some(note) = note {
            added.push((AMOUNTS_NOTE.to_owned(), Value::String(note)));
        }
        scale.map_or(Unit::InDoubt, Unit::Settled)
    } else {
        money::settle_line_item(map).map_or(inherited, Unit::Settled)
    };
    for (key, value) in map.iter_mut() {
        if let Some(n) = value.as_i64() {
            if let Some(base) = key.strip_suffix("_subcents") {
                let brl = match unit {
                    Unit::Settled(Scale::Cents) => brl_from_cents(n),
                    Unit::Settled(Scale::Subcents) | Unit::Names => brl_from_subcents(n),
                    Unit::InDoubt => continue,
                };
                added.push((format!("{base}_brl"), Value::String(brl)));
            } else if let Some(base) = key.strip_suffix("_cents") {
                added.push((format!("{base}_brl"), Value::String(brl_from_cents(n))));
            }
        } else if let Some(text) = value.as_str() {
            if let Some(local) = local_companion(key, text) {
                added.push((format!("{key}_sao_paulo"), Value::String(local)));
            }
        } else {
            enrich_in(value, unit);
        }
    }
    for (key, value) in added {
        map.entry(key).or_insert(value);
    }
}

/// The São Paulo companion of a date member: a day field's midnight there (whatever form
/// the day came in), an instant's local time.
fn local_companion(key: &str, text: &str) -> Option<String> {
    if is_day_key(key) {
        let midnight = calendar_day(text)?.to_zoned_datetime(sao_paulo()).ok()?;
        return Some(midnight.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string());
    }
    if is_date_key(key) && text.contains('T') {
        return sao_paulo_time(text);
    }
    None
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

    /// Reading `due_date_form`: every form of a due date is the same calendar day.
    #[test]
    fn t3_a_due_date_is_its_calendar_day_in_every_form() {
        for form in [
            "2026-08-25",
            "2026-08-25T03:00:00Z",
            "2026-08-25T00:00:00Z",
            "2026-08-25T00:00Z",
            "2026-08-25T00:00:00-03:00",
            "2026-08-25T23:59:59-03:00",
        ] {
            assert_eq!(
                calendar_day(form).map(|d| d.to_string()).as_deref(),
                Some("2026-08-25"),
                "{form}"
            );
            let mut v = serde_json::json!({ "due_date": form });
            enrich(&mut v);
            assert_eq!(
                v["due_date_sao_paulo"], "2026-08-25T00:00:00-03:00",
                "{form}"
            );
        }
        // An instant that is not midnight UTC is read in São Paulo.
        assert_eq!(
            calendar_day("2026-08-26T02:00:00Z")
                .map(|d| d.to_string())
                .as_deref(),
            Some("2026-08-25")
        );
        assert!(calendar_day("25/08/2026").is_none());
    }

    /// Reading `invoice_totals_unit`: the BRL companions follow the scale the invoice's own
    /// unit-certain members settle, and say so when it is not the names'.
    #[test]
    fn t3_invoice_companions_use_the_settled_scale() {
        let mut names = json!({"total_subcents": 4990000, "amount_due_subcents": 4990000,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49900,
            "line_items": [{"quantity": 1, "unit_amount_subcents": 4990000, "amount_cents": 49900}]});
        enrich(&mut names);
        assert_eq!(names["total_brl"], "R$ 499,00");
        assert_eq!(names["line_items"][0]["unit_amount_brl"], "R$ 499,00");
        assert!(names.get(AMOUNTS_NOTE).is_none(), "{names}");
        let mut cents = json!({"total_subcents": 49900, "amount_due_subcents": 49900,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49900,
            "line_items": [{"quantity": 1, "unit_amount_subcents": 49900, "amount_cents": 49900}]});
        enrich(&mut cents);
        assert_eq!(cents["total_brl"], "R$ 499,00");
        assert_eq!(cents["amount_due_brl"], "R$ 499,00");
        assert_eq!(cents["line_items"][0]["unit_amount_brl"], "R$ 499,00");
        let note = cents[AMOUNTS_NOTE].as_str().unwrap();
        assert!(note.contains("centavos (÷100)"), "{note}");
    }

    /// A unit in doubt fails safe: a paid invoice with nothing to check its unit against gets
    /// no BRL text for any `*_subcents` member (its line items included), while members whose
    /// unit is not in doubt keep theirs; the note names the total under each unit.
    #[test]
    fn rk3_an_invoice_whose_unit_is_in_doubt_shows_no_single_brl_total() {
        let mut paid = json!({"total_subcents": 123400, "subtotal_subcents": 123400,
            "amount_due_subcents": 123400, "amount_paid_subcents": 123400,
            "amount_remaining_cents": 0, "net_value_cents": null, "total_withheld_cents": 0,
            "line_items": [{"quantity": 3, "unit_amount_subcents": 41133}]});
        enrich(&mut paid);
        for key in [
            "total_brl",
            "subtotal_brl",
            "amount_due_brl",
            "amount_paid_brl",
        ] {
            assert!(paid.get(key).is_none(), "{key}: {paid}");
        }
        assert!(paid["line_items"][0].get("unit_amount_brl").is_none());
        assert_eq!(paid["amount_remaining_brl"], "R$ 0,00");
        let note = paid[AMOUNTS_NOTE].as_str().unwrap();
        assert!(
            note.contains("R$ 12,34") && note.contains("R$ 1.234,00"),
            "{note}"
        );
        // Outside an invoice a `*_subcents` member keeps its name's unit.
        let mut price = json!({"unit_amount_subcents": 4990000});
        enrich(&mut price);
        assert_eq!(price["unit_amount_brl"], "R$ 499,00");
    }

    #[test]
    fn t3_enrich_adds_companions_and_keeps_originals() {
        let mut v = json!({"total_subcents": 4990000, "amount_remaining_cents": 49900,
            "amount_due_subcents": 4990000, "amount_paid_subcents": 0,
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
