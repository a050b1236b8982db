//! The authorization endpoint: the page where a person pastes a billing API token.
//!
//! `GET` checks the request (client, redirect URI, PKCE S256, resource) and shows the token
//! page; anything wrong with it is said on our own page, never sent to the client's redirect
//! URI (TF-2): until the person has acted, nothing leaves for an address a stranger registered.
//! Its form carries a sealed, ten-minute form token bound to that checked request (the CSRF
//! defence: nothing else is accepted back), and a post is refused when the browser says it
//! comes from another site. The first post proves the token with one Kobana read
//! (`GET /v1/organization`, sent once, never retried: TF-4) and shows which organization it
//! belongs to; the token then rides in the next form token, sealed, never in a URL, with a
//! fresh id. Only "Conectar" issues a code, and only once per form (that id's conditional
//! write in the confirmation store), with the access the person chose (`access`: `full` or
//! `read`): sealed, 60 s, recorded in the store so it is used once, and sent back with `state`
//! unchanged and `iss` (RFC 9207). "Cancelar", the person's own act, goes back to the client
//! as `access_denied`.

use http::{HeaderValue, Response, StatusCode, header};
use serde::{Deserialize, Serialize};

use super::client::{Client, form_action_source, registered};
use super::endpoint::Urls;
use super::page::{self, Context, Organization};
use super::params::{Params, body, content_type_is};
use super::seal::{Purpose, Sealer};
use super::token::{CODE_TTL_SECS, CodeGrant};
use super::{FrontRequest, TokenFront, cimd};
use crate::access::slugs::ORGANIZATION;
use crate::access::{AuthError, BearerToken, Consent, Principal};
use crate::body::ResponseBody;
use crate::kobana::KobanaError;

/// How long the page's form stays usable.
pub const FORM_TTL_SECS: i64 = 600;
/// Largest form post read (a token is at most 8 KiB; the form token a few).
pub const MAX_FORM_BYTES: usize = 32 * 1024;
/// Longest `state` carried back.
pub const MAX_STATE_CHARS: usize = 1024;
/// Longest token accepted from the page (TF-5): a billing JWT is well under 1 KiB, and at
/// 4 KiB a code stays under 6 KB in the redirect URL and an access token under 6 KB in a
/// header (API Gateway takes 10 KB of headers in all).
pub const MAX_TOKEN_CHARS: usize = 4096;
/// Prefix of a confirmation form's single-use mark in the confirmation store.
const FORM_STORE_PREFIX: &str = "tff1_";

/// An authorization request that passed every check, as the form tokens carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    #[serde(rename = "c")]
    client_id: String,
    #[serde(rename = "n", default, skip_serializing_if = "Option::is_none")]
    client_name: Option<String>,
    #[serde(rename = "r")]
    redirect_uri: String,
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    state: Option<String>,
    #[serde(rename = "p")]
    code_challenge: String,
    #[serde(rename = "o")]
    resource: String,
}

/// The page's hidden form: the request, and once proven the token and its organization.
#[derive(Debug, Serialize, Deserialize)]
struct FormToken {
    #[serde(rename = "q")]
    request: Checked,
    #[serde(rename = "e")]
    expires_at: i64,
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    #[serde(rename = "g", default, skip_serializing_if = "Option::is_none")]
    organization: Option<Organization>,
    /// The confirmation form's id (set with the token): "Conectar" marks it used, once.
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
}

/// Where the person goes back to: the redirect URI's scheme and host (and port) exactly as
/// the client registered them (`https://claude.ai`, `cursor://anysphere.cursor-retrieval`,
/// `com.example.app:`), so a look-alike host under another scheme shows its scheme (TF-3).
fn returns_to(redirect_uri: &str) -> &str {
    let Some(colon) = redirect_uri.find(':') else {
        return redirect_uri;
    };
    let rest = &redirect_uri[colon + 1..];
    match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find(['/', '?']).unwrap_or(after.len());
            &redirect_uri[..colon + 3 + end]
        }
        None => &redirect_uri[..=colon],
    }
}

