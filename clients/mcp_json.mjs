// An editor's `mcp.json`, read as the editor reads it, run by tests/it/clients/host_clis.rs:
//
//   node mcp_json.mjs vscode|cursor '{"INPUT-ID": "answer", ...}' < mcp.json
//
// The text is parsed with `jsonc-parser`, the parser VS Code itself uses for its JSON-with-
// comments settings files (comments and trailing commas allowed, any other syntax error
// refused). Then the editor's own rules for the file are checked, and its variables are put in:
//
// - vscode (`.vscode/mcp.json`, VS Code's "MCP configuration reference"): a `servers` map and
//   an optional `inputs` array; each server has `type` `stdio`, `http` or `sse`, a
//   remote one a `url` and optional string `headers`; `${input:ID}` is the answer the person
//   gives to the `inputs[]` entry of that id, which must be a `promptString` and, when it
//   fills a header, `password: true` (kept in VS Code's secret storage); `${env:NAME}` is the
//   environment's NAME.
// - cursor (`~/.cursor/mcp.json`): an `mcpServers` map; a remote server has a `url` and
//   optional string `headers`; only `${env:NAME}` (and Cursor's path variables) is resolved:
//   Cursor has no `inputs`, so `${input:…}` is refused.
//
// Any variable left unresolved, or resolved from an unset environment variable, is refused.
// Prints one JSON line: {"servers": {NAME: {"url", "headers"}}} and exits 0, or
// {"errors": [...]} and exits 1.
import { readFileSync } from "node:fs";

import { parse, printParseErrorCode } from "jsonc-parser";

const HOSTS = {
  vscode: { map: "servers", variables: ["input", "env"] },
  cursor: { map: "mcpServers", variables: ["env"] },
};
const SERVER_TYPES = ["stdio", "http", "sse"];
const INPUT_TYPES = ["promptString", "pickString", "command"];
const VARIABLE = /\$\{([^}:]+)(?::([^}]*))?\}/g;

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** The JSONC text parsed as VS Code parses it; syntax errors are collected in `errors`. */
function read(text, errors) {
  const found = [];
  const value = parse(text, found, { allowTrailingComma: true, disallowComments: false });
  for (const { error, offset } of found) {
    errors.push(`syntax: ${printParseErrorCode(error)} at offset ${offset}`);
  }
  return value;
}

/** The `inputs[]` entries by id, each checked. */
function inputsOf(config, errors) {
  const inputs = new Map();
  if (config.inputs === undefined) return inputs;
  if (!Array.isArray(config.inputs)) {
    errors.push("`inputs` must be an array");
    return inputs;
  }
  for (const input of config.inputs) {
    if (!isObject(input) || typeof input.id !== "string") {
      errors.push("every `inputs[]` entry is an object with a string `id`");
      continue;
    }
    if (!INPUT_TYPES.includes(input.type)) {
      errors.push(`input ${input.id}: type must be one of ${INPUT_TYPES.join(", ")}`);
    }
    inputs.set(input.id, input);
  }
  return inputs;
}

/** `text` with the host's variables put in; `where` names it in the errors. */
function resolve(text, where, host, ctx) {
  return text.replace(VARIABLE, (whole, kind, name) => {
    if (!HOSTS[host].variables.includes(kind)) {
      ctx.errors.push(`${where}: ${host} does not resolve ${whole}`);
      return whole;
    }
    if (kind === "env") {
      const value = process.env[name];
      if (value === undefined) ctx.errors.push(`${where}: ${whole}: ${name} is not set`);
      return value ?? "";
    }
    const input = ctx.inputs.get(name);
    if (!input) {
      ctx.errors.push(`${where}: ${whole} has no inputs[] entry with id ${name}`);
      return whole;
    }
    if (input.type !== "promptString") {
      ctx.errors.push(`${where}: input ${name} must be a promptString to be typed in`);
    }
    if (where.includes("headers") && input.password !== true) {
      ctx.errors.push(`${where}: input ${name} fills a header, so it needs password: true`);
    }
    if (typeof ctx.answers[name] !== "string") {
      ctx.errors.push(`${where}: no answer given for input ${name}`);
      return whole;
    }
    return ctx.answers[name];
  });
}

/** One server entry, checked and resolved. */
function server(name, entry, host, ctx) {
  const where = `${HOSTS[host].map}.${name}`;
  if (!isObject(entry)) {
    ctx.errors.push(`${where} must be an object`);
    return null;
  }
  if (host === "vscode" && !SERVER_TYPES.includes(entry.type)) {
    ctx.errors.push(`${where}.type must be one of ${SERVER_TYPES.join(", ")}`);
  } else if (host === "vscode" && entry.type !== "http") {
    ctx.errors.push(`${where}.type: a remote server over Streamable HTTP is "http"`);
  }
  if (typeof entry.url !== "string") {
    ctx.errors.push(`${where}.url must be a string`);
    return null;
  }
  const url = resolve(entry.url, `${where}.url`, host, ctx);
  if (!/^https?:\/\//.test(url)) ctx.errors.push(`${where}.url must be an http(s) URL`);
  const headers = {};
  if (entry.headers !== undefined && !isObject(entry.headers)) {
    ctx.errors.push(`${where}.headers must be an object`);
  }
  for (const [header, value] of Object.entries(entry.headers ?? {})) {
    if (typeof value !== "string") {
      ctx.errors.push(`${where}.headers.${header} must be a string`);
      continue;
    }
    headers[header] = resolve(value, `${where}.headers.${header}`, host, ctx);
  }
  return { url, headers };
}

function main() {
  const host = process.argv[2];
  if (!HOSTS[host]) {
    console.error("usage: node mcp_json.mjs vscode|cursor '{\"INPUT-ID\": \"answer\"}' < mcp.json");
    process.exit(2);
  }
  const errors = [];
  const config = read(readFileSync(0, "utf8"), errors);
  const out = {};
  if (!isObject(config)) {
    errors.push("the file must hold one JSON object");
  } else {
    const { map } = HOSTS[host];
    const ctx = { errors, answers: JSON.parse(process.argv[3] ?? "{}"), inputs: new Map() };
    if (host === "vscode") ctx.inputs = inputsOf(config, errors);
    if (!isObject(config[map]) || Object.keys(config[map]).length === 0) {
      errors.push(`no \`${map}\` map of servers`);
    } else {
      for (const [name, entry] of Object.entries(config[map])) {
        const resolved = server(name, entry, host, ctx);
        if (resolved) out[name] = resolved;
      }
    }
  }
  if (errors.length > 0) {
    console.log(JSON.stringify({ errors }));
    process.exit(1);
  }
  console.log(JSON.stringify({ servers: out }));
}

main();
