"""At most `rate` view updates a second, however fast events arrive: the first change is
sent at once, later ones are coalesced into the next allowed slot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

__all__ = ["Throttle"]


class Throttle:
    def __init__(self, flush: Callable[[], None], rate: float) -> None:
        self._flush = flush
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def touch(self) -> None:
        """Something changed: flush now if allowed, else once the interval has passed."""
        if self._timer is not None:
            return
        wait = self._last + self.interval - time.monotonic()
        if wait <= 0:
            self._run()
            return
        self._timer = asyncio.get_running_loop().call_later(wait, self._run)

    def _run(self) -> None:
        self._timer = None
        self._flush()
        # Counted from when the update went out: building it can take a while on a long
        # view state, and the cap is on what the front end receives.
        self._last = time.monotonic()

    async def drain(self) -> None:
        """Send what is pending once the interval allows it (the run is over)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        wait = self._last + self.interval - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self._run()

    def close(self) -> None:
        """Send what is pending now, whatever the interval (the run was cancelled)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._run()
