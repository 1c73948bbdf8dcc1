"""What the runtime asks of a model: a streamed response to a request.

A model turns a `ModelRequest` into an async stream of chunks, the way providers stream:
text deltas, and tool calls announced by index (id and name first) whose argument JSON then
arrives in pieces. A provider that delivers a call whole sends one chunk with everything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .._data import Message

__all__ = [
    "FinishChunk",
    "Model",
    "ModelChunk",
    "ModelRequest",
    "TextChunk",
    "ToolCallChunk",
    "ToolPurpose",
    "ToolSpec",
]


ToolPurpose = Literal[
    "function", "prompt", "agent", "handoff", "lifecycle", "session_stop", "session_fail"
]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to a model."""

    name: str
    description: str
    parameters: dict[str, Any]
    # Not sent to providers: they let the offline model behave like a sensible model would.
    progress_argument: str | None = None
    # Also not sent: what the tool is for, so the offline model can call tools in a sensible
    # order. One of "function", "prompt", "agent", "handoff", "lifecycle", "session_stop",
    # "session_fail".
    purpose: ToolPurpose = "function"


@dataclass(frozen=True)
class ModelRequest:
    """One model call: the context, the tools on offer and how they may be called."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    tool_choice: str = "auto"
    parallel_tool_calls: bool = False
    max_output_tokens: int | None = None
    """The most tokens the step may write (what the run's token budget has left; None: no
    limit beyond the model's own). A remote model sends it as its API names it."""


@dataclass(frozen=True)
class TextChunk:
    text: str


@dataclass(frozen=True)
class ToolCallChunk:
    """A piece of tool call `index`: its first chunk carries `id` and `name`."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True)
class ReasoningChunk:
    """A piece of reasoning part `index` (pieces of one part concatenate their `text`; the
    other fields, when a piece carries them, complete the part)."""

    index: int
    text: str = ""
    api: str = ""
    signature: str | None = None
    redacted: str | None = None
    encrypted: str | None = None
    id: str | None = None


@dataclass(frozen=True)
class FinishChunk:
    usage: dict[str, int] | None = None
    response_id: str | None = None
    """The provider's id of the response, when it gives one."""
    model: str | None = None
    """The model that answered, when the stream knows better than the model object (a
    replay's step answered by its fallback names the fallback)."""


ModelChunk = TextChunk | ToolCallChunk | ReasoningChunk | FinishChunk


class Model(Protocol):
    """A model the runtime can stream from."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]: ...
