"""What a tool asks its caller, made ready to leave the process: the message and form of
`state.elicit`, checked and redacted; the messages of `state.sample` as a `SamplingRequest`
(user and assistant text, the system messages as its system prompt), redacted, with its
output limit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._data import Message
from .._errors import ElicitationError, SamplingError
from ._forms import check_form
from ._redaction import Redactor

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "FormAnswer",
    "SamplingRequest",
    "form_request",
    "sampling_request",
]

DEFAULT_MAX_TOKENS = 1024
"""A sampling request's output limit when the tool gives none (MCP requires one)."""

FormAnswer = tuple[Literal["accept", "decline", "cancel"], dict[str, Any]]
"""What the person did with a form, and the fields they gave when they accepted it."""


@dataclass(frozen=True)
class SamplingRequest:
    """What `state.sample` asks the caller's model: user and assistant turns of text, an
    optional system prompt, and the most it may write."""

    messages: tuple[Message, ...]
    system: str | None
    max_tokens: int


def form_request(message: Any, schema: Any, redactor: Redactor) -> tuple[str, dict[str, Any]]:
    """The message and schema of a form as they may leave the process: checked, redacted."""
    if not isinstance(message, str) or not message.strip():
        raise ElicitationError(f"a form needs a message for the person, got {message!r}")
    form = check_form(schema)
    return redactor.text(message), redactor.value(form)


def sampling_request(
    messages: str | Sequence[Message], max_tokens: int | None, redactor: Redactor
) -> SamplingRequest:
    """`state.sample`'s arguments as a request that may leave the process (`SamplingError`
    naming what cannot be sent)."""
    if max_tokens is None:
        max_tokens = DEFAULT_MAX_TOKENS
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise SamplingError(f"max_tokens is a positive whole number, got {max_tokens!r}")
    if isinstance(messages, str):
        messages = [Message(role="user", content=messages)]
    system: list[str] = []
    turns: list[Message] = []
    for n, message in enumerate(messages):
        if not isinstance(message, Message):
            raise SamplingError(
                f"message {n} is a {type(message).__name__}; give a str or tl.Message objects"
            )
        if message.role == "tool" or message.tool_calls or message.attachments:
            raise SamplingError(
                f"message {n} is not plain text ({_what(message)}): a sampling request carries"
                " the text of user and assistant turns, and a system prompt"
            )
        text = redactor.text(message.content or "")
        if message.role == "system":
            system.append(text)
        else:
            turns.append(Message(role=message.role, content=text))
    if not turns:
        raise SamplingError("a sampling request needs a user or assistant message")
    return SamplingRequest(tuple(turns), "\n\n".join(system) or None, max_tokens)


def _what(message: Message) -> str:
    if message.role == "tool":
        return "a tool result"
    return "tool calls" if message.tool_calls else "attachments"
