// The in-page half of the browser (CORS) test: bundled for the browser by run.mjs with the
// official TypeScript client (@modelcontextprotocol/client v2), served from a loopback origin
// other than the server's, and run in headless Chromium.
//
// `window.kobanaScenario({ url, token, metadataUrl })` runs every step and returns
// `{ step: { ok, result | error } }`; it never throws, so a refused origin is a result too.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

async function step(fn) {
  try {
    return { ok: true, result: await fn() };
  } catch (error) {
    return { ok: false, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
  }
}

async function scenario({ url, token, metadataUrl }) {
  const out = {};
  // What an OAuth-capable client reads first: the 401 and its challenge (an exposed header).
  out.challenge = await step(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    return { status: response.status, wwwAuthenticate: response.headers.get("www-authenticate") };
  });
  // The protected-resource metadata, as the SDK fetches it (its version header forces a preflight).
  out.metadata = await step(async () => {
    const response = await fetch(metadataUrl, { headers: { "MCP-Protocol-Version": "2025-11-25" } });
    return { status: response.status, body: await response.json() };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: "kobana-mcp-browser", version: "0.0.1" },
    { versionNegotiation: { mode: "auto" } },
  );
  out.connect = await step(async () => {
    await client.connect(transport);
    return { protocolVersion: client.getNegotiatedProtocolVersion() ?? null };
  });
  if (!out.connect.ok) return out;
  out.listTools = await step(async () => (await client.listTools()).tools.map((t) => t.name));
  out.callTool = await step(async () => {
    const result = await client.callTool({ name: "billing_customers_list", arguments: {} });
    return { isError: result.isError === true, structuredContent: result.structuredContent ?? null };
  });
  out.readResource = await step(async () => {
    const result = await client.readResource({ uri: "kobana://billing/organization" });
    return result.contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, text: c.text ?? null }));
  });
  await step(() => client.close());
  return out;
}

window.kobanaScenario = scenario;
