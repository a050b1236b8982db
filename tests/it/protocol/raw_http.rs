//! End-to-end protocol behaviour over raw HTTP: both eras on one endpoint, statelessness,
//! authentication, and clear answers to bad input (P-1, P-2, P-3, P-4, A-3).

use crate::common;
use fake_kobana::fixtures::ids::{PADARIA, UNKNOWN};

use common::{Stack, json_body, read};
use fake_kobana::{full_token, readonly_token};
use serde_json::{Value, json};

fn initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "0"}}})
    .to_string()
}

#[tokio::test]
async fn p1_initialize_echoes_each_era_2025_version_without_a_session() {
    let stack = Stack::start().await;
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let response = stack
            .post_raw(initialize(version), Some(&full_token()), &[])
            .await;
        assert!(
            response.headers().get("mcp-session-id").is_none(),
            "P-2: no session id"
        );
        let (status, body) = read(response).await;
        assert_eq!(status, 200, "{body}");
        let result = &body["result"];
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(result["serverInfo"]["name"], "kobana-mcp");
        assert!(result["instructions"].as_str().unwrap().contains("Kobana"));
        let caps: Vec<&String> = result["capabilities"].as_object().unwrap().keys().collect();
        assert_eq!(
            caps,
            ["completions", "prompts", "resources", "tools"],
            "P-3"
        );
        assert!(result["capabilities"]["tools"].get("listChanged").is_none());
    }
}

#[tokio::test]
async fn p1_server_info_has_title_and_website() {
    let stack = Stack::start().await;
    let (_, body) = stack.post_full(initialize("2025-11-25"), &[]).await;
    let info = &body["result"]["serverInfo"];
    assert!(info["title"].as_str().unwrap().contains("Kobana"));
    assert_eq!(info["websiteUrl"], "https://www.kobana.com.br");
    assert!(info["version"].as_str().is_some());
}

#[tokio::test]
async fn p1_unknown_initialize_version_negotiates_2025_11_25() {
    let stack = Stack::start().await;
    let (status, body) = stack.post_full(initialize("2024-01-01"), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn p1_discover_advertises_2026_with_server_info() {
    let stack = Stack::start().await;
    let (status, body) = stack
        .modern(&full_token(), "server/discover", json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let result = &body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
    );
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "kobana-mcp"
    );
    assert!(
        result["instructions"]
            .as_str()
            .unwrap()
            .contains("billing_organization_get")
    );
}

#[tokio::test]
async fn p4_modern_tools_list_is_private_and_typed() {
    let stack = Stack::start().await;
    let (status, body) = stack.modern(&full_token(), "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let result = &body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "private");
    assert!(result["ttlMs"].as_u64().is_some());
    assert!(!result["tools"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn p1_modern_header_without_meta_is_400_invalid_params() {
    let stack = Stack::start().await;
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).to_string();
    let (status, body) = stack
        .post_full(
            body,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
            ],
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32602);
    assert_eq!(body["id"], 3);
}

#[tokio::test]
async fn p1_modern_method_header_mismatch_is_32020() {
    let stack = Stack::start().await;
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let (status, body) = stack
        .post_full(
            body,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "prompts/list"),
            ],
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020);
}

#[tokio::test]
async fn p2_get_and_delete_are_405_and_notifications_202() {
    let stack = Stack::start().await;
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        assert_eq!(
            stack
                .bodiless_status(method.clone(), ("accept", "text/event-stream"))
                .await,
            405,
            "{method}"
        );
    }
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let response = stack
        .post_raw(
            note,
            Some(&full_token()),
            &[("mcp-protocol-version", "2025-11-25")],
        )
        .await;
    assert_eq!(response.status().as_u16(), 202);
}

