"""Where a thread is cut, and what it held there: the one cut that a fork copies and a
snapshot shows.

A cut is a place in the store's one sequence of events (`StoredEvent.seq`, shared by every
thread of the store). At a message it is that message's `message_created` event; at a tool
call, the place of the last of that call's assistant message and the results of the calls
before it. What a thread held at a cut is read from its events up to it: its files (each
path's last write or deletion), its children (those created by then) and each child's status.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .._data import Message, ThreadStatus, ToolCall
from .._errors import ThreadlabError
from ..store import FileRecord, Store, StoredEvent

__all__ = [
    "CUT_BY",
    "answering_at",
    "call_place",
    "child_status_at",
    "children_at",
    "files_at",
    "find_point",
    "waiting_at",
]

CUT_BY = ("subagent_created", "file_written", "run_finished", "handoff")
"""The events a cut reads to know a thread's files, children, status and answering agent."""


def find_point(store: Store, thread_id: str, at: str) -> tuple[Message, ToolCall | None, int]:
    """The message of `thread_id` whose id is `at`, or the assistant message that holds the
    tool call `at` (and that call); with the message's index among the thread's messages.
    Only the messages that mention `at` are read. A `ThreadlabError` when it is neither."""
    messages = {
        index: Message.model_validate_json(row.data)
        for index, row in store.messages_naming(thread_id, at)
    }
    for index, found in messages.items():
        if found.id == at:
            return found, None, index
    for index, holder in messages.items():
        call = next((c for c in holder.tool_calls if c.id == at), None)
        if call is not None:
            return holder, call, index
    raise ThreadlabError(f"{at!r} is neither a message nor a tool call of thread {thread_id}")


def call_place(store: Store, thread_id: str, holder: Message, call: ToolCall, index: int) -> int:
    """The cut at `call` of assistant message `holder` (the thread's `index`-th): after that
    message and the results of the calls before it, which come with it."""
    last = index
    for earlier in holder.tool_calls[: holder.tool_calls.index(call)]:
        named = f'"tool_call_id":"{earlier.id}"'
        for later, row in store.messages_naming(thread_id, earlier.id):
            if later > index and named in row.data:
                last = max(last, later)
    return store.message_place(thread_id, last)


def children_at(events: Sequence[StoredEvent]) -> list[tuple[str, str]]:
    """The children created in `events`, in order: (thread id, the name its parent gave)."""
    found = []
    for event in events:
        if event.type == "subagent_created":
            data = json.loads(event.data)
            found.append((data["child_thread_id"], data.get("name", "")))
    return found


def files_at(events: Sequence[StoredEvent], now: Sequence[FileRecord]) -> list[FileRecord]:
    """The thread's files as of the cut: each path's last write (or deletion) before it. A
    write recorded before writes named their content (a store from before forks) can only
    be taken as the file is now, if it still exists."""
    current = {f.path: f for f in now}
    files: dict[str, FileRecord | None] = {}
    for event in events:
        if event.type != "file_written":
            continue
        data = json.loads(event.data)
        path = data["path"]
        if data.get("deleted"):
            files[path] = None
        elif data.get("digest"):
            files[path] = FileRecord(path, data["size"], data["digest"], data["at"])
        else:
            files[path] = current.get(path)
    return [f for f in files.values() if f is not None]


def answering_at(events: Sequence[StoredEvent], now: str | None, recorded: bool) -> str | None:
    """The agent answering a thread at the cut: the last handoff by then, None (its own
    agent) before the first. `recorded`: whether its history holds any handoff; a thread
    stored before handoffs were recorded has none to read, and keeps `now`, the agent
    answering it now."""
    if not recorded:
        return now
    handoffs = [e for e in events if e.type == "handoff"]
    if not handoffs:
        return None
    agent = json.loads(handoffs[-1].data).get("agent")
    return agent if isinstance(agent, str) else now


def waiting_at(events: Sequence[StoredEvent]) -> bool:
    """Whether a thread's last run by the cut ended waiting (for a decision, before a step,
    on a child that paused), from its own events up to it."""
    waiting = False
    for event in events:
        data = json.loads(event.data)
        if event.type == "run_finished" and not data.get("depth"):
            waiting = data["status"] == "waiting"
    return waiting


def child_status_at(events: Sequence[StoredEvent], resumable: bool) -> ThreadStatus:
    """What a child's status was at the cut, from its own events up to it."""
    status: ThreadStatus = "idle"
    for event in events:
        data = json.loads(event.data)
        if event.type == "run_finished" and not data.get("depth"):
            if data["status"] == "interrupted":
                status = "terminated"
            elif data["status"] == "completed":
                status = "idle" if resumable else "completed"
            else:
                status = "failed"
    return status
