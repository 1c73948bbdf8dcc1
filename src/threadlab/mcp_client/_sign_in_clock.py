"""A session's clock that stands still while a person signs in: the handshake and a listing
have a timeout, which measures the server, not how long someone takes to click "Allow"."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["SignInClock"]


class SignInClock:
    """Whether a person is signing in now: a session's timeouts stand still meanwhile."""

    def __init__(self) -> None:
        self.busy = 0
        self._waiters: set[asyncio.Future[None]] = set()

    @contextlib.contextmanager
    def person(self) -> Iterator[None]:
        self.busy += 1
        self._wake()
        try:
            yield
        finally:
            self.busy -= 1
            self._wake()

    async def wait(
        self, awaitables: Iterable[asyncio.Future[Any]], seconds: float
    ) -> set[asyncio.Future[Any]]:
        """As `asyncio.wait(..., FIRST_COMPLETED)` with a timeout of `seconds`, counting only
        the time nobody was signing in (so not `asyncio.timeout`, whose clock never stops);
        empty when they ran out."""
        loop = asyncio.get_running_loop()
        pending = set(awaitables)
        left = seconds
        while True:
            changed = loop.create_future()
            self._waiters.add(changed)
            busy, began = self.busy > 0, loop.time()
            try:
                done, _ = await asyncio.wait(
                    pending | {changed}, timeout=None if busy else max(left, 0),
                    return_when=asyncio.FIRST_COMPLETED,
                )  # fmt: skip
            finally:
                self._waiters.discard(changed)
                changed.cancel()
            finished = done & pending
            if finished:
                return finished
            if not busy:
                left -= loop.time() - began
                if left <= 0 and self.busy == 0:
                    return set()

    def _wake(self) -> None:
        for waiter in list(self._waiters):
            if not waiter.done():
                waiter.set_result(None)