#[tokio::test]
async fn a3_missing_token_is_401_naming_the_resource_metadata() {
    let stack = Stack::start().await;
    let response = stack.post_raw(initialize("2025-11-25"), None, &[]).await;
    assert_eq!(response.status().as_u16(), 401);
    let challenge = response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        challenge.starts_with("Bearer resource_metadata=\""),
        "{challenge}"
    );
    let metadata_url = challenge.split('"').nth(1).unwrap().to_owned();
    assert!(
        metadata_url.ends_with("/.well-known/oauth-protected-resource/mcp"),
        "{metadata_url}"
    );
    let (_, body) = read(response).await;
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .contains("Authorization")
    );
    assert!(
        stack.fake.calls().is_empty(),
        "nothing reaches Kobana without a token"
    );

    let metadata: Value = json_body(stack.http.get(&metadata_url)).await;
    assert_eq!(metadata["resource"], stack.url);
    assert!(
        metadata.get("authorization_servers").is_none(),
        "RK-5: by default no authorization server is advertised: {metadata}"
    );
    assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    let root = stack
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource");
    let root: Value = json_body(stack.http.get(&root)).await;
    assert_eq!(root["resource"], stack.url);
}

#[tokio::test]
async fn a3_malformed_token_is_401_invalid_request() {
    let stack = Stack::start().await;
    for header in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer two words"] {
        let response = stack
            .http
            .post(&stack.url)
            .header("authorization", header)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize("2025-11-25"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 401, "{header}");
        let challenge = response.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.contains("error=\"invalid_request\""),
            "{challenge}"
        );
    }
}

#[tokio::test]
async fn a3_token_is_forwarded_unchanged_with_user_agent() {
    let stack = Stack::start().await;
    let result = stack
        .call(&full_token(), "billing_organization_get", json!({}))
        .await;
    assert_eq!(result["isError"], false, "{result}");
    let calls = stack.kobana_calls("/v1/organization");
    assert_eq!(calls.len(), 1);
    assert!(calls[0].authorized, "the fake accepted the forwarded token");
    assert!(
        calls[0]
            .user_agent
            .as_deref()
            .unwrap()
            .starts_with("Kobana MCP Server/")
    );
}

#[tokio::test]
async fn invalid_json_is_parse_error() {
    let stack = Stack::start().await;
    let (status, body) = stack.post_full("{not json", &[]).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32700);
}

#[tokio::test]
async fn non_json_rpc_is_invalid_request() {
    let stack = Stack::start().await;
    for bad in [
        r#"{"hello":"world"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        "42",
    ] {
        let (status, body) = stack
            .post_full(bad, &[("mcp-protocol-version", "2025-11-25")])
            .await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["error"]["code"], -32600, "{bad}: {body}");
    }
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let stack = Stack::start().await;
    let (_, body) = stack
        .legacy(&full_token(), "billing/whatever", json!({}))
        .await;
    assert_eq!(body["error"]["code"], -32601, "{body}");
    let (status, body) = stack
        .modern(&full_token(), "billing/whatever", json!({}))
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], -32601);
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let stack = Stack::start().await;
    let (_, body) = stack
        .legacy(
            &full_token(),
            "tools/call",
            json!({"name": "billing_nope", "arguments": {}}),
        )
        .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("billing_nope")
    );
}

#[tokio::test]
async fn t4_wrong_argument_types_are_tool_errors_naming_the_field() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            "billing_customers_list",
            json!({"per_page": "ten"}),
        )
        .await;
    assert_eq!(result["isError"], true, "{result}");
    let text = common::text_of(&result);
    assert!(
        text.contains("Argumentos inválidos") && text.contains("ten"),
        "{text}"
    );
    let result = stack
        .call(
            &full_token(),
            "billing_customers_list",
            json!({"per_pag": 10}),
        )
        .await;
    assert!(common::text_of(&result).contains("`per_pag`"), "{result}");
    assert!(
        stack.kobana_calls("/v1/customers").is_empty(),
        "bad arguments never reach Kobana"
    );
}

#[tokio::test]
async fn oversized_body_is_413() {
    let stack = Stack::start_with(|c| c.max_body_bytes = 64 * 1024).await;
    let padding = "x".repeat(100 * 1024);
    let response = stack
        .legacy_raw(&full_token(), "tools/list", json!({"cursor": padding}))
        .await;
    assert_eq!(response.status().as_u16(), 413);
}

