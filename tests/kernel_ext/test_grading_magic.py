"""`%threadlab grade ID CHECK ...` in a shell with the extension loaded: the same `g.grade` a
script calls, on checks the notebook holds; its mistakes said as usage errors."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

import threadlab as tl
from threadlab.widgets import ClassView

from .test_magics import run, shell
from .test_reshaping_magics import first_thread

__all__ = ["shell"]

CHECKS = """
from threadlab import grading as g
called = g.called("add", a=2, b=3)
answered = (g.answer_contains("the sum is 5"), 2)
both = [g.not_called("subagent_create"), g.call_count("add", 1)]
typo = g.called("ad")
"""


def test_grade_prints_the_grade_of_the_thread(shell: InteractiveShell) -> None:
    thread = first_thread(shell)  # its tool subtracts: the answer is "the sum is -1"
    run(shell, CHECKS)
    shown = run(shell, f"%threadlab grade {thread.id} called answered both")
    assert isinstance(shown, tl.GradeResult)
    assert (shown.score, shown.max_score) == (3.0, 5.0)
    assert [i.feedback for i in shown.items][1] == (
        "the final answer does not contain 'the sum is 5'"
    )


@pytest.mark.parametrize(
    ("cell", "error"),
    [
        ("%threadlab grade ID", "usage: %threadlab grade"),
        ("%threadlab grade ID nothing", "no name 'nothing' in the notebook"),
        ("%threadlab grade ID CHECKS", "is not a check"),
        ("%threadlab grade ID typo", "names tool 'ad'"),
        ("%threadlab grade thr_nope called", "no thread"),
    ],
)
def test_grade_usage_errors_say_what_to_do(shell: InteractiveShell, cell: str, error: str) -> None:
    thread = first_thread(shell)
    run(shell, CHECKS + f"CHECKS = {CHECKS!r}")
    result = shell.run_cell(cell.replace("ID", thread.id))
    assert result.error_in_exec is not None
    assert error in str(result.error_in_exec)


def test_class_shows_the_instructors_view(shell: InteractiveShell) -> None:
    first_thread(shell)  # a thread of no member: not a student's
    run(shell, CHECKS)
    run(shell, "student = tl.Runtime(user='ann')")
    run(shell, "await (await student.create_thread('calc')).send('What is 2 + 3?')")
    shown = run(shell, "%threadlab class calc called answered")
    assert isinstance(shown, ClassView)
    (row,) = shown.rows
    assert (row["member"], row["score"], row["max_score"]) == ("ann", 1.0, 3.0)
    result = shell.run_cell("%threadlab class calc nothing")
    assert "no name 'nothing' in the notebook" in str(result.error_in_exec)
