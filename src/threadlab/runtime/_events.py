"""Typed thread events: what widgets, tests and `Thread.stream` consume.

Every event names its thread, the path of thread ids from the root, when it happened, and where
it sits in nested prompt-tool turns. Events are persisted with the messages, so a finished thread
can be replayed.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CustomEvent",
    "Event",
    "FileWrittenEvent",
    "MessageCreatedEvent",
    "RunFinishedEvent",
    "SubagentCreatedEvent",
    "TextDeltaEvent",
    "ThreadStatusEvent",
    "ToolCallDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
    "event_from_json",
]


class Event(BaseModel):
    """Base of every thread event."""

    model_config = ConfigDict(frozen=True)
    type: str
    thread_id: str
    thread_path: tuple[str, ...] = ()
    at: float = Field(default_factory=time.time)
    depth: int = 0
    parent_tool_call_id: str | None = None


class ThreadStatusEvent(Event):
    type: Literal["thread_status"] = "thread_status"
    status: str


class MessageCreatedEvent(Event):
    type: Literal["message_created"] = "message_created"
    message_id: str
    role: str


class TextDeltaEvent(Event):
    type: Literal["text_delta"] = "text_delta"
    delta: str


class ToolCallDeltaEvent(Event):
    type: Literal["tool_call_delta"] = "tool_call_delta"
    tool_call_id: str
    name: str
    delta: str


class ToolCallStartedEvent(Event):
    type: Literal["tool_call_started"] = "tool_call_started"
    tool_call_id: str
    name: str
    progress: str | None = None


class ToolCallFinishedEvent(Event):
    type: Literal["tool_call_finished"] = "tool_call_finished"
    tool_call_id: str
    name: str
    status: Literal["success", "error"]
    duration_ms: float


class SubagentCreatedEvent(Event):
    type: Literal["subagent_created"] = "subagent_created"
    child_thread_id: str
    name: str


class FileWrittenEvent(Event):
    type: Literal["file_written"] = "file_written"
    path: str
    size: int


class CustomEvent(Event):
    type: Literal["custom"] = "custom"
    event_type: str
    data: Any = None
    tool_call_id: str | None = None


class RunFinishedEvent(Event):
    type: Literal["run_finished"] = "run_finished"
    run_id: str
    status: str
    text: str | None = None
    error: str | None = None


_BY_TYPE: dict[str, type[Event]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        ThreadStatusEvent,
        MessageCreatedEvent,
        TextDeltaEvent,
        ToolCallDeltaEvent,
        ToolCallStartedEvent,
        ToolCallFinishedEvent,
        SubagentCreatedEvent,
        FileWrittenEvent,
        CustomEvent,
        RunFinishedEvent,
    )
}


def event_from_json(kind: str, data: str) -> Event:
    """Rebuild a persisted event as its own class."""
    return _BY_TYPE.get(kind, Event).model_validate_json(data)
