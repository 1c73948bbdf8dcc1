"""A thread as of a point of its history, for a person stepping through it: its history's
points (its events and its descendants', in the store's one order) and, at any one of them,
the conversation, files, env and children it had — the very cut a fork at that point copies
(`_cut`), read without writing anything.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .._data import (
    Message,
    SubagentCreatedEvent,
    ThreadEvent,
    ThreadMeta,
    ThreadStatus,
    event_from_json,
)
from .._errors import ThreadlabError
from ..store import Store, StoredEvent
from ._cut import (
    CUT_BY,
    call_place,
    child_status_at,
    children_at,
    files_at,
    find_point,
)

__all__ = [
    "ChildThen",
    "HistoryPoint",
    "Snapshot",
    "history_points",
    "place_of",
    "point_of",
    "snapshot",
]

# What each kind of event is about: its point's id.
_SUBJECT = {
    "message_created": "message_id",
    "tool_call_started": "tool_call_id",
    "tool_call_finished": "tool_call_id",
    "approval_requested": "tool_call_id",
    "approval_decided": "tool_call_id",
    "subagent_created": "child_thread_id",
    "file_written": "path",
    "run_finished": "run_id",
    "custom": "event_type",
}


@dataclass(frozen=True)
class HistoryPoint:
    """One step of a thread's stored history, in the order it happened."""

    id: str
    """What it is about: the message's id, the tool call's id, the child's thread id, the
    file's path, the run's id (a custom event: its type)."""
    kind: str
    """The event's type: "message_created", "tool_call_finished", "subagent_created", ..."""
    thread_id: str
    """The thread it happened in: this one or one of its descendants."""
    at: float
    """When (epoch seconds)."""
    seq: int
    """Its place in the store's one sequence of events: where a snapshot of it cuts."""
    depth: int = 0
    """0 in a thread's own conversation; 1 and more inside a prompt tool's turn."""
    event: ThreadEvent | None = field(default=None, compare=False, repr=False)
    """The stored event itself (what a player shows of the point); None for a damaged row
    (one that cannot be read), which keeps its place in the history."""

    @property
    def about_call(self) -> bool:
        """Whether it is about a tool call: its `id` is then the call's id (unique within
        `thread_id`, not across a thread's descendants)."""
        return _SUBJECT.get(self.kind) == "tool_call_id"


@dataclass(frozen=True)
class ChildThen:
    """A child thread as it was at a point."""

    name: str
    """The name its parent gave it."""
    reference: str
    """Its thread id."""
    status: ThreadStatus
    """Its status then: "idle", "completed", "failed" or "terminated" once a session ended;
    "running" while its first session had not."""


@dataclass(frozen=True)
class Snapshot:
    """A thread as of a point of its history (nothing is written to read it)."""

    seq: int
    """The place in the store's sequence of events it is cut at."""
    messages: list[Message]
    """The top-level conversation up to and including the point."""
    files: dict[str, bytes]
    """Its files then: path -> content."""
    env: dict[str, str]
    """Its variables then: a text variable's value, a secret as `[secret:NAME]`."""
    children: list[ChildThen]
    """The children it had created by then, each with its status then."""


def history_points(store: Store, thread_id: str, *, statuses: bool = False) -> list[HistoryPoint]:
    """Every stored event of `thread_id` and of its descendants, in the order they were
    stored: status changes aside, unless `statuses` (a view that rebuilds the tree from the
    same reading needs them)."""
    points = [
        point
        for tree_thread in _tree(store, thread_id)
        for event in store.iter_events(tree_thread)
        if (statuses or event.type != "thread_status") and (point := point_of(event)) is not None
    ]
    return sorted(_created_where_begun(points), key=lambda p: (p.seq, p.kind != "subagent_created"))


