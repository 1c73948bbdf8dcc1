"""Driving a view from a thread: live, while a run streams, or replayed from the store."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..runtime._events import Event, RunFinishedEvent
from ..runtime._messages import Message
from ._throttle import Throttle
from ._trace import TraceState
from ._views import TraceView

if TYPE_CHECKING:
    from ..runtime._runtime import Runtime
    from ..runtime._thread import Thread

__all__ = ["LiveRun", "replay", "trace_for"]


def trace_for(thread: Thread) -> TraceState:
    rt = thread._rt

    def lookup(thread_id: str, message_id: str) -> Message | None:
        return rt.thread(thread_id).find_message(message_id)

    state = TraceState(thread.id, lookup)
    state.add_thread(thread.id, None, thread.agent, thread.name, thread.status)
    return state


def _tree(thread: Thread) -> Iterable[Thread]:
    yield thread
    for child in thread.children:
        yield from _tree(child)


def replay(thread: Thread) -> TraceState:
    """The trace of a persisted thread and its descendants, rebuilt from their events."""
    state = trace_for(thread)
    threads = list(_tree(thread))
    for child in threads[1:]:
        state.add_thread(child.id, child.parent_id, child.agent, child.name, child.status)
    events: list[Event] = [e for t in threads for e in t.events]
    events.sort(key=lambda e: e.at)
    for event in events:
        state.apply(event)
    for child in threads[1:]:
        state.threads[child.id]["status"] = child.status
    state.drafts.clear()
    return state


class LiveRun:
    """One `send` of a thread, streamed into a TraceView at most `rate` updates a second."""

    def __init__(self, rt: Runtime, thread: Thread, rate: float) -> None:
        self.thread = thread
        self.state = trace_for(thread)
        self.view = TraceView(rt, self.state, live=True)
        self.throttle = Throttle(self.view.push, rate)
        self.finished: RunFinishedEvent | None = None

    async def run(self, message: str, attachments: Iterable[str] = ()) -> RunFinishedEvent:
        try:
            async for event in self.thread.stream(message, attachments=attachments):
                self.state.apply(event)
                if isinstance(event, RunFinishedEvent) and event.thread_id == self.thread.id:
                    self.finished = event
                self.throttle.touch()
        except BaseException:
            self._settle()
            self.throttle.close()
            raise
        self._settle()
        await self.throttle.drain()
        assert self.finished is not None
        return self.finished

    def _settle(self) -> None:
        # Children report their lifecycle (completed, idle, failed), not just run status.
        for thread_id, entry in self.state.threads.items():
            if thread_id != self.thread.id:
                entry["status"] = self.thread._rt.thread(thread_id).status
        self.view.finishing = True
