//! One page of a list the catalog has no compact row shape for (a customer's statement, an
//! account's credits): each record turned into its row by the tool, the page's numbers, and
//! the answer's byte budget, like every other list.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::catalog::context::{DEFAULT_PER_PAGE, MAX_PER_PAGE, list_result};
use crate::catalog::lists::budget;
use crate::catalog::{ToolCtx, ToolError};

/// Page and size of such a list (no sort, no `fields`: its rows are already small).
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct PageArgs {
    // Page number, starting at 1 (default 1; 0 is refused in pt-BR).
    pub page: Option<u32>,
    // Items per page, 1 to MAX_PER_PAGE (default DEFAULT_PER_PAGE; 0 is refused in pt-BR).
    #[schemars(range(max = MAX_PER_PAGE))]
    pub per_page: Option<u32>,
}

/// The budget's closing advice, which names `fields`: these lists take none.
const FIELDS_ADVICE: &str = " Para linhas menores, peça só os campos necessários com `fields`.";

/// `GET /v1/<segments>?<query>&page&per_page`, each record made a row by `row`, under `key`,
/// within the answer's byte budget (cut, and said so, past it).
pub(super) async fn page(
    ctx: &ToolCtx,
    segments: &[&str],
    mut query: Vec<(String, String)>,
    paging: &PageArgs,
    key: &str,
    row: fn(&Map<String, Value>) -> Value,
) -> Result<Value, ToolError> {
    let page = paging.page.unwrap_or(1);
    if page == 0 {
        return Err(ToolError::InvalidArguments("`page` começa em 1".to_owned()));
    }
    let per_page = paging.per_page.unwrap_or(DEFAULT_PER_PAGE);
    if !(1..=MAX_PER_PAGE).contains(&per_page) {
        return Err(ToolError::InvalidArguments(format!(
            "`per_page` deve estar entre 1 e {MAX_PER_PAGE}; recebido {per_page}"
        )));
    }
    query.push(("page".to_owned(), page.to_string()));
    query.push(("per_page".to_owned(), per_page.to_string()));
    let envelope = ctx.kobana.get(segments, &query).await?;
    let mut result = list_result(key, envelope.data, envelope.meta, page, per_page);
    let rows: Vec<Value> = match result.get_mut(key).map(Value::take) {
        Some(Value::Array(records)) => records
            .iter()
            .filter_map(Value::as_object)
            .map(row)
            .collect(),
        _ => Vec::new(),
    };
    result[key] = Value::Array(rows);
    budget::fit(&mut result, key, ctx.rows.budget_bytes);
    if let Some(Value::String(hint)) = result.get_mut("hint") {
        *hint = hint.replace(FIELDS_ADVICE, "");
    }
    Ok(result)
}

/// The members of `record` named in `keep`, those that hold something.
pub(super) fn pick(record: &Map<String, Value>, keep: &[&str]) -> Value {
    let row: Map<String, Value> = keep
        .iter()
        .filter_map(|k| {
            let value = record.get(*k)?;
            let empty = value.is_null() || value.as_str().is_some_and(|s| s.trim().is_empty());
            (!empty).then(|| ((*k).to_owned(), value.clone()))
        })
        .collect();
    Value::Object(row)
}

/// A Kobana instant in São Paulo: its day when it is midnight there, else ISO with offset
/// (as every list row shows dates).
pub(super) fn sao_paulo(value: &Value) -> Value {
    match value.as_str() {
        Some(text) => json!(crate::catalog::lists::compact::sao_paulo_day_or_time(text)),
        None => value.clone(),
    }
}

/// The output schema of such a list: its rows under `key`, the page and the total.
pub(super) fn schema(key: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            key: {"type": "array"},
            "total": {"type": "integer"}
        },
        "required": [key, "total"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_advice_this_module_removes_is_the_budgets_own() {
        let mut result = json!({"rows": ["x".repeat(400), "y".repeat(400)], "page": 1,
            "per_page": 2, "total": 2});
        budget::fit(&mut result, "rows", 500);
        let hint = result["hint"].as_str().unwrap();
        assert!(hint.ends_with(FIELDS_ADVICE), "{hint}");
    }

    #[test]
    fn rows_keep_what_holds_something() {
        let record = json!({"a": 1, "b": null, "c": " ", "d": "x"});
        assert_eq!(
            pick(record.as_object().unwrap(), &["a", "b", "c", "d", "e"]),
            json!({"a": 1, "d": "x"})
        );
    }
}
