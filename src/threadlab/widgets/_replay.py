"""Building a view's state for a thread: empty for a run about to stream, or replayed from the
events its tree persisted."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from .. import Message, Runtime, Thread, ThreadEvent
from .._gc_paused import gc_paused
from ._view_state import ViewState

__all__ = ["catch_up", "relate", "replay", "trace_for"]

ThreadLookup = Callable[[str], Thread]


def trace_for(thread: Thread, lookup: ThreadLookup) -> ViewState:
    """An empty view state of `thread`; `lookup` finds any thread of its tree by id (the messages a
    view state shows are read from the thread that holds them)."""

    def find(thread_id: str, message_id: str) -> Message | None:
        return lookup(thread_id).find_message(message_id)

    state = ViewState(thread.id, find)
    state.add_thread(thread.id, None, thread.agent, thread.name, thread.status)
    return state


def _tree(thread: Thread) -> Iterable[Thread]:
    yield thread
    for child in thread.children:
        yield from _tree(child)


def replay(thread: Thread, events: list[ThreadEvent] | None = None) -> ViewState:
    """The view state of a persisted thread and its descendants, rebuilt from their events (or
    from `events`, all of theirs, when the caller has read them already)."""
    threads = {t.id: t for t in _tree(thread)}

    def lookup(thread_id: str) -> Thread:
        # A child made after the replay (the run of a branch shown here) is read when met.
        if thread_id not in threads:
            threads[thread_id] = cast(Runtime, thread._runtime).thread(thread_id)
        return threads[thread_id]

    state = trace_for(thread, lookup)
    with gc_paused():
        catch_up(state, thread, events)
    return state


def catch_up(state: ViewState, thread: Thread, events: list[ThreadEvent] | None = None) -> None:
    """Fold into `state` what `thread` (already in it) and its descendants persisted (for a
    replay, or for children whose runs another process streamed: a worker's)."""
    tree = list(_tree(thread))
    descendants = tree[1:]
    for child in descendants:
        state.add_thread(child.id, child.parent_id, child.agent, child.name, child.status)
    if events is None:
        events = [e for t in tree for e in t.events]
    events = sorted(events, key=lambda e: e.at)
    for event in events:
        state.apply(event)
    for child in descendants:
        state.threads[child.id]["status"] = child.status
    state.drafts.clear()


def relate(state: ViewState, thread: Thread) -> ViewState:
    """Show beside `thread` (the root of `state`) the thread it was forked from, as its parent
    in the tree, and its branches, under it: nodes that open those threads when selected."""
    origin = thread.forked_from
    state.related = []
    if origin is not None:
        # A branch is of its origin's agent: the node names the thread it came from by that
        # (the tree shows its id beside).
        named = f"forked from {thread.agent}"
        state.related.append(_node(origin.thread_id, None, "origin", named))
        state.threads[thread.id]["parent"] = origin.thread_id
    branches = thread.branches
    cuts = _cut_names(thread) if branches else {}
    for branch in branches:
        at = branch.forked_from.at if branch.forked_from else ""
        name = cuts.get(at, f"branch at {at[:18]}")  # an id no message has: by the id
        state.related.append(_node(branch.id, thread.id, "branch", name))
    return state


def _cut_names(thread: Thread) -> dict[str, str]:
    """What a branch cut at each message or call of `thread` is named, as a person reads the
    thread: the call it was cut at ("branch at write_file"), the user message ('branch at
    "make a page…"') or the message's place ("branch at message 3")."""
    names: dict[str, str] = {}
    for place, message in enumerate(thread.messages, start=1):
        if message.role == "user" and message.content:
            said = " ".join(message.content.split())
            names[message.id] = f'branch at "{said[:24].rstrip()}{"…" if len(said) > 24 else ""}"'
        else:
            names[message.id] = f"branch at message {place}"
        for call in message.tool_calls:
            names.setdefault(call.id, f"branch at {call.name}")
    return names


def _node(thread_id: str, parent: str | None, relation: str, name: str) -> dict[str, Any]:
    return {
        "id": thread_id,
        "parent": parent,
        "agent": "",
        "name": name,
        "status": relation,
        "progress": None,
        "relation": relation,
    }
