"""Rendering a prompt's system text, and assembling the messages a model is sent (its input)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import overload

from .._data import Message
from .._errors import DefinitionError
from ..definitions import Env, Include, PromptDefinition, Registry, Text

__all__ = ["MessageWindow", "earlier_messages", "render_system", "side_view"]


class MessageWindow(Sequence[Message]):
    """A read-only snapshot of the context without copying the history.

    The history only ever grows, so `head + history[start:stop]` fixed at creation stays the
    same sequence even as messages are appended later; building it is O(1) per step instead of
    copying thousands of messages in a long run.
    """

    __slots__ = ("_head", "_history", "_start", "_stop")

    def __init__(self, head: Sequence[Message], history: list[Message], start: int) -> None:
        self._head = head
        self._history = history
        self._start = start
        self._stop = len(history)

    def __len__(self) -> int:
        return len(self._head) + self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> list[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | list[Message]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("message index out of range")
        head = len(self._head)
        if index < head:
            return self._head[index]
        return self._history[self._start + index - head]

    def __iter__(self) -> Iterator[Message]:
        # Slicing and chaining run in C: a model that copies its context (list(messages))
        # pays a memory copy, not a Python-level loop, per step.
        return itertools.chain(self._head, self._history[self._start : self._stop])

    def __repr__(self) -> str:
        return f"MessageWindow({list(self)!r})"


def render_system(
    prompt: PromptDefinition,
    registry: Registry,
    env_value: Callable[[str], str | None],
    env_kind: Callable[[str], str],
    _seen: tuple[str, ...] = (),
) -> str:
    """The system text: Text parts verbatim, Include parts rendered recursively, Env parts
    replaced by their value — except secrets, which are only ever for tools."""
    if prompt.name in _seen:
        cycle = " -> ".join((*_seen, prompt.name))
        raise DefinitionError(f"prompt includes form a cycle: {cycle}")
    out: list[str] = []
    for part in prompt.prompt:
        if isinstance(part, Text):
            out.append(part.content)
        elif isinstance(part, Include):
            included = registry.prompt(part.prompt)
            if included is None:
                raise DefinitionError(
                    f"prompt {prompt.name!r} includes prompt {part.prompt!r}, which is not defined"
                )
            out.append(
                render_system(included, registry, env_value, env_kind, (*_seen, prompt.name))
            )
        elif isinstance(part, Env):
            if env_kind(part.name) == "secret":
                out.append(f"[secret:{part.name}]")
            else:
                out.append(env_value(part.name) or "")
    return "".join(out)


def earlier_messages(
    history: Sequence[Message], include_chat: bool, include_past_tools: bool
) -> list[Message]:
    """What a prompt sees of turns before the current one, per its history flags."""
    if not include_chat and not include_past_tools:
        return []
    out: list[Message] = []
    for message in history:
        if message.role == "user":
            if include_chat:
                out.append(message)
        elif message.role == "assistant":
            if include_chat and include_past_tools:
                out.append(message)
            elif include_chat and message.content:
                out.append(message.model_copy(update={"tool_calls": ()}))
            elif include_past_tools and message.tool_calls:
                out.append(message.model_copy(update={"content": None}))
        elif message.role == "tool" and include_past_tools:
            out.append(message)
    return out


def side_view(history: Sequence[Message], start: int, label: str) -> list[Message]:
    """A dual_ai side's context: its own messages as they are; the other side's answers as
    user messages; the other side's tool calls and results not at all. Messages from outside
    the session (the parent's, side None) are addressed to side A."""
    out: list[Message] = []
    for index in range(start, len(history)):
        message = history[index]
        if message.side == label:
            out.append(message)
        elif message.side is None:
            if label == "a":
                out.append(message)
        elif message.role == "assistant" and message.content:
            out.append(Message(id=message.id, role="user", content=message.content))
    return out
