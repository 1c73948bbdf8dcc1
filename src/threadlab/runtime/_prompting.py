"""Rendering a prompt's system text, and assembling the context a model sees."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._errors import DefinitionError
from ._definitions import PromptDefinition
from ._messages import Message
from ._registry import Registry
from ._values import Env, Include, Text

__all__ = ["earlier_context", "render_system"]


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


def earlier_context(
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
