//! The unit of every money (and percent) field of the schemas, by `Schema.field` (arrays
//! walked through: `InvoiceV1.line_items.amount_cents`): one reviewed table for every row
//! whose body or answer uses the schema. A row's own [`super::row::Row::units`] settles its
//! query and path parameters, and overrides this table where one operation differs.
//!
//! Read from each field's description in Kobana's document, not from its name alone: the
//! names follow the document's rule (`_cents` ÷100, `_subcents` ÷10 000) except where a
//! description contradicts its name, and those are [`Unit::Uncertain`], never guessed.

use super::row::Unit::{self, Cents, Fraction, Percent, Subcents, Uncertain};

/// The invoice totals whose names say subcentavos and whose descriptions say centavos.
pub const INVOICE_TOTALS: Unit = Uncertain(
    "O documento do Kobana chama este campo de subcentavos (÷10 000) e o descreve em centavos \
     (÷100). O servidor decide a unidade fatura a fatura, conferindo com o valor restante, os \
     itens e o valor líquido, e não converte em reais quando não consegue decidir.",
);

/// A line item's unit amount in an answer: subcentavos by name and description, but of the
/// invoice family whose unit is in doubt.
pub const LINE_ITEM_UNIT: Unit = Uncertain(
    "Subcentavos (÷10 000) pelo nome e pela descrição, mas da mesma família dos totais da \
     fatura, cuja unidade está em dúvida; o servidor confere, fatura a fatura, quantidade × \
     valor unitário contra o subtotal do item em centavos.",
);

/// A line item's unit amount in a request.
pub const LINE_ITEM_INPUT: Unit = Uncertain(
    "O nome diz subcentavos (÷10 000) e a descrição do Kobana diz centavos (÷100); o \
     servidor confere o valor da fatura resultante contra o que foi pedido.",
);

/// A line item's tax: no description, of the invoice family in doubt.
pub const LINE_ITEM_TAX: Unit = Uncertain(
    "Sem descrição no documento: o nome diz subcentavos, mas o imposto da fatura com o mesmo \
     nome é descrito em centavos. Mostrado como o Kobana enviou.",
);

/// The invoice list's total filter, named subcentavos and described in centavos.
pub const INVOICE_TOTAL_FILTER: Unit = Uncertain(
    "Filtro chamado de subcentavos (÷10 000) e descrito em centavos (÷100) no documento do \
     Kobana; o valor vai como informado, sem conversão.",
);

/// A coupon's discount: percent or centavos by `discount_type`.
pub const COUPON_DISCOUNT: Unit = Uncertain(
    "Depende de discount_type: percentual inteiro de 0 a 100 quando percentage; centavos \
     (÷100) quando fixed_amount.",
);

/// The free object of an NF-e's taxes.
pub const NFE_TAXES: Unit = Uncertain(
    "Objeto livre com alíquotas e valores de impostos (ISS, PIS, COFINS, CSLL, IR, INSS); o \
     documento não dá a unidade de cada chave. Na criação da nota, as alíquotas são decimais \
     (0,05 = 5%).",
);

/// A company's tax profile as answered: untyped in the document.
pub const FISCAL_ANSWER_RATE: Unit = Uncertain(
    "A resposta não tem esquema no documento; na gravação do perfil fiscal esta alíquota é \
     decimal (0,05 = 5%).",
);

