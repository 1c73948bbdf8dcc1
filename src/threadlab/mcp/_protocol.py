"""The MCP methods a served endpoint answers, on the official SDK's low-level server: tools,
resources — the registry's own (`tl.define_resource`) and the served threads' files (with
templates, subscriptions to files and completion of the files template's parameters) —,
prompts (with completion), and the client's log level."""

from __future__ import annotations

import warnings
from typing import Any, Protocol

from ._apps import ServedApps
from ._client_channel import FormAnswer
from ._defined_resources import DefinedResources
from ._large_files import answers_as_events
from ._prompts import ServedPrompts
from ._resources import ThreadResources
from ._sessions import Sessions

__all__ = ["Endpoint", "protocol_server"]

ListedTool = tuple[str, str, dict[str, Any], dict[str, Any] | None]


class Endpoint(Protocol):
    """What the handlers answer from (`MCPService` is one)."""

    resources: ThreadResources
    defined_resources: DefinedResources
    apps: ServedApps
    prompts: ServedPrompts
    log_levels: dict[str, str]
    sessions: Sessions

    def listed_tools(self) -> list[ListedTool]: ...

    async def call(
        self, name: str, arguments: dict[str, Any], ctx: Any,
        answers: dict[str, FormAnswer] | None = None, state: str | None = None,
    ) -> Any: ...  # fmt: skip


def protocol_server(service: Endpoint, bus: Any) -> Any:
    """The SDK server whose handlers answer for `service`."""
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.subscriptions import ListenHandler

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name=n, description=d, input_schema=s, output_schema=o,
                       _meta=service.apps.meta(n))
            for n, d, s, o in service.listed_tools()
        ])  # fmt: skip

    async def call_tool(ctx: Any, params: Any) -> Any:
        answers = {
            key: (answer.action, dict(answer.content or {}))
            for key, answer in (params.input_responses or {}).items()
            if isinstance(answer, types.ElicitResult)
        }
        return await service.call(
            params.name, dict(params.arguments or {}), ctx, answers, params.request_state
        )

    async def list_resources(ctx: Any, params: Any) -> Any:
        files = await service.resources.listing()
        return types.ListResourcesResult(resources=[
            *service.apps.listing(), *service.defined_resources.listing(), *files
        ])  # fmt: skip

    async def list_templates(ctx: Any, params: Any) -> Any:
        return types.ListResourceTemplatesResult(resource_templates=[
            *service.defined_resources.templates(), *service.resources.templates()
        ])  # fmt: skip

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri, as_event = str(params.uri), answers_as_events(ctx)
        contents = service.apps.read(uri)
        if contents is None:
            contents = await service.defined_resources.read(uri, as_event)
        if contents is None:  # no resource of the registry's: a thread's file, or not found
            contents = await service.resources.read(uri, as_event)
        return types.ReadResourceResult(contents=contents)

    async def subscribe(ctx: Any, params: Any) -> Any:
        uri, session = str(params.uri), service.sessions.of(ctx)
        if service.defined_resources.find(uri) is not None:
            # Told when the process says it changed (`MCPService.resource_updated`).
            service.defined_resources.watchers.subscribe(uri, session, ctx.session)
        else:
            service.resources.subscribe(uri, session, ctx.session)
        return types.EmptyResult()

    async def unsubscribe(ctx: Any, params: Any) -> Any:
        uri, session = str(params.uri), service.sessions.of(ctx)
        service.defined_resources.watchers.unsubscribe(uri, session)
        service.resources.unsubscribe(uri, session)
        return types.EmptyResult()

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=service.prompts.listing())

    async def get_prompt(ctx: Any, params: Any) -> Any:
        return service.prompts.get(
            params.name, dict(params.arguments or {}), answers_as_events(ctx)
        )

    async def complete(ctx: Any, params: Any) -> Any:
        ref, argument = params.ref, params.argument
        if ref.type == "ref/prompt":
            values = service.prompts.complete(ref.name, argument.name, argument.value)
        elif service.defined_resources.defines_template(ref.uri):
            values = []  # a template of the registry's own: its values are read()'s to know
        else:
            known = dict(params.context.arguments or {}) if params.context else {}
            values = await service.resources.complete(argument.name, argument.value, known)
        return types.CompleteResult(
            completion=types.Completion(values=values, total=len(values), has_more=False)
        )

    async def set_level(ctx: Any, params: Any) -> Any:
        service.log_levels[service.sessions.of(ctx)] = params.level
        return types.EmptyResult()

    with warnings.catch_warnings():
        # Logging is deprecated from the 2026-07-28 protocol on; clients of the 2025 protocols
        # (the ones in use) still set a level, so it is served.
        warnings.simplefilter("ignore")
        return Server(
            "threadlab",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read_resource,
            on_subscribe_resource=subscribe,
            on_unsubscribe_resource=unsubscribe,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_completion=complete,
            on_set_logging_level=set_level,
            on_subscriptions_listen=ListenHandler(bus),
        )
