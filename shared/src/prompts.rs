//! Prompts (PR-1…PR-7): ready routines a person picks in the client. Each appears, and can be
//! got, only when the token can run every tool it relies on (PR-5). Texts are pt-BR and name
//! the exact tools and arguments (PR-7).

use std::sync::LazyLock;

use rmcp::model::{GetPromptResult, Prompt};
use serde_json::{Value, json};

use crate::access::slugs::BILLING_ACCOUNTS;
use crate::catalog::month_report::Month;
use crate::catalog::{MAX_PER_PAGE, ToolCtx, Visibility, registry};
use crate::format::sao_paulo;

/// One prompt argument.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    /// Name.
    pub name: &'static str,
    /// pt-BR title.
    pub title: &'static str,
    /// pt-BR description.
    pub description: &'static str,
    /// Required.
    pub required: bool,
}

/// One prompt.
#[derive(Debug, Clone, Copy)]
pub struct PromptDef {
    /// Name.
    pub name: &'static str,
    /// pt-BR title.
    pub title: &'static str,
    /// pt-BR description.
    pub description: &'static str,
    /// Arguments.
    pub args: &'static [Arg],
    /// Tools it relies on (PR-5): all must be runnable for it to appear.
    pub tools: &'static [&'static str],
}

const CUSTOMER_ID: Arg = Arg {
    name: "customer_id",
    title: "Cliente",
    description: "UUID ou external_id do cliente (o autocomplete sugere pelo nome, documento ou e-mail).",
    required: true,
};

/// The four prompts.
pub const PROMPTS: [PromptDef; 4] = [
    PromptDef {
        name: "collect_overdue_invoices",
        title: "Cobrar faturas vencidas",
        description: "Lista as faturas em aberto vencidas, mostra uma tabela e pergunta quais devem receber lembrete antes de enviar.",
        args: &[Arg {
            required: false,
            description: "Opcional: só as faturas deste cliente (UUID ou external_id).",
            ..CUSTOMER_ID
        }],
        tools: &["billing_invoices_list", "billing_invoices_send_reminder"],
    },
    PromptDef {
        name: "review_pending_nfes",
        title: "Revisar NF-e pendentes",
        description: "Junta as faturas que ainda não têm NF-e e as NF-e rejeitadas, resume e sugere o próximo passo, sem emitir nada.",
        args: &[],
        tools: &["billing_invoices_list", "billing_nfes_list"],
    },
    PromptDef {
        name: "customer_overview",
        title: "Visão geral do cliente",
        description: "O retrato de um cliente: dados, assinaturas, o que está em aberto e o que está vencido.",
        args: &[CUSTOMER_ID],
        tools: &[
            "billing_customers_get",
            "billing_accounts_list",
            "billing_subscriptions_list",
            "billing_invoices_list",
        ],
    },
    PromptDef {
        name: "monthly_billing_summary",
        title: "Resumo do faturamento do mês",
        description: "O que foi faturado, recebido e ficou em aberto no mês.",
        args: &[Arg {
            name: "month",
            title: "Mês",
            description: "Mês no formato YYYY-MM (ex.: 2026-08). Padrão: o mês atual em America/Sao_Paulo.",
            required: false,
        }],
        tools: &["billing_reports_month", "billing_invoices_list"],
    },
];

/// Whether the token can run every tool `prompt` relies on.
pub fn visible(visibility: &Visibility, prompt: &PromptDef) -> bool {
    prompt.tools.iter().all(|name| {
        registry()
            .get(name)
            .is_some_and(|tool| visibility.may_run(tool))
    })
}

static WIRE: LazyLock<Vec<(PromptDef, Prompt)>> = LazyLock::new(|| {
    PROMPTS
        .iter()
        .map(|p| {
            let args: Vec<Value> = p
                .args
                .iter()
                .map(|a| json!({"name": a.name, "title": a.title, "description": a.description, "required": a.required}))
                .collect();
            let wire: Prompt = serde_json::from_value(json!({
                "name": p.name, "title": p.title, "description": p.description, "arguments": args
            }))
            .expect("valid prompt");
            (*p, wire)
        })
        .collect()
});

/// The prompts this token may use.
pub fn list(visibility: &Visibility) -> Vec<Prompt> {
    WIRE.iter()
        .filter(|(p, _)| visible(visibility, p))
        .map(|(_, w)| w.clone())
        .collect()
}

/// Why `prompts/get` failed (all `-32602`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// Unknown, or not usable with this token.
    #[error("Prompt desconhecido: {0}")]
    Unknown(String),
    /// An argument is missing or malformed; the text names it and the expected form.
    #[error("{0}")]
    InvalidArgument(String),
}