/// `(Schema.field, unit)`, sorted by schema.
pub const SCHEMA_UNITS: &[(&str, Unit)] = &[
    ("BillingAccountV1.balance_cents", Cents),
    ("CompanyFiscalProfileUpsertRequest.cbs_rate", Fraction),
    ("CompanyFiscalProfileUpsertRequest.cofins_rate", Fraction),
    ("CompanyFiscalProfileUpsertRequest.csll_rate", Fraction),
    ("CompanyFiscalProfileUpsertRequest.factor_r", Fraction),
    ("CompanyFiscalProfileUpsertRequest.ibs_rate", Fraction),
    ("CompanyFiscalProfileUpsertRequest.irpj_rate", Fraction),
    ("CompanyFiscalProfileUpsertRequest.iss_rate", Fraction),
    ("CompanyFiscalProfileUpsertRequest.pis_rate", Fraction),
    (
        "CompanyFiscalProfileUpsertRequest.presumption_rate",
        Fraction,
    ),
    ("CompanyFiscalProfileUpsertRequest.rbt12_cents", Cents),
    ("CouponCreateRequest.discount_value", COUPON_DISCOUNT),
    ("CouponCreateRequest.max_discount_cents", Cents),
    ("CouponCreateRequest.min_purchase_cents", Cents),
    ("CouponRedemptionV1.discount_cents", Cents),
    ("CouponV1.discount_value", COUPON_DISCOUNT),
    ("CouponV1.max_discount_cents", Cents),
    ("CouponV1.min_purchase_cents", Cents),
    ("CreditCreateRequest.amount_cents", Cents),
    ("CreditUpdateRequest.amount_cents", Cents),
    ("CreditV1.amount_cents", Cents),
    ("CreditV1.amount_remaining_cents", Cents),
    (
        "CustomerRecalculateMrrResponse.data.billing_accounts.mrr_amount_cents",
        Cents,
    ),
    ("CustomerRecalculateMrrResponse.data.total_mrr_cents", Cents),
    ("CustomerStatementItem.amount_cents", Cents),
    ("InvoiceApplyCreditsRequest.amount_cents", Cents),
    ("InvoiceCreateRequest.discount_cents", Cents),
    ("InvoiceInstallmentCreateInput.amount_cents", Cents),
    ("InvoiceInstallmentV1.amount_cents", Cents),
    (
        "InvoiceLineItemCreateInput.unit_amount_subcents",
        LINE_ITEM_INPUT,
    ),
    (
        "InvoiceLineItemUpdateInput.unit_amount_subcents",
        LINE_ITEM_INPUT,
    ),
    ("InvoiceLineItemV1.amount_cents", Cents),
    ("InvoiceLineItemV1.discount_cents", Cents),
    ("InvoiceLineItemV1.tax_subcents", LINE_ITEM_TAX),
    ("InvoiceLineItemV1.unit_amount_subcents", LINE_ITEM_UNIT),
    ("InvoicePayRequest.amount_cents", Cents),
    ("InvoiceV1.amount_due_subcents", INVOICE_TOTALS),
    ("InvoiceV1.amount_paid_subcents", INVOICE_TOTALS),
    ("InvoiceV1.amount_remaining_cents", Cents),
    ("InvoiceV1.discount_cents", Cents),
    ("InvoiceV1.net_value_cents", Cents),
    ("InvoiceV1.subtotal_subcents", INVOICE_TOTALS),
    ("InvoiceV1.tax_subcents", INVOICE_TOTALS),
    ("InvoiceV1.total_subcents", INVOICE_TOTALS),
    ("InvoiceV1.total_withheld_cents", Cents),
    ("NfeCreateRequest.amount_cents", Cents),
    ("NfeTaxesInput.cofins_rate", Fraction),
    ("NfeTaxesInput.csll_rate", Fraction),
    ("NfeTaxesInput.inss_rate", Fraction),
    ("NfeTaxesInput.ir_rate", Fraction),
    ("NfeTaxesInput.iss_rate", Fraction),
    ("NfeTaxesInput.pis_rate", Fraction),
    ("NfeUpdateRequest.amount_cents", Cents),
    ("NfeUpdateRequest.taxes", NFE_TAXES),
    ("NfeV1.amount_cents", Cents),
    ("NfeV1.taxes", NFE_TAXES),
    ("PaymentCreateRequest.amountCents", Cents),
    ("PaymentRefundRequest.amount_cents", Cents),
    ("PaymentV1.amount_cents", Cents),
    ("PaymentV1.paid_amount_cents", Cents),
    ("PlanChangeRuleCreateRequest.discount_percent", Percent),
    ("PlanChangeRuleUpdateRequest.discount_percent", Percent),
    ("PlanChangeRuleV1.discount_percent", Percent),
    (
        "PlanChangeStatsResponse.data.total_proration_charges_subcents",
        Subcents,
    ),
    (
        "PlanChangeStatsResponse.data.total_proration_credits_subcents",
        Subcents,
    ),
    ("PlanChangeV1.from_price_subcents", Subcents),
    ("PlanChangeV1.price_difference_subcents", Subcents),
    ("PlanChangeV1.proration_charge_subcents", Subcents),
    ("PlanChangeV1.proration_credit_subcents", Subcents),
    ("PlanChangeV1.to_price_subcents", Subcents),
    ("ProposalItemCreateRequest.unit_amount_subcents", Subcents),
    ("ProposalItemInput.unit_amount_subcents", Subcents),
    ("ProposalItemUpdateRequest.setup_amount_subcents", Subcents),
    ("ProposalItemUpdateRequest.unit_amount_subcents", Subcents),
    ("ProposalItemV1.excess_amount_subcents", Subcents),
    ("ProposalItemV1.setup_amount_subcents", Subcents),
    ("ProposalItemV1.unit_amount_subcents", Subcents),
    ("ProposalV1.monthly_amount_cents", Cents),
    ("ProposalV1.setup_amount_cents", Cents),
    ("ServiceItemCreateRequest.default_iss_rate", Percent),
    ("ServiceItemUpdateRequest.default_iss_rate", Percent),
    ("ServiceItemV1.default_iss_rate", Percent),
    (
        "SubscriptionCreateRequest.items.unit_amount_subcents",
        Subcents,
    ),
    (
        "SubscriptionItemChangeV1.changes.prevUnitAmountSubcents",
        Subcents,
    ),
    (
        "SubscriptionItemChangeV1.changes.unitAmountSubcents",
        Subcents,
    ),
    ("SubscriptionItemChangeV1.prorationChargeSubcents", Subcents),
    ("SubscriptionItemChangeV1.prorationCreditSubcents", Subcents),
    ("SubscriptionUpdateRequest.discount_percent", Percent),
    ("SubscriptionV1.discount_percent", Percent),
    ("SubscriptionV1.recurring_amount_cents", Cents),
    ("TaxPeriodV1.cbs_due_cents", Cents),
    ("TaxPeriodV1.cofins_due_cents", Cents),
    ("TaxPeriodV1.csll_due_cents", Cents),
    ("TaxPeriodV1.csrf_to_compensate_cents", Cents),
    ("TaxPeriodV1.das_estimated_cents", Cents),
    ("TaxPeriodV1.gross_revenue_cents", Cents),
    ("TaxPeriodV1.ibs_due_cents", Cents),
    ("TaxPeriodV1.irpj_due_cents", Cents),
    ("TaxPeriodV1.irrf_to_compensate_cents", Cents),
    ("TaxPeriodV1.iss_due_cents", Cents),
    ("TaxPeriodV1.iss_to_compensate_cents", Cents),
    ("TaxPeriodV1.pis_due_cents", Cents),
    ("TaxPeriodV1.simples_effective_rate", Percent),
    ("TaxPeriodV1.taxable_revenue_cents", Cents),
    ("TaxRuleItemInput.rate", Percent),
    ("TaxRuleItemV1.rate", Percent),
    ("UsageSummaryBilling.estimated_cost_cents", Cents),
    ("WithholdingBulkConvertResponse.total_amount_cents", Cents),
    ("WithholdingConvertToCreditRequest.amount_cents", Cents),
    ("WithholdingV1.amount_cents", Cents),
    ("WithholdingV1.base_cents", Cents),
    ("WithholdingV1.compensated_cents", Cents),
    ("WithholdingV1.rate", Percent),
];

