//! Data-like corpus: header abuse in both eras (protocol-version and method/name header
//! mismatches, wrong `_meta`, foreign Host and Origin), each with the exact answer it must get.

use base64::Engine as _;
use fake_kobana::full_token;
use serde_json::{Value, json};

use super::cases::*;

/// Headers that contradict the body, wrong `_meta`, content negotiation, authorization,
/// `Host` and `Origin`.
pub fn header_abuse(port: u16) -> Vec<Case> {
    let tools_list = |id: i64| modern(json!(id), "tools/list", json!({}));
    let org = "billing_organization_get";
    let call = |id: i64| {
        modern(
            json!(id),
            "tools/call",
            json!({"name": org, "arguments": {}}),
        )
    };
    let with_meta = |id: i64, meta: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta}})
            .to_string()
            .into_bytes()
    };
    let ping = || legacy(json!(9), "ping", json!({}));
    let mut meta_2099 = meta();
    meta_2099["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let mut meta_garbage = meta();
    meta_garbage["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let mut meta_number = meta();
    meta_number["io.modelcontextprotocol/protocolVersion"] = json!(20_260_728);
    let mut meta_caps_string = meta();
    meta_caps_string["io.modelcontextprotocol/clientCapabilities"] = json!("yes");
    let mut meta_no_caps = meta();
    meta_no_caps
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let expired = fake_kobana::expired_token();
    let init = |version: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "x", "version": "0"}}})
        .to_string()
        .into_bytes()
    };
    let bearer = |token: &str| {
        let mut value = b"Bearer ".to_vec();
        value.extend_from_slice(token.as_bytes());
        value
    };

    let mut cases = vec![
        case(
            "modern: no MCP-Protocol-Version header",
            tools_list(1),
            vec![set("mcp-method", "tools/list")],
            rpc(400, HEADER_MISMATCH, json!(1)),
        ),
        case(
            "modern: header names 2025, _meta 2026",
            tools_list(2),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("mcp-method", "tools/list"),
            ],
            rpc(400, HEADER_MISMATCH, json!(2)),
        ),
        case(
            "modern: unsupported version 2099-01-01",
            with_meta(3, meta_2099),
            vec![
                set("mcp-protocol-version", "2099-01-01"),
                set("mcp-method", "tools/list"),
            ],
            rpc(400, UNSUPPORTED_VERSION, json!(3)),
        ),
        case(
            "modern: garbage version v999.0.0",
            with_meta(4, meta_garbage),
            vec![
                set("mcp-protocol-version", "v999.0.0"),
                set("mcp-method", "tools/list"),
            ],
            rpc(400, UNSUPPORTED_VERSION, json!(4)),
        ),
        case(
            "modern: Mcp-Method missing",
            tools_list(5),
            vec![set("mcp-protocol-version", MODERN)],
            rpc(400, HEADER_MISMATCH, json!(5)),
        ),
        case(
            "modern: Mcp-Method in upper case",
            tools_list(6),
            modern_headers("TOOLS/LIST", None),
            rpc(400, HEADER_MISMATCH, json!(6)),
        ),
        case(
            "modern: Mcp-Method names another method",
            tools_list(7),
            modern_headers("prompts/list", None),
            rpc(400, HEADER_MISMATCH, json!(7)),
        ),
        case(
            "modern: Mcp-Method given twice, differently",
            tools_list(8),
            vec![
                set("mcp-protocol-version", MODERN),
                set("mcp-method", "tools/list"),
                H::Append("mcp-method", b"prompts/list".to_vec()),
            ],
            rpc(400, HEADER_MISMATCH, json!(8)),
        ),
        case(
            "modern: Mcp-Name missing on tools/call",
            call(9),
            modern_headers("tools/call", None),
            rpc(400, HEADER_MISMATCH, json!(9)),
        ),
        case(
            "modern: Mcp-Name names another tool",
            call(10),
            modern_headers("tools/call", Some("billing_customers_list")),
            rpc(400, HEADER_MISMATCH, json!(10)),
        ),
        case(
            "modern: Mcp-Name base64-encoded is decoded",
            call(11),
            vec![
                set("mcp-protocol-version", MODERN),
                set("mcp-method", "tools/call"),
                set(
                    "mcp-name",
                    format!(
                        "=?base64?{}?=",
                        base64::engine::general_purpose::STANDARD.encode(org)
                    ),
                ),
            ],
            Expect::Result(json!(11)),
        ),
        case(
            "modern: Mcp-Name with broken base64",
            call(12),
            vec![
                set("mcp-protocol-version", MODERN),
                set("mcp-method", "tools/call"),
                set("mcp-name", "=?base64?!!!?="),
            ],
            rpc(400, HEADER_MISMATCH, json!(12)),
        ),
        case(
            "modern: Mcp-Name with surrounding whitespace is trimmed",
            call(13),
            vec![
                set("mcp-protocol-version", MODERN),
                set("mcp-method", "tools/call"),
                set("mcp-name", format!("  {org}\t")),
            ],
            Expect::Result(json!(13)),
        ),
        case(
            "modern: Mcp-Name with a non-UTF-8 byte",
            call(14),
            vec![
                set("mcp-protocol-version", MODERN),
                set("mcp-method", "tools/call"),
                set("mcp-name", b"billing_\xffrganization_get"),
            ],
            rpc(400, HEADER_MISMATCH, json!(14)),
        ),
        case(
            "modern: Mcp-Name of 60 KB",
            call(15),
            vec![
                set("mcp-protocol-version", MODERN),
                set("mcp-method", "tools/call"),
                set("mcp-name", "x".repeat(60_000)),
            ],
            rpc(400, HEADER_MISMATCH, json!(15)),
        ),
        case(
            "modern: resources/read Mcp-Name names another uri",
            modern(
                json!(16),
                "resources/read",
                json!({"uri": "kobana://billing/organization"}),
            ),
            modern_headers("resources/read", Some("kobana://billing/schemas")),
            rpc(400, HEADER_MISMATCH, json!(16)),
        ),
        case(
            "modern: prompts/get without Mcp-Name",
            modern(
                json!(17),
                "prompts/get",
                json!({"name": "review_pending_nfes"}),
            ),
            modern_headers("prompts/get", None),
            rpc(400, HEADER_MISMATCH, json!(17)),
        ),
        case(
            "modern: header without _meta",
            legacy(json!(18), "tools/list", json!({})),
            modern_headers("tools/list", None),
            rpc(400, INVALID_PARAMS, json!(18)),
        ),
        case(
            "modern: _meta is a string",
            with_meta(19, json!("2026-07-28")),
            modern_headers("tools/list", None),
            rpc(400, INVALID_PARAMS, json!(19)),
        ),
        case(
            "modern: _meta without clientCapabilities",
            with_meta(20, meta_no_caps),
            modern_headers("tools/list", None),
            rpc(400, INVALID_PARAMS, json!(20)),
        ),
        case(
            "modern: clientCapabilities is a string",
            with_meta(21, meta_caps_string),
            modern_headers("tools/list", None),
            rpc(400, INVALID_PARAMS, json!(21)),
        ),
        case(
            "modern: protocolVersion is a number",
            with_meta(22, meta_number),
            modern_headers("tools/list", None),
            rpc(400, INVALID_PARAMS, json!(22)),
        ),
        case(
            "modern: ping is not a 2026 method",
            modern(json!(23), "ping", json!({})),
            modern_headers("ping", None),
            rpc(404, METHOD_NOT_FOUND, json!(23)),
        ),
        case(
            "modern: resources/subscribe is not served",
            modern(
                json!(24),
                "resources/subscribe",
                json!({"uri": "kobana://billing/organization"}),
            ),
            modern_headers("resources/subscribe", Some("kobana://billing/organization")),
            rpc(404, METHOD_NOT_FOUND, json!(24)),
        ),
        case(
            "modern: method of 10k characters",
            modern(json!(25), &"m".repeat(10_000), json!({})),
            modern_headers(&"m".repeat(10_000), None),
            rpc(404, METHOD_NOT_FOUND, json!(25)),
        ),
        case(
            "legacy: initialize under a 2026 header",
            init(LEGACY),
            vec![set("mcp-protocol-version", MODERN)],
            rpc(400, HEADER_MISMATCH, json!(1)),
        ),
        case(
            "legacy: initialize header and body disagree",
            init(LEGACY),
            vec![set("mcp-protocol-version", "2025-06-18")],
            rpc(400, INVALID_REQUEST, json!(1)),
        ),
        case(
            "legacy: unknown version header",
            ping(),
            vec![set("mcp-protocol-version", "2024-01-01")],
            Expect::Status(400),
        ),
        case(
            "legacy: version header 'latest'",
            ping(),
            vec![set("mcp-protocol-version", "latest")],
            Expect::Status(400),
        ),
        case(
            "legacy: logging/setLevel is not served",
            legacy(json!(26), "logging/setLevel", json!({"level": "debug"})),
            legacy_headers(),
            rpc(200, METHOD_NOT_FOUND, json!(26)),
        ),
        case(
            "legacy: resources/subscribe is not served",
            legacy(
                json!(27),
                "resources/subscribe",
                json!({"uri": "kobana://billing/organization"}),
            ),
            legacy_headers(),
            rpc(200, METHOD_NOT_FOUND, json!(27)),
        ),
        case(
            "legacy: method in upper case",
            legacy(json!(28), "TOOLS/LIST", json!({})),
            legacy_headers(),
            rpc(200, METHOD_NOT_FOUND, json!(28)),
        ),
        case(
            "legacy: method with NUL",
            legacy(json!(29), "tools/list\u{0}", json!({})),
            legacy_headers(),
            rpc(200, METHOD_NOT_FOUND, json!(29)),
        ),
        case(
            "legacy: rpc.discover",
            legacy(json!(30), "rpc.discover", json!({})),
            legacy_headers(),
            rpc(200, METHOD_NOT_FOUND, json!(30)),
        ),
        case(
            "legacy: X-MCP-Toolsets names an unknown toolset",
            legacy(json!(31), "tools/list", json!({})),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("x-mcp-toolsets", "invoices,../admin"),
            ],
            rpc(200, INVALID_REQUEST, json!(31)),
        ),
        case(
            "legacy: Mcp-Session-Id is ignored",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("mcp-session-id", "../../etc/passwd"),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "legacy: Last-Event-ID is ignored",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("last-event-id", "999999"),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "content type missing",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                H::Remove("content-type"),
            ],
            Expect::Status(415),
        ),
        case(
            "content type text/plain",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("content-type", "text/plain"),
            ],
            Expect::Status(415),
        ),
        case(
            "content type application/jsonp",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("content-type", "application/jsonp"),
            ],
            Expect::Status(415),
        ),
        case(
            "content type with charset",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("content-type", "application/json; charset=utf-8"),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "content type in upper case",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("content-type", "APPLICATION/JSON"),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "accept missing",
            ping(),
            vec![set("mcp-protocol-version", LEGACY), H::Remove("accept")],
            Expect::Status(406),
        ),
        case(
            "accept text/html",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("accept", "text/html"),
            ],
            Expect::Status(406),
        ),
        case(
            "accept json only",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("accept", "application/json"),
            ],
            Expect::Status(406),
        ),
        case(
            "authorization: 9,000-character token",
            ping(),
            vec![set("authorization", bearer(&"a".repeat(9_000)))],
            Expect::Status(401),
        ),
        case(
            "authorization: tab inside the token",
            ping(),
            vec![set("authorization", "Bearer abc\tdef")],
            Expect::Status(401),
        ),
        case(
            "authorization: Basic",
            ping(),
            vec![set("authorization", "Basic Zm9vOmJhcg==")],
            Expect::Status(401),
        ),
        case(
            "authorization: empty",
            ping(),
            vec![set("authorization", "")],
            Expect::Status(401),
        ),
        case(
            "authorization: non-UTF-8 byte",
            ping(),
            vec![set("authorization", b"Bearer abc\xffdef")],
            Expect::Status(401),
        ),
        case(
            "authorization: expired JWT",
            ping(),
            vec![set("authorization", bearer(&expired))],
            Expect::Status(401),
        ),
        case(
            "authorization: missing",
            ping(),
            vec![H::Remove("authorization")],
            Expect::Status(401),
        ),
        case(
            "authorization: scheme in lower case",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("authorization", format!("bearer {}", full_token())),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "host: foreign",
            ping(),
            vec![set("host", "evil.example.com")],
            Expect::Status(403),
        ),
        case(
            "host: loopback name as a subdomain",
            ping(),
            vec![set("host", format!("localhost.evil.example.com:{port}"))],
            Expect::Status(403),
        ),
        case(
            "host: loopback address as a subdomain",
            ping(),
            vec![set("host", format!("127.0.0.1.nip.io:{port}"))],
            Expect::Status(403),
        ),
        case(
            "host: 0.0.0.0",
            ping(),
            vec![set("host", format!("0.0.0.0:{port}"))],
            Expect::Status(403),
        ),
        case(
            "host: decimal loopback",
            ping(),
            vec![set("host", format!("2130706433:{port}"))],
            Expect::Status(403),
        ),
        case(
            "host: localhost in upper case",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("host", format!("LOCALHOST:{port}")),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "host: IPv6 loopback",
            ping(),
            vec![
                set("mcp-protocol-version", LEGACY),
                set("host", format!("[::1]:{port}")),
            ],
            Expect::Result(json!(9)),
        ),
        case(
            "origin: foreign",
            ping(),
            vec![set("origin", "https://evil.example.com")],
            Expect::Status(403),
        ),
        case(
            "origin: null",
            ping(),
            vec![set("origin", "null")],
            Expect::Status(403),
        ),
        case(
            "origin: file",
            ping(),
            vec![set("origin", "file://")],
            Expect::Status(403),
        ),
        case(
            "origin: garbage",
            ping(),
            vec![set("origin", "::::")],
            Expect::Status(403),
        ),
    ];
    cases.push(case(
        "origin: foreign, body not JSON (refused before parsing)",
        "{not json",
        vec![set("origin", "https://evil.example.com")],
        Expect::Status(403),
    ));
    cases.push(case(
        "host: foreign, body not JSON (refused before parsing)",
        "{not json",
        vec![set("host", "evil.example.com")],
        Expect::Status(403),
    ));
    cases.push(case(
        "origin: foreign, batch body (refused before parsing)",
        "[1,2]",
        vec![set("origin", "https://evil.example.com")],
        Expect::Status(403),
    ));
    cases
}
