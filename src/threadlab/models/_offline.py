"""The default model, `offline`: deterministic, keyless, and streaming like a provider.

Within a turn it calls each offered tool once, with valid arguments generated from the tool's
schema (the progress argument first, filled with a short phrase), and then answers with a text
that reports what the tools returned. It never needs a network or a key.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence

from ..runtime._messages import Message
from ._base import ModelChunk, ModelRequest, ToolSpec
from ._schema_values import generate_arguments
from ._scripted import ScriptedCall, Step, stream_step

__all__ = ["OfflineModel"]


class OfflineModel:
    """Schema-driven offline model.

    Args:
        chunk_size: characters per streamed text or argument chunk.
        delay: seconds to pause between chunks, so a person can watch a run stream.
    """

    def __init__(self, *, chunk_size: int = 16, delay: float = 0.0) -> None:
        self.name = "offline"
        self.chunk_size = chunk_size
        self.delay = delay

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        async for chunk in stream_step(self.decide(request), self.chunk_size):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield chunk

    def decide(self, request: ModelRequest) -> Step:
        """The next step for this context: call the tools not yet called this turn, or answer."""
        turn = _current_turn(request.messages)
        user_text = turn[0].content or "" if turn else ""
        called = {call.name for m in turn for call in m.tool_calls}
        pending = [t for t in request.tools if t.name not in called]
        if pending and request.tool_choice != "none":
            chosen = pending if request.parallel_tool_calls else pending[:1]
            return Step(calls=tuple(self._call(spec, user_text) for spec in chosen))
        return Step(text=_answer(user_text, turn))

    @staticmethod
    def _call(spec: ToolSpec, user_text: str) -> ScriptedCall:
        args = generate_arguments(spec.parameters, user_text, spec.progress_argument, spec.name)
        return ScriptedCall(spec.name, args)


def _current_turn(messages: Sequence[Message]) -> list[Message]:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return list(messages[index:])
    return []


def _answer(user_text: str, turn: list[Message]) -> str:
    results = [m for m in turn if m.role == "tool"]
    if not results:
        words = " ".join(user_text.split())
        return f"(offline model) You said: {words}" if words else "(offline model) Hello."
    lines = ["(offline model) I called the tools I was given:"]
    for message in results:
        outcome = "failed" if message.tool_status == "error" else "returned"
        lines.append(f"- {message.name} {outcome}: {_snippet(message.content)}")
    return "\n".join(lines)


def _snippet(content: str | None, limit: int = 120) -> str:
    text = " ".join((content or "").split())
    try:
        parsed = json.loads(content or "")
        if isinstance(parsed, str):
            text = parsed
    except ValueError:
        pass
    return text if len(text) <= limit else text[: limit - 1] + "…"
