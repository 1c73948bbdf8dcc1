"""A runtime's MCP sessions: one per defined server, opened when a run first needs the
server's tools, listed into the registry as function tools, reopened after the server
died, relisted after it said its tools changed, and closed with the runtime."""

from __future__ import annotations

import asyncio
import contextvars
import os
from collections.abc import Awaitable, Callable
from typing import Any

from .._data import Elicitor, ToolResult
from .._errors import DefinitionError, MCPServerError
from ..definitions import (
    APP_EVENT,
    MCPServerDefinition,
    Registry,
    ToolDefinition,
    Variable,
    define_tool,
    fill_headers,
    header_variables,
)
from ..threads import ThreadState
from ._apps import AppPages, listed_ui
from ._coalesce import Coalesced
from ._connection import MCPConnection
from ._oauth import ServerSignIn, sign_in_for
from ._results import tool_result
from ._server_requests import CallScope

__all__ = ["MCPPool", "ServerSampler", "current_pool"]

ServerSampler = Callable[[MCPServerDefinition, CallScope, Any], Awaitable[Any]]
"""Answers a server's sampling request made during a call (see `Sampler`)."""

_CURRENT: contextvars.ContextVar[MCPPool | None] = contextvars.ContextVar(
    "threadlab_mcp_pool", default=None
)


def current_pool() -> MCPPool | None:
    """The pool of the runtime whose run is executing here (set by `MCPPool.ready`)."""
    return _CURRENT.get()


class MCPPool:
    """The MCP sessions of one runtime."""

    def __init__(
        self, elicitor: Elicitor | None = None, sampler: ServerSampler | None = None
    ) -> None:
        self._elicitor = elicitor
        self._sampler = sampler
        self._connections: dict[str, MCPConnection] = {}
        self._listed: dict[str, MCPServerDefinition] = {}  # server name -> definition listed
        self._locks: dict[str, asyncio.Lock] = {}
        self._sign_ins: dict[str, ServerSignIn] = {}  # server name -> its tokens, kept here
        self.apps = AppPages()
        """The pages of the servers' tools that have a UI, read when first called."""
        self.app_only: dict[str, dict[str, ToolDefinition]] = {}
        """Per server, its tools only its apps call (`visibility: ["app"]`): not offered to a
        model."""
        self._closed = False

    async def ready(self, registry: Registry) -> None:
        """List the tools of every defined server a prompt of `registry` may need (its
        "mcp:NAME" entries, its tools the server names, or any name nothing else defines)
        that this runtime has not listed yet, or whose tools changed; and make this pool the
        one the run's MCP tools call through."""
        _CURRENT.set(self)
        for server in _needed(registry):
            if self._listed.get(server.name) is not server:
                await self._list(registry, server)

    async def connection(self, server: MCPServerDefinition) -> MCPConnection:
        """The open session with `server`, (re)started if needed."""
        if self._closed:
            raise MCPServerError("the runtime is closed; its MCP sessions are gone")
        lock = self._locks.setdefault(server.name, asyncio.Lock())
        async with lock:
            current = self._connections.get(server.name)
            if current is not None and current.alive and current.definition is server:
                return current
            if current is not None:
                await current.close()
            headers = fill_headers(server, os.environ)

            def changed() -> None:
                self._listed.pop(server.name, None)

            sampler = self._sampler

            async def sample(scope: CallScope, params: Any) -> Any:
                assert sampler is not None
                return await sampler(server, scope, params)

            opened = MCPConnection(
                server, headers, timeout=server.timeout, on_tools_changed=changed,
                elicitor=self._elicitor, sampler=sample if sampler is not None else None,
                sign_in=self._sign_in(server, headers),
            )  # fmt: skip
            self._connections[server.name] = opened
            await opened.open()
            return opened

    def _sign_in(self, server: MCPServerDefinition, headers: dict[str, str]) -> ServerSignIn | None:
        """The server's sign-in, kept across its sessions while its URL and options stay."""
        if server.url is None:
            return None
        options, implicit = sign_in_for(server.oauth, headers)
        kept = self._sign_ins.get(server.name)
        wanted = (server.url, options, implicit)
        if kept is not None and (kept.url, kept.options, kept.implicit) == wanted:
            return kept
        if kept is not None:
            kept.close()
            del self._sign_ins[server.name]
        if options is None:
            return None
        made = ServerSignIn(server.name, server.url, options, implicit=implicit)
        self._sign_ins[server.name] = made
        return made

    async def aclose(self) -> None:
        """Close every session (stdio servers are stopped)."""
        self._closed = True
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
        self._forget_sign_ins()

    def close(self) -> None:
        """Close every session from synchronous code (see `MCPConnection.close_soon`)."""
        self._closed = True
        for connection in self._connections.values():
            connection.close_soon()
        self._connections = {}
        self._forget_sign_ins()

    def _forget_sign_ins(self) -> None:
        for sign_in in self._sign_ins.values():
            sign_in.close()
        self._sign_ins = {}

    async def _list(self, registry: Registry, server: MCPServerDefinition) -> None:
        connection = await self.connection(server)
        listed = await connection.list_tools()
        by_name = {tool.name: tool for tool in listed}
        # A tool that runs only as an MCP task cannot be called as a plain call: not offered.
        tasks_only = {name for name, tool in by_name.items() if _tasks_only(tool)}
        wanted = server.tools
        if wanted is None:
            wanted = tuple(name for name in by_name if name not in tasks_only)
        refused = [name for name in wanted if name in tasks_only]
        if refused:
            raise DefinitionError(
                f"MCP server {server.name!r}'s tool {', '.join(map(repr, refused))} runs only as"
                ' an MCP task (execution.taskSupport "required"), which threadlab does not'
                " call; leave it out of tools="
            )
        unknown = [name for name in wanted if name not in by_name]
        if unknown:
            raise DefinitionError(
                f"MCP server {server.name!r} lists no tool {', '.join(map(repr, unknown))}"
                f" (it lists: {', '.join(sorted(by_name)) or 'none'})"
            )
        listed_definitions = [_tool_definition(server, by_name[name]) for name in wanted]
        definitions = [d for d in listed_definitions if d.ui is None or d.ui.offered_to_model]
        # The tools only the server's apps call are theirs whatever tools= offers the model.
        app_only = [t for n, t in by_name.items() if n not in tasks_only and _for_apps_only(t)]
        self.app_only[server.name] = {
            d.name: d for d in (_tool_definition(server, t) for t in app_only)
        }
        for definition in definitions:
            existing = registry.get(definition.name)
            if existing is not None and not (
                isinstance(existing, ToolDefinition) and existing.mcp_server == server.name
            ):
                raise DefinitionError(
                    f"MCP server {server.name!r}'s tool {definition.name!r} has the name of a"
                    f" defined {existing.kind}; give the server a prefix= (define_mcp_server)"
                    " or rename yours"
                )
        for stale in registry.tools():
            if stale.mcp_server == server.name:
                registry.remove(stale.name)
        for definition in definitions:
            registry.add(definition)
        self._listed[server.name] = server


