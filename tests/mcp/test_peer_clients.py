"""The served registry read by clients nobody here wrote: pydantic-ai's `MCPToolset` (on the
FastMCP client) inside a pydantic-ai agent, and the OpenAI Agents SDK's
`MCPServerStreamableHttp`. Each sees a result's attached image as an image, a typed result as
structured data, the served threads' files as resources, and the registry's prompts."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from pydantic import BaseModel

import threadlab as tl

from .conformance_server import conformance_registry, red_pixel_png

pytestmark = pytest.mark.processes  # the endpoint serves over a socket


class Forecast(BaseModel):
    city: str
    celsius: float


def peer_registry() -> tl.Registry:
    registry = conformance_registry()

    @tl.tool(registry=registry)
    def forecast(state: tl.ThreadState, city: str) -> Forecast:
        """The forecast for a city."""
        return Forecast(city=city, celsius=21.5)

    return registry


async def test_a_pydantic_ai_agent_reads_images_structure_resources_and_prompts(
    store_dir: Path,
) -> None:
    from fastmcp.client import Client
    from fastmcp.client.transports import StreamableHttpTransport
    from pydantic_ai import Agent, BinaryContent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    rt = tl.Runtime(peer_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    seen: list[list[ModelMessage]] = []
    offered: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        offered[:] = [t.name for t in info.function_tools]
        if len(seen) == 1:
            return ModelResponse(parts=[
                ToolCallPart("test_image_content", {}, tool_call_id="c1"),
                ToolCallPart("forecast", {"city": "Oslo"}, tool_call_id="c2"),
            ])  # fmt: skip
        return ModelResponse(parts=[TextPart("done")])

    toolset = MCPToolset(Client(StreamableHttpTransport(service.url, headers=service.headers)))
    try:
        async with toolset:
            result = await Agent(FunctionModel(model), toolsets=[toolset]).run("go")
            assert result.output == "done"
            assert {"test_image_content", "forecast", "test_simple_text"} <= set(offered)
            # what the agent's model read back from the two calls
            returns = {p.tool_name: p for m in seen[1] for p in getattr(m, "parts", ())
                       if isinstance(p, ToolReturnPart)}  # fmt: skip
            images = [c for m in seen[1] for p in getattr(m, "parts", ())
                      for c in _contents(p) if isinstance(c, BinaryContent)]  # fmt: skip
            (image,) = images
            assert (image.media_type, image.data) == ("image/png", red_pixel_png())
            assert returns["forecast"].content == {"city": "Oslo", "celsius": 21.5}

            prompts = {p.name: p for p in await toolset.list_prompts()}
            assert {"test_simple_prompt", "test_prompt_with_arguments"} <= set(prompts)
            got = await toolset.get_prompt("test_prompt_with_arguments",
                                           {"arg1": "a", "arg2": "b"})  # fmt: skip
            (message,) = got.messages
            said = message.content if isinstance(message.content, str) else repr(message.content)
            assert "arg1='a', arg2='b'" in said

            await toolset.direct_call_tool("test_embedded_resource", {})
            thread = next(t for t in rt.threads() if t.agent == "_mcp_test_embedded_resource")
            uri = f"threadlab://threads/{thread.id}/files/notes.txt"
            assert uri in [str(r.uri) for r in await toolset.list_resources()]
            assert await toolset.read_resource(uri) == "This is an embedded resource content."
    finally:
        await service.close()
        await rt.aclose()


def _contents(part: Any) -> list[Any]:
    """A request part's content as a list (a user prompt after tool returns may carry the
    files the returns attach)."""
    content = getattr(part, "content", None)
    return list(content) if isinstance(content, list | tuple) else [content]


async def test_the_openai_agents_sdk_reads_images_structure_resources_and_prompts(
    store_dir: Path,
) -> None:
    from agents.mcp import MCPServerStreamableHttp

    rt = tl.Runtime(peer_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    peer = MCPServerStreamableHttp({"url": service.url, "headers": service.headers},
                                   name="threadlab")  # fmt: skip
    try:
        async with peer:
            tools = {t.name: t for t in await peer.list_tools()}
            assert (tools["forecast"].output_schema or {})["properties"]["city"] == {
                "title": "City", "type": "string"}  # fmt: skip
            image = await peer.call_tool("test_image_content", {})
            (said, picture) = image.content
            assert isinstance(said, types.TextContent)
            assert isinstance(picture, types.ImageContent)
            assert (said.text, picture.mime_type) == ("a red pixel", "image/png")
            assert base64.b64decode(picture.data) == red_pixel_png()
            weather = await peer.call_tool("forecast", {"city": "Oslo"})
            assert weather.structured_content == {"city": "Oslo", "celsius": 21.5}

            prompts = {p.name for p in (await peer.list_prompts()).prompts}
            assert {"test_simple_prompt", "test_prompt_with_arguments"} <= prompts
            got = await peer.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            (message,) = got.messages
            assert isinstance(message.content, types.TextContent)
            assert "arg1='a', arg2='b'" in message.content.text

            await peer.call_tool("test_embedded_resource", {})
            thread = next(t for t in rt.threads() if t.agent == "_mcp_test_embedded_resource")
            uri = f"threadlab://threads/{thread.id}/files/notes.txt"
            assert uri in [str(r.uri) for r in (await peer.list_resources()).resources]
            read = await peer.read_resource(uri)
            (file,) = read.contents
            assert isinstance(file, types.TextResourceContents)
            assert file.text == "This is an embedded resource content."
    finally:
        await service.close()
        await rt.aclose()
