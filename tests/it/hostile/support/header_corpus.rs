//! Header abuse in both eras (protocol-version and method/name header mismatches, wrong
//! `_meta`, foreign Host and Origin), each with the exact answer it must get: the data is
//! `tests/fixtures/hostile/headers.json`.

use super::cases::{Case, case};
use super::corpus::{Vars, cases};

/// Headers that contradict the body, wrong `_meta`, content negotiation, authorization,
/// `Host` and `Origin`, against a server on `port`.
pub fn header_abuse(port: u16) -> Vec<Case> {
    let vars = Vars::default().with("port", port);
    cases("headers", "header_abuse")
        .iter()
        .map(|entry| {
            case(
                entry["name"].as_str().expect("a name"),
                vars.bytes(&entry["body"]),
                vars.headers(&entry["headers"]),
                vars.expect(&entry["expect"]),
            )
        })
        .collect()
}