/// A month `YYYY-MM` as (year, month), or an error naming the argument and the form.
pub fn parse_month(value: &str) -> Result<(i16, i8), PromptError> {
    let month =
        Month::parse(value).map_err(|e| PromptError::InvalidArgument(format!("Argumento {e}")))?;
    Ok((month.first().year(), month.first().month()))
}

/// First and last day of a month, `YYYY-MM-DD`.
pub fn month_range(year: i16, month: i8) -> (String, String) {
    let month = Month::of(jiff::civil::date(year, month, 1));
    (month.first().to_string(), month.last().to_string())
}

fn user_text(text: String) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

fn customer_id_arg(
    args: &serde_json::Map<String, Value>,
    required: bool,
) -> Result<Option<String>, PromptError> {
    match args.get("customer_id").and_then(Value::as_str).map(str::trim) {
        Some(id) if !id.is_empty() => {
            if crate::kobana::segment_is_safe(id) {
                Ok(Some(id.to_owned()))
            } else {
                Err(PromptError::InvalidArgument(format!(
                    "Argumento `customer_id` inválido: {id:?}. Use o UUID ou o external_id do cliente."
                )))
            }
        }
        _ if required => Err(PromptError::InvalidArgument(
            "Argumento obrigatório `customer_id` ausente: informe o UUID ou o external_id do cliente.".to_owned(),
        )),
        _ => Ok(None),
    }
}

/// The customer record (with billing accounts) as a prompt message; unknown → -32602.
async fn customer_resource(
    ctx: &ToolCtx,
    id: &str,
) -> Result<(Value, Option<Vec<String>>), PromptError> {
    let tool = registry()
        .get("billing_customers_get")
        .ok_or_else(|| PromptError::Unknown("billing_customers_get".into()))?;
    let mut args = serde_json::Map::new();
    args.insert("id".into(), Value::String(id.to_owned()));
    let structured = tool.run(ctx.clone(), Some(args)).await.map_err(|e| {
        PromptError::InvalidArgument(format!(
            "Argumento `customer_id` inválido: não foi possível ler o cliente {id:?} ({e})"
        ))
    })?;
    let accounts: Option<Vec<String>> = structured
        .get(BILLING_ACCOUNTS)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|acc| acc.get("id").and_then(Value::as_str).map(str::to_owned))
                .collect()
        });
    let uid = structured
        .pointer("/customer/id")
        .and_then(Value::as_str)
        .unwrap_or(id)
        .to_owned();
    Ok((customer_message(&uid, &structured), accounts))
}

/// The customer and its billing accounts (found by `billing_customers_get`) as one text block
/// that names the resource URI and carries the JSON.
///
/// A text block, not an embedded `resource` block: every client library turns text prompt
/// content into model messages, while some (langchain-mcp-adapters 0.3) reject a `resource`
/// block outright, so the prompt could not be loaded there at all.
fn customer_message(uid: &str, structured: &Value) -> Value {
    let uri = format!("kobana://billing/customers/{uid}");
    let body = serde_json::to_string_pretty(structured).unwrap_or_default();
    user_text(format!(
        "Cliente anexado: resource `{uri}` (application/json), lido agora com `billing_customers_get`.\n\n```json\n{body}\n```"
    ))
}