#[tokio::test]
async fn foreign_host_and_origin_are_refused() {
    let stack = Stack::start().await;
    let response = stack
        .post_raw(
            initialize("2025-11-25"),
            Some(&full_token()),
            &[("host", "evil.example.com")],
        )
        .await;
    assert!(response.status().is_client_error(), "{}", response.status());
    let response = stack
        .post_raw(
            initialize("2025-11-25"),
            Some(&full_token()),
            &[("origin", "https://evil.example.com")],
        )
        .await;
    assert_eq!(response.status().as_u16(), 403);
}

#[tokio::test]
async fn t1_read_only_token_sees_and_runs_no_write_tool() {
    let stack = Stack::start().await;
    let names = stack.tool_names(&readonly_token(), &[]).await;
    assert!(names.contains(&"billing_customers_list".to_owned()));
    assert!(
        !names.contains(&"billing_customers_create".to_owned()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"billing_customers_delete".to_owned()),
        "{names:?}"
    );
    let full = stack.tool_names(&full_token(), &[]).await;
    assert!(full.contains(&"billing_customers_delete".to_owned()));

    let result = stack
        .call(
            &readonly_token(),
            "billing_customers_create",
            json!({"name": "Nova Ltda"}),
        )
        .await;
    assert_eq!(result["isError"], true);
    assert!(
        common::text_of(&result).contains("customers:write"),
        "{result}"
    );
    assert!(
        stack.fake.calls().is_empty(),
        "refused before any Kobana call: {:?}",
        stack.fake.calls()
    );
}

#[tokio::test]
async fn t2_customers_list_paginates_and_says_how_to_continue() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            "billing_customers_list",
            json!({"per_page": 3}),
        )
        .await;
    assert_eq!(result["isError"], false, "{result}");
    let s = &result["structuredContent"];
    assert_eq!(s["total"], 4);
    assert_eq!(s["customers"].as_array().unwrap().len(), 3);
    assert_eq!(s["next_page"], 2);
    assert!(common::text_of(&result).contains("page=2"));
    let page2 = stack
        .call(
            &full_token(),
            "billing_customers_list",
            json!({"per_page": 3, "page": 2}),
        )
        .await;
    assert_eq!(
        page2["structuredContent"]["customers"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(page2["structuredContent"]["next_page"], Value::Null);
}

#[tokio::test]
async fn t2_sort_by_outside_the_catalog_is_refused_with_allowed_values() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            "billing_customers_list",
            json!({"sort_by": "document_number"}),
        )
        .await;
    assert_eq!(result["isError"], true);
    let text = common::text_of(&result);
    assert!(
        text.contains("created_at") && text.contains("name"),
        "{text}"
    );
    assert!(stack.fake.calls().is_empty());
    let ok = stack
        .call(
            &full_token(),
            "billing_customers_list",
            json!({"sort_by": "name", "sort_order": "asc"}),
        )
        .await;
    assert_eq!(
        ok["structuredContent"]["customers"][0]["name"],
        "Construtora Horizonte S.A."
    );
}

#[tokio::test]
async fn customers_get_by_uuid_and_external_id() {
    let stack = Stack::start().await;
    for id in [PADARIA, "crm-000202"] {
        let result = stack
            .call(&full_token(), "billing_customers_get", json!({"id": id}))
            .await;
        assert_eq!(result["isError"], false, "{result}");
        assert_eq!(
            result["structuredContent"]["customer"]["name"],
            "Padaria Pão Dourado Ltda"
        );
    }
    let missing = stack
        .call(
            &full_token(),
            "billing_customers_get",
            json!({"id": UNKNOWN}),
        )
        .await;
    assert_eq!(missing["isError"], true);
    assert!(
        common::text_of(&missing).contains("Não encontrado"),
        "{missing}"
    );
    let traversal = stack
        .call(
            &full_token(),
            "billing_customers_get",
            json!({"id": "../organization"}),
        )
        .await;
    assert_eq!(traversal["isError"], true);
    assert!(
        stack.kobana_calls("/v1/organization").is_empty(),
        "no path traversal upstream"
    );
}

#[tokio::test]
async fn t3_money_and_dates_are_made_readable() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            "billing_customers_get",
            json!({"id": "crm-000101"}),
        )
        .await;
    let customer = &result["structuredContent"]["customer"];
    assert_eq!(
        customer["created_at_sao_paulo"],
        "2026-02-10T09:15:00-03:00"
    );
}

