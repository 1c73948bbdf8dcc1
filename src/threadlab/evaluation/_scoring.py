"""Scoring one row: plain callables `(tl.EvalContext) -> bool | float | str | dict` (sync or
async) and pydantic-evals `Evaluator`s, asked as they are (with the `EvaluatorContext` they
expect: the case's message as inputs, the run's final text as output)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ._cases import EvalError
from ._context import EvalContext

__all__ = ["check_scorer", "scorer_name", "scores_of"]


def is_evaluator(value: Any) -> bool:
    """A pydantic-evals Evaluator (without importing pydantic-evals when none is used)."""
    return type(value).__module__.split(".")[0] != "threadlab" and any(
        c.__module__.startswith("pydantic_evals") and c.__name__ == "Evaluator"
        for c in type(value).__mro__
    )


def check_scorer(scorer: Any) -> None:
    if not (is_evaluator(scorer) or callable(scorer)):
        raise EvalError(
            f"a scorer must be a callable (tl.EvalContext) -> bool | float | dict or a"
            f" pydantic_evals Evaluator, got {scorer!r}"
        )


def scorer_name(scorer: Any) -> str:
    if is_evaluator(scorer):
        return str(scorer.get_default_evaluation_name())
    return str(getattr(scorer, "__name__", type(scorer).__name__))


async def scores_of(scorer: Any, ctx: EvalContext, duration_s: float) -> dict[str, Any]:
    """The scores `scorer` gives the row (a dict answer gives one score per key)."""
    name = scorer_name(scorer)
    if is_evaluator(scorer):
        value = await scorer.evaluate_async(_evaluator_context(ctx, duration_s))
    else:
        value = scorer(ctx)
        if inspect.isawaitable(value):
            value = await value
    if isinstance(value, Mapping):
        return {str(k): _scalar(v) for k, v in value.items()}
    return {name: _scalar(value)}


def _scalar(value: Any) -> Any:
    reason_value = getattr(value, "value", None)
    if type(value).__name__ == "EvaluationReason":
        return reason_value
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    raise TypeError(f"a score must be a bool, number or str, not {type(value).__name__}")


def _evaluator_context(ctx: EvalContext, duration_s: float) -> Any:
    from pydantic_evals.evaluators import EvaluatorContext
    from pydantic_evals.otel import SpanTreeRecordingError

    return EvaluatorContext(
        name=ctx.case.name,
        inputs=ctx.case.message,
        metadata=ctx.case.metadata,
        expected_output=ctx.case.expected,
        output=ctx.output,
        duration=duration_s,
        _span_tree=SpanTreeRecordingError("threadlab keeps a run's steps in its thread"),
        attributes={"thread_id": ctx.thread.id, "model": ctx.model, "status": ctx.run.status},
        metrics={k: float(v) for k, v in (ctx.run.usage or {}).items()},
    )
