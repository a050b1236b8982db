// mcp-remote (stdio bridge) in the client-library matrix (see harness.mjs): the command line of
// the README's Claude Desktop entry, launched as a stdio server and driven by the official
// TypeScript client over stdio, as Claude Desktop does. The plan adds
//   "bridge": {"args": [...after `npx -y mcp-remote@VERSION`], "env": {NAME: "... <token> ..."}}
// with the README's URL placeholder already replaced by the test's URL.
//
// Usage: node mcp_remote_client.mjs < plan.json
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { main, textOf, contentsOf } from './harness.mjs';

const require = createRequire(import.meta.url);
const version = require('mcp-remote/package.json').version;
const proxy = require.resolve('mcp-remote/dist/proxy.js');

let bridge;

// The 9.9 MB PDF is ~13.2 MB of JSON on one stdio line; the TypeScript SDK's stdio transport
// refuses lines over 10 MiB by default, so this host (standing in for Claude Desktop) takes 32 MiB.
const HOST_MAX_MESSAGE = 32 * 1024 * 1024;

// One bridge per token for the whole run (a bridge process per cell would cost ~3 s each);
// `currentAsk` is how the person answers the next question.
const bridges = new Map();
let currentAsk = null;

async function connect(token) {
  const env = { ...process.env };
  for (const [name, value] of Object.entries(bridge.env)) env[name] = value.replaceAll('<token>', token);
  const client = new Client(
    { name: 'kobana-matrix-stdio-host', version: '0.0.1' },
    { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) =>
    currentAsk(request.params?.message ?? '') ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [proxy, ...bridge.args], env, stderr: 'inherit', maxBufferSize: HOST_MAX_MESSAGE }),
  );
  return client;
}

async function using(token, ask, body) {
  if (!bridges.has(token)) bridges.set(token, await connect(token));
  currentAsk = ask;
  return body(bridges.get(token));
}

const never = (message) => {
  throw new Error(`no confirmation expected here: ${message}`);
};

await main(async () => {
  const { readFileSync } = await import('node:fs');
  bridge = JSON.parse(readFileSync(process.env.KOBANA_MATRIX_BRIDGE, 'utf8'));
  const auto = bridge.args.includes('auto');
  return {
    close: async () => {
      for (const client of bridges.values()) await client.close();
    },
    library: 'mcp-remote',
    version,
    // Only with `--protocol auto` does the bridge speak era 2026 and pass the question on.
    elicitation: auto,
    tools: (token) => using(token, never, async (c) => (await c.listTools()).tools.map((t) => t.name)),
    call: (token, name, args, ask) =>
      using(token, ask, async (c) => {
        const result = await c.callTool({ name, arguments: args });
        return { isError: result.isError === true, text: textOf(result) };
      }),
    read: (token, uri) => using(token, never, async (c) => contentsOf(await c.readResource({ uri }))),
    prompt: (token, name, args) =>
      using(token, never, async (c) =>
        (await c.getPrompt({ name, arguments: args })).messages.map((m) => {
          if (m.content.type !== 'text') throw new Error(`prompt content is ${m.content.type}`);
          return m.content.text;
        }),
      ),
  };
});
