"""Typed thread events: what views, tests and `Thread.stream` consume.

Every event names its thread, the path of thread ids from the root, when it happened, and where
it sits in nested prompt-tool turns. Events are persisted with the messages, so a finished thread
can be replayed.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, Required, TypedDict

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ._runs import RunStatus, StopReason

__all__ = [
    "ApprovalDecidedEvent",
    "ApprovalRequestedEvent",
    "CustomEvent",
    "Event",
    "EventOrigin",
    "FileWrittenEvent",
    "MessageCreatedEvent",
    "RunFinishedEvent",
    "SubagentCreatedEvent",
    "TextDeltaEvent",
    "ThreadEvent",
    "ThreadStatusEvent",
    "ToolCallDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
    "event_from_json",
]


class EventOrigin(TypedDict, total=False):
    """Where an event happens: the fields the runtime gives every event of a thread (or of a
    nested turn in it), passed on as keyword arguments."""

    thread_id: Required[str]
    thread_path: tuple[str, ...]
    depth: int
    parent_tool_call_id: str | None


class Event(BaseModel):
    """Base of every thread event: the fields all of them carry."""

    model_config = ConfigDict(frozen=True)
    type: str
    """Which event this is; each subclass fixes it to one literal."""
    thread_id: str
    """The thread the event happened in."""
    thread_path: tuple[str, ...] = ()
    """Thread ids from the root thread down to this one."""
    at: float = Field(default_factory=time.time)
    """When it happened (seconds since the epoch)."""
    depth: int = 0
    """0 at the top level of the thread; 1 and more inside nested prompt-tool turns."""
    parent_tool_call_id: str | None = None
    """Inside a nested turn: the tool call that started it."""


class ThreadStatusEvent(Event):
    """The thread started or stopped running."""

    type: Literal["thread_status"] = "thread_status"
    status: Literal["queued", "running", "idle"]
    """"running" when a run starts, "idle" when it ends; "queued" when a child is left in
    the store for the runtime's engine (`tl.Runtime(engine=...)`)."""


class MessageCreatedEvent(Event):
    """A message was persisted (read it with `thread.find_message(message_id)`)."""

    type: Literal["message_created"] = "message_created"
    message_id: str
    """The new message's id."""
    role: Literal["system", "user", "assistant", "tool"]
    """Its role."""


class TextDeltaEvent(Event):
    """A piece of assistant text, as the model streams it."""

    type: Literal["text_delta"] = "text_delta"
    delta: str
    """The text of this chunk."""


class ToolCallDeltaEvent(Event):
    """A piece of a tool call's arguments, as the model streams them."""

    type: Literal["tool_call_delta"] = "tool_call_delta"
    tool_call_id: str
    """The call the piece belongs to."""
    name: str
    """The tool's name."""
    delta: str
    """The raw argument text of this chunk."""


class ToolCallStartedEvent(Event):
    """A tool call is known: fired exactly once per call, as soon as its progress argument is
    complete (or, without one, as soon as the call's name appears in the stream)."""

    type: Literal["tool_call_started"] = "tool_call_started"
    tool_call_id: str
    """The call's id."""
    name: str
    """The tool's name."""
    progress: str | None = None
    """The value of the tool's progress argument; None when it has none or it never came."""


class ToolCallFinishedEvent(Event):
    """A tool call has its result (persisted with the event)."""

    type: Literal["tool_call_finished"] = "tool_call_finished"
    tool_call_id: str
    """The call's id."""
    name: str
    """The tool's name."""
    status: Literal["success", "error"]
    """The result's status."""
    duration_ms: float
    """How long the call ran, in milliseconds."""
    traceback: str | None = None
    """When the tool raised: its traceback, trimmed to the tool's own frames and redacted.
    For the person reading the trace; the model only reads the one-line error message."""


class SubagentCreatedEvent(Event):
    """A child thread was created."""

    type: Literal["subagent_created"] = "subagent_created"
    child_thread_id: str
    """The child's thread id (its reference)."""
    name: str
    """The instance label the parent gave it."""
    tool_call_id: str | None = None
    """The call that created it (None: an immediate subagent, made as its parent's run began,
    or a store from before this was kept)."""


