//! RP-1 (HD-1): any body up to the limit is cheap, under any bearer. The review's body — 1 MiB
//! of tiny nested objects sent with `Bearer x` — and the worst body of every shape the front
//! still reads (`fake_kobana::bodies`) go to the real server binary as its own process
//! (`crate::hostile::support::process`), and each one's peak RSS growth and CPU are measured, alone and
//! four at once. The targets (32 MB and 100 ms alone, 64 MB four at once, release build) are
//! proven by the benchmark (`bench/run.sh`, section 8); the bounds here are regression guards
//! with a debug build's margins. Before the scan, the review's body alone grew the server by
//! about 270 MB.

use fake_kobana::bodies::{Body, Bounds, bodies};
use kobana_mcp::config::DEFAULT_MAX_BODY_BYTES;
use kobana_mcp::http::{MAX_BODY_DEPTH, MAX_BODY_NODES};
use serde_json::Value;

use crate::hostile::support::process::started;

/// Peak RSS growth one body may cause (the target, kept for a debug build too).
const MAX_RSS_GROWTH_MIB: f64 = 32.0;
/// Peak RSS growth four bodies at once may cause.
const MAX_RSS_GROWTH_FOUR_MIB: f64 = 64.0;
/// CPU one body may cost in a debug build (the release target is 100 ms).
const MAX_CPU_MS_DEBUG: u64 = 1_000;
/// The bearer of the review: any text passes authentication (claims are read, not verified).
const ANY_BEARER: &str = "x";

fn bounds() -> Bounds {
    Bounds {
        bytes: DEFAULT_MAX_BODY_BYTES,
        depth: MAX_BODY_DEPTH,
        nodes: MAX_BODY_NODES,
    }
}

/// The answer a body must get: the scan's refusal for one over the bounds; for the others a
/// JSON-RPC answer (a tool error, a list, a -32602) or the 202 of a notification.
fn check_answer(body: &Body, status: u16, answer: &Value) {
    if body.over_bounds {
        assert_eq!(status, 400, "{}: {answer:.300}", body.name);
        assert_eq!(
            answer["error"]["code"], -32600,
            "{}: {answer:.300}",
            body.name
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("valores"), "{}: {message}", body.name);
    } else if body.name.contains("notification") {
        assert_eq!(status, 202, "{}: {answer:.300}", body.name);
    } else {
        assert_eq!(status, 200, "{}: {answer:.300}", body.name);
        assert_eq!(answer["id"], 1, "{}: {answer:.300}", body.name);
    }
}

#[tokio::test]
async fn rp1_hd1_any_body_within_the_limit_under_any_bearer_costs_little_memory_and_cpu() {
    let (_upstream, server) = started(&[]).await;
    for body in bodies(bounds()) {
        assert!(body.bytes.len() <= DEFAULT_MAX_BODY_BYTES, "{}", body.name);
        let ((status, answer), cost) = server
            .measure(server.raw_as(ANY_BEARER, body.bytes.clone()))
            .await;
        eprintln!("RP-1 {}: {} B, {cost:?}", body.name, body.bytes.len());
        check_answer(&body, status, &answer);
        assert!(
            cost.rss_growth_mib <= MAX_RSS_GROWTH_MIB,
            "{}: {cost:?}",
            body.name
        );
        assert!(cost.cpu_ms <= MAX_CPU_MS_DEBUG, "{}: {cost:?}", body.name);
    }
}

#[tokio::test]
async fn rp1_hd1_four_of_the_worst_bodies_at_once_stay_within_64_mib() {
    let (_upstream, server) = started(&[]).await;
    let all = bodies(bounds());
    // The review's body, and the three shapes that build the most: objects, members, strings.
    let heaviest: Vec<&Body> = all
        .iter()
        .filter(|b| {
            b.over_bounds
                || [
                    "nested objects",
                    "one repeated member name",
                    "many long strings",
                ]
                .contains(&b.name)
        })
        .collect();
    assert_eq!(heaviest.len(), 4);
    let sends = heaviest
        .iter()
        .map(|body| server.raw_as(ANY_BEARER, body.bytes.clone()));
    let (answers, cost) = server.measure(futures_util::future::join_all(sends)).await;
    eprintln!("RP-1 four at once: {cost:?}");
    for (body, (status, answer)) in heaviest.iter().zip(&answers) {
        check_answer(body, *status, answer);
    }
    assert!(cost.rss_growth_mib <= MAX_RSS_GROWTH_FOUR_MIB, "{cost:?}");
}
