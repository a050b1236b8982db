//! The arithmetic of `billing_reports_month`: a month's invoices and payments, as Kobana's
//! lists gave them, turned into the four totals, the breakdowns and the pt-BR summary. Pure:
//! the month and "today" come in as values, so a report is the same under any clock.
//!
//! The definitions (docs/features.md says why each):
//! - `billed`: invoices due in the month, neither `draft` nor `void`, by their total;
//! - `received`: `succeeded` payments paid in the month (São Paulo day of `paid_at`), by
//!   `paid_amount_cents` (`amount_cents` when Kobana sent no paid amount);
//! - `open`: `open` invoices due in the month, by what is still owed (`amount_remaining_cents`);
//! - `overdue`: those of them due before today.
//!
//! Money fails safe: an invoice total counts only under the unit its own members settle
//! (`format::money`); an invoice whose unit is in doubt is left out of `billed` and named
//! under `unverified` with its total under each unit. `open` and `overdue` use
//! `amount_remaining_cents`, whose unit is never in doubt.

use std::collections::{BTreeMap, HashSet};

use jiff::civil::Date;
use serde_json::{Map, Value, json};

use crate::access::slugs::{INVOICES, PAYMENTS};
use crate::format::money::{Scale, invoice_total_cents};
use crate::format::{brl_from_cents, calendar_day, sao_paulo};

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Month {
    first: Date,
}

/// pt-BR month names.
const MONTHS: [&str; 12] = [
    "janeiro",
    "fevereiro",
    "março",
    "abril",
    "maio",
    "junho",
    "julho",
    "agosto",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
];

impl Month {
    /// Reads `YYYY-MM` (a real month from 1900 on), or says in pt-BR what is wrong.
    pub fn parse(text: &str) -> Result<Month, String> {
        let bad = || {
            format!(
                "`month` inválido: {text:?}. Use o formato YYYY-MM com um mês real (01 a 12), ex.: 2026-08."
            )
        };
        let (y, m) = text.trim().split_once('-').ok_or_else(bad)?;
        if y.len() != 4 || m.len() != 2 || !y.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let year: i16 = y.parse().map_err(|_| bad())?;
        let month: i8 = m.parse().map_err(|_| bad())?;
        if !(1..=12).contains(&month) || !(1900..=9999).contains(&year) {
            return Err(bad());
        }
        Ok(Month {
            first: jiff::civil::date(year, month, 1),
        })
    }

    /// The month `day` falls in.
    pub fn of(day: Date) -> Month {
        Month {
            first: day.first_of_month(),
        }
    }

    /// Its first day.
    pub fn first(self) -> Date {
        self.first
    }

    /// Its last day.
    pub fn last(self) -> Date {
        self.first.last_of_month()
    }

    /// `YYYY-MM`.
    pub fn id(self) -> String {
        format!("{:04}-{:02}", self.first.year(), self.first.month())
    }

    /// `agosto de 2026`.
    pub fn label(self) -> String {
        let name = MONTHS[usize::try_from(self.first.month() - 1).unwrap_or(0)];
        format!("{name} de {}", self.first.year())
    }

    fn contains(self, day: Date) -> bool {
        (self.first()..=self.last()).contains(&day)
    }
}

/// How much of each list was read: the records read and the total Kobana announced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Records read.
    pub read: u64,
    /// Records Kobana said the query holds.
    pub total: u64,
}

impl Coverage {
    fn complete(self) -> bool {
        self.read >= self.total
    }
}

/// What the report is computed from.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The month.
    pub month: Month,
    /// Today in São Paulo (for `overdue`).
    pub today: Date,
    /// Invoices whose due date may fall in the month (any others are ignored).
    pub invoices: &'a [Value],
    /// How much of the invoice list was read.
    pub invoices_read: Coverage,
    /// `succeeded` payments whose `paid_at` may fall in the month; `None` when the token may
    /// not read payments.
    pub payments: Option<&'a [Value]>,
    /// How much of the payment list was read.
    pub payments_read: Coverage,
}

