"""Grading one thread: every check read against one reading of its history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._checks import Check
from ._path import AgentPath
from ._result import GradeItem, GradeResult

if TYPE_CHECKING:
    from ..runtime import Thread

__all__ = ["grade"]


def grade(thread: Thread, checks: Iterable[Check | tuple[Check, float]]) -> GradeResult:
    """Grade `thread` on `checks`: each a check (worth 1 point) or `(check, points)`. A check
    that names a tool the thread could not call raises `tl.DefinitionError`."""
    path = AgentPath(thread)
    items = []
    for entry in checks:
        check, worth = entry if isinstance(entry, tuple) else (entry, 1.0)
        if not isinstance(check, Check):
            raise TypeError(f"a grade's checks are threadlab.grading checks, got {check!r}")
        if worth < 0:
            raise ValueError(f"{check.name} is worth {worth} points; points are not negative")
        passed, feedback = check.verdict(path)
        items.append(GradeItem(check.name, passed, float(worth) if passed else 0.0,
                               float(worth), feedback))  # fmt: skip
    return GradeResult(thread.id, tuple(items))
