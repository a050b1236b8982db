//! Who pays, as a question names them: the customer embedded in the record's billing
//! account, else the account's billing e-mail, each quoted.

use serde_json::Value;

use super::words::{Question, text};
use crate::access::slugs::BILLING_ACCOUNTS;
use crate::catalog::{ToolCtx, ToolError};

/// Who pays: the customer embedded in the record's billing account (`GET
/// /v1/billing_accounts/{id}` loads it), else the account's `billing_email`. A token that
/// cannot read the account, or an account that is gone, is said in words; any other failure
/// refuses.
pub(super) async fn payer(
    ctx: &ToolCtx,
    record: &Value,
    q: &mut Question,
) -> Result<(), ToolError> {
    let Some(account) = record
        .get("billing_account_id")
        .and_then(Value::as_str)
        .filter(|a| crate::kobana::segment_is_safe(a))
    else {
        q.note("Cliente não informado no registro.");
        return Ok(());
    };
    let data = match ctx.kobana.get(&[BILLING_ACCOUNTS, account], &[]).await {
        Ok(envelope) => envelope.data,
        Err(error) if error.status() == Some(403) => {
            q.note("Cliente não identificado (o token não pode ler a conta de cobrança).");
            return Ok(());
        }
        Err(error) if error.status() == Some(404) => {
            q.note("Cliente não identificado (conta de cobrança não encontrada).");
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    };
    ctx.names.learn_read(
        &ctx.principal.organization,
        account,
        &data,
        std::time::Instant::now(),
    );
    if let Some(name) = data.get("customer").and_then(|c| text(c, "name")) {
        q.quote("Cliente (nome no cadastro)", &name);
    } else if let Some(email) = text(&data, "billing_email") {
        q.quote("Cliente (e-mail de cobrança no cadastro)", &email);
    } else {
        q.note("Cliente não identificado na conta de cobrança.");
    }
    Ok(())
}
