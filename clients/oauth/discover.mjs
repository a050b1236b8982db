// A real OAuth discovery from no token, for tests/it/clients/oauth_discovery.rs:
//
//   node discover.mjs SDK MODE MCP_URL [METADATA_URL] [call]
//
// SDK: `v1` (@modelcontextprotocol/sdk) or `v2` (@modelcontextprotocol/client), both from
// ../node_modules. The SDK's own OAuth support does the work, with an in-memory
// OAuthClientProvider; the only stand-in for a person is following the authorization URL's
// redirect (the stand-in authorization server approves at once) to read the code.
// MODE `challenge`: connect with no token, so the 401's WWW-Authenticate leads the SDK
// (path-suffixed metadata URL). MODE `root`: the client is configured with METADATA_URL (the
// root `/.well-known/oauth-protected-resource`) and runs the SDK's `auth()` before connecting.
// Then it lists tools and, with `call`, calls billing_organization_get with the token the flow
// got. Prints one JSON line: { ok, tools?, call?: {isError, text, organizationId}, error?,
// authorizationUrl?, fetches: [{method, url, status}] }.
const [sdk, mode, mcpUrl, metadataUrl, andCall] = process.argv.slice(2);
if (!["v1", "v2"].includes(sdk) || !["challenge", "root"].includes(mode) || !mcpUrl) {
  console.error("usage: node discover.mjs v1|v2 challenge|root MCP_URL [METADATA_URL]");
  process.exit(2);
}
const TIMEOUT_MS = 60_000;

const { Client, StreamableHTTPClientTransport, auth, UnauthorizedError } =
  sdk === "v1"
    ? {
        ...(await import("@modelcontextprotocol/sdk/client/index.js")),
        ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
        ...(await import("@modelcontextprotocol/sdk/client/auth.js")),
      }
    : await import("@modelcontextprotocol/client");

const fetches = [];
const recordingFetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = typeof input === "string" ? input : input.url ?? String(input);
  fetches.push({ method: init?.method ?? "GET", url: String(url), status: response.status });
  return response;
};

/** An MCP client's OAuth state, in memory (a real app keeps it in its own storage). */
class MemoryProvider {
  constructor() {
    this.client = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.authorizationUrl = undefined;
  }
  get redirectUrl() {
    return "http://127.0.0.1:8976/oauth/callback";
  }
  get clientMetadata() {
    return {
      client_name: `kobana-mcp oauth discovery (${sdk})`,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = new URL(url);
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  saveDiscoveryState(state) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }
}

/** The person's part: open the authorization URL and come back with the code. */
async function approve(provider) {
  if (!provider.authorizationUrl) throw new Error("the SDK never asked to authorize");
  const response = await recordingFetch(provider.authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`authorization answered ${response.status} without a redirect`);
  const back = new URL(location);
  if (back.searchParams.get("error")) throw new Error(`authorization refused: ${back.searchParams.get("error")}`);
  if (back.searchParams.get("state") !== provider.authorizationUrl.searchParams.get("state")) {
    throw new Error("state mismatch");
  }
  return back.searchParams.get("code");
}

/** Lists the tools and, with `call`, calls one read (whose answer depends on Kobana taking
 * the token). */
async function listTools(provider) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: provider,
    fetch: recordingFetch,
  });
  const client = new Client({ name: `kobana-mcp-oauth-${sdk}`, version: "0.0.1" });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  let call;
  if (andCall === "call") {
    const result = await client.callTool({ name: "billing_organization_get", arguments: {} });
    call = {
      isError: result.isError === true,
      text: result.content?.find((c) => c.type === "text")?.text ?? "",
      organizationId: result.structuredContent?.organization?.id ?? null,
    };
  }
  await client.close();
  return { tools, call };
}

async function main() {
  const provider = new MemoryProvider();
  if (mode === "challenge") {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      authProvider: provider,
      fetch: recordingFetch,
    });
    const client = new Client({ name: `kobana-mcp-oauth-${sdk}`, version: "0.0.1" });
    try {
      await client.connect(transport);
      throw new Error("connected without a token: the server sent no 401");
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    await transport.finishAuth(await approve(provider));
  } else {
    const options = { serverUrl: mcpUrl, resourceMetadataUrl: new URL(metadataUrl), fetchFn: recordingFetch };
    const first = await auth(provider, options);
    if (first !== "REDIRECT") throw new Error(`auth() answered ${first}, expected REDIRECT`);
    const second = await auth(provider, { ...options, authorizationCode: await approve(provider) });
    if (second !== "AUTHORIZED") throw new Error(`auth() answered ${second}, expected AUTHORIZED`);
  }
  const { tools, call } = await listTools(provider);
  return { ok: true, tools, call, authorizationUrl: provider.authorizationUrl?.href, tokenScope: provider.saved?.scope ?? null };
}

const timer = setTimeout(() => {
  console.error(`discovery timed out after ${TIMEOUT_MS} ms`);
  process.exit(3);
}, TIMEOUT_MS);
let out;
try {
  out = await main();
} catch (error) {
  out = { ok: false, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
}
clearTimeout(timer);
process.stdout.write(JSON.stringify({ ...out, fetches }) + "\n");
process.exit(0);
