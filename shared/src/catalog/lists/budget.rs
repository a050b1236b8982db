//! A byte budget per answer (CX-3): a list page whose text would exceed it is cut to the rows
//! that fit, and the result says so — how many rows came back, where the next call starts
//! (exactly after the last row shown: no row lost or repeated) and, in pt-BR, how to get
//! the rest. Never a silent truncation.

use serde_json::{Value, json};

/// Room kept for the members the cut adds (hint, `next_per_page`, `cut`).
const CUT_NOTE_BYTES: usize = 420;

/// The text size of a JSON value as the answer's text block carries it.
pub fn text_bytes(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// Where a cut page continues: the page and page size whose first row is the one at
/// `offset` (0-based, over the whole list), with the largest size up to `per_page`.
pub fn continuation(offset: u64, per_page: u64) -> (u64, u64) {
    let size = (1..=per_page.max(1))
        .rev()
        .find(|d| offset.is_multiple_of(*d))
        .unwrap_or(1);
    (offset / size + 1, size)
}

/// Adds `returned` to the list `result` (rows under `key`) and, when its text exceeds
/// `budget` bytes, keeps the rows that fit (at least one) and marks it `cut`. Answers `(kept,
/// rows the page had)` when it cut, leaving room for the note that says where to continue.
pub fn cut(result: &mut Value, key: &str, budget: usize) -> Option<(usize, usize)> {
    let count = result[key].as_array().map_or(0, Vec::len);
    result["returned"] = json!(count);
    if count == 0 || text_bytes(result) <= budget {
        return None;
    }
    let Some(Value::Array(mut rows)) = result.get_mut(key).map(std::mem::take) else {
        return None;
    };
    result[key] = json!([]);
    let mut used = text_bytes(result) + CUT_NOTE_BYTES;
    let mut keep = 0;
    for row in &rows {
        let size = text_bytes(row) + 1;
        if keep > 0 && used + size > budget {
            break;
        }
        used += size;
        keep += 1;
    }
    rows.truncate(keep);
    result[key] = Value::Array(rows);
    result["returned"] = json!(keep);
    result["cut"] = json!(true);
    Some((keep, count))
}

/// Adds `returned` to the list `result` (rows under `key`) and, when its text exceeds
/// `budget` bytes, cuts the rows to those that fit (at least one, so every call moves on)
/// and says where to continue.
pub fn fit(result: &mut Value, key: &str, budget: usize) {
    let Some((keep, count)) = cut(result, key, budget) else {
        return;
    };
    let number = |k: &str| result.get(k).and_then(Value::as_u64);
    let page = number("page").unwrap_or(1).max(1);
    let per_page = number("per_page").unwrap_or(count as u64).max(1);
    let total = number("total").unwrap_or(count as u64);
    let offset = (page - 1).saturating_mul(per_page) + keep as u64;
    let (next_page, next_per_page) = continuation(offset, per_page);
    result["next_page"] = json!(next_page);
    result["next_per_page"] = json!(next_per_page);
    result["hint"] = json!(format!(
        "Resposta cortada para caber em {budget} bytes: vieram {keep} de {count} linhas desta página ({total} no total). \
         Para continuar exatamente após a última linha, chame de novo com page={next_page} e per_page={next_per_page}. \
         Para linhas menores, peça só os campos necessários com `fields`."
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_continuation_starts_exactly_after_the_last_row_shown() {
        // Page 1 of 20 cut to 7 rows: the next call is page 2 of 7 (rows 8–14).
        assert_eq!(continuation(7, 20), (2, 7));
        // Page 3 of 20 cut to 8 rows: offset 48, not a multiple of 20; pages of 16 are.
        assert_eq!(continuation(48, 20), (4, 16));
        // A prime offset still continues exactly, one row at a time.
        assert_eq!(continuation(47, 20), (48, 1));
        for (offset, per_page) in [(7, 20), (48, 20), (47, 20), (100, 100), (13, 5)] {
            let (page, size) = continuation(offset, per_page);
            assert_eq!((page - 1) * size, offset);
            assert!(size <= per_page);
        }
    }

    #[test]
    fn a_page_over_the_budget_is_cut_and_says_so() {
        let rows: Vec<Value> = (0..10)
            .map(|i| json!({"id": i, "pad": "x".repeat(200)}))
            .collect();
        let mut result = json!({"items": rows, "page": 1, "per_page": 10, "total": 25,
            "total_pages": 3, "next_page": 2});
        fit(&mut result, "items", 2048);
        let kept = result["items"].as_array().unwrap().len();
        assert!((1..10).contains(&kept), "{kept}");
        assert_eq!(result["returned"], kept);
        assert_eq!(result["cut"], true);
        assert!(text_bytes(&result) <= 2048, "{}", text_bytes(&result));
        let hint = result["hint"].as_str().unwrap();
        assert!(
            hint.contains("cortada") && hint.contains(&format!("page={}", result["next_page"]))
        );
        // Within the budget: untouched, but `returned` is said.
        let mut small = json!({"items": [{"id": 1}], "page": 1, "per_page": 20, "total": 1});
        fit(&mut small, "items", 2048);
        assert_eq!(small["returned"], 1);
        assert!(small.get("cut").is_none());
        // One row larger than the budget still comes back alone, so the next call moves on.
        let mut huge = json!({"items": [{"id": 1, "pad": "x".repeat(5000)}, {"id": 2}],
            "page": 1, "per_page": 2, "total": 2});
        fit(&mut huge, "items", 2048);
        assert_eq!(huge["returned"], 1);
        assert_eq!(
            (huge["next_page"].clone(), huge["next_per_page"].clone()),
            (json!(2), json!(1))
        );
    }
}
