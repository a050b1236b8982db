// A local stand-in for Kobana's authorization server, for tests/it/clients/oauth_discovery.rs.
//
//   node stand_in.mjs ORG_ID
//
// oauth2-mock-server (authorization code with PKCE, OIDC discovery, signed JWTs) plus what an
// MCP client also needs from an authorization server: dynamic client registration (RFC 7591),
// registration enforced at /authorize (unknown client_id or redirect_uri → error), and access
// tokens carrying the claims kobana-mcp reads: `sub`, `org_id`, `scope` (what was authorized)
// and `aud` (the `resource` indicator, RFC 8707). Every registration, authorization and token
// request is recorded; `GET /_requests` returns them. Prints one JSON line `{ "issuer": URL }`
// once listening on a free loopback port, then runs until killed.
import { randomUUID } from "node:crypto";

import { OAuth2Server } from "oauth2-mock-server";

const orgId = process.argv[2];
if (!orgId) {
  console.error("usage: node stand_in.mjs ORG_ID");
  process.exit(2);
}

const server = new OAuth2Server();
await server.issuer.keys.generate("RS256");
const service = server.service;
const clients = new Map();
const grants = new Map();
const requests = [];

service.addRoute("POST", "/register", (req, res) => {
  const metadata = req.body ?? {};
  requests.push({ endpoint: "register", body: metadata });
  const redirectUris = metadata.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_redirect_uri" }));
    return;
  }
  const client = {
    ...metadata,
    client_id: `client-${randomUUID()}`,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    token_endpoint_auth_method: "none",
  };
  clients.set(client.client_id, client);
  res.writeHead(201, { "content-type": "application/json" });
  res.end(JSON.stringify(client));
});

service.addRoute("GET", "/_requests", (_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(requests));
});

service.on("beforeWellKnownOpenIdConfiguration", (response) => {
  response.body.registration_endpoint = `${server.issuer.url}/register`;
  response.body.code_challenge_methods_supported = ["S256"];
});

service.on("beforeAuthorizeRedirect", (redirect, req) => {
  const query = { ...req.query };
  requests.push({ endpoint: "authorize", query });
  const code = redirect.url.searchParams.get("code");
  const client = clients.get(query.client_id);
  const refuse = (error) => {
    redirect.url.searchParams.delete("code");
    redirect.url.searchParams.set("error", error);
  };
  if (!client) return refuse("invalid_client");
  if (!client.redirect_uris.includes(query.redirect_uri)) return refuse("invalid_request");
  if (query.code_challenge_method !== "S256") return refuse("invalid_request");
  if (code) grants.set(code, { scope: query.scope ?? "", resource: query.resource ?? null });
});

service.on("beforeTokenSigning", (token, req) => {
  const body = req.body ?? {};
  const grant = grants.get(body.code);
  // The id token (OIDC) already names its audience, the client; the access token is ours.
  if (!grant || token.payload.aud !== undefined) return;
  Object.assign(token.payload, {
    sub: "person-oauth",
    org_id: orgId,
    scope: grant.scope,
    aud: body.resource ?? grant.resource,
  });
});

service.on("beforeResponse", (response, req) => {
  const body = req.body ?? {};
  requests.push({ endpoint: "token", body: { ...body, code_verifier: body.code_verifier ? "<present>" : null } });
  const grant = grants.get(body.code);
  if (grant) {
    response.body.scope = grant.scope;
    grants.delete(body.code);
  }
});

await server.start(0, "127.0.0.1");
server.issuer.url = `http://127.0.0.1:${server.address().port}`;
process.stdout.write(JSON.stringify({ issuer: server.issuer.url }) + "\n");
