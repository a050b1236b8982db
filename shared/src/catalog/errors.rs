//! Tool failures and the text that tells the model what to change (T-4).

use serde_json::{Value, json};

use crate::kobana::KobanaError;

/// The `_meta` key of a tool error result that carries the machine-readable error
/// ([`ToolError::details`]). Reverse-DNS of kobana.com.br, as MCP's `_meta` key rule asks.
///
/// The error is not `structuredContent`: every tool declares an `outputSchema`, and an error
/// does not match it (clients that validate, like the TypeScript SDK v1, would throw instead of
/// showing the text).
pub const ERROR_META_KEY: &str = "br.com.kobana/error";

/// A tool call that did not succeed. Becomes an `isError: true` result, never a protocol error.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ToolError {
    /// The arguments are wrong; the text says which and how.
    #[error("Argumentos inválidos: {0}")]
    InvalidArguments(String),
    /// The token lacks the permission the tool needs (checked before any Kobana call).
    #[error(
        "Permissão insuficiente: esta tool exige a permissão `{0}`, que o token não concede. Peça ao administrador da conta Kobana um token com `{0}`."
    )]
    PermissionDenied(String),
    /// Kobana refused or failed.
    #[error("{}", kobana_text(.0))]
    Kobana(Box<KobanaError>),
    /// The person declined the confirmation.
    #[error("A pessoa recusou a confirmação; nada foi executado (USER_DECLINED).")]
    UserDeclined,
    /// The record the action names is in a state that makes the action impossible (an
    /// invoice already void, a payment not paid, …): seen when the question was about to be
    /// asked, so nobody was asked, nothing was stored and nothing was sent.
    #[error("{message} Nada foi perguntado nem enviado ao Kobana.")]
    StateForbids {
        /// Why, in pt-BR, naming the record's current state.
        message: String,
        /// The record's `status` as Kobana wrote it (for the machine-readable error).
        status: String,
    },
    /// A confirmation could not be recorded or checked (e.g. the store is down): nothing ran.
    /// The text is fixed; what went wrong goes to the log only (it can name the account, the
    /// role or the table).
    #[error(
        "Não foi possível registrar a confirmação agora; por segurança nada foi executado. Tente de novo em instantes."
    )]
    ConfirmationUnavailable,
    /// The audit trail did not take the entry of a write (the store is down): nothing was
    /// sent to Kobana (AU-2). The text is fixed; what went wrong goes to the log only.
    #[error(
        "Não foi possível registrar esta ação na trilha de auditoria agora; por segurança nada foi enviado ao Kobana. Tente de novo em instantes."
    )]
    AuditUnavailable,
    /// The audit trail could not be read now (the store is down).
    #[error("Não foi possível ler a trilha de auditoria agora. Tente de novo em instantes.")]
    AuditUnreadable,
    /// The write the confirmed run was about to send is not the one the person confirmed:
    /// refused, nothing sent.
    #[error(
        "A ação que seria enviada ao Kobana não é a que a pessoa confirmou; por segurança nada foi executado. Chame a tool de novo para pedir uma nova confirmação."
    )]
    ConfirmationMismatch,
    /// The planned write is not one this server can put into words for the person: refused,
    /// nothing stored or sent.
    #[error(
        "Não foi possível descrever esta ação para a pessoa confirmar; por segurança nada foi registrado nem executado."
    )]
    Undescribable,
    /// A write whose outcome is unknown: the request left, and no answer saying it failed
    /// came back (timeout, connection broken after sending, unreadable success).
    #[error("{}", uncertain_text(.error, .check_with, *.repeat_safe))]
    UncertainOutcome {
        /// What happened.
        error: Box<KobanaError>,
        /// The read tool that shows the record (`billing_payments_get`).
        check_with: String,
        /// Whether the same call, confirmed again, reuses the idempotency key (a confirmed
        /// destructive write) so Kobana cannot apply it twice.
        repeat_safe: bool,
    },
    /// A created invoice whose total (on a member whose unit is not in doubt) is not what the
    /// person asked for: a unit read 100× off. Nothing was charged; the text says how to undo.
    #[error("{}", mismatch_text(.invoice_id, .requested, .kobana.as_deref()))]
    AmountMismatch {
        /// The created invoice.
        invoice_id: String,
        /// What the arguments add up to, in BRL.
        requested: String,
        /// The invoice's total per `amount_remaining_cents`, in BRL (`None`: not sent).
        kobana: Option<String>,
    },
    /// A generic tool was asked to run an operation of another effect class: nothing ran;
    /// the text names the tool that runs it.
    #[error("{0}")]
    WrongTool(String),
    /// A generic tool was asked to run an operation that never goes through a model: nothing
    /// was sent; the text says why.
    #[error("{0}")]
    Excluded(String),
    /// An invoice's PDF asked for while the invoice is still a draft: the id is right, the
    /// document does not exist yet (Kobana renders it when the invoice is finalized).
    #[error(
        "A fatura é um rascunho; o PDF existe depois de finalizada (billing_invoices_finalize id={invoice_id})."
    )]
    DraftHasNoPdf {
        /// The draft invoice.
        invoice_id: String,
    },
    /// The call reached its write while the person's confirmation is still to be asked
    /// (internal: becomes an `input_required` result, never shown).
    #[error("confirmação necessária antes de executar")]
    ConfirmationRequired,
}

