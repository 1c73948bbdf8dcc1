"""The script-free view of the player's long thread (2,000 tool calls, 20 of them subagents):
its HTML and text, drawn from the thread's steps (`StaticView`), as a notebook keeps them
beside the widget at a run's end. The anchor: the view state the reopened view builds from
the same history (`replay`, what the static view was drawn from before), read the same way,
on a thread opened afresh. No target is stated: the static view is drawn when a run ends,
not while someone scrubs."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass

import threadlab as tl
from threadlab.widgets import StaticView, replay

from .player import CALLS, CHILDREN, build


@dataclass(frozen=True)
class StaticCost:
    static_ms: float
    """`StaticView(thread)`: its steps, messages and calls' events read, HTML and text drawn."""
    state_ms: float
    """`replay(thread).snapshot()`: the reopened view's state of the same history."""
    html_chars: int

    @property
    def ratio(self) -> float:
        return self.static_ms / self.state_ms


async def measure(calls: int = CALLS, children: int = CHILDREN, rounds: int = 5) -> StaticCost:
    store = tempfile.mkdtemp(prefix="threadlab-static-bench-")
    thread_id = await build(store, calls, children)
    static_s, state_s = [], []
    chars = 0
    for _ in range(rounds):  # the sides alternate, each on a thread opened afresh
        thread = tl.Runtime(None, store).thread(thread_id)
        started = time.perf_counter()
        chars = len(StaticView(thread).html)
        static_s.append(time.perf_counter() - started)
        thread = tl.Runtime(None, store).thread(thread_id)
        started = time.perf_counter()
        replay(thread).snapshot()
        state_s.append(time.perf_counter() - started)
    return StaticCost(statistics.median(static_s) * 1000, statistics.median(state_s) * 1000, chars)


def report(cost: StaticCost) -> str:
    return "\n".join(
        [
            "| thread | static view (ms) | view state (ms) | ratio | HTML (characters) |",
            "|---|---|---|---|---|",
            f"| {CALLS} calls, {CHILDREN} children | {cost.static_ms:.0f} |"
            f" {cost.state_ms:.0f} | {cost.ratio:.2f} | {cost.html_chars:,} |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
