//! The token front across instances, as Lambda runs it: several `kobana-mcp` processes
//! (`KOBANA_MCP_BIN`) with `MCP_TOKEN_FRONT=on`, their key in Secrets Manager and codes in
//! the confirmations table — both moto's (`AWS_ENDPOINT_URL_DYNAMODB`), the secret created by
//! boto3. A code issued by one instance is redeemed by another, once; an instance with another
//! secret knows neither the clients nor the codes; an instance whose secret is missing refuses
//! the front (503) while `/mcp` keeps working. Their logs never hold the token, the code or
//! the secret.

use crate::common;
use crate::lambda::support::function;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::token_front::support::{Flow, Pkce, create_secret, moto};
use common::{dynamo, python};
use fake_kobana::{FakeKobana, full_token};
use tokio::io::{AsyncBufReadExt, BufReader};

/// One running instance and its captured log.
struct Instance {
    flow: Flow,
    log: Arc<Mutex<String>>,
    _child: tokio::process::Child,
}

async fn start(kobana: &str, secret: &str, table: &str) -> Instance {
    let mut child = tokio::process::Command::new(function::binary())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"].map(|k| (k, "test")))
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_ENDPOINT_URL_DYNAMODB", moto())
        .env("AWS_ENDPOINT_URL_SECRETS_MANAGER", moto())
        .env("MCP_BIND", "127.0.0.1:0")
        .env("KOBANA_API_URL", kobana)
        .env("MCP_TOKEN_FRONT", "on")
        .env("MCP_TOKEN_FRONT_KEY_SECRET", secret)
        .env("CONFIRMATIONS_TABLE", table)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (cargo build -p kobana-mcp, or set KOBANA_MCP_BIN)",
                function::binary().display()
            )
        });
    let log = Arc::new(Mutex::new(String::new()));
    let (url_tx, url_rx) = tokio::sync::oneshot::channel();
    let mut url_tx = Some(url_tx);
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let sink = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.split("serving ").nth(1) {
                url_tx.take().map(|tx| tx.send(url.trim().to_owned()));
            }
            sink.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let sink = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = out.next_line().await {
            sink.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
    let url = tokio::time::timeout(Duration::from_secs(20), url_rx)
        .await
        .expect("the instance starts in time")
        .expect("it says where it serves");
    Instance {
        flow: Flow::new(&url),
        log,
        _child: child,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ht1_instances_sharing_the_secret_and_the_table_share_clients_and_codes_once() {
    let fake = FakeKobana::start().await;
    let (table, _) = dynamo::dynamo_table().await;
    let value = format!("{}{}", Pkce::new().verifier, Pkce::new().verifier);
    let secret = create_secret(&python(), &value);
    let other = create_secret(
        &python(),
        &format!("{}{}", Pkce::new().verifier, Pkce::new().verifier),
    );
    let base = fake.base_url();
    let (a, b) = (
        start(&base, &secret, &table).await,
        start(&base, &secret, &table).await,
    );
    let stranger = start(&base, &other, &table).await;
    let missing = start(
        &base,
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:nope",
        &table,
    )
    .await;

    let token = full_token();
    let client_id = a.flow.register().await;
    let pkce = Pkce::new();
    let code = a.flow.code_for(&client_id, &pkce, "s", &token).await["code"].clone();
    let (status, answer) = b
        .flow
        .exchange(&code, &client_id, &pkce.verifier, &[])
        .await;
    assert_eq!(status, 200, "{answer}");
    let access = crate::token_front::support::sealed_access(&answer, &token);
    // B sealed it for A's endpoint, where the code was issued: A opens it (the same key), an
    // instance under another secret (a rotated key) does not (HD-2).
    assert_eq!(
        tools_list(&a, &access).await,
        200,
        "A opens B's access token"
    );
    assert_eq!(
        tools_list(&stranger, &access).await,
        401,
        "another key opens nothing"
    );
    let reused = a.flow.refused(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(reused, "invalid_grant", "used once across instances");
    let page = b
        .flow
        .authorize(
            &client_id,
            crate::token_front::support::REDIRECT,
            &Pkce::new(),
            "s",
        )
        .await;
    assert_eq!(page.status, 200, "B knows A's client: {}", page.body);

    // Another secret: neither the client nor a fresh code opens.
    let unknown = stranger
        .flow
        .authorize(
            &client_id,
            crate::token_front::support::REDIRECT,
            &pkce,
            "s",
        )
        .await;
    assert!(
        unknown.body.contains("Aplicativo desconhecido"),
        "{}",
        unknown.body
    );
    let pkce = Pkce::new();
    let fresh = a.flow.code_for(&client_id, &pkce, "s", &token).await["code"].clone();
    let refused = stranger
        .flow
        .refused(&fresh, &client_id, &pkce.verifier, &[])
        .await;
    assert_eq!(refused, "invalid_grant", "another key opens no code");

    check_missing_secret(&missing, &token).await;
    let mut secrets = common::token_traces(&token);
    secrets.extend([code, fresh, value, access]);
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    check_logs([&a, &b, &stranger, &missing], &secrets).await;
}

/// A missing secret: the front answers 503, `/mcp` does not depend on it.
/// The status of `tools/list` on `instance`'s `/mcp` with `token`.
async fn tools_list(instance: &Instance, token: &str) -> u16 {
    instance
        .flow
        .http
        .post(format!("{}/mcp", instance.flow.base))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn check_missing_secret(missing: &Instance, token: &str) {
    let (status, answer) = missing
        .flow
        .register_with(
            &serde_json::json!({"redirect_uris": [crate::token_front::support::REDIRECT]}),
        )
        .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (503, Some("temporarily_unavailable")),
        "{answer}"
    );
    let listed = missing
        .flow
        .http
        .post(format!("{}/mcp", missing.flow.base))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
}

/// The instances say how their key went, and hold none of `secrets` in their logs.
async fn check_logs(instances: [&Instance; 4], secrets: &[&str]) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logs: Vec<String> = instances
        .iter()
        .map(|i| i.log.lock().unwrap().clone())
        .collect();
    assert!(
        logs[0].contains("key loaded from Secrets Manager"),
        "{:.3000}",
        logs[0]
    );
    assert!(
        logs[3].contains("ResourceNotFoundException"),
        "the log says why: {:.3000}",
        logs[3]
    );
    for (log, name) in logs.iter().zip(["A", "B", "stranger", "missing"]) {
        for secret in secrets {
            assert!(
                !log.contains(secret),
                "{name}'s log holds a secret: {:.30}…",
                secret
            );
        }
    }
}
