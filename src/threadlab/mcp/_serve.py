"""A registry's tools served over MCP (streamable HTTP on the official `mcp` SDK's low-level
server): every function tool, and every prompt or agent exposed as a tool. Each call runs
as a thread of the runtime's store (origin "mcp"), so it can be opened, forked and replayed
like any other; its progress goes out as MCP progress notifications."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
from collections.abc import Iterable
from typing import Any, Literal

from .._data import CustomEvent, ToolCallStartedEvent
from .._errors import DefinitionError, ThreadlabError
from ..definitions import AgentDefinition, PromptDefinition, Registry, default_registry
from ..execution import ToolSpecCache
from ..runtime import Runtime
from ._relay import relay_prompt

__all__ = ["MCPService", "serve"]

ORIGIN = "mcp"
_MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "What to ask."}},
    "required": ["message"],
}


class MCPService:
    """A running MCP endpoint (`await tl.mcp.serve(...)`); `await close()` stops it."""

    def __init__(self, registry: Registry, runtime: Runtime, owns_runtime: bool,
                 names: tuple[str, ...] | None, token: str | None) -> None:  # fmt: skip
        self.registry = registry
        self.runtime = runtime
        self._owns_runtime = owns_runtime
        self._names = names
        self.token = token
        """The bearer token clients send (None: none needed)."""
        self.url = ""
        """The endpoint, e.g. http://127.0.0.1:8123/mcp."""
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None
        self._bus: Any = None
        self._specs = ToolSpecCache(registry)

    @property
    def headers(self) -> dict[str, str]:
        """The headers a client sends."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def client_config(self, name: str = "threadlab") -> dict[str, Any]:
        """A client configuration entry (Claude Code's, Cursor's and VS Code's "mcpServers" /
        "servers" maps take this shape)."""
        entry: dict[str, Any] = {"type": "http", "url": self.url}
        if self.headers:
            entry["headers"] = self.headers
        return {"mcpServers": {name: entry}}

    def offered(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(name, description, input schema) of every tool served now."""
        out = []
        wanted = set(self._names) if self._names is not None else None
        for tool in self.registry.tools():
            if tool.mcp_server is None and (wanted is None or tool.name in wanted):
                spec = self._specs.spec(tool, "function")
                out.append((tool.name, tool.description, dict(spec.parameters)))
        exposable: list[PromptDefinition | AgentDefinition] = [
            *self.registry.prompts(),
            *self.registry.agents(),
        ]
        for exposed in exposable:
            if not exposed.expose_as_tool or (wanted is not None and exposed.name not in wanted):
                continue
            schema = _MESSAGE_SCHEMA
            if isinstance(exposed, PromptDefinition) and exposed.required_schema is not None:
                schema = exposed.required_schema.json_schema
            description = exposed.tool_description or f"Ask {exposed.name} and get its answer."
            out.append((exposed.name, description, dict(schema)))
        return out

    async def call(self, name: str, arguments: dict[str, Any], report: Any) -> tuple[bool, str]:
        """Run one external call as a thread: (is_error, text)."""
        served = {n for n, _, _ in self.offered()}
        if name not in served:
            return True, f"unknown tool {name!r}; served: {', '.join(sorted(served)) or 'none'}"
        definition = self.registry.get(name)
        if isinstance(definition, PromptDefinition | AgentDefinition):
            target = name
            message = arguments.get("message")
            if not isinstance(message, str) or set(arguments) != {"message"}:
                message = json.dumps(arguments)
        else:
            target = relay_prompt(self.registry, name)
            message = json.dumps(arguments)
        thread = await self.runtime.create_thread(target, origin=ORIGIN)
        status, text = "failed", ""
        async for event in thread.stream(message):
            if isinstance(event, CustomEvent) and event.event_type == "progress":
                await _progress(report, event.data)
            elif isinstance(event, ToolCallStartedEvent) and event.progress:
                await _progress(report, {"message": event.progress})
            elif event.type == "run_finished":
                status = event.status
        if status == "waiting":
            pending = ", ".join(r.tool_call_id for r in thread.pending)
            return True, (
                f"the call waits for a decision ({pending}) in thread {thread.id}: approve or"
                " reject it where threadlab runs, then call again"
            )
        messages = thread.messages
        last_tool = next((m for m in reversed(messages) if m.role == "tool"), None)
        answer = messages[-1].content if messages and messages[-1].role == "assistant" else ""
        if target != name:  # a function tool: its own result is the answer
            failed = last_tool is None or last_tool.tool_status == "error"
            return failed, (last_tool.content or "") if last_tool else f"the run {status}"
        text = answer or ""
        return status != "completed", text or f"the run {status}"

    async def start(self, host: str, port: int) -> None:
        import uvicorn
        from mcp import types
        from mcp.server.lowlevel import Server
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self._bus = InMemorySubscriptionBus()

        async def list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=[
                types.Tool(name=n, description=d, input_schema=s) for n, d, s in self.offered()
            ])  # fmt: skip

        async def call_tool(ctx: Any, params: Any) -> Any:
            async def report(progress: float, total: float | None, message: str | None) -> None:
                with contextlib.suppress(Exception):
                    await ctx.session.report_progress(progress, total, message)

            try:
                failed, text = await self.call(params.name, dict(params.arguments or {}), report)
            except ThreadlabError as exc:
                failed, text = True, f"{type(exc).__name__}: {exc}"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=failed
            )

        server = Server(
            "threadlab",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
        guarded = _bearer(app, self.token)
        # Streams a client left open would hold a graceful shutdown forever: cut after 1 s.
        config = uvicorn.Config(guarded, host=host, port=port, log_level="warning",
                                lifespan="on", timeout_graceful_shutdown=1)  # fmt: skip
        _quiet_cut_streams()
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve(), name="threadlab-mcp-serve")
        while not self._server.started:
            if self._task.done():
                with contextlib.suppress(BaseException):  # uvicorn exits when it cannot bind
                    await self._task
                raise ThreadlabError(f"the MCP endpoint could not listen on {host}:{port}")
            await asyncio.sleep(0.02)
        bound = self._server.servers[0].sockets[0].getsockname()
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{bound[1]}/mcp"
        self._watch = asyncio.create_task(self._watch_registry())

    async def _watch_registry(self) -> None:
        from mcp.server.subscriptions import ToolsListChanged

        seen = self._listing()
        while True:
            await asyncio.sleep(0.25)
            now = self._listing()
            if now != seen:
                seen = now
                await self._bus.publish(ToolsListChanged())

    def _listing(self) -> str:
        return json.dumps(self.offered(), sort_keys=True, default=str)

    async def close(self) -> None:
        """Stop serving (calls under way are cancelled); close the runtime if serve made it."""
        if self._watch is not None:
            self._watch.cancel()
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 10)
        if self._owns_runtime:
            await self.runtime.aclose()


