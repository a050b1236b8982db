"""Scenario runner on the official Python SDK client (`mcp` 2.x).

Usage: python scenario.py URL TOKEN MODE ELICIT < steps.json

MODE is `auto` (probes server/discover, so era 2026 here) or `legacy` (initialize, era 2025).
ELICIT is how the person answers a confirmation form: `accept` (confirm: true), `accept_false`,
`decline` or `cancel`. steps.json is a JSON array of steps:
  {"op": "list_tools" | "list_resources" | "list_templates" | "list_prompts"}
  {"op": "call_tool", "name": ..., "arguments": {...}}
  {"op": "read_resource", "uri": ...}
  {"op": "get_prompt", "name": ..., "arguments": {...}}
  {"op": "complete", "ref": {"type": "ref/prompt", "name": ...} | {"type": "ref/resource", "uri": ...},
   "context": {name: value} (optional, the arguments already chosen),
   "argument": {"name": ..., "value": ...}}
Prints one JSON object: {"protocolVersion", "elicitations": [messages shown], "steps": [
  {"ok": true, "result": ...} | {"ok": false, "error": {"code", "message", "data"}}]}.
Blob contents are reported as their decoded length and SHA-256, not the bytes.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, PromptReference, ResourceTemplateReference


def dump(model: Any) -> Any:
    data = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    for content in data.get("contents", []) if isinstance(data, dict) else []:
        blob = content.pop("blob", None)
        if blob is not None:
            raw = base64.b64decode(blob)
            content["blob_len"] = len(raw)
            content["blob_sha256"] = hashlib.sha256(raw).hexdigest()
    return data


async def run(url: str, token: str, mode: str, elicit: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    shown: list[str] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        shown.append(getattr(params, "message", ""))
        if elicit == "accept":
            return ElicitResult(action="accept", content={"confirm": True})
        if elicit == "accept_false":
            return ElicitResult(action="accept", content={"confirm": False})
        return ElicitResult(action=elicit)

    results: list[dict[str, Any]] = []
    async with httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(60.0, read=120.0)
    ) as http:
        async with Client(
            streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=on_elicit
        ) as client:
            for step in steps:
                op = step["op"]
                try:
                    if op == "list_tools":
                        value = await client.list_tools()
                    elif op == "list_resources":
                        value = await client.list_resources()
                    elif op == "list_templates":
                        value = await client.list_resource_templates()
                    elif op == "list_prompts":
                        value = await client.list_prompts()
                    elif op == "call_tool":
                        value = await client.call_tool(step["name"], step.get("arguments", {}))
                    elif op == "read_resource":
                        value = await client.read_resource(step["uri"])
                    elif op == "get_prompt":
                        value = await client.get_prompt(step["name"], step.get("arguments", {}))
                    elif op == "complete":
                        ref = step["ref"]
                        reference = (
                            PromptReference(type="ref/prompt", name=ref["name"])
                            if ref["type"] == "ref/prompt"
                            else ResourceTemplateReference(type="ref/resource", uri=ref["uri"])
                        )
                        value = await client.complete(
                            reference, step["argument"], context_arguments=step.get("context")
                        )
                    else:
                        raise ValueError(f"unknown op {op}")
                    results.append({"ok": True, "result": dump(value)})
                except MCPError as error:
                    data = error.error
                    results.append(
                        {"ok": False, "error": {"code": data.code, "message": data.message, "data": data.data}}
                    )
            return {"protocolVersion": client.protocol_version, "elicitations": shown, "steps": results}


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    url, token, mode, elicit = sys.argv[1:]
    steps = json.load(sys.stdin)
    out = asyncio.run(asyncio.wait_for(run(url, token, mode, elicit, steps), timeout=240))
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
