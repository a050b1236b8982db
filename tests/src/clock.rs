//! Minimal date/time handling for the fake: a fixed clock, RFC 3339 parsing and formatting.
//!
//! Kobana answers with offsets such as `-03:00`; the fake keeps every timestamp it writes in
//! America/Sao_Paulo local time (fixed `-03:00`: Brazil has had no DST since 2019).

/// The fake's fixed "now" (reference §10).
pub const FAKE_NOW: &str = "2026-08-20T12:00:00-03:00";

/// São Paulo's UTC offset in seconds.
const SAO_PAULO_OFFSET: i64 = -3 * 3600;

/// Seconds since the Unix epoch of [`FAKE_NOW`].
pub fn now_epoch() -> i64 {
    parse_datetime(FAKE_NOW).unwrap_or(0)
}

/// [`FAKE_NOW`] as the string the fake writes into records.
pub fn now_string() -> String {
    format_local(now_epoch())
}

/// Today's date (in São Paulo) at the fake clock, as days since the epoch.
pub fn today() -> i64 {
    local_day(now_epoch())
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let d = i64::from(d);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since the epoch.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

fn digits(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses a strict `YYYY-MM-DD` date into days since the epoch.
pub fn parse_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = digits(&s[0..4])?;
    let m = u32::try_from(digits(&s[5..7])?).ok()?;
    let d = u32::try_from(digits(&s[8..10])?).ok()?;
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Parses an RFC 3339 date-time (`2026-08-20T12:00:00-03:00`, `2026-08-05T03:00:00.000Z`)
/// into seconds since the epoch.
pub fn parse_datetime(s: &str) -> Option<i64> {
    if s.len() < 20 || s.as_bytes()[10] != b'T' {
        return None;
    }
    let day = parse_date(&s[..10])?;
    let rest = &s[11..];
    let b = rest.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let hh = digits(&rest[0..2])?;
    let mm = digits(&rest[3..5])?;
    let ss = digits(&rest[6..8])?;
    if hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let mut tz = &rest[8..];
    if let Some(frac) = tz.strip_prefix('.') {
        let end = frac
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(frac.len());
        if end == 0 {
            return None;
        }
        tz = &frac[end..];
    }
    let offset = if tz == "Z" || tz == "z" {
        0
    } else {
        let tb = tz.as_bytes();
        if tb.len() != 6 || tb[3] != b':' || !(tb[0] == b'+' || tb[0] == b'-') {
            return None;
        }
        let oh = digits(&tz[1..3])?;
        let om = digits(&tz[4..6])?;
        let o = oh * 3600 + om * 60;
        if tb[0] == b'-' { -o } else { o }
    };
    Some(day * 86_400 + hh * 3600 + mm * 60 + ss - offset)
}

/// Parses a date-time, or a bare date taken as midnight in São Paulo.
pub fn parse_date_or_datetime(s: &str) -> Option<i64> {
    parse_datetime(s).or_else(|| parse_date(s).map(|d| d * 86_400 - SAO_PAULO_OFFSET))
}

/// The São Paulo calendar day (days since the epoch) of an instant.
pub fn local_day(epoch: i64) -> i64 {
    (epoch + SAO_PAULO_OFFSET).div_euclid(86_400)
}

/// Formats an instant in São Paulo local time: `2026-08-20T12:00:00-03:00`.
pub fn format_local(epoch: i64) -> String {
    let local = epoch + SAO_PAULO_OFFSET;
    let (y, m, d) = civil_from_days(local.div_euclid(86_400));
    let secs = local.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}-03:00",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Formats an instant in UTC the short way the document's examples write date-times:
/// `2026-01-24T10:07Z`, with `:SS` only when the seconds are not zero.
pub fn format_utc_short(epoch: i64) -> String {
    let (y, m, d) = civil_from_days(epoch.div_euclid(86_400));
    let secs = epoch.rem_euclid(86_400);
    let (hh, mm, ss) = (secs / 3600, secs % 3600 / 60, secs % 60);
    if ss == 0 {
        format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}Z")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
    }
}

/// Formats a day count as `YYYY-MM-DD`.
pub fn format_date(day: i64) -> String {
    let (y, m, d) = civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Midnight in São Paulo of a day, written the way Kobana writes due dates (`2026-08-30T03:00:00Z`).
pub fn due_date_string(day: i64) -> String {
    format!("{}T03:00:00Z", format_date(day))
}

/// Adds calendar months to a day count, clamping the day of month.
pub fn add_months(day: i64, months: u32) -> i64 {
    let (y, m, d) = civil_from_days(day);
    let total = y * 12 + i64::from(m - 1) + i64::from(months);
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    days_from_civil(ny, nm, d.min(days_in_month(ny, nm)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let now = now_epoch();
        assert_eq!(format_local(now), FAKE_NOW);
        assert_eq!(parse_datetime("2026-08-20T15:00:00Z"), Some(now));
        assert_eq!(parse_datetime("2026-08-20T15:00:00.000Z"), Some(now));
        assert_eq!(format_date(today()), "2026-08-20");
        assert_eq!(parse_date("2026-02-30"), None);
        assert_eq!(
            format_date(add_months(parse_date("2026-01-31").unwrap(), 1)),
            "2026-02-28"
        );
        assert_eq!(
            local_day(parse_datetime("2026-08-20T03:00:00Z").unwrap()),
            today()
        );
    }
}
