//! The two codes a person pays an open invoice with, recognised by their own form and check
//! digits wherever an untyped Kobana member carries them (reading `payment_codes` in
//! `tests/contract/billing-v1.json`: the document types neither):
//!
//! - the Pix copia-e-cola: an EMV BR Code (`000201…`, a `br.gov.bcb.pix` merchant account,
//!   ending in `6304` and its CRC-16/CCITT-FALSE);
//! - the boleto's linha digitável: 47 digits (a bank's boleto: three fields with their mod-10
//!   digits and the barcode's mod-11 digit) or 48 (a collection slip: four blocks with their
//!   mod-10 or mod-11 digits).
//!
//! Only a string that passes its own checks is a code: nothing is completed, converted or
//! made up, so a code shown is one Kobana gave, character for character (but for the
//! grouping of a digitable line).

use serde_json::Value;

/// Longest Pix code read (the BR Code caps a payload at 512 characters).
const MAX_PIX_CHARS: usize = 512;
/// Deepest nesting searched in a member that may carry a code.
const MAX_DEPTH: u8 = 6;
/// Most codes of one kind kept from one search.
const MAX_CODES: usize = 4;

/// The codes found in a value, each once, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayCodes {
    /// Pix copia-e-cola codes.
    pub pix: Vec<String>,
    /// Boleto digitable lines, grouped as printed.
    pub lines: Vec<String>,
}

impl PayCodes {
    /// Adds every code found in `value` (strings at any depth up to [`MAX_DEPTH`]).
    pub fn collect(&mut self, value: &Value) {
        self.walk(value, 0);
    }

    fn walk(&mut self, value: &Value, depth: u8) {
        match value {
            Value::String(text) => {
                if let Some(code) = pix_code(text) {
                    push_once(&mut self.pix, code);
                } else if let Some(line) = digitable_line(text) {
                    push_once(&mut self.lines, line);
                }
            }
            Value::Array(items) if depth < MAX_DEPTH => {
                items.iter().for_each(|v| self.walk(v, depth + 1));
            }
            Value::Object(map) if depth < MAX_DEPTH => {
                map.values().for_each(|v| self.walk(v, depth + 1));
            }
            _ => {}
        }
    }
}

fn push_once(codes: &mut Vec<String>, code: String) {
    if codes.len() < MAX_CODES && !codes.contains(&code) {
        codes.push(code);
    }
}

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), the BR Code's checksum.
fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0xFFFF_u16, |crc, &byte| {
        (0..8).fold(crc ^ (u16::from(byte) << 8), |crc, _| {
            if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            }
        })
    })
}

/// The EMV fields of a BR Code, `(id, value)`, or `None` when the text is not a run of
/// `id(2 digits) length(2 digits) value` fields.
fn emv_fields(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut fields = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let id = rest.get(..2)?;
        let len: usize = rest.get(2..4)?.parse().ok()?;
        if !id.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let end = rest
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(rest.len()))
            .nth(4 + len)?;
        fields.push((id, rest.get(4..end)?));
        rest = &rest[end..];
    }
    Some(fields)
}

/// `text` when it is a Pix copia-e-cola: a BR Code with the Pix merchant account whose CRC
/// matches.
pub fn pix_code(text: &str) -> Option<String> {
    let text = text.trim();
    if !text.starts_with("000201") || text.chars().count() > MAX_PIX_CHARS {
        return None;
    }
    if text.chars().any(char::is_control) {
        return None;
    }
    let fields = emv_fields(text)?;
    let (last_id, crc) = *fields.last()?;
    let body = text.strip_suffix(crc)?;
    if last_id != "63" || crc.len() != 4 || !body.ends_with("6304") {
        return None;
    }
    let crc = u16::from_str_radix(crc, 16).ok()?;
    let pix_account = fields.iter().any(|(id, value)| {
        matches!(id.parse::<u8>(), Ok(26..=51))
            && emv_fields(value).is_some_and(|inner| {
                inner
                    .iter()
                    .any(|(id, gui)| *id == "00" && gui.eq_ignore_ascii_case("br.gov.bcb.pix"))
            })
    });
    (pix_account && crc16(body.as_bytes()) == crc).then(|| text.to_owned())
}

