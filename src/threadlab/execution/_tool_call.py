"""One tool call, from the model's arguments to a `ToolResult`: look up, parse, validate,
check variables, execute with a timeout, wrap. Nothing here raises to the loop: every problem
becomes an error result the model can read and act on."""

from __future__ import annotations

import asyncio
import inspect
import json
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_core import to_jsonable_python

from .._data import MAX_NESTING, Message, ToolCall, ToolResult, is_text, nesting_depth
from .._frame_names import SOURCE_NAMERS
from ..definitions import APP_EVENT, ToolDefinition, is_async_callable
from ..threads import Redactor, ThreadState
from ._thread_pool import on_pooled_thread

__all__ = [
    "content_of",
    "result_message",
    "result_text",
    "run_tool_call",
    "tool_traceback",
]

_PACKAGE = str(Path(__file__).resolve().parents[1])
SYNC_LINGER_S = 0.002
"""How long the loop waits, blocked, for a sync tool before awaiting it (`on_pooled_thread`):
a call done by then costs no wake-up of the loop; a longer one delays the loop's other work by
this much, once."""


def error(message: str) -> ToolResult:
    return ToolResult("error", error=message)


def result_text(result: ToolResult) -> str:
    """What the tool message stores: the result's content, or the error message."""
    if result.status == "success":
        return content_of(result.result) if result.result is not None else ""
    return result.error or "the tool reported an error"


def result_message(call: ToolCall, result: ToolResult, redactor: Redactor) -> Message:
    """The tool message that stores `result` as the result of `call`. Redacted before it is
    serialised: a secret inside a value would otherwise reach the store JSON-escaped, where
    the text redaction cannot see it."""
    shown = (
        result.model_copy(
            update={
                "result": redactor.value(result.result),
                "error": redactor.text(result.error) if result.error else result.error,
            }
        )
        if redactor
        else result
    )
    return Message(
        role="tool",
        content=result_text(shown),
        tool_call_id=call.id,
        name=call.name,
        tool_status=result.status,
        attachments=result.attachments,
    )


def tool_traceback(exc: BaseException) -> str:
    """The traceback of an exception a tool raised, trimmed to the tool's own frames (the
    runtime's frames that called it say nothing to the person debugging the tool)."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not str(Path(frame.filename).resolve()).startswith(_PACKAGE)
    ]
    lines = ["Traceback (most recent call last):\n"]
    for frame in frames:
        named = next((n for n in map(_call(frame.filename), SOURCE_NAMERS) if n), None)
        if named is None:
            lines += traceback.format_list([frame])
            continue
        # As IPython shows a cell's frame: the cell's name and the line as the editor counts.
        lines.append(f"  {named}, line {frame.lineno}, in {frame.name}\n")
        if frame.line:
            lines.append(f"    {frame.line.strip()}\n")
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip("\n")


def _call(filename: str) -> Callable[[Callable[[str], str | None]], str | None]:
    return lambda namer: namer(filename)


async def run_tool_call(
    call: ToolCall,
    tools: dict[str, ToolDefinition],
    state: ThreadState,
    missing_variables: Callable[[ToolDefinition], list[tuple[str, str]]],
) -> tuple[ToolResult, str | None]:
    """The result of `call`, and the traceback when the tool raised (for the person reading
    the trace; the model gets the one-line message). Never raises to the loop, except for
    cancellation."""
    try:
        return await _run(call, tools, state, missing_variables), None
    except _Raised as raised:
        return raised.result, raised.traceback_text


class _Raised(Exception):
    def __init__(self, result: ToolResult, traceback_text: str) -> None:
        self.result = result
        self.traceback_text = traceback_text


async def _run(
    call: ToolCall,
    tools: dict[str, ToolDefinition],
    state: ThreadState,
    missing_variables: Callable[[ToolDefinition], list[tuple[str, str]]],
) -> ToolResult:
    definition = tools.get(call.name)
    if definition is None:
        offered = ", ".join(sorted(tools)) or "none"
        return error(f"unknown tool {call.name!r}; the tools on offer are: {offered}")
    if isinstance(call.arguments, str):
        return error(_malformed(call.arguments))
    value, problems = definition.args.validate(call.arguments)
    if problems:
        listed = "\n".join(f"- {p}" for p in problems)
        return error(f"invalid arguments for tool {call.name!r}:\n{listed}")
    missing = missing_variables(definition)
    if missing:
        listed = ", ".join(f"{name} (declared by {declarer})" for name, declarer in missing)
        return error(f"tool {call.name!r} cannot run: required variables have no value: {listed}")
    if definition.ui is not None and definition.ui.html is not None:
        # Kept with the call, so its card draws the app now and when the notebook reopens.
        state.emit(APP_EVENT, definition.ui.shown(definition.ui.html))
    try:
        returned = await _execute(definition, state, value)
    except TimeoutError:
        state.abandon()  # a sync execute may still be running: fence its later writes
        return error(f"tool {call.name!r} timed out after {definition.timeout:g} s")
    except asyncio.CancelledError:
        state.abandon()
        raise
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise _Raised(error(message), tool_traceback(exc)) from None
    value = returned.result if isinstance(returned, ToolResult) else returned
    if nesting_depth(value) > MAX_NESTING:
        return error(
            f"tool {call.name!r} returned a value nested deeper than {MAX_NESTING} levels;"
            " return something flatter"
        )
    if isinstance(returned, ToolResult):
        return returned
    try:
        content_of(returned)
    except (TypeError, ValueError) as exc:
        try:  # a pydantic model, a dataclass, a date: stored as pydantic writes it in JSON
            returned = to_jsonable_python(returned)
        except Exception:
            return error(
                f"tool {call.name!r} returned a value that is not JSON-serialisable: {exc}"
            )
    return ToolResult("success", result=returned)


def content_of(value: Any) -> str:
    """A str is stored verbatim; any other JSON-able value as its JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _malformed(raw: str) -> str:
    shown = raw if len(raw) <= 200 else raw[:200] + "..."
    try:
        value = json.loads(raw)
    except RecursionError:
        value = None
        deep = True
    except ValueError as exc:
        return f"the arguments are not valid JSON ({exc}); received: {shown}"
    else:
        deep = nesting_depth(value) > MAX_NESTING
    if deep:
        return f"the arguments are nested deeper than {MAX_NESTING} levels; send flatter ones"
    if isinstance(value, dict) or not is_text(raw):
        return (
            "the arguments are not valid UTF-8 text (a lone surrogate such as \\ud800);"
            f" received: {shown}"
        )
    return f"the arguments must be a JSON object; received: {shown}"


async def _execute(definition: ToolDefinition, state: ThreadState, value: Any) -> Any:
    # asyncio.timeout, not wait_for: it cancels the call in place instead of wrapping it in a
    # task of its own, which matters at one call per step.
    async with asyncio.timeout(definition.timeout):
        if is_async_callable(definition.execute):
            return await definition.execute(state, value)
        return await _on_pooled_thread(definition.execute, state, value)


async def _on_pooled_thread(fn: Callable[..., Any], state: ThreadState, value: Any) -> Any:
    def call() -> Any:
        result = fn(state, value)
        if inspect.isawaitable(result):
            raise TypeError("a sync execute returned an awaitable; make execute async")
        return result

    # A short tool (most of a notebook's) is taken without going back through the loop.
    name = f"threadlab-tool-{state.thread_id}"
    return await on_pooled_thread(call, name=name, linger_s=SYNC_LINGER_S)
