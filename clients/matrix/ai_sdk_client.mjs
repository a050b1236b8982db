// The Vercel AI SDK's MCP client (@ai-sdk/mcp) in the client-library matrix (see harness.mjs).
import { createRequire } from 'node:module';
import { main, textOf, contentsOf } from './harness.mjs';

// --- README snippet: AI SDK ---
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';

/** kobana-mcp for the AI SDK (`tools: await client.tools()`); `ask` confirms destructive tools. */
export async function kobanaClient(url, token, ask) {
  const client = await createMCPClient({
    transport: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
    capabilities: { elicitation: { form: {} } },
  });
  client.onElicitationRequest(ElicitationRequestSchema, async (request) =>
    (await ask(request.params.message))
      ? { action: 'accept', content: { confirm: true } }
      : { action: 'decline' },
  );
  return client;
}
// --- end of snippet ---

const never = (message) => {
  throw new Error(`no confirmation expected here: ${message}`);
};

async function using(url, token, ask, body) {
  const client = await kobanaClient(url, token, ask);
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

const version = createRequire(import.meta.url)('@ai-sdk/mcp/package.json').version;

await main((url) => ({
  library: '@ai-sdk/mcp',
  version,
  elicitation: true,
  tools: (token) => using(url, token, never, async (c) => (await c.listTools()).tools.map((t) => t.name)),
  call: (token, name, args, ask) =>
    using(url, token, ask, async (c) => {
      const result = await c.callTool({ name, arguments: args });
      return { isError: result.isError === true, text: textOf(result) };
    }),
  read: (token, uri) => using(url, token, never, async (c) => contentsOf(await c.readResource({ uri }))),
  prompt: (token, name, args) =>
    using(url, token, never, async (c) => (await c.getPrompt({ name, arguments: args })).messages.map((m) => m.content.text ?? (() => { throw new Error(`prompt content is ${m.content.type}`); })())),
}));