def _for_apps_only(tool: Any) -> bool:
    ui = listed_ui(tool)
    return ui is not None and not ui.offered_to_model


def _tasks_only(tool: Any) -> bool:
    execution = getattr(tool, "execution", None)
    return getattr(execution, "task_support", None) == "required"


def _needed(registry: Registry) -> list[MCPServerDefinition]:
    servers = registry.mcp_servers()
    if not servers:
        return []
    named: set[str] = set()
    undefined = False
    for prompt in registry.prompts():
        for name in prompt.tool_names():
            server = MCPServerDefinition.named_by(name)
            if server is not None:
                named.add(server)
            elif registry.get(name) is None:
                undefined = True
            else:
                named.add(name)
    return [
        s
        for s in servers
        if undefined
        or s.name in named
        or any(s.local_name(t) in named for t in s.tools or ())
        or any(t.mcp_server == s.name and t.name in named for t in registry.tools())
    ]


class StoredProgress:
    """An MCP call's progress notifications as "progress" events, coalesced as `Coalesced`
    stores them."""

    def __init__(self, state: ThreadState) -> None:
        self._events = Coalesced(state, "progress")

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        data: dict[str, Any] = {"step": done}
        if total is not None:
            data["of"] = total
        if message:
            data["message"] = message
        self._events(data)

    def keep_last(self) -> None:
        self._events.keep_last()


def _tool_definition(server: MCPServerDefinition, tool: Any) -> ToolDefinition:
    local = server.local_name(tool.name)
    remote = tool.name
    ui = listed_ui(tool)

    async def execute(state: ThreadState, args: dict[str, Any]) -> ToolResult:
        pool = current_pool()
        if pool is None:
            raise MCPServerError("an MCP tool runs only inside a runtime's run")
        connection = await pool.connection(server)
        if ui is not None:  # its card draws the app while the call runs
            state.emit(APP_EVENT, await pool.apps.shown(connection, server.name, ui))
        progress = StoredProgress(state)
        call_id = state.execution.tool_call_id if state.execution else None
        try:
            with connection.requests.calling(CallScope(state, call_id)):
                returned = await connection.call(remote, args, progress)
        finally:
            progress.keep_last()
        return await tool_result(state, server.name, call_id or "call", returned)

    schema = dict(tool.input_schema or {"type": "object"})
    schema.setdefault("type", "object")
    scratch = Registry()  # define_tool checks the definition; it is registered by the pool
    try:
        checked = define_tool(
            local,
            description=tool.description or f"{remote} (MCP server {server.name!r})",
            execute=execute,
            args=schema,
            variables=[Variable(name, type="secret") for name in header_variables(server)],
            approval=server.approval,
            registry=scratch,
        )
    except DefinitionError as exc:
        raise DefinitionError(f"MCP server {server.name!r}: {exc}") from None
    return checked.model_copy(update={"mcp_server": server.name, "ui": ui})
