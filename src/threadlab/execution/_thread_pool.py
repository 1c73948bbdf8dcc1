"""Running a sync callable (a tool's execute, a hook) on a reused daemon thread, so that a
timeout holds for it without the cost of starting a thread per call.

A call that times out or is cancelled is abandoned where it runs: its late result lands on a
future nobody awaits, and the thread it holds is not handed another call until it returns. The
next call takes an idle thread or starts a new one, so an abandoned call never delays another
(the pool grows past it). Idle threads end after `IDLE_S`; at most `MAX_IDLE` wait at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["IDLE_S", "MAX_IDLE", "ReusedThreads", "on_pooled_thread"]

IDLE_S = 30.0
MAX_IDLE = 8

# A job runs the call and gives back what delivers its outcome, which the thread calls only once
# it is idle again: the caller's next call then finds it free instead of starting another.
_Job = Callable[[], Callable[[], None]]


class ReusedThreads:
    """Daemon threads that take sync calls one at a time and wait, idle, for the next."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[_Job]] = []
        self._threads = 0

    def submit(self, job: _Job, name: str) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
            if inbox is None:
                self._threads += 1
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), daemon=True).start()
        inbox.put(lambda: _named(job, name))

    def size(self) -> int:
        with self._lock:
            return self._threads

    def _serve(self, inbox: queue.SimpleQueue[_Job]) -> None:
        while True:
            try:
                job = inbox.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    # A job may have been handed to this inbox just as the wait ended.
                    if inbox in self._idle:
                        self._idle.remove(inbox)
                        self._threads -= 1
                        return
                continue
            deliver = job()
            with self._lock:
                stays = len(self._idle) < MAX_IDLE
                if stays:
                    self._idle.append(inbox)
                else:
                    self._threads -= 1
            deliver()
            if not stays:
                return


def _named(job: _Job, name: str) -> Callable[[], None]:
    # The thread takes the call's name while it runs it (a debugger or a stack dump says whose).
    thread = threading.current_thread()
    thread.name = name
    try:
        return job()
    finally:
        thread.name = "threadlab-idle"


_POOL = ReusedThreads()


async def on_pooled_thread(
    fn: Callable[..., Any],
    *args: Any,
    name: str,
    threads: ReusedThreads = _POOL,
    linger_s: float = 0.0,
) -> Any:
    """`fn(*args)` on a pooled daemon thread named `name` while it runs, awaited on the loop.

    `linger_s`: first wait that long for the call on the loop's own thread, blocking it, and
    take a result that is ready by then without going back through the loop. Waking the loop
    from another thread, and each thread waking the other for the interpreter lock, costs
    several times a short call (0.3-0.8 ms here); a short block of the loop costs less. A
    call still running after `linger_s` is awaited as usual (its timeout and cancellation
    hold, late by at most `linger_s`)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    done = threading.Event()
    outcome: list[Any] = []

    def settle(result: Any, exc: BaseException | None) -> None:
        if future.done() or claimed:  # (claimed is set on this thread: no race with it)
            return
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)

    def work() -> Callable[[], None]:
        try:
            result, error = fn(*args), None
        except BaseException as exc:
            result, error = None, exc

        def deliver() -> None:
            # Called once this thread is idle again: a caller that lingers and goes on at
            # once finds it free for its next call.
            outcome[:] = [result, error]
            done.set()
            if claimed:  # the lingering caller took it already (`settle` checks again)
                return
            # A closed loop means the call was abandoned long ago: nobody waits for the result.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, result, error)

        return deliver

    claimed: list[bool] = []
    threads.submit(work, name)
    if linger_s > 0 and done.wait(linger_s):
        claimed.append(True)
        # What the call handed the loop meanwhile (an event a tool emitted, which must be
        # stored before its result) runs first: it waits in the loop's queue, ahead of us.
        await asyncio.sleep(0)
        result, error = outcome
        if error is not None:
            raise error
        return result
    return await future
