//! The audit areas' own rig and readers: an audit table in a real DynamoDB API (moto's
//! server, as `scripts/test.sh` starts it) made as `template.yaml` makes it, a stack whose
//! trail is there, and the table's items read back raw — this suite's own reading of
//! DynamoDB's attributes, never the server's.

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

use fake_kobana::fixtures::ids::PADARIA;
use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, Projection, ProjectionType, ScalarAttributeType,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kobana_mcp::audit::AuditStore;
use kobana_mcp::confirm::{Clock, MemoryStore, NonceStore};
use kobana_mcp::{App, Config};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::common::Stack;
use crate::common::dynamo::{dynamo_client, dynamo_store, expire_by_ttl};

/// A second organization, as the fake makes one on first use.
pub const OTHER_ORG: &str = "0e7c1f7a-5b1d-4c53-9a43-4f2a8d1c9b77";

/// A fresh audit table as `template.yaml` creates it: key `id`, the index `by_organization`
/// (`organization`, `id`), TTL on `expires_at`.
pub async fn audit_table() -> (String, Client) {
    let client = dynamo_client(None).await;
    let table = format!(
        "audit-{}",
        &kobana_mcp::confirm::new_nonce().unwrap()[4..14]
    )
    .replace(['_'], "x");
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .unwrap()
    };
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("id"))
        .attribute_definitions(attribute("organization"))
        .key_schema(key("id", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("by_organization")
                .key_schema(key("organization", KeyType::Hash))
                .key_schema(key("id", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("moto creates the audit table");
    expire_by_ttl(&client, &table).await;
    (table, client)
}

/// An attribute as JSON, read here (not with the server's converter).
pub fn attribute_json(value: &AttributeValue) -> Value {
    match value {
        AttributeValue::S(s) => json!(s),
        AttributeValue::N(n) => n
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| json!(n.parse::<f64>().expect("a number"))),
        AttributeValue::Bool(b) => json!(b),
        AttributeValue::L(items) => Value::Array(items.iter().map(attribute_json).collect()),
        AttributeValue::M(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), attribute_json(v)))
                .collect(),
        ),
        AttributeValue::Null(_) => Value::Null,
        other => panic!("unexpected attribute {other:?}"),
    }
}

/// Every item of `table`, as JSON objects, oldest id first.
pub async fn scan(client: &Client, table: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut start: Option<HashMap<String, AttributeValue>> = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            let map: Map<String, Value> = item
                .iter()
                .map(|(k, v)| (k.clone(), attribute_json(v)))
                .collect();
            out.push(Value::Object(map));
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    out.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    out
}

/// The SHA-256 (hex) of `arguments`' canonical JSON: keys sorted, compact.
pub fn arguments_sha256(arguments: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    Sha256::digest(sorted(arguments).to_string().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `token` with its signature replaced: the claims read the same, Kobana refuses it.
pub fn forged(token: &str) -> String {
    let (unsigned, _) = token.rsplit_once('.').expect("a JWT");
    format!(
        "{unsigned}.{}",
        URL_SAFE_NO_PAD.encode(b"not the signature")
    )
}

/// A stack over a fresh fake whose app is built with `audit` as its audit store (and the
/// confirmations in memory unless `confirmations` says otherwise).
pub async fn stack_with_audit(
    audit: Arc<dyn AuditStore>,
    adjust: impl FnOnce(&mut Config),
    confirmations: Option<(Arc<dyn NonceStore>, Clock)>,
) -> Stack {
    let fake = fake_kobana::FakeKobana::start().await;
    let mut config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: std::time::Duration::from_secs(10),
        ..Config::default()
    };
    adjust(&mut config);
    let (store, clock) = confirmations.unwrap_or_else(|| {
        let store: Arc<dyn NonceStore> = Arc::new(MemoryStore::new());
        (store, kobana_mcp::confirm::system_clock())
    });
    let app = App::with_audit(config, store, clock, audit).expect("app builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(kobana_mcp::serve(app, listener));
    Stack {
        fake,
        url,
        http: kobana_mcp::net::client_builder()
            .build()
            .expect("HTTP client"),
    }
}

/// A stack whose trail is a fresh DynamoDB table (`AUDIT_TABLE`, as the function reads it)
/// and whose confirmations are in DynamoDB too.
pub struct Rig {
    pub stack: Stack,
    pub table: String,
    pub client: Client,
}

impl Rig {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Self {
        let (table, client) = audit_table().await;
        let store: Arc<dyn NonceStore> = dynamo_store().await;
        let named = table.clone();
        let stack = Stack::start_full(
            move |c| {
                c.audit.table = Some(named);
                adjust(c);
            },
            Some((store, kobana_mcp::confirm::system_clock())),
        )
        .await;
        Self {
            stack,
            table,
            client,
        }
    }

    /// Every item of the table.
    pub async fn items(&self) -> Vec<Value> {
        scan(&self.client, &self.table).await
    }

    /// The table's one item; fails unless there is exactly one.
    pub async fn only_item(&self) -> Value {
        let items = self.items().await;
        assert_eq!(items.len(), 1, "exactly one entry: {items:#?}");
        items.into_iter().next().unwrap()
    }

    /// One write of the fixture organization's (a customer's nickname), era 2025.
    pub async fn write_one(&self) -> Value {
        let args = json!({"id": PADARIA, "nickname": "x"});
        let result = self
            .stack
            .call(&fake_kobana::full_token(), "billing_customers_update", args)
            .await;
        assert_ne!(result["isError"], true, "{result}");
        result
    }

    /// Lists the trail through the tool (era 2025) as `token`.
    pub async fn list(&self, token: &str, args: Value) -> Value {
        self.stack.call(token, "billing_audit_list", args).await
    }

    /// Calls `tool` in era 2026 from a client with forms, which asks; answers the state.
    pub async fn ask(&self, token: &str, tool: &str, args: &Value) -> String {
        let asked = self
            .stack
            .call_with_forms(token, tool, args, json!({}))
            .await;
        let state = asked["result"]["requestState"].as_str();
        state
            .unwrap_or_else(|| panic!("not asked: {asked}"))
            .to_owned()
    }

    /// The retry of an asked call with the person's `answer`; answers the JSON-RPC body.
    pub async fn answer(
        &self,
        token: &str,
        tool: &str,
        args: &Value,
        state: &str,
        answer: Value,
    ) -> Value {
        let extra = json!({"requestState": state, "inputResponses": {"confirm": answer}});
        self.stack.call_with_forms(token, tool, args, extra).await
    }
}

/// `resources/read kobana://billing/audit` as `token` (era 2025): the JSON-RPC body.
pub async fn read_trail(stack: &Stack, token: &str) -> Value {
    let (status, body) = stack
        .legacy(
            token,
            "resources/read",
            json!({"uri": "kobana://billing/audit"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

/// The document `kobana://billing/audit` holds for `token`.
pub async fn trail_document(stack: &Stack, token: &str) -> Value {
    let body = read_trail(stack, token).await;
    let text = body["result"]["contents"][0]["text"].as_str();
    serde_json::from_str(text.unwrap_or_else(|| panic!("no document: {body}"))).unwrap()
}

/// Whether `text` is a UUID.
pub fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
