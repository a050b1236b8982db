//! Data-like corpus: hostile ids, tool arguments and resource URIs, each with the exact answer it
//! must get.

use fake_kobana::fixtures::ids::{INV_OPEN, PADARIA, RAFAEL, UNKNOWN};
use serde_json::{Value, json};

use super::cases::*;

/// Ids no Kobana record has: traversal, encodings, unicode look-alikes, injection, huge.
pub fn hostile_ids() -> Vec<(&'static str, Value)> {
    vec![
        ("traversal", json!("../organization")),
        ("dot dot", json!("..")),
        ("dot", json!(".")),
        ("encoded traversal", json!("%2e%2e%2forganization")),
        (
            "uuid then traversal",
            json!(format!("{INV_OPEN}/../../organization")),
        ),
        (
            "uuid then query",
            json!(format!("{INV_OPEN}?per_page=1000")),
        ),
        ("uuid then fragment", json!(format!("{INV_OPEN}#x"))),
        (
            "uuid then CRLF header",
            json!(format!("{INV_OPEN}\r\nX-Injected: 1")),
        ),
        (
            "fullwidth digits",
            json!("４７３７８１９０-96da-4dac-b2ff-5d2a386ecbe0"),
        ),
        ("zero-width space", json!(format!("{INV_OPEN}\u{200b}"))),
        (
            "right-to-left override",
            json!("\u{202e}0ebce3862a5d-ffb2-cad4-ad69-09187374"),
        ),
        (
            "NUL inside",
            json!("47378190-96da-4dac-b2ff-5d2a386ecb\u{0}0"),
        ),
        ("100k characters", json!("a".repeat(100_000))),
        ("empty", json!("")),
        ("blank", json!("   ")),
        ("number", json!(5)),
        ("null", Value::Null),
        ("array", json!([INV_OPEN])),
        ("operator object", json!({"$ne": null})),
    ]
}

