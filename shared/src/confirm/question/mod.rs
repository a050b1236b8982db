//! The question a person answers before a destructive write: rendered from the request that
//! would be sent, never from the raw arguments.
//!
//! [`Destructive::from_planned`] reads the captured [`PlannedWrite`] — method, path and body
//! after the handler parsed, validated and normalized its arguments — into one typed
//! description per destructive tool. [`Destructive::question`] reads the record the path names
//! (and, for the payer, its billing account; for credits, each credit) and puts into words:
//!
//! - the **action** and every consequence the request decides, stated whether or not the
//!   argument was given ("imediatamente" / "no fim do período atual, em 01/09/2026"; "o valor
//!   total restante, R$ 499,00" / "parcialmente R$ 10,00"), and the consequences the record
//!   shows (a saved method charged on finalization, an NF-e issued);
//! - the **object**: number, amount in BRL, due or issue date;
//! - then, last, each **free text** — the reason given, and names or strings from Kobana's
//!   records that anyone with write access may have set — as quoted data: labelled as given
//!   text, between «…», one plain line (controls, bidi and zero-width format characters and
//!   line/paragraph separators removed), delimiters inside replaced; a record's text cut to a
//!   length cap, the reason whole (BW-6: it is sent, so every character of it is shown — the
//!   tools normalize it the same way before sending).
//!
//! Reading the record is part of asking: a 401, 403 or 404 refuses with the error the tool
//! itself would give, and so does any other failure (a timeout, a 5xx) — the person cannot
//! confirm facts the server cannot state — before anything is stored. Only the payer is
//! optional: when the token cannot read the billing account (403) or it is gone (404), the
//! question says so in so many words.
//!
//! A record whose state already makes the action impossible (an invoice already void, a
//! payment that was never paid, a credit used up…) is not asked about: the server has just
//! read it, so it says why in a [`ToolError::StateForbids`] instead, and nothing is stored or
//! sent (FH-3).
//!
//! One module per resource writes its questions: `customers`, `subscriptions`, `invoices`
//! (void, delete, finalize, NF-e), `settlement` (marking paid, its undo, credits),
//! `payments`, `nfes`; `words` is how a question is written, `payer` who pays, `labels`
//! Kobana's values in pt-BR, `planned` the reading of the planned request.

mod customers;
mod invoices;
mod labels;
mod nfes;
mod payer;
mod payments;
mod planned;
mod settlement;
mod subscriptions;
mod words;

use serde_json::Value;

pub use words::{IRREVERSIBLE, MAX_QUOTED_CHARS, quoted, quoted_whole};

use crate::access::slugs::{CUSTOMERS, INVOICES, NFES, PAYMENTS, SUBSCRIPTIONS};
use crate::catalog::{ToolCtx, ToolError};
use words::Question;

