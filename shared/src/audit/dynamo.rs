//! The DynamoDB store (AU-3): the table `AUDIT_TABLE` of `template.yaml`.
//!
//! Key design: the table's key is the entry's `id` (S), which starts with its Unix
//! milliseconds, so ids sort by time. A global secondary index [`BY_ORGANIZATION`] has the
//! hash key `organization` (S) and the range key `id`: one organization's entries in a time
//! window, newest first, are one `Query` (`organization = :o AND id BETWEEN :from AND :to`,
//! backwards). The index is sparse: an entry joins it only when its call is completed with an
//! organization Kobana accepted, so an entry written before the call, or one of a token Kobana
//! refused, is in no organization's reads. `expires_at` (N, Unix seconds) is the TTL
//! attribute. Every member of an entry is one attribute (objects as maps), so the table reads
//! as the entries themselves in an export.
//!
//! A write costs two requests: `PutItem` before the call, `UpdateItem` after it.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Map, Number, Value};

use super::entry::Entry;
use super::store::{AuditStore, AuditStoreError, BoxFuture, Completion, ListQuery, Listed};
use crate::net::aws::{DynamoTable, describe_failure};

/// The attribute of an entry's organization (the index's hash key): the member
/// [`Entry::organization`], named after the organization resource.
const ORGANIZATION: &str = crate::access::slugs::ORGANIZATION;

/// The global secondary index by organization and id.
pub const BY_ORGANIZATION: &str = "by_organization";

/// Most `Query` pages one read follows (each at most 1 MB) before it says where it stopped.
pub const MAX_QUERY_PAGES: usize = 4;

/// Entries in a DynamoDB table.
#[derive(Debug)]
pub struct DynamoAudit(DynamoTable);

impl DynamoAudit {
    /// A store over `table`. No network I/O until the first call.
    pub fn new(table: impl Into<String>) -> Self {
        Self(DynamoTable::new(table))
    }

    /// A store over `table` using an already built client.
    pub fn with_client(table: impl Into<String>, client: Client) -> Self {
        Self(DynamoTable::with_client(table, client))
    }
}

fn failed<E: std::fmt::Debug>(error: &aws_sdk_dynamodb::error::SdkError<E>) -> AuditStoreError {
    AuditStoreError(describe_failure(error))
}

/// A JSON value as an attribute (`None` for null: the attribute is left out).
pub fn attribute(value: &Value) -> Option<AttributeValue> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Number(n) => AttributeValue::N(n.to_string()),
        Value::String(s) => AttributeValue::S(s.clone()),
        Value::Array(items) => AttributeValue::L(items.iter().filter_map(attribute).collect()),
        Value::Object(map) => AttributeValue::M(
            map.iter()
                .filter_map(|(k, v)| Some((k.clone(), attribute(v)?)))
                .collect(),
        ),
    })
}

/// An attribute as a JSON value.
pub fn json(attribute: &AttributeValue) -> Value {
    match attribute {
        AttributeValue::S(s) => Value::String(s.clone()),
        AttributeValue::N(n) => n
            .parse::<i64>()
            .map(Value::from)
            .ok()
            .or_else(|| {
                n.parse::<f64>()
                    .ok()
                    .and_then(Number::from_f64)
                    .map(Value::Number)
            })
            .unwrap_or(Value::Null),
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::L(items) => Value::Array(items.iter().map(json).collect()),
        AttributeValue::M(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), json(v))).collect())
        }
        _ => Value::Null,
    }
}

/// An entry as an item.
fn item(entry: &Entry) -> Result<HashMap<String, AttributeValue>, AuditStoreError> {
    match serde_json::to_value(entry)
        .ok()
        .as_ref()
        .and_then(attribute)
    {
        Some(AttributeValue::M(map)) => Ok(map),
        _ => Err(AuditStoreError("entry does not serialize".into())),
    }
}

/// An item as an entry (`None`: not one of ours).
fn entry(item: &HashMap<String, AttributeValue>) -> Option<Entry> {
    let map: Map<String, Value> = item.iter().map(|(k, v)| (k.clone(), json(v))).collect();
    serde_json::from_value(Value::Object(map)).ok()
}

/// The `SET` clauses and values of a completion.
fn completion_values(completion: &Completion) -> Vec<(&'static str, AttributeValue)> {
    let s = |v: &str| AttributeValue::S(v.to_owned());
    let mut out = vec![
        ("outcome", s(completion.outcome.as_str())),
        ("completed_at", s(&completion.completed_at)),
    ];
    let optional = [
        (ORGANIZATION, completion.organization.as_deref().map(s)),
        (
            "kobana_status",
            completion
                .kobana_status
                .map(|n| AttributeValue::N(n.to_string())),
        ),
        ("kobana_code", completion.kobana_code.as_deref().map(s)),
        (
            "kobana_request_id",
            completion.kobana_request_id.as_deref().map(s),
        ),
        ("record_id", completion.record_id.as_deref().map(s)),
    ];
    out.extend(
        optional
            .into_iter()
            .filter_map(|(name, value)| Some((name, value?))),
    );
    out
}