impl From<KobanaError> for ToolError {
    fn from(error: KobanaError) -> Self {
        ToolError::Kobana(Box::new(error))
    }
}

impl ToolError {
    /// A stable code: the `error` member of [`ToolError::details`].
    pub fn code(&self) -> String {
        match self {
            ToolError::InvalidArguments(_) => "INVALID_ARGUMENTS".to_owned(),
            ToolError::PermissionDenied(_) => "PERMISSION_DENIED".to_owned(),
            ToolError::Kobana(e) | ToolError::UncertainOutcome { error: e, .. } => {
                match e.as_ref() {
                    KobanaError::Api { code, .. } => format!("KOBANA_{}", code.to_uppercase()),
                    KobanaError::Timeout(_) => "KOBANA_TIMEOUT".to_owned(),
                    KobanaError::Unreachable(_) => "KOBANA_UNREACHABLE".to_owned(),
                    KobanaError::InvalidResponse { .. } => "KOBANA_INVALID_RESPONSE".to_owned(),
                    KobanaError::TooLarge { .. } => "DOCUMENT_TOO_LARGE".to_owned(),
                    KobanaError::AnswerTooLarge { .. } => "KOBANA_ANSWER_TOO_LARGE".to_owned(),
                    KobanaError::BudgetSpent { .. } => "WORK_BUDGET_SPENT".to_owned(),
                }
            }
            ToolError::UserDeclined => "USER_DECLINED".to_owned(),
            ToolError::StateForbids { .. } => "STATE_FORBIDS_ACTION".to_owned(),
            ToolError::ConfirmationUnavailable => "CONFIRMATION_UNAVAILABLE".to_owned(),
            ToolError::ConfirmationMismatch => "CONFIRMATION_MISMATCH".to_owned(),
            ToolError::AuditUnavailable => "AUDIT_UNAVAILABLE".to_owned(),
            ToolError::AuditUnreadable => "AUDIT_UNREADABLE".to_owned(),
            ToolError::Undescribable => "CONFIRMATION_UNDESCRIBABLE".to_owned(),
            ToolError::ConfirmationRequired => "CONFIRMATION_REQUIRED".to_owned(),
            ToolError::AmountMismatch { .. } => "AMOUNT_MISMATCH".to_owned(),
            ToolError::WrongTool(_) => "WRONG_TOOL".to_owned(),
            ToolError::Excluded(_) => "OPERATION_EXCLUDED".to_owned(),
            ToolError::DraftHasNoPdf { .. } => "INVOICE_IS_DRAFT".to_owned(),
        }
    }

