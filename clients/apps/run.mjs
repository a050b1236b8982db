// The views test driver, run by tests/it/views/browser.rs with Node 22:
//
//   node run.mjs MCP_URL TOKEN CHROMIUM OUT_DIR SCENARIOS_JSON
//
// Bundles host.mjs (the ext-apps AppBridge and the TypeScript client) for the browser, serves
// it on a loopback port of its own, and for each scenario ({name, tool, args, ready, width})
// and each theme (light, dark) opens it in headless Chromium: the host calls the tool, renders
// its view in a sandboxed iframe, and this driver waits for the view's `ready` selector, reads
// its text, watches every request and console line of the view's frame, and saves a
// screenshot as OUT_DIR/<name>-<theme>.png. The invoice's QR code, when drawn, is rasterized
// in the view and decoded here with jsQR. Prints one JSON line: { runs: [...] }.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";
import jsQR from "jsqr";
import puppeteer from "puppeteer-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TIMEOUT_MS = 150_000;
const THEMES = ["light", "dark"];

async function bundle() {
  const result = await esbuild.build({
    entryPoints: [path.join(HERE, "host.mjs")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

function serve(script) {
  const page = '<!doctype html><meta charset="utf-8"><title>kobana-mcp apps host</title>' +
    '<body style="margin:0;padding:12px"><script type="module" src="/host.js"></script></body>';
  const server = http.createServer((req, res) => {
    if (req.url === "/host.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
    } else if (req.url === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(page);
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// The view's QR code as pixels (the SVG it drew, rasterized in its own frame), decoded.
async function decodeQr(frame) {
  const pixels = await frame.evaluate(async () => {
    const svg = document.querySelector("#pix svg");
    if (!svg) return null;
    const markup = new XMLSerializer().serializeToString(svg);
    const image = new Image();
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(markup);
    await image.decode();
    const side = 400;
    const canvas = document.createElement("canvas");
    canvas.width = side;
    canvas.height = side;
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, side, side);
    context.drawImage(image, 0, 0, side, side);
    return { side, data: Array.from(context.getImageData(0, 0, side, side).data) };
  });
  if (!pixels) return null;
  const code = jsQR(Uint8ClampedArray.from(pixels.data), pixels.side, pixels.side);
  return code ? code.data : "";
}

async function runOne(browser, pageUrl, options, scenario, theme, outDir) {
  const page = await browser.newPage();
  const width = scenario.width ?? 640;
  await page.setViewport({ width: width + 24, height: 900 });
  const viewRequests = [];
  const consoleLines = [];
  page.on("request", (request) => {
    if (request.frame() && request.frame() !== page.mainFrame()) viewRequests.push(request.url());
  });
  page.on("console", (m) => consoleLines.push(m.text()));
  page.on("pageerror", (e) => consoleLines.push(`page error: ${e.message}`));
  await page.goto(pageUrl, { waitUntil: "load" });
  await page.waitForFunction(() => typeof window.kobanaShow === "function");
  const shown = await page.evaluate(
    (o) => window.kobanaShow(o),
    { ...options, tool: scenario.tool, args: scenario.args, theme, width },
  );
  const out = { name: scenario.name, theme, shown };
  if (shown.ok) {
    const frame = page.frames().find((f) => f !== page.mainFrame());
    await frame.waitForSelector(scenario.ready, { timeout: 30_000 });
    // The view's own reads through the host settle before the text is taken.
    await frame.waitForFunction(() => !document.body.innerText.includes("carregando…") &&
      !document.body.innerText.includes("Lendo assinaturas"), { timeout: 30_000 });
    out.text = await frame.evaluate(() => document.body.innerText);
    out.dataTheme = await frame.evaluate(() => document.documentElement.dataset.theme ?? null);
    out.background = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
    out.scrollWidth = await frame.evaluate(() => document.documentElement.scrollWidth);
    if (scenario.decodeQr) out.qr = await decodeQr(frame);
    const file = path.join(outDir, `${scenario.name}-${theme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    out.screenshot = file;
  }
  out.log = await page.evaluate(() => window.kobanaLog);
  out.viewRequests = viewRequests;
  out.console = consoleLines;
  await page.close();
  return out;
}

async function main() {
  const [url, token, chromium, outDir, scenariosJson] = process.argv.slice(2);
  if (!url || !token || !chromium || !outDir || !scenariosJson) {
    throw new Error("usage: node run.mjs MCP_URL TOKEN CHROMIUM OUT_DIR SCENARIOS_JSON");
  }
  fs.mkdirSync(outDir, { recursive: true });
  const scenarios = JSON.parse(scenariosJson);
  const server = await serve(await bundle());
  const pageUrl = `http://127.0.0.1:${server.address().port}/`;
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--disable-quic", "--disable-background-networking", "--disable-component-update",
      "--disable-sync",
    ],
  });
  const runs = [];
  try {
    for (const scenario of scenarios) {
      for (const theme of THEMES) {
        runs.push(await runOne(browser, pageUrl, { url, token }, scenario, theme, outDir));
      }
    }
    process.stdout.write(JSON.stringify({ runs }) + "\n");
  } finally {
    await browser.close();
    server.close();
  }
}

const timer = setTimeout(() => {
  console.error(`views run timed out after ${TIMEOUT_MS} ms`);
  process.exit(2);
}, TIMEOUT_MS);
main().then(
  () => {
    clearTimeout(timer);
    process.exit(0);
  },
  (error) => {
    console.error(error?.stack ?? String(error));
    process.exit(1);
  },
);
