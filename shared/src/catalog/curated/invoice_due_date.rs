//! Toolset `invoices`, continued: moving an invoice's due date, and its pending boletos' with
//! it, so invoice and slip agree. Kobana changes a boleto's due date only for a pending
//! boleto issued through its own gateway, and only to a future date; everything else is
//! said, boleto by boleto, in the result.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::invoices::derived;
use crate::access::slugs::{INVOICES, PAYMENTS};
use crate::access::{Permission, Resource};
use crate::catalog::context::{date_arg, uuid_arg};
use crate::catalog::{Effect, Output, ToolCtx, ToolError, ToolMeta, ToolSpec, Toolset};

/// Most boletos whose due date one call changes (an invoice has one, rarely two): the rest
/// are named, unchanged, in the result.
pub const MAX_BOLETOS: usize = 3;
/// The pending payments of an invoice one call reads (one page).
const PAYMENTS_READ: u32 = 20;

// Arguments of `billing_invoices_change_due_date`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DueDateArgs {
    /// UUID.
    pub id: String,
    /// New due date, YYYY-MM-DD, after today.
    pub due_date: String,
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "invoice": {"type": "object"},
            "pending_payments": {"type": "array"},
            "summary": {"type": "string"}
        },
        "required": ["invoice", "pending_payments", "summary"]
    })
}

/// One pending payment of the invoice, and whether its due date is to be changed.
enum Plan {
    /// A boleto to change (its id).
    Change(String),
    /// Left as it is, and why.
    Keep(String, String),
}

/// What to do with each pending payment: change the boletos (up to [`MAX_BOLETOS`]) that
/// Kobana's own gateway issued or whose gateway it does not name; keep the rest, saying why.
fn plan(payments: &[Value]) -> Vec<Plan> {
    let mut changes = 0;
    payments
        .iter()
        .filter_map(|p| {
            let id = p.get("id")?.as_str()?.to_owned();
            let method = p.get("payment_method_type").and_then(Value::as_str);
            let gateway = p.get("payment_gateway").and_then(Value::as_str);
            Some(match (method, gateway) {
                (Some("bank_slip"), Some(g)) if !g.to_ascii_lowercase().contains("kobana") => {
                    Plan::Keep(id, format!(
                        "boleto emitido pelo gateway {g}: o Kobana só muda o vencimento de boletos do gateway Kobana"
                    ))
                }
                (Some("bank_slip"), _) if changes >= MAX_BOLETOS => Plan::Keep(
                    id,
                    format!("até {MAX_BOLETOS} boletos por chamada; este não foi alterado"),
                ),
                (Some("bank_slip"), _) => {
                    changes += 1;
                    Plan::Change(id)
                }
                _ => Plan::Keep(
                    id,
                    "pagamento pendente que não é boleto: não tem vencimento próprio a mudar".to_owned(),
                ),
            })
        })
        .collect()
}

/// The new date, checked: a real date after today in São Paulo (Kobana moves a boleto only
/// to a future date).
fn future_date(raw: &str, today: jiff::civil::Date) -> Result<String, ToolError> {
    let date = date_arg("due_date", Some(raw))?.ok_or_else(|| {
        ToolError::InvalidArguments("`due_date` é obrigatório (AAAA-MM-DD)".to_owned())
    })?;
    let day: jiff::civil::Date = date
        .parse()
        .map_err(|_| ToolError::InvalidArguments(format!("`due_date` inválida: {date:?}")))?;
    if day <= today {
        return Err(ToolError::InvalidArguments(format!(
            "`due_date` precisa ser posterior a hoje ({today} em São Paulo); recebido {date}"
        )));
    }
    Ok(date)
}

/// The pending payments of an open invoice (one page), before anything is written: a token
/// that cannot read them is refused here, so the invoice never moves without its boletos.
async fn pending_payments(ctx: &ToolCtx, id: &str) -> Result<Vec<Value>, ToolError> {
    let query = [
        ("invoice_id".to_owned(), id.to_owned()),
        ("status".to_owned(), "pending".to_owned()),
        ("per_page".to_owned(), PAYMENTS_READ.to_string()),
    ];
    let data = ctx.data(&[PAYMENTS], &query).await?;
    Ok(data.as_array().cloned().unwrap_or_default())
}

/// Changes one boleto's due date, with its own idempotency key; the outcome as a row.
async fn change_boleto(ctx: &ToolCtx, payment: &str, date: &str) -> Value {
    let mut one = ctx.clone();
    one.idempotency_key = ctx
        .idempotency_key
        .as_ref()
        .map(|key| crate::canonical::idempotency_key(&format!("{key}:{payment}")));
    let sent = one
        .write(
            Method::POST,
            &[PAYMENTS, payment, "change-due-date"],
            Some(json!({"due_date": date})),
        )
        .await;
    match sent {
        Ok(answer) if answer["result"]["updated"] == true => json!({
            "payment_id": payment, "changed": true,
            "due_date": answer["result"]["due_date"].clone()
        }),
        Ok(_) => json!({"payment_id": payment, "changed": false,
            "why": "o Kobana respondeu que não alterou (updated: false)"}),
        Err(error) => json!({"payment_id": payment, "changed": false, "why": error.to_string()}),
    }
}

