"""Signing in to an MCP server that asks for OAuth 2.1 (`define_mcp_server(oauth=...)`), against
the tests' own server with its own authorization server (`oauth_server.py`): the sign-in, the
refresh, signing in again when the refresh is refused, a notebook's link completed on the
loopback listener; and what must not happen: a token in anything written or said, a sign-in
sent in the clear to another host, a redirect of another sign-in taken."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

import threadlab as tl
from threadlab.models import FunctionModel, Step, call, text

from .conftest import HttpServer
from .oauth_server import OAuthServer, Served

pytestmark = pytest.mark.processes  # it serves an MCP server over HTTP


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    state = OAuthServer()
    served = Served(state)
    try:
        yield state
    finally:
        served.stop()


class Browser:
    """A person who clicks "Allow": the redirect the authorization URL answers with."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, authorization_url: str) -> str:
        self.asked.append(authorization_url)
        answer = httpx2.get(authorization_url, follow_redirects=False)
        assert answer.status_code == 302, answer.text
        return answer.headers["location"]


def caller(messages: list[Any], tools: list[Any]) -> Step:
    """Calls the tool the user's message names with its arguments ("add {...}"), once."""
    if messages[-1].role == "tool":
        return text(messages[-1].content or "")
    name, _, args = (messages[-1].content or "").partition(" ")
    return call(name, json.loads(args or "{}"))


async def runtime(registry: tl.Registry, store: Path) -> tuple[tl.Thread, tl.Runtime]:
    tl.define_prompt("p", prompt="Use the tools.", model=FunctionModel(caller),
                     tools=["mcp:remote"], registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store)
    return await rt.create_thread("p"), rt


async def ask(thread: tl.Thread, message: str) -> str:
    run = await thread.send(message)
    assert run.status == "completed", run.error
    return run.text or ""


