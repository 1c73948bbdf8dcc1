"""The persisted message records of a thread."""

from __future__ import annotations

import os
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Message", "ToolCall", "new_id", "unfinished_result"]


def new_id(prefix: str) -> str:
    """A unique, sortable-enough identifier with a readable prefix."""
    return f"{prefix}_{os.urandom(10).hex()}"


class ToolCall(BaseModel):
    """One tool call of an assistant message.

    `arguments` is the parsed object, or the raw text when the model sent malformed JSON.
    """

    model_config = ConfigDict(frozen=True)
    id: str
    name: str
    arguments: dict[str, Any] | str

    def __init__(self, *args: Any, **data: Any) -> None:
        # tl.ToolCall(id, name, arguments) reads best positionally, like the record it mirrors.
        for key, value in zip(("id", "name", "arguments"), args, strict=False):
            data[key] = value
        super().__init__(**data)


class Message(BaseModel):
    """A message of a thread's history, as persisted."""

    model_config = ConfigDict(frozen=True)
    id: str = Field(default_factory=lambda: new_id("msg"))
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    tool_status: Literal["success", "error"] | None = None
    attachments: tuple[str, ...] = ()
    depth: int = 0
    parent_id: str | None = None
    parent_tool_call_id: str | None = None
    side: Literal["a", "b"] | None = None
    usage: dict[str, int] | None = None
    # Set on a message a child thread delivered to its parent (its reference).
    subagent_id: str | None = None
    created_at: float = Field(default_factory=time.time)


def unfinished_result(call: ToolCall, reason: str, **placement: Any) -> Message:
    """The error result a tool call gets when it can never finish (its run was cancelled, or
    its process died): every call keeps exactly one result, so the history stays valid."""
    return Message(
        role="tool",
        content=reason,
        tool_call_id=call.id,
        name=call.name,
        tool_status="error",
        **placement,
    )
