"""pydantic-ai's MCPToolset in the client-library matrix (see harness.py for the plan and report)."""

from __future__ import annotations

import json
import sys
from importlib.metadata import version

import harness
from pydantic_ai.exceptions import ModelRetry

# --- README snippet: pydantic-ai ---
from collections.abc import Callable
from typing import Any

from fastmcp.client.elicitation import ElicitResult
from pydantic_ai.mcp import MCPToolset


def kobana_toolset(url: str, token: str, ask: Callable[[str], bool]) -> MCPToolset:
    """kobana-mcp as a pydantic-ai toolset (`Agent(..., toolsets=[...])`); `ask` confirms."""

    async def on_confirmation(message: str, response_type: Any, params: Any, context: Any) -> Any:
        return {"confirm": True} if ask(message) else ElicitResult(action="decline")

    return MCPToolset(url, auth=token, elicitation_handler=on_confirmation)
# --- end of snippet ---


def never(message: str) -> bool:
    raise AssertionError(f"no confirmation expected here: {message}")


def text_of(block: Any) -> str:
    if isinstance(block, str):
        return block
    for attribute in ("content", "text"):
        value = getattr(block, attribute, None)
        if isinstance(value, str):
            return value
    raise TypeError(f"prompt content is not text: {block!r}")


class PydanticAI:
    library = "pydantic-ai"
    version = version("pydantic-ai-slim")
    elicitation = True

    def __init__(self, url: str) -> None:
        self.url = url

    async def tools(self, token: str) -> list[str]:
        async with kobana_toolset(self.url, token, never) as toolset:
            return [t.name for t in await toolset.list_tools()]

    async def call(self, token: str, name: str, arguments: dict[str, Any], ask: Callable[[str], bool]) -> dict[str, Any]:
        async with kobana_toolset(self.url, token, ask) as toolset:
            try:
                value = await toolset.direct_call_tool(name, arguments)
            except ModelRetry as retry:
                return {"isError": True, "text": str(retry)}
        return {"isError": False, "text": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}

    async def read(self, token: str, uri: str) -> list[dict[str, Any]]:
        async with kobana_toolset(self.url, token, never) as toolset:
            value = await toolset.read_resource(uri)
        items = value if isinstance(value, list) else [value]
        return [{"text": x} if isinstance(x, str) else {"bytes": x.data} for x in items]

    async def prompt(self, token: str, name: str, arguments: dict[str, Any]) -> list[str]:
        async with kobana_toolset(self.url, token, never) as toolset:
            result = await toolset.get_prompt(name, arguments)
        return [text_of(m.content) for m in result.messages]


if __name__ == "__main__":
    sys.exit(harness.main(PydanticAI))
