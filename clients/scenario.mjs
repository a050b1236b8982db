// Scenario runner on the official TypeScript SDK v2 client (@modelcontextprotocol/client).
//
// Usage: node scenario.mjs URL TOKEN MODE ELICIT < steps.json
// MODE: `auto` (era 2026 here) or `legacy` (initialize, era 2025). ELICIT: accept,
// accept_false, decline or cancel. Steps and output as in scenario.py.
import { createHash } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function summarizeBlobs(result) {
  for (const content of result?.contents ?? []) {
    if (typeof content.blob === "string") {
      const raw = Buffer.from(content.blob, "base64");
      delete content.blob;
      content.blob_len = raw.length;
      content.blob_sha256 = createHash("sha256").update(raw).digest("hex");
    }
  }
  return result;
}

async function main() {
  const [url, token, mode, elicit] = process.argv.slice(2);
  if (!url || !token || !mode || !elicit) throw new Error("usage: node scenario.mjs URL TOKEN MODE ELICIT < steps.json");
  const steps = await readStdin();
  const shown = [];
  const client = new Client(
    { name: "kobana-mcp-scenario-ts", version: "0.0.1" },
    { versionNegotiation: { mode: mode === "legacy" ? "legacy" : "auto" }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    shown.push(request.params?.message ?? "");
    if (elicit === "accept") return { action: "accept", content: { confirm: true } };
    if (elicit === "accept_false") return { action: "accept", content: { confirm: false } };
    return { action: elicit };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }));
  const results = [];
  try {
    for (const step of steps) {
      try {
        let value;
        switch (step.op) {
          case "list_tools": value = await client.listTools(); break;
          case "list_resources": value = await client.listResources(); break;
          case "list_templates": value = await client.listResourceTemplates(); break;
          case "list_prompts": value = await client.listPrompts(); break;
          case "call_tool": value = await client.callTool({ name: step.name, arguments: step.arguments ?? {} }); break;
          case "read_resource": value = summarizeBlobs(await client.readResource({ uri: step.uri })); break;
          case "get_prompt": value = await client.getPrompt({ name: step.name, arguments: step.arguments ?? {} }); break;
          case "complete": value = await client.complete({ ref: step.ref, argument: step.argument, ...(step.context ? { context: { arguments: step.context } } : {}) }); break;
          default: throw new Error(`unknown op ${step.op}`);
        }
        results.push({ ok: true, result: value });
      } catch (error) {
        if (typeof error?.code === "number") {
          results.push({ ok: false, error: { code: error.code, message: error.message, data: error.data ?? null } });
        } else {
          throw error;
        }
      }
    }
    const out = { protocolVersion: client.getNegotiatedProtocolVersion() ?? null, elicitations: shown, steps: results };
    // Wait for the pipe to take everything: process.exit would cut a large write short.
    await new Promise((resolve) => process.stdout.write(`${JSON.stringify(out)}\n`, resolve));
  } finally {
    await client.close();
  }
}

const timer = setTimeout(() => { process.stderr.write("scenario.mjs: timed out\n"); process.exit(3); }, 240_000);
timer.unref();
main().then(() => process.exit(0), (err) => {
  process.stderr.write(`scenario.mjs: ${err?.stack ?? String(err)}\n`);
  process.exit(1);
});
