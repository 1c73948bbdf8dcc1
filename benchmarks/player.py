"""The player on a long thread: 2,000 tool calls (20 of them subagents, each child with a
history of its own), as `tl.player` gets it — the history's points with their narration and
the whole trace, sent to the front end once. Here, the kernel's side: how long building them
takes and how much goes over the comm, before the player shows and (the narration) after.
The front end's side (opening in Chromium and seeking) is measured by
`tests/browser/test_player_speed.py` on a thread built by `build` below."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import threadlab as tl
from threadlab.widgets._history import history_and_events, tell, told_additions
from threadlab.widgets._json_text import as_json_text
from threadlab.widgets._replay import replay

from .fork import _registry

CALLS = 2000
CHILDREN = 20


async def build(store: str | Path, calls: int = CALLS, children: int = CHILDREN) -> str:
    """A completed thread of `calls` tool calls, `children` of them subagents, in `store`;
    its id."""
    registry = _registry(calls, children)
    rt = tl.Runtime(registry, store, max_steps=calls + 10)
    thread = await rt.create_thread("boss")
    run = await thread.send("note everything")
    if run.status != "completed" or len(thread.children) != children:
        raise RuntimeError(f"the long thread did not complete: {run}")
    rt.close()
    return thread.id


@dataclass(frozen=True)
class PlayerCost:
    points: int
    points_ms: float
    """The points as they go out with the player (no narration yet), the tree's events read
    and parsed with them."""
    tell_ms: float
    """The narration and the choices added to them, sent right after."""
    trace_ms: float
    """The whole trace, rebuilt from those events."""
    points_bytes: int
    told_bytes: int
    """What the narration adds, sent after."""
    trace_bytes: int


async def measure(rounds: int = 3) -> PlayerCost:
    store = tempfile.mkdtemp(prefix="threadlab-player-bench-")
    thread_id = await build(store)
    points_s, tell_s, trace_s = [], [], []
    for _ in range(rounds):
        rt = tl.Runtime(None, store)
        thread = rt.thread(thread_id)  # nothing read yet
        # As the player does: the tree's events are read once, with the points.
        started = time.perf_counter()
        points, events, places = history_and_events(thread)
        points_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        trace = replay(thread, events).snapshot()
        trace_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        told = tell(thread, rt.store, points, events, places)
        tell_s.append(time.perf_counter() - started)
    return PlayerCost(
        len(points),
        statistics.median(points_s) * 1000,
        statistics.median(tell_s) * 1000,
        statistics.median(trace_s) * 1000,
        len(as_json_text(points).encode()),
        len(as_json_text(told_additions(points, told)).encode()),
        len(as_json_text(trace).encode()),
    )


def report(cost: PlayerCost) -> str:
    return "\n".join(
        [
            "| thread | points | trace, from the events (ms) | points and events (ms)"
            " | narration, after (ms)"
            " | trace sent (KB) | points sent (KB) | narration sent after (KB) |",
            "|---|---|---|---|---|---|---|---|",
            f"| {CALLS} calls, {CHILDREN} children | {cost.points} | {cost.trace_ms:.0f} |"
            f" {cost.points_ms:.0f} | {cost.tell_ms:.0f} | {cost.trace_bytes / 1024:.0f} |"
            f" {cost.points_bytes / 1024:.0f} | {cost.told_bytes / 1024:.0f} |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
