"""Models whose every step is decided in Python: a fixed script, or a function.

Both stream like a provider: the text in `chunk_size` slices, then each tool call announced
(id and name) before `json.dumps(args)` arrives in `chunk_size` slices.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .._data import Message, new_id
from ._base import FinishChunk, ModelChunk, ModelRequest, TextChunk, ToolCallChunk, ToolSpec

__all__ = [
    "FunctionModel",
    "ScriptedCall",
    "ScriptedModel",
    "Step",
    "call",
    "step",
    "stream_step",
    "text",
]


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    args: dict[str, Any] | None = None
    raw_arguments: str | None = None
    id: str | None = None

    def argument_text(self) -> str:
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(self.args if self.args is not None else {})


@dataclass(frozen=True)
class Step:
    """One assistant message: optional text, then tool calls in order."""

    calls: tuple[ScriptedCall, ...] = ()
    text: str | None = None


def text(content: str) -> Step:
    """A step that answers with text alone."""
    return Step(text=content)


def call(
    name: str,
    args: dict[str, Any] | None = None,
    *,
    raw_arguments: str | None = None,
    id: str | None = None,
) -> Step:
    """A step with one tool call; `raw_arguments` sends that exact text (e.g. malformed JSON)."""
    return Step(calls=(ScriptedCall(name, args, raw_arguments, id),))


def step(*calls: Step | ScriptedCall, text: str | None = None) -> Step:
    """One assistant message with several tool calls (and optional text before them)."""
    flat: list[ScriptedCall] = []
    for item in calls:
        flat.extend(item.calls if isinstance(item, Step) else (item,))
    return Step(calls=tuple(flat), text=text)


def _as_step(value: object) -> Step:
    if isinstance(value, Step):
        return value
    if isinstance(value, ScriptedCall):
        return Step(calls=(value,))
    if isinstance(value, str):
        return Step(text=value)
    raise TypeError(
        f"a model step must be tl.models.text(...), call(...), step(...) or a str; got {value!r}"
    )


async def stream_step(
    value: Step, chunk_size: int, usage: dict[str, int] | None = None
) -> AsyncIterator[ModelChunk]:
    """Stream one step the way a provider would."""
    size = max(1, chunk_size)
    if value.text:
        for start in range(0, len(value.text), size):
            yield TextChunk(value.text[start : start + size])
    for index, scripted in enumerate(value.calls):
        call_id = scripted.id or new_id("call")
        yield ToolCallChunk(index=index, id=call_id, name=scripted.name)
        arguments = scripted.argument_text()
        for start in range(0, len(arguments), size):
            yield ToolCallChunk(index=index, arguments=arguments[start : start + size])
    yield FinishChunk(usage=usage)


class ScriptedModel:
    """Plays a fixed list of steps, one per model call.

    Examples:
        >>> import threadlab as tl
        >>> model = tl.models.ScriptedModel([tl.models.call("add", {"a": 1}),
        ...                                  tl.models.text("done")])
    """

    def __init__(self, steps: Iterable[Step | ScriptedCall | str], chunk_size: int = 8) -> None:
        self.name = "scripted"
        self._steps = [_as_step(s) for s in steps]
        self._given = len(self._steps)
        self.chunk_size = chunk_size
        self.requests: list[ModelRequest] = []

    @property
    def remaining(self) -> int:
        return len(self._steps)

    def __repr__(self) -> str:
        steps = "1 step" if self._given == 1 else f"{self._given} steps"
        return f"ScriptedModel({steps}, {len(self._steps)} left)"

    def assert_complete(self) -> None:
        """Raise AssertionError when steps are left unplayed."""
        if self._steps:
            raise AssertionError(
                f"ScriptedModel: {len(self._steps)} of {self._given} steps were not played"
            )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.requests.append(request)
        if not self._steps:
            raise RuntimeError(
                f"ScriptedModel has no steps left: all {self._given} were played and the"
                " runtime asked for another"
            )
        async for chunk in stream_step(self._steps.pop(0), self.chunk_size):
            yield chunk


StepFunction = Callable[[list[Message], list[ToolSpec]], "Step | str | Awaitable[Step | str]"]


class FunctionModel:
    """Asks a Python function for each step: `fn(messages, tools) -> step` (sync or async)."""

    def __init__(self, fn: StepFunction, chunk_size: int = 8) -> None:
        self.name = getattr(fn, "__name__", "function")
        self._fn = fn
        self.chunk_size = chunk_size

    def __repr__(self) -> str:
        return f"FunctionModel({self.name})"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        # The messages are a read-only sequence: copying them per step would make long runs
        # quadratic.
        result = self._fn(list(request.messages), list(request.tools))
        if inspect.isawaitable(result):
            result = await result
        async for chunk in stream_step(_as_step(result), self.chunk_size):
            yield chunk