class FileWrittenEvent(Event):
    """A file of the thread's filesystem was written (or copied in)."""

    type: Literal["file_written"] = "file_written"
    path: str
    """The file's path in the thread."""
    size: int
    """Its size in bytes."""
    digest: str | None = None
    """The SHA-256 of its content (how a fork finds the file as it was at any point)."""
    deleted: bool = False
    """True when the file was deleted: the path no longer exists."""


APP_EVENT = "mcp_app"
"""The custom event a call of a tool with a UI (an MCP App) keeps its app in: the page
(`html`), its address (`uri`) and the origins it may reach (`csp`), or why it could not be
read (`error`)."""


class CustomEvent(Event):
    """An event a tool or hook emitted with `state.emit(event_type, data)`."""

    type: Literal["custom"] = "custom"
    event_type: str
    """The tool's own name for the event."""
    data: Any = None
    """Any JSON value."""
    tool_call_id: str | None = None
    """The call that emitted it, or None outside a tool call."""


class ApprovalRequestedEvent(Event):
    """A tool call needs a decision before it runs (its tool's `approval`), and waits for it."""

    type: Literal["approval_requested"] = "approval_requested"
    tool_call_id: str
    """The call waiting."""
    name: str
    """Its tool."""
    arguments: Any = None
    """The arguments it would run with."""
    message_id: str | None = None
    """The assistant message that made the call: a decision is bound to this call of this
    message, so a later call that repeats the id asks again (None in stores from before)."""
    progress: str | None = None
    """The call's progress-argument value ("deleting old.log"), when its tool has one."""


class ApprovalDecidedEvent(Event):
    """A decision on a call that needed one: it runs (perhaps with edited arguments) or gets
    the error result "rejected: <reason>"."""

    type: Literal["approval_decided"] = "approval_decided"
    tool_call_id: str
    """The call decided."""
    approved: bool
    """Whether it runs."""
    edited: bool = False
    """Whether it runs with other arguments than the model's."""
    arguments: Any = None
    """The arguments it runs with, when edited."""
    reason: str | None = None
    """Why it was rejected (or why the approver could not decide)."""
    by: Literal["approver", "api", "view", "mcp"] = "api"
    """Who decided: the runtime's approver, `thread.approve`/`reject`, a view's buttons, or
    the person an MCP client asked (a served call's elicitation)."""
    message_id: str | None = None
    """The assistant message whose call this decides (see `ApprovalRequestedEvent`)."""


class HandoffEvent(Event):
    """The thread is handed to another agent (an ai_human agent called as a tool): it answers
    from the next turn on. Written by the runtime only, with the call's result."""

    type: Literal["handoff"] = "handoff"
    agent: str
    """The agent that answers the thread from here on."""
    tool_call_id: str | None = None
    """The call that handed it over."""


class RunFinishedEvent(Event):
    """A run ended: the last event of `thread.stream`."""

    type: Literal["run_finished"] = "run_finished"
    run_id: str
    """The run's id."""
    status: RunStatus
    """How it ended (see `Run.status`)."""
    text: str | None = None
    """The last assistant text of the turn."""
    error: str | None = None
    """Why it did not complete, if it did not."""
    stop_reason: StopReason | None = None
    """Why it ended, as a value (see `Run.stop_reason`)."""


ThreadEvent = Annotated[
    ThreadStatusEvent
    | MessageCreatedEvent
    | TextDeltaEvent
    | ToolCallDeltaEvent
    | ToolCallStartedEvent
    | ToolCallFinishedEvent
    | SubagentCreatedEvent
    | FileWrittenEvent
    | CustomEvent
    | ApprovalRequestedEvent
    | ApprovalDecidedEvent
    | HandoffEvent
    | RunFinishedEvent,
    Field(discriminator="type"),
]
"""Any one thread event; `event.type` tells which (and narrows the type for a type checker)."""

_ADAPTER: TypeAdapter[ThreadEvent] = TypeAdapter(ThreadEvent)


def event_from_json(data: str) -> ThreadEvent:
    """Rebuild a persisted event as its own class."""
    return _ADAPTER.validate_json(data)
