//! Generated documents: deterministic PDFs of any size, streamed in chunks, and NFS-e XML.

use std::fmt::Write as _;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::DocKind;
use crate::api::{Record, i, s};
use crate::store::{App, DEFAULT_PDF_SIZE};

/// Size of the chunks a document body is written in.
const CHUNK: usize = 64 * 1024;

const HEADER: &[u8] = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n";
const TAIL: &[u8] = b"%%EOF\n";

fn digits(n: usize) -> usize {
    n.to_string().len()
}

/// Deterministic filler bytes (xorshift64 seeded from the document).
fn filler(seed: &[u8], len: usize) -> Vec<u8> {
    let hash = Sha256::digest(seed);
    let mut x = u64::from_le_bytes(hash[..8].try_into().expect("8 bytes")) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A PDF of exactly `size` bytes (at least 15), starting `%PDF-1.7\n` and ending `%%EOF\n`.
/// Sizes that fit a whole document get a valid one-page PDF (catalog, page, font, text,
/// xref table, trailer) padded by an unreferenced stream; tinier sizes get the markers only.
pub fn build_pdf(kind: DocKind, id: &str, size: usize) -> Vec<u8> {
    let size = size.max(15);
    let seed = format!("{kind:?}:{id}:{size}");
    let title = match kind {
        DocKind::Invoice => "Kobana - Fatura",
        DocKind::Nfe => "Kobana - DANFSe (NFS-e)",
    };
    let safe_id: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let content = format!(
        "BT /F1 20 Tf 72 770 Td ({title}) Tj ET\n\
         BT /F1 11 Tf 72 740 Td (Documento: {safe_id}) Tj ET\n\
         BT /F1 11 Tf 72 722 Td (Gerado pelo fake Kobana - conteudo ilustrativo) Tj ET"
    );
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] \
         /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
            .to_string(),
        format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let file_id = hex(&Sha256::digest(seed.as_bytes())[..16]);
    let trailer_fixed =
        format!("trailer\n<< /Size 7 /Root 1 0 R /ID [<{file_id}> <{file_id}>] >>\nstartxref\n");
    let xref_len = "xref\n0 7\n".len() + 7 * 20;
    let obj6_open = "6 0 obj\n<< /Length ";
    let obj6_mid = " >>\nstream\n";
    let obj6_close = "\nendstream\nendobj\n";

    for pad in 0..4usize {
        let mut head = HEADER.to_vec();
        if pad > 0 {
            head.push(b'%');
            head.extend(std::iter::repeat_n(b' ', pad - 1));
            head.push(b'\n');
        }
        let mut body = head.clone();
        let mut offsets = Vec::new();
        for (n, obj) in objects.iter().enumerate() {
            offsets.push(body.len());
            body.extend_from_slice(format!("{} 0 obj\n{obj}\nendobj\n", n + 1).as_bytes());
        }
        let a = body.len();
        let fixed = a
            + obj6_open.len()
            + obj6_mid.len()
            + obj6_close.len()
            + xref_len
            + trailer_fixed.len()
            + 1
            + TAIL.len();
        for dl in 1..=12 {
            for dx in 1..=12 {
                let Some(l) = size.checked_sub(fixed + dl + dx) else {
                    continue;
                };
                let x = a + obj6_open.len() + dl + obj6_mid.len() + l + obj6_close.len();
                if digits(l) != dl || digits(x) != dx {
                    continue;
                }
                offsets.push(a);
                body.reserve(size - body.len());
                body.extend_from_slice(format!("{obj6_open}{l}{obj6_mid}").as_bytes());
                body.extend_from_slice(&filler(seed.as_bytes(), l));
                body.extend_from_slice(obj6_close.as_bytes());
                body.extend_from_slice(b"xref\n0 7\n0000000000 65535 f \n");
                for off in &offsets {
                    body.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
                }
                body.extend_from_slice(trailer_fixed.as_bytes());
                body.extend_from_slice(format!("{x}\n").as_bytes());
                body.extend_from_slice(TAIL);
                debug_assert_eq!(body.len(), size);
                return body;
            }
        }
    }
    // Too small for a whole document: the markers and filler comment only.
    let mut out = b"%PDF-1.7\n".to_vec();
    let middle = size - 15;
    if middle > 0 {
        out.extend(std::iter::repeat_n(b'%', middle - 1));
        out.push(b'\n');
    }
    out.extend_from_slice(TAIL);
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut acc, x| {
        let _ = write!(acc, "{x:02X}");
        acc
    })
}

