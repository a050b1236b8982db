// ui://kobana/customer: one customer (billing_customers_get) — their data, and, read through
// the host with the server's own list tools, the subscriptions and the open and overdue
// invoices of each billing account (at most the first three accounts, 100 rows each).
(() => {
  const { el, brl, day, badge } = K;
  const MAX_ACCOUNTS = 3;

  // CPF 000.000.000-00 / CNPJ 00.000.000/0000-00 from its digits; anything else as sent.
  function documentNumber(text) {
    const d = String(text || "").replace(/\D/g, "");
    if (d.length === 11) return d.replace(/(\d{3})(\d{3})(\d{3})(\d{2})/, "$1.$2.$3-$4");
    if (d.length === 14) return d.replace(/(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})/, "$1.$2.$3/$4-$5");
    return text || "—";
  }

  // A contact: the single member, or the first of the list (`[{kind, value}]`).
  function first(single, list) {
    const item = Array.isArray(list) ? list.find((x) => x && (x.value || x.email || x.number)) : null;
    return single || (item && (item.value || item.email || item.number)) || "—";
  }

  const CYCLES = { monthly: "mensal", quarterly: "trimestral", semiannual: "semestral", annual: "anual" };

  async function list(tool, args, key) {
    const result = await K.callTool(tool, args);
    if (!result || result.isError) throw new Error(K.errorText(result || {}));
    return (result.structuredContent && result.structuredContent[key]) || [];
  }

  function subscriptionsTable(rows) {
    if (!rows.length) return el("p", { class: "muted" }, "Nenhuma assinatura.");
    return el("div", { class: "table-wrap" }, el("table", { id: "subscriptions" },
      el("thead", {}, el("tr", {}, el("th", {}, "Situação"), el("th", {}, "Ciclo"),
        el("th", { class: "num" }, "Valor"), el("th", {}, "Fim do período"))),
      el("tbody", {}, rows.map((s) => el("tr", {}, el("td", {}, badge(s.status)),
        el("td", {}, CYCLES[s.billing_cycle] || s.billing_cycle || "—"), el("td", { class: "num" }, s.recurring_amount_brl || "—"),
        el("td", {}, day(s.current_period_end)))))));
  }

  function invoicesTable(rows) {
    if (!rows.length) return el("p", { class: "muted" }, "Nenhuma fatura em aberto.");
    return el("div", { class: "table-wrap" }, el("table", { id: "open-invoices" },
      el("thead", {}, el("tr", {}, el("th", {}, "Fatura"), el("th", { class: "num" }, "Em aberto"),
        el("th", {}, "Vence em"))),
      el("tbody", {}, rows.map((i) => el("tr", {},
        el("td", { style: "white-space:nowrap" }, i.number || i.id, el("br"), badge(i.status, i.days_overdue)),
        el("td", { class: "num" }, i.amount_remaining_brl || i.total_brl || "—"),
        el("td", {}, day(i.due_date)))))));
  }

  async function accountsSection(accounts, target) {
    const subscriptions = [];
    const invoices = [];
    const problems = [];
    await Promise.all(accounts.slice(0, MAX_ACCOUNTS).map(async (account) => {
      const args = { billing_account_id: account.id, per_page: 100 };
      const [subs, open] = await Promise.allSettled([
        list("billing_subscriptions_list", args, "subscriptions"),
        list("billing_invoices_list", { ...args, status: "open", fields: ["amount_remaining_cents"] }, "invoices"),
      ]);
      if (subs.status === "fulfilled") subscriptions.push(...subs.value);
      else problems.push("Assinaturas: " + subs.reason.message);
      if (open.status === "fulfilled") invoices.push(...open.value);
      else problems.push("Faturas: " + open.reason.message);
    }));
    const overdue = invoices.filter((i) => i.days_overdue > 0);
    // What is owed is Kobana's amount_remaining_cents, whose unit is never in doubt.
    const sum = (rows) => brl(rows.reduce((t, i) => t + (i.amount_remaining_cents || 0), 0));
    const shown = [
      el("div", { class: "cards" },
        el("div", { class: "card" }, el("div", { class: "label" }, "Em aberto"),
          el("div", { class: "value", id: "open-total" }, sum(invoices)),
          el("div", { class: "sub" }, invoices.length + " fatura(s)")),
        el("div", { class: "card" }, el("div", { class: "label" }, "Vencido"),
          el("div", { class: "value", id: "overdue-total" }, sum(overdue)),
          el("div", { class: "sub" }, overdue.length + " fatura(s)"))),
      accounts.length > MAX_ACCOUNTS
        ? el("p", { class: "note" }, "Mostrando as " + MAX_ACCOUNTS + " primeiras de " + accounts.length + " contas de cobrança.") : null,
      ...problems.map((p) => el("p", { class: "error" }, p)),
      el("h2", {}, "Faturas em aberto"), invoicesTable(invoices),
      el("h2", {}, "Assinaturas"), subscriptionsTable(subscriptions)];
    target.replaceChildren(...shown.filter(Boolean));
  }

  K.start((data) => {
    const c = data.customer || {};
    const accounts = Array.isArray(data.billing_accounts) ? data.billing_accounts : [];
    const details = el("div", { id: "accounts" }, el("p", { class: "muted" }, "Lendo assinaturas e faturas…"));
    K.replace(
      el("h1", { id: "name" }, c.name || "Cliente sem nome"),
      c.legal_name && c.legal_name !== c.name ? el("p", { class: "muted" }, c.legal_name) : null,
      el("dl", {},
        el("dt", {}, c.kind === "juridical" ? "CNPJ" : "CPF"), el("dd", {}, documentNumber(c.document_number)),
        el("dt", {}, "E-mail"), el("dd", {}, first(c.email, c.emails)),
        el("dt", {}, "Telefone"), el("dd", {}, first(c.phone, c.phones)),
        el("dt", {}, "Contas"), el("dd", {}, String(data.billing_accounts_total ?? accounts.length))),
      data.billing_accounts_note ? el("p", { class: "note" }, data.billing_accounts_note) : null,
      details);
    if (accounts.length) accountsSection(accounts, details);
    else details.replaceChildren(el("p", { class: "muted" }, "Sem conta de cobrança: nada a listar."));
  });
})();
