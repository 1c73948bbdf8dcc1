"""The instructor's view of a class (`tl.class_view`): per member, the latest thread of an
exercise, where it stands and its grade; a member's thread opens below, in the inspector that
steps through it. While the kernel holds it, it re-reads the store every few seconds, so it
follows the students' runs as they happen."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Iterable
from typing import Any

import traitlets

from .. import Runtime
from ._class_rows import read_class
from ._views import OpeningView

__all__ = ["ClassView", "class_view"]


class ClassView(OpeningView):
    """Per member of a class, their latest thread of `exercise` and how it stands."""

    exercise = traitlets.Unicode("").tag(sync=True)
    graded = traitlets.Bool(False).tag(sync=True)
    exercises: traitlets.List[str] = traitlets.List().tag(sync=True)
    """The targets the members' threads were made of (a misspelled exercise is told)."""
    """Whether it grades (checks were given): the grade columns show, for every row."""
    live = traitlets.Bool(False).tag(sync=True)
    """Whether it follows the store (re-read every `refresh_s` seconds while displayed)."""

    def __init__(
        self,
        rt: Runtime,
        *,
        exercise: str | None = None,
        checks: Iterable[object] | None = None,
        members: Iterable[str] = (),
        refresh_s: float = 3.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(rt, view="class", **kwargs)
        self.exercise = exercise or ""
        self._checks = list(checks) if checks is not None else None
        self.graded = bool(self._checks)
        self._members = tuple(members)
        self._refresh_s = refresh_s
        self._timer: asyncio.TimerHandle | None = None
        self.refresh()
        self._follow()

    def refresh(self) -> None:
        """Re-read every member's latest thread (their runs go on meanwhile)."""
        self.rows, self.exercises = read_class(
            self._rt, self.exercise or None, self._checks, self._members
        )

    def _follow(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop here (a script): the view is read once
            return
        self.live = True
        self._timer = loop.call_later(self._refresh_s, self._tick)

    def _tick(self) -> None:
        if self.comm is None:  # closed: stop following
            self.live = False
            return
        self.refresh()
        self._timer = asyncio.get_running_loop().call_later(self._refresh_s, self._tick)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        super().close()

    def saved_state(self) -> dict[str, Any]:
        return {
            **super().saved_state(),
            "exercise": self.exercise,
            "graded": self.graded,
            "live": False,
        }

    def static_html(self) -> str:
        columns = ("member", "thread", "status", "calls", "where it stands", "grade")
        head = "".join(f"<th>{c}</th>" for c in columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in _cells(r)) + "</tr>"
            for r in self.rows
        )
        return f'<table class="threadlab-class"><tr>{head}</tr>{body}</table>'

    def __repr__(self) -> str:
        what = f"exercise {self.exercise}" if self.exercise else "every target"
        count = len(self.rows)
        lines = [f"{count} member{'' if count == 1 else 's'}, {what}"]
        lines += ["  " + "  ".join(str(cell) for cell in _cells(r)) for r in self.rows]
        return "\n".join(lines)


def _cells(row: dict[str, Any]) -> tuple[Any, ...]:
    grade = "" if row["max_score"] is None else f"{row['score']:g} / {row['max_score']:g}"
    return (row["member"], row["thread"] or "-", row["status"], row["calls"], row["where"], grade)


def class_view(
    runtime: Runtime,
    exercise: str | None = None,
    *,
    checks: Iterable[object] | None = None,
    members: Iterable[str] = (),
) -> ClassView:
    """The instructor's view of a class on `runtime`'s store: per member (every member with a
    thread, and `members` beside them), their latest thread of `exercise` (a prompt or agent
    name; any when None), its status, how many calls it made, where it failed or paused, and
    with `checks` (`threadlab.grading` checks) its grade and first failing check's feedback.
    Open a member's thread to step through it. In a notebook it re-reads the store every few
    seconds; on a class's PostgreSQL store, connect as the instructor's role to see every
    student. `%threadlab class [EXERCISE]` shows it."""
    return ClassView(runtime, exercise=exercise, checks=checks, members=members)
