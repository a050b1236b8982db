//! A month's figures computed straight from the fake's own store, with none of the server's
//! code: the stored records are in the fake's canonical form (totals in subcentavos, due
//! dates as São Paulo midnight in UTC, instants with the São Paulo offset or UTC), read here
//! with a few lines of date arithmetic of their own.

use fake_kobana::FakeKobana;
use serde_json::Value;

/// The four totals, in centavos, with their counts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    pub billed: (i64, u64),
    pub received: (i64, u64),
    pub open: (i64, u64),
    pub overdue: (i64, u64),
}

/// Days since 1970-01-01 of `y-m-d` (proleptic Gregorian).
pub fn days(y: i64, m: i64, d: i64) -> i64 {
    let (y, m) = if m <= 2 { (y - 1, m + 12) } else { (y, m) };
    365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d - 719_469
}

fn num(text: &str, range: std::ops::Range<usize>) -> i64 {
    text.get(range).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// The São Paulo calendar day (days since the epoch) of a stored date-time: its UTC instant
/// moved three hours back (Brazil has had no DST since 2019).
pub fn sao_paulo_day(text: &str) -> i64 {
    let date = days(num(text, 0..4), num(text, 5..7), num(text, 8..10));
    let minutes = num(text, 11..13) * 60 + num(text, 14..16);
    let offset = match text.get(19..) {
        Some(tail) if tail.ends_with('Z') => 0,
        Some(tail) => {
            let tz = &tail[tail.len() - 6..];
            let sign = if tz.starts_with('-') { -1 } else { 1 };
            sign * (num(tz, 1..3) * 60 + num(tz, 4..6))
        }
        None => 0,
    };
    // Local São Paulo minutes = UTC minutes − 180; UTC minutes = local − offset.
    (date * 1440 + minutes - offset - 180).div_euclid(1440)
}

/// `(first, last)` days of `YYYY-MM`.
pub fn month_days(month: &str) -> (i64, i64) {
    let (y, m) = (num(month, 0..4), num(month, 5..7));
    let first = days(y, m, 1);
    let next = if m == 12 {
        days(y + 1, 1, 1)
    } else {
        days(y, m + 1, 1)
    };
    (first, next - 1)
}

/// The figures of `month` as of `today` (`YYYY-MM-DD`), from the fake's store.
pub fn expected(fake: &FakeKobana, month: &str, today: &str) -> Expected {
    let (first, last) = month_days(month);
    let today = days(num(today, 0..4), num(today, 5..7), num(today, 8..10));
    let mut e = Expected::default();
    let add = |slot: &mut (i64, u64), cents: i64| {
        slot.0 += cents;
        slot.1 += 1;
    };
    for invoice in fake.records("invoices") {
        let Some(due) = invoice["due_date"].as_str().map(sao_paulo_day) else {
            continue;
        };
        if !(first..=last).contains(&due) {
            continue;
        }
        let status = invoice["status"].as_str().unwrap_or_default();
        if !matches!(status, "draft" | "void") {
            // The store keeps totals in subcentavos.
            add(
                &mut e.billed,
                invoice["total_subcents"].as_i64().unwrap_or(0) / 100,
            );
        }
        if status == "open" {
            let owed = invoice["amount_remaining_cents"].as_i64().unwrap_or(0);
            add(&mut e.open, owed);
            if due < today {
                add(&mut e.overdue, owed);
            }
        }
    }
    for payment in fake.records("payments") {
        let paid = payment["paid_at"].as_str().map(sao_paulo_day);
        if payment["status"] == "succeeded" && paid.is_some_and(|d| (first..=last).contains(&d)) {
            let cents = payment["paid_amount_cents"]
                .as_i64()
                .or_else(|| payment["amount_cents"].as_i64())
                .unwrap_or(0);
            add(&mut e.received, cents);
        }
    }
    e
}

/// `{cents, count}` of one total of a report, as `(cents, count)`.
pub fn figure(report: &Value, key: &str) -> (i64, u64) {
    (
        report[key]["cents"].as_i64().unwrap_or(-1),
        report[key]["count"].as_u64().unwrap_or(u64::MAX),
    )
}
