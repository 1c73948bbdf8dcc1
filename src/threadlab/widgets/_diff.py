"""Two threads side by side, aligned by step: `%threadlab diff`. A branch and the thread it
came from (or two runs of one prompt) read row by row from their steps — the person's
messages, the model's answers, each call with the arguments it ran with and its result —
the same step on both sides where they agree, and each difference marked."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from .. import Message, StepRecord, Thread
from ._static import _one_line

__all__ = ["ThreadDiff"]

_SHOWN = 160  # characters of a text or result shown in a cell
_PLAIN = 60  # characters of a side in the text summary


@dataclass(frozen=True)
class _Side:
    """One thread's step in a row: what is compared, and what is shown."""

    kind: str  # "user", "system", "model", "tool_call", "pause", "turn"
    shape: tuple[Any, ...]  # what two sides must share to agree
    label: str  # the kind as a reader names it, with its status or decision
    summary: str  # what it said or did
    message: int  # its place in the thread's messages (1-based): its text, answer or result


@dataclass(frozen=True)
class _Row:
    left: _Side | None
    right: _Side | None

    @property
    def differs(self) -> bool:
        return _shape(self.left) != _shape(self.right)


class ThreadDiff:
    """Two threads' own conversations read from their steps (`thread.steps()`: the messages
    a person sent, each model step's answer, each tool call with its arguments as run, its
    result and any decision, a turn, where a thread still waits), aligned step by step (the
    steps they share line up; one only a side took has a row of its own), each row marked
    where the two differ. A prompt tool's nested turn and a subagent's steps are
    told by their call's result. Displays as an HTML table, with `text/plain` beside it."""

    def __init__(self, left: Thread, right: Thread) -> None:
        self.left_id, self.right_id = left.id, right.id
        self.rows = _aligned(_sides(left), _sides(right))

    @property
    def first_difference(self) -> int | None:
        """The index of the first row that differs (None when the two agree throughout)."""
        return next((i for i, row in enumerate(self.rows) if row.differs), None)

    def _summary(self) -> str:
        first = self.first_difference
        if first is None:
            return "the two agree"
        row = self.rows[first]
        side = row.left or row.right
        place = f" (message {side.message})" if side is not None else ""
        return f"first difference at step {first + 1} of {len(self.rows)}{place}"

    def __repr__(self) -> str:
        lines = [f"{self.left_id}  |  {self.right_id}"]
        for index, row in enumerate(self.rows):
            mark = "≠" if row.differs else " "
            left = _plain(row.left)
            lines.append(f"{mark} {index + 1:>3} {left:<{_PLAIN}} | {_plain(row.right)}")
        lines.append(self._summary())
        return "\n".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}

    def html(self) -> str:
        """The table, script-free, every text escaped."""
        head = (
            "<tr><th></th><th>#</th>"
            f'<th style="{_STEP_STYLE}"><code>{html.escape(self.left_id)}</code></th>'
            f'<th style="{_STEP_STYLE}"><code>{html.escape(self.right_id)}</code></th></tr>'
        )
        body = "".join(
            f'<tr style="{_ROW_STYLE if row.differs else ""}">'
            f"<td>{'≠' if row.differs else ''}</td><td>{index + 1}</td>"
            f'<td style="{_STEP_STYLE}">{_cell(row.left)}</td>'
            f'<td style="{_STEP_STYLE}">{_cell(row.right)}</td></tr>'
            for index, row in enumerate(self.rows)
        )
        return (
            f'<div class="threadlab-diff"><p>{html.escape(self._summary())}</p>'
            f'<table style="border-collapse:collapse">{head}{body}</table></div>'
        )


_ROW_STYLE = "background:rgba(255,180,0,0.18)"
# JupyterLab aligns table cells right; a step reads from the left, its lines at the top.
_STEP_STYLE = "text-align:left;vertical-align:top"


def _aligned(ours: list[_Side], theirs: list[_Side]) -> list[_Row]:
    """The two threads' steps side by side: the longest run of steps they share in order
    lines up, so a step only one of them took is a row of its own (the other side empty)
    and the steps after it line up again; steps that differ in place stand side by side."""
    matcher = SequenceMatcher(None, [s.shape for s in ours], [s.shape for s in theirs],
                              autojunk=False)  # fmt: skip
    rows: list[_Row] = []
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        left, right = ours[i1:i2], theirs[j1:j2]
        rows += [
            _Row(left[k] if k < len(left) else None, right[k] if k < len(right) else None)
            for k in range(max(len(left), len(right)))
        ]
    return rows


