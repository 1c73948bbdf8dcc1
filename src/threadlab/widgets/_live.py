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
            self.state.files.setdefault(thread.id, {})[record.path] = (record.size, record.digest)
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
        if message is None:
            self._show_open_step()
        return await self._stream.run(message, attachments, step=step)

    def _show_open_step(self) -> None:
        """A resume goes on from calls the model asked for earlier (decided since, or left
        before they ran): the view shows that step first — the model's message, each call's
        card with its arguments and decision ("edited from" included) — so what the run
        adds reads below it, in order."""
        events = self.thread.events
        start = None
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if event.type == "message_created" and not event.depth and event.role != "tool":
                message = self.thread.find_message(event.message_id)
                if message is None or message.role != "assistant" or not message.tool_calls:
                    return  # the history does not end in a step with calls: nothing open
                start = index
                break
        if start is None:
            return
        while start and events[start - 1].type == "tool_call_started":
            start -= 1  # its calls' progress streamed before the message was stored
        for event in events[start:]:
            if event.type not in ("thread_status", "run_finished"):
                self.state.apply(event)
