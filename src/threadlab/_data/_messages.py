"""The persisted messages of a thread."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._aliases import SideName

__all__ = [
    "MAX_NESTING",
    "CallKey",
    "Message",
    "Reasoning",
    "RequestEntry",
    "StepRequest",
    "ToolCall",
    "UnfinishedCause",
    "answers",
    "is_text",
    "nesting_depth",
    "new_id",
    "unanswered_calls",
    "unfinished_result",
    "unfinished_text",
]


# Ids come from a generator of our own, not `os.urandom`: ids are made several times per tool
# call and a system call each is a measurable part of one. Seeded from the OS, again in a
# forked child, and private, so a notebook's `random.seed(0)` cannot make ids repeat. An id is
# not a secret.
_IDS = random.Random()
os.register_at_fork(after_in_child=_IDS.seed)


def new_id(prefix: str) -> str:
    """A unique identifier with a readable prefix: 80 random bits."""
    return f"{prefix}_{_IDS.getrandbits(80):020x}"


class ToolCall(BaseModel):
    """One tool call of an assistant message.

    Examples:
        >>> ToolCall("call_1", "add", {"a": 1}).name
        'add'
    """

    model_config = ConfigDict(frozen=True)
    id: str
    """The call's id, as the model gave it (or one made up when it gave none)."""
    name: str
    """The tool called."""
    arguments: dict[str, Any] | str
    """The parsed argument object, or the raw text when the model sent malformed JSON."""

    def __init__(self, *args: Any, **data: Any) -> None:
        # tl.ToolCall(id, name, arguments) reads best positionally, like the record it mirrors.
        for key, value in zip(("id", "name", "arguments"), args, strict=False):
            data[key] = value
        super().__init__(**data)

    # Only for a call made in code: pydantic calls a model's own __init__ for every call it
    # validates inside a message too, which validated each one twice (a long thread's
    # history took a tenth longer to read).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


class Reasoning(BaseModel):
    """What a model thought before it answered, as its API returned it: readable text, and
    what the API needs back with the answer it preceded (a signature, redacted or encrypted
    content) — sent back only to the API that wrote it.

    Examples:
        >>> Reasoning(text="First, add.", api="anthropic", signature="sig").text
        'First, add.'
    """

    model_config = ConfigDict(frozen=True)
    text: str = ""
    """The thinking (or its summary) a person can read."""
    api: str = ""
    """The API that wrote it: "anthropic", "openai-responses" or "openai" (Chat Completions,
    whose servers take no reasoning back)."""
    signature: str | None = None
    """Anthropic: the signature of a `thinking` block."""
    redacted: str | None = None
    """Anthropic: the opaque data of a `redacted_thinking` block."""
    encrypted: str | None = None
    """Responses: the `encrypted_content` of a reasoning item (stateless mode)."""
    id: str | None = None
    """Responses: the reasoning item's id."""


class Message(BaseModel):
    """A message of a thread's history, as persisted."""

    model_config = ConfigDict(frozen=True)
    id: str = Field(default_factory=lambda: new_id("msg"))
    """The message's id."""
    role: Literal["system", "user", "assistant", "tool"]
    """Who speaks."""
    content: str | None = None
    """The text; for a tool message, the result (or the error message)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """An assistant message's tool calls, in the order the model returned them."""
    tool_call_id: str | None = None
    """A tool message's call."""
    name: str | None = None
    """A tool message's tool name."""
    tool_status: Literal["success", "error"] | None = None
    """A tool message's outcome."""
    attachments: tuple[str, ...] = ()
    """Paths of files that go with the message, valid in this thread."""
    depth: int = 0
    """0 for the top-level conversation; the caller's depth + 1 inside a prompt tool."""
    parent_id: str | None = None
    """Inside a prompt tool: the caller's assistant message."""
    parent_tool_call_id: str | None = None
    """Inside a prompt tool: the call that started the nested turn."""
    side: SideName | None = None
    """In a dual_ai thread, the side the message belongs to (messages to the session are
    side "a"'s); None elsewhere."""
    reasoning: tuple[Reasoning, ...] = ()
    """An assistant message's reasoning, in the order the model produced it."""
    usage: dict[str, int] | None = None
    """An assistant message's token usage, when the model reports it."""
    cost_usd: float | None = None
    """What the step that wrote an assistant message cost (US dollars, from known prices;
    0 for a model that runs here); None when the price is unknown."""
    provider: str | None = None
    """The provider that served an assistant message ("openai", "anthropic", "groq", ...;
    "threadlab" for a model that runs in this process)."""
    model: str | None = None
    """The model that wrote an assistant message (the provider's model id, or the model's
    name)."""
    response_id: str | None = None
    """The provider's id of the response an assistant message is."""
    subagent_id: str | None = None
    """On a message a child delivered to its parent: the child's reference."""
    request: StepRequest | None = None
    """On an assistant message: what its model step was sent (see `StepRequest`)."""
    created_at: float = Field(default_factory=time.time)
    """When it was created (seconds since the epoch)."""

    @property
    def unfinished(self) -> bool:
        """A tool result recorded because its call never finished (its run was stopped, or
        the process running it ended): not an error of the tool's."""
        return self.tool_status == "error" and self.content in _UNFINISHED.values()


