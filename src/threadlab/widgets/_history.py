"""A thread's history as the player draws it: each point (its events and its descendants',
in the store's order) with a label, the step's narration where one tells of it, for a model
step what a student could predict there (the tools it was offered) and what it did, and
each thread's variables where they changed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import Message, Store, Thread, ThreadEvent
from .._gc_paused import gc_paused
from ..runtime._explain import Paragraph, explain_paragraphs
from ._view_state import card_key

__all__ = [
    "HistoryReading",
    "descendants",
    "history_and_events",
    "history_of",
    "tell",
    "told_additions",
]

_LABEL_CHARS = 80
# The kinds of point a narrated paragraph tells of (the rest are told within them).
_TOLD_AT = {
    "user": "message_created",
    "model": "message_created",
    "tool": "message_created",
    "subagent": "subagent_created",
    "file": "file_written",
    "run": "run_finished",
}
TEXT_ANSWER = "(a text answer)"
"""The choice, beside the tools on offer, of a model step that calls none."""


class HistoryReading(NamedTuple):
    """One reading of a thread's history (`history_and_events`)."""

    points: list[dict[str, Any]]
    """The points, as `history_of(thread, store, told=False)` gives them."""
    events: list[ThreadEvent]
    """Every event of the thread's tree, status changes included (the view state's)."""
    places: list[int]
    """Each point's place in the store's sequence of events: where its variables are read."""


def history_of(thread: Thread, store: Store, *, told: bool = True) -> list[dict[str, Any]]:
    """The points of `thread`'s history (kept in `store`) as the player draws them: what
    each is, in which thread, a label, and (`told`) the step's narration where one tells of
    it, a model step's choices and each thread's variables where they changed. A row of the
    store that cannot be read is a point marked `damaged`; the rest of the history plays."""
    with gc_paused():
        tree = _tree(thread)
        events: list[ThreadEvent] = []
        places: list[int] = []
        points = _points(thread, tree, events, places)
        return _told(points, tree, events, places, store) if told else points


def history_and_events(thread: Thread) -> HistoryReading:
    """`history_of(thread, store, told=False)`, the events of `thread`'s tree (its view state's)
    and the points' places, from one reading of the store: a long history's events are read
    and parsed once."""
    events: list[ThreadEvent] = []
    places: list[int] = []
    with gc_paused():
        return HistoryReading(_points(thread, _tree(thread), events, places), events, places)


def tell(
    thread: Thread,
    store: Store,
    points: list[dict[str, Any]],
    events: list[ThreadEvent] | None = None,
    places: list[int] | None = None,
) -> list[dict[str, Any]]:
    """`points` (of `history_of(thread, store, told=False)`) with what the narration adds:
    each step's paragraph, a model step's choices and the one it made, and each thread's
    variables where they changed. `events` and `places`: those read with the points
    (`history_and_events`), told from instead of read again."""
    with gc_paused():
        if places is None:
            places = [point.seq for point in thread.history_points()]
        return _told(points, _tree(thread), events, places, store)


