"""langchain-mcp-adapters in the client-library matrix (see harness.py for the plan and report).

Its `mcp` is 1.x: era 2025, so destructive tools run without the server's question (CF-5).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import harness

# --- README snippet: LangChain ---
from langchain_mcp_adapters.client import MultiServerMCPClient


def kobana_client(url: str, token: str) -> MultiServerMCPClient:
    """LangChain's MCP client for kobana-mcp: its tools, resources and prompts."""
    return MultiServerMCPClient(
        {"kobana": {"transport": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}}
    )
# --- end of snippet ---


class LangChain:
    library = "langchain-mcp-adapters"
    version = version("langchain-mcp-adapters")
    elicitation = False

    def __init__(self, url: str) -> None:
        self.url = url

    async def tools(self, token: str) -> list[str]:
        return [t.name for t in await kobana_client(self.url, token).get_tools()]

    async def call(self, token: str, name: str, arguments: dict[str, Any], ask: Callable[[str], bool]) -> dict[str, Any]:
        tools = await kobana_client(self.url, token).get_tools()
        tool = next(t for t in tools if t.name == name)
        message = await tool.ainvoke({"type": "tool_call", "id": "call-1", "name": name, "args": arguments})
        content = message.content
        text = content if isinstance(content, str) else "\n".join(
            b.get("text", "") if isinstance(b, dict) else str(b) for b in content
        )
        return {"isError": message.status == "error", "text": text}

    async def read(self, token: str, uri: str) -> list[dict[str, Any]]:
        blobs = await kobana_client(self.url, token).get_resources("kobana", uris=[uri])
        return [
            {"text": b.as_string()} if (b.mimetype or "").startswith(("application/json", "text/")) else {"bytes": b.as_bytes()}
            for b in blobs
        ]

    async def prompt(self, token: str, name: str, arguments: dict[str, Any]) -> list[str]:
        messages = await kobana_client(self.url, token).get_prompt("kobana", name, arguments=arguments)
        return [m.content if isinstance(m.content, str) else str(m.content) for m in messages]


if __name__ == "__main__":
    sys.exit(harness.main(LangChain))
