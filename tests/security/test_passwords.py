"""Passwords in URLs: a base URL's userinfo never reaches a run's error, the store, a magic's
output or a log line; a PostgreSQL URL too malformed to parse never echoes its password."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

import threadlab as tl
from threadlab._urls import scrub

from ..kernel_ext.test_magics import run, shell

__all__ = ["shell"]

PASSWORD = "hunter2-pass-9931"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_base_urls_password_reaches_no_error_store_or_log(
    registry: tl.Registry, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://admin:{PASSWORD}@127.0.0.1:{closed_port()}/v1"
    tl.define_model(
        "local",
        provider="openai",
        model="m",
        base_url=url,
        options={"max_retries": 0},
        registry=registry,
    )
    tl.define_prompt("p", prompt="x", model="local", registry=registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p", env={"OPENAI_API_KEY": "sk-not-a-real-key"})
    with caplog.at_level(logging.DEBUG):
        run_ = await thread.send("hello")
    rt.close()
    assert run_.status == "failed"
    assert run_.error is not None
    assert "cannot reach http://127.0.0.1" in run_.error
    assert PASSWORD not in run_.error
    assert caplog.records  # the SDK and its HTTP library did log the request
    assert PASSWORD not in caplog.text
    stored = b"".join(p.read_bytes() for p in store_dir.rglob("*") if p.is_file())
    assert PASSWORD.encode() not in stored


def test_the_models_listing_shows_no_password(shell: InteractiveShell) -> None:
    run(
        shell,
        "import threadlab as tl\n"
        "tl.define_model('local', provider='openai', model='m',"
        f" base_url='http://admin:{PASSWORD}@127.0.0.1:9/v1')",
    )
    listing = repr(run(shell, "%threadlab models"))
    assert "local: openai m at http://127.0.0.1:9/v1" in listing
    assert PASSWORD not in listing


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://admin:{PASSWORD} with space@127.0.0.1:{{port}}/db",
        f"postgresql://admin:{PASSWORD}@with-at@127.0.0.1:{{port}}/db",
        f"postgresql://admin:{PASSWORD}%zz@127.0.0.1:{{port}}/db",
        f"postgresql://admin:{PASSWORD}@[127.0.0.1:{{port}}/db",
        f"postgresql://admin:{PASSWORD}@127.0.0.1:{{port}}/db",
    ],
    ids=["space", "at-sign", "bad-escape", "unclosed-bracket", "well-formed-unreachable"],
)
def test_a_postgres_url_never_echoes_its_password(url: str) -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(tl.ThreadlabError) as raised:
        tl.Runtime(store=url.format(port=closed_port()))
    message = str(raised.value)
    assert "cannot open the PostgreSQL store" in message
    assert PASSWORD not in message
    assert PASSWORD not in repr(raised.value)


def test_scrub_takes_userinfo_out_of_every_url_in_a_text() -> None:
    text = "GET https://u:p%40ss@api.example/v1 then http://x@y.example/ and mailto:a@b"
    assert scrub(text) == "GET https://api.example/v1 then http://y.example/ and mailto:a@b"


def test_a_postgres_password_with_an_unencoded_at_sign_is_refused_without_any_of_it() -> None:
    """psycopg reads such a URL's host from after the password's first "@" and quotes it
    back in its error: no piece of the password may reach the message, repr or traceback."""
    import traceback

    pytest.importorskip("psycopg")
    password = "Hunter2-first@second-Piece@third-Piece"
    url = f"postgresql://admin:{password}@127.0.0.1:{closed_port()}/db"
    with pytest.raises(tl.ThreadlabError, match='unencoded "@"; write it as %40') as raised:
        tl.Runtime(store=url)
    said = (
        str(raised.value) + repr(raised.value) + "".join(traceback.format_exception(raised.value))
    )
    for piece in (password, *password.split("@")):
        assert piece not in said