    /// The machine-readable error, carried in the result's `_meta` under [`ERROR_META_KEY`]:
    /// `{error, message}`, plus `kobana_status`, `invoice_id`, `record_status` or `outcome`
    /// and `check_with` where they apply.
    pub fn details(&self) -> Value {
        let mut value = json!({"error": self.code(), "message": self.to_string()});
        if let ToolError::Kobana(e) = self
            && let Some(status) = e.status()
        {
            value["kobana_status"] = json!(status);
        }
        if let ToolError::StateForbids { status, .. } = self {
            value["record_status"] = json!(status);
        }
        if let ToolError::AmountMismatch { invoice_id, .. }
        | ToolError::DraftHasNoPdf { invoice_id } = self
        {
            value["invoice_id"] = json!(invoice_id);
        }
        if let ToolError::UncertainOutcome { check_with, .. } = self {
            value["outcome"] = json!("unknown");
            value["check_with"] = json!(check_with);
        }
        value
    }
}

fn details_text(details: &Option<Value>) -> String {
    // Returns " Detalhes: …." (with its own leading space) or "".
    let Some(Value::Object(map)) = details else {
        return String::new();
    };
    let parts: Vec<String> = map
        .iter()
        .map(|(field, msgs)| {
            let msgs = match msgs {
                Value::Array(items) => items
                    .iter()
                    .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_owned))
                    .collect::<Vec<_>>()
                    .join("; "),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("`{field}`: {msgs}")
        })
        .collect();
    format!(" Detalhes: {}.", parts.join(", "))
}

/// The text of a created invoice whose total is not the one asked for: both figures, and how
/// to undo it.
fn mismatch_text(invoice_id: &str, requested: &str, kobana: Option<&str>) -> String {
    let total = match kobana {
        Some(brl) => format!("com total de {brl} (amount_remaining_cents)"),
        None => "sem amount_remaining_cents para conferir o total".to_owned(),
    };
    format!(
        "O Kobana criou a fatura {invoice_id} em rascunho {total}, mas os itens pedidos somam {requested}: a unidade dos valores não bateu e nada deve ser cobrado assim. Desfaça excluindo o rascunho com billing_invoices_delete id={invoice_id} (se já tiver sido finalizada, anule com billing_invoices_void) e avise o suporte; não finalize esta fatura."
    )
}

/// The text of a write whose outcome is unknown: what happened, that it may have applied, how
/// to check, and whether repeating is safe.
fn uncertain_text(error: &KobanaError, check_with: &str, repeat_safe: bool) -> String {
    let what = match error {
        KobanaError::Timeout(ms) => {
            format!("o Kobana não respondeu em {ms} ms depois de receber o pedido")
        }
        KobanaError::Unreachable(reason) => {
            format!("a conexão com o Kobana caiu depois do envio ({reason})")
        }
        KobanaError::InvalidResponse { status, reason } => {
            format!("o Kobana respondeu HTTP {status}, mas a resposta veio ilegível ({reason})")
        }
        other => kobana_text(other),
    };
    let repeat = if repeat_safe {
        "Se a ação não aparecer aplicada, repetir esta mesma ação confirmada em até 24 h não a aplica duas vezes: o Kobana reconhece a mesma chave de idempotência."
    } else {
        "Uma nova chamada pode aplicá-la de novo."
    };
    format!(
        "Resultado incerto: {what}. A ação pode ter sido aplicada. Antes de tentar de novo, consulte o registro com {check_with}. {repeat}"
    )
}

