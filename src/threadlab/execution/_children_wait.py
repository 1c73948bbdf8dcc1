"""The wait for a run's non-blocking children: until they end, answering what they (or
another process) queue for the thread meanwhile."""

from __future__ import annotations

import asyncio

from ._running import Running
from ._shapes import ai_human, session, top_frame
from ._steps import RunStep, WaitForChildren

__all__ = ["wait_for_children"]


async def wait_for_children(scope: Running, step: WaitForChildren) -> RunStep | None:
    """Wait once; when a message was queued, answer it and wait again (the same step);
    None when nothing runs or waits any more."""
    waited = await _wait(scope)
    if scope.context.inbox.waiting():
        if step.dual:
            await session(scope, step.turn_start)
        else:
            await ai_human(
                scope, top_frame(scope, scope.definitions.agent.side_a, step.turn_start, None)
            )
    elif not waited:
        return None
    return step if scope.state.going else None


async def _wait(scope: Running) -> bool:
    """Wait for the children still running, here or at workers. A message queued for this
    thread meanwhile (a child's report, a message from another process) ends the wait early:
    the thread answers it now, then waits on. A store that can tell (PostgreSQL) wakes the
    wait at once; otherwise the queue is looked at every `poll_interval` seconds."""
    if scope.supervisor.idle:
        return False  # no watch to start, no waiter to make
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()
    me = scope.context.id

    def heard(thread_id: str) -> None:  # on the store's listening thread
        if thread_id == me:
            loop.call_soon_threadsafe(woken.set)

    stop = scope.host.store.watch_queue(heard)
    try:
        return await scope.supervisor.wait(
            woken, scope.context.inbox.waiting, scope.limits.poll_interval
        )
    finally:
        stop()
