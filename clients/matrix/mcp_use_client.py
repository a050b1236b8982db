"""mcp-use's MCPClient in the client-library matrix (see harness.py for the plan and report).

Its `mcp` is 1.x: era 2025, so destructive tools run without the server's question (CF-5).
"""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Any

import harness

# No telemetry from a test run (mcp-use would post it to its vendor otherwise).
os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")

# --- README snippet: mcp-use ---
from mcp_use import MCPClient


def kobana_client(url: str, token: str) -> MCPClient:
    """mcp-use's client for kobana-mcp; `await client.create_session("kobana")` opens it."""
    return MCPClient.from_dict(
        {"mcpServers": {"kobana": {"url": url, "headers": {"Authorization": f"Bearer {token}"}}}}
    )
# --- end of snippet ---


@asynccontextmanager
async def session(url: str, token: str) -> Any:
    client = kobana_client(url, token)
    try:
        yield await client.create_session("kobana")
    finally:
        await client.close_all_sessions()


class McpUse:
    library = "mcp-use"
    version = version("mcp-use")
    elicitation = False

    def __init__(self, url: str) -> None:
        self.url = url

    async def tools(self, token: str) -> list[str]:
        async with session(self.url, token) as s:
            return [t.name for t in await s.list_tools()]

    async def call(self, token: str, name: str, arguments: dict[str, Any], ask: Callable[[str], bool]) -> dict[str, Any]:
        async with session(self.url, token) as s:
            result = await s.call_tool(name, arguments)
        return {"isError": bool(result.isError), "text": "\n".join(getattr(b, "text", "") for b in result.content)}

    async def read(self, token: str, uri: str) -> list[dict[str, Any]]:
        async with session(self.url, token) as s:
            result = await s.read_resource(uri)
        return [
            {"bytes": base64.b64decode(c.blob)} if getattr(c, "blob", None) is not None else {"text": c.text}
            for c in result.contents
        ]

    async def prompt(self, token: str, name: str, arguments: dict[str, Any]) -> list[str]:
        async with session(self.url, token) as s:
            result = await s.get_prompt(name, arguments)
        return [m.content.text for m in result.messages]


if __name__ == "__main__":
    sys.exit(harness.main(McpUse))
