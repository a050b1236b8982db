//! The token front under Lambda, behind API Gateway's default URL (stage `Prod`): the real
//! function binary (`KOBANA_MCP_BIN`) against the Runtime API emulator. From the 401 a client
//! finds the front as the resource's authorization server (`https://HOST/Prod`), reaches its
//! metadata at the one discovery path API Gateway routes under a stage
//! (`/Prod/.well-known/openid-configuration`), and registers; the key comes from Secrets
//! Manager (moto). With the front on and no secret configured, the function refuses to start.

use crate::common;
use std::time::Duration;

use crate::lambda::support::function::Function;
use crate::lambda::support::{Harness, event};
use serde_json::{Value, json};

const HOST: &str = "abc123defg.execute-api.us-east-1.amazonaws.com";

/// What API Gateway hands the function for `method path` under the stage (route `resource`).
fn gateway(method: &str, path: &str, resource: &str, body: Option<&Value>) -> Value {
    let mut event = event("well-known-protected-resource");
    event["httpMethod"] = json!(method);
    event["resource"] = json!(resource);
    event["path"] = json!(path);
    event["pathParameters"] = match resource.strip_suffix("/{proxy+}") {
        Some(prefix) => json!({ "proxy": path.strip_prefix(&format!("{prefix}/")).unwrap() }),
        None => Value::Null,
    };
    let context = &mut event["requestContext"];
    context["resourcePath"] = json!(resource);
    context["httpMethod"] = json!(method);
    context["path"] = json!(format!("/Prod{path}"));
    if let Some(body) = body {
        event["body"] = json!(body.to_string());
        event["headers"]["Content-Type"] = json!("application/json");
        event["multiValueHeaders"]["Content-Type"] = json!(["application/json"]);
    }
    event
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ht1_behind_api_gateway_the_front_is_found_under_the_stage_and_keyed_from_secrets_manager()
{
    let moto = crate::token_front::support::moto();
    let value = "k".repeat(40) + "front-lambda-secret-value";
    let arn = crate::token_front::support::create_secret(&common::python(), &value);
    let mut harness = Harness::start(&[
        ("MCP_TOKEN_FRONT", "on"),
        ("MCP_TOKEN_FRONT_KEY_SECRET", &arn),
        ("AWS_ENDPOINT_URL_SECRETS_MANAGER", &moto),
    ])
    .await;
    let issuer = format!("https://{HOST}/Prod");
    let metadata = harness
        .invoke(&event("well-known-protected-resource"))
        .await
        .http()
        .json();
    assert_eq!(
        metadata["authorization_servers"][0],
        json!(issuer),
        "{metadata}"
    );

    let discovery = gateway(
        "GET",
        "/.well-known/openid-configuration",
        "/.well-known/openid-configuration",
        None,
    );
    let reply = harness.invoke(&discovery).await.http();
    assert_eq!(reply.status, 200);
    let doc = reply.json();
    assert_eq!(
        doc["issuer"],
        json!(issuer),
        "the SDK checks the issuer echo: {doc}"
    );
    assert_eq!(
        doc["token_endpoint"],
        json!(format!("{issuer}/oauth/token"))
    );
    assert_eq!(
        doc["authorization_endpoint"],
        json!(format!("{issuer}/oauth/authorize"))
    );

    let registration = json!({"client_name": "Claude", "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]});
    let register = gateway(
        "POST",
        "/oauth/register",
        "/oauth/{proxy+}",
        Some(&registration),
    );
    let reply = harness.invoke(&register).await.http();
    assert_eq!(
        reply.status,
        201,
        "the key came from Secrets Manager: {}",
        harness.logs()
    );
    assert!(
        reply.json()["client_id"]
            .as_str()
            .unwrap()
            .starts_with("kmc1.")
    );
    let logs = harness.logs();
    assert!(
        logs.contains("key loaded from Secrets Manager"),
        "{logs:.3000}"
    );
    assert!(!logs.contains(&value), "the secret never reaches the log");
}

#[tokio::test]
async fn ht1_under_lambda_the_front_refuses_to_start_without_its_shared_key() {
    let mut function = Function::start("127.0.0.1:9", &[("MCP_TOKEN_FRONT", "on")]);
    let mut status = None;
    // Up to 30 s: a debug binary on a loaded two-core machine can take seconds to start.
    for _ in 0..600 {
        status = function.exited();
        if status.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(2),
        "{}",
        function.logs()
    );
    assert!(
        function.logs().contains("MCP_TOKEN_FRONT_KEY_SECRET"),
        "{}",
        function.logs()
    );
}

/// The template: the parameter defaults to off; the key exists, and may be read, only with
/// the front on; the function may read that one secret and do nothing else with it.
#[test]
fn ht1_the_template_grants_get_secret_value_on_its_own_key_only_with_the_front_on() {
    let (lines, at) = (&*crate::common::TEMPLATE, crate::common::template_at);
    let parameter = at("TokenFront:");
    assert_eq!(lines[parameter + 2], "Default: \"off\"");
    assert!(lines.contains(&"TokenFrontOn: !Equals [!Ref TokenFront, \"on\"]"));
    let key = at("TokenFrontKey:");
    assert_eq!(
        lines[key + 1..key + 3],
        [
            "Type: AWS::SecretsManager::Secret",
            "Condition: TokenFrontOn"
        ]
    );
    let statement = at("- TokenFrontOn");
    assert_eq!(lines[statement - 1], "- !If");
    assert_eq!(
        lines[statement + 1..statement + 6],
        [
            "- Statement:",
            "- Effect: Allow",
            "Action: secretsmanager:GetSecretValue",
            "Resource: !Ref TokenFrontKey",
            "- !Ref AWS::NoValue",
        ]
    );
    let secrets_actions = lines
        .iter()
        .filter(|l| l.contains("secretsmanager:"))
        .count();
    assert_eq!(secrets_actions, 1, "no other Secrets Manager permission");
    assert!(
        lines.contains(&"MCP_TOKEN_FRONT_KEY_SECRET: !If [TokenFrontOn, !Ref TokenFrontKey, \"\"]")
    );
}
