// ui://kobana/month: a month's figures (billing_reports_month) — billed, received, open and
// overdue as the server computed them, a chart of billed against received by day, the
// breakdown by status, and every note on what the figures leave out.
(() => {
  const { el, brl } = K;
  const MONTHS = ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
    "setembro", "outubro", "novembro", "dezembro"];
  const STATUS = { draft: "Rascunho", open: "Em aberto", paid: "Paga", void: "Anulada", uncollectible: "Incobrável" };

  function card(id, label, figure, sub) {
    return el("div", { class: "card" }, el("div", { class: "label" }, label),
      el("div", { class: "value", id }, figure ? figure.brl : "—"),
      el("div", { class: "sub" }, figure ? sub(figure.count) : "não calculado"));
  }

  // Bars of billed and received per day of the month (SVG drawn here; no library).
  function chart(year, month, days) {
    const count = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const byDay = new Map(days.map((d) => [Number(d.day.slice(8, 10)), d]));
    const max = Math.max(1, ...days.map((d) => Math.max(d.billed_cents, d.received_cents)));
    const W = 620, H = 240, top = 10, bottom = 34, left = 4, slot = (W - left) / count;
    const h = (cents) => ((H - top - bottom) * cents) / max;
    const parts = [];
    for (let n = 1; n <= count; n++) {
      const d = byDay.get(n);
      const x = left + (n - 1) * slot;
      const w = Math.max(1, slot / 2 - 1);
      if (d && d.billed_cents) {
        parts.push(el("rect", { svg: true, x, y: H - bottom - h(d.billed_cents), width: w, height: h(d.billed_cents), style: "fill:var(--kb-accent)" },
          el("title", { svg: true }, n + ": faturado " + brl(d.billed_cents))));
      }
      if (d && d.received_cents) {
        parts.push(el("rect", { svg: true, x: x + w + 1, y: H - bottom - h(d.received_cents), width: w, height: h(d.received_cents), style: "fill:var(--kb-received)" },
          el("title", { svg: true }, n + ": recebido " + brl(d.received_cents))));
      }
      if (n === 1 || n % 5 === 0) {
        parts.push(el("text", { svg: true, x: x + slot / 2, y: H - 8, "text-anchor": "middle", "font-size": 22, fill: "currentColor" }, String(n)));
      }
    }
    parts.push(el("line", { svg: true, x1: 0, x2: W, y1: H - bottom, y2: H - bottom, style: "stroke:var(--color-border-primary)" }));
    return el("figure", { style: "margin:0" },
      el("svg", { viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", id: "chart", "aria-label": "Faturado e recebido por dia" }, parts),
      el("figcaption", { class: "muted" },
        el("span", { style: "color:var(--kb-accent)" }, "■ "), "faturado (por vencimento)   ",
        el("span", { style: "color:var(--kb-received)" }, "■ "), "recebido (por data do pagamento)"));
  }

  function statuses(byStatus) {
    const rows = Object.entries(byStatus || {});
    if (!rows.length) return el("p", { class: "muted" }, "Nenhuma fatura com vencimento no mês.");
    return el("div", { class: "table-wrap" }, el("table", { id: "by-status" },
      el("thead", {}, el("tr", {}, el("th", {}, "Situação"), el("th", { class: "num" }, "Faturas"), el("th", { class: "num" }, "Total"))),
      el("tbody", {}, rows.map(([status, v]) => el("tr", {}, el("td", {}, STATUS[status] || status),
        el("td", { class: "num" }, v.count), el("td", { class: "num" }, v.brl + (v.unverified ? " (+" + v.unverified + " não conferida)" : "")))))));
  }

  K.start((r) => {
    const [year, month] = String(r.month || "").split("-").map(Number);
    const label = month ? MONTHS[month - 1] + " de " + year : r.month;
    const asOf = /^(\d{4})-(\d{2})-(\d{2})$/.exec(r.as_of || "");
    const n = (count, one, many) => count + " " + (count === 1 ? one : many);
    K.replace(
      el("h1", {}, "Faturamento de ", el("span", { id: "month" }, label)),
      el("p", { class: "muted" }, "Vencidas contadas até " + (asOf ? asOf[3] + "/" + asOf[2] + "/" + asOf[1] : "hoje") + " (America/Sao_Paulo)."),
      r.complete === false ? el("p", { class: "note", id: "incomplete" }, "Números parciais: o mês tem mais registros do que foi lido.") : null,
      el("div", { class: "cards" },
        card("billed", "Faturado", r.billed, (c) => n(c, "fatura", "faturas")),
        card("received", "Recebido", r.received, (c) => n(c, "pagamento", "pagamentos")),
        card("open", "Em aberto", r.open, (c) => n(c, "fatura", "faturas")),
        card("overdue", "Vencido", r.overdue, (c) => n(c, "fatura", "faturas"))),
      el("h2", {}, "Por dia"),
      month ? chart(year, month, r.by_day || []) : null,
      el("h2", {}, "Por situação"),
      statuses(r.by_status),
      ...(r.notes || []).map((note) => el("p", { class: "note" }, note)),
      Array.isArray(r.unverified) && r.unverified.length
        ? el("ul", { id: "unverified" }, r.unverified.map((u) => el("li", {},
          (u.number || u.id) + ": " + u.total_if_subcents_brl + " ou " + u.total_if_cents_brl)))
        : null,
    );
  });
})();
