"""A thread's history to step through: `tl.player(thread)` and `%threadlab play ID`.

The kernel sends the history once — the thread's whole trace (its descendants' too), the
ordered points of its history and each point's narration — and the front end draws the
thread as of any point from that alone: scrubbing asks nothing of the kernel.
"""

from __future__ import annotations

import time
from typing import Any, cast

from .. import Runtime, Thread
from ._gc_paused import gc_paused
from ._history import history_of
from ._replay import replay
from ._views import STATIC, ThreadView

__all__ = ["PlayerView", "player"]


class PlayerView(ThreadView):
    """A thread as of any point of its history, stepped through back and forth."""

    _esm = STATIC / "player.js"

    def __init__(self, rt: Runtime, thread: Thread, **kwargs: Any) -> None:
        # One message takes the whole history to the front end: the widget's own state.
        with gc_paused():
            state = replay(thread)
            started = time.monotonic()
            points = history_of(thread)
            cost = time.monotonic() - started
            super().__init__(rt, state, patches=False, view="player", points=points, **kwargs)
        self._playing_from(points, cost)

    def saved_state(self) -> dict[str, Any]:
        return {**super().saved_state(), "points": self.points}

    def __repr__(self) -> str:
        return f"player of {self.state.root_id}: {len(self.points)} points\n{super().__repr__()}"


def player(thread: Thread) -> PlayerView:
    """The player of `thread`: its history (its subagents' included) point by point — the
    conversation, files and subagent tree as of each point, each step's narration — stepped
    back and forth with buttons, the ← / → keys or a scrubber, or played at a pace."""
    return PlayerView(cast(Runtime, thread._runtime), thread)
