//! A real DynamoDB API for the confirmation tests: moto's server (started by
//! `scripts/test.sh`), reached through the real `aws-sdk-dynamodb` client with the server's
//! own HTTP client, and a fresh confirmations table as the SAM template creates it.

use std::sync::Arc;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    TimeToLiveSpecification,
};
use kobana_mcp::confirm::DynamoStore;

/// A client for `endpoint`, or for `AWS_ENDPOINT_URL_DYNAMODB` (moto) when `None`.
pub async fn dynamo_client(endpoint: Option<&str>) -> aws_sdk_dynamodb::Client {
    let endpoint = match endpoint {
        Some(e) => e.to_owned(),
        None => std::env::var("AWS_ENDPOINT_URL_DYNAMODB").expect(
            "AWS_ENDPOINT_URL_DYNAMODB is not set: run the tests through scripts/test.sh, which starts moto's DynamoDB server",
        ),
    };
    assert_eq!(
        std::env::var("AWS_EC2_METADATA_DISABLED").as_deref(),
        Ok("true"),
        "set AWS_EC2_METADATA_DISABLED=true (scripts/test.sh does)"
    );
    // The server's own SDK set-up (its reqwest-based HTTP client), pointed at `endpoint`.
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(kobana_mcp::net::aws::http_client())
        .endpoint_url(endpoint)
        .load()
        .await;
    aws_sdk_dynamodb::Client::new(&config)
}

/// A fresh table with TTL on `expires_at`, as the SAM template creates it.
pub async fn dynamo_store() -> Arc<DynamoStore> {
    let (table, client) = dynamo_table().await;
    Arc::new(DynamoStore::with_client(table, client))
}

/// Creates a fresh confirmations table; returns its name and the client that made it.
pub async fn dynamo_table() -> (String, aws_sdk_dynamodb::Client) {
    let client = dynamo_client(None).await;
    let table = format!(
        "confirmations-{}",
        &kobana_mcp::confirm::new_nonce().unwrap()[4..14]
    )
    .replace(['_'], "x");
    client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("nonce")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("nonce")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("moto creates the table");
    expire_by_ttl(&client, &table).await;
    (table, client)
}

/// Turns on `table`'s TTL on `expires_at`, as the SAM template does for each table.
pub async fn expire_by_ttl(client: &aws_sdk_dynamodb::Client, table: &str) {
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name("expires_at")
                .enabled(true)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("TTL enabled");
}
