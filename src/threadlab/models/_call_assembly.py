"""Tool calls put together from what servers actually stream.

Each API announces a call and then streams its argument text in pieces, keyed by a position
(`index` in Chat Completions, `output_index` in Responses, the content block in Anthropic).
Servers that speak a protocol "compatibly" bend it: Ollama sends index 0 for every call, each
call whole in one chunk; Gemini's endpoint sends no index at all; some servers repeat the id on
every chunk of a call, others send the arguments only with the call's final event. The
assembler keys a call by position *and* id, so each of these gives one call per call, and the
runtime sees the plain shape it expects: one `ToolCallChunk` stream per call, numbered in
order, id and name on the first chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._base import ToolCallChunk

__all__ = ["CallAssembler"]


@dataclass
class _Call:
    index: int
    id: str | None
    streamed: int = 0  # characters of argument text passed on so far


class CallAssembler:
    """Numbers a response's tool calls and passes their pieces on as `ToolCallChunk`s."""

    def __init__(self) -> None:
        self._at: dict[int, _Call] = {}  # the call now at each position
        self._by_id: dict[str, _Call] = {}
        self._last: _Call | None = None
        self._count = 0

    def feed(
        self, position: int | None, id: str | None, name: str | None, arguments: str | None
    ) -> ToolCallChunk | None:
        """One streamed piece of a call; None when it carries nothing to pass on."""
        call = self._find(position, id)
        if call is None:
            call = _Call(self._count, id or None)
            self._count += 1
            if id:
                self._by_id[id] = call
            if position is not None:
                self._at[position] = call
            self._last = call
            return self._chunk(call, arguments, first=(id or None, name or ""))
        self._last = call
        if not arguments:
            return None
        return self._chunk(call, arguments)

    def finish(self, position: int | None, id: str | None, arguments: str) -> ToolCallChunk | None:
        """A call's complete argument text, as some APIs send it at the end: what was not
        streamed yet is passed on (all of it, for a server that streamed none)."""
        call = self._find(position, id)
        if call is None or len(arguments) <= call.streamed:
            return None
        return self._chunk(call, arguments[call.streamed :])

    def _find(self, position: int | None, id: str | None) -> _Call | None:
        if id and id in self._by_id:
            return self._by_id[id]
        if position is None:
            # No position at all: a new id is a new call, anything else continues the last.
            return None if id else self._last
        call = self._at.get(position)
        if call is not None and id and call.id is not None and call.id != id:
            return None  # a new id at a reused position is a new call
        return call

    @staticmethod
    def _chunk(
        call: _Call, arguments: str | None, first: tuple[str | None, str] | None = None
    ) -> ToolCallChunk:
        text = arguments or ""
        call.streamed += len(text)
        if first is None:
            return ToolCallChunk(call.index, arguments=text)
        return ToolCallChunk(call.index, id=first[0], name=first[1], arguments=text)
