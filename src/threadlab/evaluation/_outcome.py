"""How a run another process finished ended, as the store has it."""

from __future__ import annotations

from .._data import Run, RunFinishedEvent
from ..runtime import Thread

__all__ = ["NO_OUTCOME", "outcome_of"]

NO_OUTCOME = "the worker left no outcome"


def outcome_of(thread: Thread) -> Run:
    """The run another process finished, as the store has it: its last `run_finished`, the usage and
    cost of the turn's steps."""
    events = thread.events
    last = next((e for e in reversed(events) if isinstance(e, RunFinishedEvent)), None)
    if last is None:
        return Run("run", thread.id, "failed", error=NO_OUTCOME)
    steps = [m for m in thread.all_messages() if m.role == "assistant" and m.usage]
    usage: dict[str, int] = {}
    for message in steps:
        for key, value in (message.usage or {}).items():
            usage[key] = usage.get(key, 0) + value
    costs = [m.cost_usd for m in steps]
    cost = None if None in costs else sum(c or 0.0 for c in costs)
    return Run(last.run_id, thread.id, last.status, text=last.text, error=last.error,
               usage=usage or None, cost_usd=cost)  # fmt: skip