/// The customer's account ids for a prompt's text; `None` = they could not be read.
fn accounts_text(accounts: Option<&[String]>) -> String {
    let Some(accounts) = accounts else {
        return "(as contas de cobrança deste cliente não puderam ser lidas: o token não tem billing_accounts:read; diga isso e pare)".to_owned();
    };
    if accounts.is_empty() {
        "(o cliente não tem conta de cobrança; nesse caso diga isso e pare)".to_owned()
    } else {
        accounts
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Runs a read tool for a prompt and returns its JSON, or a note saying why it could not.
async fn run_tool(ctx: &ToolCtx, name: &str, args: Value) -> String {
    let Some(tool) = registry().get(name) else {
        return format!("(tool {name} indisponível)");
    };
    match tool.run(ctx.clone(), args.as_object().cloned()).await {
        Ok(structured) => structured.to_string(),
        Err(error) => format!("(não foi possível ler agora: {error})"),
    }
}

/// Builds the messages of `name` with `args`, for a token that may use it.
pub async fn get(
    ctx: ToolCtx,
    visibility: &Visibility,
    name: &str,
    args: &serde_json::Map<String, Value>,
) -> Result<GetPromptResult, PromptError> {
    let prompt = PROMPTS
        .iter()
        .find(|p| p.name == name && visible(visibility, p))
        .ok_or_else(|| PromptError::Unknown(name.to_owned()))?;
    let messages = match prompt.name {
        "collect_overdue_invoices" => collect_overdue_invoices(&ctx, args).await?,
        "review_pending_nfes" => review_pending_nfes(&ctx).await,
        "customer_overview" => customer_overview(&ctx, args).await?,
        "monthly_billing_summary" => monthly_billing_summary(&ctx, args).await?,
        _ => return Err(PromptError::Unknown(name.to_owned())),
    };
    let mut result: GetPromptResult =
        serde_json::from_value(json!({"description": prompt.description, "messages": messages}))
            .map_err(|e| PromptError::InvalidArgument(format!("prompt malformado: {e}")))?;
    result.result_type = Some(rmcp::model::ResultType::COMPLETE);
    Ok(result)
}

/// `collect_overdue_invoices`: the steps (list, table, ask, then remind), for one customer
/// (attached) or for all.
async fn collect_overdue_invoices(
    ctx: &ToolCtx,
    args: &serde_json::Map<String, Value>,
) -> Result<Vec<Value>, PromptError> {
    let mut messages = Vec::new();
    let scope = match customer_id_arg(args, false)? {
        Some(id) => {
            let (resource, accounts) = customer_resource(ctx, &id).await?;
            messages.push(resource);
            format!(
                "do cliente anexado acima: chame `billing_invoices_list` com `overdue: true` e `billing_account_id` = cada uma das contas {} (uma chamada por conta)",
                accounts_text(accounts.as_deref())
            )
        }
        None => format!(
            "de todos os clientes: chame `billing_invoices_list` com `overdue: true` (e `per_page: {MAX_PER_PAGE}`; siga `next_page` até o fim)"
        ),
    };
    messages.insert(0, user_text(format!(
        "Quero cobrar as faturas vencidas {scope}.\n\n\
         Passos, nesta ordem:\n\
         1. Liste as faturas em aberto já vencidas como indicado acima.\n\
         2. Mostre uma tabela com: número da fatura (`number`), cliente (`customer`), valor em aberto (`amount_remaining_brl`), vencimento (`due_date`) e dias de atraso (`days_overdue`).\n\
         3. Pergunte quais faturas devem receber lembrete e espere a minha resposta.\n\
         4. Só depois que eu escolher, chame `billing_invoices_send_reminder` com o `id` de cada fatura escolhida, uma por vez, e diga o resultado de cada envio.\n\n\
         Não envie nenhum lembrete antes de eu escolher. Se não houver faturas vencidas, diga isso e pare."
    )));
    Ok(messages)
}

/// `review_pending_nfes`: the paid invoices without an NF-e and the rejected NF-e, read
/// now (both lists at once: one upstream round of wall time), and the steps; nothing emitted.
async fn review_pending_nfes(ctx: &ToolCtx) -> Vec<Value> {
    // Both lists are independent: read them concurrently (one upstream round trip of
    // wall time) and hand them over, so the model starts from the data.
    let (invoices, nfes) = tokio::join!(
        run_tool(
            ctx,
            "billing_invoices_list",
            json!({"without_nfe": true, "per_page": MAX_PER_PAGE})
        ),
        run_tool(
            ctx,
            "billing_nfes_list",
            json!({"status": "error", "per_page": MAX_PER_PAGE})
        ),
    );
    let read_at = ctx
        .clock
        .now()
        .to_zoned_datetime(sao_paulo())
        .strftime("%d/%m/%Y %H:%M")
        .to_string();
    vec![user_text(format!(
        "Quero revisar as notas fiscais pendentes. Não emita, reemita nem cancele nada: isto é só uma revisão.\n\n\
         Abaixo estão os dados lidos agora ({read_at}, America/Sao_Paulo): as faturas pagas sem NF-e autorizada \
         (`billing_invoices_list` com `without_nfe: true`) e as NF-e rejeitadas (`billing_nfes_list` com `status: \"error\"`). \
         Se precisar de mais páginas ou de dados mais novos, chame essas mesmas tools.\n\n\
         Passos, nesta ordem:\n\
         1. Resuma em duas listas: faturas sem NF-e (`number`, `customer`, `total_brl`) e NF-e rejeitadas (cliente em `customer`, fatura em `invoice_id`, `amount_brl`, motivo em `error_message`).\n\
         2. Totalize os valores de cada lista em reais.\n\
         3. Sugira o próximo passo para cada caso (por exemplo corrigir o cadastro do cliente, ou emitir com `billing_invoices_issue_nfe` / reemitir com `billing_nfes_issue`), mas não chame essas tools: a decisão é minha.\n\n\
         Faturas sem NF-e:\n{invoices}\n\nNF-e rejeitadas:\n{nfes}"
    ))]
}

/// `customer_overview`: the steps for each of the customer's billing accounts, then the
/// customer itself (attached).
async fn customer_overview(
    ctx: &ToolCtx,
    args: &serde_json::Map<String, Value>,
) -> Result<Vec<Value>, PromptError> {
    let id = customer_id_arg(args, true)?.unwrap_or_default();
    let (resource, accounts) = customer_resource(ctx, &id).await?;
    let steps = user_text(format!(
        "Quero o retrato do cliente anexado abaixo (dados já lidos com `billing_customers_get`).\n\n\
         Passos, nesta ordem, para cada conta de cobrança do cliente ({}):\n\
         1. Chame `billing_subscriptions_list` com `billing_account_id` = a conta, para as assinaturas.\n\
         2. Chame `billing_invoices_list` com `billing_account_id` = a conta e `status: \"open\"`, para o que está em aberto.\n\
         3. Chame `billing_invoices_list` com `billing_account_id` = a conta e `overdue: true`, para o que está vencido.\n\
         4. Responda com: dados do cliente (nome, documento, contato), assinaturas (plano, ciclo, valor em reais, situação), faturas em aberto e vencidas (número, valor, vencimento, dias de atraso) e um total em reais de cada grupo.\n\n\
         Apenas leitura: não altere nada.",
        accounts_text(accounts.as_deref())
    ));
    Ok(vec![steps, resource])
}

/// `monthly_billing_summary`: the month's figures as `billing_reports_month` computes them
/// (read now, so the model adds nothing up itself), and the steps to present them.
async fn monthly_billing_summary(
    ctx: &ToolCtx,
    args: &serde_json::Map<String, Value>,
) -> Result<Vec<Value>, PromptError> {
    let month = match args.get("month").and_then(Value::as_str).map(str::trim) {
        Some(m) if !m.is_empty() => m.to_owned(),
        _ => ctx.clock.month(),
    };
    let (year, mon) = parse_month(&month)?;
    let (from, to) = month_range(year, mon);
    let figures = match registry().get("billing_reports_month") {
        Some(tool) => match tool
            .run(ctx.clone(), json!({"month": month}).as_object().cloned())
            .await
        {
            Ok(report) => format!(
                "{}\n\nOs mesmos números em JSON (centavos em cents):\n{report}",
                crate::catalog::month_report::summary(&report)
            ),
            Err(error) => format!(
                "(não foi possível calcular agora: {error}; chame `billing_reports_month` com `month: \"{month}\"`)"
            ),
        },
        None => "(billing_reports_month indisponível)".to_owned(),
    };
    Ok(vec![user_text(format!(
        "Quero o resumo do faturamento de {month} (de {from} a {to}, America/Sao_Paulo).\n\n\
         Os totais abaixo foram calculados agora pelo servidor com `billing_reports_month` \
         (faturado = faturas com vencimento no mês, sem rascunhos nem anuladas; recebido = pagamentos \
         confirmados no mês; em aberto = o que falta pagar das faturas em aberto do mês; vencido = a \
         parte delas já vencida). Use esses números como estão: não some valores você mesmo.\n\n\
         Passos, nesta ordem:\n\
         1. Apresente os quatro totais em reais e a quantidade de faturas de cada um, e repita as \
         observações (Atenção) que vierem com eles.\n\
         2. Para as cinco maiores em aberto, chame `billing_invoices_list` com `status: \"open\"`, \
         `due_date_from: \"{from}\"`, `due_date_to: \"{to}\"` e `per_page: {MAX_PER_PAGE}`, e mostre \
         número, cliente, valor em aberto (`amount_remaining_brl`) e vencimento.\n\n\
         Apenas leitura: não altere nada.\n\n{figures}"
    ))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pr6_month_must_be_a_real_yyyy_mm() {
        assert_eq!(parse_month("2026-08").unwrap(), (2026, 8));
        for bad in [
            "2026-13",
            "2026-00",
            "2026-8",
            "26-08",
            "2026/08",
            "agosto",
            "2026-08-01",
            "",
        ] {
            let err = parse_month(bad).unwrap_err().to_string();
            assert!(
                err.contains("`month`") && err.contains("YYYY-MM"),
                "{bad}: {err}"
            );
        }
        assert_eq!(
            month_range(2026, 2),
            ("2026-02-01".into(), "2026-02-28".into())
        );
        assert_eq!(month_range(2028, 2).1, "2028-02-29");
        assert_eq!(crate::format::BillingClock::default().month().len(), 7);
    }

    #[test]
    fn pr7_prompts_rely_only_on_registered_tools() {
        for p in PROMPTS {
            for t in p.tools {
                assert!(
                    registry().get(t).is_some(),
                    "{} relies on unknown {t}",
                    p.name
                );
            }
        }
    }
}
