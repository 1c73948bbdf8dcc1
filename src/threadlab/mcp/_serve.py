"""A registry's tools served over MCP (streamable HTTP on the official `mcp` SDK's low-level
server): every function tool, and every prompt or agent exposed as a tool. Each call runs
as a thread of the runtime's store (origin "mcp"), so it can be opened, forked and replayed
like any other; its progress and log go out as MCP notifications, its files as content and as
resources; the registry's own resources are served beside them; prompts that are not tools
are MCP prompts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Iterable
from typing import Any, Literal

from .._errors import DefinitionError, ThreadlabError
from ..definitions import (
    AgentDefinition,
    PromptDefinition,
    Registry,
    ToolDefinition,
    default_registry,
)
from ..execution import ToolSpecCache
from ..runtime import Runtime
from ._apps import ServedApps
from ._client_channel import FormAnswer, RequestChannel
from ._content import served_content
from ._defined_resources import DefinedResources
from ._http_guard import bearer, transport_security
from ._output import output_schema, structured_result
from ._prompts import ServedPrompts
from ._protocol import ListedTool, protocol_server
from ._resources import Reach, ThreadResources
from ._served_calls import NeedsAnswers, ServedCalls
from ._sessions import Sessions

__all__ = ["MCPService", "serve"]

_MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "What to ask."}},
    "required": ["message"],
}
_INVALID_PARAMS = -32602


class MCPService:
    """A running MCP endpoint (`await tl.mcp.serve(...)`); `await close()` stops it."""

    def __init__(self, registry: Registry, runtime: Runtime, owns_runtime: bool,
                 names: tuple[str, ...] | None, token: str | None,
                 resources: Reach = "served") -> None:  # fmt: skip
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
        self.resources = ThreadResources(runtime, resources, self._announce)
        """The files of the threads it ran (or of the store's), as MCP resources."""
        self.defined_resources = DefinedResources(registry)
        """The registry's own resources (`tl.define_resource`)."""
        self.apps = ServedApps(registry, self._serves)
        """The served tools' own UIs (MCP Apps), as resources."""
        self.prompts = ServedPrompts(registry, set(names) if names is not None else None)
        """The registry's prompts that are not tools, as MCP prompts."""
        self._calls = ServedCalls(registry, runtime, self.resources)
        self.log_levels: dict[str, str] = {}
        """The log level each client session set (by MCP session id)."""
        self.sessions = Sessions(self._session_ended)
        """The clients' MCP sessions: what each holds goes when it ends."""
        self._outputs: dict[str, tuple[ToolDefinition, dict[str, Any] | None]] = {}

    def _session_ended(self, session: str) -> None:
        self.resources.session_ended(session)
        self.defined_resources.watchers.session_ended(session)
        self._calls.session_ended(session)
        self.log_levels.pop(session, None)

    async def _announce(self, event: Any) -> None:
        if self._bus is not None:
            await self._bus.publish(event)

    async def resource_updated(self, uri: str) -> None:
        """Tell the clients watching the registry's resource `uri` (`tl.define_resource`)
        that it changed: what its `read` returns changes unseen, so the process says when.
        `ValueError` for a URI no definition of the registry answers for."""
        if self.defined_resources.find(uri) is None:
            raise ValueError(f"{uri} is not a resource the registry defines")
        from mcp.shared.subscriptions import ResourceUpdated

        await self._announce(ResourceUpdated(uri))
        await self.defined_resources.watchers.tell(uri)

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
        return [(name, description, schema) for name, description, schema, _ in self.listed_tools()]

    def listed_tools(self) -> list[ListedTool]:
        """(name, description, input schema, output schema or None) of every tool served now."""
        out: list[ListedTool] = []
        wanted = set(self._names) if self._names is not None else None
        for tool in self.registry.tools():
            if self._serves(tool):
                spec = self._specs.spec(tool, "function")
                out.append(
                    (tool.name, tool.description, dict(spec.parameters), self._output_of(tool))
                )
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
            out.append((exposed.name, description, dict(schema), None))
        return out

    def _serves(self, tool: ToolDefinition) -> bool:
        """Whether this endpoint serves the tool."""
        return tool.mcp_server is None and (self._names is None or tool.name in self._names)

    def _output_of(self, tool: ToolDefinition) -> dict[str, Any] | None:
        """The tool's output schema, worked out once per definition (the listing is compared
        every quarter second for changes)."""
        known = self._outputs.get(tool.name)
        if known is None or known[0] is not tool:
            known = self._outputs[tool.name] = (tool, output_schema(tool))
        return known[1]

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        ctx: Any,
        answers: dict[str, FormAnswer] | None = None,
        state: str | None = None,
    ) -> Any:
        """One `tools/call`: an unknown tool is the JSON-RPC error the spec lists; a call runs
        as a thread, and answers its text, its files as content, and its result as
        structured content where the tool has an output schema."""
        from mcp import types
        from mcp.shared.exceptions import MCPError

        outputs = {listed[0]: listed[3] for listed in self.listed_tools()}
        if name not in outputs:
            raise MCPError(_INVALID_PARAMS, f"Unknown tool: {name}")
        session = self.sessions.of(ctx)
        channel = RequestChannel(ctx, self.log_levels.get(session, "info"))
        try:
            outcome = await self._calls.call(
                name, arguments, channel, answers=answers, state=state, session=session
            )
        except ThreadlabError as exc:
            text = f"{type(exc).__name__}: {exc}"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=True
            )
        if isinstance(outcome, NeedsAnswers):
            return types.InputRequiredResult(
                input_requests={
                    key: types.ElicitRequest(params=types.ElicitRequestFormParams(
                        message=message, requested_schema=schema
                    ))
                    for key, (message, schema) in outcome.forms.items()
                },
                request_state=outcome.state,
            )  # fmt: skip
        content: list[Any] = [types.TextContent(type="text", text=outcome.text)]
        if outcome.thread is not None:
            content = await served_content(outcome.thread, outcome.text, outcome.attachments)
        structured = None
        if outputs[name] is not None and not outcome.failed:
            structured = structured_result(outcome.text)
        return types.CallToolResult(
            content=content, structured_content=structured, is_error=outcome.failed
        )

    async def start(self, host: str, port: int, allowed_hosts: Iterable[str] = ()) -> None:
        import uvicorn
        from mcp.server.subscriptions import InMemorySubscriptionBus

        self._bus = InMemorySubscriptionBus()
        app = protocol_server(self, self._bus).streamable_http_app(
            streamable_http_path="/mcp", host=host,
            transport_security=transport_security(host, allowed_hosts),
        )  # fmt: skip
        guarded = bearer(app, self.token)
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
        from mcp.server.subscriptions import (
            PromptsListChanged,
            ResourcesListChanged,
            ToolsListChanged,
        )

        changes = (ToolsListChanged, PromptsListChanged, ResourcesListChanged)
        listed = self._listing()
        while True:
            await asyncio.sleep(0.25)
            now = self._listing()
            for change, before, after in zip(changes, listed, now, strict=True):
                if before != after:
                    await self._bus.publish(change())
            listed = now

    def _listing(self) -> tuple[str, str, str]:
        """The tools, the prompts and the registry's own resources, as JSON to compare."""
        tools = json.dumps(self.listed_tools(), sort_keys=True, default=str)
        prompts = json.dumps([p.model_dump(mode="json") for p in self.prompts.listing()])
        resources = json.dumps([r.model_dump(mode="json") for r in [
            *self.defined_resources.listing(), *self.defined_resources.templates()
        ]])  # fmt: skip
        return tools, prompts, resources

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
    resources: Reach = "served",
    allowed_hosts: Iterable[str] = (),
) -> MCPService:
    """Serve `registry`'s tools (or the named ones) over MCP at `service.url`.

    Bound to loopback unless `host` says otherwise; `token="auto"` makes a random bearer token
    that clients must send (`service.headers`), a str sets it, None serves without one.
    Requests must name a loopback host, the bound host or one of `allowed_hosts` (a LAN name
    such as "studio.local", with a port or without) in their Host and Origin headers.
    `resources`: "served" offers the files of the threads its calls ran, "store" those of
    every thread of the runtime's store."""
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
    if resources not in ("served", "store"):
        raise ValueError(f"resources must be 'served' or 'store', got {resources!r}")
    owns = runtime is None
    service = MCPService(registry, runtime or Runtime(registry), owns, names, token, resources)
    await service.start(host, port, tuple(allowed_hosts))
    return service


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