fn kobana_text(error: &KobanaError) -> String {
    match error {
        KobanaError::Api {
            status,
            code,
            message,
            details,
            request_id,
            retry_after,
        } => {
            let rid = request_id
                .as_deref()
                .map(|id| format!(" (Request-Id {id})"))
                .unwrap_or_default();
            let refusal = Refusal {
                status: *status,
                code,
                message: message.trim().trim_end_matches('.'),
                details,
                retry_after: *retry_after,
            };
            format!("{}{rid}", refusal.text())
        }
        KobanaError::Timeout(ms) => format!(
            "O Kobana não respondeu em {ms} ms (tentativas incluídas). Tente de novo em instantes."
        ),
        KobanaError::Unreachable(reason) => {
            format!("Não foi possível falar com o Kobana ({reason}). Tente de novo em instantes.")
        }
        KobanaError::InvalidResponse { status, reason } => format!(
            "O Kobana respondeu algo inesperado (HTTP {status}: {reason}). Tente de novo; se persistir, avise o suporte."
        ),
        KobanaError::TooLarge { size, limit } => format!(
            "O documento tem {size} bytes, acima do limite de {limit} bytes que este servidor entrega."
        ),
        KobanaError::AnswerTooLarge { limit } => format!(
            "A resposta do Kobana passou de {limit} bytes, o máximo que este servidor lê de uma resposta; nada além disso foi lido. Peça menos de uma vez: um `per_page` menor ou filtros."
        ),
        KobanaError::BudgetSpent { calls } => format!(
            "Este pedido já fez {calls} chamadas ao Kobana (tentativas incluídas), o máximo por pedido; nada mais foi enviado. Tente de novo em instantes ou peça menos de uma vez."
        ),
    }
}

/// An error answer of Kobana's API, as the text that says what to change is written from it.
struct Refusal<'a> {
    status: u16,
    code: &'a str,
    message: &'a str,
    details: &'a Option<Value>,
    retry_after: Option<u64>,
}

