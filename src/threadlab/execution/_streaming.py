"""Consuming a model's stream: text and argument deltas become events as they arrive, and each
tool call's `tool_call_started` fires exactly once: when its progress argument is complete, or
as soon as the call appears when it has none."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from .._data import (
    MAX_NESTING,
    EventOrigin,
    Reasoning,
    TextDeltaEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallStartedEvent,
    fresh_call_id,
    is_text,
    nesting_depth,
    new_id,
)
from ..definitions import ToolDefinition
from ..models import FinishChunk, ModelChunk, ReasoningChunk, TextChunk, ToolCallChunk
from ..threads import Emit, Redactor, StreamRedaction
from ._scanner import ArgumentScanner

__all__ = ["Draft", "collect_stream", "parse_arguments"]


_YIELD_EVERY = 0.01  # seconds of streaming between chances for others to run

OnStarted = Callable[[ToolCallStartedEvent], Awaitable[None]]


@dataclass
class _PendingCall:
    id: str
    name: str
    scanner: ArgumentScanner | None
    shown: StreamRedaction  # what live consumers see of the arguments
    parts: list[str] = field(default_factory=list)
    started: bool = False


@dataclass
class Draft:
    """The assistant message as streamed."""

    text: str
    calls: list[ToolCall]
    usage: dict[str, int] | None
    reasoning: tuple[Reasoning, ...] = ()
    response_id: str | None = None
    model: str | None = None
    """The model that answered, when the stream said (see `FinishChunk.model`)."""


def parse_arguments(raw: str) -> dict[str, object] | str:
    """The parsed argument object, or the raw text when it is not a JSON object."""
    if not raw.strip():
        return {}
    if not is_text(raw):  # lone surrogates in the text itself: kept escaped, refused
        return raw.encode("utf-8", "backslashreplace").decode("utf-8")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    # Too deep to store or send back, or holding a lone surrogate ("\ud800", which no text
    # can hold): kept as the text it came as, and the call gets an error result.
    if not isinstance(value, dict) or nesting_depth(value) > MAX_NESTING or not is_text(value):
        return raw
    return value


class _Collector:
    """The assistant message as the stream builds it, and the events it emits on the way."""

    def __init__(
        self,
        tools: dict[str, ToolDefinition],
        emit: Emit,
        on_started: OnStarted,
        base: EventOrigin,
        redactor: Redactor,
        live: bool,
        taken: AbstractSet[str],
    ) -> None:
        self.tools = tools
        self.live = live
        self.taken = taken  # the ids the thread's earlier calls have
        self.emit = emit
        self.on_started = on_started
        self.base = base
        self.redactor = redactor
        self.text: list[str] = []
        self.shown_text = StreamRedaction(redactor)
        self.calls: dict[int, _PendingCall] = {}
        self.usage: dict[str, int] | None = None
        self.reasoning: dict[int, dict[str, Any]] = {}
        self.response_id: str | None = None
        self.model: str | None = None

    def take_reasoning(self, chunk: ReasoningChunk) -> None:
        part = self.reasoning.setdefault(chunk.index, {"text": "", "api": chunk.api})
        part["text"] += chunk.text
        for key in ("signature", "redacted", "encrypted", "id"):
            value = getattr(chunk, key)
            if value is not None:
                part[key] = value

    def take_text(self, chunk: TextChunk) -> None:
        if chunk.text:
            self.text.append(chunk.text)
            if not self.live:
                return
            delta = self.shown_text.feed(chunk.text)
            if delta:
                self.emit(TextDeltaEvent(delta=delta, **self.base))

    async def take_call(self, chunk: ToolCallChunk) -> None:
        call = self.calls.get(chunk.index)
        fresh = call is None
        if call is None:
            call = self.calls[chunk.index] = self._new_call(chunk)
        if chunk.arguments:
            call.parts.append(chunk.arguments)
        if self.live:
            self.emit(
                ToolCallDeltaEvent(
                    tool_call_id=call.id,
                    name=call.name,
                    delta=call.shown.feed(chunk.arguments),
                    **self.base,
                )
            )
        if call.started:
            return
        if call.scanner is None:
            if fresh:
                await self._start(call, None)
        elif chunk.arguments and call.scanner.feed(chunk.arguments):
            await self._start(call, call.scanner.value)

    def _new_call(self, chunk: ToolCallChunk) -> _PendingCall:
        name = chunk.name or ""
        definition = self.tools.get(name)
        target = definition.progress_argument if definition else None
        return _PendingCall(
            id=self._unique(chunk.id or new_id("call")),
            name=name,
            scanner=ArgumentScanner(target) if target else None,
            shown=StreamRedaction(self.redactor),
        )

    def _unique(self, call_id: str) -> str:
        """`call_id`, or, when the model gave it to another call of this step or of an
        earlier one of the thread already, the same with "_2", "_3"... (`fresh_call_id`):
        each call of a thread has an id of its own, which its card, its decision and its
        result name (two calls of one id were one card, showing one call's arguments and
        result for both, and a decision on one could not be told from the other's). Ids are
        compared as stored: two that hold a secret are both stored as its placeholder."""
        stored = self.redactor.identifier
        mine = {stored(call.id) for call in self.calls.values()}
        return fresh_call_id(call_id, lambda c: stored(c) in mine or stored(c) in self.taken)

    async def _start(self, call: _PendingCall, progress: str | None) -> None:
        call.started = True
        event = self.emit(
            ToolCallStartedEvent(
                tool_call_id=call.id,
                name=call.name,
                # A value no store can hold (a lone surrogate) is not shown.
                progress=progress if progress is None or is_text(progress) else None,
                **self.base,
            )
        )
        await self.on_started(event)

    async def finish(self) -> Draft:
        # What was held back to settle a possible secret goes out now, redacted.
        rest = self.shown_text.flush()
        if rest:
            self.emit(TextDeltaEvent(delta=rest, **self.base))
        for call in self.calls.values():
            rest = call.shown.flush()
            if rest:
                self.emit(
                    ToolCallDeltaEvent(
                        tool_call_id=call.id,
                        name=call.name,
                        delta=rest,
                        **self.base,
                    )
                )
        # The arguments are complete: calls still waiting for their progress argument start.
        for call in self.calls.values():
            if not call.started:
                await self._start(call, None)
        return Draft(
            text="".join(self.text),
            calls=[
                ToolCall(c.id, name=c.name, arguments=parse_arguments("".join(c.parts)))
                for c in self.calls.values()
            ],
            usage=self.usage,
            reasoning=tuple(Reasoning(**part) for _, part in sorted(self.reasoning.items())),
            response_id=self.response_id,
            model=self.model,
        )


async def collect_stream(
    stream: AsyncIterator[ModelChunk],
    tools: dict[str, ToolDefinition],
    emit: Emit,
    on_started: OnStarted,
    base: EventOrigin,
    redactor: Redactor,
    live: bool = True,
    taken: AbstractSet[str] = frozenset(),
) -> Draft:
    """Read the whole stream, emitting events; `base` holds the fields every event carries.
    Deltas are redacted across chunk boundaries: a secret split between two chunks is held
    back until it is whole, then replaced. Without `live` (nobody listens to the thread's
    events) the deltas, which are only for live listeners, are not made. A call given an id
    in `taken` (the thread's earlier calls') gets another."""
    collector = _Collector(tools, emit, on_started, base, redactor, live, taken)
    next_yield = time.monotonic() + _YIELD_EVERY
    try:
        async for chunk in stream:
            if time.monotonic() >= next_yield:
                # A model that never suspends (a scripted one, a fast local server) would
                # otherwise hold the loop until it ends, and stream consumers and the live
                # view would get every event in one burst at the end.
                await asyncio.sleep(0)
                next_yield = time.monotonic() + _YIELD_EVERY
            if isinstance(chunk, TextChunk):
                collector.take_text(chunk)
            elif isinstance(chunk, ToolCallChunk):
                await collector.take_call(chunk)
            elif isinstance(chunk, ReasoningChunk):
                collector.take_reasoning(chunk)
            elif isinstance(chunk, FinishChunk):
                collector.usage = chunk.usage
                collector.response_id = chunk.response_id
                collector.model = chunk.model
    finally:
        # Cancelled or failed mid-stream: the model's stream (an HTTP response, for a
        # provider) is closed now, not when the garbage collector finds it.
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    return await collector.finish()
