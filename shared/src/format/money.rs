//! Which unit an invoice's `*_subcents` members are really in, settled from the members
//! whose name and description agree (readings `invoice_totals_unit`, `line_item_input_unit`
//! in `tests/contract/billing-v1.json`).
//!
//! The document names `total_subcents` & co. subcentavos (÷10 000) and describes them as
//! centavos (÷100). Three relations hold under the right unit, each against a member whose
//! unit is not in doubt:
//!
//! - `amount_due_subcents − amount_paid_subcents` = `amount_remaining_cents` (while something
//!   is owed);
//! - `subtotal_subcents` = Σ `line_items[].amount_cents` (when line items came);
//! - `total_subcents` = `net_value_cents + total_withheld_cents` (when the net is known).
//!
//! Each relation that can tell the units apart votes; they must agree. A line item's own
//! `unit_amount_subcents` is settled by `quantity × unit` = `amount_cents`.
//!
//! A unit in doubt fails safe: when no relation can tell (a paid invoice without line items
//! or net value) or the relations disagree, no `*_subcents` member gets a BRL text; the
//! pt-BR note names the total under each unit instead, so no single figure passes for fact.

use serde_json::{Map, Value};

use super::brl_from_cents;

/// What an invoice's `*_subcents` integers count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Subcentavos: ÷10 000 is reais (the names' reading).
    Subcents,
    /// Centavos: ÷100 is reais (the descriptions' reading).
    Cents,
}

impl Scale {
    /// Units of this scale in one centavo.
    pub fn per_cent(self) -> i64 {
        match self {
            Scale::Subcents => 100,
            Scale::Cents => 1,
        }
    }

    /// `value` of this scale in centavos, rounded half away from zero.
    pub fn to_cents(self, value: i64) -> i64 {
        let per = self.per_cent();
        let half = if value < 0 { -(per / 2) } else { per / 2 };
        value.saturating_add(half) / per
    }
}

