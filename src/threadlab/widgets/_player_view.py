"""A thread's history to step through: `tl.player(thread)` and `%threadlab play ID`.

The kernel sends the history once — the thread's whole trace (its descendants' too), the
ordered points of its history and each point's narration — and the front end draws the
thread as of any point from that alone: scrubbing asks nothing of the kernel.
"""

from __future__ import annotations

from typing import Any, cast

import traitlets

from .. import Message, Runtime, Thread
from ..runtime._explain import Step, explain_steps
from ._replay import replay
from ._views import STATIC, ThreadView

__all__ = ["PlayerView", "player"]

_LABEL_CHARS = 80
# The kinds of point a narration step tells of (the rest are told within them).
_TOLD_AT = {
    "user": "message_created",
    "model": "message_created",
    "tool": "message_created",
    "subagent": "subagent_created",
    "file": "file_written",
    "run": "run_finished",
}


class PlayerView(ThreadView):
    """A thread as of any point of its history, stepped through back and forth."""

    _esm = STATIC / "player.js"

    points: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)

    def __init__(self, rt: Runtime, thread: Thread, **kwargs: Any) -> None:
        state = replay(thread)
        super().__init__(rt, state, patches=False, **kwargs)
        self.view = "player"
        self.points = history_of(thread)

    def saved_state(self) -> dict[str, Any]:
        return {**super().saved_state(), "points": self.points}

    def __repr__(self) -> str:
        return f"player of {self.state.root_id}: {len(self.points)} points\n{super().__repr__()}"


def player(thread: Thread) -> PlayerView:
    """The player of `thread`: its history (its subagents' included) point by point — the
    conversation, files and subagent tree as of each point, each step's narration — stepped
    back and forth with buttons, the ← / → keys or a scrubber, or played at a pace."""
    return PlayerView(cast(Runtime, thread._runtime), thread)


def history_of(thread: Thread) -> list[dict[str, Any]]:
    """The points of `thread`'s history as the player draws them: what each is, in which
    thread, a label, and (where one tells of it) the step's narration."""
    narration: dict[tuple[str, str, str], str] = {}
    tree = {t.id: t for t in [thread, *_descendants(thread)]}
    for told in tree.values():
        for step in explain_steps(told):
            if step.subject is not None:
                key = (told.id, _TOLD_AT[step.kind], step.subject)
                narration.setdefault(key, _paragraph(step))
    points = []
    for point in thread.history_points():
        entry: dict[str, Any] = {
            "kind": point.kind,
            "id": point.id,
            "thread": point.thread_id,
            "depth": point.depth,
            "at": point.at,
            "label": _label(point.kind, point.id, point.event),
        }
        if point.kind == "message_created" and point.thread_id in tree:
            message = tree[point.thread_id].find_message(point.id)
            if message is not None:
                entry["label"] = _message_label(message)
        event = point.event
        if event is not None and event.type == "file_written":
            entry.update(size=event.size, deleted=event.deleted)
        if event is not None and event.type == "run_finished":
            entry["status"] = event.status
        if event is not None and event.type == "tool_call_finished":
            entry["status"] = event.status
        paragraph = narration.pop((point.thread_id, point.kind, point.id), None)
        if paragraph is not None:
            entry["explain"] = paragraph
        points.append(entry)
    return points


def _descendants(thread: Thread) -> list[Thread]:
    found = []
    for child in thread.children:
        found += [child, *_descendants(child)]
    return found


def _paragraph(step: Step) -> str:
    return f"**{step.title}.** {step.text}"


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
    name = getattr(event, "name", "") or ""
    if kind == "message_created":
        return f"{getattr(event, 'role', 'a')} message"
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
