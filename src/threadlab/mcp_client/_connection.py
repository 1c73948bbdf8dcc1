"""One session with one MCP server, through the official `mcp` SDK: started on demand, held
open by a task of its own (the SDK's transports must be entered and left by one task), and
closed with the runtime that opened it."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from .._data import Elicitor
from .._errors import MCPServerError
from .._urls import scrub_http_logs
from ..definitions import MCPServerDefinition
from ._oauth import ServerSignIn
from ._server_requests import Sampler, ServerRequests
from ._sign_in_clock import SignInClock

__all__ = ["MCPConnection", "ProgressCallback"]

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]
"""(progress, total, message), as MCP progress notifications carry them."""

_CONNECTION_CLOSED = -32000  # the SDK's error code for a peer that went away
_STDERR_TAIL = 600  # characters of the server's stderr quoted when it fails


class MCPConnection:
    """A live session with `definition`'s server (`open()` first, `close()` at the end)."""

    def __init__(
        self,
        definition: MCPServerDefinition,
        headers: dict[str, str],
        *,
        timeout: float,
        on_tools_changed: Callable[[], None],
        elicitor: Elicitor | None = None,
        sampler: Sampler | None = None,
        sign_in: ServerSignIn | None = None,
    ) -> None:
        self.definition = definition
        self.requests = ServerRequests(definition.name, elicitor, sampler)
        """Where the server's questions and log messages in the middle of a call go."""
        self._headers = headers
        self._sign_in = sign_in
        # A person signing in stops the clock of the handshake and of listings.
        self._clock = sign_in.clock if sign_in is not None else SignInClock()
        self._timeout = timeout
        self._on_tools_changed = on_tools_changed
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._failure: BaseException | None = None
        # The server's stderr, quoted when it fails; closed by close() (not a `with`: it
        # lives as long as the session).
        self._stderr = tempfile.TemporaryFile(  # noqa: SIM115
            mode="w+", encoding="utf-8", errors="replace"
        )

    @property
    def alive(self) -> bool:
        """Whether the session is open (a server that exited is not)."""
        return self._client is not None and self._task is not None and not self._task.done()

    async def open(self) -> None:
        """Start (or reach) the server and finish the MCP handshake (MCPServerError if not)."""
        scrub_http_logs()  # the HTTP library logs each request's URL, credentials and all
        self._task = asyncio.create_task(self._hold(), name=f"threadlab-mcp-{self.definition.name}")
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            done = await self._clock.wait({ready, self._task}, self._timeout)
        finally:
            ready.cancel()
        if self._ready.is_set() and self.alive:
            return
        if not done:
            problem = MCPServerError(
                f"MCP server {self.definition.name!r} ({self.definition.where}) did not finish"
                f" the MCP handshake within {self._timeout:g} s{self._said()}"
            )
        elif self._signed_in_failure() is not None:
            problem = MCPServerError(str(self._signed_in_failure()))
        else:
            why = await self._refusal() or self.failure()
            problem = MCPServerError(
                f"MCP server {self.definition.name!r} ({self.definition.where}) could not be"
                f" {'reached' if self.definition.url else 'started'}: {why}{self._said()}"
            )
        await self.close()
        raise problem

    async def _refusal(self) -> str | None:
        """For an HTTP server that answered with an HTTP error: its status and first words
        (the SDK says only that there was an error response)."""
        if self.definition.url is None:
            return None
        import httpx2

        try:
            async with httpx2.AsyncClient(headers=self._headers, timeout=self._timeout) as http:
                answer = await http.post(
                    self.definition.url,
                    json={"jsonrpc": "2.0", "id": 0, "method": "ping"},
                    headers={"Accept": "application/json, text/event-stream"},
                )
        except Exception:
            return None
        challenge = answer.headers.get("www-authenticate", "").lower()
        given = any(k.lower() == "authorization" for k in self._headers)
        if answer.status_code == 401 and "resource_metadata=" in challenge and not given:
            return (
                "HTTP 401: the server asks for an OAuth sign-in; give define_mcp_server"
                " oauth=tl.OAuth(sign_in=...) (a callable given the authorization URL that"
                " returns the redirect URL), or use the server from a notebook, which shows a"
                " link to sign in"
            )
        if answer.status_code == 401 and challenge.startswith("bearer") and not given:
            return (
                "HTTP 401: the server asks for a bearer token; give define_mcp_server"
                ' headers={"Authorization": "Bearer {{env:NAME}}"}, or oauth= if it signs in'
                " with OAuth"
            )
        if answer.status_code in (401, 403):
            return (
                f"HTTP {answer.status_code}: the server refused the credentials"
                " (check the Authorization header or token)"
            )
        if answer.status_code >= 400:
            return f"HTTP {answer.status_code}: {answer.text[:200]}"
        return None

    def failure(self) -> str:
        """Why the session ended, in a line."""
        exc = _innermost(self._failure) if self._failure is not None else None
        if exc is None:
            return "the session ended"
        said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return self._sign_in.hide(said) if self._sign_in is not None else said

    def _signed_in_failure(self) -> str | None:
        """Why signing in failed, when that ended the session: the sign-in's own words (they
        name the server), or the SDK's OAuth error's, tokens hidden."""
        exc = _innermost(self._failure) if self._failure is not None else None
        if self._sign_in is None or exc is None:
            return None
        if isinstance(exc, MCPServerError):
            return str(exc)
        from mcp.client.auth import OAuthFlowError

        if isinstance(exc, OAuthFlowError):
            return (
                f"MCP server {self.definition.name!r} ({self.definition.where}): the OAuth"
                f" sign-in failed: {self._sign_in.hide(str(exc))}"
            )
        return None

    async def list_tools(self) -> list[Any]:
        """Every tool the server lists (all pages)."""
        client = self._live()
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(100):  # a server whose pages never end cannot hold a run
            page = await self._within_timeout(client.list_tools(cursor=cursor))
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def read_resource(self, uri: str) -> list[Any]:
        """The contents the server answers for the resource `uri`."""
        client = self._live()
        try:
            read = await self._within_timeout(client.read_resource(uri))
        except MCPServerError:
            raise
        except Exception as exc:
            said = f"{type(exc).__name__}: {exc}"
            hidden = self._sign_in.hide(said) if self._sign_in is not None else said
            raise MCPServerError(
                f"MCP server {self.definition.name!r} could not read {uri}: {hidden}"
            ) from None
        return list(read.contents)

    async def call(self, name: str, arguments: dict[str, Any], progress: ProgressCallback) -> Any:
        """The server's `CallToolResult` for one call. A cancelled caller cancels the call on
        the server (the SDK sends `notifications/cancelled`); a server that dies meanwhile is
        an MCPServerError."""
        client = self._live()
        assert self._task is not None
        call = asyncio.ensure_future(client.call_tool(name, arguments, progress_callback=progress))
        try:
            await asyncio.wait({call, self._task}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            call.cancel()
            with contextlib.suppress(BaseException):
                await call
            raise
        if call.done():
            try:
                return call.result()
            except Exception as exc:
                if getattr(exc, "code", None) == _CONNECTION_CLOSED:
                    self._stop.set()  # the session outlives its pipe: end it, start anew
                    await asyncio.wait({self._task}, timeout=self._timeout)
                    self._failure = self._failure or exc
                    raise self._ended_error() from None
                said = f"{type(exc).__name__}: {exc}"
                raise MCPServerError(
                    f"MCP server {self.definition.name!r} failed the call:"
                    f" {self._sign_in.hide(said) if self._sign_in is not None else said}"
                ) from None
        call.cancel()
        raise self._ended_error()

    async def _within_timeout(self, work: Awaitable[Any]) -> Any:
        """`work`'s result, within the timeout (which stands still while a person signs in);
        a session that ends meanwhile is an MCPServerError saying why."""
        task = asyncio.ensure_future(work)
        assert self._task is not None
        try:
            done = await self._clock.wait({task, self._task}, self._timeout)
            if not done:
                raise TimeoutError
            if task not in done:
                raise self._ended_error()
            return task.result()
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    def _ended_error(self) -> MCPServerError:
        signing_in = self._signed_in_failure()
        if signing_in is not None:
            return MCPServerError(signing_in)
        return MCPServerError(
            f"MCP server {self.definition.name!r} ended during the call ({self.failure()});"
            f" it is started again on next use{self._said()}"
        )

    async def close(self) -> None:
        """End the session; a stdio server is stopped (stdin closed, then terminated)."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done() and not self._ready.is_set():
            task.cancel()  # still in the handshake: nothing to wind down gracefully
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 15)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._stderr.close()

    def close_soon(self) -> None:
        """End the session from synchronous code: its task stops when the loop next runs (a
        stopped loop cancels it, which also stops the server)."""
        task = self._task
        if task is None or task.done():
            self._stderr.close()
            return
        loop = task.get_loop()
        if loop.is_closed():
            return
        task.add_done_callback(lambda _: self._stderr.close())
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._stop.set)

    def _live(self) -> Any:
        if not self.alive:
            raise MCPServerError(f"MCP server {self.definition.name!r} is not connected")
        return self._client

    def _said(self) -> str:
        if self._stderr.closed:
            return ""
        self._stderr.flush()
        self._stderr.seek(0)
        text = self._stderr.read()[-_STDERR_TAIL:].strip()
        return f"\nthe server's stderr ends with:\n{text}" if text else ""

    async def _hold(self) -> None:
        try:
            async with self._session() as client:
                self._client = client
                listener = asyncio.create_task(self._listen(client))
                self._ready.set()
                try:
                    await self._stop.wait()
                finally:
                    listener.cancel()
                    with contextlib.suppress(BaseException):
                        await listener
        except BaseException as exc:
            self._failure = exc
        finally:
            self._client = None

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[Any]:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
        from mcp.client.streamable_http import streamable_http_client

        definition = self.definition
        async with contextlib.AsyncExitStack() as stack:
            if definition.url is not None:
                import httpx2

                auth = self._sign_in.auth() if self._sign_in is not None else None
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(headers=self._headers, auth=auth,
                                       timeout=httpx2.Timeout(self._timeout, read=None))
                )  # fmt: skip
                transport: Any = streamable_http_client(definition.url, http_client=http)
            else:
                assert definition.command is not None
                parameters = StdioServerParameters(
                    command=definition.command, args=list(definition.args), env=definition.env
                )
                transport = stdio_client(parameters, errlog=self._stderr)
            client = Client(
                transport,
                message_handler=self._notified,
                elicitation_callback=self.requests.elicit,
                sampling_callback=self.requests.sample,
                logging_callback=self.requests.logged,
                log_level="info",  # the 2026 protocol sends log messages only to who asks
            )
            yield await stack.enter_async_context(client)

    async def _listen(self, client: Any) -> None:
        # Servers of protocol 2026-07-28 and later tell of changed tools only to a
        # `subscriptions/listen` stream; earlier ones send the notification unasked.
        with contextlib.suppress(Exception):
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self._on_tools_changed()

    async def _notified(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self._on_tools_changed()


def _innermost(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio's task groups wrap what went wrong)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
