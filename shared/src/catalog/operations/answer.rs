//! A generic call's answer, shaped like the curated tools': `{operation, data, …}` with money
//! and dates made readable (`format::enrich`, then the reviewed units, see [`super::money`]),
//! a list in compact rows where its resource has them (`catalog::lists`), every list held to
//! the answer's byte budget and paged in the style its operation uses: `page`/`per_page`,
//! `limit`/`offset`, or none (then a cut says the rest cannot be asked for).

use serde_json::{Value, json};

use super::facts::{Answer, Facts, Operation, Paging};
use super::money::{Annotator, units_member};
use super::row::Row;
use crate::access::Resource;
use crate::catalog::ToolCtx;
use crate::catalog::context::list_result;
use crate::catalog::lists::{budget, compact, shaping};
use crate::format::enrich;
use crate::kobana::Envelope;

/// The member every generic answer holds its data under.
pub const DATA: &str = "data";

/// The first path segment under `/v1`: the resource an operation acts on.
pub fn resource_of(op: &Operation) -> Option<Resource> {
    op.path
        .trim_start_matches("/v1/")
        .split('/')
        .next()
        .and_then(Resource::from_slug)
}

/// The resource whose compact rows a list of `op` takes: the one whose own list (`GET
/// /v1/<resource>`) answers the same schema, when that resource has a row shape.
fn compact_resource(facts: &Facts, op: &Operation) -> Option<Resource> {
    let resource = resource_of(op)?;
    compact::shape(resource)?;
    let Answer::Json(schema) = &op.answer else {
        return None;
    };
    let list = facts
        .operations()
        .iter()
        .find(|o| o.method == "GET" && o.path == format!("/v1/{}", resource.slug()))?;
    (list.answer == Answer::Json(schema.clone())).then_some(resource)
}

/// A number member of Kobana's `meta` or of the query sent.
fn number(meta: Option<&Value>, query: &[(String, String)], key: &str) -> Option<u64> {
    meta.and_then(|m| m.get(key))
        .and_then(Value::as_u64)
        .or_else(|| {
            query
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse().ok())
        })
}

/// Shapes Kobana's answer to a call of `op` (row `row`) that sent `query`.
pub async fn shape(
    ctx: &ToolCtx,
    facts: &Facts,
    row: &Row,
    op: &Operation,
    query: &[(String, String)],
    envelope: Envelope,
) -> Value {
    let Envelope { mut data, meta, .. } = envelope;
    if data.is_array()
        && op.paging == Paging::Page
        && let Some(resource) = compact_resource(facts, op)
        && !ctx.rows.full_records
    {
        let page = number(meta.as_ref(), query, "page").unwrap_or(1);
        let per_page = number(meta.as_ref(), query, "per_page").unwrap_or(20);
        let listed = list_result(
            resource.slug(),
            data,
            meta,
            page.try_into().unwrap_or(u32::MAX),
            per_page.try_into().unwrap_or(u32::MAX),
        );
        let mut result = shaping::shape(ctx, resource, None, listed).await;
        if let Some(rows) = result
            .as_object_mut()
            .and_then(|m| m.remove(resource.slug()))
        {
            result[DATA] = rows;
        }
        result["operation"] = json!(op.id);
        page_hint(&mut result, ctx.rows.budget_bytes);
        return result;
    }
    enrich(&mut data);
    let mut annotator = Annotator::new(facts, row);
    if let Answer::Json(schema) = &op.answer {
        annotator.annotate(schema, &mut data);
    }
    let list = data.is_array();
    let mut result = json!({"operation": op.id});
    result[DATA] = data;
    if let Some(units) = units_member(annotator.found) {
        result["units"] = units;
    }
    if list {
        page_list(
            &mut result,
            op.paging,
            meta.as_ref(),
            query,
            ctx.rows.budget_bytes,
        );
    }
    result
}

