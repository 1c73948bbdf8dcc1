"""An evaluation whose runs leave this process: each run of the grid is a thread made here,
its case's message left to the runtime's engine (a Ray task that opens it from the store and
runs it); each row is scored here as its run ends. A run whose worker died is run on by the
engine (its interrupted call answered "interrupted") and its row says so; one whose every
try died is an error row."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .._data import Run
from .._errors import ThreadlabError
from ..execution import repair
from ..runtime import Handled, Runtime, Thread
from ._cases import Case
from ._outcome import outcome_of
from ._report import EvalRow

__all__ = ["ENGINE_RERUN_NOTE", "WORKER_GONE", "run_on_engine"]

ENGINE_RERUN_NOTE = "its worker stopped mid-run: the engine ran it on (its call was interrupted)"
WORKER_GONE = "failed: its worker stopped (each time the engine tried)"

Score = Callable[[Case, str, int, Thread, Run, float], Awaitable[EvalRow]]


async def run_on_engine(
    rt: Runtime,
    target: str,
    name: str,
    cell: tuple[Case, Any, str, int],
    score: Score,
) -> EvalRow:
    """One run of the grid on the engine, scored here once it ended."""
    case, model, label, repeat_n = cell
    started = time.perf_counter()
    try:
        thread = await rt.create_thread(target, env=case.env, model=model, origin=f"eval:{name}")
        paths = [(await thread.files.write(p, c)).path for p, c in case.attachments.items()]
        handed = await thread.queue(case.message, attachments=paths, model=model)
    except ThreadlabError as exc:  # it could not start: a missing variable, a bad path
        return EvalRow(case.name, label, repeat_n, None, "error", error=str(exc),
                       duration_ms=(time.perf_counter() - started) * 1000)  # fmt: skip
    assert handed is not None  # the runtime has an engine
    note = None
    try:
        outcome: Handled = await handed
        run = outcome.run if outcome.run is not None else outcome_of(thread)
        note = ENGINE_RERUN_NOTE if outcome.repaired else None
    except asyncio.CancelledError:
        raise
    except Exception:  # every try's worker died: what they did is in its history
        repair(thread._context)
        run = Run("run", thread.id, "failed", error=WORKER_GONE)
    row = await score(case, label, repeat_n, thread, run, time.perf_counter() - started)
    row.note = note
    return row
