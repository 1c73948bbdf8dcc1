"""Where a thread is cut, and what it held there: the one cut that a fork copies and a
snapshot shows.

A cut is a place in the store's one sequence of events (`StoredEvent.seq`, shared by every
thread of the store). At a message it is that message's `message_created` event; at a tool
call, the place of the last of that call's assistant message and the results of the calls
before it. What a thread held at a cut is read from its events up to it: its files (each
path's last write or deletion), its children (those created by then) and each child's status.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

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
    "open_calls",
    "running_at",
    "waiting_at",
]

CUT_BY = ("subagent_created", "file_written", "run_finished", "handoff", "thread_status")
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
        data = event.fields() if event.type == "subagent_created" else None
        if data is not None and isinstance(data.get("child_thread_id"), str):
            found.append((data["child_thread_id"], str(data.get("name", ""))))
    return found


def files_at(events: Sequence[StoredEvent], now: Sequence[FileRecord]) -> list[FileRecord]:
    """The thread's files as of the cut: each path's last write (or deletion) before it. A
    write recorded before writes named their content (a store from before forks) can only
    be taken as the file is now, if it still exists."""
    current = {f.path: f for f in now}
    files: dict[str, FileRecord | None] = {}
    for event in events:
        data = event.fields() if event.type == "file_written" else None
        if data is None or not isinstance(data.get("path"), str):
            continue
        path = data["path"]
        if data.get("deleted"):
            files[path] = None
        elif data.get("digest"):
            files[path] = FileRecord(path, data["size"], data["digest"], data["at"])
        else:
            files[path] = current.get(path)
    return [f for f in files.values() if f is not None]


def answering_at(
    events: Sequence[StoredEvent], now: str | None, recorded: bool, pending: Collection[str] = ()
) -> str | None:
    """The agent answering a thread at the cut: the last handoff by then, None (its own
    agent) before the first. A handoff takes effect when its turn ends: one made by a call
    of `pending` (the calls the cut leaves open, and those of their message) has not yet.
    `recorded`: whether its history holds any handoff; a thread stored before handoffs were
    recorded has none to read, and keeps `now`, the agent answering it now."""
    if not recorded:
        return now
    agent: str | None = None
    for event in events:
        data = event.fields() if event.type == "handoff" else None
        agreed = data is not None and isinstance(data.get("agent"), str)
        if agreed and data is not None and data.get("tool_call_id") not in pending:
            agent = data["agent"]
    return agent


def waiting_at(events: Sequence[StoredEvent]) -> bool:
    """Whether a thread's last run by the cut ended waiting (for a decision, before a step,
    on a child that paused), from its own events up to it. A run that started after it and
    had not ended by the cut went on from there: then it waits for nothing."""
    waiting = False
    for event in events:
        data = event.fields()
        if data is None or data.get("depth"):
            continue
        if event.type == "run_finished":
            waiting = data.get("status") == "waiting"
        elif event.type == "thread_status" and data.get("status") == "running":
            waiting = False
    return waiting


def running_at(events: Sequence[StoredEvent]) -> bool:
    """Whether a run of the thread was going at the cut: its last status by then."""
    statuses = [d for e in events if e.type == "thread_status" and (d := e.fields()) is not None]
    return bool(statuses) and statuses[-1].get("status") == "running"


def child_status_at(events: Sequence[StoredEvent], resumable: bool) -> ThreadStatus:
    """What a child's status was at the cut, from its own events up to it."""
    status: ThreadStatus = "idle"
    for event in events:
        data = event.fields() if event.type == "run_finished" else None
        if data is not None and not data.get("depth"):
            if data.get("status") == "interrupted":
                status = "terminated"
            elif data.get("status") == "completed":
                status = "idle" if resumable else "completed"
            else:
                status = "failed"
    return status


def open_calls(newest_first: Iterable[Message]) -> set[str]:
    """The calls of the assistant message a thread's history ends in (its messages given
    newest first, read only as far as needed), when some of them have no result yet (the
    rest of its turn is still to run); else none."""
    answered: set[str] = set()
    for message in newest_first:
        if message.depth:
            continue
        if message.role == "tool" and message.tool_call_id:
            answered.add(message.tool_call_id)
        elif message.role == "assistant":
            calls = {c.id for c in message.tool_calls}
            return calls if calls - answered else set()
        else:
            return set()
    return set()
