"""`thread.steps()` on the player's long thread (2,000 tool calls, 20 of them subagents with
histories of their own), beside what the player reads of the same history today: its points
and the tree's events (`history_and_events`), which every view re-groups on its own. The
target: the steps of that thread in 100 ms or less, no slower than the points. Beside them,
the OpenTelemetry export of the whole thread (its spans, without content), which reads the
same steps: no slower than it was before it did (recorded in benchmarks/README.md)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import threadlab as tl
from threadlab.otel import traces
from threadlab.widgets._history import history_and_events

from .player import CALLS, CHILDREN, build


@dataclass(frozen=True)
class StepsCost:
    steps: int
    steps_ms: float
    """`thread.steps()`, on a thread just opened (nothing of it read yet)."""
    points: int
    points_ms: float
    """The player's points and the tree's events, read the same way."""
    spans: int
    export_ms: float
    """The thread's traces (`threadlab.otel.traces`, without content), read the same way."""

    @property
    def ratio(self) -> float:
        return self.steps_ms / self.points_ms


async def measure(calls: int = CALLS, children: int = CHILDREN, rounds: int = 5) -> StepsCost:
    store = tempfile.mkdtemp(prefix="threadlab-steps-bench-")
    thread_id = await build(store, calls, children)
    steps_s, points_s, export_s = [], [], []
    steps: list[tl.StepRecord] = []
    points: list[dict[str, Any]] = []
    spans = 0
    for _ in range(rounds):  # the sides alternate, each on a thread opened afresh
        thread = tl.Runtime(None, store).thread(thread_id)
        started = time.perf_counter()
        steps = thread.steps()
        steps_s.append(time.perf_counter() - started)
        thread = tl.Runtime(None, store).thread(thread_id)
        started = time.perf_counter()
        points = history_and_events(thread).points
        points_s.append(time.perf_counter() - started)
        thread = tl.Runtime(None, store).thread(thread_id)
        started = time.perf_counter()
        spans = sum(len(tree.spans) for tree in traces(thread))
        export_s.append(time.perf_counter() - started)
    return StepsCost(
        len(steps),
        statistics.median(steps_s) * 1000,
        len(points),
        statistics.median(points_s) * 1000,
        spans,
        statistics.median(export_s) * 1000,
    )


def report(cost: StepsCost) -> str:
    return "\n".join(
        [
            "| thread | steps | thread.steps() (ms) | points | points and events (ms) | ratio |"
            " spans | export (ms) |",
            "|---|---|---|---|---|---|---|---|",
            f"| {CALLS} calls, {CHILDREN} children | {cost.steps} | {cost.steps_ms:.0f} |"
            f" {cost.points} | {cost.points_ms:.0f} | {cost.ratio:.2f} | {cost.spans} |"
            f" {cost.export_ms:.0f} |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
