// The token front's browser half, run by tests/it/token_front/browser.rs with Node 22:
//
//   node token_front.mjs MCP_URL TOKEN BAD_TOKEN CHROMIUM KOBANA_URL
//
// From no token to a tools/call, three times: the official TypeScript SDK's own OAuth client
// (v2 @modelcontextprotocol/client and v1 @modelcontextprotocol/sdk, from ../node_modules)
// connects, gets the 401, discovers the front, registers (RFC 7591) — or, in the `v2-cimd`
// run, uses a client ID metadata document this driver serves — and asks to authorize; headless
// Chromium (Debian's, through puppeteer-core) then plays the person: it opens the
// authorization URL, pastes a token Kobana rejects, reads the refusal, pastes the real one,
// reads the organization, chooses what the host may do (`access`: `full`, or `read` in the
// `v2-cimd` run), presses "Conectar" and lands on this driver's callback; the SDK redeems the
// code and calls a tool with the token it got. Then it lists the tools, tries a write, and
// sends the access token to Kobana itself (KOBANA_URL), which must refuse it.
//
// Then the framing check: a page on another loopback origin (http://localhost:PORT) frames
// the authorization page and, as a control, the protected-resource metadata.
//
// Prints one JSON line: { runs: { name: {...} }, framing: {...}, console: [...] }.
import http from "node:http";
import { randomBytes } from "node:crypto";

import puppeteer from "puppeteer-core";

const TIMEOUT_MS = 120_000;
const RUNS = [
  ["v2-dcr", "v2", false, "full"],
  ["v1-dcr", "v1", false, "full"],
  ["v2-cimd", "v2", true, "read"],
];
/// A write tool every full billing token may run.
const WRITE_TOOL = "billing_customers_create";

async function sdk(version) {
  return version === "v1"
    ? {
        ...(await import("@modelcontextprotocol/sdk/client/index.js")),
        ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
        ...(await import("@modelcontextprotocol/sdk/client/auth.js")),
      }
    : await import("@modelcontextprotocol/client");
}

/** The callback and metadata-document server: records every callback it receives. */
function startHelper() {
  const callbacks = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const base = `http://127.0.0.1:${server.address().port}`;
    if (url.pathname === "/callback") {
      callbacks.push(Object.fromEntries(url.searchParams));
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>ok</title><p id=done>ok</p>");
    } else if (url.pathname === "/client.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({
        client_id: `${base}/client.json`,
        client_name: "Cliente por documento",
        redirect_uris: [`${base}/callback`],
        token_endpoint_auth_method: "none",
      }));
    } else if (url.pathname === "/frame") {
      const src = (name) => url.searchParams.get(name).replaceAll('"', "&quot;");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>frames</title><iframe id=front name=front src="${src("front")}"></iframe>` +
        `<iframe id=control name=control src="${src("control")}"></iframe>`);
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, callbacks, port: server.address().port })),
  );
}

/** An MCP client's OAuth state, in memory, with a random `state`. */
class MemoryProvider {
  constructor(redirectUrl, clientId) {
    this.redirect = redirectUrl;
    this.client = clientId ? { client_id: clientId } : undefined;
    this.sentState = randomBytes(12).toString("base64url") + "/é";
  }
  get redirectUrl() { return this.redirect; }
  get clientMetadata() {
    return {
      client_name: "Teste com o SDK",
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() { return this.sentState; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  redirectToAuthorization(url) { this.authorizationUrl = new URL(url); }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  saveDiscoveryState(state) { this.discovery = state; }
  discoveryState() { return this.discovery; }
}

/** The person's part in Chromium: refused token, real token, organization, "Conectar". */
async function person(browser, authorizationUrl, token, badToken, access) {
  const page = await browser.newPage();
  try {
    const first = await page.goto(authorizationUrl, { waitUntil: "load" });
    const headers = first.headers();
    if (!(await page.$("#token"))) {
      throw new Error(`no token field (HTTP ${first.status()}): ${await page.evaluate(() => document.body.innerText)}`);
    }
    await page.type("#token", badToken);
    await Promise.all([page.waitForNavigation(), page.click("button[value=check]")]);
    const refusal = await page.$eval(".notice", (e) => e.textContent);
    await page.type("#token", token);
    await Promise.all([page.waitForNavigation(), page.click("button[value=check]")]);
    const organization = await page.$eval("#organization", (e) => e.textContent);
    const returnsTo = await page.$eval("#returns-to", (e) => e.textContent);
    await page.click(`input[name=access][value=${access}]`);
    await Promise.all([page.waitForNavigation(), page.click("button[value=allow]")]);
    const landed = page.url();
    return {
      csp: headers["content-security-policy"] ?? null,
      xFrameOptions: headers["x-frame-options"] ?? null,
      refusal,
      organization,
      returnsTo,
      landed,
    };
  } finally {
    await page.close();
  }
}

/** What the access token may do at /mcp and at Kobana itself. */
async function afterwards(client, accessToken, kobanaUrl) {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  let writeError = null;
  try {
    await client.callTool({ name: WRITE_TOOL, arguments: { name: "x", document_number: "1" } });
  } catch (error) {
    writeError = `${error?.code ?? ""} ${error?.message ?? error}`;
  }
  const atKobana = await fetch(`${kobanaUrl}/v1/organization`, {
    headers: { authorization: `Bearer ${accessToken}`, "user-agent": "a host that kept its token" },
  });
  return { tools, writeError, kobanaStatus: atKobana.status };
}

async function run(name, version, cimd, access, ctx) {
  const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await sdk(version);
  const base = `http://127.0.0.1:${ctx.helper.port}`;
  const provider = new MemoryProvider(`${base}/callback`, cimd ? `${base}/client.json` : undefined);
  const fetches = [];
  const fetchFn = async (input, init) => {
    const response = await fetch(input, init);
    const url = typeof input === "string" ? input : input.url ?? String(input);
    fetches.push({ method: init?.method ?? "GET", url: String(url), status: response.status });
    return response;
  };
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(ctx.mcpUrl), { authProvider: provider, fetch: fetchFn });
    const client = new Client({ name: `kobana-token-front-${name}`, version: "0.0.1" });
    await client.connect(transport);
    return { client, transport };
  };
  let transport;
  try {
    await connect();
    throw new Error("connected without a token");
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  transport = new StreamableHTTPClientTransport(new URL(ctx.mcpUrl), { authProvider: provider, fetch: fetchFn });
  const before = ctx.helper.callbacks.length;
  const seen = await person(ctx.browser, provider.authorizationUrl.href, ctx.token, ctx.badToken, access);
  const callback = ctx.helper.callbacks[before];
  if (!callback?.code) throw new Error(`no code came back: ${JSON.stringify(callback)}`);
  const params = new URLSearchParams(callback);
  await (version === "v1" ? transport.finishAuth(callback.code) : transport.finishAuth(params));
  const { client } = await connect();
  const result = await client.callTool({ name: "billing_organization_get", arguments: {} });
  const after = await afterwards(client, provider.saved?.access_token, ctx.kobanaUrl);
  await client.close();
  return {
    ok: true,
    ...seen,
    authorizationUrl: provider.authorizationUrl.href,
    clientId: provider.client?.client_id ?? null,
    stateSent: provider.sentState,
    stateBack: callback.state ?? null,
    code: callback.code,
    iss: callback.iss ?? null,
    access,
    ...after,
    accessToken: provider.saved?.access_token ?? null,
    expiresIn: provider.saved?.expires_in ?? null,
    refreshToken: provider.saved?.refresh_token ?? null,
    toolIsError: result.isError === true,
    toolText: result.content?.[0]?.text?.slice(0, 400) ?? null,
    fetches,
  };
}

