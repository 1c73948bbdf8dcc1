"""Advancing a run one step at a time: each step's handler does it and names the next."""

from __future__ import annotations

from ._call_step import run_call
from ._children_wait import wait_for_children
from ._decision_step import decide
from ._model_step import call_model
from ._running import Running
from ._steps import DecisionStep, ModelStep, RunStep, ToolCallStep, WaitForChildren

__all__ = ["advance", "drive"]


async def advance(scope: Running, step: RunStep) -> RunStep | None:
    """Do `step`; the step that follows it, or None when its turn (or wait) is over."""
    match step:
        case ModelStep():
            return await call_model(scope, step)
        case ToolCallStep():
            return await run_call(scope, step)
        case DecisionStep():
            return await decide(scope, step)
        case WaitForChildren():
            return await wait_for_children(scope, step)


async def drive(scope: Running, step: RunStep | None) -> None:
    """Advance from `step` until no step follows."""
    while step is not None:
        step = await advance(scope, step)