/// Whether a document of this kind and id is served, in any organization.
pub fn exists(app: &App, kind: DocKind, id: &str) -> bool {
    let inner = app.lock();
    inner.orgs.values().any(|org| match kind {
        DocKind::Invoice => org
            .invoices
            .iter()
            .any(|r| s(r, "id") == Some(id) && invoice_has_pdf(r)),
        DocKind::Nfe => org
            .nfes
            .iter()
            .any(|r| s(r, "id") == Some(id) && nfe_was_issued(r)),
    })
}

/// Invoice PDFs exist once the invoice left `draft`.
pub fn invoice_has_pdf(invoice: &Record) -> bool {
    s(invoice, "status") != Some("draft")
}

/// NF-e PDF/XML exist once the municipality authorized the note (it has an issue date):
/// `issued`, and later `pending_cancel`, `canceling`, `canceled`.
pub fn nfe_was_issued(nfe: &Record) -> bool {
    nfe.get("issue_date").is_some_and(|v| !v.is_null())
        && matches!(
            s(nfe, "status"),
            Some("issued" | "pending_cancel" | "canceling" | "canceled")
        )
}

/// The PDF bytes for a document (generated once per id and size, then cached).
pub fn pdf_bytes(app: &App, kind: DocKind, id: &str) -> Bytes {
    let size = {
        let inner = app.lock();
        let size = inner.pdf_sizes.get(id).copied().unwrap_or(DEFAULT_PDF_SIZE);
        if let Some((cached_size, bytes)) = inner.pdf_cache.get(&(kind, id.to_string()))
            && *cached_size == size
        {
            return bytes.clone();
        }
        size
    };
    let bytes = Bytes::from(build_pdf(kind, id, size));
    app.lock()
        .pdf_cache
        .insert((kind, id.to_string()), (size, bytes.clone()));
    bytes
}

/// A body that writes `data` in 64 KiB frames, with or without an exact length.
struct ChunkedBytes {
    data: Bytes,
    pos: usize,
    exact: bool,
}

impl http_body::Body for ChunkedBytes {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.pos >= self.data.len() {
            return Poll::Ready(None);
        }
        let end = (self.pos + CHUNK).min(self.data.len());
        let chunk = self.data.slice(self.pos..end);
        self.pos = end;
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn size_hint(&self) -> SizeHint {
        if self.exact {
            SizeHint::with_exact((self.data.len() - self.pos) as u64)
        } else {
            SizeHint::default()
        }
    }
}

/// A `200 application/pdf` response streaming the document.
pub fn pdf_response(app: &App, kind: DocKind, id: &str, filename: &str) -> Response {
    let data = pdf_bytes(app, kind, id);
    let exact = app.lock().pdf_content_length;
    let mut resp = Response::new(Body::new(ChunkedBytes {
        data,
        pos: 0,
        exact,
    }));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/pdf"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{filename}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

fn esc(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, (cents % 100).abs())
}

fn val<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// What the NFS-e document says, read once from the NF-e record and the organization.
struct NfeFacts<'a> {
    nfe: &'a Record,
    number: i64,
    key: &'a str,
    amount: i64,
    iss_rate: f64,
    iss: i64,
    pis: i64,
    cofins: i64,
    issue_date: &'a str,
    competence: &'a str,
    prest_name: String,
    prest_doc: String,
    customer: Value,
    doc_tag: &'static str,
    toma_doc: String,
    rps_number: i64,
    rps_series: &'a str,
    service_code: &'a str,
    lc116: &'a str,
}

