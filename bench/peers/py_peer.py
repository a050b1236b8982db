"""Peer server for the benchmark: the same MCP tool surface as kobana-mcp, served by the
official Python SDK's FastMCP (``mcp`` 2.x, where FastMCP is ``MCPServer``) statelessly over
Streamable HTTP.

    python py_peer.py --port PORT --tools tools.json --upstream http://127.0.0.1:FAKE

* Tools: every entry of OUR tools/list output (tools.json) is registered with
  ``MCPServer.add_tool``. MCPServer derives schemas from a function signature, so each tool
  gets a function whose keyword parameters are the schema's properties (typed from the JSON
  types, optional ones defaulting to None: pydantic validates the arguments), and the
  advertised ``inputSchema``/``outputSchema`` are then set to ours verbatim, so tools/list
  shows exactly our schemas.
* Serving: ``streamable_http_app(stateless_http=True, json_response=True)`` under uvicorn
  (one worker, the loop and HTTP parser the venv provides: asyncio + h11, since neither
  uvloop nor httptools is installed).
* Calls: a list tool (the benchmarked call is ``billing_customers_list``) is forwarded to the
  same fake Kobana with the caller's bearer token over one pooled ``httpx2.AsyncClient``, with
  the same path, query and answer shape as ours (see ts_peer.mjs), no *_brl / *_sao_paulo
  fields. Other tools are registered, never called.
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import re
from typing import Any, Optional

import httpx2
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

USER_AGENT = "Kobana MCP Peer (Python SDK) <suporte@kobana.com.br>"
JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--tools", required=True)
parser.add_argument("--upstream", required=True)
opts = parser.parse_args()
UPSTREAM = opts.upstream.rstrip("/") + "/v1"
with open(opts.tools, encoding="utf-8") as f:
    TOOLS = json.load(f)["tools"]

_client: httpx2.AsyncClient | None = None


def client() -> httpx2.AsyncClient:
    global _client
    if _client is None:
        _client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(30.0),
            limits=httpx2.Limits(max_keepalive_connections=64, max_connections=256),
        )
    return _client


def ok(structured: dict[str, Any]) -> CallToolResult:
    text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def failed(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


async def forward(name: str, args: dict[str, Any], auth: str | None) -> CallToolResult:
    m = re.match(r"^billing_([a-z]+)_list$", name)
    if not m:
        return failed(f"{name}: the peer serves only the benchmarked list calls")
    resource = m.group(1)
    page = args.get("page") or 1
    per_page = args.get("per_page") or 20
    query = [
        (k, str(v).lower() if isinstance(v, bool) else str(v))
        for k, v in args.items()
        if v is not None and k not in ("page", "per_page", "sort_by", "sort_order")
    ]
    query += [("page", str(page)), ("per_page", str(per_page))]
    query += [(k, str(args[k])) for k in ("sort_by", "sort_order") if args.get(k)]
    # Kobana's document asks Content-Type of every request, bodyless ones too (docs/contract.md).
    headers = {"authorization": auth or "", "user-agent": USER_AGENT, "accept": "application/json"}
    headers["content-type"] = "application/json"
    response = await client().get(f"{UPSTREAM}/{resource}", params=query, headers=headers)
    if response.status_code != 200:
        return failed(f"Kobana answered {response.status_code}: {response.text}")
    data = response.json()
    meta = data.get("meta") or {}
    items = data.get("data") or []
    total = meta.get("total", len(items))
    pp = meta.get("per_page", per_page)
    pg = meta.get("page", page)
    pages = max(1, meta.get("total_pages") or -(-total // max(1, pp)))
    structured: dict[str, Any] = {
        resource: items,
        "page": pg,
        "per_page": pp,
        "total": total,
        "total_pages": pages,
        "next_page": pg + 1 if pg < pages else None,
    }
    if structured["next_page"]:
        structured["hint"] = (
            f"{total} no total; esta é a página {pg} de {pages}. "
            f"Para a próxima, chame de novo com page={structured['next_page']}."
        )
    return ok(structured)


def make_handler(tool: dict[str, Any]):
    schema = tool.get("inputSchema") or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params = []
    for prop, spec in props.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        annotation: Any = JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any
        if prop in required:
            params.append(inspect.Parameter(prop, inspect.Parameter.KEYWORD_ONLY, annotation=annotation))
        else:
            params.append(
                inspect.Parameter(
                    prop, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Optional[annotation]
                )
            )
    params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context))
    name = tool["name"]

    async def handler(**kwargs: Any) -> CallToolResult:
        ctx: Context = kwargs.pop("ctx")
        headers = ctx.headers or {}
        auth = headers.get("authorization")
        return await forward(name, {k: v for k, v in kwargs.items() if v is not None}, auth)

    handler.__signature__ = inspect.Signature(params, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    handler.__annotations__ = {p.name: p.annotation for p in params} | {"return": CallToolResult}
    handler.__name__ = name
    return handler


# WARNING: at the default INFO level httpx2 logs a line per upstream request (ours logs none).
server = MCPServer("peer-py", log_level="WARNING")
for t in TOOLS:
    annotations = ToolAnnotations(**t["annotations"]) if t.get("annotations") else None
    server.add_tool(
        make_handler(t),
        name=t["name"],
        title=t.get("title"),
        description=t.get("description"),
        annotations=annotations,
        structured_output=False,
    )
    registered = server._tool_manager.get_tool(t["name"])  # noqa: SLF001 - advertise our schemas verbatim
    registered.parameters = t.get("inputSchema") or {"type": "object", "properties": {}}
    if t.get("outputSchema"):
        registered.fn_metadata.output_schema = t["outputSchema"]
        registered.__dict__.pop("output_schema", None)

logging.getLogger("httpx2").setLevel(logging.WARNING)
app = server.streamable_http_app(stateless_http=True, json_response=True)
print(f"py_peer listening on http://127.0.0.1:{opts.port}/mcp ({len(TOOLS)} tools)", flush=True)
uvicorn.run(app, host="127.0.0.1", port=opts.port, log_level="warning", access_log=False)
