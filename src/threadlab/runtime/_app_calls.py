"""A tool's app calls a tool (an MCP App drawn in a call's card asks for `tools/call`): the
tool must be one of the same MCP server's, offered to apps; it runs through the runtime's
session with that server, and the call is recorded with the call whose card shows the app
(an `app_tool_call` event: what was called, with what, how it went), redacted as everything
stored is. A tool whose calls need a decision is refused: an app's call cannot ask for one
here, so it fails closed rather than run unapproved."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from .._data import APP_EVENT, CustomEvent, Message
from .._errors import MCPServerError, ThreadlabError
from ..definitions import ToolDefinition
from ..mcp_client import MAX_RESULT_CHARS
from ._runtime import Runtime
from ._thread import Thread

__all__ = ["APP_CALL_EVENT", "call_for_app"]

APP_CALL_EVENT = "app_tool_call"
"""The custom event an app's tool call is recorded as, on the call that shows the app."""

_SHOWN_CHARS = 2000  # of a result, in the recorded event
MAX_APP_ARGUMENTS_CHARS = 64 * 1024
"""The largest arguments (as JSON) an app's tool call may send."""


async def call_for_app(
    runtime: Runtime, thread_id: str, call_id: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """Run `name` for the app of call `call_id` of thread `thread_id`: the server's
    `CallToolResult` as JSON. `ThreadlabError` saying why when it is not run."""
    text = json.dumps(arguments, ensure_ascii=False)
    if len(text) > MAX_APP_ARGUMENTS_CHARS:
        raise ThreadlabError(
            f"the app's arguments for {name!r} are {len(text):,} characters of JSON, over the"
            f" {MAX_APP_ARGUMENTS_CHARS:,} an app's call may send"
        )
    thread = runtime.thread(thread_id)
    if thread.status == "waiting":  # a decision or a step-mode pause: nothing runs meanwhile
        raise ThreadlabError(
            f"thread {thread_id} waits (for a decision, or paused step by step): its app's"
            " calls run once it goes on"
        )
    named = _tools_of_call(thread.all_messages(), call_id)
    if not named:
        raise ThreadlabError(f"thread {thread_id} has no call {call_id!r}")
    if len(named) > 1:  # which call's app is asking cannot be told apart
        raise ThreadlabError(f"thread {thread_id} has {len(named)} calls {call_id!r}: not run")
    (shown,) = named
    definition = runtime.registry.get(shown)
    if not isinstance(definition, ToolDefinition) or definition.ui is None:
        raise ThreadlabError(f"tool {shown!r} has no app")
    if _app_page_of(thread, call_id) != definition.ui.uri:
        raise ThreadlabError(f"call {call_id!r} does not show the app of {shown!r}")
    server = runtime.registry.mcp_server(definition.mcp_server or "")
    if server is None:
        raise ThreadlabError(
            f"the app of {shown!r} (a tool defined in this process) cannot call tools: only"
            " the apps of an MCP server's tools call that server's tools"
        )
    pool = runtime._host.mcp_pool
    local = server.local_name(name)
    target = runtime.registry.get(local)
    if not (isinstance(target, ToolDefinition) and target.mcp_server == server.name):
        target = pool.app_only.get(server.name, {}).get(local)
    if target is None or (target.ui is not None and "app" not in target.ui.visibility):
        raise ThreadlabError(f"MCP server {server.name!r} offers its apps no tool {name!r}")
    if target.approval is not None:
        raise ThreadlabError(
            f"tool {name!r} needs a decision before it runs, which a call from its app cannot"
            " ask for: the model can call it in the conversation"
        )
    problems = target.args.validate(arguments)[1]
    if problems:
        raise ThreadlabError(f"invalid arguments for tool {name!r}: {'; '.join(problems)}")
    connection = await pool.connection(server)

    async def unheard(done: float, total: float | None, message: str | None) -> None:
        return None  # an app's call shows no progress in the card

    try:
        async with asyncio.timeout(target.timeout):
            returned = await connection.call(name, arguments, unheard)
    except TimeoutError:
        said = f"tool {name!r} timed out after {target.timeout:g} s"
        _record(thread, call_id, name, arguments, "error", said)
        raise ThreadlabError(said) from None
    except MCPServerError as exc:
        _record(thread, call_id, name, arguments, "error", str(exc))
        raise ThreadlabError(str(exc)) from None
    result: dict[str, Any] = returned.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps(result, ensure_ascii=False)
    if len(text) > MAX_RESULT_CHARS:
        _record(thread, call_id, name, arguments, "error", "the result is too large")
        raise ThreadlabError(
            f"tool {name!r} answered {len(text):,} characters, over the {MAX_RESULT_CHARS:,}"
            " a result may have"
        )
    texts = [p.get("text", "") for p in result.get("content", []) if p.get("type") == "text"]
    status = "error" if result.get("isError") else "success"
    _record(thread, call_id, name, arguments, status, "\n".join(texts) or text)
    return result


def _tools_of_call(messages: list[Message], call_id: str) -> list[str]:
    """The tools the calls with id `call_id` called (a model may repeat an id)."""
    return [c.name for m in messages for c in m.tool_calls if c.id == call_id]


def _app_page_of(thread: Thread, call_id: str) -> str | None:
    """The address of the app the call `call_id` shows (the page kept with it)."""
    for event in reversed(thread.events):
        if (
            isinstance(event, CustomEvent)
            and event.event_type == APP_EVENT
            and event.tool_call_id == call_id
            and isinstance(event.data, dict)
        ):
            uri = event.data.get("uri")
            return uri if isinstance(uri, str) else None
    return None


def _record(
    thread: Thread, call_id: str, name: str, arguments: dict[str, Any], status: str, result: str
) -> None:
    context = thread._context  # what an event of the thread is written through
    shown = result if len(result) <= _SHOWN_CHARS else result[:_SHOWN_CHARS] + "…"
    data = {
        "name": name,
        "arguments": json.loads(
            thread.redact(json.dumps(arguments, ensure_ascii=False))
        ),  # bounded above
        "status": status,
        "result": thread.redact(shown),
    }
    with context.transaction():
        context.events.emit(
            CustomEvent(
                event_type=APP_CALL_EVENT, data=data, tool_call_id=call_id, **context.base()
            )
        )
        context.events.flush()
