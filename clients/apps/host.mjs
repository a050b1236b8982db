// The in-page half of the views test: a minimal MCP Apps host built on the official
// @modelcontextprotocol/ext-apps AppBridge (host side of the postMessage protocol) and the
// official TypeScript client (@modelcontextprotocol/client v2), bundled by run.mjs and run in
// headless Chromium, as a web host runs a view:
//
//   1. connect to the server declaring the MCP Apps extension, list the tools, find the
//      tool's view (`_meta.ui.resourceUri`) and read it (`resources/read`);
//   2. call the tool for real;
//   3. load the view's HTML in a sandboxed iframe (scripts only, opaque origin) under the
//      restrictive CSP a host applies when the resource declares no domains;
//   4. answer the view's `ui/initialize` with the host context (theme, locale), send it the
//      tool's input and result, and proxy its `tools/call` to the server, read tools only.
//
// `window.kobanaShow({ url, token, tool, args, theme, width })` resolves when the view is
// initialized and has its result; `window.kobanaLog` holds what the view asked of the host.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

// The CSP a host applies to a view whose resource declares no CSP domains (the spec's
// restrictive default, plus what the sandbox proxy always blocks).
const CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; " +
  "object-src 'none'; base-uri 'self'";

const log = { toolCalls: [], refused: [], openedLinks: [], sizes: [] };
window.kobanaLog = log;

async function connect(url, token) {
  const client = new Client(
    { name: "kobana-apps-test-host", version: "0.0.1" },
    {
      versionNegotiation: { mode: "auto" },
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function withCsp(html) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${CSP}">`;
  return html.replace(/<head>/i, `<head>${meta}`);
}

async function show({ url, token, tool, args, theme, width }) {
  const client = await connect(url, token);
  const tools = (await client.listTools()).tools;
  const readOnly = new Set(tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name));
  const definition = tools.find((t) => t.name === tool);
  if (!definition) throw new Error(`tools/list has no ${tool}`);
  const uri = getToolUiResourceUri(definition);
  if (!uri) throw new Error(`${tool} links no view: ${JSON.stringify(definition._meta ?? null)}`);
  const read = await client.readResource({ uri });
  const contents = read.contents[0];
  if (contents.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`view ${uri} is ${contents.mimeType}`);
  const result = await client.callTool({ name: tool, arguments: args });

  document.body.style.background = theme === "dark" ? "#0f1115" : "#e9ecf1";
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.id = "view";
  iframe.style.cssText = `width:${width}px;height:200px;border:0;display:block`;
  document.body.append(iframe);

  const bridge = new AppBridge(
    null,
    { name: "kobana-apps-test-host", version: "0.0.1" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        theme,
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        containerDimensions: { width, maxHeight: 4000 },
        locale: "pt-BR",
        timeZone: "America/Sao_Paulo",
        platform: "web",
      },
    },
  );
  // The view's tool calls reach the server only for read tools (a view never writes).
  bridge.oncalltool = async (params) => {
    log.toolCalls.push(params.name);
    if (!readOnly.has(params.name)) {
      log.refused.push(params.name);
      throw new Error(`the test host refuses ${params.name}: not a read tool`);
    }
    return client.callTool(params);
  };
  bridge.onreadresource = async (params) => client.readResource(params);
  bridge.onopenlink = async ({ url: link }) => {
    log.openedLinks.push(link);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    log.sizes.push(height);
    if (height) iframe.style.height = `${Math.min(height, 4000)}px`;
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = withCsp(contents.text);
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  return {
    uri,
    mimeType: contents.mimeType,
    bytes: new TextEncoder().encode(contents.text).length,
    resultIsError: result.isError === true,
    meta: definition._meta ?? null,
  };
}

window.kobanaShow = async (options) => {
  try {
    return { ok: true, ...(await show(options)) };
  } catch (error) {
    return { ok: false, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
  }
};