async def serve(
    registry: Registry | None = None,
    *,
    tools: Iterable[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    runtime: Runtime | None = None,
    token: str | Literal["auto"] | None = "auto",
) -> MCPService:
    """Serve `registry`'s tools (or the named ones) over MCP at `service.url`.

    Bound to loopback unless `host` says otherwise; `token="auto"` makes a random bearer token
    that clients must send (`service.headers`), a str sets it, None serves without one."""
    registry = registry if registry is not None else (
        runtime.registry if runtime is not None else default_registry()
    )  # fmt: skip
    names = None if tools is None else tuple(tools)
    if names is not None:
        for name in names:
            if registry.get(name) is None:
                raise DefinitionError(f"cannot serve {name!r}: it is not defined")
    if token == "auto":
        token = secrets.token_urlsafe(24)
    if token is not None and (not isinstance(token, str) or len(token) < 8):
        raise ValueError("token must be 'auto', None, or a string of at least 8 characters")
    owns = runtime is None
    service = MCPService(registry, runtime or Runtime(registry), owns, names, token)
    await service.start(host, port)
    return service


async def _progress(report: Any, data: Any) -> None:
    if isinstance(data, dict):
        done = data.get("step", data.get("done", data.get("current")))
        total = data.get("of", data.get("total"))
        message = data.get("message")
    elif isinstance(data, int | float):
        done, total, message = data, 1, None
    else:
        return
    if not isinstance(done, int | float):
        done = 0
    await report(float(done), float(total) if isinstance(total, int | float) else None,
                 str(message) if message is not None else None)  # fmt: skip


def _quiet_cut_streams() -> None:
    """Keep uvicorn from logging as errors the streams it cuts at close: a client's
    `subscriptions/listen` stream stays open until the server ends it."""
    log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _CutStreams) for f in log.filters):
        log.addFilter(_CutStreams())


class _CutStreams(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        cut = "timeout graceful shutdown exceeded"
        if cut in record.getMessage():
            return False
        exc = record.exc_info[1] if record.exc_info else None
        return not (isinstance(exc, asyncio.CancelledError) and cut in str(exc))


def _bearer(app: Any, token: str | None) -> Any:
    """`app` behind "Authorization: Bearer <token>" (compared in constant time)."""
    if token is None:
        return app
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer"),
                ]})  # fmt: skip
                await send({"type": "http.response.body", "body": b"a bearer token is needed"})
                return
        await app(scope, receive, send)

    return guarded