/// Tool-argument abuse: each is an `isError` result (T-4), never a protocol error, and none
/// reaches Kobana. `id_tools` are the tools that take an `id`.
pub fn hostile_tool_arguments(id_tools: &[String]) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut n = 0;
    let mut push = |name: String, tool: &str, args: Value| {
        n += 1;
        cases.push(case(
            name,
            legacy(
                json!(n),
                "tools/call",
                json!({"name": tool, "arguments": args}),
            ),
            legacy_headers(),
            Expect::ToolError,
        ));
    };
    for tool in id_tools {
        for (label, id) in hostile_ids() {
            push(format!("{tool} id {label}"), tool, json!({"id": id}));
        }
    }
    let uuid_fields: [(&str, &str); 6] = [
        ("billing_invoices_list", "billing_account_id"),
        ("billing_invoices_list", "subscription_id"),
        ("billing_payments_list", "invoice_id"),
        ("billing_nfes_list", "invoice_id"),
        ("billing_subscriptions_list", "billing_account_id"),
        ("billing_subscriptions_list", "plan_id"),
    ];
    for (tool, field) in uuid_fields {
        for value in ["../organization", "x&per_page=100", "1 OR 1=1"] {
            push(
                format!("{tool} {field} {value:?}"),
                tool,
                json!({ field: value }),
            );
        }
    }
    // The generic tools: hostile ids in `path`, hostile names and values everywhere else.
    for (label, id) in hostile_ids() {
        push(
            format!("billing_operations_read path.id {label}"),
            "billing_operations_read",
            json!({"operation": "get-invoices-id", "path": {"id": id}}),
        );
    }
    for (label, tool, args) in [
        (
            "unknown operation",
            "billing_operations_read",
            json!({"operation": "../admin"}),
        ),
        (
            "operation as a number",
            "billing_operations_read",
            json!({"operation": 5}),
        ),
        (
            "unknown query name",
            "billing_operations_read",
            json!({"operation": "get-invoices", "query": {"__proto__": {"admin": true}}}),
        ),
        (
            "operator object in query",
            "billing_operations_read",
            json!({"operation": "get-invoices", "query": {"status": {"$ne": null}}}),
        ),
        (
            "4,000 unknown body members",
            "billing_operations_write",
            json!({"operation": "patch-customers-id", "path": {"id": PADARIA},
                "body": Value::Object((0..4_000).map(|i| (format!("k{i}"), json!(i))).collect())}),
        ),
        (
            "20 nested levels in the body",
            "billing_operations_write",
            json!({"operation": "patch-customers-id", "path": {"id": PADARIA},
                "body": {"nickname": serde_json::from_str::<Value>(&format!("{}1{}", "[".repeat(20), "]".repeat(20))).unwrap()}}),
        ),
        (
            "a destructive row through the read tool",
            "billing_operations_read",
            json!({"operation": "post-invoices-id-void", "path": {"id": INV_OPEN}}),
        ),
        (
            "an excluded row",
            "billing_operations_write_destructive",
            json!({"operation": "post-payments", "body": {"card": {"number": "4111111111111111"}}}),
        ),
    ] {
        push(format!("{tool} {label}"), tool, args);
    }
    let list = "billing_customers_list";
    for (label, args) in [
        ("per_page 0", json!({"per_page": 0})),
        ("per_page 101", json!({"per_page": 101})),
        ("per_page negative", json!({"per_page": -1})),
        ("per_page 1e10", json!({"per_page": 1e10})),
        ("per_page string", json!({"per_page": "10"})),
        ("per_page fraction", json!({"per_page": 10.5})),
        ("page 0", json!({"page": 0})),
        ("page negative", json!({"page": -5})),
        ("page above u32", json!({"page": 4_294_967_296u64})),
        (
            "sort_by injection",
            json!({"sort_by": "name; DROP TABLE customers"}),
        ),
        (
            "sort_by not sortable",
            json!({"sort_by": "document_number"}),
        ),
        ("sort_order upper case", json!({"sort_order": "ASC"})),
        ("sort_order unknown", json!({"sort_order": "sideways"})),
        (
            "unknown argument __proto__",
            json!({"__proto__": {"admin": true}}),
        ),
        ("unknown argument constructor", json!({"constructor": 1})),
        (
            "4,000 unknown arguments",
            Value::Object((0..4_000).map(|i| (format!("k{i}"), json!(i))).collect()),
        ),
        (
            "20 nested levels",
            json!({"search": serde_json::from_str::<Value>(&format!("{}1{}", "[".repeat(20), "]".repeat(20))).unwrap()}),
        ),
        ("9,000-element array", json!({"search": vec![0; 9_000]})),
    ] {
        push(format!("{list} {label}"), list, args);
    }
    push(
        "billing_organization_get with an argument".into(),
        "billing_organization_get",
        json!({"x": 1}),
    );
    push(
        "billing_invoices_create with a traversal account".into(),
        "billing_invoices_create",
        json!({"billing_account_id": "../../organization", "due_date": "2026-12-01",
               "items": [{"description": "x", "amount_cents": 100}]}),
    );
    // Arguments past the front's byte scan (HD-1: 32 levels, 10,000 values and names) never
    // reach the tools: the message is refused unread.
    for (label, args) in [
        (
            "10,000 unknown arguments",
            Value::Object((0..10_000).map(|i| (format!("k{i}"), json!(i))).collect()),
        ),
        (
            "100 nested levels",
            json!({"search": serde_json::from_str::<Value>(&format!("{}1{}", "[".repeat(100), "]".repeat(100))).unwrap()}),
        ),
        ("100k-element array", json!({"search": vec![0; 100_000]})),
    ] {
        cases.push(case(
            format!("{list} {label}"),
            legacy(
                json!(0),
                "tools/call",
                json!({"name": list, "arguments": args}),
            ),
            legacy_headers(),
            rpc(400, INVALID_REQUEST, Value::Null),
        ));
    }
    cases
}

/// Resource URIs that name nothing: not found with `data.uri` in both eras.
pub fn hostile_uris() -> Vec<String> {
    let uuid = INV_OPEN;
    let mut uris: Vec<String> = [
        "kobana://billing/invoices/../organization",
        "kobana://billing/invoices/%2e%2e/organization",
        "kobana://billing/invoices/..%2Forganization",
        "kobana://billing/./organization",
        "kobana://billing//organization",
        "kobana://billing/organization/",
        "kobana://billing/organization?x=1",
        "kobana://billing/organization#frag",
        "KOBANA://billing/organization",
        "kobana://BILLING/organization",
        "kobana://billing/schemas/../../etc/passwd",
        "kobana://billing/schemas/%2e%2e",
        "kobana://billing/schemas/nope",
        "kobana://billing/nfes/x/zip",
        "kobana://billing/customers/crm-000202/../../organization",
        "kobana://billing/customers/",
        "kobana://billing/customers/a b",
        "kobana://billing/customers/ａｂｃ",
        "kobana://billing",
        "kobana://billing/",
        "kobana://",
        "kobana:",
        "",
        " ",
        "file:///etc/passwd",
        "http://127.0.0.1:1/v1/organization",
        "k\u{43e}bana://billing/organization",
        "kobana://billing/organization\u{0}",
        "kobana://billing/organization\u{200b}",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    uris.extend([
        format!("kobana://billing/invoices/{uuid}/pdf/../xml"),
        format!("kobana://billing/invoices/{uuid}%00"),
        format!("kobana://billing/invoices/{uuid}\u{0}"),
        format!("kobana://billing/invoices/\u{202e}{uuid}"),
        format!("kobana://billing/invoices/ {uuid}"),
        format!("kobana://billing/invoices/{}", "9".repeat(20_000)),
        format!("kobana://billing/invoices/{uuid}/pdf?download=1"),
        format!("kobana://billing/invoices/{UNKNOWN}"),
    ]);
    uris
}

pub fn hostile_uri_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, uri) in hostile_uris().into_iter().enumerate() {
        cases.push(case(
            format!("uri (2025) {uri:.60?}"),
            legacy(json!(i), "resources/read", json!({"uri": uri})),
            legacy_headers(),
            Expect::NotFound {
                modern: false,
                uri: uri.clone(),
            },
        ));
        cases.push(case(
            format!("uri (2026) {uri:.60?}"),
            modern(json!(i), "resources/read", json!({"uri": uri})),
            modern_headers("resources/read", Some(&uri)),
            Expect::NotFound { modern: true, uri },
        ));
    }
    cases
}

