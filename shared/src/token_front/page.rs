//! The authorization pages, in pt-BR, and the headers that protect them as a login page must
//! be: a strict Content-Security-Policy (nothing but our one inline style, whose hash it
//! names; no script; forms post only to us and to the client's redirect origin; no framing),
//! `X-Frame-Options: DENY`, `no-store`, `nosniff`, and a referrer for our own origin only
//! (`same-origin`: the form posts keep their `Origin`, the client never sees our URL). Nothing on them comes from
//! a third party, and every value a client or Kobana chose is HTML-escaped.

use std::sync::LazyLock;

use base64::Engine as _;
use http::{HeaderValue, Response, StatusCode, header};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::body::{ResponseBody, fixed};

/// The pages' only style, allowed by its hash.
const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;\
background:#f4f6f8;color:#1c2430;margin:0;padding:2rem 1rem}main{max-width:32rem;margin:0 auto;\
background:#fff;border-radius:12px;padding:2rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}\
h1{font-size:1.4rem;margin-top:0}label{display:block;font-weight:600;margin:1.2rem 0 .4rem}\
input[type=password]{width:100%;box-sizing:border-box;padding:.7rem;font-size:1rem;\
border:1px solid #b8c2cc;border-radius:8px}.hint{color:#52606d;font-size:.9rem}\
.notice{background:#fdecea;color:#8a1c12;border-radius:8px;padding:.8rem}\
.org{background:#eef6ee;border-radius:8px;padding:1rem;font-size:1.1rem}\
.actions{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1.4rem}button{padding:.7rem 1.2rem;\
font-size:1rem;border-radius:8px;border:1px solid #1f6feb;background:#fff;color:#1f6feb;\
cursor:pointer}button.primary{background:#1f6feb;color:#fff}fieldset{border:1px solid #d5dce3;\
border-radius:8px;margin-top:1.2rem}legend{font-weight:600}label.choice{display:block;\
font-weight:400;margin:.6rem 0}";

static STYLE_HASH: LazyLock<String> = LazyLock::new(|| {
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE.as_bytes()))
});

/// What the page says about the organization a token belongs to, as Kobana answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Organization {
    /// The organization's name (`person.name`).
    #[serde(rename = "n", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its CNPJ, digits only, when it is a company.
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub cnpj: Option<String>,
}

impl Organization {
    /// From the `data` of `GET /v1/organization`.
    pub fn from_kobana(data: &serde_json::Value) -> Self {
        let person = &data["person"];
        let text = |v: &serde_json::Value| {
            v.as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| s.chars().take(200).collect())
        };
        let cnpj = (person["document_type"] == "cnpj")
            .then(|| text(&person["document_number"]))
            .flatten()
            .filter(|d: &String| d.len() == 14 && d.bytes().all(|b| b.is_ascii_digit()));
        Self {
            name: text(&person["name"]),
            cnpj,
        }
    }
}

/// What every page of one authorization shows and allows.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The name the client gave itself (bidi, format and control characters already gone).
    pub client_name: Option<&'a str>,
    /// For a client ID metadata document, the host that publishes it (its `client_id`'s).
    pub client_host: Option<&'a str>,
    /// Where the person goes back to: the redirect URI's scheme and host as registered.
    pub returns_to: &'a str,
    /// The Kobana host tokens are checked against, and its environment's name.
    pub kobana: (&'a str, &'a str),
    /// The extra CSP `form-action` source (the redirect URI's origin).
    pub form_action: &'a str,
}

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn format_cnpj(d: &str) -> String {
    format!(
        "{}.{}.{}/{}-{}",
        &d[..2],
        &d[2..5],
        &d[5..8],
        &d[8..12],
        &d[12..]
    )
}