/// Puts the list's paging beside it and holds it to `budget` bytes.
fn page_list(
    result: &mut Value,
    paging: Paging,
    meta: Option<&Value>,
    query: &[(String, String)],
    budget: usize,
) {
    let count = result[DATA].as_array().map_or(0, Vec::len) as u64;
    match paging {
        Paging::Page => {
            let page = number(meta, query, "page").unwrap_or(1).max(1);
            let per_page = number(meta, query, "per_page")
                .unwrap_or(count.max(1))
                .max(1);
            let total = number(meta, &[], "total").unwrap_or(count);
            let pages = number(meta, &[], "total_pages")
                .unwrap_or_else(|| total.div_ceil(per_page))
                .max(1);
            let next = (page < pages).then(|| page + 1);
            *result = merge(
                result,
                json!({"page": page, "per_page": per_page, "total": total,
                "total_pages": pages, "next_page": next}),
            );
            if let Some((keep, _)) = budget::cut(result, DATA, budget) {
                let offset = (page - 1).saturating_mul(per_page) + keep as u64;
                let (next_page, next_per_page) = budget::continuation(offset, per_page);
                result["next_page"] = json!(next_page);
                result["next_per_page"] = json!(next_per_page);
            }
            page_hint(result, budget);
        }
        Paging::Offset => {
            let offset = number(meta, query, "offset").unwrap_or(0);
            let limit = number(meta, query, "limit").unwrap_or(count.max(1)).max(1);
            let total = number(meta, &[], "total");
            *result = merge(
                result,
                json!({"offset": offset, "limit": limit, "total": total}),
            );
            let kept = budget::cut(result, DATA, budget).map_or(count, |(keep, _)| keep as u64);
            let next = offset.saturating_add(kept);
            let more = total.map_or(kept == limit || kept < count, |t| next < t);
            if more {
                result["next_offset"] = json!(next);
                result["hint"] = json!(format!(
                    "Há mais itens: chame de novo com query.offset={next} (e o mesmo query.limit)."
                ));
            }
        }
        Paging::None => {
            if let Some((keep, count)) = budget::cut(result, DATA, budget) {
                result["hint"] = json!(format!(
                    "Resposta cortada para caber em {budget} bytes: vieram {keep} de {count} itens. \
                     Esta operação não é paginada: o restante não pode ser pedido por ela."
                ));
            }
        }
    }
}

/// The hint of a page-style list, in the generic tools' words (`query.page`): where a cut
/// page continues, or where the next page is.
fn page_hint(result: &mut Value, budget: usize) {
    let number = |k: &str| result.get(k).and_then(Value::as_u64);
    let (total, page, pages, returned, size) = (
        number("total").unwrap_or(0),
        number("page").unwrap_or(1),
        number("total_pages").unwrap_or(1),
        number("returned").unwrap_or(0),
        number("next_per_page").unwrap_or(1),
    );
    let hint = match (result["cut"] == true, number("next_page")) {
        (true, Some(next)) => format!(
            "Resposta cortada para caber em {budget} bytes: vieram {returned} itens desta página ({total} no total). \
             Para continuar exatamente após o último, chame de novo com query.page={next} e query.per_page={size}."
        ),
        (false, Some(next)) => format!(
            "{total} no total; esta é a página {page} de {pages}. Para a próxima, chame de novo com query.page={next}."
        ),
        (_, None) => {
            if let Some(map) = result.as_object_mut() {
                map.remove("hint");
            }
            return;
        }
    };
    result["hint"] = json!(hint);
}

/// `base` with `extra`'s members added.
fn merge(base: &Value, extra: Value) -> Value {
    let mut merged = base.clone();
    if let (Value::Object(into), Value::Object(from)) = (&mut merged, extra) {
        into.extend(from);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize, pad: usize) -> Value {
        Value::Array(
            (0..n)
                .map(|i| json!({"id": i, "pad": "x".repeat(pad)}))
                .collect(),
        )
    }

    #[test]
    fn wa2_every_paging_style_says_where_to_continue_within_the_budget() {
        let mut page = json!({"operation": "get-things", "data": rows(20, 300)});
        let meta = json!({"total": 45, "page": 1, "per_page": 20, "total_pages": 3});
        page_list(&mut page, Paging::Page, Some(&meta), &[], 3000);
        assert_eq!(page["cut"], true);
        assert!(
            budget::text_bytes(&page) <= 3000,
            "{}",
            budget::text_bytes(&page)
        );
        let kept = page["returned"].as_u64().unwrap();
        let (next, size) = (
            page["next_page"].as_u64().unwrap(),
            page["next_per_page"].as_u64().unwrap(),
        );
        assert_eq!(
            (next - 1) * size,
            kept,
            "continues right after the last item"
        );

        let mut small = json!({"operation": "get-things", "data": rows(2, 10)});
        page_list(&mut small, Paging::Page, Some(&meta), &[], 3000);
        assert_eq!(small["next_page"], 2);
        assert!(small.get("cut").is_none());

        let mut offset = json!({"operation": "get-usage", "data": rows(20, 300)});
        let query = [
            ("offset".to_owned(), "40".to_owned()),
            ("limit".to_owned(), "20".to_owned()),
        ];
        page_list(
            &mut offset,
            Paging::Offset,
            Some(&json!({"total": 100})),
            &query,
            3000,
        );
        let kept = offset["returned"].as_u64().unwrap();
        assert_eq!(offset["next_offset"], 40 + kept);
        assert!(budget::text_bytes(&offset) <= 3000);

        let mut last = json!({"operation": "get-usage", "data": rows(3, 1)});
        let query = [("offset".to_owned(), "98".to_owned())];
        page_list(
            &mut last,
            Paging::Offset,
            Some(&json!({"total": 101})),
            &query,
            3000,
        );
        assert!(last.get("next_offset").is_none(), "{last}");

        let mut none = json!({"operation": "get-items", "data": rows(20, 300)});
        page_list(&mut none, Paging::None, None, &[], 3000);
        assert_eq!(none["cut"], true);
        assert!(none.get("next_page").is_none());
        assert!(none["hint"].as_str().unwrap().contains("não é paginada"));
    }
}
