// The browser (CORS) test driver, run by tests/it/clients/browser_cors.rs with Node 22:
//
//   node run.mjs MCP_URL TOKEN METADATA_URL CHROMIUM
//
// Bundles page.mjs (with the official TypeScript client from ../node_modules) for the browser,
// serves it on a loopback port of its own, and opens it in headless Chromium twice: from
// http://127.0.0.1:PORT (the origin the test allows) and from http://localhost:PORT (one it
// refuses). Prints one JSON line: { allowed: <scenario>, refused: <scenario>, console: [...] }.
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TIMEOUT_MS = 90_000;

async function bundle() {
  const result = await esbuild.build({
    entryPoints: [path.join(HERE, "page.mjs")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    nodePaths: [path.join(HERE, "..", "node_modules")],
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

function serve(script) {
  const page = '<!doctype html><meta charset="utf-8"><title>kobana-mcp</title>' +
    '<script type="module" src="/page.js"></script>';
  const server = http.createServer((req, res) => {
    if (req.url === "/page.js") {
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

async function run(browser, pageUrl, args, consoleLines) {
  const page = await browser.newPage();
  page.on("console", (m) => consoleLines.push(`${pageUrl}: ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`${pageUrl}: page error: ${e.message}`));
  await page.goto(pageUrl, { waitUntil: "load" });
  await page.waitForFunction(() => typeof window.kobanaScenario === "function");
  const out = await page.evaluate((a) => window.kobanaScenario(a), args);
  out.origin = await page.evaluate(() => window.location.origin);
  await page.close();
  return out;
}

async function main() {
  const [url, token, metadataUrl, chromium] = process.argv.slice(2);
  if (!url || !token || !metadataUrl || !chromium) {
    throw new Error("usage: node run.mjs MCP_URL TOKEN METADATA_URL CHROMIUM");
  }
  const server = await serve(await bundle());
  const port = server.address().port;
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const consoleLines = [];
  try {
    const args = { url, token, metadataUrl };
    const allowed = await run(browser, `http://127.0.0.1:${port}/`, args, consoleLines);
    const refused = await run(browser, `http://localhost:${port}/`, args, consoleLines);
    process.stdout.write(JSON.stringify({ allowed, refused, console: consoleLines }) + "\n");
  } finally {
    await browser.close();
    server.close();
  }
}

const timer = setTimeout(() => {
  console.error(`browser run timed out after ${TIMEOUT_MS} ms`);
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
