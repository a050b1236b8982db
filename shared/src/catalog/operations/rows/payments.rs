//! `/v1/payments`.

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/payments`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-payments",
        title: "Listar pagamentos",
        words: "pagamentos recebimentos cobranças pix boleto cartão pagos falhos recusados estornados recebido no período list payments",
        class: Class::Read,
        units: &[
            ("query.amount_min", Unit::Reais),
            ("query.amount_max", Unit::Reais),
            ("query.paid_amount_min", Unit::Reais),
            ("query.paid_amount_max", Unit::Reais),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payments",
        title: "Criar cobrança de pagamento",
        words: "cobrar fatura com cartão pix boleto criar pagamento create payment charge",
        class: Class::Destructive {
            asks: "Cobrar a fatura {body.invoiceId}[ no valor de {body.amountCents}][!body.amountCents: pelo saldo em aberto][, com o meio de pagamento salvo {body.paymentMethodId}]? A cobrança é criada agora no gateway; uma cobrança paga só se desfaz por estorno.",
        },
        units: &[],
        excluded: Some(
            "Esta operação aceita o número do cartão e o código de segurança (CVV) em texto aberto, e dados de cartão nunca passam pelo assistente. Para cobrar uma fatura por Pix, boleto, cartão salvo ou token, use «Pagar fatura: baixa manual ou cobrança».",
        ),
        why: "A POST that charges money.",
    },
    Row {
        operation: "post-payments-bulk-update-invoice",
        title: "Mover pagamentos para outra fatura",
        words: "mover realocar vincular pagamentos a outra fatura pagamento na fatura errada reassign payments",
        class: Class::Destructive {
            asks: "Mover os pagamentos {body.payment_ids} para a fatura {body.invoice_id}? Eles deixam a fatura em que estão e passam a abater a de destino, o que muda quanto cada fatura deve. Para desfazer, é preciso mover cada pagamento de volta à fatura de origem.",
        },
        units: &[],
        excluded: None,
        why: "A POST that moves received money between invoices.",
    },
    Row {
        operation: "get-payments-id",
        title: "Ver pagamento",
        words: "detalhes do pagamento situação valor pago data motivo da falha get payment",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-payments-id",
        title: "Excluir pagamento não confirmado",
        words: "excluir apagar pagamento pendente delete payment",
        class: Class::Destructive {
            asks: "Excluir o pagamento {record}? Só um pagamento ainda não confirmado pode ser excluído, e a exclusão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payments-id-cancel",
        title: "Cancelar cobrança",
        words: "cancelar cobrança boleto pix em aberto baixar boleto cliente pagou de outro jeito cancel payment",
        class: Class::Destructive {
            asks: "Cancelar o pagamento {record}[!body.cancel_on_gateway=false: também no gateway][?body.cancel_on_gateway=false: só no Kobana, sem cancelar no gateway]?[!body.cancel_on_gateway=false: O boleto ou Pix deixa de poder ser pago.][?body.cancel_on_gateway=false: O boleto ou Pix pode continuar pagável no banco.] O cancelamento não pode ser desfeito: para cobrar de novo, é preciso gerar outra cobrança.",
        },
        units: &[],
        excluded: None,
        why: "A POST that ends the charge, at the gateway too by default, with no undo.",
    },
    Row {
        operation: "post-payments-id-retry",
        title: "Tentar cobrar de novo",
        words: "tentar de novo retentar nova tentativa recobrar cartão recusado pagamento falhou retry payment",
        class: Class::Destructive {
            asks: "Tentar de novo a cobrança {record}[, com o meio de pagamento salvo {body.payment_method_id}][?body.card:, com outro cartão (token informado)]? A cobrança é refeita agora no gateway; se aprovada, só se desfaz por estorno.",
        },
        units: &[],
        excluded: None,
        why: "A POST that charges money again.",
    },
    Row {
        operation: "post-payments-id-change-card",
        title: "Trocar cartão e cobrar de novo",
        words: "trocar mudar cartão de crédito pagamento recusado outro cartão change card",
        class: Class::Destructive {
            asks: "Trocar o cartão do pagamento {record} pelo cartão {body.credit_card_id} da conta e cobrar de novo? O novo cartão é debitado agora; uma cobrança aprovada só se desfaz por estorno.",
        },
        units: &[],
        excluded: None,
        why: "A POST that charges another card.",
    },
    Row {
        operation: "post-payments-id-change-due-date",
        title: "Prorrogar vencimento do boleto",
        words: "prorrogar adiar estender vencimento do boleto nova data alterar data de vencimento boleto registrado postpone due date",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payments-id-send-email",
        title: "Reenviar boleto por e-mail",
        words: "reenviar enviar mandar boleto segunda via link de pagamento por e-mail para outro e-mail financeiro contas a pagar do cliente send email",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payments-id-sync",
        title: "Atualizar situação do pagamento no gateway",
        words: "sincronizar atualizar status consultar no gateway banco se caiu o pagamento sync payment",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payments-id-refund",
        title: "Estornar pagamento",
        words: "estornar estorno devolver dinheiro reembolso devolução ressarcir refund",
        class: Class::Destructive {
            asks: "Estornar[!body.amount_cents: todo o valor restante][ {body.amount_cents}] do pagamento {record}? O dinheiro volta ao pagador pelo mesmo meio, e o estorno não pode ser desfeito.",
        },
        units: &[],
        excluded: None,
        why: "A POST that gives money back.",
    },
];