/// What the relations of one invoice say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// Every relation that could tell agrees on this scale; the relations' names.
    Settled(Scale, Vec<&'static str>),
    /// The relations contradict each other, or one fits neither unit.
    Conflict(Vec<&'static str>),
    /// No relation could tell (nothing owed, no line items, no net value).
    Unsettled,
}

impl Settlement {
    /// The scale the BRL companions use: the settled one; `None` while the unit is in doubt
    /// (unsettled or contradictory), when no `*_subcents` member gets a BRL text.
    pub fn scale(&self) -> Option<Scale> {
        match self {
            Settlement::Settled(scale, _) => Some(*scale),
            _ => None,
        }
    }

    /// The pt-BR note an invoice carries when its amounts are not what the names say, or
    /// their unit is in doubt (then with the total under each unit, from `total_subcents`);
    /// `None` when the names' unit was confirmed.
    pub fn note(&self, total_subcents: Option<i64>) -> Option<String> {
        let either = total_subcents.map(both_units).map(|(names, cents)| {
            format!(
                " O total é {names} se estiverem em subcentavos (÷10000, como diz o nome) ou {cents} se estiverem em centavos (÷100, como diz a descrição do Kobana)."
            )
        });
        let either = either.unwrap_or_default();
        match self {
            Settlement::Settled(Scale::Subcents, _) => None,
            Settlement::Settled(Scale::Cents, by) => Some(format!(
                "Os campos *_subcents desta fatura vieram em centavos (÷100), não em subcentavos: conferido por {}. Os valores em R$ (*_brl) já usam ÷100.",
                by.join(" e ")
            )),
            Settlement::Conflict(by) => Some(format!(
                "Os valores desta fatura não batem entre si ({}), por isso os campos *_subcents ficam sem valor em R$.{either} Confira a fatura no painel do Kobana antes de agir sobre ela.",
                by.join(", ")
            )),
            Settlement::Unsettled => Some(format!(
                "Não foi possível conferir a unidade dos campos *_subcents desta fatura (nada em aberto, sem itens e sem valor líquido para comparar), por isso eles ficam sem valor em R$.{either} Confira o valor no painel do Kobana antes de usá-lo."
            )),
        }
    }

    /// [`Settlement::note`] in a few words, for a list row (held to a byte budget).
    pub fn short_note(&self, total_subcents: Option<i64>) -> Option<String> {
        let either = total_subcents
            .map(both_units)
            .map(|(names, cents)| format!(": total {names} (÷10000) ou {cents} (÷100)"));
        let either = either.unwrap_or_default();
        match self {
            Settlement::Settled(Scale::Subcents, _) => None,
            Settlement::Settled(Scale::Cents, _) => {
                Some("*_subcents em centavos (÷100), conferido".to_owned())
            }
            Settlement::Conflict(_) => Some(format!("valores não batem entre si{either}")),
            Settlement::Unsettled => Some(format!("unidade de *_subcents não conferida{either}")),
        }
    }
}

/// A total in BRL under each unit: (the names' ÷10 000, the descriptions' ÷100).
fn both_units(total_subcents: i64) -> (String, String) {
    (
        brl_from_cents(Scale::Subcents.to_cents(total_subcents)),
        brl_from_cents(Scale::Cents.to_cents(total_subcents)),
    )
}

/// How one relation `scaled ≈ s × cents` reads: which scale fits, within `slack` units of
/// the subcent scale (its rounding) and a unit of the cent scale.
fn vote(scaled: i64, cents: i64, slack: i64) -> Option<Option<Scale>> {
    if cents == 0 {
        return None;
    }
    let fits = |scale: Scale, tolerance: i64| {
        scaled
            .checked_sub(cents.saturating_mul(scale.per_cent()))
            .is_some_and(|d| d.abs() <= tolerance)
    };
    match (fits(Scale::Subcents, slack), fits(Scale::Cents, 1)) {
        (true, false) => Some(Some(Scale::Subcents)),
        (false, true) => Some(Some(Scale::Cents)),
        // Too small to tell the units apart.
        (true, true) => None,
        (false, false) => Some(None),
    }
}

fn int(map: &Map<String, Value>, key: &str) -> Option<i64> {
    map.get(key).and_then(Value::as_i64)
}

/// Whether a JSON object is an invoice (an `InvoiceV1`).
pub fn is_invoice(map: &Map<String, Value>) -> bool {
    map.contains_key("total_subcents") && map.contains_key("amount_remaining_cents")
}

/// Settles an invoice's scale from its unit-certain members.
pub fn settle_invoice(map: &Map<String, Value>) -> Settlement {
    let mut votes: Vec<(&'static str, Option<Scale>)> = Vec::new();
    if let (Some(due), Some(paid), Some(remaining)) = (
        int(map, "amount_due_subcents"),
        int(map, "amount_paid_subcents"),
        int(map, "amount_remaining_cents"),
    ) && remaining > 0
        && let Some(v) = vote(due.saturating_sub(paid), remaining, 100)
    {
        votes.push(("amount_remaining_cents", v));
    }
    if let (Some(subtotal), Some(Value::Array(items))) =
        (int(map, "subtotal_subcents"), map.get("line_items"))
    {
        let amounts: Option<i64> = items
            .iter()
            .map(|i| i.get("amount_cents").and_then(Value::as_i64))
            .sum();
        let slack = 50 * items.len() as i64 + 50;
        if let Some(v) = amounts.and_then(|sum| vote(subtotal, sum, slack)) {
            votes.push(("line_items[].amount_cents", v));
        }
    }
    if let (Some(total), Some(net), Some(withheld)) = (
        int(map, "total_subcents"),
        int(map, "net_value_cents"),
        int(map, "total_withheld_cents"),
    ) && let Some(v) = vote(total, net.saturating_add(withheld), 100)
    {
        votes.push(("net_value_cents + total_withheld_cents", v));
    }
    let by: Vec<&'static str> = votes.iter().map(|(name, _)| *name).collect();
    let mut scales = votes.iter().map(|(_, v)| *v);
    match scales.next() {
        None => Settlement::Unsettled,
        Some(Some(first)) if scales.all(|v| v == Some(first)) => Settlement::Settled(first, by),
        Some(_) => Settlement::Conflict(by),
    }
}

/// An invoice's unit ([`Settlement::scale`]) and its pt-BR note ([`Settlement::note`]),
/// settled once from its own members.
pub fn invoice_unit(map: &Map<String, Value>) -> (Option<Scale>, Option<String>) {
    let settled = settle_invoice(map);
    (settled.scale(), settled.note(int(map, "total_subcents")))
}

/// The short note of an invoice's list row ([`Settlement::short_note`]).
pub fn short_amounts_note(map: &Map<String, Value>) -> Option<String> {
    settle_invoice(map).short_note(int(map, "total_subcents"))
}

/// Settles a line item's `unit_amount_subcents` by `quantity × unit = amount_cents`.
pub fn settle_line_item(map: &Map<String, Value>) -> Option<Scale> {
    let unit = int(map, "unit_amount_subcents")?;
    let quantity = map.get("quantity").and_then(Value::as_f64).unwrap_or(1.0);
    let amount = int(map, "amount_cents")?;
    let scaled = (quantity * unit as f64).round() as i64;
    vote(scaled, amount, 50).flatten()
}

/// The invoice's total in centavos, under a settled scale only: what a person may be asked
/// to confirm. `None` when the scale could not be settled.
pub fn invoice_total_cents(invoice: &Value) -> Option<i64> {
    let map = invoice.as_object()?;
    match settle_invoice(map) {
        Settlement::Settled(scale, _) => Some(scale.to_cents(int(map, "total_subcents")?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settle(v: Value) -> Settlement {
        settle_invoice(v.as_object().unwrap())
    }

    #[test]
    fn t3_each_relation_settles_the_scale() {
        // An open invoice of R$ 499,00 under each reading.
        let names = json!({"total_subcents": 4_990_000, "amount_due_subcents": 4_990_000,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49_900,
            "net_value_cents": 49_900, "total_withheld_cents": 0});
        assert_eq!(
            settle(names.clone()),
            Settlement::Settled(
                Scale::Subcents,
                vec![
                    "amount_remaining_cents",
                    "net_value_cents + total_withheld_cents"
                ]
            )
        );
        assert_eq!(settle(names.clone()).note(Some(4_990_000)), None);
        assert_eq!(invoice_total_cents(&names), Some(49_900));
        let cents = json!({"total_subcents": 49_900, "amount_due_subcents": 49_900,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49_900,
            "net_value_cents": null, "total_withheld_cents": 0});
        assert_eq!(
            settle(cents.clone()),
            Settlement::Settled(Scale::Cents, vec!["amount_remaining_cents"])
        );
        assert!(
            settle(cents.clone())
                .note(Some(49_900))
                .unwrap()
                .contains("centavos (÷100)")
        );
        assert_eq!(invoice_total_cents(&cents), Some(49_900));
        // A paid invoice: only the line items can tell.
        let paid = json!({"total_subcents": 15_000_000, "subtotal_subcents": 15_000_000,
            "amount_remaining_cents": 0, "net_value_cents": null,
            "line_items": [{"amount_cents": 100_000}, {"amount_cents": 50_000}]});
        assert_eq!(settle(paid).scale(), Some(Scale::Subcents));
    }

    #[test]
    fn t3_contradictions_and_silence_are_said() {
        let conflict = json!({"total_subcents": 4_990_000, "amount_due_subcents": 49_900,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49_900,
            "net_value_cents": 49_900, "total_withheld_cents": 0});
        let settled = settle(conflict.clone());
        assert!(matches!(settled, Settlement::Conflict(_)), "{settled:?}");
        assert_eq!(settled.scale(), None, "no BRL text under a unit in doubt");
        let note = invoice_unit(conflict.as_object().unwrap()).1.unwrap();
        assert!(note.contains("não batem"), "{note}");
        assert!(
            note.contains("R$ 499,00") && note.contains("R$ 49.900,00"),
            "both candidates: {note}"
        );
        assert_eq!(invoice_total_cents(&conflict), None);
        let off = json!({"total_subcents": 12_345, "amount_remaining_cents": 0,
            "net_value_cents": 99, "total_withheld_cents": 0});
        assert!(matches!(settle(off), Settlement::Conflict(_)));
        let silent = json!({"total_subcents": 4_990_000, "amount_remaining_cents": 0,
            "net_value_cents": null});
        assert_eq!(settle(silent.clone()), Settlement::Unsettled);
        assert_eq!(settle(silent.clone()).scale(), None);
        let map = silent.as_object().unwrap();
        let note = invoice_unit(map).1.unwrap();
        assert!(note.contains("Não foi possível conferir"), "{note}");
        assert!(
            note.contains("R$ 499,00") && note.contains("R$ 49.900,00"),
            "{note}"
        );
        assert_eq!(
            short_amounts_note(map).unwrap(),
            "unidade de *_subcents não conferida: total R$ 499,00 (÷10000) ou R$ 49.900,00 (÷100)"
        );
    }

    #[test]
    fn t3_line_items_settle_their_own_unit() {
        let item = |unit: i64| json!({"quantity": 2, "unit_amount_subcents": unit, "amount_cents": 50_000});
        let settled = |v: Value| settle_line_item(v.as_object().unwrap());
        assert_eq!(settled(item(2_500_000)), Some(Scale::Subcents));
        assert_eq!(settled(item(25_000)), Some(Scale::Cents));
        assert_eq!(settled(item(7)), None);
        assert_eq!(Scale::Subcents.to_cents(4_990_050), 49_901);
        assert_eq!(Scale::Subcents.to_cents(-50), -1);
        assert_eq!(Scale::Cents.to_cents(123), 123);
    }
}