fn client_words(ctx: &Context<'_>) -> String {
    let named = match ctx.client_name {
        Some(name) => format!(
            "<strong>{}</strong> <span class=\"hint\">(nome informado pelo próprio aplicativo)</span>",
            escape(name)
        ),
        None => "Um aplicativo".to_owned(),
    };
    match ctx.client_host {
        Some(host) => format!(
            "{named}, publicado em <strong id=\"client-host\">{}</strong>,",
            escape(host)
        ),
        None => named,
    }
}

/// Where the person goes back to, in a sentence's words: the scheme and host as registered,
/// and, for an address no browser opens itself, that a program of this computer gets it.
fn back_words(ctx: &Context<'_>) -> String {
    let web = ctx.returns_to.starts_with("https://") || ctx.returns_to.starts_with("http://");
    let hint = if web {
        ""
    } else {
        " <span class=\"hint\">(um aplicativo instalado neste computador)</span>"
    };
    format!(
        "<strong id=\"returns-to\">{}</strong>{hint}",
        escape(ctx.returns_to)
    )
}

fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"same-origin\"><title>{title}</title>\
         <style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    )
}

/// The first page: paste a billing API token (`notice`: why the last one was not taken).
pub fn token_page(ctx: &Context<'_>, form: &str, notice: Option<&str>) -> Response<ResponseBody> {
    let notice = notice.map_or_else(String::new, |n| {
        format!("<p class=\"notice\" role=\"alert\">{}</p>", escape(n))
    });
    let (host, environment) = ctx.kobana;
    let body = format!(
        "<h1>Conectar ao Kobana</h1>\
         <p>{client} pede acesso ao Faturamento Automático do Kobana em seu nome.</p>\
         <p>Ao terminar, você volta para {back}.</p>{notice}\
         <form method=\"post\" action=\"authorize\" autocomplete=\"off\">\
         <input type=\"hidden\" name=\"form\" value=\"{form}\">\
         <label for=\"token\">Token de API do Faturamento Automático</label>\
         <input id=\"token\" name=\"token\" type=\"password\" required maxlength=\"8192\" \
         spellcheck=\"false\" autocapitalize=\"off\">\
         <p class=\"hint\">Use um token do ambiente de {environment} ({host}). O Kobana confere \
         o token antes de qualquer acesso. O aplicativo passa a usá-lo para agir em seu nome, \
         com as permissões que ele tiver; este servidor não guarda o token.</p>\
         <div class=\"actions\"><button class=\"primary\" type=\"submit\" name=\"action\" \
         value=\"check\">Continuar</button></div></form>",
        client = client_words(ctx),
        back = back_words(ctx),
        form = escape(form),
        environment = escape(environment),
        host = escape(host),
    );
    respond(
        StatusCode::OK,
        &document("Conectar ao Kobana", &body),
        ctx.form_action,
    )
}

/// The second page: the organization the token belongs to, what the application may do
/// (`access`: consult only, or consult and change; no default, so the choice is the
/// person's), and the buttons.
pub fn confirm_page(
    ctx: &Context<'_>,
    form: &str,
    organization: &Organization,
    notice: Option<&str>,
) -> Response<ResponseBody> {
    let name = organization
        .name
        .as_deref()
        .map_or_else(|| "(o Kobana não informou o nome)".to_owned(), escape);
    let cnpj = organization
        .cnpj
        .as_deref()
        .map_or_else(String::new, |d| format!("<br>CNPJ {}", format_cnpj(d)));
    let notice = notice.map_or_else(String::new, |n| {
        format!("<p class=\"notice\" role=\"alert\">{}</p>", escape(n))
    });
    let body = format!(
        "<h1>Confirme a organização</h1>\
         <p>O Kobana reconheceu o token. Ele dá acesso à organização:</p>\
         <p class=\"org\" id=\"organization\"><strong>{name}</strong>{cnpj}</p>\
         <p>{client} pede acesso aos dados de faturamento desta organização. Depois, você volta \
         para {back}.</p>{notice}\
         <form method=\"post\" action=\"authorize\">\
         <input type=\"hidden\" name=\"form\" value=\"{form}\">\
         <fieldset><legend>O que o aplicativo pode fazer</legend>\
         <label class=\"choice\"><input type=\"radio\" name=\"access\" value=\"read\" required> \
         Só consultar: nenhuma alteração, cobrança ou envio</label>\
         <label class=\"choice\"><input type=\"radio\" name=\"access\" value=\"full\" required> \
         Consultar e alterar, dentro das permissões do token</label></fieldset>\
         <div class=\"actions\"><button class=\"primary\" type=\"submit\" name=\"action\" \
         value=\"allow\">Conectar</button><button type=\"submit\" name=\"action\" \
         value=\"restart\" formnovalidate>Usar outro token</button><button type=\"submit\" \
         name=\"action\" value=\"deny\" formnovalidate>Cancelar</button></div></form>",
        client = client_words(ctx),
        back = back_words(ctx),
        form = escape(form),
    );
    respond(
        StatusCode::OK,
        &document("Confirme a organização", &body),
        ctx.form_action,
    )
}