/// The redirect to the client: `pairs` added to its redirect URI, `state` and `iss` always.
fn back_to_client(
    checked: &Checked,
    issuer: &str,
    pairs: &[(&str, &str)],
) -> Response<ResponseBody> {
    let mut url = match reqwest::Url::parse(&checked.redirect_uri) {
        Ok(url) => url,
        Err(_) => {
            return page::error_page(StatusCode::BAD_REQUEST, "Endereço de retorno inválido.");
        }
    };
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in pairs {
            query.append_pair(name, value);
        }
        if let Some(state) = &checked.state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", issuer);
    }
    let mut response = crate::body::fixed(StatusCode::SEE_OTHER, "text/plain", "");
    let headers = response.headers_mut();
    match HeaderValue::from_str(url.as_str()) {
        Ok(location) => headers.insert(header::LOCATION, location),
        Err(_) => {
            return page::error_page(StatusCode::BAD_REQUEST, "Endereço de retorno inválido.");
        }
    };
    page::protect(headers);
    response
}

fn error_back(
    checked: &Checked,
    issuer: &str,
    code: &str,
    description: &str,
) -> Response<ResponseBody> {
    tracing::info!(error = code, "token front: authorization request refused");
    back_to_client(
        checked,
        issuer,
        &[("error", code), ("error_description", description)],
    )
}

impl TokenFront {
    /// Renders the token or the confirmation page for `form`.
    fn render(
        &self,
        sealer: &Sealer,
        form: &FormToken,
        notice: Option<&str>,
    ) -> Response<ResponseBody> {
        let Ok(sealed) = sealer.seal(Purpose::Form, form) else {
            return unavailable();
        };
        let request = &form.request;
        let action = form_action_source(&request.redirect_uri);
        let ctx = Context {
            client_name: request.client_name.as_deref(),
            client_host: cimd::client_host(&request.client_id),
            returns_to: returns_to(&request.redirect_uri),
            kobana: (&self.kobana_host, self.kobana_environment),
            form_action: &action,
        };
        match &form.organization {
            Some(organization) if form.token.is_some() => {
                page::confirm_page(&ctx, &sealed, organization, notice)
            }
            _ => page::token_page(&ctx, &sealed, notice),
        }
    }

