"""An MCP server of the tests' own over streamable HTTP, on the official SDK's MCPServer:
`python http_server.py PORT TOKEN MARKER_DIR`. Its tools: `add`, `fail` (raises), `slow`
(waits until cancelled, then writes MARKER_DIR/cancelled) and `grow` (adds the tool `extra`
and tells the client its tools changed). Every request needs "Authorization: Bearer TOKEN"."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

MARKERS = Path(sys.argv[3]) if __name__ == "__main__" else Path()
server = MCPServer("test-http", log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fail(reason: str) -> str:
    """Always raises."""
    raise RuntimeError(f"it broke: {reason}")


@server.tool()
async def slow(ctx: Context) -> str:
    """Reports progress, then waits until it is cancelled."""
    (MARKERS / "started").write_text("yes")
    await ctx.report_progress(1, 10, "started")
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        (MARKERS / "cancelled").write_text("yes")
        raise
    return "finished"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra`."""

    def extra() -> str:
        """A tool that was not there at first."""
        return "extra ran"

    server.add_tool(extra)
    await ctx.notify_tools_changed()
    return "grown"


app = server.streamable_http_app()


async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        headers = dict(scope.get("headers") or [])
        if headers.get(b"authorization") != f"Bearer {sys.argv[2]}".encode():
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain")]})  # fmt: skip
            await send({"type": "http.response.body", "body": b"wrong token"})
            return
    await app(scope, receive, send)


if __name__ == "__main__":
    uvicorn.run(guarded, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
                lifespan="on")  # fmt: skip