#[derive(Debug, Default, Clone, Copy)]
struct Sum {
    cents: i64,
    count: u64,
}

impl Sum {
    fn add(&mut self, cents: i64) {
        self.cents = self.cents.saturating_add(cents);
        self.count += 1;
    }

    fn json(self) -> Value {
        json!({"cents": self.cents, "brl": brl_from_cents(self.cents), "count": self.count})
    }
}

#[derive(Debug, Default)]
struct Day {
    billed: Sum,
    received: Sum,
}

fn text<'a>(record: &'a Value, key: &str) -> Option<&'a str> {
    record.get(key).and_then(Value::as_str)
}

fn int(record: &Value, key: &str) -> Option<i64> {
    record.get(key).and_then(Value::as_i64)
}

/// Each record once (by `id`), the first seen kept: pages read apart may overlap.
fn each_once(records: &[Value]) -> impl Iterator<Item = &Value> {
    let mut seen = HashSet::new();
    records
        .iter()
        .filter(move |r| text(r, "id").is_none_or(|id| seen.insert(id.to_owned())))
}

/// The São Paulo calendar day of an instant (`paid_at`).
fn instant_day(text: &str) -> Option<Date> {
    let ts: jiff::Timestamp = text.parse().ok()?;
    Some(ts.to_zoned_datetime(sao_paulo()).date())
}

#[derive(Debug, Default)]
struct Tally {
    billed: Sum,
    received: Sum,
    open: Sum,
    overdue: Sum,
    by_status: BTreeMap<String, (Sum, u64)>,
    by_day: BTreeMap<Date, Day>,
    unverified: Vec<Value>,
}

impl Tally {
    fn invoice(&mut self, inputs: &Inputs, invoice: &Value) {
        let Some(due) = text(invoice, "due_date").and_then(calendar_day) else {
            return;
        };
        if !inputs.month.contains(due) {
            return;
        }
        let status = text(invoice, "status").unwrap_or("desconhecido").to_owned();
        let total = invoice_total_cents(invoice);
        let (sum, unverified) = self.by_status.entry(status.clone()).or_default();
        match total {
            Some(cents) => sum.add(cents),
            None => {
                sum.count += 1;
                *unverified += 1;
            }
        }
        if !matches!(status.as_str(), "draft" | "void") {
            match total {
                Some(cents) => {
                    self.billed.add(cents);
                    self.by_day.entry(due).or_default().billed.add(cents);
                }
                None => self.unverified.push(unverified_entry(invoice)),
            }
        }
        if status == "open" {
            let owed = int(invoice, "amount_remaining_cents").unwrap_or(0);
            self.open.add(owed);
            if due < inputs.today {
                self.overdue.add(owed);
            }
        }
    }

    fn payment(&mut self, month: Month, payment: &Value) {
        if text(payment, "status") != Some("succeeded") {
            return;
        }
        let Some(day) = text(payment, "paid_at").and_then(instant_day) else {
            return;
        };
        if !month.contains(day) {
            return;
        }
        let cents = int(payment, "paid_amount_cents")
            .or_else(|| int(payment, "amount_cents"))
            .unwrap_or(0);
        self.received.add(cents);
        self.by_day.entry(day).or_default().received.add(cents);
    }
}

/// An invoice left out of `billed`: its total under each unit it may be in.
fn unverified_entry(invoice: &Value) -> Value {
    let total = int(invoice, "total_subcents").unwrap_or(0);
    json!({
        "id": invoice.get("id"),
        "number": invoice.get("number"),
        "total_if_subcents_brl": brl_from_cents(Scale::Subcents.to_cents(total)),
        "total_if_cents_brl": brl_from_cents(Scale::Cents.to_cents(total)),
    })
}

