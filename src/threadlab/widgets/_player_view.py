"""A thread's history to step through: `tl.player(thread)` and `%threadlab play ID`.

The kernel sends the history once — the thread's whole view state (its descendants' too), the
ordered points of its history, each point's narration and each thread's variables where they
changed (a secret only as `[secret:NAME]`) — and the front end draws the thread as of any
point from that alone: scrubbing asks nothing of the kernel.

In a notebook the narration (and each model step's choices, which come from the same reading
of the events) is written once the cell has shown the player, before the cell ends: on a long
history it is half the work and half the bytes, and a person looks at the thread before they
turn "explain" on. The output the notebook keeps is then brought up to date, so a reopened
player tells the steps too.
"""

from __future__ import annotations

import html
import time
from typing import Any, cast

from IPython import get_ipython

from .. import Runtime, Thread, ThreadEvent
from .._gc_paused import gc_paused
from ._history import history_and_events, tell, told_additions
from ._json_text import as_json_text
from ._replay import replay
from ._views import ThreadView

__all__ = ["PlayerView", "player"]


class PlayerView(ThreadView):
    """A thread as of any point of its history, stepped through back and forth."""

    def __init__(self, rt: Runtime, thread: Thread, **kwargs: Any) -> None:
        # One message takes the whole history to the front end: the widget's own state.
        with gc_paused():
            started = time.monotonic()
            points, events, places = history_and_events(thread)
            cost = time.monotonic() - started
            state = replay(thread, events)
            super().__init__(
                rt, state, patches=False, view="player", points=points, narrating=True, **kwargs
            )
        self._playing_from(points, cost)
        self._thread = thread
        self._events: list[ThreadEvent] | None = events  # told from, then let go
        self._places = places
        shell = get_ipython()
        if getattr(shell, "kernel", None) is None:  # no front end is waiting to draw it
            self._tell()
        else:  # once the cell has shown the player, before the cell ends
            shell.events.register("post_run_cell", self._told_after_cell)

    def _told_after_cell(self, *_: Any) -> None:
        get_ipython().events.unregister("post_run_cell", self._told_after_cell)
        self._tell()

    def _tell(self) -> None:
        """Add the narration and the variables to the points sent (unless newer points,
        told, replaced them) and to what the notebook keeps."""
        if not self.narrating:
            return
        told = tell(self._thread, self._rt.store, self.points, self._events, self._places)
        self._events = None
        added = told_additions(self.points, told)
        # The front end has the points: it gets what the narration adds to them. Here they
        # are kept whole, for what the notebook keeps (not sent again: ipywidgets sends no
        # value equal to the one under its lock).
        with self._lock_property(points=as_json_text(told)):
            self.points = told
        with self.hold_sync():
            self.told, self.narrating = added, False
        self.refresh_output()

    # Until it is told, the output the cell shows holds no history: the live player draws
    # from its widget, and the output's data (what the notebook keeps) comes with the
    # narration a moment later. A long history is then not serialised, sent and copied
    # twice on the way to a player someone is waiting for.
    def saved_state(self) -> dict[str, Any]:
        if self.narrating:
            return {"view": self.view, "key": self.key, "pending": True}
        return {**super().saved_state(), "points": self.points}

    def static_html(self) -> str:
        if self.narrating:
            return f"<pre>{html.escape(self._title())}</pre>"
        return super().static_html()

    def __repr__(self) -> str:
        if self.narrating:
            return self._title()
        return f"{self._title()}\n{super().__repr__()}"

    def static_texts(self) -> tuple[str, str]:
        if self.narrating:
            return self._title(), self.static_html()
        text, page = super().static_texts()
        return f"{self._title()}\n{text}", page

    def _title(self) -> str:
        return f"player of {self.state.root_id}: {len(self.points)} points"


def player(thread: Thread) -> PlayerView:
    """The player of `thread`: its history (its subagents' included) point by point — the
    conversation, files, variables and subagent tree as of each point, each step's
    narration — stepped back and forth with buttons, the ← / → keys or a scrubber, or played
    at a pace."""
    return PlayerView(cast(Runtime, thread._runtime), thread)
