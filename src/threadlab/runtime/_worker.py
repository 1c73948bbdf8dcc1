"""A worker: runs, in this process, the children that runtimes elsewhere left in the shared
store for workers (`Runtime(children="workers")`), and sends each report back to its parent
through the store; and the runs queued for workers (`Thread.queue`: an evaluation's cases).

A lead in one kernel and its children on other machines need nothing but the store between
them: the handoff is a queued message, the claim takes it with the child's lease in one
transaction (so two workers never run the same child), and the report is queued on the
parent in the transaction that ends the child's run (so the parent never sees the child done
without its report).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from .._data import Run, ThreadMeta
from ..execution import (
    RunHost,
    child_outcome,
    deliver_report,
    fail_queued,
    run_queued,
)
from ..store import ThreadRecord
from ..threads import ThreadContext
from ._thread import Thread

__all__ = ["ServingRuntime", "Worker"]

log = logging.getLogger("threadlab.worker")

MAX_BACKOFF = 30.0
"""The longest wait between two looks at a store that cannot be read."""


class ServingRuntime(RunHost, Protocol):
    """What a worker needs of the runtime it serves with."""

    def context(self, thread_id: str) -> ThreadContext: ...
    def thread(self, thread_id: str) -> Thread: ...
    def run_finished(self, thread: Thread, run: Run) -> None: ...


class Worker:
    """`Runtime.serve`: at most `concurrency` children at a time."""

    def __init__(self, runtime: ServingRuntime, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        self.runtime = runtime
        self.store = runtime.store
        self.concurrency = concurrency
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._not_ours: set[str] = set()  # threads that are no worker's (that never changes)
        self._warned: set[str] = set()  # workers' threads of agents not defined here

    async def serve(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()

        def heard(_thread_id: str) -> None:  # on the store's listening thread
            loop.call_soon_threadsafe(woken.set)

        unwatch = self.store.watch_queue(heard)
        stopping = asyncio.ensure_future(stop.wait())
        failures = 0
        try:
            while not stop.is_set():
                woken.clear()  # before looking: a notification from here on wakes the wait
                try:
                    self._start_ready()
                    failures = 0
                except Exception as exc:  # the store is out of reach: look again, later
                    failures += 1
                    delay = min(MAX_BACKOFF, 0.5 * 2**failures)
                    log.warning("cannot read the store (%s); looking again in %.1f s", exc, delay)
                    await asyncio.wait([stopping], timeout=delay)
                    continue
                waking = asyncio.ensure_future(woken.wait())
                await asyncio.wait(
                    [stopping, waking, *self.tasks.values()],
                    timeout=self.runtime.limits.poll_interval,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                waking.cancel()
        finally:
            unwatch()
            stopping.cancel()
            if self.tasks:
                await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    def _start_ready(self) -> None:
        for thread_id in self.store.queued_threads():
            if len(self.tasks) >= self.concurrency:
                return
            if thread_id in self.tasks or thread_id in self._not_ours:
                continue
            record = self.store.get_thread(thread_id)
            if record is None or not self._ours(record):
                continue
            self.tasks[thread_id] = asyncio.create_task(self._work(thread_id))

    def _ours(self, record: ThreadRecord) -> bool:
        """A thread left for workers, of an agent or prompt this runtime defines."""
        meta = ThreadMeta.read(record.metadata)
        if meta is None or meta.runs_on != "workers":
            self._not_ours.add(record.id)
            return False
        agent = meta.answering_agent or record.target
        registry = self.runtime.registry
        if registry.agent(agent) is None and registry.prompt(agent) is None:
            if record.id not in self._warned:  # once, not at every look
                self._warned.add(record.id)
                log.warning("thread %s waits for a worker that defines agent %r", record.id, agent)
            return False
        return True

    async def _work(self, thread_id: str) -> None:
        """Run the child until nothing waits for it."""
        try:
            while True:
                context = self.runtime.context(thread_id)
                try:
                    run = await run_queued(self.runtime, context, _reporter(context))
                except Exception as exc:  # it could not run at all: its parent hears of it
                    log.warning("worker could not run thread %s: %s", thread_id, exc)
                    fail_queued(context, context.redact(str(exc)))
                    return
                if run is None:
                    return
                self.runtime.run_finished(self.runtime.thread(thread_id), run)
        finally:
            self.tasks.pop(thread_id, None)


def _reporter(child: ThreadContext) -> _Report | None:
    parent = child.parent()
    if parent is None or child.identity.parent_communication != "implicit":
        return None
    return _Report(parent, child)


class _Report:
    """Queues the outcome of a child's run on its parent (called in the run's last
    transaction)."""

    def __init__(self, parent: ThreadContext, child: ThreadContext) -> None:
        self.parent = parent
        self.child = child

    def __call__(self, run: Run) -> None:
        deliver_report(self.parent, self.child, child_outcome(self.parent, self.child, run))
