"""A URL's credentials — its userinfo and the values of credential-like query parameters
(`?api_key=`, `&X-Amz-Signature=`, `#access_token=`) — are shown nowhere a URL is: the
graph's picture, text and HTML, an unreachable MCP server's error, a log line."""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path

import pytest

import threadlab as tl
from threadlab._urls import UserinfoFilter, scrub

from ..mcp.conftest import free_port

PASSWORD = "hunter2-in-the-url"
KEY = "AK-query-key-5551234"


def a_url(port: int = 9) -> str:
    return f"http://someone:{PASSWORD}@127.0.0.1:{port}/mcp?api_key={KEY}&region=eu"


def test_scrub_hides_credential_parameters_and_keeps_the_others() -> None:
    text = (
        "GET https://h.example/x?X-Amz-Signature=s1g&X-Amz-Credential=cr3d&page=2 and"
        " https://h.example/cb#access_token=t0k&state=1 and https://h.example/?keyword=tea"
        "&apiKey=k3y&sig=s&token="
    )
    assert scrub(text) == (
        "GET https://h.example/x?X-Amz-Signature=***&X-Amz-Credential=***&page=2 and"
        " https://h.example/cb#access_token=***&state=1 and https://h.example/?keyword=tea"
        "&apiKey=***&sig=***&token="
    )


def test_the_graph_shows_a_servers_url_without_its_credentials(registry: tl.Registry) -> None:
    tl.define_mcp_server("remote", url=a_url(), registry=registry)
    tl.define_prompt("p", prompt="x", tools=["mcp:remote"], registry=registry)
    drawn = tl.graph(registry=registry)
    shown = [drawn.svg, drawn._repr_html_(), repr(drawn), json.dumps(drawn.state())]
    for text in shown:
        assert PASSWORD not in text
        assert KEY not in text
    (server,) = [n for n in drawn.nodes if n.name == "remote"]
    assert "url: http://127.0.0.1:9/mcp?api_key=***&region=eu" in server.definition


async def test_an_unreachable_servers_error_and_logs_name_it_without_its_credentials(
    registry: tl.Registry, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tl.define_mcp_server("remote", url=a_url(free_port()), registry=registry)
    tl.define_prompt("p", prompt="x", tools=["mcp:remote"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    caplog.set_level(logging.DEBUG)
    try:
        with pytest.raises(tl.MCPServerError, match="could not be reached") as raised:
            await rt.create_thread("p")
    finally:
        await rt.aclose()
    told = "".join(traceback.format_exception(raised.value))
    assert "api_key=***" in str(raised.value)
    for text in (told, repr(raised.value)):
        assert PASSWORD not in text
        assert KEY not in text


def test_a_log_line_quoting_a_url_is_rewritten() -> None:
    record = logging.LogRecord("httpx", logging.INFO, __file__, 1, "POST %s", (a_url(),), None)
    assert UserinfoFilter().filter(record)
    assert KEY not in record.getMessage()
    assert PASSWORD not in record.getMessage()
