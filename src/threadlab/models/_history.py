"""The conversation as a provider will accept it.

Every provider API rejects a tool call that has no result right after it, and a result whose
call is not in the assistant message before it. The runtime keeps every call answered, but
hooks (`filter_messages`, `prefilter_llm_history`) may cut the context anywhere; so before a
request leaves, calls without a result and results without a call are dropped, and each
result is placed right after its call's message, in the order of the calls. A call id the
model repeats in a later reply pairs with the result that follows that reply (`answers`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .._data import Message, ToolCall, answers

__all__ = ["arguments_text", "message_text", "paired", "system_text"]


def paired(messages: Sequence[Message]) -> list[Message]:
    """`messages` with every tool call answered exactly once, results right after their call.

    Examples:
        >>> call = ToolCall("c1", "add", {"a": 1})
        >>> lone = Message(role="assistant", tool_calls=(call,))
        >>> [m.role for m in paired([Message(role="user", content="hi"), lone])]
        ['user']
    """
    results = answers(messages)
    out: list[Message] = []
    for message in messages:
        if message.role == "tool":
            continue  # placed after its call below, or dropped as an orphan
        if message.role != "assistant" or not message.tool_calls:
            out.append(message)
            continue
        keys = [(message.id, c.id) for c in message.tool_calls]
        answered = tuple(
            c for c, key in zip(message.tool_calls, keys, strict=True) if key in results
        )
        if answered != message.tool_calls:
            if not answered and not message.content:
                continue
            message = message.model_copy(update={"tool_calls": answered})
        out.append(message)
        # A call id given twice in one message is answered (and sent) once.
        out.extend(results.pop(key) for key in keys if key in results)
    return out


def arguments_text(call: ToolCall) -> str:
    """The call's arguments as the JSON text a provider expects back (raw text, as the model
    sent it, when it was not a JSON object)."""
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))


def message_text(message: Message) -> str:
    """A message's text as a model reads it: files that come with it are named after it (the
    model reaches them with the thread's file tools)."""
    text = message.content or ""
    if message.attachments:
        note = "Attached files: " + ", ".join(message.attachments)
        text = f"{text}\n\n{note}" if text else note
    return text


def system_text(messages: Sequence[Message]) -> str:
    """The system messages' text, for APIs that take the system prompt apart."""
    return "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
