"""An MCP server of the tests' own over stdio, on the official SDK's MCPServer:
`python stdio_server.py [bad-schema]`. Its tools: `pid` (the server's process id), `flood`
(sends many progress notifications), `die` (the process exits in the middle of the call),
`chatty` (logs as it runs), `snapshot` (an image, also inside its structured content, as
server-filesystem's `read_media_file` answers), `ask` (asks the user a form with defaults),
`crowd` (asks an oversized form) and `summarise` (asks the client's model); with
`bad-schema`, also `broken`, whose input schema is not valid JSON Schema."""

from __future__ import annotations

import base64
import os
import sys
from typing import Annotated

from mcp import types
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
    Sample,
)
from pydantic import BaseModel, create_model

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


@server.tool()
async def chatty(ctx: Context) -> str:
    """Logs two messages while it runs."""
    await ctx.info("looking around")
    await ctx.warning("found a loose end")
    return "chatted"


PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 600).decode()


@server.tool()
def snapshot() -> types.CallToolResult:
    """An image, as content and inside the structured content."""
    return types.CallToolResult(
        content=[types.ImageContent(type="image", data=PIXEL, mime_type="image/png")],
        structured_content={"name": "pixel.png", "image": {"data": PIXEL, "mimeType": "image/png"}},
    )


class Preferences(BaseModel):
    colour: str = "green"
    size: int = 3
    confirm: bool


def preferences() -> Elicit[Preferences]:
    return Elicit("Your preferences?", Preferences)


@server.tool()
async def ask(
    answer: Annotated[ElicitationResult[Preferences], Resolve(preferences)],
) -> str:
    """Asks the user for their preferences (mid-call on the 2025 protocols, by an answer the
    client sends with the call again on the 2026 one)."""
    if not isinstance(answer, AcceptedElicitation):
        return f"the user chose to {answer.action}"
    data = answer.data
    return f"colour={data.colour} size={data.size} confirm={data.confirm}"


Crowd = create_model("Crowd", **{f"field_{i}": (str, "x" * 50) for i in range(500)})  # type: ignore[call-overload]


def crowd_form() -> Elicit[BaseModel]:
    return Elicit("Fill this in.", Crowd)


@server.tool()
async def crowd(answer: Annotated[ElicitationResult[BaseModel], Resolve(crowd_form)]) -> str:
    """Asks the user a form of 500 fields."""
    return f"the user chose to {answer.action}"


def summary_request(text: str) -> Sample:
    said = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
    return Sample([said], max_tokens=50, system_prompt="Summarise in a line.")


@server.tool()
async def summarise(
    text: str, summary: Annotated[types.CreateMessageResult, Resolve(summary_request)]
) -> str:
    """Summarises a text with the client's model."""
    content = summary.content
    said = content.text if isinstance(content, types.TextContent) else str(content)
    return f"summary by {summary.model}: {said}"


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
