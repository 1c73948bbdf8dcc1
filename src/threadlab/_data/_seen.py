"""What a model step saw, rebuilt from the stored `StepRequest`s: the messages it was
sent (system prompt included), the tools on offer and how they could be called."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._messages import Message

__all__ = ["RecentRequests", "SeenRequest", "rebuild_request"]


@dataclass(frozen=True)
class SeenRequest:
    """One model step's request, as sent (content as stored: redacted)."""

    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """Each tool as offered: name, description, parameters (JSON Schema)."""
    tool_choice: str = "auto"
    parallel_tool_calls: bool = False
    parameters: dict[str, Any] = field(default_factory=dict)
    """The model's request options (temperature, max_tokens, ...)."""

    @property
    def system(self) -> str:
        """The system instructions."""
        return "\n\n".join(m.content or "" for m in self.messages if m.role == "system")


class RecentRequests(dict[str, SeenRequest]):
    """A cache for `rebuild_request` that keeps only the steps rebuilt last: asked step by
    step in order (a player, a narration), each step is rebuilt from the one before it, and
    a long thread's requests (each holding all the messages sent) are not all kept at once."""

    def __init__(self, keep: int = 8) -> None:
        super().__init__()
        self.keep = keep

    def __setitem__(self, key: str, value: SeenRequest) -> None:
        super().__setitem__(key, value)
        while len(self) > self.keep:
            del self[next(iter(self))]


def rebuild_request(
    message_id: str,
    find: Callable[[str], Message | None],
    cache: dict[str, SeenRequest] | None = None,
    *,
    messages: bool = True,
) -> SeenRequest | None:
    """The request of the step that wrote assistant message `message_id` (None: none is on
    record); `find` reads a stored message by id; `cache` keeps what was rebuilt (rebuilding
    every step of a thread then costs each step once). Without `messages`, only its tools,
    choices and parameters: each step's messages are a copy of all those before it, and a
    reader of the request's shape (a trace without content) need not pay for them; a `cache`
    must then be kept for such requests alone."""
    shape_only = not messages
    cache = {} if cache is None else cache
    # Back along `after` to a step already rebuilt (or the first), then forward: a long
    # thread's chain is as long as its steps, deeper than recursion allows.
    chain: list[tuple[str, Message]] = []
    walked: set[str] = set()  # a damaged row may name a step after it: no loop round it
    at: str | None = message_id
    while at is not None and at not in cache and at not in walked:
        message = find(at)
        if message is None or message.request is None:
            if not chain:
                return None
            break
        walked.add(at)
        chain.append((at, message))
        at = message.request.after
    before = cache.get(at) if at is not None else None
    for step_id, message in reversed(chain):
        record = message.request
        assert record is not None
        sent_messages: list[Message] = []
        if not shape_only:
            sent_messages = list(before.messages[: record.keep]) if before is not None else []
            for entry in record.add:
                sent = entry.message if entry.message is not None else find(entry.ref or "")
                if sent is not None:
                    sent_messages.append(sent)
        tools = list(record.tools) if record.tools is not None else before.tools if before else []
        parameters = (
            dict(record.parameters)
            if record.parameters is not None
            else before.parameters
            if before
            else {}
        )
        before = SeenRequest(
            sent_messages, tools, record.tool_choice, record.parallel_tool_calls, parameters
        )
        cache[step_id] = before
    return cache.get(message_id)