def _created_where_begun(points: list[HistoryPoint]) -> list[HistoryPoint]:
    """A blocking child's announcement is stored with the call that made it, once that call
    ends, after the child's own events: its point goes where the child began (its place
    then that of the child's first event), so the history shows a child created before it
    does anything, and a snapshot there shows it just begun."""
    first: dict[str, int] = {}
    for point in points:
        if point.seq < first.get(point.thread_id, point.seq + 1):
            first[point.thread_id] = point.seq
    moved = []
    for point in points:
        event = point.event
        if isinstance(event, SubagentCreatedEvent):
            begun = first.get(event.child_thread_id, point.seq)
            if begun < point.seq:
                point = dataclasses.replace(point, seq=begun)
        moved.append(point)
    return moved


def place_of(
    store: Store, thread_id: str, at: str | int, points: Callable[[], list[HistoryPoint]]
) -> int:
    """Where a snapshot at `at` cuts: a message id, a tool call id (as a fork at it), or an
    index into the thread's history points (negative counts from the end)."""
    if isinstance(at, int):
        listed = points()
        if not -len(listed) <= at < len(listed):
            raise ThreadlabError(
                f"point {at} is outside the history of thread {thread_id} ({len(listed)} points)"
            )
        return listed[at].seq
    found, call, index = find_point(store, thread_id, at)
    if call is None:
        return store.message_place(thread_id, index)
    return call_place(store, thread_id, found, call, index)


def snapshot(store: Store, thread_id: str, seq: int, messages: list[Message]) -> Snapshot:
    """`thread_id` as of place `seq`; `messages` are its top-level messages (all of them: the
    cut keeps those announced by then)."""
    events = list(store.iter_events(thread_id, types=("message_created", *CUT_BY), until=seq))
    announced = {
        data.get("message_id")
        for e in events
        if e.type == "message_created"
        and (data := e.fields()) is not None
        and not data.get("depth")
    }
    files = {}
    for record in files_at(events, store.list_files(thread_id, "/")):
        content = store.get_blob(record.digest)
        if content is not None:
            files[record.path] = content
    env = {
        name: f"[secret:{name}]" if kind == "secret" else value.decode()
        for name, (kind, value) in sorted(store.get_env(thread_id, before=seq).items())
        if value is not None
    }
    return Snapshot(
        seq=seq,
        messages=[m for m in messages if m.id in announced],
        files=files,
        env=env,
        children=_children_then(store, thread_id, events, seq),
    )


def _children_then(
    store: Store, thread_id: str, events: list[StoredEvent], seq: int
) -> list[ChildThen]:
    """The children created by `seq`: those its events announce, and those at work by then
    whose announcement is stored with the call that made them, once that call ends (a
    blocking child's session runs inside its parent's call)."""
    announced = dict(children_at(events))
    found = []
    for record in store.list_children(thread_id):
        first = next(iter(store.iter_events(record.id, until=seq)), None)
        if record.id not in announced and first is None:
            continue
        meta = ThreadMeta.read(record.metadata) or ThreadMeta()
        name = announced.get(record.id) or meta.name or record.id
        finished = list(store.iter_events(record.id, types=("run_finished",), until=seq))
        ended = any(not json.loads(e.data).get("depth") for e in finished)
        status = child_status_at(finished, meta.resumable) if ended else "running"
        found.append(ChildThen(name, record.id, status))
    return found


def _tree(store: Store, thread_id: str) -> Iterator[str]:
    yield thread_id
    for child in store.list_children(thread_id):
        yield from _tree(store, child.id)


def point_of(event: StoredEvent) -> HistoryPoint | None:
    """The history point of a stored event (None for one not read back from a store)."""
    if event.seq is None:
        return None
    try:  # parsed once: a long history has thousands of points
        parsed: ThreadEvent | None = event_from_json(event.data)
    except ValueError:  # a damaged row: the point is there, without its details
        parsed = None
    return HistoryPoint(
        id=str(getattr(parsed, _SUBJECT.get(event.type, ""), "") or "") if parsed else "",
        kind=event.type,
        thread_id=event.thread_id,
        at=parsed.at if parsed else 0.0,
        seq=event.seq,
        depth=parsed.depth if parsed else 0,
        event=parsed,
    )