impl AuditStore for DynamoAudit {
    fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async move {
            self.0
                .client()
                .await
                .put_item()
                .table_name(self.0.name())
                .set_item(Some(item(entry)?))
                .condition_expression("attribute_not_exists(id)")
                .send()
                .await
                .map_err(|e| failed(&e))?;
            Ok(())
        })
    }

    fn complete<'a>(
        &'a self,
        id: &'a str,
        completion: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async move {
            let values = completion_values(completion);
            let clauses: Vec<String> = values
                .iter()
                .map(|(name, _)| format!("#{name} = :{name}"))
                .collect();
            let mut update = self
                .0
                .client()
                .await
                .update_item()
                .table_name(self.0.name())
                .key("id", AttributeValue::S(id.to_owned()))
                .update_expression(format!("SET {}", clauses.join(", ")))
                .condition_expression("attribute_exists(id)");
            for (name, value) in values {
                update = update
                    .expression_attribute_names(format!("#{name}"), name)
                    .expression_attribute_values(format!(":{name}"), value);
            }
            update.send().await.map_err(|e| failed(&e))?;
            Ok(())
        })
    }

    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
        Box::pin(async move {
            let client = self.0.client().await;
            let now = jiff::Timestamp::now().as_second();
            let mut listed = Listed::default();
            let mut start: Option<HashMap<String, AttributeValue>> = None;
            for _ in 0..MAX_QUERY_PAGES {
                let page = self
                    .query(client, query)
                    .set_exclusive_start_key(start.take())
                    .send()
                    .await
                    .map_err(|e| failed(&e))?;
                let items = page.items.unwrap_or_default();
                listed.entries.extend(
                    items
                        .iter()
                        .filter_map(entry)
                        .filter(|e| query.keeps(e, now)),
                );
                start = page.last_evaluated_key;
                if listed.entries.len() >= query.want || start.is_none() {
                    break;
                }
            }
            listed.entries.truncate(query.want);
            if listed.entries.len() < query.want {
                listed.stopped_at = start
                    .as_ref()
                    .and_then(|key| key.get("id"))
                    .and_then(|id| id.as_s().ok())
                    .cloned();
            }
            Ok(listed)
        })
    }
}

impl DynamoAudit {
    /// The query of `query`'s window and filters, newest first, unexpired only.
    fn query(
        &self,
        client: &Client,
        query: &ListQuery,
    ) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let now = jiff::Timestamp::now().as_second();
        let mut filters = vec!["#expires_at > :now"];
        let mut request = client
            .query()
            .table_name(self.0.name())
            .index_name(BY_ORGANIZATION)
            .key_condition_expression("#organization = :organization AND #id BETWEEN :from AND :to")
            .scan_index_forward(false)
            .expression_attribute_names("#organization", ORGANIZATION)
            .expression_attribute_names("#id", "id")
            .expression_attribute_names("#expires_at", "expires_at")
            .expression_attribute_values(":organization", s(&query.organization))
            .expression_attribute_values(":from", s(&query.from_id))
            .expression_attribute_values(":to", s(&query.to_id))
            .expression_attribute_values(":now", AttributeValue::N(now.to_string()));
        let outcome = query.outcome.map(|o| o.as_str());
        for (name, value, clause) in [
            ("tool", query.tool.as_deref(), "#tool = :tool"),
            ("person", query.person.as_deref(), "#person = :person"),
            ("outcome", outcome, "#outcome = :outcome"),
        ] {
            if let Some(value) = value {
                filters.push(clause);
                request = request
                    .expression_attribute_names(format!("#{name}"), name)
                    .expression_attribute_values(format!(":{name}"), s(value));
            }
        }
        // Only the expiry filter: as many items as wanted; else a larger page to filter.
        let limit = if filters.len() == 1 {
            query.want
        } else {
            (query.want * 4).clamp(100, 1000)
        };
        request
            .filter_expression(filters.join(" AND "))
            .limit(i32::try_from(limit.max(1)).unwrap_or(1000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn au3_json_and_attributes_round_trip_and_nulls_are_left_out() {
        let value = json!({"a": "x", "n": 12, "f": 1.5, "b": true, "l": [1, "y"],
            "m": {"k": "v", "gone": null}, "gone": null});
        let attr = attribute(&value).unwrap();
        let back = json(&attr);
        assert_eq!(
            back,
            json!({"a": "x", "n": 12, "f": 1.5, "b": true, "l": [1, "y"], "m": {"k": "v"}})
        );
    }
}