def told_additions(
    points: list[dict[str, Any]], told: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """What `told` (of `tell(thread, points)`) adds to `points`, by place: what goes to a
    front end that has the points already."""
    return {
        str(index): extra
        for index, (point, whole) in enumerate(zip(points, told, strict=True))
        if (extra := {key: value for key, value in whole.items() if key not in point})
    }


def _tree(thread: Thread) -> dict[str, Thread]:
    return {t.id: t for t in [thread, *descendants(thread)]}


def _points(
    thread: Thread,
    tree: dict[str, Thread],
    events: list[ThreadEvent] | None = None,
    places: list[int] | None = None,
) -> list[dict[str, Any]]:
    """The points, into `events` every event read (status changes included) and into
    `places` each point's place."""
    points = []
    for point in thread.history_points(statuses=events is not None):
        if events is not None and point.event is not None:
            events.append(point.event)
        if point.kind == "thread_status":
            continue
        if places is not None:
            places.append(point.seq)
        # Sent once, but a long history has thousands: only what the player draws.
        entry: dict[str, Any] = {
            "kind": point.kind,
            # A call's point names its card (a descendant's call id may be its parent's too).
            "id": card_key(thread.id, point.thread_id, point.id) if point.about_call else point.id,
            "thread": point.thread_id,
            "label": _label(point.kind, point.id, point.event),
        }
        if point.depth:
            entry["depth"] = point.depth
        event = point.event
        if event is None:
            entry.update(damaged=True, label=f"{point.kind.replace('_', ' ')}: damaged row")
        elif point.kind == "message_created" and point.thread_id in tree:
            message = tree[point.thread_id].find_message(point.id)
            if message is None:
                entry.update(damaged=True, label=f"{entry['label']}: cannot be read")
            else:
                entry["label"] = _message_label(message)
        if event is not None and event.type == "file_written":
            entry.update(size=event.size, deleted=event.deleted)
            if event.digest:  # which content: a preview at this point shows this one
                entry["digest"] = event.digest
        if event is not None and event.type in ("run_finished", "tool_call_finished"):
            entry["status"] = event.status
        points.append(entry)
    return points


def _told(
    points: list[dict[str, Any]],
    tree: dict[str, Thread],
    events: list[ThreadEvent] | None,
    places: list[int],
    store: Store,
) -> list[dict[str, Any]]:
    narration: dict[tuple[str, str, str], str] = {}
    offered: dict[str, tuple[str, ...]] = {}  # a model step's message id -> its tools
    own: dict[str, list[ThreadEvent]] | None = None
    if events is not None:  # each thread's, in the store's order
        own = {thread_id: [] for thread_id in tree}
        for event in events:
            own.setdefault(event.thread_id, []).append(event)
    steps = next(iter(tree.values())).steps()  # the root's, its descendants' among them
    for teller in tree.values():
        told_of = None if own is None else own[teller.id]
        for said in explain_paragraphs(teller, events=told_of, steps=steps):
            if said.subject is not None:
                key = (teller.id, _TOLD_AT[said.kind], said.subject)
                narration.setdefault(key, _paragraph(said))
            if said.offered is not None and said.message_id is not None:
                offered[said.message_id] = said.offered
    told = []
    for point in points:
        entry = dict(point)
        if entry["kind"] == "message_created" and not entry.get("damaged"):
            told_in = tree.get(entry["thread"])
            message = told_in.find_message(entry["id"]) if told_in is not None else None
            if message is not None:
                entry.update(_prediction(message, offered.get(message.id)))
        paragraph = narration.pop((entry["thread"], entry["kind"], entry["id"]), None)
        if paragraph is not None:
            entry["explain"] = paragraph
        told.append(entry)
    _ask_before_it_shows(told, tree)
    _variables(told, places, store)
    return told


def _variables(points: list[dict[str, Any]], places: list[int], store: Store) -> None:
    """Each thread's variables (`env`) on its first point and where they changed since its
    point before, as they were there (what a snapshot at the point reads). A secret is only
    ever `[secret:NAME]`: its value stays in the store, encrypted."""
    last: dict[str, dict[str, str]] = {}
    for point, place in zip(points, places, strict=True):
        thread_id = point["thread"]
        env = {
            name: f"[secret:{name}]" if kind == "secret" else value.decode(errors="replace")
            for name, (kind, value) in sorted(store.get_env(thread_id, before=place).items())
            if value is not None
        }
        if last.get(thread_id) != env:
            point["env"] = last[thread_id] = env


def _ask_before_it_shows(points: list[dict[str, Any]], tree: dict[str, Thread]) -> None:
    """A model step's calls start (their progress streams) before its message is stored: the
    question of what it does goes on the first point that would show the answer."""
    first: dict[tuple[str, str], int] = {}
    for index, entry in enumerate(points):
        if entry["kind"] in ("tool_call_started", "approval_requested"):
            first.setdefault((entry["thread"], entry["id"]), index)
    for index, entry in enumerate(points):
        if "offered" not in entry:
            continue
        message = tree[entry["thread"]].find_message(entry["id"])
        calls = message.tool_calls if message is not None else []
        thread = entry["thread"]
        earliest = min((first.get((thread, c.id), index) for c in calls), default=index)
        if earliest < index:
            points[earliest]["offered"] = entry.pop("offered")
            points[earliest]["answer"] = entry.pop("answer")


def _prediction(message: Message, offered: tuple[str, ...] | None) -> dict[str, Any]:
    """For a model step on record: the choices it had (the tools it was `offered`, and a
    text answer) and the one it made (the tools it called, or a text answer)."""
    if message.role != "assistant" or offered is None:
        return {}
    called = sorted({call.name for call in message.tool_calls})
    return {"offered": [*offered, TEXT_ANSWER], "answer": called or [TEXT_ANSWER]}


def descendants(thread: Thread) -> list[Thread]:
    """`thread`'s children, each followed by its own descendants."""
    found = []
    for child in thread.children:
        found += [child, *descendants(child)]
    return found


def _paragraph(said: Paragraph) -> str:
    return f"**{said.title}.** {said.text}"


def _message_label(message: Message) -> str:
    """A stored message in a few words: "user: Make a page", "assistant calls write_file"."""
    if message.role == "assistant" and message.tool_calls:
        said = f"assistant calls {', '.join(c.name for c in message.tool_calls)}"
    elif message.role == "tool":
        said = f"result of {message.name or 'a call'}: {message.content or ''}"
    else:
        said = f"{message.role}: {message.content or ''}"
    flat = " ".join(said.split())
    return flat if len(flat) <= _LABEL_CHARS else flat[: _LABEL_CHARS - 1] + "…"


def _label(kind: str, subject: str, event: Any) -> str:
    """A point in a few words: "tool call started: write_file — writing index.html"."""
    if kind == "message_created":
        return f"{getattr(event, 'role', 'a')} message"
    # Not asked of a message's event (most points): a pydantic model's missing attribute is
    # slow.
    name = getattr(event, "name", "") or ""
    if kind == "tool_call_started":
        progress = getattr(event, "progress", None)
        return f"call of {name}" + (f" — {progress}" if progress else "")
    if kind == "tool_call_finished":
        return f"{name} {getattr(event, 'status', '')}"
    if kind == "approval_requested":
        return f"{name} waits for a decision"
    if kind == "approval_decided":
        return "approved" if getattr(event, "approved", False) else "rejected"
    if kind == "subagent_created":
        return f"subagent {name} created"
    if kind == "file_written":
        return f"{subject} {'deleted' if getattr(event, 'deleted', False) else 'written'}"
    if kind == "run_finished":
        return f"run {getattr(event, 'status', 'ended')}"
    return f"{kind.replace('_', ' ')}: {subject}"[:_LABEL_CHARS]
