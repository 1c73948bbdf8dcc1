"""Grading what an agent did: checks over the path a thread took — the tools it called, with
what and in which order, whether it asked before acting, what it answered and spent, whether
a secret leaked — each worth points, with one line of feedback a student can act on.

    from threadlab import grading as g
    result = g.grade(thread, [g.called("write_file", path="/index.html"),
                              (g.called_before("search", "write_file"), 2)])
    result.score, result.max_score, result.points(out_of=10)

A check is also a scorer for `tl.evaluate` and `%%eval`.
"""

from ._checks import (
    Check,
    answer_contains,
    approved_before_run,
    call_count,
    called,
    called_before,
    no_secret_leaked,
    not_called,
    within_budget,
)
from ._grade import grade
from ._result import GradeItem, GradeResult

__all__ = [
    "Check",
    "GradeItem",
    "GradeResult",
    "answer_contains",
    "approved_before_run",
    "call_count",
    "called",
    "called_before",
    "grade",
    "no_secret_leaked",
    "not_called",
    "within_budget",
]