/// One destructive request, as the question describes it: the typed reading of a
/// [`PlannedWrite`](crate::catalog::PlannedWrite) of one of the destructive tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destructive {
    /// `DELETE /v1/customers/{id}` (`billing_customers_delete`).
    DeleteCustomer {
        /// UUID or `external_id`, as sent.
        id: String,
    },
    /// `POST /v1/subscriptions/{id}/cancel` (`billing_subscriptions_cancel`).
    CancelSubscription {
        /// Subscription UUID.
        id: String,
        /// `cancel_at_period_end` as sent; absent means Kobana's default, immediately.
        at_period_end: bool,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `POST /v1/invoices/{id}/void` (`billing_invoices_void`).
    VoidInvoice {
        /// Invoice UUID.
        id: String,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `DELETE /v1/invoices/{id}` (`billing_invoices_delete`).
    DeleteInvoice {
        /// Invoice UUID.
        id: String,
    },
    /// `POST /v1/invoices/{id}/finalize` (`billing_invoices_finalize`).
    FinalizeInvoice {
        /// Invoice UUID.
        id: String,
    },
    /// `POST /v1/invoices/{id}/issue-nfe` (`billing_invoices_issue_nfe`).
    IssueInvoiceNfe {
        /// Invoice UUID.
        id: String,
    },
    /// `POST /v1/invoices/{id}/pay` without a payment method (`billing_invoices_mark_paid`).
    MarkInvoicePaid {
        /// Invoice UUID.
        id: String,
        /// `amount_cents` as sent; absent means what is still owed.
        amount_cents: Option<u64>,
        /// `installment_ids` as sent (empty: none named).
        installment_ids: Vec<String>,
    },
    /// `POST /v1/invoices/{id}/undo-payment` (`billing_invoices_undo_payment`).
    UndoInvoicePayment {
        /// Invoice UUID.
        id: String,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `POST /v1/invoices/{id}/apply-credits` (`billing_invoices_apply_credits`).
    ApplyCredits {
        /// Invoice UUID.
        id: String,
        /// `credit_ids` as sent, at least one.
        credit_ids: Vec<String>,
        /// `amount_cents` as sent; absent means as much as the credits and the invoice allow.
        amount_cents: Option<u64>,
    },
    /// `POST /v1/payments/{id}/refund` (`billing_payments_refund`).
    RefundPayment {
        /// Payment UUID.
        id: String,
        /// `amount_cents` as sent; absent means all that is left.
        amount_cents: Option<u64>,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `POST /v1/nfes/{id}/cancel` (`billing_nfes_cancel`).
    CancelNfe {
        /// NF-e UUID.
        id: String,
        /// `reason`, as sent.
        reason: String,
    },
    /// `POST /v1/nfes/{id}/issue` (`billing_nfes_issue`).
    IssueNfe {
        /// NF-e UUID.
        id: String,
    },
}

/// The refusal of an action the record's state makes impossible.
fn forbids(message: String, record: &Value) -> ToolError {
    ToolError::StateForbids {
        message,
        status: words::word(record, "status").to_owned(),
    }
}

impl Destructive {
    /// The path segments of the record this request changes.
    fn record_segments(&self) -> [&str; 2] {
        match self {
            Self::DeleteCustomer { id } => [CUSTOMERS, id],
            Self::CancelSubscription { id, .. } => [SUBSCRIPTIONS, id],
            Self::VoidInvoice { id, .. }
            | Self::DeleteInvoice { id }
            | Self::FinalizeInvoice { id }
            | Self::IssueInvoiceNfe { id }
            | Self::MarkInvoicePaid { id, .. }
            | Self::UndoInvoicePayment { id, .. }
            | Self::ApplyCredits { id, .. } => [INVOICES, id],
            Self::RefundPayment { id, .. } => [PAYMENTS, id],
            Self::CancelNfe { id, .. } | Self::IssueNfe { id } => [NFES, id],
        }
    }

    /// Why the record's state makes this request impossible, if it does (FH-3).
    fn impossible(&self, record: &Value) -> Option<String> {
        match self {
            Self::DeleteCustomer { .. } => None,
            Self::CancelSubscription { .. } => subscriptions::impossible(record),
            Self::VoidInvoice { .. }
            | Self::DeleteInvoice { .. }
            | Self::FinalizeInvoice { .. }
            | Self::IssueInvoiceNfe { .. } => invoices::impossible(self, record),
            Self::MarkInvoicePaid { .. }
            | Self::UndoInvoicePayment { .. }
            | Self::ApplyCredits { .. } => settlement::impossible(self, record),
            Self::RefundPayment { .. } => payments::impossible(record),
            Self::CancelNfe { .. } | Self::IssueNfe { .. } => nfes::impossible(self, record),
        }
    }

    /// The question: one short pt-BR paragraph. Reads the record (and its payer) from Kobana;
    /// any failure to read the record refuses with the error the tool would give, and a
    /// record whose state makes the action impossible refuses with
    /// [`ToolError::StateForbids`].
    pub async fn question(&self, ctx: &ToolCtx) -> Result<String, ToolError> {
        let record = ctx.kobana.get(&self.record_segments(), &[]).await?.data;
        if let Some(why) = self.impossible(&record) {
            return Err(forbids(why, &record));
        }
        let mut q = Question::default();
        match self {
            Self::DeleteCustomer { .. } => customers::delete(&record, &mut q),
            Self::CancelSubscription {
                at_period_end,
                reason,
                ..
            } => {
                subscriptions::cancel(&record, *at_period_end, &mut q);
                payer::payer(ctx, &record, &mut q).await?;
                q.reason(reason.as_deref());
            }
            Self::VoidInvoice { .. }
            | Self::DeleteInvoice { .. }
            | Self::FinalizeInvoice { .. }
            | Self::IssueInvoiceNfe { .. } => {
                invoices::describe(ctx, self, &record, &mut q).await?
            }
            Self::MarkInvoicePaid { .. }
            | Self::UndoInvoicePayment { .. }
            | Self::ApplyCredits { .. } => settlement::describe(ctx, self, &record, &mut q).await?,
            Self::RefundPayment {
                amount_cents,
                reason,
                ..
            } => {
                payments::refund(&record, *amount_cents, &mut q);
                payer::payer(ctx, &record, &mut q).await?;
                q.reason(reason.as_deref());
            }
            Self::CancelNfe { .. } | Self::IssueNfe { .. } => {
                nfes::describe(ctx, self, &record, &mut q).await?
            }
        }
        Ok(q.render())
    }
}
