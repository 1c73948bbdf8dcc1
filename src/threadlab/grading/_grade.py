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


def grade(thread: Thread, checks: Iterable[object]) -> GradeResult:
    """Grade `thread` on `checks`: each a check (worth 1 point) or `(check, points)` (a list
    that mixes both is an `Iterable[object]` to a type checker: each entry is checked here,
    a `TypeError` for anything else). A check that names a tool the thread could not call
    raises `tl.DefinitionError`."""
    entries = list(checks)
    if not entries:
        raise ValueError("a grade needs at least one check (0 of 0 points says nothing)")
    path = AgentPath(thread)
    items = []
    for entry in entries:
        check, worth = _weighed(entry)
        if worth < 0:
            raise ValueError(f"{check.name} is worth {worth} points; points are not negative")
        passed, feedback = check.verdict(path)
        items.append(GradeItem(check.name, passed, float(worth) if passed else 0.0,
                               float(worth), feedback))  # fmt: skip
    return GradeResult(thread.id, tuple(items))


def _weighed(entry: object) -> tuple[Check, float]:
    if isinstance(entry, Check):
        return entry, 1.0
    if (
        isinstance(entry, tuple)
        and len(entry) == 2
        and isinstance(entry[0], Check)
        and isinstance(entry[1], int | float)
        and not isinstance(entry[1], bool)
    ):
        return entry[0], float(entry[1])
    raise TypeError(
        f"a grade's checks are threadlab.grading checks or (check, points) pairs, got {entry!r}"
    )
