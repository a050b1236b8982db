//! Kobana's enum values in the pt-BR words a question uses.

/// A subscription's billing cycle.
pub(super) fn cycle(cycle: &str) -> Option<&'static str> {
    Some(match cycle {
        "monthly" => "mensal",
        "quarterly" => "trimestral",
        "semiannual" => "semestral",
        "annual" => "anual",
        _ => return None,
    })
}

/// A payment method.
pub(super) fn method(method: &str) -> Option<&'static str> {
    Some(match method {
        "card" => "cartão",
        "bank_slip" => "boleto",
        "pix" => "Pix",
        "bank_transfer" => "transferência",
        _ => return None,
    })
}

/// A payment's status.
pub(super) fn payment_status(status: &str) -> Option<&'static str> {
    Some(match status {
        "pending" => "aguardando pagamento",
        "processing" => "em processamento",
        "succeeded" => "pago",
        "failed" => "falhou",
        "canceled" => "cancelado",
        "partial" => "pago em parte",
        "refunded" => "estornado",
        "partially_refunded" => "estornado em parte",
        _ => return None,
    })
}

/// An invoice's status, as "a fatura está …" ends.
pub(super) fn invoice_status(status: &str) -> &'static str {
    match status {
        "draft" => "em rascunho",
        "open" => "em aberto",
        "paid" => "paga",
        "void" => "anulada",
        "uncollectible" => "incobrável",
        _ => "numa situação desconhecida",
    }
}

/// An NF-e's status, as "a NF-e está …" ends.
pub(super) fn nfe_status(status: &str) -> &'static str {
    match status {
        "draft" => "em rascunho",
        "pending" => "na fila de emissão",
        "processing" => "em processamento na prefeitura",
        "issued" => "emitida",
        "pending_cancel" | "canceling" => "em cancelamento",
        "canceled" => "cancelada",
        "error" => "rejeitada",
        _ => "numa situação desconhecida",
    }
}

/// A credit's type.
pub(super) fn credit_type(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "promotional" => "promocional",
        "adjustment" => "de ajuste",
        "refund" => "de reembolso",
        "manual" => "manual",
        _ => return None,
    })
}