impl<'a> NfeFacts<'a> {
    fn read(nfe: &'a Record, organization: &Record) -> Self {
        let number = nfe.get("nfe_number").and_then(Value::as_i64).unwrap_or(0);
        let amount = i(nfe, "amount_cents");
        let taxes = nfe.get("taxes").cloned().unwrap_or(Value::Null);
        let rate = |k: &str| taxes.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let iss_rate = rate("iss_rate");
        let iss = taxes
            .get("iss_amount_cents")
            .and_then(Value::as_i64)
            .unwrap_or_else(|| (amount as f64 * iss_rate).round() as i64);
        let issue_date = s(nfe, "issue_date").unwrap_or("");
        let person = organization.get("person").cloned().unwrap_or(Value::Null);
        let prest_name = [val(&person, "legal_name"), val(&person, "name")]
            .into_iter()
            .find(|n| !n.is_empty())
            .unwrap_or("Acme Software Ltda")
            .to_owned();
        let customer = nfe.get("customer_snapshot").cloned().unwrap_or(Value::Null);
        let doc_tag = if val(&customer, "document_type") == "cpf" {
            "Cpf"
        } else {
            "Cnpj"
        };
        let service_code = s(nfe, "service_code").unwrap_or("");
        NfeFacts {
            nfe,
            number,
            key: s(nfe, "nfe_key").unwrap_or(""),
            amount,
            iss_rate,
            iss,
            pis: (amount as f64 * rate("pis_rate")).round() as i64,
            cofins: (amount as f64 * rate("cofins_rate")).round() as i64,
            issue_date,
            competence: issue_date.get(..10).unwrap_or(""),
            prest_doc: crate::api::digits_of(val(&person, "document_number")),
            prest_name,
            toma_doc: crate::api::digits_of(val(&customer, "document_number")),
            customer,
            doc_tag,
            rps_number: nfe
                .get("rps_number")
                .and_then(Value::as_i64)
                .unwrap_or(number),
            rps_series: s(nfe, "rps_serial_number").unwrap_or("RPS"),
            service_code,
            lc116: s(nfe, "lc116_code").unwrap_or(service_code),
        }
    }
}

/// A realistic ABRASF 2.04 NFS-e (`CompNfse`) built from an issued NF-e record.
pub fn nfe_xml(nfe: &Record, organization: &Record) -> String {
    let f = NfeFacts::read(nfe, organization);
    let mut x = String::new();
    x.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x.push_str("<CompNfse xmlns=\"http://www.abrasf.org.br/nfse.xsd\">\n");
    x.push_str("  <Nfse versao=\"2.04\">\n");
    nfse_head(&mut x, &f);
    x.push_str("      <DeclaracaoPrestacaoServico>\n");
    let _ = writeln!(
        x,
        "        <InfDeclaracaoPrestacaoServico Id=\"RPS{}\">",
        f.rps_number
    );
    let _ = writeln!(
        x,
        "          <Rps><IdentificacaoRps><Numero>{}</Numero><Serie>{}</Serie><Tipo>1</Tipo></IdentificacaoRps><DataEmissao>{}</DataEmissao><Status>1</Status></Rps>",
        f.rps_number,
        esc(f.rps_series),
        f.competence
    );
    let _ = writeln!(x, "          <Competencia>{}</Competencia>", f.competence);
    nfse_service(&mut x, &f);
    let _ = writeln!(
        x,
        "          <Prestador><CpfCnpj><Cnpj>{}</Cnpj></CpfCnpj></Prestador>",
        f.prest_doc
    );
    nfse_taker(&mut x, &f);
    x.push_str("          <OptanteSimplesNacional>2</OptanteSimplesNacional>\n");
    x.push_str("          <IncentivoFiscal>2</IncentivoFiscal>\n");
    x.push_str("        </InfDeclaracaoPrestacaoServico>\n");
    x.push_str("      </DeclaracaoPrestacaoServico>\n");
    x.push_str("    </InfNfse>\n");
    x.push_str("  </Nfse>\n");
    if let Some(cancelled) = s(nfe, "cancelled_at") {
        let _ = writeln!(
            x,
            "  <NfseCancelamento><Confirmacao><DataHora>{}</DataHora></Confirmacao></NfseCancelamento>",
            esc(cancelled)
        );
    }
    x.push_str("</CompNfse>\n");
    x
}

