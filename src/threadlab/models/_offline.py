"""The default model, `offline`: deterministic, keyless, and streaming like a provider.

Within a turn it calls each offered tool once, with valid arguments generated from the tool's
schema (the progress argument first, filled with a short phrase), and then answers with a text
that reports what the tools returned. It never needs a network or a key.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence

from .._data import Message, ToolCall
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
        """The next step for this context: call what was not called yet this turn, or answer.

        Function, prompt and agent tools are called once each; then `subagent_create` once per
        subagent relationship; then the side's session_stop tool. Handoffs, session_fail,
        `subagents` and `subagent_message` are left to scripted models.
        """
        turn = _current_turn(request.messages)
        user_text = turn[0].content or "" if turn else ""
        called = [call for m in turn for call in m.tool_calls]
        called_names = {call.name for call in called}
        calls: list[ScriptedCall] = [
            self._call(spec, user_text)
            for spec in request.tools
            if spec.purpose in ("function", "prompt", "agent") and spec.name not in called_names
        ]
        calls += self._subagent_calls(request.tools, called, user_text)
        if not calls:
            calls = [
                self._call(spec, user_text)
                for spec in request.tools
                if spec.purpose == "session_stop" and spec.name not in called_names
            ]
        if calls and request.tool_choice != "none":
            chosen = calls if request.parallel_tool_calls else calls[:1]
            return Step(calls=tuple(chosen))
        return Step(text=_answer(user_text, turn))

    @staticmethod
    def _subagent_calls(
        tools: Sequence[ToolSpec], called: list[ToolCall], user_text: str
    ) -> list[ScriptedCall]:
        spec = next((t for t in tools if t.name == "subagent_create"), None)
        if spec is None:
            return []
        started = {
            c.arguments.get("agent")
            for c in called
            if c.name == spec.name and isinstance(c.arguments, dict)
        }
        agents = spec.parameters["properties"]["agent"].get("enum", [])
        return [
            ScriptedCall(spec.name, {"agent": agent, "name": f"{agent}-1", "message": user_text})
            for agent in agents
            if agent not in started
        ]

    @staticmethod
    def _call(spec: ToolSpec, user_text: str) -> ScriptedCall:
        args = generate_arguments(spec.parameters, user_text, spec.progress_argument, spec.name)
        return ScriptedCall(spec.name, args)


def _current_turn(messages: Sequence[Message]) -> list[Message]:
    """From the last user message that is not a child's report to the end."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user" and message.subagent_id is None:
            return list(messages[index:])
    return []


def _answer(user_text: str, turn: list[Message]) -> str:
    results = [m for m in turn if m.role == "tool" or m.subagent_id is not None]
    if not results:
        words = " ".join(user_text.split())
        return f"(offline model) You said: {words}" if words else "(offline model) Hello."
    lines = ["(offline model) I called the tools I was given:"]
    for message in results:
        if message.subagent_id is not None:
            lines.append(f"- a subagent reported: {_snippet(message.content)}")
            continue
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
