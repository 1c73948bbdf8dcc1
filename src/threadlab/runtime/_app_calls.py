"""A tool's app calls a tool (an MCP App drawn in a call's card asks for `tools/call`): the
tool must be one of the same MCP server's, offered to apps; it runs through the runtime's
session with that server, and the call is recorded with the call whose card shows the app
(an `app_tool_call` event: what was called, with what, how it went), redacted as everything
stored is. A tool whose calls need a decision is refused: an app's call cannot ask for one
here, so it fails closed rather than run unapproved."""

from __future__ import annotations

import json
from typing import Any

from .._data import CustomEvent, Message
from .._errors import MCPServerError, ThreadlabError
from ..definitions import ToolDefinition
from ..mcp_client import MAX_RESULT_CHARS
from ._runtime import Runtime
from ._thread import Thread

__all__ = ["APP_CALL_EVENT", "call_for_app"]

APP_CALL_EVENT = "app_tool_call"
"""The custom event an app's tool call is recorded as, on the call that shows the app."""

_SHOWN_CHARS = 2000  # of a result, in the recorded event


async def call_for_app(
    runtime: Runtime, thread_id: str, call_id: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """Run `name` for the app of call `call_id` of thread `thread_id`: the server's
    `CallToolResult` as JSON. `ThreadlabError` saying why when it is not run."""
    thread = runtime.thread(thread_id)
    shown = _tool_of_call(thread.all_messages(), call_id)
    if shown is None:
        raise ThreadlabError(f"thread {thread_id} has no call {call_id!r}")
    definition = runtime.registry.get(shown)
    if not isinstance(definition, ToolDefinition) or definition.ui is None:
        raise ThreadlabError(f"tool {shown!r} has no app")
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
    if target is None:
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
        returned = await connection.call(name, arguments, unheard)
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


def _tool_of_call(messages: list[Message], call_id: str) -> str | None:
    """The tool the latest call `call_id` called (a model may repeat an id)."""
    for message in reversed(messages):
        for call in message.tool_calls:
            if call.id == call_id:
                return call.name
    return None


def _record(
    thread: Thread, call_id: str, name: str, arguments: dict[str, Any], status: str, result: str
) -> None:
    context = thread._context  # what an event of the thread is written through
    shown = result if len(result) <= _SHOWN_CHARS else result[:_SHOWN_CHARS] + "…"
    data = {
        "name": name,
        "arguments": json.loads(thread.redact(json.dumps(arguments, ensure_ascii=False))),
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
