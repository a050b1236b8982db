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

use serde_json::{Map, Value};

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
    /// The scale the BRL companions use: the settled one, else the names'.
    pub fn scale(&self) -> Scale {
        match self {
            Settlement::Settled(scale, _) => *scale,
            _ => Scale::Subcents,
        }
    }

    /// The pt-BR note an invoice carries when its amounts are not what the names say, or
    /// cannot be trusted; `None` when the names' unit was confirmed.
    pub fn note(&self) -> Option<String> {
        match self {
            Settlement::Settled(Scale::Subcents, _) => None,
            Settlement::Settled(Scale::Cents, by) => Some(format!(
                "Os campos *_subcents desta fatura vieram em centavos (÷100), não em subcentavos: conferido por {}. Os valores em R$ (*_brl) já usam ÷100.",
                by.join(" e ")
            )),
            Settlement::Conflict(by) => Some(format!(
                "Os valores desta fatura não batem entre si ({}): os totais em R$ podem estar errados. Confira a fatura no painel do Kobana antes de agir sobre ela.",
                by.join(", ")
            )),
            Settlement::Unsettled => Some(
                "Não foi possível conferir a unidade dos campos *_subcents desta fatura (nada em aberto, sem itens e sem valor líquido para comparar); os valores em R$ seguem o nome dos campos (÷10000).".to_owned(),
            ),
        }
    }
}

impl Settlement {
    /// [`Settlement::note`] in a few words, for a list row (held to a byte budget).
    pub fn short_note(&self) -> Option<&'static str> {
        match self {
            Settlement::Settled(Scale::Subcents, _) => None,
            Settlement::Settled(Scale::Cents, _) => {
                Some("*_subcents em centavos (÷100), conferido")
            }
            Settlement::Conflict(_) => Some("valores não batem entre si; confira no Kobana"),
            Settlement::Unsettled => Some("unidade de *_subcents não conferida"),
        }
    }
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
        assert_eq!(settle(names.clone()).note(), None);
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
                .note()
                .unwrap()
                .contains("centavos (÷100)")
        );
        assert_eq!(invoice_total_cents(&cents), Some(49_900));
        // A paid invoice: only the line items can tell.
        let paid = json!({"total_subcents": 15_000_000, "subtotal_subcents": 15_000_000,
            "amount_remaining_cents": 0, "net_value_cents": null,
            "line_items": [{"amount_cents": 100_000}, {"amount_cents": 50_000}]});
        assert_eq!(settle(paid).scale(), Scale::Subcents);
    }

    #[test]
    fn t3_contradictions_and_silence_are_said() {
        let conflict = json!({"total_subcents": 4_990_000, "amount_due_subcents": 49_900,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49_900,
            "net_value_cents": 49_900, "total_withheld_cents": 0});
        let settled = settle(conflict.clone());
        assert!(matches!(settled, Settlement::Conflict(_)), "{settled:?}");
        assert!(settled.note().unwrap().contains("não batem"));
        assert_eq!(invoice_total_cents(&conflict), None);
        let off = json!({"total_subcents": 12_345, "amount_remaining_cents": 0,
            "net_value_cents": 99, "total_withheld_cents": 0});
        assert!(matches!(settle(off), Settlement::Conflict(_)));
        let silent = json!({"total_subcents": 4_990_000, "amount_remaining_cents": 0,
            "net_value_cents": null});
        assert_eq!(settle(silent.clone()), Settlement::Unsettled);
        assert!(
            settle(silent)
                .note()
                .unwrap()
                .contains("Não foi possível conferir")
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