/// A page for a request that cannot go back to the client (unknown client, redirect URI
/// not registered, expired form).
pub fn error_page(status: StatusCode, message: &str) -> Response<ResponseBody> {
    let body = format!(
        "<h1>Não foi possível continuar</h1><p class=\"notice\" role=\"alert\">{}</p>\
         <p>Volte ao aplicativo e comece a conexão de novo.</p>",
        escape(message)
    );
    respond(status, &document("Conexão com o Kobana", &body), "'self'")
}

/// The policy of every page: `extra` is the one `form-action` source besides ourselves.
pub fn content_security_policy(extra: &str) -> String {
    format!(
        "default-src 'none'; style-src 'sha256-{}'; form-action 'self' {extra}; \
         frame-ancestors 'none'; base-uri 'none'",
        *STYLE_HASH
    )
}

fn respond(status: StatusCode, html: &str, form_action: &str) -> Response<ResponseBody> {
    let mut response = fixed(status, "text/html; charset=utf-8", html.to_owned());
    let headers = response.headers_mut();
    let csp = HeaderValue::from_str(&content_security_policy(form_action))
        .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"));
    headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    protect(headers);
    response
}

/// The headers every answer of the authorization endpoint carries (pages and redirects).
pub fn protect(headers: &mut http::HeaderMap) {
    for (name, value) in [
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
        (header::PRAGMA, "no-cache"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_text_is_escaped_and_the_page_is_protected() {
        let ctx = Context {
            client_name: Some("<script>alert(1)</script>"),
            client_host: None,
            returns_to: "evil\" onload=\"x",
            kobana: ("api.billing.sandbox.kobana.com.br", "sandbox"),
            form_action: "https://claude.ai",
        };
        let response = token_page(&ctx, "kmf1.abc", Some("<b>x</b>"));
        let headers = response.headers();
        let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(
            csp.contains("form-action 'self' https://claude.ai"),
            "{csp}"
        );
        assert!(!csp.contains("script-src"), "no script at all: {csp}");
        assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_organization_is_read_from_kobanas_answer() {
        let data = json!({"person": {"name": " Acme Ltda ", "document_type": "cnpj",
                                     "document_number": "11222333000181"}});
        let org = Organization::from_kobana(&data);
        assert_eq!(org.name.as_deref(), Some("Acme Ltda"));
        assert_eq!(
            format_cnpj(org.cnpj.as_deref().unwrap()),
            "11.222.333/0001-81"
        );
        let person = json!({"person": {"name": "Ana", "document_type": "cpf",
                                       "document_number": "12345678909"}});
        assert_eq!(
            Organization::from_kobana(&person).cnpj,
            None,
            "a CPF is not shown"
        );
        assert_eq!(
            Organization::from_kobana(&json!({})),
            Organization::default()
        );
    }
}
