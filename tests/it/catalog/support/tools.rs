//! The one table of every tool the catalog holds (LH-2): its effect, the permission a write
//! needs and whether repeating it changes nothing, and arguments that succeed. The per-tool
//! tests read it: the registry's exact list and annotations and the read-only token's
//! refusals (`catalog::registry`), every structured result against its output schema
//! (`catalog::output_schemas`), and every tool through each real client
//! (`clients::sdk_flows`). A new tool is one row here.
//!
//! The calls succeed in table order on one fake that [`prepare`] has given a second draft
//! (the first is finalized, the second deleted): a row may count on the rows above it
//! (`resume` after `pause`, `undo_payment` after `mark_paid`).

use serde_json::{Value, json};

use fake_kobana::FakeKobana;
use fake_kobana::fixtures::ids::*;
use fake_kobana::readings::MoneyUnit;

use super::future_day;

/// A draft invoice [`prepare`] adds beside the fixtures' own, for `billing_invoices_delete`
/// (the fixtures' draft is finalized above it). Not a fixture record.
pub const SPARE_DRAFT: &str = "5ba2e000-d7af-4000-8000-000000000001";

/// What a tool does, as its annotations and the read-only token see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Writes, under `permission`; `idempotent` when repeating it changes nothing more.
    Write {
        permission: &'static str,
        idempotent: bool,
    },
    /// Destroys or charges, asks the person first; under `permission`.
    Destructive {
        permission: &'static str,
        idempotent: bool,
    },
}

impl Effect {
    /// The permission a write needs (`None` for a read).
    pub fn permission(self) -> Option<&'static str> {
        match self {
            Effect::Read => None,
            Effect::Write { permission, .. } | Effect::Destructive { permission, .. } => {
                Some(permission)
            }
        }
    }

    /// Whether a repeat changes nothing (`None` for a read, which states nothing).
    pub fn idempotent(self) -> Option<bool> {
        match self {
            Effect::Read => None,
            Effect::Write { idempotent, .. } | Effect::Destructive { idempotent, .. } => {
                Some(idempotent)
            }
        }
    }
}

/// One row: a tool, its effect, and arguments that succeed in table order.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: &'static str,
    pub effect: Effect,
    pub args: Value,
}

impl Tool {
    /// Whether the tool destroys or charges (and asks first).
    pub fn destructive(&self) -> bool {
        matches!(self.effect, Effect::Destructive { .. })
    }

    /// The error code and the words of its text when this run's reading of Kobana's open
    /// points makes the row's call fail on purpose: under `line_item_input_unit = cents` a
    /// created draft is 100× the request, and the server says so (`contract::readings`).
    pub fn fails_under_this_reading(&self) -> Option<(&'static str, &'static str)> {
        let cents = crate::common::readings().line_item_input_unit == MoneyUnit::Cents;
        (self.name == "billing_invoices_create" && cents)
            .then_some(("AMOUNT_MISMATCH", "a unidade dos valores não bateu"))
    }
}

fn read(name: &'static str, args: Value) -> Tool {
    let effect = Effect::Read;
    Tool { name, effect, args }
}

fn write(name: &'static str, permission: &'static str, idempotent: bool, args: Value) -> Tool {
    let effect = Effect::Write {
        permission,
        idempotent,
    };
    Tool { name, effect, args }
}

fn destructive(
    name: &'static str,
    permission: &'static str,
    idempotent: bool,
    args: Value,
) -> Tool {
    let effect = Effect::Destructive {
        permission,
        idempotent,
    };
    Tool { name, effect, args }
}

/// Every tool of the catalog, in the order its calls succeed on one fake.
pub fn all() -> Vec<Tool> {
    [
        organization_and_customers(),
        accounts_plans_products(),
        subscriptions(),
        invoices(),
        invoice_settlement(),
        payments_and_nfes(),
        reports_audit_and_operations(),
    ]
    .concat()
}

/// The rows whose tools destroy or charge.
pub fn destructive_rows() -> Vec<Tool> {
    all().into_iter().filter(Tool::destructive).collect()
}

/// Gives `fake` what the table's calls need beside the fixtures: [`SPARE_DRAFT`], a copy of
/// the fixtures' draft.
pub fn prepare(fake: &FakeKobana) {
    let mut draft = fake
        .record("invoices", INV_DRAFT)
        .expect("the fixtures' draft");
    draft["id"] = json!(SPARE_DRAFT);
    draft["public_id"] = json!(SPARE_DRAFT);
    assert!(
        fake.insert_record("invoices", draft),
        "the fake keeps invoices"
    );
}

fn organization_and_customers() -> Vec<Tool> {
    let customers = "customers:write";
    vec![
        read("billing_organization_get", json!({})),
        read("billing_schemas_list", json!({})),
        read("billing_schemas_get", json!({"resource": "invoices"})),
        read(
            "billing_customers_list",
            json!({"search": "Padaria", "per_page": 2}),
        ),
        read("billing_customers_get", json!({"id": "crm-000202"})),
        write(
            "billing_customers_create",
            customers,
            false,
            json!({"name": "Oficina Boa Vista Ltda", "kind": "juridical",
                "document_number": "11.444.777/0001-61", "email": "contato@boavista.example.com"}),
        ),
        write(
            "billing_customers_update",
            customers,
            true,
            json!({"id": PADARIA, "nickname": "Boa Vista", "notes": "Atualizado pelo teste"}),
        ),
        destructive(
            "billing_customers_delete",
            customers,
            true,
            json!({"id": RAFAEL}),
        ),
        read("billing_customers_statement", json!({"id": "crm-000202"})),
    ]
}

