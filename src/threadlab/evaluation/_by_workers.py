"""An evaluation at team scale: every run queued in the shared store (PostgreSQL) for
`python -m threadlab worker` processes on any machine, claimed as workers claim children;
this process waits for the rows and scores them as they finish. A run whose worker died is
repaired and run again once, here, and its row says so."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._data import Run, RunFinishedEvent
from ..runtime import Runtime, Thread
from ..threads import is_live
from ._cases import Case, EvalError

__all__ = ["Queued", "queue_all", "wait_for_rows"]

RERUN_NOTE = "its worker stopped mid-run: repaired and run again here"
NO_OUTCOME = "the worker left no outcome"


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
    to `finished` (with its duration and a note)."""
    waiting = {q.thread.id: q for q in queued}
    rerun: set[str] = set()
    misses: dict[str, int] = {}
    while waiting:
        await asyncio.sleep(min(rt.limits.poll_interval, 0.5))
        for summary in rt.store.summarize_threads():
            item = waiting.get(summary.record.id)
            if item is None:
                continue
            if summary.running is not None and is_live(summary.running):
                continue  # a worker runs it now
            if rt.store.has_queued(item.thread.id) or summary.last_run_status is None:
                continue  # no worker took it yet
            note = None
            died = False
            if summary.last_run_status == "running":
                # The list is two reads: a run that ended between them looks orphaned. Ask
                # again about this thread alone before calling its worker dead.
                leases = rt.store.running_runs(item.thread.id)
                if any(is_live(lease) for lease in leases):
                    continue
                died = bool(leases)
            elif summary.last_run_status == "interrupted":
                # Whoever opened the thread first after its worker died (another worker that
                # had seen it queued, a notebook) repaired it and ended the run: then the run
                # has no `run_finished` of its own, which every run that ended itself has.
                died = not any(isinstance(e, RunFinishedEvent) for e in item.thread.events)
            if died and item.thread.id not in rerun:
                rerun.add(item.thread.id)  # repaired (if not yet), then run here
                run = await item.thread.resume()
                note = RERUN_NOTE
                if run.text is None:  # nothing was left open: what the worker finished
                    run = _outcome(item.thread)
            else:
                run = _outcome(item.thread)
            if run.error == NO_OUTCOME and misses.get(item.thread.id, 0) < 20:
                misses[item.thread.id] = misses.get(item.thread.id, 0) + 1
                continue  # its last event is not in yet: at the next look
            del waiting[item.thread.id]
            await finished(item, run, (time.perf_counter() - item.since), note)


def _outcome(thread: Thread) -> Run:
    """The run a worker finished, as the store has it: its last `run_finished`, the usage and
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
