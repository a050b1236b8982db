// Real-client smoke test: the TypeScript SDK v1 client (@modelcontextprotocol/sdk), legacy era only.
//
// Usage: node ts_v1.mjs URL TOKEN
//
// Runs the `initialize` handshake, lists every tool, calls `billing_customers_list` with `{}`,
// then (CL-7) `billing_customers_get` with an id that does not exist — a tool error, which this
// SDK checks against the tool's output schema once it has listed the tools — and prints exactly
// one JSON line on stdout. Any failure (the SDK throwing included) goes to stderr with a
// non-zero exit code.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const OVERALL_TIMEOUT_MS = 90_000;

function firstText(result) {
  const block = (result.content ?? []).find((c) => c && c.type === "text");
  return block ? block.text : null;
}

async function main() {
  const [url, token] = process.argv.slice(2);
  if (!url || !token) {
    throw new Error("usage: node ts_v1.mjs URL TOKEN");
  }

  // Record any Mcp-Session-Id the server hands out, on any response (a stateless server must not).
  let observedSessionId = null;
  const observingFetch = async (input, init) => {
    const response = await fetch(input, init);
    const sid = response.headers.get("mcp-session-id");
    if (sid) observedSessionId = sid;
    return response;
  };

  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: observingFetch,
  });
  const client = new Client({ name: "kobana-mcp-smoke-ts-v1", version: "0.0.1" });

  await client.connect(transport);
  try {
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);

    const result = await client.callTool({ name: "billing_customers_list", arguments: {} });
    const failed = await client.callTool({
      name: "billing_customers_get",
      arguments: { id: "00000000-0000-4000-8000-000000000000" },
    });

    const out = {
      client: "ts-v1",
      protocolVersion: transport.protocolVersion ?? null,
      sessionId: transport.sessionId ?? observedSessionId ?? null,
      tools,
      call: {
        isError: result.isError === true,
        structuredContent: result.structuredContent ?? null,
        text: firstText(result),
      },
      failedCall: {
        isError: failed.isError === true,
        structuredContent: failed.structuredContent ?? null,
        error: failed._meta?.["br.com.kobana/error"] ?? null,
        text: firstText(failed),
      },
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await client.close();
  }
}

const timer = setTimeout(() => {
  process.stderr.write(`ts-v1: timed out after ${OVERALL_TIMEOUT_MS} ms\n`);
  process.exit(3);
}, OVERALL_TIMEOUT_MS);
timer.unref();

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`ts-v1: ${err && err.stack ? err.stack : String(err)}\n`);
    for (let c = err && err.cause, depth = 0; c && depth < 5; c = c.cause, depth++) {
      process.stderr.write(`caused by: ${String(c)}\n`);
    }
    process.exit(1);
  },
);
