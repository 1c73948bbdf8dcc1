"""`%threadlab grade ID CHECK ...`: a thread graded in a notebook on checks the notebook holds
(names of `threadlab.grading` checks, `(check, points)` pairs, or lists of them), the same
`g.grade` a script or an nbgrader test cell calls; `%threadlab class [EXERCISE] [CHECK ...]`:
the instructor's view of the class on the kernel's store (`tl.class_view`)."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .. import grading as g
from ..widgets import ClassView, class_view
from ._magics_host import MagicsHost
from ._thread_cells import thread_named

__all__ = ["class_overview", "grade"]

_USAGE = "usage: %threadlab grade THREAD_ID CHECK [CHECK ...] (names of checks in the notebook)"


def grade(magics: MagicsHost, rest: list[str]) -> g.GradeResult:
    if len(rest) < 2:
        raise UsageError(_USAGE)
    thread = thread_named(magics, "grade", rest[0])
    namespace = magics.shell.user_ns if magics.shell is not None else {}
    checks: list[object] = []
    for name in rest[1:]:
        if name not in namespace:
            raise UsageError(f"%threadlab grade: no name {name!r} in the notebook\n{_USAGE}")
        checks += _checks(name, namespace[name])
    try:
        return g.grade(thread, checks)
    except Exception as exc:  # a check naming no tool of the thread: said, not a traceback
        raise UsageError(f"%threadlab grade: {exc}") from None


def class_overview(magics: MagicsHost, rest: list[str]) -> ClassView:
    exercise = rest[0] if rest else None
    namespace = magics.shell.user_ns if magics.shell is not None else {}
    checks: list[object] = []
    for name in rest[1:]:
        if name not in namespace:
            raise UsageError(
                f"%threadlab class: no name {name!r} in the notebook\nusage: %threadlab class"
                " [EXERCISE] [CHECK ...]"
            )
        checks += _checks(name, namespace[name])
    return class_view(magics.memory.runtime, exercise, checks=checks or None)


def _checks(name: str, value: Any) -> list[g.Check | tuple[g.Check, float]]:
    if isinstance(value, g.Check):
        return [value]
    if _weighted(value):
        return [(value[0], float(value[1]))]
    if isinstance(value, list | tuple) and all(
        isinstance(v, g.Check) or _weighted(v) for v in value
    ):
        return [v if isinstance(v, g.Check) else (v[0], float(v[1])) for v in value]
    raise UsageError(
        f"%threadlab grade: {name} is not a check (make one with threadlab.grading, e.g."
        " g.called('write_file', path='/index.html')), a (check, points) pair or a list of them"
    )


def _weighted(value: Any) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], g.Check)
        and isinstance(value[1], int | float)
    )
