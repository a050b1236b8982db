//! The real `kobana-mcp` binary under a Lambda Runtime API emulator, fed the API Gateway REST
//! (v1) proxy events in `events/` (A-3, A-4).
//!
//! Needs the binary built first: `cargo build -p kobana-mcp` (scripts/test.sh does it), or
//! `KOBANA_MCP_BIN=/path/to/kobana-mcp`.

use crate::lambda::support::runtime_api::{BUFFERED_LIMIT, HttpReply};
use crate::lambda::support::{Harness, event, event_files};
use base64::Engine as _;
use fake_kobana::fixtures::ids::INV_OPEN;
use fake_kobana::{DocKind, full_token};
use serde_json::{Value, json};

const HOST: &str = "abc123defg.execute-api.us-east-1.amazonaws.com";
const AUTH_SERVER: &str = "https://auth.example.test";

/// The routes `template.yaml` gives the function (its `Api` events), each in stream mode.
const ROUTES: [&str; 6] = [
    "/mcp",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/{proxy+}",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/oauth/{proxy+}",
];

fn authorization(event: &Value) -> Option<&str> {
    event["headers"]["Authorization"].as_str()
}

fn assert_no_session(reply: &HttpReply, name: &str) {
    assert!(
        reply.header("mcp-session-id").is_none(),
        "{name}: P-2, no session id"
    );
}

/// The JSON-RPC result of a 200 `application/json` answer.
fn result(reply: &HttpReply, name: &str) -> Value {
    assert_eq!(
        reply.status,
        200,
        "{name}: {}",
        String::from_utf8_lossy(&reply.body)
    );
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json")),
        "{name}: {:?}",
        reply.headers
    );
    assert_no_session(reply, name);
    let body = reply.json();
    assert_eq!(body["jsonrpc"], "2.0", "{name}");
    body.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{name}: no result: {body}"))
}

/// What each event file must produce. A new file in `events/` needs an entry here.
/// `auth_server` is the authorization server the function was configured with (empty: none).
fn check(name: &str, reply: &HttpReply, harness: &Harness, auth_server: &str) {
    match name {
        "server-discover"
        | "initialize"
        | "tools-list"
        | "tools-call-customers-list"
        | "resources-read-invoice-pdf" => {
            check_mcp_answer(name, reply, harness);
        }
        "no-token" | "well-known-protected-resource" | "preflight-mcp" | "get-mcp" => {
            check_http_answer(name, reply, auth_server);
        }
        other => panic!(
            "events/{other}.json has no expectation: add one to check() in tests/it/lambda/events.rs"
        ),
    }
}