/// One sentence: what moved and what did not.
fn summary(number: &str, date: &str, rows: &[Value]) -> String {
    let moved = rows.iter().filter(|r| r["changed"] == true).count();
    let kept = rows.len() - moved;
    let day = date
        .parse::<jiff::civil::Date>()
        .map_or_else(|_| date.to_owned(), |d| d.strftime("%d/%m/%Y").to_string());
    let mut text = format!("Vencimento da fatura {number} alterado para {day}.");
    match (moved, kept) {
        (0, 0) => text.push_str(" Não havia boleto pendente a alterar."),
        (m, 0) => text.push_str(&format!(" {m} boleto(s) pendente(s) alterado(s) junto.")),
        (m, k) => text.push_str(&format!(
            " {m} pagamento(s) pendente(s) alterado(s); {k} não: veja `why` em cada um. Onde o boleto não mudou, ele e a fatura têm vencimentos diferentes."
        )),
    }
    text
}

async fn change_due_date(ctx: ToolCtx, args: DueDateArgs) -> Result<Value, ToolError> {
    let id = uuid_arg("id", &args.id)?.to_owned();
    let date = future_date(&args.due_date, ctx.clock.today())?;
    let invoice = ctx.data(&[INVOICES, &id], &[]).await?;
    let status = invoice["status"].as_str().unwrap_or_default().to_owned();
    if !matches!(status.as_str(), "draft" | "open") {
        return Err(ToolError::StateForbids {
            message: format!(
                "Só se muda o vencimento de uma fatura em rascunho ou em aberto. Situação atual da fatura: {status}."
            ),
            status,
        });
    }
    // A draft has no payments yet.
    let payments = if status == "open" {
        pending_payments(&ctx, &id).await?
    } else {
        Vec::new()
    };
    let patched = ctx
        .write(
            Method::PATCH,
            &[INVOICES, &id],
            Some(json!({"due_date": date})),
        )
        .await?;
    let mut rows = Vec::new();
    for step in plan(&payments) {
        rows.push(match step {
            Plan::Change(payment) => change_boleto(&ctx, &payment, &date).await,
            Plan::Keep(payment, why) => {
                json!({"payment_id": payment, "changed": false, "why": why})
            }
        });
    }
    let number = invoice["number"].as_str().unwrap_or(&id).to_owned();
    let mut result = derived(&ctx, json!({"invoice": patched["result"].clone()}));
    result["summary"] = json!(summary(&number, &date, &rows));
    result["pending_payments"] = Value::Array(rows);
    Ok(result)
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        ToolMeta {
            name: "billing_invoices_change_due_date",
            title: "Prorrogar vencimento da fatura",
            description: "Moves an invoice's due date (prorroga) and its pending boletos'; says what could not, and why.",
            toolset: Toolset::Invoices,
            permission: Some(Permission::write(Resource::Invoices)),
            effect: Effect::Write { idempotent: true },
            output: Output::Custom(schema),
        },
        change_due_date,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payment(id: &str, method: &str, gateway: Option<&str>) -> Value {
        json!({"id": id, "payment_method_type": method, "payment_gateway": gateway})
    }

    #[test]
    fn wa4_only_kobana_boletos_are_changed_and_every_other_payment_says_why() {
        let plans = plan(&[
            payment("b1", "bank_slip", Some("KOBANA")),
            payment("b2", "bank_slip", None),
            payment("b3", "bank_slip", Some("PAGARME")),
            payment("p1", "pix", Some("KOBANA")),
            payment("b4", "bank_slip", Some("kobana")),
            payment("b5", "bank_slip", Some("KOBANA")),
        ]);
        let shown: Vec<(String, bool)> = plans
            .iter()
            .map(|p| match p {
                Plan::Change(id) => (id.clone(), true),
                Plan::Keep(id, why) => {
                    assert!(!why.is_empty());
                    (id.clone(), false)
                }
            })
            .collect();
        let expected = [
            ("b1", true),
            ("b2", true),
            ("b3", false),
            ("p1", false),
            ("b4", true),
            ("b5", false),
        ];
        assert_eq!(
            shown,
            expected
                .map(|(id, change)| (id.to_owned(), change))
                .to_vec()
        );
        assert!(matches!(&plans[2], Plan::Keep(_, why) if why.contains("PAGARME")));
    }

    #[test]
    fn wa4_the_new_due_date_is_a_real_day_after_today() {
        let today: jiff::civil::Date = "2026-08-20".parse().unwrap();
        let tomorrow = today.tomorrow().unwrap().to_string();
        assert_eq!(future_date(&tomorrow, today).unwrap(), tomorrow);
        for bad in [
            today.to_string(),
            "2020-01-01".into(),
            "2026-02-30".into(),
            "amanhã".into(),
        ] {
            let e = future_date(&bad, today).unwrap_err();
            assert_eq!(e.code(), "INVALID_ARGUMENTS", "{bad}");
        }
        let rows = [json!({"changed": true}), json!({"changed": false})];
        let text = summary("FAT-1", "2027-01-15", &rows);
        assert!(text.contains("vencimentos diferentes"), "{text}");
        assert!(summary("FAT-1", "2027-01-15", &[]).contains("Não havia boleto"));
    }
}
