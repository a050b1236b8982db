//! The check's probe of the ledger reads the curated tools make: a customer's statement and
//! the credits (one of them read too).

use serde_json::Value;

use super::Row;
use super::api::{PAGE, Prober, first_id};
use crate::access::slugs::CUSTOMERS;
use crate::catalog::CREDITS;

/// The statement of the first billing account's customer, named with the account (so a
/// customer with several accounts answers too); when the account does not embed its
/// customer, the first listed customer's. Then the credits, and the first of them.
pub(super) async fn probe(
    prober: &mut Prober,
    customer: Option<String>,
    account: Option<Value>,
) -> Result<(), String> {
    let op = "get-customers-id-statement";
    let account = account.unwrap_or_default();
    let embedded = account["customer"]["id"].as_str().map(str::to_owned);
    match (embedded, account["id"].as_str(), customer) {
        (Some(customer), Some(id), _) => {
            let query = [PAGE, &[("billing_account_id", id)]].concat();
            let segments = [CUSTOMERS, customer.as_str(), "statement"];
            prober.fetch(op, &segments, &query).await?;
        }
        (None, _, Some(customer)) => {
            let segments = [CUSTOMERS, customer.as_str(), "statement"];
            prober.fetch(op, &segments, PAGE).await?;
        }
        _ => prober
            .rows
            .push(Row::fine(op, "not probed", "no customer listed")),
    }
    let credits = prober.fetch("get-credits", &[CREDITS], PAGE).await?;
    prober
        .get_first("get-credits-id", CREDITS, first_id(&credits))
        .await?;
    Ok(())
}