impl Refusal<'_> {
    /// What happened and what to do, by status (and `invalid_state`), without the request id.
    fn text(&self) -> String {
        let Self { code, message, .. } = self;
        match (self.status, *code) {
            // Reading `token_issuer`: say which token works and where it goes.
            (401, _) => format!(
                "O Kobana recusou o token ({code}: {message}). Este servidor precisa de um token de API do Faturamento Automático da Kobana, emitido pelo próprio Faturamento Automático para a sua organização, enviado no cabeçalho `Authorization: Bearer <token>` do seu cliente MCP; um token do login OAuth de app.kobana.com.br ou do Gateway Bancário não vale aqui. Configure esse token e conecte de novo."
            ),
            (403, _) => self.forbidden(),
            (404, _) => format!(
                "Não encontrado no Kobana ({message}). Confira o id: ele deve existir nesta organização; use a tool de listagem correspondente para encontrá-lo."
            ),
            (429, _) => format!(
                "Limite de requisições do Kobana atingido ({message}). Tente de novo em {} s.",
                self.retry_after.unwrap_or(1)
            ),
            (s, "invalid_state") if s < 500 => format!(
                "O Kobana recusou por causa da situação atual do registro: {message}.{} Consulte o registro antes de tentar outra ação.",
                details_text(self.details)
            ),
            (s, _) if s < 500 => format!(
                "O Kobana rejeitou os dados ({code}): {message}.{} Corrija e tente de novo.",
                details_text(self.details)
            ),
            (s, _) => format!(
                "O Kobana está com falha (HTTP {s}: {message}). Nada indica que a ação foi aplicada; tente de novo em instantes."
            ),
        }
    }

    /// A 403: `required` and `granted` as Kobana words them (a list, or one text), so the
    /// first real 403 shows the vocabulary (reading `scope_words`).
    fn forbidden(&self) -> String {
        let list = |key: &str| {
            let words = match self.details.as_ref().and_then(|d| d.get(key))? {
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(crate::format::plain_line)
                    .collect::<Vec<_>>()
                    .join(" "),
                Value::String(text) => crate::format::plain_line(text),
                _ => return None,
            };
            (!words.is_empty()).then_some(words)
        };
        match list("required") {
            Some(required) => format!(
                "O Kobana negou a permissão: esta ação exige `{required}` e o token concede `{}`. Peça ao administrador um token com `{required}`.",
                list("granted").unwrap_or_else(|| "nenhuma".to_owned())
            ),
            None => format!(
                "O Kobana negou a permissão ({}). O token não pode executar esta ação.",
                self.message
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(status: u16, code: &str, details: Option<Value>) -> ToolError {
        ToolError::from(KobanaError::Api {
            status,
            code: code.to_owned(),
            message: "msg".to_owned(),
            details,
            request_id: Some("rid-1".to_owned()),
            retry_after: Some(7),
        })
    }

    /// FH-3: what a person reads first is pt-BR; the code comes last, for the machine.
    #[test]
    fn fh3_user_declined_reads_pt_br_first() {
        let text = ToolError::UserDeclined.to_string();
        assert!(text.starts_with("A pessoa recusou a confirmação"), "{text}");
        assert!(text.ends_with("(USER_DECLINED)."), "{text}");
        let forbids = ToolError::StateForbids {
            message: "A fatura já está anulada.".to_owned(),
            status: "void".to_owned(),
        };
        assert_eq!(forbids.code(), "STATE_FORBIDS_ACTION");
        assert_eq!(forbids.details()["record_status"], "void");
        assert!(
            forbids
                .to_string()
                .ends_with("Nada foi perguntado nem enviado ao Kobana.")
        );
    }

    #[test]
    fn t4_error_texts_say_what_to_change() {
        let t = api(
            403,
            "insufficient_scope",
            Some(json!({"required": ["invoices:write"], "granted": ["invoices:read"]})),
        )
        .to_string();
        assert!(
            t.contains("`invoices:write`") && t.contains("`invoices:read`"),
            "{t}"
        );
        let t = api(
            403,
            "insufficient_scope",
            Some(json!({"required": "billing.invoices.write", "granted": ["billing.read"]})),
        )
        .to_string();
        assert!(
            t.contains("`billing.invoices.write`") && t.contains("`billing.read`"),
            "{t}"
        );
        let t = api(
            422,
            "validation_error",
            Some(json!({"reason": ["muito curto"]})),
        )
        .to_string();
        assert!(t.contains("`reason`: muito curto"), "{t}");
        let t = api(429, "rate_limited", None).to_string();
        assert!(t.contains("7 s"), "{t}");
        let t = api(503, "unavailable", None).to_string();
        assert!(t.contains("HTTP 503") && t.contains("rid-1"), "{t}");
        assert_eq!(
            api(422, "invalid_state", None).code(),
            "KOBANA_INVALID_STATE"
        );
    }

    #[test]
    fn n5_n6_spent_budgets_say_so_in_pt_br() {
        let spent = ToolError::from(KobanaError::BudgetSpent { calls: 10 });
        assert_eq!(spent.code(), "WORK_BUDGET_SPENT");
        assert!(
            spent.to_string().contains("10 chamadas ao Kobana")
                && spent.to_string().contains("nada mais foi enviado"),
            "{spent}"
        );
        let large = ToolError::from(KobanaError::AnswerTooLarge { limit: 2048 });
        assert_eq!(large.code(), "KOBANA_ANSWER_TOO_LARGE");
        assert!(large.to_string().contains("2048 bytes"), "{large}");
    }

    #[test]
    fn cf6_an_uncertain_outcome_says_to_check_the_record_first() {
        let e = ToolError::UncertainOutcome {
            error: Box::new(KobanaError::Timeout(25_000)),
            check_with: "billing_payments_get".to_owned(),
            repeat_safe: true,
        };
        let t = e.to_string();
        assert!(t.contains("não respondeu em 25000 ms"), "{t}");
        assert!(t.contains("pode ter sido aplicada"), "{t}");
        assert!(
            t.contains("consulte o registro com billing_payments_get"),
            "{t}"
        );
        assert!(t.contains("não a aplica duas vezes"), "{t}");
        assert_eq!(e.code(), "KOBANA_TIMEOUT");
        assert_eq!(e.details()["outcome"], "unknown");
    }
}
