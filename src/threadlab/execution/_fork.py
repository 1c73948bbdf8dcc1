"""Forking a thread: a new thread (a branch) that holds the history up to a point, with the
env, files and children it had there, and then goes its own way. The original never changes.

The point is a place in the store's one sequence of events (`StoredEvent.seq`, shared by
every thread of the store): the `message_created` event of the last message the branch keeps.
A fork at a message keeps every message up to and including it; a fork at a tool call keeps
that call's assistant message and the results of the calls before it. Everything else is cut
at the same place: the thread's other events, its files (each path's last write or deletion
at or before it), and its children — those created by then, each forked at the very same
place, so a child that went on working after it is seen as it was.

Each thread of the branch has a new id, and every mention of the original's ids (events,
messages, a child's reference in a result) names the copy instead; the copied messages keep
their ids and tool calls theirs (they are the same messages, and a comparison of the two
threads pairs them by id). File contents are shared, never copied: files are
content-addressed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._data import (
    ForkPoint,
    Message,
    ThreadMeta,
    ThreadStatusEvent,
    ToolCall,
    ToolCallFinishedEvent,
    ToolResult,
    new_id,
)
from .._errors import ThreadBusyError, ThreadlabError, ThreadNotFoundError
from ..definitions import Registry
from ..store import Store, StoredEvent, ThreadRecord
from ..threads import Redactor, RunLeases, ThreadContext
from ._cut import (
    CUT_BY,
    answering_at,
    call_place,
    child_status_at,
    children_at,
    files_at,
    find_point,
    open_calls,
    running_at,
    waiting_at,
)
from ._tool_call import result_message

__all__ = ["ForkCut", "fork_point", "fork_tree", "give_result", "given_result"]


@dataclass(frozen=True)
class ForkCut:
    """Where and how a branch is cut from its thread (see `fork_point`)."""

    seq: int
    """The store's event sequence number the branch is cut at."""
    call: ToolCall | None = None
    """With a fork at a tool call: that call (open in the branch, unless given a result)."""
    message_id: str | None = None
    """With a fork at a message: that message."""
    arguments: Mapping[str, Any] | None = None
    """With a fork at a tool call: the arguments its copy carries instead."""
    text: str | None = None
    """With a fork at a user message: the text its copy carries instead."""


def fork_point(
    store: Store,
    leases: RunLeases,
    registry: Registry,
    thread_id: str,
    at: str,
    *,
    arguments: Mapping[str, Any] | None,
    message: str | None,
    with_result: bool,
) -> ForkCut:
    """Where a fork of `thread_id` at `at` cuts, after checking that every option fits; a
    `ThreadlabError` naming what does not, with nothing written."""
    if store.get_thread(thread_id) is None:
        raise ThreadNotFoundError(f"no thread {thread_id!r} in this store")
    if leases.held_now(thread_id):
        raise ThreadBusyError(f"thread {thread_id} is running: fork it once its run has ended")
    found, call, index = find_point(store, thread_id, at)
    if call is None:
        place = store.message_place(thread_id, index)
        return _at_message(found, place, arguments, message, with_result)
    if message is not None:
        raise ThreadlabError("message= rewrites a user message: give that message's id")
    return _at_call(store, thread_id, found, call, index, registry, arguments, with_result)


def _at_message(
    found: Message,
    place: int,
    arguments: Mapping[str, Any] | None,
    message: str | None,
    with_result: bool,
) -> ForkCut:
    if found.depth:
        raise ThreadlabError(
            f"message {found.id} is inside a prompt tool's turn: fork at a top-level message"
        )
    if with_result or arguments is not None:
        raise ThreadlabError("result= and arguments= change a tool call: give the call's id")
    if message is not None and found.role != "user":
        raise ThreadlabError(f"message= rewrites a user message; {found.id} is {found.role}")
    return ForkCut(place, message_id=found.id, text=message)


def _at_call(
    store: Store,
    thread_id: str,
    holder: Message,
    call: ToolCall,
    index: int,
    registry: Registry,
    arguments: Mapping[str, Any] | None,
    with_result: bool,
) -> ForkCut:
    if holder.depth:
        raise ThreadlabError(
            f"call {call.id} is inside a prompt tool's turn: fork at a top-level call"
        )
    if with_result and arguments is not None:
        raise ThreadlabError("give result= or arguments=, not both")
    if arguments is not None:
        arguments = _checked(registry, call.name, arguments)
    place = call_place(store, thread_id, holder, call, index)
    return ForkCut(place, call=call, arguments=arguments)