/// The report's `structuredContent`.
pub fn compute(inputs: &Inputs) -> Value {
    let mut tally = Tally::default();
    each_once(inputs.invoices).for_each(|i| tally.invoice(inputs, i));
    if let Some(payments) = inputs.payments {
        each_once(payments).for_each(|p| tally.payment(inputs.month, p));
    }
    let complete = inputs.invoices_read.complete()
        && (inputs.payments.is_none() || inputs.payments_read.complete());
    let by_status: Map<String, Value> = tally
        .by_status
        .iter()
        .map(|(status, (sum, unverified))| {
            let mut entry = sum.json();
            if *unverified > 0 {
                entry["unverified"] = json!(unverified);
            }
            (status.clone(), entry)
        })
        .collect();
    let by_day: Vec<Value> = tally
        .by_day
        .iter()
        .map(|(day, d)| {
            json!({
                "day": day.to_string(),
                "billed_cents": d.billed.cents, "billed_count": d.billed.count,
                "received_cents": d.received.cents, "received_count": d.received.count,
            })
        })
        .collect();
    let coverage = |c: Coverage| json!({"read": c.read, "total": c.total});
    let mut report = json!({
        "month": inputs.month.id(),
        "as_of": inputs.today.to_string(),
        "billed": tally.billed.json(),
        "open": tally.open.json(),
        "overdue": tally.overdue.json(),
        "by_status": by_status,
        "by_day": by_day,
        "complete": complete,
        "coverage": {
            (INVOICES): coverage(inputs.invoices_read),
            (PAYMENTS): inputs.payments.map(|_| coverage(inputs.payments_read)),
        },
    });
    // Without `payments:read` nothing was received as far as the server can tell: the member is
    // left out (a portable schema has no `null` type) and a note says why.
    if inputs.payments.is_some() {
        report["received"] = tally.received.json();
    }
    if !tally.unverified.is_empty() {
        report["unverified"] = Value::Array(tally.unverified);
    }
    let notes = notes(inputs, &report);
    if !notes.is_empty() {
        report["notes"] = json!(notes);
    }
    report
}

/// What the figures leave out, in pt-BR.
fn notes(inputs: &Inputs, report: &Value) -> Vec<String> {
    let mut notes = Vec::new();
    if inputs.payments.is_none() {
        notes.push(
            "Recebido não calculado: o token não tem payments:read, e sem os pagamentos o valor recebido no mês não pode ser lido."
                .to_owned(),
        );
    }
    let partial = |what: &str, c: Coverage| {
        format!(
            "Lista incompleta: foram lidos {} de {} {what}; os totais abaixo cobrem só esses registros e podem ser maiores. Para o mês inteiro, consulte as listas por período menor (billing_invoices_list com due_date_from/due_date_to).",
            c.read, c.total
        )
    };
    if !inputs.invoices_read.complete() {
        notes.push(partial("registros de faturas", inputs.invoices_read));
    }
    if inputs.payments.is_some() && !inputs.payments_read.complete() {
        notes.push(partial("pagamentos", inputs.payments_read));
    }
    if let Some(Value::Array(unverified)) = report.get("unverified") {
        notes.push(format!(
            "{} fatura(s) ficaram fora do faturado: a unidade dos seus valores não pôde ser conferida (veja unverified, com o total em cada unidade possível).",
            unverified.len()
        ));
    }
    notes
}

/// The day `2026-08-20` as `20/08/2026`.
fn br_date(day: &str) -> String {
    match day.split('-').collect::<Vec<_>>().as_slice() {
        [y, m, d] => format!("{d}/{m}/{y}"),
        _ => day.to_owned(),
    }
}

/// pt-BR status names.
fn status_name(status: &str) -> &str {
    match status {
        "draft" => "rascunho",
        "open" => "em aberto",
        "paid" => "paga",
        "void" => "anulada",
        "uncollectible" => "incobrável",
        other => other,
    }
}

