"""An MCP server of the tests' own over stdio, on the official SDK's MCPServer:
`python stdio_server.py [bad-schema]`. Its tools: `pid` (the server's process id), `flood`
(sends many progress notifications) and `die` (the process exits in the middle of the call);
with `bad-schema`, also `broken`, whose input schema is not valid JSON Schema."""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("test-stdio", log_level="WARNING")


@server.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@server.tool()
async def flood(count: int, ctx: Context) -> str:
    """Sends `count` progress notifications as fast as it can, then answers."""
    for done in range(1, count + 1):
        await ctx.report_progress(done, count)
    return f"sent {count}"


@server.tool()
def die() -> str:
    """Ends the server's process before answering."""
    os._exit(3)


if __name__ == "__main__" and sys.argv[1:] == ["bad-schema"]:

    @server.tool()
    def broken(a: int) -> int:
        """Declares an input schema no validator accepts."""
        return a

    tool = server._tool_manager.get_tool("broken")
    assert tool is not None
    tool.parameters = {"type": "object", "properties": {"a": {"type": "integer", "minimum": "0"}}}

if __name__ == "__main__":
    server.run("stdio")
