"""MCP in a notebook: `%%mcp NAME` defines a server from TOML, and `%threadlab mcp serve`
(a cell of its own) serves the notebook's tools to MCP clients while the kernel runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from ipywidgets.widgets.widget import _instances  # type: ignore[import-untyped]

import threadlab as tl
from threadlab.widgets._views import VIEW_MIME

from ..mcp.conftest import EVERYTHING
from ..widgets.fake_comm import customs_of, install
from .test_magics import magics, run, shell

__all__ = ["shell"]

SHOUT = '''%%tool
def shout(state, text: str) -> str:
    """Shout the text back."""
    return text.upper()
'''

CALL = """
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

served = get_ipython().magics_manager.registry["ThreadlabMagics"].mcp_service
async with httpx2.AsyncClient(headers=served.headers) as http:
    async with Client(streamable_http_client(served.url, http_client=http)) as client:
        answer = await client.call_tool("shout", {"text": "hello"})
answer.content[0].text
"""


def test_an_mcp_cell_defines_a_server(shell: InteractiveShell) -> None:
    shown = run(shell, f'%%mcp everything\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\n'
                       'tools = ["echo"]\nprefix = "ev"\n')  # fmt: skip
    assert repr(shown).startswith("MCP server everything (node ")
    assert "tools echo" in repr(shown)
    server = tl.default_registry().mcp_server("everything")
    assert server is not None
    assert (server.tools, server.prefix) == (("echo",), "ev")
    with pytest.raises(UsageError, match="unknown keys port"):
        run(shell, '%%mcp other\nurl = "http://127.0.0.1:9/mcp"\nport = 9\n')
    with pytest.raises(UsageError, match="not valid TOML"):
        run(shell, "%%mcp other\nurl = \n")
    with pytest.raises(UsageError, match="exactly one of command="):
        run(shell, '%%mcp other\nprefix = "x"\n')


def test_an_mcp_cell_takes_a_pre_registered_oauth_client_but_not_its_secret(
    shell: InteractiveShell,
) -> None:
    run(shell, '%%mcp tracker\nurl = "https://mcp.tracker.example/mcp"\n'
               '[oauth]\nclient_id = "notebook-app"\n')  # fmt: skip
    server = tl.default_registry().mcp_server("tracker")
    assert server is not None
    assert server.oauth == tl.OAuth(client_id="notebook-app")
    with pytest.raises(UsageError, match=r"unknown \[oauth\] keys client_secret.*in Python"):
        run(shell, '%%mcp tracker\nurl = "https://mcp.tracker.example/mcp"\n'
                   '[oauth]\nclient_id = "app"\nclient_secret = "s3cret-value"\n')  # fmt: skip


def test_serve_shows_the_token_on_screen_only_and_clients_call_the_tools(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    shown: list[Any] = []
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, **kw: shown.append(data))
    run(shell, SHOUT)
    shown.clear()
    run(shell, "%threadlab mcp serve")
    printed = capsys.readouterr().out
    served = magics(shell).mcp_service
    (output,) = shown
    assert f"MCP endpoint {served.url}: serving shout" in output["text/plain"]
    # Nowhere the notebook keeps anything: the output, its text, the widget's synced state.
    kept = json.dumps([printed, output, [data for _, _, data in sent]])
    assert served.token not in kept
    # A view on screen asks for it: the token comes to it over the comm, with the config.
    view = _instances[output[VIEW_MIME]["model_id"]]
    view._on_message(view, {"op": "ready"}, [])
    (secret,) = [c for c in customs_of(sent) if c["op"] == "secret"]
    assert secret["token"] == served.token
    assert f"Bearer {served.token}" in secret["config"]
    assert run(shell, CALL) == "HELLO"
    (thread,) = magics(shell).memory.runtime.threads()
    assert (thread.origin, thread.messages[-1].content) == ("mcp", "HELLO")
    listed = run(shell, "%threadlab threads")  # this notebook's threads, and the MCP calls
    assert [r["id"] for r in listed.rows] == [thread.id]
    run(shell, "%threadlab mcp status")
    assert "serving shout at" in capsys.readouterr().out
    run(shell, "%threadlab mcp stop")
    assert magics(shell).mcp_service is None
    with pytest.raises(UsageError, match="nothing is served"):
        run(shell, "%threadlab mcp stop")
    with pytest.raises(UsageError, match="--port takes a number"):
        run(shell, "%threadlab mcp serve --port x")
    with pytest.raises(UsageError, match="a cell of its own"):
        run(shell, "%threadlab mcp serve\nx = 1")
