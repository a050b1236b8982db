//! What a 401 tells the person about the token this server needs (RK-5), in
//! pt-BR and English: a billing API token from Kobana's Faturamento Automático, sent in the
//! `Authorization` header, from the environment (sandbox or production) this server talks to.
//!
//! No authorization server we know of issues billing tokens (the banking OAuth login at
//! `app.kobana.com.br` does not), so by default the token is one the person creates and sets
//! in the client's headers.

use serde_json::{Value, json};

use crate::config::Config;

/// The header form, as the person types it into a client's configuration.
pub(crate) const HEADER_FORM: &str = "Authorization: Bearer <token>";
/// Kobana's production billing API.
const PRODUCTION_API: &str = "https://api.billing.kobana.com.br";

/// The Kobana environment behind `api_url`: `(pt-BR, English)` names, or `None` for another
/// host (a stand-in, a staging API).
fn environment(api_url: &str) -> Option<(&'static str, &'static str)> {
    let host = api_url.split_once("://").map_or(api_url, |(_, rest)| rest);
    if api_url == PRODUCTION_API {
        Some(("produção", "production"))
    } else if host.starts_with("api.billing.sandbox.") || host.starts_with("api-sandbox.billing.") {
        Some(("sandbox", "sandbox"))
    } else {
        None
    }
}

/// The help object of a 401 body.
pub(crate) fn help(config: &Config) -> Value {
    let url = &config.kobana_api_url;
    let environment = environment(url);
    let (pt_env, en_env) = match environment {
        Some((pt, en)) => (
            format!("o ambiente {pt} ({url})"),
            format!("the {en} environment ({url})"),
        ),
        None => (format!("a API em {url}"), format!("the API at {url}")),
    };
    let pt = format!(
        "Este servidor MCP precisa de um token de API do Faturamento Automático da Kobana. \
         Envie-o no cabeçalho {HEADER_FORM} (configure esse cabeçalho no seu cliente MCP). \
         É o próprio Faturamento Automático quem emite esse token, para uma organização: peça \
         um a quem administra o Faturamento Automático da sua empresa. Tokens do sandbox e de \
         produção são diferentes: este servidor usa \
         {pt_env}. Um token do Gateway Bancário, ou do login OAuth de app.kobana.com.br, não \
         vale para o Faturamento Automático."
    );
    let en = format!(
        "This MCP server needs an API token from Kobana's Automatic Billing (Faturamento \
         Automático). Send it in the header {HEADER_FORM} (set that header in your MCP \
         client). Automatic Billing itself issues that token, for one organization: ask \
         whoever administers Automatic Billing for your company. Sandbox and production tokens \
         differ: this server uses \
         {en_env}. A Kobana banking (Gateway Bancário) token, or one from the OAuth login at \
         app.kobana.com.br, does not work for Automatic Billing."
    );
    json!({
        "header": HEADER_FORM,
        "kobana_api_url": url,
        "environment": environment.map(|(_, en)| en),
        "pt-BR": pt,
        "en": en,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_the_header_and_the_environment_in_both_languages() {
        let mut config = Config::default();
        let sandbox = help(&config);
        assert_eq!(sandbox["environment"], "sandbox");
        assert!(
            sandbox["pt-BR"]
                .as_str()
                .unwrap()
                .contains("ambiente sandbox")
        );
        assert!(sandbox["en"].as_str().unwrap().contains(HEADER_FORM));
        config.kobana_api_url = PRODUCTION_API.into();
        let production = help(&config);
        assert_eq!(production["environment"], "production");
        assert!(
            production["pt-BR"]
                .as_str()
                .unwrap()
                .contains("ambiente produção")
        );
        config.kobana_api_url = "http://127.0.0.1:9".into();
        let other = help(&config);
        assert!(other["environment"].is_null());
        assert!(
            other["en"]
                .as_str()
                .unwrap()
                .contains("the API at http://127.0.0.1:9")
        );
    }
}