fn accounts_plans_products() -> Vec<Tool> {
    vec![
        read("billing_accounts_list", json!({"customer_id": PADARIA})),
        read("billing_accounts_get", json!({"id": BA_PADARIA})),
        read("billing_accounts_credits", json!({"id": BA_PADARIA})),
        read("billing_plans_list", json!({"status": "active"})),
        read("billing_plans_get", json!({"id": PLAN_PRO})),
        read(
            "billing_products_list",
            json!({"product_type": "base", "fields": ["created_at"]}),
        ),
        read("billing_products_get", json!({"id": PROD_LICENSE})),
    ]
}

fn subscriptions() -> Vec<Tool> {
    let subscriptions = "subscriptions:write";
    let active = json!({"id": SUB_ACTIVE});
    vec![
        read(
            "billing_subscriptions_list",
            json!({"billing_account_id": BA_PADARIA, "status": "active"}),
        ),
        read("billing_subscriptions_get", active.clone()),
        write(
            "billing_subscriptions_create",
            subscriptions,
            false,
            json!({"billing_account_id": BA_PADARIA, "plan_id": PLAN_PRO}),
        ),
        write(
            "billing_subscriptions_pause",
            subscriptions,
            true,
            active.clone(),
        ),
        write("billing_subscriptions_resume", subscriptions, true, active),
        destructive(
            "billing_subscriptions_cancel",
            subscriptions,
            true,
            json!({"id": SUB_PAST_DUE, "reason": "Cliente pediu"}),
        ),
    ]
}

fn invoices() -> Vec<Tool> {
    let invoices = "invoices:write";
    let open = json!({"id": INV_OPEN});
    vec![
        read("billing_invoices_list", json!({"overdue": true})),
        read("billing_invoices_get", open.clone()),
        read("billing_invoices_pdf", open.clone()),
        write(
            "billing_invoices_create",
            invoices,
            false,
            json!({"billing_account_id": BA_PADARIA, "line_items": [
                {"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_cents": 25000}]}),
        ),
        destructive(
            "billing_invoices_finalize",
            invoices,
            true,
            json!({"id": INV_DRAFT}),
        ),
        destructive(
            "billing_invoices_delete",
            invoices,
            true,
            json!({"id": SPARE_DRAFT}),
        ),
        write("billing_invoices_send_reminder", invoices, false, open),
        destructive(
            "billing_invoices_issue_nfe",
            invoices,
            false,
            json!({"id": INV_PAID_NFE_ERROR}),
        ),
        destructive(
            "billing_invoices_void",
            invoices,
            true,
            json!({"id": INV_OVERDUE, "reason": "Cobrança emitida em duplicidade"}),
        ),
    ]
}

/// The weekly jobs on the open invoice (WA-4): its due date, credits, paid and undone.
fn invoice_settlement() -> Vec<Tool> {
    let invoices = "invoices:write";
    vec![
        write(
            "billing_invoices_change_due_date",
            invoices,
            true,
            json!({"id": INV_OPEN, "due_date": future_day(30)}),
        ),
        destructive(
            "billing_invoices_apply_credits",
            invoices,
            false,
            json!({"id": INV_OPEN, "credit_ids": [CREDIT_WELCOME]}),
        ),
        destructive(
            "billing_invoices_mark_paid",
            invoices,
            false,
            json!({"id": INV_OPEN}),
        ),
        destructive(
            "billing_invoices_undo_payment",
            invoices,
            true,
            json!({"id": INV_OPEN, "reason": "Baixa registrada por engano"}),
        ),
    ]
}

fn payments_and_nfes() -> Vec<Tool> {
    let issued = json!({"id": NFE_ISSUED});
    vec![
        read(
            "billing_payments_list",
            json!({"invoice_id": INV_PAID_NFE_ISSUED}),
        ),
        read("billing_payments_get", json!({"id": PAY_CARD})),
        destructive(
            "billing_payments_refund",
            "payments:write",
            false,
            json!({"id": PAY_CARD, "amount_cents": 1000, "reason": "Desconto concedido"}),
        ),
        read("billing_nfes_list", json!({"status": "issued"})),
        read("billing_nfes_get", issued.clone()),
        read("billing_nfes_pdf", issued.clone()),
        read("billing_nfes_xml", issued),
        destructive(
            "billing_nfes_issue",
            "nfes:write",
            true,
            json!({"id": NFE_ERROR}),
        ),
        destructive(
            "billing_nfes_cancel",
            "nfes:write",
            true,
            json!({"id": NFE_ISSUED, "reason": "Serviço não prestado ao tomador"}),
        ),
    ]
}

/// The report, the audit trail (of the writes above, AU-4) and the generic tools (#32). A
/// generic write needs its row's resource's write permission: a token with no write
/// permission at all is refused before the row is read, naming `<recurso>:write`.
fn reports_audit_and_operations() -> Vec<Tool> {
    let any_write = "<recurso>:write";
    vec![
        read("billing_reports_month", json!({"month": "2026-08"})),
        read("billing_audit_list", json!({"per_page": 5})),
        read(
            "billing_operations_search",
            json!({"query": "anular fatura"}),
        ),
        read(
            "billing_operations_read",
            json!({"operation": "get-invoices", "query": {"per_page": 2}}),
        ),
        write(
            "billing_operations_write",
            any_write,
            false,
            json!({"operation": "patch-customers-id", "path": {"id": PADARIA},
                "body": {"nickname": "Boa Vista"}}),
        ),
        destructive(
            "billing_operations_write_destructive",
            any_write,
            false,
            json!({"operation": "post-invoices-id-void", "path": {"id": INV_OPEN},
                "body": {"reason": "Cobrança emitida em duplicidade"}}),
        ),
    ]
}