async function framing(browser, helperPort, authorizationUrl, controlUrl) {
  const page = await browser.newPage();
  try {
    const url = `http://localhost:${helperPort}/frame?front=${encodeURIComponent(authorizationUrl)}` +
      `&control=${encodeURIComponent(controlUrl)}`;
    await page.goto(url, { waitUntil: "load" });
    await new Promise((r) => setTimeout(r, 1000));
    const out = { pageOrigin: await page.evaluate(() => window.location.origin), frames: [] };
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const text = await frame.evaluate(() => document.body?.innerText ?? "").catch((e) => `error: ${e.message}`);
      const tokenInput = await frame.$("input[name=token]").then((h) => h !== null).catch(() => false);
      out.frames.push({ name: frame.name(), url: frame.url(), tokenInput, text: text.slice(0, 300) });
    }
    return out;
  } finally {
    await page.close();
  }
}

async function main() {
  const [mcpUrl, token, badToken, chromium, kobanaUrl] = process.argv.slice(2);
  if (!mcpUrl || !token || !badToken || !chromium || !kobanaUrl) {
    throw new Error("usage: node token_front.mjs MCP_URL TOKEN BAD_TOKEN CHROMIUM KOBANA_URL");
  }
  const helper = await startHelper();
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const consoleLines = [];
  browser.on("targetcreated", async (target) => {
    const page = await target.page().catch(() => null);
    page?.on("console", (m) => consoleLines.push(m.text()));
  });
  const ctx = { mcpUrl, token, badToken, browser, helper, kobanaUrl };
  const runs = {};
  try {
    for (const [name, version, cimd, access] of RUNS) {
      try {
        runs[name] = await run(name, version, cimd, access, ctx);
      } catch (error) {
        runs[name] = { ok: false, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
      }
    }
    const authorizationUrl = runs["v2-dcr"]?.authorizationUrl ?? `${mcpUrl.replace(/\/mcp$/, "")}/oauth/authorize`;
    const control = mcpUrl.replace(/\/mcp$/, "/.well-known/oauth-protected-resource/mcp");
    const frames = await framing(browser, helper.port, authorizationUrl, control);
    process.stdout.write(JSON.stringify({ runs, framing: frames, console: consoleLines }) + "\n");
  } finally {
    await browser.close();
    helper.server.close();
  }
}

const timer = setTimeout(() => {
  console.error(`token front run timed out after ${TIMEOUT_MS} ms`);
  process.exit(2);
}, TIMEOUT_MS);
main().then(
  () => { clearTimeout(timer); process.exit(0); },
  (error) => { console.error(error?.stack ?? String(error)); process.exit(1); },
);
