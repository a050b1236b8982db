// The views' runtime: the MCP Apps protocol (2026-01-26) spoken directly over postMessage
// (JSON-RPC 2.0 with the host), the host's theme, pt-BR formatting and DOM helpers. Every
// value from a tool result reaches the page as text (textContent), never as markup.
const K = (() => {
  const PROTOCOL = "2026-01-26";
  const pending = new Map();
  const handlers = {};
  let nextId = 1;
  const send = (message) => window.parent.postMessage(message, "*");

  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ jsonrpc: "2.0", id, method, params: params || {} });
    });
  }
  const notify = (method, params) => send({ jsonrpc: "2.0", method, params: params || {} });

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && pending.has(m.id)) {
      const { resolve, reject } = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) reject(new Error(m.error.message || "erro do host"));
      else resolve(m.result);
      return;
    }
    if (typeof m.method !== "string") return;
    if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, result: {} });
    const handler = handlers[m.method];
    if (handler) handler(m.params || {});
  });

  function applyContext(context) {
    if (!context) return;
    const root = document.documentElement;
    if (context.theme === "dark" || context.theme === "light") root.dataset.theme = context.theme;
    const variables = context.styles && context.styles.variables;
    for (const [name, value] of Object.entries(variables || {})) {
      if (/^--[a-z0-9-]+$/.test(name) && typeof value === "string") root.style.setProperty(name, value);
    }
  }

  // Tells the host the document's size whenever it changes (flexible containers).
  function watchSize() {
    let last = "";
    const report = () => {
      const el = document.documentElement;
      const size = { width: Math.ceil(el.scrollWidth), height: Math.ceil(el.scrollHeight) };
      const key = size.width + "x" + size.height;
      if (key !== last) {
        last = key;
        notify("ui/notifications/size-changed", size);
      }
    };
    new ResizeObserver(report).observe(document.body);
    report();
  }

  // Connects to the host, then hands every tool result to `render` (an isError result shows
  // its pt-BR text instead).
  async function start(render) {
    handlers["ui/notifications/host-context-changed"] = applyContext;
    handlers["ui/notifications/tool-result"] = (result) => show(result, render);
    handlers["ui/notifications/tool-cancelled"] = (p) =>
      replace(el("p", { class: "muted" }, "Chamada cancelada" + (p.reason ? ": " + p.reason : ".")));
    try {
      const init = await request("ui/initialize", {
        protocolVersion: PROTOCOL,
        appInfo: { name: "kobana-view", version: "1" },
        appCapabilities: { availableDisplayModes: ["inline"] },
      });
      K.host = init || {};
      applyContext(K.host.hostContext);
      notify("ui/notifications/initialized", {});
    } catch (error) {
      replace(el("p", { class: "error" }, "Não foi possível falar com o aplicativo: " + error.message));
    }
    watchSize();
  }

  function errorText(result) {
    const parts = (result.content || []).filter((c) => c.type === "text").map((c) => c.text);
    return parts.join("\n") || "A chamada falhou sem dizer por quê.";
  }

  function show(result, render) {
    if (!result || result.isError) {
      replace(el("div", { class: "error", role: "alert" }, errorText(result || {})));
      return;
    }
    if (!result.structuredContent) {
      replace(el("p", { class: "muted" }, errorText(result)));
      return;
    }
    try {
      render(result.structuredContent);
    } catch (error) {
      replace(el("div", { class: "error" }, "Não foi possível mostrar este resultado: " + error.message));
    }
  }

  // Calls one of the server's read tools through the host; resolves with its result.
  const callTool = (name, args) => request("tools/call", { name, arguments: args || {} });

  function el(tag, attrs, ...children) {
    const node = tag === "svg" || attrs && attrs.svg
      ? document.createElementNS("http://www.w3.org/2000/svg", tag)
      : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "svg" || v === undefined || v === null || v === false) continue;
      if (k === "onclick") node.addEventListener("click", v);
      else node.setAttribute(k, String(v));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function replace(...nodes) {
    const main = document.getElementById("app");
    main.replaceChildren(...nodes.flat(2).filter(Boolean));
  }

  // R$ 1.234,56 from centavos, as the server writes it.
  function brl(cents) {
    if (typeof cents !== "number" || !isFinite(cents)) return "—";
    const negative = cents < 0;
    const abs = Math.round(Math.abs(cents));
    const reais = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ".");
    return (negative ? "-" : "") + "R$ " + reais + "," + String(abs % 100).padStart(2, "0");
  }

  // dd/mm/aaaa from a calendar day or the first ten characters of an ISO value.
  function day(text) {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text || "");
    return m ? m[3] + "/" + m[2] + "/" + m[1] : "—";
  }

  // dd/mm/aaaa hh:mm of an ISO instant, in its own offset (the server sends São Paulo's).
  function when(text) {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(text || "");
    return m ? m[3] + "/" + m[2] + "/" + m[1] + " " + m[4] + ":" + m[5] : "—";
  }

  const STATUS = {
    draft: ["Rascunho", ""], open: ["Em aberto", "warning"], paid: ["Paga", "success"],
    void: ["Anulada", ""], uncollectible: ["Incobrável", "danger"],
    active: ["Ativa", "success"], trialing: ["Em teste", ""], past_due: ["Em atraso", "danger"],
    canceled: ["Cancelada", ""], paused: ["Pausada", ""], suspended: ["Suspensa", "danger"],
  };
  function badge(status, overdueDays) {
    if (status === "open" && overdueDays > 0) {
      return el("span", { class: "badge danger" }, "Vencida há " + overdueDays + (overdueDays === 1 ? " dia" : " dias"));
    }
    const [label, tone] = STATUS[status] || [status || "?", ""];
    return el("span", { class: "badge " + tone }, label);
  }

  // Copies text through the clipboard, or by selecting it where the host allows no clipboard.
  async function copy(text, button) {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = el("textarea", {}, text);
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    const label = button.textContent;
    button.textContent = "Copiado";
    setTimeout(() => (button.textContent = label), 1500);
  }

  const openLink = (url) => request("ui/open-link", { url });

  return { start, callTool, el, replace, brl, day, when, badge, copy, openLink, errorText, host: {} };
})();
