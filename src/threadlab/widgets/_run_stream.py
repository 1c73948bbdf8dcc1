"""Streaming one run of a thread into a view state: each event folded in as it comes, the view
pushed at most `rate` times a second, and what the store knows settled in at the end. Shared
by `LiveRun` (a `%%thread` cell's view) and a view that runs a branch it made itself."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable

from .. import MessageCreatedEvent, RunFinishedEvent, Runtime, Thread, ThreadStatusEvent
from ._replay import catch_up
from ._static import request_text
from ._throttle import Throttle
from ._view_state import ViewState

__all__ = ["RunStream"]

LOOK_ELSEWHERE_EVERY = 0.5
"""Seconds between two looks at the store for what children in other processes did."""


class RunStream:
    """One run of `thread` streamed into `state`; `push` sends the view what changed and
    `finishing` tells it the next push is the last."""

    def __init__(
        self,
        rt: Runtime,
        thread: Thread,
        state: ViewState,
        push: Callable[[], None],
        finishing: Callable[[], None],
        rate: float,
    ) -> None:
        self.runtime = rt
        self.thread = thread
        self.state = state
        self.throttle = Throttle(push, rate)
        self._finishing = finishing
        self.finished: RunFinishedEvent | None = None
        self.seen: Counter[str] = Counter()  # the events the run streamed in, by type
        self.ran_here: set[str] = {thread.id}  # the threads whose messages streamed in live
        # Threads another process runs (an engine's worker): how many of their stored events
        # are folded in. Their runs stream there; here they are read from the store.
        self.elsewhere: dict[str, int] = {}

    async def run(
        self,
        message: str | None = None,
        attachments: Iterable[str] = (),
        *,
        step: bool | str = False,
    ) -> RunFinishedEvent:
        """Stream the run of `message` (None: resume what the history leaves open); `step`:
        where it pauses for a person (as `Thread.send` takes it)."""
        looking = asyncio.ensure_future(self._look_elsewhere())
        try:
            stream = self.thread.stream(message, attachments=attachments, step=step)  # type: ignore[arg-type]
            async for event in stream:
                self.state.apply(event)
                self.seen[event.type] += 1
                if isinstance(event, MessageCreatedEvent):  # a run here: not a worker's
                    self.ran_here.add(event.thread_id)
                if isinstance(event, RunFinishedEvent) and event.thread_id == self.thread.id:
                    self.finished = event
                self.throttle.touch()
        except BaseException:
            looking.cancel()
            self._settle()
            self.throttle.close()
            raise
        looking.cancel()
        self._settle()
        await self.throttle.drain()
        assert self.finished is not None
        return self.finished

    async def _look_elsewhere(self) -> None:
        """While the run goes on, fold in what its children running in another process
        stored since the last look: their cards and progress show as they go."""
        while True:
            await asyncio.sleep(LOOK_ELSEWHERE_EVERY)
            if self._fold_elsewhere():
                self.throttle.touch()

    def _fold_elsewhere(self) -> bool:
        """Fold in the new stored events of the threads run in another process (a thread is
        one when its first stored event says it was left "queued" for it); whether any."""
        folded = False
        for thread_id in [t for t in self.state.threads if t not in self.ran_here]:
            thread = self.runtime.thread(thread_id)
            events = thread.events
            if thread_id not in self.elsewhere:
                first = events[0] if events else None
                if not (isinstance(first, ThreadStatusEvent) and first.status == "queued"):
                    continue  # it runs here, and streams its events in itself
                self.elsewhere[thread_id] = 0
            for event in events[self.elsewhere[thread_id] :]:
                self.state.apply(event)
                folded = True
            self.elsewhere[thread_id] = len(events)
        return folded

    def _settle(self) -> None:
        # A child run in another process streamed there: what it did is in the store.
        self._fold_elsewhere()
        for thread_id in [t for t in self.state.threads if t not in self.ran_here]:
            if thread_id not in self.elsewhere:
                catch_up(self.state, self.runtime.thread(thread_id))
        # Children report their lifecycle (completed, idle, failed), not just run status.
        for thread_id, entry in self.state.threads.items():
            if thread_id != self.thread.id:
                entry["status"] = self.runtime.thread(thread_id).status
        # The store has the truth of every call (an interrupted one has its result there).
        self.state.settle(
            lambda thread_id: [
                m for m in self.runtime.thread(thread_id).all_messages() if m.role == "tool"
            ]
        )
        paused = self.thread.next_request
        if self.state.run.get("stop_reason") == "waiting: model step" and paused is not None:
            offered = [str(tool.get("name", "")) for tool in paused.tools]
            self.state.paused_before(request_text(paused), offered)
        self._finishing()
