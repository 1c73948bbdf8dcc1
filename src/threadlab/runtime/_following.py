"""A run, followed (`thread.iter()`): each step handed to the caller as it ends, read from the
store as the run writes it, and the run paused before its next step when the caller stops
following — like pydantic-ai's `agent.iter`, over a history that is the record.

It is also how every run of a thread starts: `send` and `resume` take it to its end without
following its steps, and `stream` follows its events instead. One run, four ways to watch it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from types import TracebackType

from .._data import Run, RunFinishedEvent, StepRecord, ThreadEvent
from ..execution import Follower, StepFeed

__all__ = ["FollowedRun"]

Listener = Callable[[ThreadEvent], None]
StartRun = Callable[[Listener | None, Follower | None], Awaitable[Run]]
"""Starts the run: with a listener for its events (or none), followed by a `Follower` (or
run to its end)."""
QueuedEnd = Callable[[Run], RunFinishedEvent]
"""The last event a stream yields for a run left to the engine (whose own end is written by
the worker that runs it, later)."""


class FollowedRun:
    """`async with thread.iter(...) as run`: `async for step in run` yields each
    `tl.StepRecord` of the run (its descendants' included) as it ends. The run takes its
    next top-level step only once the loop asks for one, so leaving the loop (or the
    `async with`) pauses it there, and `resume()` goes on from there. `run.result`: the
    `tl.Run` once the loop saw it end."""

    def __init__(self, start: StartRun, feed: Callable[[], StepFeed]) -> None:
        self._start = start
        self._feed_of = feed  # made only when steps are followed: a run taken to its end
        self._feed: StepFeed | None = None  # reads nothing of the store on the way
        self._woken = asyncio.Event()
        self._follower = Follower(self._woken.set)
        self._task: asyncio.Future[Run] | None = None
        self.result: Run | None = None
        """The run once the loop has seen it end (None until then, and if it left early)."""

    async def _to_end(self) -> Run:
        """The run, taken to its end (or its pause) with no one following it: `send` and
        `resume`."""
        self.result = await self._start(None, None)
        return self.result

    async def _events(self, queued_end: QueuedEnd) -> AsyncGenerator[ThreadEvent, None]:
        """The run's events (its descendants' too) as they happen, the last `run_finished`
        (`queued_end`'s for a run left to the engine): `stream`. Closing the iterator early
        cancels the run (its unfinished calls get "interrupted" results)."""
        queue: asyncio.Queue[ThreadEvent | None] = asyncio.Queue()
        task = asyncio.ensure_future(self._start(queue.put_nowait, None))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            self.result = await task
            if self.result.status == "queued":
                yield queued_end(self.result)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def __aenter__(self) -> FollowedRun:
        self._feed = self._feed_of()
        self._feed.skip()  # the steps of earlier runs are the history's, not this run's
        self._task = asyncio.ensure_future(self._start(self._wake, self._follower))
        self._task.add_done_callback(lambda _: self._woken.set())
        return self

    def _wake(self, _event: ThreadEvent) -> None:
        self._woken.set()

    def __aiter__(self) -> AsyncIterator[StepRecord]:
        return self._steps()

    async def _steps(self) -> AsyncIterator[StepRecord]:
        task, feed = self._task, self._feed
        if task is None or feed is None:
            raise RuntimeError("use thread.iter() with `async with`")
        while True:
            self._woken.clear()
            ended = task.done()  # read before the store: what the run wrote last is read too
            at_step = self._follower.waiting  # then all it did before that step is stored
            for step in feed.read(final=ended):
                yield step
            if ended:
                self.result = task.result()
                return
            if at_step:
                self._follower.go()  # every step so far taken: the run takes the next
            await self._woken.wait()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        task = self._task
        if task is None or task.done():
            if task is not None and not task.cancelled() and self.result is None:
                task.exception()  # retrieved: an error the loop never saw is not logged twice
            return
        if kind is not None and not issubclass(kind, Exception):  # cancelled, interrupted
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return
        self._follower.leave()  # the step running ends; the run pauses before the next one
        await task
