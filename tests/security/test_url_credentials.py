"""A URL's credentials — its userinfo and the values of credential-like query parameters
(`?api_key=`, `&X-Amz-Signature=`, `#access_token=`) — are shown nowhere a URL is: the
graph's picture, text and HTML, an unreachable MCP server's error, a log line."""

from __future__ import annotations

import json
import logging
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import threadlab as tl
from threadlab._urls import UserinfoFilter, scrub

from ..mcp.conftest import HttpServer, free_port, http_server

__all__ = ["http_server"]  # the fixture, used here too

PASSWORD = "hunter2-in-the-url"
KEY = "AK-query-key-5551234"


def a_url(port: int = 9) -> str:
    return f"http://someone:{PASSWORD}@127.0.0.1:{port}/mcp?api_key={KEY}&region=eu"


def test_scrub_hides_credential_parameters_and_keeps_the_others() -> None:
    text = (
        "GET https://h.example/x?X-Amz-Signature=s1g&X-Amz-Credential=cr3d&page=2 and"
        " https://h.example/cb#access_token=t0k&state=1 and https://h.example/?keyword=tea"
        "&apiKey=k3y&sig=s&token=&key1=k&keyid=i&passcode=p&client_assertion=a&auth='q'"
    )
    assert scrub(text) == (
        "GET https://h.example/x?X-Amz-Signature=***&X-Amz-Credential=***&page=2 and"
        " https://h.example/cb#access_token=***&state=1 and https://h.example/?keyword=tea"
        "&apiKey=***&sig=***&token=&key1=***&keyid=***&passcode=***&client_assertion=***"
        "&auth=***'"
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


class _Failing(BaseHTTPRequestHandler):
    """A provider's endpoint that answers every request with an error."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b'{"error": {"message": "boom"}}'
        self.send_response(500)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


async def test_an_answered_requests_log_lines_name_the_url_without_its_credentials(
    registry: tl.Registry, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The HTTP library logs each request it got an answer to (at INFO), URL and all.
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        tl.define_model("local", provider="openai", model="m", base_url=a_url(
            server.server_address[1]).replace("/mcp", "/v1"), options={"max_retries": 0},
            registry=registry)  # fmt: skip
        tl.define_prompt("p", prompt="x", model="local", registry=registry)
        rt = tl.Runtime(registry, store_dir, secret_key="k")
        thread = await rt.create_thread("p", env={"OPENAI_API_KEY": "sk-not-a-real-key"})
        with caplog.at_level(logging.DEBUG):
            run = await thread.send("hello")
        rt.close()
    finally:
        server.shutdown()
        server.server_close()
    assert run.status == "failed"
    assert "answered HTTP 500" in (run.error or "")
    assert "127.0.0.1" in caplog.text  # the request was logged
    for text in (caplog.text, run.error or ""):
        assert PASSWORD not in text
        assert KEY not in text


@pytest.mark.processes  # an MCP server of its own
async def test_an_mcp_servers_log_lines_name_its_url_without_its_credentials(
    http_server: HttpServer, registry: tl.Registry, store_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    url = f"{http_server.url}?api_key={KEY}"
    tl.define_mcp_server("remote", url=url, registry=registry,
                         headers={"Authorization": f"Bearer {http_server.token}"})  # fmt: skip
    tl.define_prompt("p", prompt="x", tools=["mcp:remote"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    with caplog.at_level(logging.DEBUG):
        await rt.create_thread("p")
    await rt.aclose()
    assert "api_key=***" in caplog.text  # the requests were logged
    assert KEY not in caplog.text
