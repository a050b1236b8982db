//! The one HTTP/TLS stack of the binary: reqwest over rustls with the *ring* provider and
//! Mozilla's root certificates compiled in.
//!
//! Both Kobana ([`crate::kobana`]) and DynamoDB ([`aws`]) go through it. Compiled-in roots
//! mean no certificate files are read at run time (a cold start that reaches Kobana used to
//! read ~290 of them); one stack instead of the AWS SDK's own hyper/rustls/aws-lc client
//! keeps the Lambda binary small.

pub mod aws;

use std::sync::Arc;

/// A rustls client configuration: ring, TLS 1.2 and 1.3, the webpki (Mozilla) roots.
pub fn tls_config() -> rustls::ClientConfig {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// A reqwest builder using [`tls_config`], with the settings both upstreams share.
pub fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls_config())
        .tcp_nodelay(true)
        .pool_idle_timeout(std::time::Duration::from_secs(60))
        .redirect(reqwest::redirect::Policy::none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_config_has_the_compiled_in_roots_and_builds_a_client() {
        let config = tls_config();
        assert!(config.alpn_protocols.is_empty());
        assert!(webpki_roots::TLS_SERVER_ROOTS.len() > 100);
        client_builder().build().expect("a client");
    }
}