/// The JSON-RPC answers: discovery, initialize, the tool list, a tool call, the PDF.
fn check_mcp_answer(name: &str, reply: &HttpReply, harness: &Harness) {
    match name {
        "server-discover" => {
            let result = result(reply, name);
            assert_eq!(reply.json()["id"], "discover-1");
            assert_eq!(result["resultType"], "complete", "{result}");
            assert!(
                result["supportedVersions"]
                    .as_array()
                    .is_some_and(|v| v.contains(&json!("2026-07-28"))),
                "{result}"
            );
            assert_eq!(
                result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
                "kobana-mcp"
            );
        }
        "initialize" => {
            let result = result(reply, name);
            assert_eq!(result["protocolVersion"], "2025-11-25", "{result}");
            assert_eq!(result["serverInfo"]["name"], "kobana-mcp");
            assert!(result["capabilities"]["tools"].is_object(), "{result}");
        }
        "tools-list" => {
            let result = result(reply, name);
            let names: Vec<&str> = result["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("{result}"))
                .iter()
                .filter_map(|t| t["name"].as_str())
                .collect();
            for tool in [
                "billing_customers_list",
                "billing_invoices_pdf",
                "billing_invoices_void",
            ] {
                assert!(names.contains(&tool), "{tool} missing from {names:?}");
            }
        }
        "tools-call-customers-list" => {
            let result = result(reply, name);
            assert_ne!(result["isError"], true, "{result}");
            assert!(result["structuredContent"].is_object(), "{result}");
            let calls: Vec<_> = harness
                .fake
                .calls()
                .into_iter()
                .filter(|c| c.path == "/v1/customers")
                .collect();
            assert!(
                !calls.is_empty() && calls.iter().all(|c| c.authorized),
                "A-3: the token reached Kobana unchanged: {calls:?}"
            );
        }
        "resources-read-invoice-pdf" => {
            let result = result(reply, name);
            let content = &result["contents"][0];
            assert_eq!(content["mimeType"], "application/pdf", "{result:.300}");
            assert_eq!(
                content["uri"],
                format!("kobana://billing/invoices/{INV_OPEN}/pdf")
            );
            let blob = base64::engine::general_purpose::STANDARD
                .decode(content["blob"].as_str().expect("a base64 blob"))
                .expect("valid base64");
            let expected = harness.fake.pdf_bytes(DocKind::Invoice, INV_OPEN).unwrap();
            assert!(blob == expected, "R-5: the blob is the fake's PDF");
        }
        _ => unreachable!("{name}"),
    }
}

/// The answers before MCP: no token, the protected-resource metadata, CORS, GET.
fn check_http_answer(name: &str, reply: &HttpReply, auth_server: &str) {
    match name {
        "no-token" => {
            assert_eq!(reply.status, 401, "A-3");
            let challenge = reply.header("www-authenticate").expect("A-3: a challenge");
            let prefix = format!("Bearer resource_metadata=\"https://{HOST}/");
            assert!(
                challenge.starts_with(&prefix)
                    && challenge.contains("/.well-known/oauth-protected-resource"),
                "A-3, RFC 9728: {challenge}"
            );
            assert_eq!(reply.json()["error"], "invalid_token");
        }
        "well-known-protected-resource" => {
            assert_eq!(reply.status, 200);
            let metadata = reply.json();
            let resource = metadata["resource"].as_str().expect("resource");
            assert!(
                resource.starts_with(&format!("https://{HOST}/")) && resource.ends_with("/mcp"),
                "{metadata}"
            );
            if auth_server.is_empty() {
                // RK-5: by default no authorization server is advertised.
                assert!(
                    metadata.get("authorization_servers").is_none(),
                    "{metadata}"
                );
            } else {
                assert_eq!(metadata["authorization_servers"], json!([auth_server]));
            }
            assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
        }
        "preflight-mcp" => {
            assert_eq!(reply.status, 204, "CORS: the preflight is answered");
            assert_eq!(
                reply.header("access-control-allow-origin"),
                Some("http://localhost:6274"),
                "CORS: an allowed origin is granted"
            );
            let allowed = reply
                .header("access-control-allow-headers")
                .unwrap_or_default()
                .to_ascii_lowercase();
            for wanted in ["authorization", "content-type", "mcp-protocol-version"] {
                assert!(allowed.contains(wanted), "CORS: {wanted} in {allowed:?}");
            }
            assert!(
                reply.header("vary").is_some_and(|v| v.contains("Origin")),
                "CORS: Vary: Origin"
            );
        }
        "get-mcp" => {
            assert_eq!(reply.status, 405, "P-2: no server-initiated stream");
            assert_no_session(reply, name);
        }
        _ => unreachable!("{name}"),
    }
}

#[test]
fn a4_events_are_rest_api_proxy_events_with_the_fake_kobana_sample_token() {
    let events = event_files();
    assert!(events.len() >= 7, "{} event files", events.len());
    for (name, event) in &events {
        assert!(event["httpMethod"].is_string(), "{name}: REST (v1) events");
        assert_eq!(event["requestContext"]["stage"], "Prod", "{name}");
        let path = event["path"].as_str().unwrap();
        assert_eq!(
            event["requestContext"]["path"],
            format!("/Prod{path}"),
            "{name}: the stage prefixes the client's path"
        );
        assert!(event["resource"].is_string(), "{name}");
        if let Some(value) = authorization(event) {
            // The events carry the default profile's token (scope `all`).
            let sample =
                fake_kobana::auth::full_token_in(fake_kobana::readings::ScopeWords::ResourceLevel);
            assert_eq!(
                value,
                format!("Bearer {sample}"),
                "{name}: regenerate the sample token with fake_kobana::full_token()"
            );
        }
        if let Some(body) = event["body"].as_str() {
            serde_json::from_str::<Value>(body)
                .unwrap_or_else(|e| panic!("{name}: the body is a JSON string: {e}"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a4_every_event_file_is_answered_through_the_runtime_api() {
    let mut harness = Harness::start(&[("MCP_AUTHORIZATION_SERVERS", AUTH_SERVER)]).await;
    for (name, event) in event_files() {
        let reply = harness.invoke(&event).await;
        assert!(
            reply.streaming,
            "{name}: every answer uses the streaming protocol (RESPONSE_STREAM routes)"
        );
        check(&name, &reply.http(), &harness, AUTH_SERVER);
    }
    assert!(
        !harness.logs().contains(&full_token()),
        "A-3: the token never appears in the function's log"
    );
}

/// A deployment made without our template (CDK, Terraform, the console) sets none of our
/// `MCP_*` variables: under Lambda the `Host` check is off by default, so every event is
/// answered as with the template — not `403 Forbidden host`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a4_every_event_is_answered_with_no_mcp_variables_set() {
    let mut harness = Harness::start_bare(&[]).await;
    for (name, event) in event_files() {
        let reply = harness.invoke(&event).await.http();
        assert_ne!(reply.status, 403, "{name}: refused: {:?}", reply.json());
        check(&name, &reply, &harness, "");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a4_a_pdf_over_6_mb_streams_whole_through_the_runtime_api() {
    let mut harness = Harness::start(&[]).await;
    harness.fake.set_pdf_size(INV_OPEN, 9_900_000);
    let started = std::time::Instant::now();
    let reply = harness.invoke(&event("resources-read-invoice-pdf")).await;
    let elapsed = started.elapsed();
    assert!(reply.streaming, "A-4: streamed, not buffered");
    assert!(
        reply.payload.len() > BUFFERED_LIMIT,
        "{} bytes: the answer must exceed Lambda's buffered limit for this test to mean anything",
        reply.payload.len()
    );
    let http = reply.http();
    if let Some(length) = http.header("content-length") {
        assert_eq!(
            length,
            http.body.len().to_string(),
            "no stale Content-Length"
        );
    }
    check("resources-read-invoice-pdf", &http, &harness, AUTH_SERVER);
    let pdf = harness.fake.pdf_bytes(DocKind::Invoice, INV_OPEN).unwrap();
    assert_eq!(
        pdf.len(),
        9_900_000,
        "the fake serves the large PDF check() compared"
    );
    eprintln!(
        "streamed {} bytes through the runtime api in {elapsed:?}",
        reply.payload.len()
    );
    assert!(
        !harness.logs().contains(&full_token()),
        "A-3: the token never appears in the function's log"
    );
}

#[test]
fn a4_template_routes_every_event_path_in_stream_mode() {
    let template = crate::common::TEMPLATE.iter();
    let paths: Vec<&str> = template
        .clone()
        .filter_map(|l| l.strip_prefix("Path: "))
        .collect();
    assert_eq!(paths, ROUTES, "the Api events of template.yaml");
    let apis = template.clone().filter(|l| **l == "Type: Api").count();
    let streamed = template
        .filter(|l| l.starts_with("ResponseTransferMode: RESPONSE_STREAM"))
        .count();
    assert_eq!(
        (apis, streamed),
        (ROUTES.len(), ROUTES.len()),
        "every route streams: the function always answers in the streaming format"
    );
    for (name, event) in event_files() {
        assert!(
            ROUTES.contains(&event["resource"].as_str().unwrap()),
            "{name}: resource {} is not routed by template.yaml",
            event["resource"]
        );
    }
}

/// What API Gateway (stage `Prod`, the template's routes) hands the function for `GET url`,
/// or the 403 it answers by itself. `custom_domain`: a domain whose empty base path maps to
/// the stage, so paths carry no stage segment.
fn gateway_get(url: &str, custom_domain: bool) -> Result<Value, String> {
    let rest = url.strip_prefix("https://").ok_or("not an https URL")?;
    let (host, full_path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if custom_domain {
        full_path
    } else {
        full_path
            .strip_prefix("/Prod")
            .filter(|p| p.starts_with('/'))
            .ok_or_else(|| format!("403 Missing Authentication Token: {url} names no stage"))?
    };
    let resource = ROUTES
        .iter()
        .find(|r| match r.strip_suffix("/{proxy+}") {
            Some(prefix) => path.starts_with(&format!("{prefix}/")),
            None => path == **r,
        })
        .ok_or_else(|| format!("403 Missing Authentication Token: no route for {path}"))?;
    let mut event = event("well-known-protected-resource");
    event["resource"] = json!(resource);
    event["path"] = json!(path);
    event["headers"]["Host"] = json!(host);
    event["multiValueHeaders"]["Host"] = json!([host]);
    event["pathParameters"] = match path.strip_prefix("/.well-known/oauth-protected-resource/") {
        Some(proxy) => json!({ "proxy": proxy }),
        None => Value::Null,
    };
    let context = &mut event["requestContext"];
    context["resourcePath"] = json!(resource);
    context["path"] = json!(full_path);
    context["domainName"] = json!(host);
    Ok(event)
}

fn resource_metadata(challenge: &str) -> String {
    let start = challenge
        .find("resource_metadata=\"")
        .unwrap_or_else(|| panic!("no resource_metadata in {challenge}"))
        + "resource_metadata=\"".len();
    let end = challenge[start..].find('"').expect("closing quote") + start;
    challenge[start..end].to_owned()
}

/// 401 → follow `resource_metadata` through API Gateway → the metadata's `resource`.
async fn discover(harness: &mut Harness, no_token: &Value, custom_domain: bool) -> Value {
    let reply = harness.invoke(no_token).await.http();
    assert_eq!(reply.status, 401);
    let url = resource_metadata(reply.header("www-authenticate").unwrap());
    let event = gateway_get(&url, custom_domain)
        .unwrap_or_else(|why| panic!("the client cannot fetch {url}: API Gateway answers {why}"));
    let reply = harness.invoke(&event).await.http();
    assert_eq!(reply.status, 200, "{url}");
    reply.json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a3_custom_domain_with_public_url_gives_a_reachable_consistent_challenge() {
    let public = "https://mcp.example.com/mcp";
    let mut harness = Harness::start(&[("MCP_PUBLIC_URL", public)]).await;
    let mut no_token = event("no-token");
    no_token["headers"]["Host"] = json!("mcp.example.com");
    no_token["multiValueHeaders"]["Host"] = json!(["mcp.example.com"]);
    no_token["requestContext"]["domainName"] = json!("mcp.example.com");
    no_token["requestContext"]["path"] = json!("/mcp");
    let metadata = discover(&mut harness, &no_token, true).await;
    assert_eq!(metadata["resource"], public, "{metadata}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a3_execute_api_url_gives_a_reachable_consistent_challenge() {
    let mut harness = Harness::start(&[]).await;
    let metadata = discover(&mut harness, &event("no-token"), false).await;
    assert_eq!(metadata["resource"], format!("https://{HOST}/Prod/mcp"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a3_even_at_trace_level_the_token_never_reaches_the_log() {
    // lambda_runtime logs whole events at trace; the function caps it at info regardless.
    let mut harness = Harness::start(&[("RUST_LOG", "trace")]).await;
    for (name, event) in event_files() {
        let reply = harness.invoke(&event).await;
        assert!(reply.http().status < 500, "{name}");
    }
    let logs = harness.logs();
    assert!(
        logs.len() > 1000,
        "trace logging is on: {} bytes",
        logs.len()
    );
    assert!(
        !logs.contains(&full_token()),
        "A-3: the token never appears in the function's log"
    );
}

/// The function binary is built as `sam build` builds it, without the `demo` feature: the
/// fake Kobana is not in it, and `--demo` says how to get it instead of starting anything.
#[test]
fn a4_the_deployed_binary_carries_no_demo_and_says_how_to_get_one() {
    let output = std::process::Command::new(crate::lambda::support::function::binary())
        .arg("--demo")
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env("MCP_BIND", "127.0.0.1:0")
        .output()
        .expect("the function binary runs");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no demo mode"), "{stderr}");
    assert!(stderr.contains("cargo demo"), "{stderr}");
}

/// A-4: the table the template creates is the one the confirmation store needs (key `nonce`,
/// TTL on `expires_at`), and the function's IAM policy allows exactly the DynamoDB operations
/// the store makes, on that table only. `samconfig.toml` deploys it with IAM capabilities.
#[test]
fn a4_template_table_has_the_stores_ttl_and_iam_allows_only_its_operations() {
    let (root, lines) = (crate::common::root(), &*crate::common::TEMPLATE);
    let store = std::fs::read_to_string(root.join("shared/src/confirm/dynamo.rs"))
        .expect("the DynamoDB store's source");

    let ttl = lines
        .iter()
        .position(|l| *l == "TimeToLiveSpecification:")
        .expect("the table has a TTL");
    assert_eq!(
        lines[ttl + 1..ttl + 3],
        ["AttributeName: expires_at", "Enabled: true"]
    );
    assert!(store.contains(r#".item("expires_at", AttributeValue::N("#));
    let key = lines
        .iter()
        .position(|l| *l == "KeySchema:")
        .expect("the table has a key");
    assert_eq!(lines[key + 1], "- AttributeName: nonce");
    assert!(store.contains(r#".key("nonce","#));
    assert!(lines.contains(&"BillingMode: PAY_PER_REQUEST"));

    // Every `.xxx_item()` call of the store, as IAM action names.
    let mut used: Vec<String> = store
        .lines()
        .filter_map(|l| l.trim().strip_prefix('.')?.strip_suffix("()"))
        .filter(|call| call.ends_with("_item"))
        .map(|call| {
            let camel: String = call
                .split('_')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            format!("dynamodb:{camel}")
        })
        .collect();
    used.sort();
    used.dedup();
    // The confirmations' own statement: its actions, up to its resource line.
    let resource = lines
        .iter()
        .position(|l| *l == "Resource: !GetAtt ConfirmationsTable.Arn")
        .expect("the confirmations statement");
    let statement = lines[..resource]
        .iter()
        .rposition(|l| l.starts_with("- Effect:"))
        .expect("its Effect line");
    let mut allowed: Vec<String> = lines[statement..resource]
        .iter()
        .filter_map(|l| l.strip_prefix("- dynamodb:"))
        .map(|a| format!("dynamodb:{a}"))
        .collect();
    allowed.sort();
    assert_eq!(used, ["dynamodb:DeleteItem", "dynamodb:PutItem"]);
    assert_eq!(
        allowed, used,
        "the IAM policy allows exactly what the store does"
    );
    let resources: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("Resource:"))
        .collect();
    // The audit trail's statements are checked in audit::entries (AU-3), the token front's own
    // (its key) in token_front::lambda.
    assert_eq!(
        resources,
        [
            &"Resource: !GetAtt ConfirmationsTable.Arn",
            &"Resource: !GetAtt AuditTable.Arn",
            &r#"Resource: !Sub "${AuditTable.Arn}/index/by_organization""#,
            &"Resource: !Ref TokenFrontKey"
        ]
    );

    let samconfig = std::fs::read_to_string(root.join("samconfig.toml")).expect("samconfig.toml");
    assert!(samconfig.contains("[default.deploy.parameters]"));
    assert!(samconfig.contains(r#"capabilities = "CAPABILITY_IAM""#));
}
