"""What each model step is sent, recorded with the step's assistant message as a delta on the
previous step of the same chain (a frame's place: its depth, side and the prompt-tool call it
runs in): the messages it keeps, the ones it adds, the tools when they changed. A long thread's
records therefore grow with its history, not with its square; `tl.Thread.model_request`
rebuilds any step's request whole."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from .._data import Message, RequestEntry, StepRequest, rebuild_request
from ..models import ModelRequest
from ..threads import ThreadContext
from ._frames import Frame

__all__ = ["RequestLog"]

_Key = tuple[int, str | None, str | None]


@dataclass
class _Sent:
    message_id: str
    messages: list[Message]
    tools: list[dict[str, Any]]
    parameters: dict[str, Any]


# The last request of each top-level chain, per thread, carried from one run to the next in
# this process: a run's first step would otherwise rebuild it from the stored deltas, back
# through every step the thread ever took (a long thread's runs would each start slower).
_CARRIED: weakref.WeakKeyDictionary[ThreadContext, dict[_Key, _Sent]] = weakref.WeakKeyDictionary()


class RequestLog:
    """The last request of each chain of one run, to record the next as a delta."""

    def __init__(self, context: ThreadContext) -> None:
        self.context = context
        self._last: dict[_Key, _Sent | None] = {}
        self._sending: dict[_Key, _Sent] = {}
        self._carried = _CARRIED.setdefault(context, {})

    def record(
        self, frame: Frame, request: ModelRequest, parameters: dict[str, Any]
    ) -> StepRequest:
        """The record of `request`, about to be sent in `frame` with the model's request
        options `parameters`."""
        key = _key(frame)
        if key not in self._last:
            self._last[key] = self._from_store(frame)
        last = self._last[key]
        messages = list(request.messages)
        tools = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in request.tools
        ]
        keep = 0 if last is None else _kept(last.messages, messages)
        self._sending[key] = _Sent("", messages, tools, parameters)
        return StepRequest(
            after=last.message_id if last is not None else None,
            keep=keep,
            add=tuple(self._entry(m) for m in messages[keep:]),
            tools=None if last is not None and last.tools == tools else tuple(tools),
            tool_choice=request.tool_choice,
            parallel_tool_calls=request.parallel_tool_calls,
            parameters=None if last is not None and last.parameters == parameters else parameters,
        )

    def sent(self, frame: Frame, message_id: str) -> None:
        """The step's assistant message is stored as `message_id`: the chain goes on from it."""
        key = _key(frame)
        sent = self._sending.pop(key)
        sent.message_id = message_id
        self._last[key] = sent
        if not frame.depth:
            self._carried[key] = sent

    def _entry(self, message: Message) -> RequestEntry:
        stored = self.context.history.find(message.id) if message.role != "system" else None
        if stored is not None and (stored is message or stored == message):
            return RequestEntry(ref=message.id)
        return RequestEntry(message=message)  # as sent: the store holds it otherwise, or not

    def _from_store(self, frame: Frame) -> _Sent | None:
        """A top-level chain goes on from the thread's last step on this side in an earlier
        run; a prompt tool's turn starts a chain of its own."""
        if frame.depth:
            return None
        for message in reversed(self.context.history.top):
            if message.role == "assistant" and message.side == frame.side and message.request:
                carried = self._carried.get(_key(frame))
                if carried is not None and carried.message_id == message.id:
                    return carried  # this process sent it: no need to rebuild it
                seen = rebuild_request(message.id, self.context.history.find)
                if seen is None:
                    return None
                return _Sent(message.id, seen.messages, seen.tools, seen.parameters)
        return None


def _key(frame: Frame) -> _Key:
    return (frame.depth, frame.side, frame.parent_tool_call_id)


def _kept(earlier: list[Message], now: list[Message]) -> int:
    """How many of `now`'s first messages are those of `earlier`, in order."""
    limit = min(len(earlier), len(now))
    # Usually all of them, most the very same objects: list equality checks those in C
    # (identity first), where a step-by-step walk would cost a long thread each step.
    if limit and _same(earlier[0], now[0]) and earlier[1:limit] == now[1:limit]:
        return limit
    keep = 0
    while keep < limit and _same(earlier[keep], now[keep]):
        keep += 1
    return keep


def _same(earlier: Message, now: Message) -> bool:
    # A system prompt is made anew for each run: the same text is the same message.
    if earlier.role == now.role == "system":
        return earlier.content == now.content
    return earlier is now or earlier == now
