"""Whether a live view that shows a thread is on screen: where a person can answer for one of
its calls (a decision, a server's form). A live view is displayed when its run starts and a
front end draws it a moment later, so the question waits that moment for it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Protocol

__all__ = ["Shows", "on_screen"]


class Shows(Protocol):
    rendered: bool
    live: bool

    def shows(self, thread_id: str) -> bool: ...


async def on_screen(views: Iterable[Shows], thread_id: str, wait_s: float) -> bool:
    """Whether one of `views` (a live one a front end has drawn) shows `thread_id`, within
    `wait_s` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        if any(v.live and v.rendered and v.shows(thread_id) for v in list(views)):
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.05)