/// The money of an invoice in an untyped answer (a list or record the document declares as
/// `data: {}`), by the fields of `InvoiceV1`: for rows that answer invoices without a schema.
pub const UNTYPED_INVOICE: &[(&str, Unit)] = &[
    ("answer.data.amount_due_subcents", INVOICE_TOTALS),
    ("answer.data.amount_paid_subcents", INVOICE_TOTALS),
    ("answer.data.amount_remaining_cents", Cents),
    ("answer.data.discount_cents", Cents),
    ("answer.data.net_value_cents", Cents),
    ("answer.data.subtotal_subcents", INVOICE_TOTALS),
    ("answer.data.tax_subcents", INVOICE_TOTALS),
    ("answer.data.total_subcents", INVOICE_TOTALS),
    ("answer.data.total_withheld_cents", Cents),
];

/// A company's tax profile in an untyped answer, by the fields of its upsert request.
pub const UNTYPED_FISCAL_PROFILE: &[(&str, Unit)] = &[
    ("answer.data.cbs_rate", FISCAL_ANSWER_RATE),
    ("answer.data.cofins_rate", FISCAL_ANSWER_RATE),
    ("answer.data.csll_rate", FISCAL_ANSWER_RATE),
    ("answer.data.ibs_rate", FISCAL_ANSWER_RATE),
    ("answer.data.irpj_rate", FISCAL_ANSWER_RATE),
    ("answer.data.iss_rate", FISCAL_ANSWER_RATE),
    ("answer.data.pis_rate", FISCAL_ANSWER_RATE),
    ("answer.data.presumption_rate", FISCAL_ANSWER_RATE),
    ("answer.data.rbt12_cents", Cents),
];

/// The unit of `Schema.field` in [`SCHEMA_UNITS`].
pub fn schema_unit(key: &str) -> Option<Unit> {
    SCHEMA_UNITS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, unit)| *unit)
}