#[tokio::test]
async fn t1_toolset_and_read_only_headers_narrow_but_never_widen() {
    let stack = Stack::start().await;
    let names = stack
        .tool_names(&full_token(), &[("x-mcp-toolsets", "invoices, nfes")])
        .await;
    assert!(!names.is_empty());
    // The generic tools are there too, narrowed to the named resources (tests/it/operations/tools.rs).
    assert!(
        names.iter().all(|n| n.starts_with("billing_invoices_")
            || n.starts_with("billing_nfes_")
            || n.starts_with("billing_operations_")),
        "{names:?}"
    );
    assert!(names.contains(&"billing_invoices_void".to_owned()));

    let read_only = stack
        .tool_names(&full_token(), &[("x-mcp-readonly", "true")])
        .await;
    assert!(read_only.contains(&"billing_invoices_list".to_owned()));
    assert!(
        !read_only
            .iter()
            .any(|n| n.ends_with("_void") || n.ends_with("_create")),
        "{read_only:?}"
    );

    // Asking for a toolset the token cannot use adds nothing.
    let narrowed = stack
        .tool_names(&readonly_token(), &[("x-mcp-toolsets", "invoices")])
        .await;
    assert!(narrowed.contains(&"billing_invoices_list".to_owned()));
    assert!(
        !narrowed.contains(&"billing_invoices_void".to_owned()),
        "{narrowed:?}"
    );

    // A narrowed-away tool is not there to call; an unknown toolset is a clear error.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "billing_customers_list", "arguments": {}}});
    let (_, body) = stack
        .post_full(
            body.to_string(),
            &[
                ("mcp-protocol-version", "2025-11-25"),
                ("x-mcp-toolsets", "invoices"),
            ],
        )
        .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (_, body) = stack
        .post_full(
            list.to_string(),
            &[
                ("mcp-protocol-version", "2025-11-25"),
                ("x-mcp-toolsets", "boletos"),
            ],
        )
        .await;
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("boletos"),
        "{body}"
    );
    assert!(stack.fake.calls().is_empty());
}

/// NM-6: the JSON-RPC errors the server raises itself speak pt-BR, with the protocol's codes
/// and `data` unchanged: an unknown tool, resource, prompt or method, bad params and a body
/// that is not JSON.
#[tokio::test]
async fn nm6_the_errors_the_server_raises_speak_pt_br() {
    let stack = Stack::start().await;
    let token = full_token();
    let cases = [
        (
            "tools/call",
            json!({"name": "billing_nope", "arguments": {}}),
            -32602,
            "Tool desconhecida: billing_nope",
        ),
        (
            "resources/read",
            json!({"uri": "kobana://billing/nope"}),
            -32002,
            "Recurso não encontrado",
        ),
        (
            "prompts/get",
            json!({"name": "no_such_prompt"}),
            -32602,
            "Prompt desconhecido: no_such_prompt",
        ),
        (
            "tools/call",
            json!({"name": 5}),
            -32602,
            "Parâmetros inválidos para tools/call: `name` deve ser o nome da tool, um texto",
        ),
        (
            "nope/nope",
            json!({}),
            -32601,
            "Método não encontrado: nope/nope",
        ),
    ];
    for (method, params, code, message) in cases {
        let (_, body) = stack.legacy(&token, method, params.clone()).await;
        assert_eq!(body["error"]["code"], code, "{method} {params}: {body}");
        assert_eq!(
            body["error"]["message"], message,
            "{method} {params}: {body}"
        );
    }
    let (_, body) = stack
        .legacy(
            &token,
            "resources/read",
            json!({"uri": "kobana://billing/nope"}),
        )
        .await;
    assert_eq!(body["error"]["data"]["uri"], "kobana://billing/nope");
    let (status, body) = stack.post_full("{not json", &[]).await;
    assert_eq!((status, &body["error"]["code"]), (400, &json!(-32700)));
    assert_eq!(
        body["error"]["message"],
        "Erro de leitura: o corpo não é um JSON válido"
    );
}