/// The NFS-e's number, key, values and issuer (`InfNfse` up to the declaration).
fn nfse_head(x: &mut String, f: &NfeFacts) {
    let _ = writeln!(x, "    <InfNfse Id=\"NFSe{}\">", esc(f.key));
    let _ = writeln!(x, "      <Numero>{}</Numero>", f.number);
    let _ = writeln!(x, "      <ChaveAcesso>{}</ChaveAcesso>", esc(f.key));
    let _ = writeln!(
        x,
        "      <CodigoVerificacao>{}</CodigoVerificacao>",
        esc(s(f.nfe, "verification_code").unwrap_or(""))
    );
    let _ = writeln!(x, "      <DataEmissao>{}</DataEmissao>", esc(f.issue_date));
    x.push_str("      <ValoresNfse>\n");
    let _ = writeln!(x, "        <BaseCalculo>{}</BaseCalculo>", money(f.amount));
    let _ = writeln!(x, "        <Aliquota>{:.2}</Aliquota>", f.iss_rate * 100.0);
    let _ = writeln!(x, "        <ValorIss>{}</ValorIss>", money(f.iss));
    let _ = writeln!(
        x,
        "        <ValorLiquidoNfse>{}</ValorLiquidoNfse>",
        money(f.amount)
    );
    x.push_str("      </ValoresNfse>\n");
    x.push_str("      <PrestadorServico>\n");
    let _ = writeln!(
        x,
        "        <IdentificacaoPrestador><CpfCnpj><Cnpj>{}</Cnpj></CpfCnpj></IdentificacaoPrestador>",
        f.prest_doc
    );
    let _ = writeln!(
        x,
        "        <RazaoSocial>{}</RazaoSocial>",
        esc(&f.prest_name)
    );
    x.push_str(
        "        <Endereco><CodigoMunicipio>3550308</CodigoMunicipio><Uf>SP</Uf></Endereco>\n",
    );
    x.push_str("      </PrestadorServico>\n");
    x.push_str("      <OrgaoGerador><CodigoMunicipio>3550308</CodigoMunicipio><Uf>SP</Uf></OrgaoGerador>\n");
}

/// The declaration's `Servico`: values, taxes, codes and description.
fn nfse_service(x: &mut String, f: &NfeFacts) {
    x.push_str("          <Servico>\n");
    let _ = writeln!(
        x,
        "            <Valores><ValorServicos>{}</ValorServicos><ValorPis>{}</ValorPis><ValorCofins>{}</ValorCofins><ValorIss>{}</ValorIss><Aliquota>{:.2}</Aliquota></Valores>",
        money(f.amount),
        money(f.pis),
        money(f.cofins),
        money(f.iss),
        f.iss_rate * 100.0
    );
    x.push_str("            <IssRetido>2</IssRetido>\n");
    let _ = writeln!(
        x,
        "            <ItemListaServico>{}</ItemListaServico>",
        esc(f.lc116)
    );
    if let Some(cnae) = s(f.nfe, "cnae_code") {
        let _ = writeln!(x, "            <CodigoCnae>{}</CodigoCnae>", esc(cnae));
    }
    let _ = writeln!(
        x,
        "            <CodigoTributacaoMunicipio>{}</CodigoTributacaoMunicipio>",
        esc(f.service_code)
    );
    let _ = writeln!(
        x,
        "            <Discriminacao>{}</Discriminacao>",
        esc(s(f.nfe, "service_description").unwrap_or(""))
    );
    x.push_str("            <CodigoMunicipio>3550308</CodigoMunicipio>\n");
    x.push_str("            <ExigibilidadeISS>1</ExigibilidadeISS>\n");
    x.push_str("          </Servico>\n");
}