def _sides(thread: Thread) -> list[_Side]:
    """The thread's own steps in order, with the messages its person (or its system) wrote
    between them: what a diff aligns."""
    messages = thread.messages
    place = {message.id: index for index, message in enumerate(messages)}
    results = {m.tool_call_id: index for index, m in enumerate(messages) if m.role == "tool"}
    own = [s for s in thread.steps() if s.thread_id == thread.id and s.depth == 0]
    sides: list[_Side] = []
    written = (i for i, m in enumerate(messages) if m.role in ("user", "system"))
    pending = next(written, None)
    for step, anchor in _anchored(own, place, len(messages)):
        side = _step_side(step, messages, place, results)
        if side is None:
            continue
        # A person's message goes before the first step that answers it (a turn answers it).
        while pending is not None and (
            pending < anchor or (pending == anchor and step.kind == "turn")
        ):
            sides.append(_written_side(messages[pending], pending))
            pending = next(written, None)
        sides.append(side)
    while pending is not None:
        sides.append(_written_side(messages[pending], pending))
        pending = next(written, None)
    return sides


def _anchored(
    steps: Sequence[StepRecord], place: dict[str, int], count: int
) -> Iterator[tuple[StepRecord, int]]:
    """Each step with the message it stands at: its own (an answer, the answer that made a
    call, the message a turn answers), else the next step's (a pause stands before it)."""
    own = [place.get(s.message_id, -1) if s.message_id is not None else -1 for s in steps]
    following = count
    anchors = [0] * len(steps)
    for index in range(len(steps) - 1, -1, -1):
        if own[index] >= 0:
            following = own[index]
        anchors[index] = following
    yield from zip(steps, anchors, strict=True)


def _written_side(message: Message, index: int) -> _Side:
    text = message.content or ""
    files = tuple(message.attachments)
    shown = text + (f" [attached: {', '.join(files)}]" if files else "")
    return _Side(message.role, (message.role, text, files), message.role, shown, index + 1)


def _step_side(
    step: StepRecord,
    messages: Sequence[Message],
    place: dict[str, int],
    results: dict[str | None, int],
) -> _Side | None:
    at = place.get(step.message_id or "", -1)
    if step.kind == "model":
        answer = messages[at] if at >= 0 else None
        text = (answer.content or "") if answer is not None else ""
        calls = [c.name for c in answer.tool_calls] if answer is not None else []
        shown = text or (f"calls {', '.join(calls)}" if calls else "")
        # The model that answered is shown, not compared: two models' runs side by side
        # differ where their steps do.
        who = "replayed" if step.replayed else step.model
        label = f"model ({who})" if who else "model"
        return _Side("model", ("model", text, tuple(calls)), label, shown, at + 1)
    if step.kind == "tool_call":
        arguments = json.dumps(step.arguments, sort_keys=True, ensure_ascii=False)
        decision = step.decision
        decided = None if decision is None else (decision.approved, decision.edited)
        label = "call"
        if decision is not None:
            label += " approved" if decision.approved else " rejected"
            label += " (edited)" if decision.edited else ""
        if step.status != "completed":
            label += f" [{step.status}]"
        elif step.tool_status == "error":
            label += " [error]"
        result = step.result or ""
        shown = f"{step.name}({arguments})" + (f" → {result}" if step.result is not None else "")
        shape = ("tool_call", step.name, arguments, result, step.tool_status, step.status, decided)
        where = results.get(step.tool_call_id, at)
        return _Side("tool_call", shape, label, shown, where + 1)
    if step.kind == "pause":
        if step.status != "waiting":
            return None  # a pause the run went on from: what happened after is the record
        what = {"before_model": "the next model step", "decision": "a decision"}
        shown = what.get(step.reason or "", f"before {step.name}")
        if step.reason == "decision":
            shown += f" on {step.name}"
        return _Side("pause", ("pause", step.reason, step.name), "waiting", shown, at + 1)
    if step.kind == "turn":
        who = f"side {step.side}" if step.side else f"handed over to {step.name}"
        return _Side("turn", ("turn", step.side, step.name), "turn", who, at + 1)
    return None  # a subagent's moment: its create call's result tells it


def _shape(side: _Side | None) -> tuple[Any, ...] | None:
    return None if side is None else side.shape


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _plain(side: _Side | None) -> str:
    if side is None:
        return "—"
    return _one_line(f"{side.label}: {_short(side.summary)}")[:_PLAIN]


def _cell(side: _Side | None) -> str:
    if side is None:
        return "—"
    return f"<b>{html.escape(side.label)}</b>: <code>{html.escape(_short(side.summary))}</code>"