/// Values that get past the argument checks and reach Kobana or another path of the server —
/// an external id, a search text, a completion, a prompt's customer, a resource URI — each a
/// distinctive sentinel (`zqx`), some short or lower case, one with a raw newline and a bidi
/// override: the log scans look for every one of them (BW-3). Era 2025, each with its answer.
pub fn values_that_reach_kobana() -> Vec<Case> {
    let customer_uri = "kobana://billing/customers/zqx-ext-000778";
    let requests: Vec<(&str, Value, Expect)> = vec![
        (
            "prompts/get",
            json!({"name": "customer_overview",
                "arguments": {"customer_id": "zqxcpf-12345678909-maria.silva"}}),
            rpc(200, INVALID_PARAMS, json!(1)),
        ),
        (
            "prompts/get",
            json!({"name": "customer_overview",
                "arguments": {"customer_id": "Maria Zqx <maria.zqx@example.com> CPF 123.456.789-09"}}),
            rpc(200, INVALID_PARAMS, json!(2)),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "customer_overview"},
                "argument": {"name": "customer_id", "value": "zqxmaria.silva@example.com"}}),
            Expect::Result(json!(3)),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "kobana://billing/invoices/{id}"},
                "argument": {"name": "id", "value": "FAT-ZQX-2026-0042"}}),
            Expect::Result(json!(4)),
        ),
        (
            "tools/call",
            json!({"name": "billing_customers_get", "arguments": {"id": "zqx-ext-000777"}}),
            Expect::ToolError,
        ),
        (
            "tools/call",
            json!({"name": "billing_customers_list",
                "arguments": {"search": "Zqx Maria Silva 123.456.789-09"}}),
            Expect::Result(json!(6)),
        ),
        (
            "tools/call",
            json!({"name": "billing_invoices_list",
                "arguments": {"search": "zqx line\nFORGED search line\u{202e}"}}),
            Expect::Result(json!(7)),
        ),
        (
            "tools/call",
            json!({"name": "billing_customers_list", "arguments": {"search": "zqxq"}}),
            Expect::Result(json!(8)),
        ),
        (
            "tools/call",
            json!({"name": "billing_operations_read", "arguments": {"operation": "get-customers",
                "query": {"search": "Zqxgen Maria Souza 987.654.321-00"}}}),
            Expect::Result(json!(9)),
        ),
        (
            "tools/call",
            json!({"name": "billing_operations_read", "arguments": {"operation": "get-customers-id",
                "path": {"id": "zqx-gen-000779"}}}),
            Expect::ToolError,
        ),
        (
            "tools/call",
            json!({"name": "billing_operations_write", "arguments": {"operation": "patch-customers-id",
                "path": {"id": RAFAEL},
                "body": {"nickname": "Zqxgen apelido\nFORGED nickname line\u{202e}"}}}),
            Expect::Result(json!(11)),
        ),
        (
            "resources/read",
            json!({"uri": customer_uri}),
            Expect::NotFound {
                modern: false,
                uri: customer_uri.to_owned(),
            },
        ),
    ];
    requests
        .into_iter()
        .enumerate()
        .map(|(i, (method, params, expect))| {
            case(
                format!("reaches Kobana: {method} #{}", i + 1),
                legacy(json!(i + 1), method, params),
                legacy_headers(),
                expect,
            )
        })
        .collect()
}

/// The strings a case sends as values: every string in its `params.arguments`, its
/// `params.argument.value` (a completion) and its `params.uri`.
pub fn sent_strings(case: &Case) -> Vec<String> {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let Ok(body) = serde_json::from_slice::<Value>(&case.body) else {
        return Vec::new();
    };
    let params = &body["params"];
    let mut out = Vec::new();
    strings(&params["arguments"], &mut out);
    strings(&params["argument"]["value"], &mut out);
    strings(&params["uri"], &mut out);
    out
}
