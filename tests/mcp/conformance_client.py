"""threadlab as the client the official MCP conformance suite tests: a thread whose model
calls a tool of the suite's server, defined with `tl.define_mcp_server`, with an elicitor that
accepts every form as it comes (so the fields' defaults are what is sent).
`python conformance_client.py URL`; the suite names the scenario in MCP_CONFORMANCE_SCENARIO."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, Step, call, text

ARGUMENTS = {"add_numbers": {"a": 5, "b": 3}}


def first_tool(messages: list[Any], tools: list[Any]) -> Step:
    """Call the server's first tool once, then answer with what it returned."""
    if messages[-1].role == "tool":
        return text(messages[-1].content or "")
    if not tools:
        return text("the server lists no tools")
    name = tools[0].name
    return call(name, ARGUMENTS.get(name, {}))


async def main(url: str) -> int:
    registry = tl.Registry()
    tl.define_mcp_server("peer", url=url, timeout=20, registry=registry)
    tl.define_prompt("client", prompt="Use the server.", tools=["mcp:peer"],
                     model=FunctionModel(first_tool), registry=registry)  # fmt: skip
    with tempfile.TemporaryDirectory() as store:
        rt = tl.Runtime(registry, store, elicitor=lambda asked: {})
        try:
            thread = await rt.create_thread("client")
            run = await thread.send("go")
            print(run.status, run.text)
        finally:
            await rt.aclose()
    return 0 if run.status == "completed" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