    async fn client(
        &self,
        sealer: &Sealer,
        client_id: Option<&str>,
    ) -> Result<Client, &'static str> {
        let client_id = client_id.ok_or("O pedido não diz qual é o aplicativo (client_id).")?;
        if cimd::is_url_client_id(client_id) {
            return self.fetcher.client(client_id).await.map_err(|error| {
                tracing::warn!(%error, "token front: client metadata document refused");
                "Não foi possível obter os dados do aplicativo no endereço do seu client_id."
            });
        }
        registered(sealer, client_id)
            .ok_or("Aplicativo desconhecido: ele precisa se registrar de novo.")
    }

    /// `GET /authorize`.
    pub(super) async fn start(
        &self,
        urls: &Urls,
        request: &FrontRequest,
    ) -> Response<ResponseBody> {
        let query = request.uri().query().unwrap_or_default();
        let Some(params) = Params::parse(query.as_bytes()) else {
            return page::error_page(StatusCode::BAD_REQUEST, "O pedido repete um parâmetro.");
        };
        let Ok(sealer) = self.keys.sealer().await else {
            return unavailable();
        };
        let client = match self.client(sealer, params.get("client_id")).await {
            Ok(client) => client,
            Err(message) => return page::error_page(StatusCode::BAD_REQUEST, message),
        };
        let redirect_uri = params
            .get("redirect_uri")
            .filter(|uri| client.redirects_to(uri));
        let (Some(redirect_uri), state) = (redirect_uri, params.get("state")) else {
            return page::error_page(
                StatusCode::BAD_REQUEST,
                "O endereço de retorno do pedido não é um dos que o aplicativo registrou.",
            );
        };
        if state.is_some_and(|s| s.chars().count() > MAX_STATE_CHARS) {
            return page::error_page(StatusCode::BAD_REQUEST, "O parâmetro state é longo demais.");
        }
        let checked = Checked {
            client_id: client.id.clone(),
            client_name: client.metadata.client_name.clone(),
            redirect_uri: redirect_uri.to_owned(),
            state: state.map(str::to_owned),
            code_challenge: params.get("code_challenge").unwrap_or_default().to_owned(),
            resource: urls.resource.clone(),
        };
        if let Err(message) = check_request(&params, urls) {
            tracing::info!("token front: authorization request refused");
            return page::error_page(StatusCode::BAD_REQUEST, message);
        }
        let form = FormToken {
            request: checked,
            expires_at: (self.clock)() + FORM_TTL_SECS,
            token: None,
            organization: None,
            id: None,
        };
        self.render(sealer, &form, None)
    }

    /// `POST /authorize`: the token page's and the confirmation page's forms.
    pub(super) async fn submit(
        &self,
        urls: &Urls,
        request: &FrontRequest,
    ) -> Response<ResponseBody> {
        if cross_site(request.headers(), &urls.issuer) {
            tracing::info!("token front: a form post from another site refused");
            return page::error_page(
                StatusCode::FORBIDDEN,
                "Este formulário só pode ser enviado desta página.",
            );
        }
        if !content_type_is(request.headers(), "application/x-www-form-urlencoded") {
            return page::error_page(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Formulário em formato inesperado.",
            );
        }
        let record = crate::telemetry::record_of(request.extensions());
        let params = body(request, MAX_FORM_BYTES).and_then(Params::parse);
        let Some(params) = params else {
            return page::error_page(StatusCode::BAD_REQUEST, "Formulário inválido.");
        };
        let Ok(sealer) = self.keys.sealer().await else {
            return unavailable();
        };
        let now = (self.clock)();
        let form = params
            .get("form")
            .and_then(|f| sealer.open::<FormToken>(Purpose::Form, f))
            .filter(|f| f.expires_at > now && f.request.resource == urls.resource);
        let Some(form) = form else {
            return page::error_page(
                StatusCode::BAD_REQUEST,
                "Este formulário expirou ou não é válido.",
            );
        };
        match (params.get("action"), form.token.is_some()) {
            (Some("check"), false) => {
                self.check_token(sealer, form, params.get("token"), record)
                    .await
            }
            (Some("allow"), true) => {
                let consent = params.get("access").and_then(Consent::parse);
                self.allow(sealer, &urls.issuer, form, consent).await
            }
            (Some("restart"), true) => self.render(sealer, &restarted(form, now), None),
            (Some("deny"), _) => error_back(
                &form.request,
                &urls.issuer,
                "access_denied",
                "the person declined",
            ),
            _ => page::error_page(StatusCode::BAD_REQUEST, "Formulário inválido."),
        }
    }

    /// Proves the pasted token with one Kobana read; shows its organization, or why not.
    async fn check_token(
        &self,
        sealer: &Sealer,
        form: FormToken,
        token: Option<&str>,
        record: Option<std::sync::Arc<crate::telemetry::RequestRecord>>,
    ) -> Response<ResponseBody> {
        let token = token.map(str::trim).unwrap_or_default();
        let shaped = !token.is_empty()
            && token.len() <= MAX_TOKEN_CHARS
            && token.bytes().all(|b| b.is_ascii_graphic());
        if !shaped {
            return self.render(sealer, &form, Some(NOT_A_TOKEN));
        }
        let bearer = BearerToken::new(token);
        if let Err(AuthError::Expired) = Principal::from_token(bearer.clone(), (self.clock)()) {
            return self.render(sealer, &form, Some(EXPIRED));
        }
        // A client bound to the pasted token, not the caller's: this request has no other.
        let answer = self
            .kobana
            .for_request(bearer, record)
            .get_once(&[ORGANIZATION], &[])
            .await;
        let organization = match answer {
            Ok(envelope) => Organization::from_kobana(&envelope.data),
            Err(KobanaError::Api {
                status: 403, code, ..
            }) if code == "insufficient_scope" => Organization::default(),
            Err(error) => {
                tracing::info!(status = ?error.status(), "token front: Kobana did not accept the token");
                let notice = match error.status() {
                    Some(401) => self.refused_notice.as_str(),
                    Some(403) => FORBIDDEN,
                    _ => KOBANA_DOWN,
                };
                return self.render(sealer, &form, Some(notice));
            }
        };
        let Ok(id) = super::token::new_code_id() else {
            return unavailable();
        };
        let proven = FormToken {
            expires_at: (self.clock)() + FORM_TTL_SECS,
            token: Some(token.to_owned()),
            organization: Some(organization),
            id: Some(id),
            ..form
        };
        self.render(sealer, &proven, None)
    }

    /// "Conectar" with the access the person chose: the form marked used (once: a second
    /// post of it gets no second code), then the code.
    async fn allow(
        &self,
        sealer: &Sealer,
        issuer: &str,
        form: FormToken,
        consent: Option<Consent>,
    ) -> Response<ResponseBody> {
        let Some(consent) = consent else {
            return self.render(sealer, &form, Some(CHOOSE_ACCESS));
        };
        let Some(id) = &form.id else {
            return page::error_page(StatusCode::BAD_REQUEST, "Formulário inválido.");
        };
        let key = format!("{FORM_STORE_PREFIX}{id}");
        if let Err(error) = self.store.put(&key, id, form.expires_at).await {
            tracing::info!(%error, "token front: a confirmation form posted again, or not recorded");
            return page::error_page(StatusCode::CONFLICT, FORM_USED);
        }
        self.issue_code(sealer, issuer, form, consent).await
    }

    /// A sealed code, recorded once in the store, sent back to the client.
    async fn issue_code(
        &self,
        sealer: &Sealer,
        issuer: &str,
        form: FormToken,
        consent: Consent,
    ) -> Response<ResponseBody> {
        let now = (self.clock)();
        let (Some(token), Ok(id)) = (form.token, super::token::new_code_id()) else {
            return unavailable();
        };
        let request = form.request;
        let grant = CodeGrant {
            id,
            client_id: request.client_id.clone(),
            redirect_uri: request.redirect_uri.clone(),
            code_challenge: request.code_challenge.clone(),
            resource: request.resource.clone(),
            token,
            consent,
            expires_at: now + CODE_TTL_SECS,
        };
        let Ok(code) = sealer.seal(Purpose::Code, &grant) else {
            return unavailable();
        };
        if let Err(error) = self
            .store
            .put(
                &grant.store_key(),
                &super::token::digest(&code),
                grant.expires_at,
            )
            .await
        {
            tracing::error!(%error, "token front: the code could not be recorded");
            return unavailable();
        }
        tracing::info!("token front: code issued");
        back_to_client(&request, issuer, &[("code", &code)])
    }
}

