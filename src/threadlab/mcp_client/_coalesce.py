"""What a server tells a call in floods — progress notifications, log messages — as events of
the call: each one live, as it comes; stored at most every `every` seconds, and the last one
always, so a server that sends thousands does not grow the store by as many rows. A stored
event may say how many before it were heard live only (`counted`: the key that holds it)."""

from __future__ import annotations

import time
from typing import Any

from ..threads import ThreadState

__all__ = ["Coalesced"]


class Coalesced:
    """The events of one kind (`event_type`) one call hears."""

    every = 0.25

    def __init__(self, state: ThreadState, event_type: str, counted: str | None = None) -> None:
        self._state = state
        self._type = event_type
        self._counted = counted
        self._stored_at = -self.every
        self._unstored: dict[str, Any] | None = None
        self._skipped = 0  # heard live only since the last one stored

    def __call__(self, data: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - self._stored_at < self.every:
            self._unstored = data
            self._skipped += 1
            self._state.emit(self._type, data, stored=False)
            return
        self._stored_at = now
        self._state.emit(self._type, self._with_count(data, self._skipped))
        self._unstored, self._skipped = None, 0

    def keep_last(self) -> None:
        """Store the last one if it was only heard live (live listeners hear it once more:
        the same value, with the count when there is one)."""
        if self._unstored is not None:
            self._state.emit(self._type, self._with_count(self._unstored, self._skipped - 1))
            self._unstored, self._skipped = None, 0

    def _with_count(self, data: dict[str, Any], skipped: int) -> dict[str, Any]:
        if self._counted is None or skipped <= 0:
            return data
        return {**data, self._counted: skipped}