class RequestEntry(BaseModel):
    """One message of a step's request: a stored message by id, or the message itself when
    the store does not hold it as it was sent (the system prompt, a hook's rewrite)."""

    model_config = ConfigDict(frozen=True)
    ref: str | None = None
    message: Message | None = None


class StepRequest(BaseModel):
    """What one model step was sent, stored with the assistant message it produced. Its
    messages are the list of the step it extends (`after`, an earlier assistant message of
    the same thread), cut to its first `keep`, then `add`: a step stores what is new, so the
    record of a long history stays linear in its length. `tools` None: the same as `after`'s.
    `tl.Thread.model_request` rebuilds the whole request."""

    model_config = ConfigDict(frozen=True)
    after: str | None = None
    keep: int = 0
    add: tuple[RequestEntry, ...] = ()
    tools: tuple[dict[str, Any], ...] | None = None
    tool_choice: str = "auto"
    parallel_tool_calls: bool = False
    parameters: dict[str, Any] | None = None
    """The model's request options (temperature, max_tokens, ...); None: as `after`'s."""


UnfinishedCause = Literal["cancelled", "owner_gone"]

# The two ways a call can be left without a result, told apart for whoever reads the history:
# its run was cancelled here, or the process running it died (found when the thread reopens).
_UNFINISHED: dict[UnfinishedCause, str] = {
    "cancelled": "interrupted: the run was stopped before this call finished",
    "owner_gone": "interrupted: the process running this call ended before it finished",
}


def unfinished_text(cause: UnfinishedCause) -> str:
    """The error text of a call that can never finish, for `cause`."""
    return _UNFINISHED[cause]


def unfinished_result(call: ToolCall, cause: UnfinishedCause, **placement: Any) -> Message:
    """The error result a tool call gets when it can never finish: every call keeps exactly
    one result, so the history stays valid. `placement` puts it where the call was (depth,
    parent links, side)."""
    return Message(
        role="tool",
        content=_UNFINISHED[cause],
        tool_call_id=call.id,
        name=call.name,
        tool_status="error",
        **placement,
    )


CallKey = tuple[str, str]
"""A tool call as one call of one message: (its assistant message's id, the call's id). A
model may repeat a call id in later replies (a local server numbering `call_0`, `call_1` in
each, a scripted model): the key still tells the calls apart."""


def answers(messages: Sequence[Message]) -> dict[CallKey, Message]:
    """The result of each answered tool call in `messages`, by call key. A tool message
    answers the nearest call before it with its id that is still open, so a repeated id
    pairs each result with its own call.

    Examples:
        >>> first = Message(id="m1", role="assistant", tool_calls=(ToolCall("c", "f", {}),))
        >>> again = Message(id="m2", role="assistant", tool_calls=(ToolCall("c", "f", {}),))
        >>> done = Message(role="tool", tool_call_id="c", content="ok")
        >>> sorted(answers([first, done, again]))
        [('m1', 'c')]
    """
    holders: dict[str, list[str]] = {}  # call id -> messages whose call with it is open
    found: dict[CallKey, Message] = {}
    for message in messages:
        if message.role == "assistant":
            for call in message.tool_calls:
                holders.setdefault(call.id, []).append(message.id)
        elif message.role == "tool" and message.tool_call_id is not None:
            open_in = holders.get(message.tool_call_id)
            if open_in:
                found.setdefault((open_in.pop(), message.tool_call_id), message)
    return found


def unanswered_calls(messages: Sequence[Message]) -> list[tuple[Message, ToolCall]]:
    """Each tool call in `messages` that no tool message answers, with the assistant message
    that made it, in order: what a repair closes and what a resumed run runs."""
    answered = answers(messages)
    return [
        (message, call)
        for message in messages
        if message.role == "assistant"
        for call in message.tool_calls
        if (message.id, call.id) not in answered
    ]


def is_text(value: object) -> bool:
    """Whether every string in `value` (text, or a JSON-like value) is valid Unicode text: a
    lone surrogate ("\\ud800") can be neither stored nor sent to a provider.

    Examples:
        >>> is_text({"path": "/a"}), is_text("a" + chr(0xD800))
        (True, False)
    """
    try:
        (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)).encode()
    except UnicodeEncodeError:
        return False
    return True


MAX_NESTING = 100
"""How deep a JSON value in a message may nest (arguments, results): deeper values cannot be
stored or sent back to a model, so they become error results that name this limit."""


def nesting_depth(value: Any, limit: int = MAX_NESTING) -> int:
    """How deep `value` nests (lists and dicts), counted without recursion; stops past
    `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth) for child in children)
    return deepest


Message.model_rebuild()
