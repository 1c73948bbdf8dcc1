"""Two threads side by side, aligned by step: `%threadlab diff`. A branch and the thread it
came from (or two runs of one prompt) read row by row from their steps — the person's
messages, the model's answers, each call with the arguments it ran with and its result —
the same step on both sides where they agree, and each difference marked."""

from __future__ import annotations

import html
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from .. import Thread
from ._diff_sides import Side, sides_of
from ._static import _one_line

__all__ = ["ThreadDiff"]

_SHOWN = 160  # characters of a text or result shown in a cell
_PLAIN = 60  # characters of a side in the text summary


@dataclass(frozen=True)
class _Row:
    left: Side | None
    right: Side | None

    @property
    def differs(self) -> bool:
        return _shape(self.left) != _shape(self.right)


class ThreadDiff:
    """Two threads' own conversations read from their steps (`thread.steps()`), aligned step
    by step, each row marked where the two differ: a person's message (or a subagent's
    report), each model step's answer, each call with its arguments as run, what the model
    proposed when they were edited, its result, its files and a rejection, a turn, where a
    thread still waits, and how each last run ended. The steps both took line up; one only a
    side took has a row of its own. What cannot tell two matching threads apart is shown, not
    compared: the model that answered, an approval that changed nothing, the threads' and
    their subagents' ids. Displays as an HTML table, with `text/plain` beside it."""

    def __init__(self, left: Thread, right: Thread) -> None:
        self.left_id, self.right_id = left.id, right.id
        self._about = (_about(left), _about(right))
        ours, theirs = sides_of(left), sides_of(right)
        ends = (_end_of(ours), _end_of(theirs))
        self.rows = _aligned(ours, theirs)
        if ends[0] is not None and ends[1] is not None:
            # How each last run ended, side by side at the end: a thread with none (running,
            # or a branch that has not run since its cut) has nothing to compare it with.
            self.rows.append(_Row(*ends))
        both = {left.id: left, right.id: right}.values()
        self.damage = [f"{thread.id}: {problem}" for thread in both for problem in thread.damage]
        """What of either thread's history cannot be read (its rows are left out): a diff
        cannot tell what they said."""

    @property
    def first_difference(self) -> int | None:
        """The index of the first row that differs (None when the two agree throughout)."""
        return next((i for i, row in enumerate(self.rows) if row.differs), None)

    def _summary(self) -> str:
        first = self.first_difference
        damaged = f"; damaged: {'; '.join(self.damage)}" if self.damage else ""
        if first is None:
            return "the two agree" + damaged
        row = self.rows[first]
        side, thread = (row.left, self.left_id) if row.left else (row.right, self.right_id)
        place = f" (message {side.message} of {thread})" if side is not None else ""
        return f"first difference at step {first + 1} of {len(self.rows)}{place}{damaged}"

    def __repr__(self) -> str:
        lines = [f"{self.left_id}  |  {self.right_id}"]
        for index, row in enumerate(self.rows):
            mark = "≠" if row.differs else " "
            at = _first_difference(row)
            left = _plain(row.left, at)
            lines.append(f"{mark} {index + 1:>3} {left:<{_PLAIN}} | {_plain(row.right, at)}")
        lines.append(_one_line(self._summary()))
        return "\n".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}

    def html(self) -> str:
        """The table, script-free, every text escaped."""
        head = "<tr><th></th><th>#</th>" + "".join(
            f'<th style="{_STEP_STYLE}"><code>{html.escape(thread_id)}</code>'
            f'<br><small style="font-weight:normal">{html.escape(about)}</small></th>'
            for thread_id, about in zip((self.left_id, self.right_id), self._about, strict=True)
        ) + "</tr>"  # fmt: skip
        body = "".join(
            f'<tr style="{_ROW_STYLE if row.differs else ""}">'
            f"<td>{'≠' if row.differs else ''}</td><td>{index + 1}</td>"
            + "".join(f'<td style="{_STEP_STYLE}">{cell}</td>' for cell in _cells(row))
            + "</tr>"
            for index, row in enumerate(self.rows)
        )
        return (
            f'<div class="threadlab-diff"><p>{html.escape(self._summary())}</p>'
            f'<table style="{_TABLE_STYLE}"><colgroup><col style="width:1.5em">'
            f'<col style="width:2.5em"><col><col></colgroup>{head}{body}</table></div>'
        )


