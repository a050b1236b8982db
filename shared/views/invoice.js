// ui://kobana/invoice: one invoice (billing_invoices_get) — status, customer, amounts,
// dates, line items, the PDF through the host, and the Pix / boleto codes when Kobana gave
// them (payment_codes), said to be absent when it did not.
(() => {
  const { el, brl, day, when, badge } = K;

  function card(label, value, sub) {
    return el("div", { class: "card" }, el("div", { class: "label" }, label),
      el("div", { class: "value" }, value), sub ? el("div", { class: "sub" }, sub) : null);
  }

  // The customer's name, read through the host: the account, then its customer when the
  // account did not embed it.
  async function customerName(accountId, target) {
    const text = (result) => (result && !result.isError ? result.structuredContent : null);
    try {
      const account = text(await K.callTool("billing_accounts_get", { id: accountId }));
      const record = account && account.billing_account;
      if (!record) throw new Error("conta não lida");
      let name = record.customer && record.customer.name;
      if (!name && record.customer_id) {
        const customer = text(await K.callTool("billing_customers_get", { id: record.customer_id }));
        name = customer && customer.customer && customer.customer.name;
      }
      target.textContent = name || record.billing_email || accountId;
    } catch {
      target.textContent = "conta " + accountId;
    }
  }

  function payment(codes) {
    const section = [el("h2", {}, "Pagamento")];
    if (!codes) return section;
    const blocks = [];
    if (codes.pix_code) {
      const button = el("button", { type: "button" }, "Copiar código Pix");
      button.addEventListener("click", () => K.copy(codes.pix_code, button));
      blocks.push(el("div", { id: "pix" }, el("strong", {}, "Pix copia-e-cola"),
        el("div", { class: "qr" }, qrSvg(codes.pix_code)),
        el("div", { class: "code", id: "pix-code" }, codes.pix_code), button));
    }
    if (codes.boleto_line) {
      const button = el("button", { type: "button" }, "Copiar linha digitável");
      button.addEventListener("click", () => K.copy(codes.boleto_line, button));
      blocks.push(el("div", { id: "boleto" }, el("strong", {}, "Boleto — linha digitável"),
        el("div", { class: "code", id: "boleto-line" }, codes.boleto_line),
        codes.boleto_amount_brl ? el("p", { class: "muted" }, "Valor no boleto: " + codes.boleto_amount_brl) : null,
        button));
    }
    if (blocks.length) section.push(el("div", { class: "row" }, blocks));
    if (codes.note) section.push(el("p", { class: "note", id: "codes-note" }, codes.note));
    return section;
  }

  function items(invoice) {
    const lines = invoice.line_items;
    if (!Array.isArray(lines)) {
      return [el("h2", {}, "Itens"), el("p", { class: "muted" }, invoice.line_items_note || "Itens não enviados.")];
    }
    const rows = lines.map((item) => el("tr", {},
      el("td", {}, item.description || "—"), el("td", { class: "num" }, item.quantity ?? 1),
      el("td", { class: "num" }, item.unit_amount_brl || "—"),
      el("td", { class: "num" }, item.amount_brl || brl(item.amount_cents))));
    return [el("h2", {}, "Itens"), el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, el("th", {}, "Descrição"), el("th", { class: "num" }, "Qtd."),
        el("th", { class: "num" }, "Unitário"), el("th", { class: "num" }, "Valor"))),
      el("tbody", {}, rows)))];
  }

  function pdf(invoice) {
    const url = invoice.invoice_pdf_url || invoice.hosted_invoice_url;
    const button = el("button", { type: "button", disabled: !url }, "Abrir PDF da fatura");
    if (url) {
      button.addEventListener("click", () => K.openLink(url).catch((e) => {
        button.after(el("p", { class: "error" }, "O aplicativo não abriu o link: " + e.message));
      }));
    }
    return [button, url ? null : el("p", { class: "muted" }, "Esta fatura ainda não tem PDF (rascunho ou sem link do Kobana).")];
  }

  K.start((data) => {
    const invoice = data.invoice || {};
    const derived = invoice._derived || {};
    const customer = el("span", { id: "customer" }, "carregando…");
    if (invoice.billing_account_id) customerName(invoice.billing_account_id, customer);
    else customer.textContent = "—";
    const total = invoice.total_brl || "não conferido";
    K.replace(
      el("h1", {}, "Fatura ", el("span", { id: "number" }, invoice.number || "sem número (rascunho)"),
        badge(invoice.status, derived.days_overdue)),
      el("p", {}, "Cliente: ", customer),
      el("div", { class: "cards" },
        card("Total", el("span", { id: "total" }, total)),
        card("Em aberto", invoice.amount_remaining_brl || brl(invoice.amount_remaining_cents)),
        card("Vencimento", day(invoice.due_date_sao_paulo || invoice.due_date)),
        invoice.paid_at ? card("Paga em", when(invoice.paid_at_sao_paulo || invoice.paid_at))
          : card("Emitida em", when(invoice.finalized_at_sao_paulo || invoice.finalized_at))),
      invoice.amounts_note ? el("p", { class: "note" }, invoice.amounts_note) : null,
      invoice.description ? el("p", { class: "muted" }, invoice.description) : null,
      invoice.status === "open" ? payment(invoice.payment_codes) : null,
      items(invoice),
      pdf(invoice),
    );
  });
})();
