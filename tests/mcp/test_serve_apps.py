"""A tool with its own UI (`@tl.tool(ui=...)`, an MCP App) served over MCP, as the SDK's client
sees it on the 2025 protocols ("legacy") and the newest: the tool names its page in
`_meta.ui.resourceUri`, the page is a `text/html;profile=mcp-app` resource, and a call of the
tool still answers as any call does. A tool the endpoint does not serve has no page there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

import threadlab as tl
from threadlab.definitions import APP_MIME, MAX_APP_CHARS

from .test_serve import client_of
from .test_serve_resources import legacy_methods

pytestmark = pytest.mark.processes  # the endpoint serves over a socket, to the SDK's client

PAGE = "<!doctype html><html><body><p id=time>…</p><script>/* the app */</script></body></html>"


def app_registry(page_file: Path) -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, ui=PAGE)
    def clock(state: tl.ThreadState, zone: str = "UTC") -> dict[str, str]:
        """The time in a zone."""
        return {"zone": zone, "time": "12:00"}

    page_file.write_text("<html><body>chart</body></html>", encoding="utf-8")

    @tl.tool(registry=registry, ui=page_file)
    def chart(state: tl.ThreadState, values: list[float]) -> float:
        """Chart some values."""
        return sum(values)

    @tl.tool(registry=registry)
    def plain(state: tl.ThreadState) -> str:
        """No UI."""
        return "plain"

    return registry


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_tool_with_a_ui_lists_its_page_and_the_page_is_read_as_an_app(
    store_dir: Path, tmp_path: Path, mode: str
) -> None:
    rt = tl.Runtime(app_registry(tmp_path / "chart.html"), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["clock"].meta == {
                "ui": {"resourceUri": "ui://threadlab/clock"},
                "ui/resourceUri": "ui://threadlab/clock",
            }
            assert tools["chart"].meta["ui"]["resourceUri"] == "ui://threadlab/chart"
            assert tools["plain"].meta is None
            with legacy_methods():
                listed = {r.uri: r for r in (await client.list_resources()).resources}
            assert {"ui://threadlab/clock", "ui://threadlab/chart"} <= set(listed)
            assert listed["ui://threadlab/clock"].mime_type == APP_MIME
            (page,) = (await client.read_resource("ui://threadlab/clock")).contents
            assert isinstance(page, types.TextResourceContents)
            assert (page.uri, page.mime_type, page.text) == ("ui://threadlab/clock", APP_MIME, PAGE)
            assert page.meta == {"ui": {"csp": {}, "prefersBorder": True}}  # reaches no origin
            (chart,) = (await client.read_resource("ui://threadlab/chart")).contents
            assert isinstance(chart, types.TextResourceContents)
            assert chart.text == "<html><body>chart</body></html>"  # the file, as read
            answered = await client.call_tool("clock", {"zone": "CET"})
            assert not answered.is_error
            assert answered.structured_content == {"zone": "CET", "time": "12:00"}
            with pytest.raises(MCPError, match="Resource not found"):
                await client.read_resource("ui://threadlab/plain")
    finally:
        await service.close()
        await rt.aclose()


async def test_a_tool_the_endpoint_does_not_serve_has_no_page_there(
    store_dir: Path, tmp_path: Path
) -> None:
    rt = tl.Runtime(app_registry(tmp_path / "chart.html"), store_dir)
    service = await tl.mcp.serve(tools=["chart"], runtime=rt)
    try:
        async with client_of(service) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["chart"]
            listed = [r.uri for r in (await client.list_resources()).resources]
            assert "ui://threadlab/chart" in listed
            assert "ui://threadlab/clock" not in listed
            with pytest.raises(MCPError, match="Resource not found"):
                await client.read_resource("ui://threadlab/clock")
    finally:
        await service.close()
        await rt.aclose()


def test_a_ui_that_is_not_a_page_is_refused_when_the_tool_is_defined(tmp_path: Path) -> None:
    def shown(state: tl.ThreadState) -> str:
        """Shown."""
        return ""

    cases = [
        (42, "ui must be an HTML page (a str), an HTML file (a pathlib.Path) or a ToolUI"),
        ("   ", "its UI page is empty"),
        (tmp_path / "missing.html", "cannot read its UI page"),
        ("x" * (MAX_APP_CHARS + 1), "over the"),
    ]
    for ui, said in cases:
        with pytest.raises(tl.DefinitionError, match=re.escape(said)):
            tl.tool(registry=tl.Registry(), ui=ui)(shown)
