"""A registry served over MCP, called by real clients: the official SDK's client and the MCP
Inspector's CLI (npm, installed by `.ci/run` into `.cache/npm`)."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import threadlab as tl

from .conftest import ROOT

pytestmark = pytest.mark.processes  # it starts MCP servers and clients in their own processes

INSPECTOR = ROOT / ".cache/npm/node_modules/.bin/mcp-inspector"


def served_registry() -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry)
    async def count(state: tl.ThreadState, n: int) -> str:
        """Count to n, reporting each step."""
        for i in range(n):
            state.emit("progress", {"step": i + 1, "of": n})
            await asyncio.sleep(0.01)
        return f"counted to {n}"

    tl.define_prompt("helper", prompt="Help.", expose_as_tool=True,
                     tool_description="Answers a question.", registry=registry)  # fmt: skip
    tl.define_prompt("private", prompt="Not a tool.", registry=registry)
    return registry


@asynccontextmanager
async def client_of(
    service: tl.mcp.MCPService, token: str | None = None, **options: Any
) -> AsyncIterator[Any]:
    """The SDK's client of `service`; `options` are `mcp.Client`'s (mode="legacy": the 2025
    protocols' handshake, as today's clients speak; by default the newest both know)."""
    headers = {"Authorization": f"Bearer {token}"} if token else service.headers
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(service.url, http_client=http), **options) as client,
    ):
        yield client


async def test_the_sdk_client_lists_and_calls_and_each_call_is_a_thread(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(served_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        assert service.url.startswith("http://127.0.0.1:")
        assert service.client_config()["mcpServers"]["threadlab"]["headers"] == service.headers
        async with client_of(service) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(listed) == ["count", "helper"]
            assert listed["count"].input_schema["properties"]["n"]["type"] == "integer"
            assert listed["helper"].description == "Answers a question."
            seen: list[tuple[float, float | None]] = []

            async def progress(done: float, total: float | None, message: str | None) -> None:
                seen.append((done, total))

            counted = await client.call_tool("count", {"n": 3}, progress_callback=progress)
            assert (counted.is_error, counted.content[0].text) == (False, "counted to 3")
            assert seen == [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]
            refused = await client.call_tool("count", {"n": "three"})
            assert refused.is_error
            assert "invalid arguments for tool 'count'" in refused.content[0].text
            answered = await client.call_tool("helper", {"message": "hello"})
            assert (answered.is_error, answered.content[0].text) == (
                False, "(offline model) You said: hello")  # fmt: skip
            with pytest.raises(MCPError, match="Unknown tool: private") as unknown:
                await client.call_tool("private", {"message": "x"})
            assert unknown.value.code == -32602  # the spec's error for an unknown tool
        threads = rt.threads()
        assert {t.origin for t in threads} == {"mcp"}
        assert sorted(t.agent for t in threads) == ["_mcp_count", "_mcp_count", "helper"]
        (ok,) = [t for t in threads if t.agent == "_mcp_count" and "counted" in
                 (t.messages[-1].content or "")]  # fmt: skip
        assert [m.role for m in ok.messages] == ["user", "assistant", "tool", "assistant"]
    finally:
        await service.close()
        await rt.aclose()


async def test_a_redefined_tool_is_announced_and_listed(store_dir: Path) -> None:
    registry = served_registry()
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(registry, runtime=rt)
    try:
        async with client_of(service) as client:
            async with client.listen(tools_list_changed=True) as subscription:
                tl.define_tool("shout", description="Shout.", execute=lambda s, a: "HEY",
                               registry=registry)  # fmt: skip
                event = await asyncio.wait_for(anext(aiter(subscription)), 10)
                assert type(event).__name__ == "ToolsListChanged"
            names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            assert "shout" in names
    finally:
        await service.close()
        await rt.aclose()


async def test_no_token_or_a_wrong_one_is_refused(store_dir: Path) -> None:
    rt = tl.Runtime(served_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        assert service.token is not None
        assert len(service.token) >= 24
        async with httpx2.AsyncClient() as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            for headers in ({}, {"Authorization": "Bearer wrong-token"}):
                answer = await http.post(service.url, json=body, headers=headers)
                assert answer.status_code == 401
        assert rt.threads() == []
    finally:
        await service.close()
        await rt.aclose()


async def test_serving_names_that_are_not_defined_or_a_short_token_is_refused() -> None:
    with pytest.raises(tl.DefinitionError, match="cannot serve 'nope'"):
        await tl.mcp.serve(served_registry(), tools=["nope"])
    with pytest.raises(ValueError, match="at least 8 characters"):
        await tl.mcp.serve(served_registry(), token="short")


async def test_the_mcp_inspector_cli_lists_and_calls(store_dir: Path) -> None:
    if not INSPECTOR.exists():
        message = "@modelcontextprotocol/inspector: .ci/run installs it into .cache/npm"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    rt = tl.Runtime(served_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        base = [str(INSPECTOR), "--cli", service.url, "--transport", "http",
                "--header", f"Authorization: Bearer {service.token}"]  # fmt: skip

        def inspector(*args: str) -> str:
            done = subprocess.run([*base, *args], capture_output=True, text=True, timeout=60,
                                  check=False)  # fmt: skip
            assert done.returncode == 0, done.stderr
            return done.stdout

        listed = await asyncio.to_thread(inspector, "--method", "tools/list")
        assert '"name": "count"' in listed
        called = await asyncio.to_thread(inspector, "--method", "tools/call", "--tool-name",
                                         "count", "--tool-arg", "n=2")  # fmt: skip
        assert "counted to 2" in called
        assert '"isError": false' in called
    finally:
        await service.close()
        await rt.aclose()
