"""A tool written here with its own UI (`@tl.tool(ui=...)`), served by `tl.mcp.serve`, drawn by
another host: a page built on the official MCP Apps SDK's host side (`AppBridge` from
`@modelcontextprotocol/ext-apps/app-bridge`, bundled from the project's npm cache) reads the
tool's page with the SDK's Python client, as Claude or VS Code would, shows it in a sandboxed
frame in Chromium, tells it the call's arguments and result, and answers the app's own
`tools/call` by calling the served endpoint."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import types

import threadlab as tl

from ..helpers import missing_package
from ..mcp.test_serve import client_of
from .conftest import Lab

pytestmark = pytest.mark.processes  # Chromium, and an endpoint on a socket

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / ".cache/npm/node_modules"
ESBUILD = MODULES / ".bin/esbuild"

# The app: the protocol spoken by hand, as a page written in a notebook cell would.
PAGE = """<!doctype html><html><body>
<p id="input">no input</p><p id="result">no result</p><p id="ticked">not ticked</p>
<button id="tick">tick</button>
<script>
let next = 1; const asked = new Map();
function request(method, params) {
  const id = next++;
  parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve) => asked.set(id, resolve));
}
addEventListener("message", (e) => {
  const m = e.data;
  if (m.id !== undefined && asked.has(m.id)) { asked.get(m.id)(m); asked.delete(m.id); return; }
  if (m.method === "ui/notifications/tool-input")
    document.getElementById("input").textContent = "zone " + m.params.arguments.zone;
  if (m.method === "ui/notifications/tool-result")
    document.getElementById("result").textContent = "time " + m.params.structuredContent.time;
});
document.getElementById("tick").onclick = async () => {
  const answer = await request("tools/call", { name: "tick", arguments: { times: 3 } });
  document.getElementById("ticked").textContent = answer.result.content[0].text;
};
request("ui/initialize", { appInfo: { name: "clock", version: "1" }, appCapabilities: {},
                           protocolVersion: "2026-01-26" })
  .then(() => parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*"));
</script></body></html>"""

HOST = """<!doctype html><html><body><iframe id="app" sandbox="allow-scripts"
  style="width:600px;height:200px"></iframe>
<script>{bridge}</script>
<script>
(async () => {{
  const frame = document.getElementById("app");
  const host = {{ name: "test host", version: "1" }};
  const bridge = new AppBridge(null, host, {{ serverTools: {{}} }});
  bridge.oncalltool = async (params) =>
    JSON.parse(await window.callServerTool(JSON.stringify(params)));
  bridge.oninitialized = () => {{
    bridge.sendToolInput({{ arguments: {arguments} }});
    bridge.sendToolResult({result});
  }};
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = {page};
}})();
</script></body></html>"""


def _in_script(value: Any) -> str:
    """`value` as JSON that cannot end the script element it is written in."""
    return json.dumps(value).replace("</", "<\\/")


@pytest.fixture
def bridge_script(tmp_path: Path) -> str:
    if not (ESBUILD.exists() and (MODULES / "@modelcontextprotocol/ext-apps").exists()):
        missing_package("@modelcontextprotocol/ext-apps and esbuild in .cache/npm")
    entry = tmp_path / "bridge.js"
    entry.write_text(
        "import { AppBridge, PostMessageTransport }"
        ' from "@modelcontextprotocol/ext-apps/app-bridge";\n'
        "window.AppBridge = AppBridge;\nwindow.PostMessageTransport = PostMessageTransport;\n"
    )
    out = tmp_path / "bridge.bundle.js"
    subprocess.run(
        [str(ESBUILD), str(entry), "--bundle", "--format=iife", f"--outfile={out}",
         "--log-level=warning"],
        env={**os.environ, "NODE_PATH": str(MODULES)}, check=True,
    )  # fmt: skip
    return out.read_text()


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop of its own, beside Playwright's, for the endpoint and its client."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(10)
    running.close()  # its selector and self-pipe go now, not at some later test's collection


def served_registry() -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, ui=PAGE)
    def clock(state: tl.ThreadState, zone: str) -> dict[str, str]:
        """The time in a zone."""
        return {"zone": zone, "time": "12:00"}

    @tl.tool(registry=registry)
    def tick(state: tl.ThreadState, times: int) -> str:
        """Tick."""
        return "tick " * times

    return registry


def test_a_served_tools_app_runs_in_the_official_sdks_host(
    lab: Lab, browser: Any, bridge_script: str, loop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    rt = tl.Runtime(served_registry(), tmp_path / "store")

    def on_loop(work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, loop).result(60)

    service = on_loop(tl.mcp.serve(runtime=rt))
    opened: asyncio.Future[Any] = loop.create_future()
    done = asyncio.Event()

    async def hold() -> None:  # the client's whole life in one task, as anyio wants
        async with client_of(service) as held:
            opened.set_result(held)
            await done.wait()

    holding = asyncio.run_coroutine_threadsafe(hold(), loop)
    client = asyncio.run_coroutine_threadsafe(asyncio.wait_for(opened, 60), loop).result(60)
    try:
        # What a host does: list the tools, read the UI the tool names, call the tool.
        (clock,) = [t for t in on_loop(client.list_tools()).tools if t.name == "clock"]
        uri = clock.meta["ui"]["resourceUri"]
        (page,) = on_loop(client.read_resource(uri)).contents
        assert isinstance(page, types.TextResourceContents)
        assert page.mime_type == "text/html;profile=mcp-app"
        called = on_loop(client.call_tool("clock", {"zone": "CET"}))
        result = called.model_dump(mode="json", by_alias=True, exclude_none=True)

        def call_server_tool(params: str) -> str:
            asked = json.loads(params)
            answer = on_loop(client.call_tool(asked["name"], asked.get("arguments") or {}))
            return json.dumps(answer.model_dump(mode="json", by_alias=True, exclude_none=True))

        host = HOST.format(
            bridge=bridge_script,
            arguments=_in_script({"zone": "CET"}),
            result=_in_script(result),
            page=_in_script(page.text),
        )
        browser_page = browser.new_page()
        try:
            errors: list[str] = []
            browser_page.on("pageerror", lambda error: errors.append(str(error)))
            browser_page.expose_function("callServerTool", call_server_tool)
            browser_page.set_content(host)
            app = browser_page.frame_locator("#app")
            app.locator("#input", has_text="zone CET").wait_for(timeout=30_000)
            app.locator("#result", has_text="time 12:00").wait_for(timeout=30_000)
            app.locator("#tick").click()
            app.locator("#ticked", has_text="tick tick tick").wait_for(timeout=30_000)
            assert errors == []
        finally:
            browser_page.close()
    finally:
        loop.call_soon_threadsafe(done.set)
        holding.result(60)
        on_loop(service.close())
        on_loop(rt.aclose())