/// The request's own checks; a failure is said on our page (the person has not acted yet).
fn check_request(params: &Params, urls: &Urls) -> Result<(), &'static str> {
    if params.get("response_type") != Some("code") {
        return Err(
            "O aplicativo pediu uma resposta que este servidor não dá (só response_type=code).",
        );
    }
    if params.get("code_challenge_method") != Some("S256") {
        return Err("O aplicativo não usou PKCE com S256, que este servidor exige.");
    }
    let challenge = params.get("code_challenge").unwrap_or_default();
    if !super::token::is_s256_challenge(challenge) {
        return Err("O code_challenge do pedido não é um S256 (43 caracteres base64url).");
    }
    if params.get("resource").is_some_and(|r| r != urls.resource) {
        return Err("O pedido é de acesso a outro servidor (resource), não a este.");
    }
    Ok(())
}

/// The form back at the token page (same request, a fresh lifetime, no token).
fn restarted(form: FormToken, now: i64) -> FormToken {
    FormToken {
        request: form.request,
        expires_at: now + FORM_TTL_SECS,
        token: None,
        organization: None,
        id: None,
    }
}

/// Whether the browser says the post comes from another site than the issuer's: by
/// `Sec-Fetch-Site` when it sends one, else by `Origin`. An opaque origin (`Origin: null`: a
/// sandboxed frame, a `data:` or `file:` page, a post after a cross-origin redirect) is never
/// our page, whose posts keep their origin (`Referrer-Policy: same-origin`), so it is refused:
/// the check fails safe. No `Origin` at all is a non-browser client, which holds no cookie of
/// the person's and can only post a form it was given.
fn cross_site(headers: &http::HeaderMap, issuer: &str) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site") {
        return !matches!(site, "same-origin" | "none");
    }
    let own = reqwest::Url::parse(issuer).map(|u| u.origin().ascii_serialization());
    match (text("origin"), own) {
        (None, _) => false,
        (Some(origin), Ok(own)) => origin != own,
        (Some(_), Err(_)) => true,
    }
}

