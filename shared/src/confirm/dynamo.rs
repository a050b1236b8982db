//! The DynamoDB store: one item per nonce, `expires_at` as the TTL attribute (CF-6).
//!
//! Item: `nonce` (S, partition key), `digest` (S), `expires_at` (N, Unix seconds; the table's
//! TTL attribute). TTL deletion is lazy, so expiry is also checked in the consume condition.
//! The AWS SDK configuration is loaded once, on first use, never at start-up.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

use super::async_trait_like::BoxFuture;
use super::{NonceStore, StoreError};
pub use crate::net::aws::sdk_config;
use crate::net::aws::{DynamoTable, describe_failure as describe};

/// Nonces in a DynamoDB table.
#[derive(Debug)]
pub struct DynamoStore(DynamoTable);

impl DynamoStore {
    /// A store over `table`. No network I/O until the first call.
    pub fn new(table: impl Into<String>) -> Self {
        Self(DynamoTable::new(table))
    }

    /// A store over `table` using an already built client.
    pub fn with_client(table: impl Into<String>, client: Client) -> Self {
        Self(DynamoTable::with_client(table, client))
    }
}

impl NonceStore for DynamoStore {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.0
                .client()
                .await
                .put_item()
                .table_name(self.0.name())
                .item("nonce", AttributeValue::S(nonce.to_owned()))
                .item("digest", AttributeValue::S(digest.to_owned()))
                .item("expires_at", AttributeValue::N(expires_at.to_string()))
                .condition_expression("attribute_not_exists(nonce)")
                .send()
                .await
                .map_err(|e| StoreError(describe(&e)))?;
            Ok(())
        })
    }

    fn consume<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let result = self
                .0
                .client()
                .await
                .delete_item()
                .table_name(self.0.name())
                .key("nonce", AttributeValue::S(nonce.to_owned()))
                .condition_expression(
                    "attribute_exists(nonce) AND digest = :digest AND expires_at > :now",
                )
                .expression_attribute_values(":digest", AttributeValue::S(digest.to_owned()))
                .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
                .send()
                .await;
            match result {
                Ok(_) => Ok(true),
                Err(error) => {
                    let conditional = error
                        .as_service_error()
                        .is_some_and(|e| e.is_conditional_check_failed_exception());
                    if conditional {
                        Ok(false)
                    } else {
                        Err(StoreError(describe(&error)))
                    }
                }
            }
        })
    }
}
