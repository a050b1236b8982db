// Mastra's MCP client (@mastra/mcp) in the client-library matrix (see harness.mjs).
import { createRequire } from 'node:module';
import { main, textOf, contentsOf } from './harness.mjs';

// --- README snippet: Mastra ---
import { MCPClient } from '@mastra/mcp';

/** kobana-mcp for a Mastra agent (`tools: await mcp.listTools()`); `ask` confirms. */
export function kobanaClient(url, token, ask) {
  return new MCPClient({
    id: `kobana-${Math.random().toString(36).slice(2)}`,
    servers: {
      kobana: {
        url: new URL(url),
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
        inputRequests: async ({ params }) =>
          (await ask(params.message)) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
      },
    },
  });
}
// --- end of snippet ---

const never = (message) => {
  throw new Error(`no confirmation expected here: ${message}`);
};

async function using(url, token, ask, body) {
  const mcp = kobanaClient(url, token, ask);
  try {
    return await body(mcp);
  } finally {
    await mcp.disconnect();
  }
}

const version = createRequire(import.meta.url)('@mastra/mcp/package.json').version;

await main((url) => ({
  library: '@mastra/mcp',
  version,
  elicitation: true,
  tools: (token) => using(url, token, never, async (m) => Object.keys((await m.listToolsets()).kobana ?? {})),
  call: (token, name, args, ask) =>
    using(url, token, ask, async (m) => {
      const tool = (await m.listToolsets()).kobana[name];
      let result;
      try {
        result = await tool.execute(args, {});
      } catch (error) {
        // Mastra turns a tool result with isError into a thrown error carrying its text.
        return { isError: true, text: String(error?.message ?? error) };
      }
      if (result && Array.isArray(result.content)) return { isError: result.isError === true, text: textOf(result) };
      return { isError: result?.isError === true || result?.error !== undefined, text: JSON.stringify(result) };
    }),
  read: (token, uri) => using(url, token, never, async (m) => contentsOf(await m.resources.read('kobana', uri))),
  prompt: (token, name, args) =>
    using(url, token, never, async (m) => {
      const { messages } = await m.prompts.get({ serverName: 'kobana', name, args });
      return messages.map((msg) => {
        if (msg.content.type !== 'text') throw new Error(`prompt content is ${msg.content.type}`);
        return msg.content.text;
      });
    }),
}));