_ROW_STYLE = "background:rgba(255,180,0,0.18)"
# The two sides share the width, whatever they hold: a long URL or hash breaks where it must
# instead of pushing the other side out of view.
_TABLE_STYLE = "border-collapse:collapse;table-layout:fixed;width:100%"
# JupyterLab aligns table cells right; a step reads from the left, its lines at the top.
_STEP_STYLE = "text-align:left;vertical-align:top;overflow-wrap:anywhere;word-break:break-word"
_TITLE_CHARS = 4000  # of a step's text given whole on hover


def _about(thread: Thread) -> str:
    """A thread in a few words under its id: its agent, and where it was forked from."""
    forked = thread.forked_from
    return thread.agent + (f" · branch of {forked.thread_id}" if forked is not None else "")


def _first_difference(row: _Row) -> int | None:
    """Where the two sides' texts first differ, when they do (None: they do not)."""
    if not row.differs or row.left is None or row.right is None:
        return None
    left, right = row.left.summary, row.right.summary
    same = (i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b)
    return next(same, min(len(left), len(right)))


def _end_of(sides: list[Side]) -> Side | None:
    """The side telling how the thread's last run ended, taken off the end of `sides`."""
    return sides.pop() if sides and sides[-1].kind == "end" else None


def _aligned(ours: list[Side], theirs: list[Side]) -> list[_Row]:
    """The two threads' steps side by side: the longest run of steps they share in order
    lines up, so a step only one of them took is a row of its own (the other side empty)
    and the steps after it line up again; steps that differ in place stand side by side.
    What both begin and end with lines up first; a middle too long to match in good time
    (a matcher's work grows with the product of its lengths) stands side by side in order."""
    shapes, others = [s.shape for s in ours], [s.shape for s in theirs]
    head = 0
    while head < min(len(shapes), len(others)) and shapes[head] == others[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(shapes), len(others)) - head
        and shapes[len(shapes) - 1 - tail] == others[len(others) - 1 - tail]
    ):
        tail += 1
    middle = (shapes[head : len(shapes) - tail], others[head : len(others) - tail])
    if len(middle[0]) * len(middle[1]) <= _MATCHED_AT_MOST:
        matcher = SequenceMatcher(None, *middle, autojunk=False)
        blocks = [(i1, i2, j1, j2) for _, i1, i2, j1, j2 in matcher.get_opcodes()]
    else:
        blocks = [(0, len(middle[0]), 0, len(middle[1]))]
    rows = [_Row(ours[i], theirs[i]) for i in range(head)]
    for i1, i2, j1, j2 in blocks:
        left, right = ours[head + i1 : head + i2], theirs[head + j1 : head + j2]
        rows += [
            _Row(left[k] if k < len(left) else None, right[k] if k < len(right) else None)
            for k in range(max(len(left), len(right)))
        ]
    rows += [_Row(ours[len(ours) - tail + k], theirs[len(theirs) - tail + k]) for k in range(tail)]
    return rows


_MATCHED_AT_MOST = 200 * 200  # steps by steps: about a twentieth of a second at worst


def _shape(side: Side | None) -> tuple[Any, ...] | None:
    return None if side is None else side.shape


def _excerpt(text: str, at: int | None, width: int) -> str:
    """`width` characters of `text`: its start, or, where the two sides first differ past
    that (`at`), the text around it — a marked difference is always in what is shown."""
    if len(text) <= width:
        return text
    if at is None or at < width - width // 4:
        return text[:width] + "…"
    start = at - width // 4
    return "…" + text[start : start + width] + ("…" if start + width < len(text) else "")


def _plain(side: Side | None, at: int | None = None) -> str:
    if side is None:
        return "—"
    label = f"{side.label}: "
    room = max(_PLAIN - len(label), 20)
    return _one_line(label + _excerpt(side.summary, at, room))[: _PLAIN + 2]


def _cells(row: _Row) -> tuple[str, str]:
    """A row's two cells, each excerpted where the two sides first differ."""
    at = _first_difference(row)
    return _cell(row.left, at), _cell(row.right, at)


def _cell(side: Side | None, at: int | None = None) -> str:
    if side is None:
        return "—"
    title = side.summary[:_TITLE_CHARS]
    return (
        f"<b>{html.escape(side.label)}</b>: "
        f'<code title="{html.escape(title)}" style="white-space:pre-wrap">'
        f"{html.escape(_excerpt(side.summary, at, _SHOWN))}</code>"
    )
