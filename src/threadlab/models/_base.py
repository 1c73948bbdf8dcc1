"""What the runtime asks of a model: a streamed response to a request.

A model turns a `ModelRequest` into an async stream of chunks, the way providers stream:
text deltas, and tool calls announced by index (id and name first) whose argument JSON then
arrives in pieces. A provider that delivers a call whole sends one chunk with everything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .._data import ApprovalDecidedEvent, ToolCall

from .._data import Message

__all__ = [
    "DescribedModel",
    "FinishChunk",
    "Model",
    "ModelChunk",
    "ModelRequest",
    "PricedModel",
    "ReplayingModel",
    "ServedFrom",
    "TextChunk",
    "ToolCallChunk",
    "ToolPurpose",
    "ToolSpec",
    "supports",
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


@runtime_checkable
class Model(Protocol):
    """A model the runtime can stream from. What else a model may do is declared in the
    protocols below, each checked with `isinstance`."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]: ...


@runtime_checkable
class DescribedModel(Protocol):
    """A model that calls a provider's model by its own id, with options of its own: its
    steps are recorded under that id, its requests with those options (`RemoteModel`)."""

    name: str
    model: str
    options: Mapping[str, Any]


class ServedFrom(Protocol):
    """Where a priced model is served from."""

    base_url: str | None
    """The server's URL; None: the provider's own API."""


@runtime_checkable
class PricedModel(Protocol):
    """A model served by a provider, whose steps are priced from the provider's published
    prices (`RemoteModel`): by its model id at its endpoint's URL, else by the provider it was
    declared with (a gateway's URL names no provider)."""

    name: str
    model: str
    provider: str
    endpoint: ServedFrom


@runtime_checkable
class ReplayingModel(Protocol):
    """A model that replays a recorded thread (`ReplayModel`): a replayed call gets the
    decision the recording made on it, and steps past the recording go to a model that the
    runtime resolves by name."""

    def decision_for(
        self, call: ToolCall, asked: Sequence[Message]
    ) -> ApprovalDecidedEvent | None: ...
    def bind_fallback(self, resolve: Callable[[str], Model]) -> None: ...


def supports(model: object, capability: type) -> bool:
    """Whether `model` has `capability`, one of the protocols above (`DescribedModel`,
    `PricedModel`, `ReplayingModel`), or is a `Model` at all. Decided once per class: an
    `isinstance` against a protocol costs tens of microseconds, and a model is asked at
    every step.

    Examples:
        >>> from threadlab.models import OfflineModel
        >>> supports(OfflineModel(), Model), supports(OfflineModel(), PricedModel)
        (True, False)
    """
    key = (type(model), capability)
    known = _CAPABLE.get(key)
    if known is None:
        known = _CAPABLE[key] = isinstance(model, capability)
    return known


_CAPABLE: dict[tuple[type, type], bool] = {}