async def test_a_server_asking_for_oauth_is_signed_in_to_once_with_pkce_and_its_resource(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    browser = Browser()
    tl.define_mcp_server("remote", url=server.url, oauth=browser, registry=registry)
    thread, rt = await runtime(registry, store_dir)
    try:
        assert await ask(thread, 'add {"a": 2, "b": 3}') == '{"result": 5}'
        assert await ask(thread, 'add {"a": 1, "b": 1}') == '{"result": 2}'
        (asked,) = browser.asked
        assert "code_challenge_method=S256" in asked
        assert "resource=http%3A%2F%2F127.0.0.1" in asked
        assert server.grants == ["authorization_code"]
        assert list(server.clients) == ["client-1"]  # registered itself, once
    finally:
        await rt.aclose()


async def test_an_async_sign_in_may_answer_with_the_code_and_state(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    async def sign_in(authorization_url: str) -> tuple[str, str]:
        async with httpx2.AsyncClient() as http:
            location = (await http.get(authorization_url)).headers["location"]
        query = dict(httpx2.URL(location).params)
        return query["code"], query["state"]

    tl.define_mcp_server("remote", url=server.url, oauth=tl.OAuth(sign_in=sign_in),
                         registry=registry)  # fmt: skip
    thread, rt = await runtime(registry, store_dir)
    try:
        assert await ask(thread, 'add {"a": 2, "b": 3}') == '{"result": 5}'
    finally:
        await rt.aclose()


async def test_an_expired_access_token_is_refreshed_without_asking_again(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    server.expires_in = 1
    browser = Browser()
    tl.define_mcp_server("remote", url=server.url, oauth=browser, registry=registry)
    thread, rt = await runtime(registry, store_dir)
    try:
        assert await ask(thread, 'add {"a": 2, "b": 3}') == '{"result": 5}'
        await asyncio.sleep(1.2)
        assert await ask(thread, 'add {"a": 4, "b": 4}') == '{"result": 8}'
        assert server.grants == ["authorization_code", "refresh_token"]
        assert len(browser.asked) == 1
    finally:
        await rt.aclose()


async def test_a_refused_refresh_signs_in_again_and_says_why(
    server: OAuthServer, registry: tl.Registry, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.expires_in, server.refuse_refresh = 1, True
    browser = Browser()
    tl.define_mcp_server("remote", url=server.url, oauth=browser, registry=registry)
    thread, rt = await runtime(registry, store_dir)
    try:
        assert await ask(thread, 'add {"a": 2, "b": 3}') == '{"result": 5}'
        await asyncio.sleep(1.2)
        with caplog.at_level(logging.WARNING, "threadlab.mcp_client"):
            assert await ask(thread, 'add {"a": 4, "b": 4}') == '{"result": 8}'
        assert server.grants == ["authorization_code", "refresh_token", "authorization_code"]
        assert len(browser.asked) == 2
        assert "MCP server 'remote': the authorization server refused to refresh" in caplog.text
    finally:
        await rt.aclose()


async def test_no_token_is_in_the_store_an_event_a_message_an_error_or_a_log(
    server: OAuthServer, registry: tl.Registry, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server.expires_in = 1
    tl.define_mcp_server("remote", url=server.url, oauth=Browser(), registry=registry)
    thread, rt = await runtime(registry, store_dir)
    try:
        await ask(thread, 'add {"a": 2, "b": 3}')
        await ask(thread, 'fail {"reason": "no"}')
        await asyncio.sleep(1.2)
        await ask(thread, 'add {"a": 4, "b": 4}')  # after a refresh
        # The refresh refused, then the code: the authorization server quotes the tokens.
        server.refuse_refresh = server.refuse_codes = True
        await asyncio.sleep(1.2)
        said = await ask(thread, 'add {"a": 1, "b": 1}')
        stored = [*(m.model_dump_json() for m in thread.messages),
                  *(e.model_dump_json() for e in thread.events)]  # fmt: skip
    finally:
        await rt.aclose()
    assert "MCP server 'remote'" in said
    assert "Token exchange failed (400)" in said
    assert server.grants == ["authorization_code", "refresh_token", "refresh_token",
                             "authorization_code"]  # fmt: skip
    assert len(server.issued) == 4  # two tokens of the sign-in, two of the refresh
    written = [
        caplog.text,
        *stored,
        *(p.read_bytes().decode("latin-1") for p in store_dir.rglob("*") if p.is_file()),
    ]
    for token in server.issued:
        assert [w for w in written if token in w] == [], token


async def open_fails(registry: tl.Registry, store: Path) -> str:
    """What opening the server says, when it cannot be opened."""
    tl.define_prompt("p", prompt="x", tools=["mcp:remote"], registry=registry)
    rt = tl.Runtime(registry, store)
    try:
        with pytest.raises(tl.MCPServerError) as raised:
            await rt.create_thread("p")
    finally:
        await rt.aclose()
    return str(raised.value)


async def test_a_token_endpoint_of_another_host_over_plain_http_is_never_sent_the_code(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    server.token_endpoint = "http://tokens.example.net/token"
    browser = Browser()
    tl.define_mcp_server("remote", url=server.url, oauth=browser, registry=registry)
    said = await open_fails(registry, store_dir)
    assert said.startswith(f"MCP server 'remote' ({server.url}): its token endpoint")
    assert "http://tokens.example.net/token is not https" in said
    assert browser.asked == []  # nobody was asked to sign in for it


async def test_a_redirect_carrying_another_state_is_refused_and_nothing_exchanged(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    def forged(authorization_url: str) -> str:
        location = Browser()(authorization_url)
        return location.replace("state=", "state=x")

    tl.define_mcp_server("remote", url=server.url, oauth=forged, registry=registry)
    said = await open_fails(registry, store_dir)
    assert "the redirect's state is not the one this sign-in sent" in said
    assert said.startswith("MCP server 'remote'")
    assert server.grants == []


async def test_a_refused_sign_in_and_a_failing_sign_in_say_so(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    def refused(authorization_url: str) -> str:
        state = dict(httpx2.URL(authorization_url).params)["state"]
        return f"http://127.0.0.1/callback?error=access_denied&error_description=No&state={state}"

    tl.define_mcp_server("remote", url=server.url, oauth=refused, registry=registry)
    said = await open_fails(registry, store_dir)
    assert "the authorization server refused the sign-in (access_denied: No)" in said

    async def broken(authorization_url: str) -> str:
        raise OSError("no browser")

    tl.define_mcp_server("remote", url=server.url, oauth=broken, registry=registry)
    said = await open_fails(registry, store_dir)
    assert "MCP server 'remote'" in said
    assert "its oauth sign_in failed: OSError: no browser" in said

    def wrong(authorization_url: str) -> Any:
        return 42

    tl.define_mcp_server("remote", url=server.url, oauth=wrong, registry=registry)
    said = await open_fails(registry, store_dir)
    assert "must return the redirect URL (or its (code, state)), not int" in said


async def test_without_oauth_outside_a_notebook_the_refusal_says_to_give_it(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_mcp_server("remote", url=server.url, registry=registry)
    said = await open_fails(registry, store_dir)
    assert "HTTP 401: the server asks for an OAuth sign-in; give define_mcp_server oauth=" in said
    assert server.clients == {}  # it did not register itself for a sign-in it cannot make


async def test_the_timeout_stands_still_while_a_person_signs_in(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    async def slow_person(authorization_url: str) -> str:
        await asyncio.sleep(1.5)
        async with httpx2.AsyncClient() as http:
            return (await http.get(authorization_url)).headers["location"]

    tl.define_mcp_server("remote", url=server.url, oauth=slow_person, timeout=1,
                         registry=registry)  # fmt: skip
    thread, rt = await runtime(registry, store_dir)
    try:
        assert await ask(thread, 'add {"a": 2, "b": 3}') == '{"result": 5}'
    finally:
        await rt.aclose()


class Notebook:
    """The notebook's side of a sign-in: the link shown, and a person who opens it in a
    browser that follows the redirects (to the loopback listener)."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.outcomes: list[str] = []
        self.pages: list[str] = []
        self._opened: set[asyncio.Task[None]] = set()

    def link(self, server: str, url: str, *, again: bool = False) -> Notebook:
        self.shown.append(url)
        task = asyncio.ensure_future(self._open(url))
        self._opened.add(task)
        return self

    def finish(self, outcome: str) -> None:
        self.outcomes.append(outcome)

    async def _open(self, url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=True) as browser:
            self.pages.append((await browser.get(url)).text)


async def test_in_a_notebook_a_link_is_shown_and_its_redirect_completes_the_sign_in(
    server: OAuthServer, registry: tl.Registry, store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from threadlab.mcp_client import _oauth

    notebook = Notebook()
    monkeypatch.setattr(_oauth, "kernel_display", lambda: True)
    monkeypatch.setattr(_oauth, "SignInLink", notebook.link)
    tl.define_mcp_server("remote", url=server.url, registry=registry)
    thread, rt = await runtime(registry, store_dir)
    try:
        assert await ask(thread, 'add {"a": 2, "b": 3}') == '{"result": 5}'
    finally:
        await rt.aclose()
    assert len(notebook.shown) == 1
    (redirect_uri,) = server.clients["client-1"]
    assert redirect_uri.startswith("http://127.0.0.1:")
    assert redirect_uri.endswith("/callback")
    assert notebook.outcomes == ["Signed in to remote."]
    assert "Signed in to remote. You can close this tab." in notebook.pages[0]


async def test_in_a_notebook_a_401_that_asks_no_bearer_token_is_no_sign_in(
    http_server: HttpServer, registry: tl.Registry, store_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from threadlab.mcp_client import _oauth

    notebook = Notebook()
    monkeypatch.setattr(_oauth, "kernel_display", lambda: True)
    monkeypatch.setattr(_oauth, "SignInLink", notebook.link)
    tl.define_mcp_server("remote", url=http_server.url, registry=registry)
    said = await open_fails(registry, store_dir)
    assert "HTTP 401: the server refused the credentials" in said
    assert notebook.shown == []


async def test_in_a_notebook_a_bearer_token_server_without_oauth_metadata_is_no_sign_in(
    registry: tl.Registry, store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from threadlab.mcp_client import _oauth

    notebook = Notebook()
    monkeypatch.setattr(_oauth, "kernel_display", lambda: True)
    monkeypatch.setattr(_oauth, "SignInLink", notebook.link)
    served = tl.Registry()
    tl.define_tool("echo", description="Echo.", execute=lambda s, a: "x", registry=served)
    service = await tl.mcp.serve(served)
    try:
        tl.define_mcp_server("remote", url=service.url, registry=registry)
        said = await open_fails(registry, store_dir)
    finally:
        await service.close()
    assert "HTTP 401: the server asks for a bearer token; give define_mcp_server headers=" in said
    assert notebook.shown == []


async def test_oauth_without_sign_in_and_without_a_notebook_says_to_give_sign_in(
    server: OAuthServer, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_mcp_server("remote", url=server.url, oauth=tl.OAuth(), registry=registry)
    said = await open_fails(registry, store_dir)
    assert said.startswith(f"MCP server 'remote' ({server.url}): it asks for an OAuth sign-in")
    assert "oauth=tl.OAuth(sign_in=...)" in said


def test_oauth_options_that_cannot_work_are_refused_when_defined(registry: tl.Registry) -> None:
    def define(**given: Any) -> None:
        tl.define_mcp_server("remote", **{"url": "http://127.0.0.1:1/mcp", **given},
                             registry=registry)  # fmt: skip

    cases: dict[str, dict[str, Any]] = {
        "oauth= is for an HTTP server": {"url": None, "command": "x", "oauth": tl.OAuth()},
        "give an Authorization header or oauth=, not both": {
            "headers": {"authorization": "Bearer x"}, "oauth": tl.OAuth()},
        "oauth= takes tl.OAuth": {"oauth": "yes"},
        "client_secret= needs the client_id=": {"oauth": tl.OAuth(client_secret="abcdefgh")},
        "client_metadata_url= must be an https URL with a path": {
            "oauth": tl.OAuth(client_metadata_url="http://example.com/client.json")},
        "must be http://127.0.0.1:PORT": {
            "oauth": tl.OAuth(redirect_uri="https://example.com/callback")},
        "not an absolute URL": {"oauth": tl.OAuth(sign_in=str, redirect_uri="/callback")},
    }  # fmt: skip
    for message, given in cases.items():
        with pytest.raises(tl.DefinitionError, match=message):
            define(**given)
    define(oauth=tl.OAuth(sign_in=str, redirect_uri="https://example.com/callback"))
    secret = tl.OAuth(client_id="app", client_secret="very-secret-value")
    assert "very-secret-value" not in repr(define_server(registry, secret))


def define_server(registry: tl.Registry, oauth: tl.OAuth) -> tl.MCPServerDefinition:
    return tl.define_mcp_server("remote", url="http://127.0.0.1:1/mcp", oauth=oauth,
                                registry=registry)  # fmt: skip
