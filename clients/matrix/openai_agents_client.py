"""openai-agents' MCPServerStreamableHttp in the client-library matrix (see harness.py).

It declares no elicitation handler: destructive tools run without the server's question
(CF-5); its own `require_approval` is the confirmation there.
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import harness

# --- README snippet: openai-agents ---
from agents.mcp import MCPServerStreamableHttp


def kobana_server(url: str, token: str) -> MCPServerStreamableHttp:
    """kobana-mcp for an openai-agents `Agent(mcp_servers=[...])`; destructive tools need approval."""
    return MCPServerStreamableHttp(
        params={"url": url, "headers": {"Authorization": f"Bearer {token}"}, "timeout": 30},
        client_session_timeout_seconds=60,
        require_approval={"always": {"tool_names": ["billing_invoices_void", "billing_customers_delete"]}},
    )
# --- end of snippet ---


def text_of(result: Any) -> str:
    return "\n".join(getattr(b, "text", "") for b in result.content)


class OpenAIAgents:
    library = "openai-agents"
    version = version("openai-agents")
    elicitation = False

    def __init__(self, url: str) -> None:
        self.url = url

    async def tools(self, token: str) -> list[str]:
        async with kobana_server(self.url, token) as server:
            return [t.name for t in await server.list_tools()]

    async def call(self, token: str, name: str, arguments: dict[str, Any], ask: Callable[[str], bool]) -> dict[str, Any]:
        async with kobana_server(self.url, token) as server:
            result = await server.call_tool(name, arguments)
        return {"isError": bool(result.is_error), "text": text_of(result)}

    async def read(self, token: str, uri: str) -> list[dict[str, Any]]:
        async with kobana_server(self.url, token) as server:
            result = await server.read_resource(uri)
        return [
            {"bytes": base64.b64decode(c.blob)} if getattr(c, "blob", None) is not None else {"text": c.text}
            for c in result.contents
        ]

    async def prompt(self, token: str, name: str, arguments: dict[str, Any]) -> list[str]:
        async with kobana_server(self.url, token) as server:
            result = await server.get_prompt(name, arguments)
        return [m.content.text for m in result.messages]


if __name__ == "__main__":
    sys.exit(harness.main(OpenAIAgents))
