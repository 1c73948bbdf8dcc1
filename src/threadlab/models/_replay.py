"""`ReplayModel`: answers each model step with the assistant message a recorded thread
produced for the same request, so a thread can be run again (after a tool was fixed, say)
without calling a model until the conversation changes.

"The same request" is the same conversation so far — each message's role, text, tool calls
(id, name, arguments) and results, system messages aside — and the same tool names offered.
Recordings are read from the top-level history of each source thread: the request that
produced its i-th message, an assistant one, is the history before it, which is what the
same prompt sends again for the same history. At the first request with no recording the
fallback model answers (and every later request: the conversation has left the recording);
without one the step fails with "diverged at step N: ..." naming the first difference.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, Protocol, cast

from .._data import ApprovalDecidedEvent, CallKey, Message, ToolCall, own_call_ids
from .._errors import ModelError, ReplayDivergedError
from ._base import DescribedModel, FinishChunk, Model, ModelChunk, ModelRequest, supports
from ._scripted import ScriptedCall, Step, stream_step

__all__ = ["RecordedThread", "ReplayModel"]


class RecordedThread(Protocol):
    """What a replay reads of a thread: its top-level history (a `tl.Thread` has it), and
    its `events` when it has them (the decisions on its calls are replayed too)."""

    @property
    def messages(self) -> list[Message]: ...


_Key = tuple[tuple[Any, ...], ...]


class ReplayModel:
    """Replays the assistant messages recorded in `source` (a thread or several) for the same
    requests; `fallback` (a model, or a model's name) answers once a conversation leaves the
    recording, and from then on in that conversation (others still replay).

    Examples:
        >>> import threadlab as tl
        >>> class Recorded:
        ...     messages = [tl.Message(role="user", content="hi"),
        ...                 tl.Message(role="assistant", content="hello")]
        >>> tl.models.ReplayModel(Recorded()).recordings
        1
    """

    def __init__(
        self,
        source: RecordedThread | Iterable[RecordedThread],
        *,
        fallback: Model | str | None = None,
        chunk_size: int = 8,
    ) -> None:
        self.name = "replay"
        self.fallback = fallback
        self.chunk_size = chunk_size
        self.calls_replayed = 0
        """Model steps answered from the recording."""
        self.calls_forwarded = 0
        """Model steps the fallback answered."""
        sources = cast(
            "list[RecordedThread]",
            [source] if hasattr(source, "messages") else list(cast(Iterable[Any], source)),
        )
        self._recorded: dict[_Key, Message] = {}
        self._histories: list[list[Message]] = []
        renamings: list[dict[CallKey, str]] = []
        for thread in sources:
            # As a thread stores a repeated id now (ID_2): the replay's own history does.
            history, renamed = own_call_ids([m for m in thread.messages if m.role != "system"])
            self._histories.append(history)
            renamings.append(renamed)
            for index, message in enumerate(history):
                if message.role == "assistant":
                    self._recorded.setdefault(_key(history[:index]), message)
        # The decisions on the recorded steps' calls, by the request each step answered: a
        # decision replays only for a call of a step that is replayed, never for a call the
        # fallback makes (a model may repeat a recorded call's id and arguments).
        self._decided: dict[_Key, dict[str, ApprovalDecidedEvent]] = {}
        for thread, history, renamed in zip(sources, self._histories, renamings, strict=True):
            decided = _decisions_by_call(thread)
            for index, message in enumerate(history):
                key = _key(history[:index])
                if message.role != "assistant" or self._recorded.get(key) is not message:
                    continue
                stored = {c.id: renamed.get((message.id, c.id), c.id) for c in message.tool_calls}
                self._decided[key] = {
                    call.id: decided[(message.id, stored[call.id])].model_copy(
                        update={"tool_call_id": call.id}
                    )
                    for call in message.tool_calls
                    if (message.id, stored[call.id]) in decided
                }
        # The conversations that left the recording (their request at that point): what
        # follows in one of them is the fallback's own, while other conversations (another
        # case of an evaluation, say) still replay.
        self._diverged: list[_Key] = []
        self._resolve: Callable[[str], Model] | None = None

    def decision_for(self, call: ToolCall, asked: Sequence[Message]) -> ApprovalDecidedEvent | None:
        """The decision the recording made on `call`, when the step that made it was replayed
        from the recording for the request `asked` (None: the fallback made it, or no
        decision was recorded on it)."""
        key = _key([m for m in asked if m.role != "system"])
        if any(key[: len(point)] == point for point in self._diverged):
            return None
        recorded = self._recorded.get(key)
        if recorded is None or not any(
            _call_key(made) == _call_key(call) for made in recorded.tool_calls
        ):
            return None
        return self._decided.get(key, {}).get(call.id)

    @property
    def recordings(self) -> int:
        """How many model steps the sources recorded."""
        return len(self._recorded)

    def bind_fallback(self, resolve: Callable[[str], Model]) -> None:
        """How a fallback given by name becomes a model (the runtime binds it)."""
        self._resolve = resolve

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        asked = [m for m in request.messages if m.role != "system"]
        key = _key(asked)
        left = any(key[: len(point)] == point for point in self._diverged)
        recorded = None if left else self._recorded.get(key)
        if recorded is not None:
            self.calls_replayed += 1
            async for chunk in stream_step(_as_step(recorded), self.chunk_size):
                yield chunk
            return
        if self.fallback is None:
            raise ReplayDivergedError(self._divergence(asked))
        if not left:
            self._diverged.append(key)  # past here this conversation is the fallback's own
        self.calls_forwarded += 1
        fallback = self._fallback()
        # Its step names the fallback's model, so a view tells it from the replayed ones.
        answered_by = (
            cast(DescribedModel, fallback).model
            if supports(fallback, DescribedModel)
            else fallback.name
        ) or "model"
        async for chunk in fallback.stream(request):
            if isinstance(chunk, FinishChunk) and chunk.model is None:
                chunk = dataclasses.replace(chunk, model=answered_by)
            yield chunk

    def _fallback(self) -> Model:
        if not isinstance(self.fallback, str):
            assert self.fallback is not None
            return self.fallback
        if self._resolve is None:
            raise ModelError(
                f"the replay's fallback {self.fallback!r} is a model name: run the replay in a"
                " Runtime, which resolves it"
            )
        return self._resolve(self.fallback)

    def _divergence(self, asked: Sequence[Message]) -> str:
        step = sum(1 for m in asked if m.role == "assistant") + 1
        best, at = None, -1
        for history in self._histories:
            same = _common_prefix(history, asked)
            if same > at:
                best, at = history, same
        if best is None:
            return f"diverged at step {step}: there is no recording to replay"
        now = _describe(asked[at]) if at < len(asked) else "nothing"
        then = _describe(best[at]) if at < len(best) else "nothing (the recording ended)"
        return f"diverged at step {step}: message {at + 1} is {now}; the recording had {then}"


def _shape(message: Message) -> tuple[Any, ...]:
    calls = tuple(
        (c.id, c.name, json.dumps(c.arguments, sort_keys=True)) for c in message.tool_calls
    )
    return (message.role, message.content or "", calls, message.tool_call_id)


def _key(messages: Sequence[Message]) -> _Key:
    return tuple(_shape(m) for m in messages)


def _common_prefix(recorded: Sequence[Message], asked: Sequence[Message]) -> int:
    same = 0
    for then, now in zip(recorded, asked, strict=False):
        if _shape(then) != _shape(now):
            break
        same += 1
    return same


def _describe(message: Message) -> str:
    if message.role == "tool":
        text = (message.content or "")[:80]
        return f"the result of {message.name or 'a call'} ({message.tool_call_id}): {text!r}"
    if message.tool_calls:
        names = ", ".join(f"{c.name}({json.dumps(c.arguments)[:60]})" for c in message.tool_calls)
        return f"an {message.role} message calling {names}"
    return f"a {message.role} message {(message.content or '')[:80]!r}"


def _as_step(message: Message) -> Step:
    calls = tuple(
        ScriptedCall(
            c.name,
            c.arguments if isinstance(c.arguments, dict) else None,
            c.arguments if isinstance(c.arguments, str) else None,
            c.id,
        )
        for c in message.tool_calls
    )
    return Step(calls=calls, text=message.content)


def _decisions_by_call(thread: RecordedThread) -> dict[tuple[str, str], ApprovalDecidedEvent]:
    """The decisions recorded in `thread`, by the assistant message and call they were made
    on (an event that names no message: the latest message with a call of that id)."""
    latest: dict[str, str] = {}
    for message in thread.messages:
        if message.role == "assistant":
            latest.update((call.id, message.id) for call in message.tool_calls)
    found: dict[tuple[str, str], ApprovalDecidedEvent] = {}
    for event in getattr(thread, "events", ()):
        if isinstance(event, ApprovalDecidedEvent):
            message_id = event.message_id or latest.get(event.tool_call_id)
            if message_id is not None:
                found.setdefault((message_id, event.tool_call_id), event)
    return found


def _call_key(call: ToolCall) -> tuple[str, str]:
    return (call.id, json.dumps(call.arguments, sort_keys=True, default=str))