/// The declaration's `TomadorServico`: the customer as the NF-e recorded it.
fn nfse_taker(x: &mut String, f: &NfeFacts) {
    let customer = &f.customer;
    let address = customer.get("address").cloned().unwrap_or(Value::Null);
    x.push_str("          <TomadorServico>\n");
    let _ = writeln!(
        x,
        "            <IdentificacaoTomador><CpfCnpj><{tag}>{}</{tag}></CpfCnpj></IdentificacaoTomador>",
        f.toma_doc,
        tag = f.doc_tag
    );
    let _ = writeln!(
        x,
        "            <RazaoSocial>{}</RazaoSocial>",
        esc(val(customer, "name"))
    );
    if address.is_object() {
        let _ = writeln!(
            x,
            "            <Endereco><Endereco>{}</Endereco><Numero>{}</Numero><Bairro>{}</Bairro><CodigoMunicipio>{}</CodigoMunicipio><Uf>{}</Uf><Cep>{}</Cep></Endereco>",
            esc(val(&address, "street")),
            esc(val(&address, "number")),
            esc(val(&address, "neighborhood")),
            esc(val(&address, "city_code")),
            esc(val(&address, "state")),
            esc(&crate::api::digits_of(val(&address, "zip_code")))
        );
    }
    let _ = writeln!(
        x,
        "            <Contato><Email>{}</Email></Contato>",
        esc(val(customer, "email"))
    );
    x.push_str("          </TomadorServico>\n");
}

/// A `200 application/xml` response.
pub fn xml_response(xml: String, filename: &str) -> Response {
    let mut resp = Response::new(Body::from(xml));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{filename}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sizes_and_markers() {
        for size in [
            15,
            16,
            100,
            999,
            1000,
            1001,
            20 * 1024,
            99_999,
            100_000,
            1_000_003,
        ] {
            let pdf = build_pdf(DocKind::Invoice, "abc", size);
            assert_eq!(pdf.len(), size, "size {size}");
            assert!(pdf.starts_with(b"%PDF-1.7\n"));
            assert!(pdf.ends_with(b"%%EOF\n"));
        }
        assert_eq!(
            build_pdf(DocKind::Nfe, "x", 5000),
            build_pdf(DocKind::Nfe, "x", 5000)
        );
        assert_ne!(
            build_pdf(DocKind::Nfe, "x", 5000),
            build_pdf(DocKind::Invoice, "x", 5000)
        );
    }

    #[test]
    fn xref_offsets_point_at_objects() {
        let pdf = build_pdf(DocKind::Invoice, "id-1", 4096);
        let marker = b"startxref\n";
        let at = pdf
            .windows(marker.len())
            .rposition(|w| w == marker)
            .unwrap();
        let tail = std::str::from_utf8(&pdf[at + marker.len()..]).unwrap();
        let startxref: usize = tail.lines().next().unwrap().parse().unwrap();
        assert!(pdf[startxref..].starts_with(b"xref\n0 7\n"));
        let table = std::str::from_utf8(&pdf[startxref..at]).unwrap();
        for (n, line) in table.lines().skip(3).take(6).enumerate() {
            let off: usize = line[..10].parse().unwrap();
            let expected = format!("{} 0 obj", n + 1);
            assert!(
                pdf[off..].starts_with(expected.as_bytes()),
                "object {}",
                n + 1
            );
        }
    }
}