fn unavailable() -> Response<ResponseBody> {
    page::error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Não foi possível concluir agora. Tente de novo em instantes.",
    )
}

const NOT_A_TOKEN: &str = "Isto não parece um token de API: cole o token inteiro, sem espaços.";
const EXPIRED: &str = "Este token já expirou. Gere um novo no Kobana.";
const FORBIDDEN: &str = "O Kobana não permitiu o acesso com este token.";
const KOBANA_DOWN: &str = "Não foi possível falar com o Kobana agora. Tente de novo em instantes.";
const CHOOSE_ACCESS: &str =
    "Escolha o que o aplicativo pode fazer: só consultar, ou consultar e alterar.";
const FORM_USED: &str = "Este formulário já foi enviado: cada confirmação vale uma vez. Volte ao \
                         aplicativo e comece a conexão de novo.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_from_another_site_is_told_apart_from_ours() {
        let mut headers = http::HeaderMap::new();
        assert!(
            !cross_site(&headers, "http://127.0.0.1:3000"),
            "no Origin: a non-browser"
        );
        headers.insert("origin", HeaderValue::from_static("http://127.0.0.1:3000"));
        assert!(!cross_site(&headers, "http://127.0.0.1:3000"));
        assert!(!cross_site(&headers, "http://127.0.0.1:3000/Prod"));
        headers.insert("origin", HeaderValue::from_static("http://localhost:3000"));
        assert!(cross_site(&headers, "http://127.0.0.1:3000"));
        headers.remove("origin");
        headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        assert!(cross_site(&headers, "http://127.0.0.1:3000"));
        headers.insert("sec-fetch-site", HeaderValue::from_static("same-origin"));
        assert!(!cross_site(&headers, "http://127.0.0.1:3000"));
        headers.insert("sec-fetch-site", HeaderValue::from_static("same-site"));
        assert!(cross_site(&headers, "http://127.0.0.1:3000"));
        headers.remove("sec-fetch-site");
        headers.insert("origin", HeaderValue::from_static("null"));
        assert!(
            cross_site(&headers, "http://127.0.0.1:3000"),
            "an opaque origin is refused"
        );
        headers.insert("sec-fetch-site", HeaderValue::from_static("same-origin"));
        assert!(
            !cross_site(&headers, "http://127.0.0.1:3000"),
            "Sec-Fetch-Site decides when the browser sends it"
        );
    }

    #[test]
    fn tf3_the_person_is_told_the_scheme_and_host_exactly_as_registered() {
        for (uri, shown) in [
            (
                "https://claude.ai/api/mcp/auth_callback",
                "https://claude.ai",
            ),
            ("http://127.0.0.1:8976/cb", "http://127.0.0.1:8976"),
            (
                "cursor://anysphere.cursor-retrieval/cb",
                "cursor://anysphere.cursor-retrieval",
            ),
            ("evilapp://claude.ai/cb", "evilapp://claude.ai"),
            ("com.example.app:/oauth/cb", "com.example.app:"),
            ("https://Claude.AI?x=1", "https://Claude.AI"),
        ] {
            assert_eq!(returns_to(uri), shown, "{uri}");
        }
    }
}
