"""The notebook's side of a sign-in. The loopback listener it completes on: only the redirect
carrying the waiting sign-in's state completes it; junk, other paths, other methods and other
states get a short error page, and a client that sends nothing does not hold it up. The link
shown in the cell's output, replaced by the outcome."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from threadlab.mcp_client._oauth_listener import LoopbackListener


@pytest.fixture
async def listener() -> AsyncIterator[LoopbackListener]:
    made = LoopbackListener("remote")
    yield made
    made.close()


async def exchange(port: int, raw: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    writer.write_eof()  # what was not sent by now never comes
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


async def test_junk_and_other_sign_ins_are_answered_and_only_the_right_redirect_completes_it(
    listener: LoopbackListener,
) -> None:
    waiting = asyncio.ensure_future(listener.redirect("s1"))
    port = listener.port
    silent = await asyncio.open_connection("127.0.0.1", port)  # sends nothing at all
    answers = [
        await exchange(port, b"\x16\x03\x01 not http at all\r\n\r\n"),
        await exchange(port, b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n"),
        await exchange(port, b"POST /callback?code=c&state=s1 HTTP/1.1\r\nHost: x\r\n\r\n"),
        await exchange(port, b"GET /callback?code=c&state=s0 HTTP/1.1\r\nHost: x\r\n\r\n"),
        await exchange(port, b"GET /callback?code=c HTTP/1.1\r\n" + b"X: y\r\n" * 2000 + b"\r\n"),
        await exchange(port, b"GET /callback HTTP/1.1\r\nHost: x"),  # cut short
    ]
    statuses = [a.split(b" ", 2)[1] for a in answers]
    assert statuses == [b"400", b"404", b"405", b"400", b"431", b"400"]
    assert b"belongs to no sign-in waiting here" in answers[3]
    assert not waiting.done()
    done = await exchange(port, b"GET /callback?code=c1&state=s1&iss=x HTTP/1.1\r\nHost: x\r\n\r\n")
    assert done.startswith(b"HTTP/1.1 200")
    assert b"Signed in to remote" in done
    assert await asyncio.wait_for(waiting, 10) == {"code": "c1", "state": "s1", "iss": "x"}
    silent[1].close()


async def test_a_second_redirect_for_a_completed_sign_in_is_refused(
    listener: LoopbackListener,
) -> None:
    waiting = asyncio.ensure_future(listener.redirect("s1"))
    await exchange(listener.port, b"GET /callback?code=a&state=s1 HTTP/1.1\r\n\r\n")
    assert (await waiting)["code"] == "a"
    again = asyncio.ensure_future(listener.redirect("s2"))
    replay = await exchange(listener.port, b"GET /callback?code=a&state=s1 HTTP/1.1\r\n\r\n")
    assert replay.startswith(b"HTTP/1.1 400")
    again.cancel()


async def test_the_authorization_servers_refusal_completes_the_sign_in_with_its_error(
    listener: LoopbackListener,
) -> None:
    waiting = asyncio.ensure_future(listener.redirect("s1"))
    page = await exchange(
        listener.port, b"GET /callback?error=access_denied&state=s1 HTTP/1.1\r\n\r\n"
    )
    assert b"was refused" in page
    assert await waiting == {"error": "access_denied", "state": "s1"}


def test_the_notebook_link_is_shown_escaped_then_replaced_by_the_outcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    from threadlab.mcp_client._oauth_link import SignInLink

    shell = InteractiveShell.instance()
    shown: list[tuple[dict[str, str], bool]] = []

    def publish(data: dict[str, str], **options: object) -> None:
        shown.append((data, bool(options.get("update"))))

    monkeypatch.setattr(shell.display_pub, "publish", publish)
    try:
        link = SignInLink("tracker", 'https://auth.example/authorize?a=1&b="x"', again=True)
        link.finish("Signed in to tracker.")
    finally:
        InteractiveShell.clear_instance()
    (first, updated), (last, replaced) = shown
    assert not updated
    assert replaced
    assert 'href="https://auth.example/authorize?a=1&amp;b=&quot;x&quot;"' in first["text/html"]
    assert ">Sign in to tracker</a>" in first["text/html"]
    assert "(its earlier sign-in has expired)" in first["text/plain"]
    assert last == {"text/html": "<p>Signed in to tracker.</p>",
                    "text/plain": "Signed in to tracker."}  # fmt: skip