def _checked(registry: Registry, name: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    if registry.tool(name) is None:
        raise ThreadlabError(
            f"cannot check arguments for {name!r}: no function tool of that name is defined"
        )
    problems = registry.check_arguments(name, dict(arguments))
    if problems:
        listed = "\n".join(f"- {p}" for p in problems)
        raise ThreadlabError(f"invalid arguments for tool {name!r}:\n{listed}")
    return dict(arguments)


def fork_tree(store: Store, thread_id: str, cut: ForkCut, at: str) -> str:
    """Write the branch of `thread_id` (and of its children) at `cut`, in one transaction;
    the branch's id. The branch is a root thread whose metadata names where it came from."""
    ids: dict[str, str] = {}
    with store.transaction():
        _copy(store, thread_id, cut, None, ids, ForkPoint(thread_id, at))
    return ids[thread_id]


def _copy(
    store: Store,
    thread_id: str,
    cut: ForkCut,
    parent_id: str | None,
    ids: dict[str, str],
    forked_from: ForkPoint,
    lineage: tuple[str, ...] = (),
) -> None:
    """Copy `thread_id` (whose ancestors in the original are `lineage`) and its children."""
    record = store.get_thread(thread_id)
    assert record is not None
    branch = ids.setdefault(thread_id, new_id("thr"))
    events = list(store.iter_events(thread_id, types=CUT_BY, until=cut.seq))
    children = [child for child, _ in children_at(events)]
    for child in children:
        ids.setdefault(child, new_id("thr"))
    remap = _remapper(ids)
    meta = ThreadMeta.read(remap(record.metadata or "{}")) or ThreadMeta()
    waiting = waiting_at(events)
    meta = meta.model_copy(
        update={
            "forked_from": ForkPoint(thread_id, forked_from.at),  # the original's id, as it is
            "status": child_status_at(events, meta.resumable) if parent_id is not None else "idle",
            "interrupted": False,
            # What the thread was doing by the cut, not what the original does now: a branch
            # cut before the original came to wait for a decision waits for nothing.
            "waiting": waiting,
            "waiting_on": meta.waiting_on if waiting else {},
        }
    )
    store.add_thread(
        ThreadRecord(branch, parent_id, record.target, time.time(), meta.dumps(), record.member)
    )
    # Its own id and its ancestors' are in every event (thread_path); its children's only in
    # the few records that name them.
    path = [(old, ids[old]) for old in (*lineage, thread_id)]
    store.copy_history(thread_id, branch, cut.seq, path, [(c, ids[c]) for c in children])
    if running_at(events):
        _end_a_run_cut_short(store, branch, [new for _, new in path])
    if parent_id is None and (cut.text is not None or cut.arguments is not None):
        for row in store.list_messages(branch):
            changed = _changed(row.data, cut)
            if changed is not row.data:
                store.update_message(row.id, changed)
    answering = _answering_at_cut(store, thread_id, branch, events, meta.answering_agent)
    if answering != meta.answering_agent:
        meta = meta.model_copy(update={"answering_agent": answering})
        store.update_thread_metadata(branch, meta.dumps())
    # The env as it was at the cut: a value the original set after it is not the branch's.
    for name, (kind, value) in store.get_env(thread_id, before=cut.seq).items():
        store.set_env(branch, name, kind, value)
    for file in files_at(events, store.list_files(thread_id, "/")):
        store.put_file(branch, file)
    for child in children:
        _copy(store, child, cut, branch, ids, forked_from, (*lineage, thread_id))


def _answering_at_cut(
    store: Store, thread_id: str, branch: str, events: list[StoredEvent], now: str | None
) -> str | None:
    """The agent answering the branch: the one at the cut. A handoff whose turn the cut
    leaves open takes effect when the branch runs that turn on (its other calls run as the
    agent that made them). A thread never handed over (the most) costs no read."""
    if any(e.type == "handoff" for e in events):
        rows = store.list_messages(branch)
        pending = open_calls(Message.model_validate_json(row.data) for row in reversed(rows))
        return answering_at(events, now, True, pending)
    if now is None:
        return None
    # Handed over after the cut, or stored before handoffs were recorded (keep it then).
    recorded = next(iter(store.iter_events(thread_id, types=("handoff",))), None) is not None
    return answering_at(events, now, recorded)


def _end_a_run_cut_short(store: Store, branch: str, branch_path: list[str]) -> None:
    """A cut inside a run leaves the branch's copy of that run without its end: the branch
    is not running, so its history says the run stopped there (at the time of the fork).
    Else the branch's own first run would read as that run going on, and its first step as
    starting when the original's run did."""
    idle = ThreadStatusEvent(status="idle", thread_id=branch, thread_path=tuple(branch_path))
    store.add_events([StoredEvent(branch, idle.type, idle.model_dump_json())])


def _remapper(ids: Mapping[str, str]) -> Callable[[str], str]:
    """Text with each thread id of the tree replaced by its copy's (str.replace in C: far
    cheaper than a pattern over every event)."""
    pairs = list(ids.items())

    def remap(text: str) -> str:
        if "thr_" not in text:
            return text
        for old, new in pairs:
            if old in text:
                text = text.replace(old, new)
        return text

    return remap


def _changed(data: str, cut: ForkCut) -> str:
    """A kept message, with what the fork changes in it (new arguments, a new text)."""
    if cut.text is not None and cut.message_id is not None and f'"{cut.message_id}"' in data:
        message = Message.model_validate_json(data)
        if message.id == cut.message_id:
            return message.model_copy(update={"content": cut.text}).model_dump_json()
    if cut.arguments is not None and cut.call is not None and f'"{cut.call.id}"' in data:
        message = Message.model_validate_json(data)
        calls = tuple(
            c.model_copy(update={"arguments": dict(cut.arguments or {})})
            if c.id == cut.call.id
            else c
            for c in message.tool_calls
        )
        return message.model_copy(update={"tool_calls": calls}).model_dump_json()
    return data


def given_result(call: ToolCall, result: Any, redactor: Redactor) -> Message:
    """The result message a fork gives `call` instead of running it: a `ToolResult` as it
    is, anything else as a successful result; redacted by `redactor` (the original's, which
    knows every secret the value may hold). Made before the branch is, so a value that cannot
    be a result is a `ThreadlabError` with nothing written."""
    outcome = result if isinstance(result, ToolResult) else ToolResult(result=result)
    try:
        return result_message(call, outcome, redactor)
    except (TypeError, ValueError) as exc:
        raise ThreadlabError(f"result= must be text or a JSON value: {exc}") from None


def give_result(branch: ThreadContext, call: ToolCall, message: Message) -> None:
    """Store `message` (`given_result`) as `call`'s result in `branch`."""
    with branch.transaction():
        branch.events.emit(
            ToolCallFinishedEvent(
                tool_call_id=call.id, name=call.name, status=message.tool_status or "success",
                duration_ms=0.0, **branch.base(),
            )
        )  # fmt: skip
        branch.persist([message])
