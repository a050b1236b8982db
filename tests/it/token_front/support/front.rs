//! A server with the token front on, in-process over the fake Kobana, with its clock in the
//! test's hands (`advance`) and the confirmation store of the test's choice.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use kobana_mcp::Config;
use kobana_mcp::confirm::{Clock, MemoryStore, NonceStore};

use super::{Flow, Page, Pkce, REDIRECT};
use crate::common::{Stack, dynamo};

/// A code issued to a freshly registered client, and what redeeming it takes.
#[derive(Debug)]
pub struct Issued {
    /// The client's id.
    pub client_id: String,
    /// The PKCE pair of the authorization request.
    pub pkce: Pkce,
    /// The code.
    pub code: String,
}

/// The stack, the flow against it and its clock.
pub struct Front {
    /// The fake Kobana and the server.
    pub stack: Stack,
    /// The OAuth flow against the server.
    pub flow: Flow,
    /// The server's clock (Unix seconds), starting at the wall clock.
    pub now: Arc<AtomicI64>,
}

impl Front {
    /// A front over a memory store, loopback metadata documents allowed.
    pub async fn start() -> Self {
        Self::start_with(Arc::new(MemoryStore::new()), true).await
    }

    /// A front over `store`; `loopback_documents` allows client ID metadata documents on
    /// loopback (the tests serve theirs there).
    pub async fn start_with(store: Arc<dyn NonceStore>, loopback_documents: bool) -> Self {
        Self::start_configured(store, |config| {
            config.token_front.loopback_client_metadata = loopback_documents;
        })
        .await
    }

    /// A front over a fresh confirmations table in DynamoDB (moto); answers the table's name
    /// and the client that reads it too.
    pub async fn on_dynamo() -> (Self, String, aws_sdk_dynamodb::Client) {
        let (table, client) = dynamo::dynamo_table().await;
        let store = Arc::new(kobana_mcp::confirm::DynamoStore::with_client(
            table.clone(),
            client.clone(),
        ));
        (Self::start_with(store, true).await, table, client)
    }

    /// A front over `store`, its configuration adjusted by `adjust` after the front is on.
    pub async fn start_configured(
        store: Arc<dyn NonceStore>,
        adjust: impl FnOnce(&mut Config),
    ) -> Self {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let now = Arc::new(AtomicI64::new(wall));
        let read = now.clone();
        let clock: Clock = Arc::new(move || read.load(Ordering::SeqCst));
        let stack = Stack::start_full(
            |config| {
                config.token_front.enabled = true;
                adjust(config);
            },
            Some((store, clock)),
        )
        .await;
        let flow = Flow::new(&stack.url);
        Self { stack, flow, now }
    }

    /// A front with a registered client and its authorization page open.
    pub async fn opened() -> (Self, String, Page) {
        let front = Self::start().await;
        let (client_id, page) = front.open().await;
        (front, client_id, page)
    }

    /// Registers a client and opens its authorization page (state `s`).
    pub async fn open(&self) -> (String, Page) {
        let client_id = self.flow.register().await;
        let page = self
            .flow
            .authorize(&client_id, REDIRECT, &Pkce::new(), "s")
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        (client_id, page)
    }

    /// Registers a client and has a code issued to it for `token` (state `s`).
    pub async fn issue(&self, token: &str) -> Issued {
        let client_id = self.flow.register().await;
        let pkce = Pkce::new();
        let code = self.flow.code_for(&client_id, &pkce, "s", token).await["code"].clone();
        Issued {
            client_id,
            pkce,
            code,
        }
    }

    /// Redeems `issued` with `overrides` (as [`Flow::exchange`]); answers status and JSON.
    pub async fn redeem(
        &self,
        issued: &Issued,
        overrides: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> (u16, serde_json::Value) {
        self.flow
            .exchange_with_headers(
                &issued.code,
                &issued.client_id,
                &issued.pkce.verifier,
                overrides,
                headers,
            )
            .await
    }

    /// Moves the server's clock by `seconds`.
    pub fn advance(&self, seconds: i64) {
        self.now.fetch_add(seconds, Ordering::SeqCst);
    }

    /// Calls `tools/list` with `token` on `/mcp`; answers the tool count.
    pub async fn tools(&self, token: &str) -> usize {
        self.stack.tool_names(token, &[]).await.len()
    }

    /// Whose billing token `access` opens to: the person (`sub`) Kobana took a call from when
    /// `/mcp` ran `billing_organization_get` with it.
    pub async fn person_behind(&self, access: &str) -> Option<String> {
        let result = self
            .stack
            .call(access, "billing_organization_get", serde_json::json!({}))
            .await;
        assert_ne!(result["isError"], true, "{result}");
        let calls = self.stack.kobana_calls("/v1/organization");
        calls.last().and_then(|call| call.person.clone())
    }

    /// The Kobana calls the fake received under `prefix`, so far.
    pub fn kobana_calls(&self, prefix: &str) -> usize {
        self.stack.kobana_calls(prefix).len()
    }
}
