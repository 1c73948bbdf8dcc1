"""An MCP server of the tests' own over stdio, on the official SDK's MCPServer, that asks the
client's model many things at once and floods it with log messages and oversized results:
`python sampling_server.py`. Its tools: `burst` (12 sampling requests of up to 500 tokens
sent concurrently mid-call: the 2025 protocols), `burst_round` (the same 12 in one
`InputRequiredResult` round: the 2026 protocol), `babble` (`count` log messages as fast as
it can, then a warning) and `huge` (a structured result of `megabytes` MB)."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import anyio
from mcp import types
from mcp.server.mcpserver import Context, MCPServer, Resolve, Sample

server = MCPServer("test-sampling", log_level="WARNING")

BURST = 12
ASKED_TOKENS = 500


def _question(k: int) -> types.SamplingMessage:
    said = types.TextContent(type="text", text=f"question {k}")
    return types.SamplingMessage(role="user", content=said)


def _resolver(k: int) -> Any:
    def ask() -> Sample:
        return Sample([_question(k)], max_tokens=ASKED_TOKENS)

    ask.__name__ = ask.__qualname__ = f"ask_{k}"
    return ask


def _said(result: types.CreateMessageResult) -> str:
    content = result.content
    return content.text if isinstance(content, types.TextContent) else str(content)


@server.tool()
async def burst(ctx: Context) -> str:
    """Asks the client's model 12 questions at once (the 2025 protocols: 12 requests in flight
    mid-call, each answered or refused)."""
    outcomes: list[str] = []

    async def one(k: int) -> None:
        try:
            await ctx.session.create_message([_question(k)], max_tokens=ASKED_TOKENS)
        except Exception as exc:
            outcomes.append(f"refused: {exc}")
        else:
            outcomes.append("answered")

    async with anyio.create_task_group() as group:
        for k in range(BURST):
            group.start_soon(one, k)
    refused = [o for o in outcomes if o != "answered"]
    return f"{BURST - len(refused)} answered; " + " | ".join(refused[:1])


async def burst_round(**answers: types.CreateMessageResult) -> str:
    """Asks the client's model 12 questions in one round (the 2026 protocol)."""
    return f"{len([_said(a) for a in answers.values()])} answered"


# The SDK asks what a tool's `Resolve` parameters need in one round: `burst_round` declares
# 12 of them, written out by its signature rather than by hand.
_parameters = [
    inspect.Parameter(f"answer_{k}", inspect.Parameter.KEYWORD_ONLY,
                      annotation=Annotated[types.CreateMessageResult, Resolve(_resolver(k))])
    for k in range(BURST)
]  # fmt: skip
burst_round.__signature__ = inspect.Signature(_parameters, return_annotation=str)  # type: ignore[attr-defined]
burst_round.__annotations__ = {p.name: p.annotation for p in _parameters} | {"return": str}
server.add_tool(burst_round)


@server.tool()
async def babble(count: int, ctx: Context) -> str:
    """Logs `count` messages as fast as it can, then answers."""
    for n in range(1, count + 1):
        await ctx.info(f"line {n} " + "." * 400)
    await ctx.warning("the last line")
    return f"logged {count + 1}"


@server.tool()
def huge(megabytes: int) -> types.CallToolResult:
    """A structured result of `megabytes` MB, and a short text."""
    rows = ["x" * 1000] * (megabytes * 1000)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="a big table")],
        structured_content={"rows": rows},
    )


if __name__ == "__main__":
    server.run("stdio")
