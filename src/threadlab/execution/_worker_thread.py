"""Running a sync callable (a tool's execute, a hook) in a daemon thread, so that a timeout
holds for it. On timeout or cancellation the thread is abandoned: its late result lands on a
future nobody awaits."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["in_worker_thread"]


async def in_worker_thread(fn: Callable[..., Any], *args: Any, name: str) -> Any:
    """`fn(*args)` in a new daemon thread named `name`, awaited on the running loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, exc: BaseException | None) -> None:
        if future.done():
            return
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as exc:
            result, error = None, exc
        # A closed loop means the call was abandoned long ago: nobody waits for the result.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name=name, daemon=True).start()
    return await future
