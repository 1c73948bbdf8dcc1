"""What the instructor's view shows of each member of a class: their latest thread of the
exercise, its status, how many calls it made, where it stopped (failed, paused, or still
running) and its grade on the exercise's checks — read from the store with the public API, the
steps of each thread read once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import Runtime, Thread, ThreadOverview
from .. import grading as g

__all__ = ["class_rows", "read_class"]

_WHERE_CHARS = 120


def class_rows(
    rt: Runtime,
    exercise: str | None = None,
    checks: Iterable[object] | None = None,
    members: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """One row per member (those with threads, and `members` named beside them), by name:
    their latest root thread of `exercise` (any target when None) and how it stands."""
    return read_class(rt, exercise, checks, members)[0]


def read_class(
    rt: Runtime,
    exercise: str | None = None,
    checks: Iterable[object] | None = None,
    members: Iterable[str] = (),
) -> tuple[list[dict[str, Any]], list[str]]:
    """`class_rows`, and the targets the members' threads were made of (the exercises a
    misspelled one is told apart from), from one reading of the thread list."""
    checks = list(checks) if checks is not None else None
    latest: dict[str, ThreadOverview] = {}
    counts: dict[str, int] = {}
    targets: set[str] = set()
    for thread in rt.overview():  # newest first
        if thread.user is not None:
            targets.add(thread.agent)
        if thread.user is None or (exercise is not None and thread.agent != exercise):
            continue
        counts[thread.user] = counts.get(thread.user, 0) + 1
        latest.setdefault(thread.user, thread)
    rows = []
    for member in sorted({*latest, *members}):
        found = latest.get(member)
        if found is None:
            rows.append({"member": member, "thread": None, "threads": 0, "status": "no thread",
                         "calls": 0, "where": "", "score": None, "max_score": None,
                         "feedback": ""})  # fmt: skip
            continue
        rows.append(_row(rt.thread(found.id), found, counts[member], checks))
    return rows, sorted(targets)


def _row(
    thread: Thread, found: ThreadOverview, count: int, checks: list[object] | None
) -> dict[str, Any]:
    steps = thread.steps()
    own = [s for s in steps if s.thread_id == thread.id]
    row: dict[str, Any] = {
        "member": found.user,
        "thread": found.id,
        "agent": found.agent,
        "threads": count,
        "status": found.status,
        "calls": sum(1 for s in steps if s.kind == "tool_call"),
        "where": _where(thread, found.status, own),
        "score": None,
        "max_score": None,
        "feedback": "",
    }
    if checks and found.status == "running":
        row["feedback"] = "still running: graded once its run ends"
    elif checks:
        try:
            graded = g.grade(thread, checks)
        except Exception as exc:  # a check that cannot grade this thread: said in its row
            row["feedback"] = f"not graded: {exc}"
        else:
            failed = [item.feedback for item in graded.items if not item.passed]
            row.update(score=graded.score, max_score=graded.max_score,
                       feedback=failed[0] if failed else "every check passed")  # fmt: skip
    return row


def _where(thread: Thread, status: str, steps: list[Any]) -> str:
    """Where the thread stands, in a few words: paused (for what), failed (why), running
    (at which call), or how it ended."""
    pauses = [s for s in steps if s.kind == "pause" and s.status == "waiting"]
    if pauses:
        pause = pauses[-1]
        if pause.reason == "before_model":
            return "paused before a model step"
        if pause.reason == "decision":
            return f"waits for a decision on {pause.name}"
        return f"paused before {pause.name}"
    if status == "running":
        running = [s for s in steps if s.kind == "tool_call" and s.status == "running"]
        return f"running {running[-1].name}" if running else "running a model step"
    if status in ("failed", "stopped", "interrupted"):
        error = _last_error(thread)
        said = f"{status}: {error}" if error else status
        return said if len(said) <= _WHERE_CHARS else said[: _WHERE_CHARS - 1] + "…"
    if status == "completed":
        return "answered"
    return status


def _last_error(thread: Thread) -> str | None:
    for event in reversed(thread.events):
        if event.type == "run_finished" and not event.depth:
            return " ".join((event.error or "").split()) or None
    return None
