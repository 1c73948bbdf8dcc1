"""The loopback listener a notebook sign-in completes on: the authorization server sends the
person's browser to http://127.0.0.1:PORT/callback?code=...&state=..., and the sign-in that
sent `state` takes the code. Anything else that reaches the port (another state, another
path, a scanner's junk) gets a short error page and changes nothing.

The socket is bound when the listener is made, so the redirect URI (registered with the
authorization server) keeps its port for the runtime's life; it is served, by whichever event
loop runs the sign-in, only while a sign-in waits."""

from __future__ import annotations

import asyncio
import contextlib
import html
import socket
from urllib.parse import parse_qsl, urlsplit

__all__ = ["LoopbackListener"]

_HEAD_LIMIT = 8192  # bytes of a request's line and headers read at most
_READ_SECONDS = 5.0  # a client that sends nothing is dropped after this
_CONNECTIONS = 16  # answered at once; more wait for their turn


class LoopbackListener:
    """A listening socket on 127.0.0.1 (`port` 0: a free one) for redirects to `path`."""

    def __init__(self, server: str, port: int = 0, path: str = "/callback") -> None:
        self._server = server
        self.path = path or "/"
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._socket.bind(("127.0.0.1", port))
            self._socket.listen(_CONNECTIONS)
            self._socket.setblocking(False)
        except OSError:
            self._socket.close()
            raise
        self.port: int = self._socket.getsockname()[1]

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    async def redirect(self, state: str) -> dict[str, str]:
        """Serve until a redirect carrying `state` arrives: its query parameters (a code, or
        the authorization server's error)."""
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[dict[str, str]] = loop.create_future()
        handlers: set[asyncio.Task[None]] = set()
        accepting = asyncio.ensure_future(self._accept(state, arrived, handlers))
        try:
            return await arrived
        finally:
            accepting.cancel()
            for task in [accepting, *handlers]:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    def close(self) -> None:
        self._socket.close()

    async def _accept(
        self, state: str, arrived: asyncio.Future[dict[str, str]], handlers: set[asyncio.Task[None]]
    ) -> None:
        loop = asyncio.get_running_loop()
        slots = asyncio.Semaphore(_CONNECTIONS)
        while True:
            connection, _ = await loop.sock_accept(self._socket)
            await slots.acquire()
            task = asyncio.ensure_future(self._answer(connection, state, arrived))
            handlers.add(task)
            task.add_done_callback(handlers.discard)
            task.add_done_callback(lambda _: slots.release())

    async def _answer(
        self, connection: socket.socket, state: str, arrived: asyncio.Future[dict[str, str]]
    ) -> None:
        reader, writer = await asyncio.open_connection(sock=connection)
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _READ_SECONDS)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                return await _reply(writer, 400, "Bad request", "That was not an HTTP request.")
            if len(head) > _HEAD_LIMIT:
                return await _reply(writer, 431, "Too large", "Its headers are too large.")
            status, title, text = self._judge(head, state, arrived)
            await _reply(writer, status, title, text)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _judge(
        self, head: bytes, state: str, arrived: asyncio.Future[dict[str, str]]
    ) -> tuple[int, str, str]:
        words = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        if len(words) != 3 or not words[2].startswith("HTTP/"):
            return 400, "Bad request", "That was not an HTTP request."
        method, target = words[0], words[1]
        parts = urlsplit(target)
        if parts.path != self.path:
            return 404, "Not found", "Nothing is here but the sign-in's redirect."
        if method != "GET":
            return 405, "Method not allowed", "The sign-in's redirect is a GET."
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        if params.get("state") != state or arrived.done():
            return 400, "Not this sign-in", (
                "This link belongs to no sign-in waiting here (an old or foreign redirect)."
                " Start the sign-in again from the notebook.")  # fmt: skip
        arrived.set_result(params)
        if "error" in params:
            return 200, "Sign-in refused", (
                f"The sign-in to {self._server} was refused. You can close this tab.")  # fmt: skip
        return 200, "Signed in", f"Signed in to {self._server}. You can close this tab."


async def _reply(writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
    body = (
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<p>{html.escape(text)}</p>"
    ).encode()
    writer.write(
        f"HTTP/1.1 {status} {title}\r\ncontent-type: text/html; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n"
        .encode("latin-1") + body
    )  # fmt: skip
    with contextlib.suppress(Exception):
        await writer.drain()