/// The mod-10 check digit of `digits` (weights 2, 1, … from the right; products' digits
/// added).
fn mod10(digits: &[u8]) -> u8 {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let p = u32::from(*d) * if i % 2 == 0 { 2 } else { 1 };
            p / 10 + p % 10
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

/// The mod-11 check digit of `digits` (weights 2…9 from the right): `11 − r`, which a
/// bank's barcode turns into 1 when it is 0, 10 or 11 and a collection slip into 0 when it
/// is 10 or 11.
fn mod11(digits: &[u8], bank: bool) -> u8 {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| u32::from(*d) * (2 + (i as u32 % 8)))
        .sum();
    let dv = 11 - sum % 11;
    match (bank, dv) {
        (true, 0 | 10 | 11) => 1,
        (false, 10 | 11) => 0,
        _ => dv as u8,
    }
}

/// `text` when it is a boleto's digitable line whose every check digit holds, grouped as
/// printed (`23793.38128 60000.000004 00004.004008 9 15490000049900`). Spaces, dots and
/// dashes between the digits are allowed; nothing else.
pub fn digitable_line(text: &str) -> Option<String> {
    let text = text.trim();
    if !text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '.' | '-'))
    {
        return None;
    }
    let d: Vec<u8> = text
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    match d.len() {
        47 => bank_line(&d),
        48 => collection_line(&d),
        _ => None,
    }
}

fn digits(d: &[u8]) -> String {
    d.iter().map(|n| char::from(b'0' + n)).collect()
}

/// A bank's boleto (47 digits).
fn bank_line(d: &[u8]) -> Option<String> {
    let fields_ok = [(0, 9), (10, 20), (21, 31)]
        .iter()
        .all(|&(from, dv)| mod10(&d[from..dv]) == d[dv]);
    // The barcode without its check digit: bank + currency, factor + value, free field.
    let barcode: Vec<u8> = [&d[0..4], &d[33..47], &d[4..9], &d[10..20], &d[21..31]].concat();
    if !fields_ok || mod11(&barcode, true) != d[32] {
        return None;
    }
    let s = digits(d);
    Some(format!(
        "{}.{} {}.{} {}.{} {} {}",
        &s[0..5],
        &s[5..10],
        &s[10..15],
        &s[15..21],
        &s[21..26],
        &s[26..32],
        &s[32..33],
        &s[33..47]
    ))
}

