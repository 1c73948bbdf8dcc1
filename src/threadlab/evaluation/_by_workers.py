"""An evaluation at team scale: every run queued in the shared store (PostgreSQL) for
`python -m threadlab worker` processes on any machine, claimed as workers claim children;
this process waits for the rows and scores them as they finish. A run whose worker died is
repaired and run again once, here, and its row says so."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .._data import Run, RunFinishedEvent
from .._errors import ThreadlabError
from ..runtime import Runtime, Thread
from ..threads import is_live
from ._cases import Case, EvalError
from ._outcome import outcome_of

__all__ = ["Queued", "queue_all", "wait_for_rows"]

RERUN_NOTE = "its worker stopped mid-run: repaired and run again here"


@dataclass
class Queued:
    """One run left for the workers."""

    index: int
    case: Case
    label: str
    repeat: int
    thread: Thread
    since: float


async def queue_all(
    rt: Runtime, target: str, name: str, grid: list[tuple[Case, Any, str, int]]
) -> list[Queued]:
    """Every run of the grid as a thread with its message queued for the workers."""
    for _, model, label, _ in grid:
        if model is not None and not isinstance(model, str):
            raise EvalError(
                f"runs left to workers take models by name (a worker process has no object of"
                f" this one): {label!r} is a {type(model).__name__}"
            )
    queued = []
    for index, (case, model, label, n) in enumerate(grid):
        thread = await rt.create_thread(target, env=case.env, origin=f"eval:{name}")
        paths = [(await thread.files.write(p, c)).path for p, c in case.attachments.items()]
        await thread.queue(case.message, attachments=paths, model=model)
        queued.append(Queued(index, case, label, n, thread, time.perf_counter()))
    return queued


async def wait_for_rows(
    rt: Runtime,
    queued: list[Queued],
    finished: Callable[[Queued, Run, float, str | None], Any],
) -> None:
    """Until every queued run has ended, at each look at the store, hand each one that ended
    to `finished` (with its duration and a note). Each look asks about the waiting threads
    only (a few indexed reads each), whatever else the store holds."""
    waiting = {q.thread.id: q for q in queued}
    while waiting:
        await asyncio.sleep(min(rt.poll_interval, 0.5))
        for thread_id, item in list(waiting.items()):
            ended = _ended(rt, item.thread)
            if ended is None:
                continue
            del waiting[thread_id]
            note = None
            if ended == "died":
                note = RERUN_NOTE
                try:
                    run = await item.thread.resume()  # repaired (if not yet), then run here
                except ThreadlabError as exc:  # it cannot run here either (a variable)
                    run = Run("run", item.thread.id, "failed", error=str(exc))
                if run.text is None and run.error is None:  # nothing was left open
                    run = outcome_of(item.thread)  # what the worker finished
            else:
                run = outcome_of(item.thread)
            await finished(item, run, (time.perf_counter() - item.since), note)


def _ended(rt: Runtime, thread: Thread) -> Literal["ended", "died"] | None:
    """How the run left to the workers ended: "ended" by itself, "died" with its worker
    (still marked running with no one alive to run it, or closed by whoever repaired it
    first: then it has no `run_finished`); None while it waits for a worker or runs."""
    if _finished(thread):
        return "ended"
    if rt.store.has_queued(thread.id):
        return None  # no worker took it yet
    leases = rt.store.running_runs(thread.id)
    if any(is_live(lease) for lease in leases):
        return None  # a worker runs it now
    # A run ends with its `run_finished` in the transaction that ends its lease: one that
    # ended since the first look has it now.
    return "ended" if not leases and _finished(thread) else "died"


def _finished(thread: Thread) -> bool:
    return any(isinstance(e, RunFinishedEvent) for e in thread.events)
