"""Driving a view from a thread while a run streams."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .. import RunFinishedEvent, Runtime, Thread
from ._replay import trace_for
from ._run_stream import RunStream
from ._throttle import Throttle
from ._view_state import ViewState
from ._views import ThreadView

__all__ = ["LiveRun"]


class LiveRun:
    """One `send` of a thread, streamed into a new ThreadView at most `rate` updates a
    second."""

    def __init__(self, rt: Runtime, thread: Thread, rate: float) -> None:
        self.runtime = rt
        self.thread = thread
        self.state: ViewState = trace_for(thread, rt.thread)
        # The view shows this run, but the thread's files as they are: a thread run again
        # holds what its earlier runs wrote (its conversation so far is in the cells above).
        for record in thread.files.list_sync():
            self.state.files.setdefault(thread.id, {})[record.path] = record.size
        self.view = ThreadView(rt, self.state, live=True)
        self._stream = RunStream(rt, thread, self.state, self.view.push, self._finishing, rate)

    def _finishing(self) -> None:
        self.view.finishing = True

    @property
    def throttle(self) -> Throttle:
        return self._stream.throttle

    @property
    def seen(self) -> Counter[str]:
        """The events the run streamed in, by type."""
        return self._stream.seen

    @property
    def finished(self) -> RunFinishedEvent | None:
        return self._stream.finished

    @property
    def ran_here(self) -> set[str]:
        """The threads whose messages streamed in live (not a worker's)."""
        return self._stream.ran_here

    async def run(
        self,
        message: str | None = None,
        attachments: Iterable[str] = (),
        *,
        step: bool | str = False,
    ) -> RunFinishedEvent:
        """Stream the run of `message` (None: resume what the history leaves open); `step`:
        where it pauses for a person (as `Thread.send` takes it; Continue in the view goes
        on in the same mode)."""
        self.view.step = step
        return await self._stream.run(message, attachments, step=step)