/// A collection slip (48 digits, starting with 8): four blocks of 11 digits and their check
/// digit, by mod 10 (value id 6 or 7) or mod 11 (8 or 9), and the barcode's own digit.
fn collection_line(d: &[u8]) -> Option<String> {
    if d[0] != 8 {
        return None;
    }
    let check: fn(&[u8]) -> u8 = match d[2] {
        6 | 7 => mod10,
        8 | 9 => |b| mod11(b, false),
        _ => return None,
    };
    let blocks: Vec<&[u8]> = d.chunks(12).collect();
    if blocks.iter().any(|b| check(&b[..11]) != b[11]) {
        return None;
    }
    let barcode: Vec<u8> = blocks
        .iter()
        .flat_map(|b| b[..11].iter().copied())
        .collect();
    let without_dv: Vec<u8> = [&barcode[..3], &barcode[4..]].concat();
    if check(&without_dv) != barcode[3] {
        return None;
    }
    let s = digits(d);
    Some(
        (0..4)
            .map(|i| {
                format!(
                    "{}-{}",
                    &s[i * 12..i * 12 + 11],
                    &s[i * 12 + 11..i * 12 + 12]
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The amount a bank's boleto line carries, in centavos (its last ten digits); `None` for a
/// collection slip or a line that does not check, and for `0` (a boleto of any amount).
pub fn line_amount_cents(line: &str) -> Option<i64> {
    let d: String = line.chars().filter(char::is_ascii_digit).collect();
    if d.len() != 47 || digitable_line(line).is_none() {
        return None;
    }
    d[37..47].parse().ok().filter(|&c: &i64| c > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A BR Code for R$ 499,00 made for these tests (its CRC computed apart, by hand).
    const PIX: &str = "00020101021226580014br.gov.bcb.pix01367f6d2c1a-8e4b-4c3d-9a2f-5b6e7d8c9a015204000053039865406499.005802BR5918ACME SOFTWARE LTDA6009SAO PAULO62170513FAT20260008126304BFF0";
    /// A bank boleto of R$ 499,00 due 2026-08-25 (factor 1549), its digits computed apart.
    const LINE: &str = "23793381286000000000400004004008915490000049900";

    #[test]
    fn ui2_a_pix_code_is_known_by_its_form_and_crc() {
        assert_eq!(
            crc16(b"123456789"),
            0x29B1,
            "CRC-16/CCITT-FALSE check value"
        );
        assert_eq!(pix_code(PIX).as_deref(), Some(PIX));
        assert_eq!(pix_code(&format!("  {PIX}\n")).as_deref(), Some(PIX));
        // One changed character, the CRC's own digits, a lower-case CRC read as hex.
        let changed = PIX.replace("499.00", "999.00");
        assert_eq!(pix_code(&changed), None);
        assert_eq!(pix_code(&PIX.replace("BFF0", "BFF1")), None);
        assert!(pix_code(&PIX.replace("BFF0", "bff0")).is_some());
        // Not Pix: another merchant account, a truncated code, plain text.
        assert_eq!(
            pix_code(&PIX.replace("br.gov.bcb.pix", "br.gov.bcb.xyz")),
            None
        );
        assert_eq!(pix_code(&PIX[..PIX.len() - 1]), None);
        assert_eq!(pix_code("000201 pague com pix"), None);
    }

    #[test]
    fn ui2_a_digitable_line_is_known_by_its_check_digits() {
        let grouped = "23793.38128 60000.000004 00004.004008 9 15490000049900";
        assert_eq!(digitable_line(LINE).as_deref(), Some(grouped));
        assert_eq!(digitable_line(grouped).as_deref(), Some(grouped));
        assert_eq!(line_amount_cents(grouped), Some(49_900));
        // Any one digit changed breaks a check digit.
        for at in 0..LINE.len() {
            let mut bytes = LINE.as_bytes().to_vec();
            bytes[at] = if bytes[at] == b'9' {
                b'0'
            } else {
                bytes[at] + 1
            };
            let changed = String::from_utf8(bytes).unwrap();
            assert_eq!(digitable_line(&changed), None, "digit {at}");
        }
        assert_eq!(digitable_line("2379338128"), None);
        assert_eq!(digitable_line("23793.38128 abc"), None);
    }

    #[test]
    fn ui2_a_collection_slip_checks_by_its_value_id() {
        // 48 digits, value id 7 (mod 10), built from a 44-digit barcode computed apart.
        let slip = "836700000018 234500481002 018097565735 130015896124";
        let found = digitable_line(slip);
        assert!(found.is_some(), "{slip}");
        assert_eq!(line_amount_cents(slip), None, "a slip's amount is not read");
        let broken = slip.replacen("2345", "2346", 1);
        assert_eq!(digitable_line(&broken), None);
    }

    #[test]
    fn ui2_codes_are_found_wherever_the_member_nests_them_and_each_once() {
        let mut codes = PayCodes::default();
        codes.collect(&json!({
            "gateway": "KOBANA",
            "bank_slip": {"digitable_line": LINE, "barcode": "23799154900000499003381260000000000000400400"},
            "pix": {"qr_code": PIX, "copy": PIX},
            "notes": ["000201 quase", "12345"]
        }));
        assert_eq!(codes.pix, vec![PIX.to_owned()]);
        assert_eq!(codes.lines.len(), 1);
        let mut none = PayCodes::default();
        none.collect(&json!({"pix": {"txid": "FAT2026000812"}}));
        assert_eq!(none, PayCodes::default());
    }
}
