// Peer server for the benchmark: the same MCP tool surface as kobana-mcp, served by the
// official TypeScript SDK v2 (@modelcontextprotocol/server) statelessly over Streamable HTTP.
//
//   node ts_peer.mjs --port PORT --tools tools.json --upstream http://127.0.0.1:FAKE --sdk DIR
//
// * Tools: every entry of OUR tools/list output (tools.json) is registered with McpServer
//   .registerTool, input and output schemas passed through fromJsonSchema, same title,
//   description and annotations.
// * Serving: createMcpHandler(factory) — the SDK's stateless entry: a fresh McpServer per
//   request (the documented idiom; the schemas are converted once, at start), 2026-07-28
//   requests answered as plain JSON (responseMode "json"), 2025 requests through the SDK's
//   stateless legacy fallback. Host/Origin checks in front, as the SDK recommends (ours
//   does the same). Plain node:http with keep-alive; the JSON body is parsed once and
//   handed over as parsedBody (the SDK's documented fast path).
// * Calls: a list tool (the benchmarked call is billing_customers_list) is forwarded to the same
//   fake Kobana with the caller's bearer token, arguments mapped to the same path and query as
//   ours (GET /v1/customers?search&kind&page&per_page&sort_by&sort_order, page 1 and 20 per page
//   by default), answered in the same shape (structuredContent {customers, page, per_page, total,
//   total_pages, next_page[, hint]} and its JSON as the text block), without ours' *_brl /
//   *_sao_paulo fields: less work than ours. Other tools are registered, never called.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  console.error(`ts_peer: missing --${name}`);
  process.exit(2);
}

const port = Number(arg("port"));
const tools = JSON.parse(fs.readFileSync(arg("tools"), "utf8")).tools;
const upstream = arg("upstream").replace(/\/$/, "") + "/v1";
const sdk = await import(pathToFileURL(path.join(arg("sdk"), "dist", "index.mjs")).href);
const {
  McpServer,
  createMcpHandler,
  fromJsonSchema,
  hostHeaderValidationResponse,
  originValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
} = sdk;

const USER_AGENT = "Kobana MCP Peer (TypeScript SDK) <suporte@kobana.com.br>";

const prepared = tools.map((t) => ({
  name: t.name,
  config: {
    title: t.title,
    description: t.description,
    inputSchema: fromJsonSchema(t.inputSchema),
    outputSchema: t.outputSchema ? fromJsonSchema(t.outputSchema) : undefined,
    annotations: t.annotations,
  },
}));

function ok(structured) {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

function failed(message) {
  return { content: [{ type: "text", text: message }], isError: true };
}

async function forward(name, args, auth) {
  const resource = /^billing_([a-z]+)_list$/.exec(name)?.[1];
  if (!resource) return failed(`${name}: the peer serves only the benchmarked list calls`);
  const page = args?.page ?? 1;
  const perPage = args?.per_page ?? 20;
  const query = Object.entries(args ?? {})
    .filter(([k, v]) => !["page", "per_page", "sort_by", "sort_order"].includes(k) && v != null)
    .map(([k, v]) => [k, String(v)]);
  query.push(["page", String(page)], ["per_page", String(perPage)]);
  for (const k of ["sort_by", "sort_order"]) if (args?.[k]) query.push([k, String(args[k])]);
  const res = await fetch(`${upstream}/${resource}?${new URLSearchParams(query)}`, {
    // Kobana's document asks Content-Type of every request, bodyless ones too (docs/contract.md).
    headers: { authorization: auth ?? "", "user-agent": USER_AGENT, accept: "application/json", "content-type": "application/json" },
  });
  const json = await res.json().catch(() => ({}));
  if (res.status !== 200) return failed(`Kobana answered ${res.status}: ${JSON.stringify(json)}`);
  const meta = json.meta ?? {};
  const data = json.data ?? [];
  const total = meta.total ?? data.length;
  const pp = meta.per_page ?? perPage;
  const pg = meta.page ?? page;
  const totalPages = Math.max(1, meta.total_pages ?? Math.ceil(total / Math.max(1, pp)));
  const structured = { [resource]: data, page: pg, per_page: pp, total, total_pages: totalPages, next_page: pg < totalPages ? pg + 1 : null };
  if (structured.next_page) {
    structured.hint = `${total} no total; esta é a página ${pg} de ${totalPages}. Para a próxima, chame de novo com page=${structured.next_page}.`;
  }
  return ok(structured);
}

function factory(ctx) {
  const auth = ctx.requestInfo?.headers.get("authorization") ?? undefined;
  const server = new McpServer({ name: "peer-ts", version: "0.0.0" });
  for (const t of prepared) {
    server.registerTool(t.name, t.config, async (args) => forward(t.name, args, auth));
  }
  return server;
}

const handler = createMcpHandler(factory, { responseMode: "json" });
const allowedHosts = localhostAllowedHostnames();
const allowedOrigins = localhostAllowedOrigins();

async function guarded(request, parsedBody) {
  const rejected =
    hostHeaderValidationResponse(request, allowedHosts) ?? originValidationResponse(request, allowedOrigins);
  return rejected ?? (await handler.fetch(request, parsedBody === undefined ? undefined : { parsedBody }));
}

const server = http.createServer({ keepAliveTimeout: 60_000, noDelay: true }, async (req, res) => {
  try {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const hasBody = raw.length > 0 && req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? raw : undefined,
    });
    let parsedBody;
    if (hasBody) {
      try {
        parsedBody = JSON.parse(raw.toString("utf8"));
      } catch {
        parsedBody = undefined;
      }
    }
    const response = await guarded(request, parsedBody);
    const out = Buffer.from(await response.arrayBuffer());
    const outHeaders = {};
    response.headers.forEach((v, k) => {
      outHeaders[k] = v;
    });
    outHeaders["content-length"] = String(out.length);
    res.writeHead(response.status, outHeaders);
    res.end(out);
  } catch (error) {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(String(error));
  }
});
server.listen(port, "127.0.0.1", () => {
  console.log(`ts_peer listening on http://127.0.0.1:${port}/mcp (${tools.length} tools)`);
});
