"""The player on a long thread: 2,000 tool calls (20 of them subagents, each child with a
history of its own), as `tl.player` gets it — the history's points with their narration and
the whole trace, sent to the front end once. Here, the kernel's side: how long building them
takes and how much goes over the comm. The front end's side (opening in Chromium and seeking)
is measured by `tests/browser/test_player_speed.py` on a thread built by `build` below."""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import threadlab as tl
from threadlab.widgets._history import history_of
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
    trace_ms: float
    points_bytes: int
    trace_bytes: int


async def measure(rounds: int = 3) -> PlayerCost:
    store = tempfile.mkdtemp(prefix="threadlab-player-bench-")
    thread_id = await build(store)
    points_s, trace_s = [], []
    for _ in range(rounds):
        thread = tl.Runtime(None, store).thread(thread_id)  # nothing read yet
        started = time.perf_counter()
        points = history_of(thread)
        points_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        trace = replay(thread).snapshot()
        trace_s.append(time.perf_counter() - started)
    return PlayerCost(
        len(points),
        statistics.median(points_s) * 1000,
        statistics.median(trace_s) * 1000,
        len(json.dumps(points)),
        len(json.dumps(trace)),
    )


def report(cost: PlayerCost) -> str:
    return "\n".join(
        [
            "| thread | points | build the points (ms) | build the trace (ms)"
            " | points sent (KB) | trace sent (KB) |",
            "|---|---|---|---|---|---|",
            f"| {CALLS} calls, {CHILDREN} children | {cost.points} | {cost.points_ms:.0f} |"
            f" {cost.trace_ms:.0f} | {cost.points_bytes / 1024:.0f} |"
            f" {cost.trace_bytes / 1024:.0f} |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
