"""Evaluation: one target over a table of cases and models (`tl.evaluate`), each run a
thread you can open, fork and replay; scorers as plain callables or pydantic-evals
evaluators; a report to summarise, compare and tabulate."""

from . import scorers
from ._cases import Case, EvalError
from ._context import EvalContext
from ._evaluate import evaluate
from ._report import EvalReport, EvalRow

__all__ = [
    "Case",
    "EvalContext",
    "EvalError",
    "EvalReport",
    "EvalRow",
    "evaluate",
    "scorers",
]
