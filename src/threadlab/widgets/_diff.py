"""Two threads side by side, aligned by step: `%threadlab diff`. A branch and the thread it
came from (or two runs of one prompt) read row by row: the same message on both sides where
they agree, and each difference marked — in a text, a call's arguments, a result."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from .. import Message, Thread

__all__ = ["ThreadDiff"]

_SHOWN = 160  # characters of a text or result shown in a cell


@dataclass(frozen=True)
class _Row:
    left: Message | None
    right: Message | None

    @property
    def differs(self) -> bool:
        return _shape(self.left) != _shape(self.right)


class ThreadDiff:
    """Two threads' top-level histories, aligned by position (step by step), each row marked
    where the two differ. Displays as an HTML table, with `text/plain` beside it."""

    def __init__(self, left: Thread, right: Thread) -> None:
        self.left_id, self.right_id = left.id, right.id
        ours, theirs = left.messages, right.messages
        self.rows = [
            _Row(ours[i] if i < len(ours) else None, theirs[i] if i < len(theirs) else None)
            for i in range(max(len(ours), len(theirs)))
        ]

    @property
    def first_difference(self) -> int | None:
        """The index of the first row that differs (None when the two agree throughout)."""
        return next((i for i, row in enumerate(self.rows) if row.differs), None)

    def __repr__(self) -> str:
        lines = [f"{self.left_id}  |  {self.right_id}"]
        for index, row in enumerate(self.rows):
            mark = "≠" if row.differs else " "
            lines.append(f"{mark} {index + 1:>3} {_plain(row.left):<60} | {_plain(row.right)}")
        first = self.first_difference
        lines.append(
            "the two agree" if first is None else f"first difference at message {first + 1}"
        )
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
        first = self.first_difference
        summary = (
            "the two agree"
            if first is None
            else f"first difference at message {first + 1} of {len(self.rows)}"
        )
        return (
            f'<div class="threadlab-diff"><p>{summary}</p>'
            f'<table style="border-collapse:collapse">{head}{body}</table></div>'
        )


_ROW_STYLE = "background:rgba(255,180,0,0.18)"
# JupyterLab aligns table cells right; a step reads from the left, its lines at the top.
_STEP_STYLE = "text-align:left;vertical-align:top"


def _shape(message: Message | None) -> tuple[Any, ...] | None:
    if message is None:
        return None
    calls = tuple((c.name, json.dumps(c.arguments, sort_keys=True)) for c in message.tool_calls)
    return (message.role, message.content or "", calls, message.tool_status)


def _summary(message: Message) -> str:
    if message.tool_calls:
        return "; ".join(f"{c.name}({json.dumps(c.arguments)})" for c in message.tool_calls)
    text = message.content or ""
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _plain(message: Message | None) -> str:
    if message is None:
        return "—"
    return f"{message.role}: {_summary(message)}".replace("\n", " ")[:60]


def _cell(message: Message | None) -> str:
    if message is None:
        return "—"
    status = f" [{message.tool_status}]" if message.tool_status else ""
    return (
        f"<b>{html.escape(message.role)}</b>{html.escape(status)}: "
        f"<code>{html.escape(_summary(message))}</code>"
    )