/// The pt-BR text of a report (the tool's `content`, for hosts without the view).
pub fn summary(report: &Value) -> String {
    let figure = |key: &str| {
        let v = &report[key];
        (
            v["brl"].as_str().unwrap_or("?").to_owned(),
            v["count"].as_u64().unwrap_or(0),
        )
    };
    let month = report["month"].as_str().unwrap_or_default();
    let label = Month::parse(month).map_or_else(|_| month.to_owned(), Month::label);
    let as_of = br_date(report["as_of"].as_str().unwrap_or_default());
    let (billed, billed_n) = figure("billed");
    let (open, open_n) = figure("open");
    let (overdue, overdue_n) = figure("overdue");
    let received = if report["received"].is_null() {
        "não calculado (sem payments:read)".to_owned()
    } else {
        let (brl, n) = figure("received");
        format!("{brl} ({n} pagamento(s) confirmado(s) no mês)")
    };
    let statuses: Vec<String> = report["by_status"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, v)| {
            format!(
                "{} {} ({})",
                status_name(status),
                v["count"],
                v["brl"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let mut text = format!(
        "Faturamento de {label} (vencidas contadas até {as_of}, America/Sao_Paulo):\n\
         - Faturado: {billed} ({billed_n} fatura(s) com vencimento no mês, sem rascunhos nem anuladas)\n\
         - Recebido: {received}\n\
         - Em aberto: {open} ({open_n} fatura(s))\n\
         - Vencido: {overdue} ({overdue_n} fatura(s) vencida(s) antes de hoje)\n\
         Por status: {}",
        if statuses.is_empty() {
            "nenhuma fatura com vencimento no mês".to_owned()
        } else {
            statuses.join("; ")
        }
    );
    for note in report["notes"].as_array().into_iter().flatten() {
        text.push_str("\nAtenção: ");
        text.push_str(note.as_str().unwrap_or_default());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invoice(id: &str, status: &str, due: &str, total: i64, remaining: i64) -> Value {
        json!({"id": id, "number": id, "status": status, "due_date": due,
            "total_subcents": total * 100, "amount_due_subcents": total * 100,
            "amount_paid_subcents": (total - remaining) * 100,
            "amount_remaining_cents": remaining,
            "net_value_cents": total, "total_withheld_cents": 0})
    }

    fn payment(id: &str, status: &str, paid_at: &str, cents: i64) -> Value {
        json!({"id": id, "status": status, "paid_at": paid_at, "amount_cents": cents,
            "paid_amount_cents": cents})
    }

    fn inputs<'a>(invoices: &'a [Value], payments: Option<&'a [Value]>) -> Inputs<'a> {
        let n = |v: &[Value]| v.len() as u64;
        Inputs {
            month: Month::parse("2026-08").unwrap(),
            today: "2026-08-20".parse().unwrap(),
            invoices,
            invoices_read: Coverage {
                read: n(invoices),
                total: n(invoices),
            },
            payments,
            payments_read: Coverage {
                read: payments.map_or(0, n),
                total: payments.map_or(0, n),
            },
        }
    }

    #[test]
    fn ui1_the_four_totals_follow_their_definitions() {
        let invoices = [
            invoice("a", "open", "2026-08-05T03:00:00Z", 1_198_800, 1_198_800),
            invoice("b", "open", "2026-08-25T03:00:00Z", 49_900, 49_900),
            invoice("c", "paid", "2026-08-14T03:00:00Z", 120_000, 0),
            invoice("d", "draft", "2026-08-30T03:00:00Z", 150_000, 150_000),
            invoice("e", "void", "2026-08-02", 25_000, 0),
            // Midnight UTC names its own day (reading `due_date_form`): 31 July, outside.
            invoice("f", "open", "2026-07-31T00:00:00Z", 5_000, 5_000),
            invoice("a", "open", "2026-08-05T03:00:00Z", 1_198_800, 1_198_800),
        ];
        let payments = [
            payment("p1", "succeeded", "2026-08-13T16:20:00-03:00", 120_000),
            payment("p2", "failed", "2026-08-13T16:20:00-03:00", 999),
            // 31/07 22:00 in São Paulo is August in UTC: still July.
            payment("p3", "succeeded", "2026-08-01T01:00:00Z", 777),
        ];
        let report = compute(&inputs(&invoices, Some(&payments)));
        assert_eq!(report["billed"]["cents"], 1_198_800 + 49_900 + 120_000);
        assert_eq!(report["billed"]["count"], 3);
        assert_eq!(report["billed"]["brl"], "R$ 13.687,00");
        assert_eq!(report["received"]["cents"], 120_000);
        assert_eq!(report["open"]["cents"], 1_198_800 + 49_900);
        assert_eq!(report["overdue"]["cents"], 1_198_800);
        assert_eq!(report["overdue"]["count"], 1);
        assert_eq!(report["by_status"]["draft"]["count"], 1);
        assert_eq!(report["by_status"]["void"]["cents"], 25_000);
        assert_eq!(
            report["by_status"]["open"]["count"], 2,
            "a repeated id counts once"
        );
        assert_eq!(report["by_day"][0]["day"], "2026-08-05");
        assert_eq!(report["complete"], true);
        assert!(report.get("notes").is_none(), "{report}");
        let text = summary(&report);
        assert!(text.contains("agosto de 2026"), "{text}");
        assert!(text.contains("Faturado: R$ 13.687,00"), "{text}");
        assert!(text.contains("Vencido: R$ 11.988,00"), "{text}");
    }

    #[test]
    fn ui1_overdue_depends_on_the_given_today_only() {
        let invoices = [invoice("b", "open", "2026-08-25T03:00:00Z", 49_900, 49_900)];
        let mut later = inputs(&invoices, None);
        assert_eq!(compute(&later)["overdue"]["cents"], 0);
        later.today = "2026-08-26".parse().unwrap();
        assert_eq!(compute(&later)["overdue"]["cents"], 49_900);
    }

    #[test]
    fn ui1_an_invoice_whose_unit_is_in_doubt_is_not_summed_and_is_named() {
        // Paid, nothing owed, no net value, no line items: nothing settles the unit.
        let doubtful = json!({"id": "u", "number": "FAT-540", "status": "paid",
            "due_date": "2026-08-14T03:00:00Z", "total_subcents": 12_340_000,
            "amount_due_subcents": 12_340_000, "amount_paid_subcents": 12_340_000,
            "amount_remaining_cents": 0, "net_value_cents": null, "total_withheld_cents": 0});
        let invoices = [
            doubtful,
            invoice("c", "paid", "2026-08-14T03:00:00Z", 120_000, 0),
        ];
        let report = compute(&inputs(&invoices, None));
        assert_eq!(report["billed"]["cents"], 120_000);
        assert_eq!(report["unverified"][0]["number"], "FAT-540");
        assert_eq!(
            report["unverified"][0]["total_if_subcents_brl"],
            "R$ 1.234,00"
        );
        assert_eq!(
            report["unverified"][0]["total_if_cents_brl"],
            "R$ 123.400,00"
        );
        assert_eq!(report["by_status"]["paid"]["unverified"], 1);
        assert!(report["received"].is_null());
        let text = summary(&report);
        assert!(text.contains("sem payments:read"), "{text}");
        assert!(text.contains("ficaram fora do faturado"), "{text}");
    }

    #[test]
    fn ui1_a_list_read_in_part_says_so() {
        let invoices = [invoice("b", "open", "2026-08-25T03:00:00Z", 49_900, 49_900)];
        let mut partial = inputs(&invoices, Some(&[]));
        partial.invoices_read = Coverage {
            read: 300,
            total: 412,
        };
        let report = compute(&partial);
        assert_eq!(report["complete"], false);
        assert!(
            summary(&report).contains("foram lidos 300 de 412"),
            "{report}"
        );
    }

    #[test]
    fn ui1_months_parse_and_name_themselves() {
        let m = Month::parse("2028-02").unwrap();
        assert_eq!(
            (m.first().to_string(), m.last().to_string()),
            ("2028-02-01".into(), "2028-02-29".into())
        );
        assert_eq!(m.label(), "fevereiro de 2028");
        assert_eq!(Month::of("2026-12-31".parse().unwrap()).id(), "2026-12");
        for bad in ["2026-13", "2026-8", "agosto", "2026-08-01", ""] {
            assert!(Month::parse(bad).unwrap_err().contains("YYYY-MM"), "{bad}");
        }
    }
}
