"""fastmcp's Client in the client-library matrix (see harness.py for the plan and the report)."""

from __future__ import annotations

import base64
import sys
from importlib.metadata import version

import harness

# --- README snippet: fastmcp ---
from collections.abc import Callable
from typing import Any

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult


def kobana_client(url: str, token: str, ask: Callable[[str], bool]) -> Client:
    """A fastmcp client for kobana-mcp; `ask` puts the server's confirmation to the person."""

    async def on_confirmation(message: str, response_type: Any, params: Any, context: Any) -> Any:
        return {"confirm": True} if ask(message) else ElicitResult(action="decline")

    return Client(url, auth=token, elicitation_handler=on_confirmation)
# --- end of snippet ---


def never(message: str) -> bool:
    raise AssertionError(f"no confirmation expected here: {message}")


class FastMCP:
    library = "fastmcp"
    version = version("fastmcp")
    elicitation = True

    def __init__(self, url: str) -> None:
        self.url = url

    async def tools(self, token: str) -> list[str]:
        async with kobana_client(self.url, token, never) as c:
            return [t.name for t in await c.list_tools()]

    async def call(self, token: str, name: str, arguments: dict[str, Any], ask: Callable[[str], bool]) -> dict[str, Any]:
        async with kobana_client(self.url, token, ask) as c:
            result = await c.call_tool(name, arguments, raise_on_error=False)
        return {"isError": result.is_error, "text": "\n".join(getattr(b, "text", "") for b in result.content)}

    async def read(self, token: str, uri: str) -> list[dict[str, Any]]:
        async with kobana_client(self.url, token, never) as c:
            contents = await c.read_resource(uri)
        return [
            {"bytes": base64.b64decode(x.blob)} if getattr(x, "blob", None) is not None else {"text": x.text}
            for x in contents
        ]

    async def prompt(self, token: str, name: str, arguments: dict[str, Any]) -> list[str]:
        async with kobana_client(self.url, token, never) as c:
            result = await c.get_prompt(name, arguments)
        return [m.content.text for m in result.messages]


if __name__ == "__main__":
    sys.exit(harness.main(FastMCP))
