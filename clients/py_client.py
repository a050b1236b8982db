"""Real-client smoke test: the Python SDK v2 client (`mcp` 2.x).

Usage: python py_client.py URL TOKEN [auto|legacy]

`auto` (the default) probes `server/discover` and falls back to `initialize`; `legacy` forces the
`initialize` handshake. Lists every tool, calls `billing_customers_list` with `{}` and prints
exactly one JSON line on stdout. Any failure goes to stderr with a non-zero exit code.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

OVERALL_TIMEOUT_S = 90.0


def first_text(result: Any) -> str | None:
    for block in result.content or []:
        if getattr(block, "type", None) == "text":
            return block.text
    return None


async def run(url: str, token: str, mode: str) -> dict[str, Any]:
    observed_session_id: list[str] = []

    async def record_session_id(response: httpx2.Response) -> None:
        # A stateless server must never hand out an Mcp-Session-Id; record it if it does.
        sid = response.headers.get("mcp-session-id")
        if sid:
            observed_session_id.append(sid)

    async with httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=60.0),
        event_hooks={"response": [record_session_id]},
    ) as http:
        async with Client(
            streamable_http_client(url, http_client=http),
            mode=mode,
            raise_exceptions=True,
        ) as client:
            tools: list[str] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools.extend(t.name for t in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break

            result = await client.call_tool("billing_customers_list", {})
            return {
                "client": f"py-{mode}",
                "protocolVersion": client.protocol_version,
                "sessionId": observed_session_id[-1] if observed_session_id else None,
                "tools": tools,
                "call": {
                    "isError": bool(result.is_error),
                    "structuredContent": result.structured_content,
                    "text": first_text(result),
                },
            }


def leaf_exceptions(exc: BaseException) -> list[BaseException]:
    """Flatten (possibly nested) exception groups so the real causes come first on stderr."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaf_exceptions(sub)]
    return [exc]


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] not in ("auto", "legacy")):
        print("usage: python py_client.py URL TOKEN [auto|legacy]", file=sys.stderr)
        return 2
    url, token = argv[1], argv[2]
    mode = argv[3] if len(argv) == 4 else "auto"
    try:
        out = asyncio.run(asyncio.wait_for(run(url, token, mode), OVERALL_TIMEOUT_S))
    except BaseException as exc:  # noqa: BLE001 - report anything, including exception groups
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        for leaf in leaf_exceptions(exc):
            print(f"py-{mode}: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        traceback.print_exception(exc, file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
