"""Shared cell runner for the Python client-library matrix (tests/it/clients/matrix.rs).

Standard library only: every matrix venv imports it next to its own library. A library script
defines an adapter (the calls written the way that library's users write them) and calls
`main(adapter)`. The plan comes as JSON on stdin:
  {"url", "full", "readonly", "list_call": {name, arguments}, "json_uri", "pdf_uri",
   "prompts": [{name, arguments}], "destructive": {name, arguments}}
One JSON report goes to stdout:
  {"library", "version", "elicitation", "tools_full", "tools_readonly", "call", "json_resource",
   "pdf": {"len", "sha256"}, "prompts": [{"name", "texts"} | {"name", "error"}],
   "destructive": [{"answer", "isError", "text"}], "elicitations": [messages shown]}
A cell that raises is reported as {"error": "..."} so the Rust side names the cell that broke.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import traceback
from collections.abc import Callable
from typing import Any, Protocol


class Adapter(Protocol):
    """What one library provides; `answer` is how the person answers a confirmation."""

    library: str
    version: str
    elicitation: bool

    async def tools(self, token: str) -> list[str]: ...

    async def call(self, token: str, name: str, arguments: dict[str, Any], ask: Callable[[str], bool]) -> dict[str, Any]: ...

    async def read(self, token: str, uri: str) -> list[dict[str, Any]]: ...

    async def prompt(self, token: str, name: str, arguments: dict[str, Any]) -> list[str]: ...


def asker(answer: str, shown: list[str]) -> Callable[[str], bool]:
    """The person: records the question shown and answers yes only for `accept`."""

    def ask(message: str) -> bool:
        shown.append(message)
        return answer == "accept"

    return ask


async def cell(coroutine: Any) -> Any:
    try:
        return await coroutine
    except Exception as error:  # noqa: BLE001 - reported to the Rust side, which fails the cell
        leaf: BaseException = error
        while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
            leaf = leaf.exceptions[0]
        return {"error": f"{type(leaf).__name__}: {leaf}", "trace": traceback.format_exc()[-2000:]}


def summarize(contents: Any) -> Any:
    if isinstance(contents, dict):
        return contents
    out = []
    for content in contents:
        if "bytes" in content:
            raw = content["bytes"]
            out.append({"len": len(raw), "sha256": hashlib.sha256(raw).hexdigest()})
        else:
            out.append(content)
    return out


async def run(adapter: Adapter, plan: dict[str, Any]) -> dict[str, Any]:
    full, readonly = plan["full"], plan["readonly"]
    shown: list[str] = []
    report: dict[str, Any] = {
        "library": adapter.library,
        "version": adapter.version,
        "elicitation": adapter.elicitation,
    }
    report["tools_full"] = await cell(adapter.tools(full))
    report["tools_readonly"] = await cell(adapter.tools(readonly))
    lc = plan["list_call"]
    report["call"] = await cell(adapter.call(full, lc["name"], lc["arguments"], asker("accept", shown)))
    report["json_resource"] = summarize(await cell(adapter.read(readonly, plan["json_uri"])))
    report["pdf"] = summarize(await cell(adapter.read(readonly, plan["pdf_uri"])))
    prompts = []
    for p in plan["prompts"]:
        got = await cell(adapter.prompt(full, p["name"], p["arguments"]))
        prompts.append({"name": p["name"], **(got if isinstance(got, dict) else {"texts": got})})
    report["prompts"] = prompts
    d = plan["destructive"]
    answers = ["decline", "accept"] if adapter.elicitation else ["accept"]
    report["destructive"] = [
        {"answer": a, **(await cell(adapter.call(full, d["name"], d["arguments"], asker(a, shown))))} for a in answers
    ]
    report["elicitations"] = shown
    return report


def main(make_adapter: Callable[[str], Adapter]) -> int:
    """Reads the plan, builds the adapter for its URL, runs every cell, prints the report."""
    plan = json.load(sys.stdin)
    adapter = make_adapter(plan["url"])
    report = asyncio.run(asyncio.wait_for(run(adapter, plan), timeout=300))
    sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    return 0
