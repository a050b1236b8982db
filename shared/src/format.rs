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
    let negative = cents < 0;
    let cents = cents.unsigned_abs();
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
pub fn brl_from_subcents(subcents: i64) -> String {
    let cents = (subcents.abs() + 50) / 100;
    brl_from_cents(if subcents < 0 { -cents } else { cents })
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
