"""`ThreadDiff` of two long threads (2,000 tool calls each): two that did the same, and two
whose every call result differs (a timestamp or a request id in each, as real tools return),
beside the anchor, reading both threads' steps (`thread.steps()`), which a diff cannot do
without. A diff aligns the steps both took; a middle too long to match in good time stands side
by side in order, so its cost follows the threads' length, not its square."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, text
from threadlab.widgets import ThreadDiff

CALLS = 2000


def _registry(calls: int, tag: str) -> tl.Registry:
    registry = tl.Registry()
    tl.define_tool("note", description="Note.", registry=registry,
                   execute=lambda s, a: f"noted {a['n']}{tag}",
                   args={"type": "object", "properties": {"n": {"type": "integer"}}})  # fmt: skip

    def lead(messages: list[tl.Message], tools: Any) -> Any:
        done = sum(1 for m in messages if m.role == "tool")
        return call("note", {"n": done}) if done < calls else text("all noted")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(lead), tools=["note"],
                     registry=registry)  # fmt: skip
    return registry


async def _build(store: Path, calls: int, tag: str) -> str:
    rt = tl.Runtime(_registry(calls, tag), store, max_steps=calls + 10)
    thread = await rt.create_thread("lead")
    await thread.send("note everything")
    rt.close()
    return thread.id


@dataclass(frozen=True)
class DiffCost:
    case: str
    rows: int
    diff_ms: float
    """`ThreadDiff(a, b)` on threads just opened."""
    steps_ms: float
    """Both threads' `steps()`, on threads just opened."""

    @property
    def ratio(self) -> float:
        return self.diff_ms / self.steps_ms


async def measure(calls: int = CALLS, rounds: int = 3) -> list[DiffCost]:
    store = Path(tempfile.mkdtemp(prefix="threadlab-diff-bench-"))
    first = await _build(store, calls, "")
    same = await _build(store, calls, "")
    stamped = await _build(store, calls, " at 12:00:01")
    costs = []
    for case, other in (("the same calls", same), ("every result differs", stamped)):
        diff_s, steps_s, rows = [], [], 0
        for _ in range(rounds):  # the sides alternate, each on threads opened afresh
            rt = tl.Runtime(None, store)
            started = time.perf_counter()
            rt.thread(first).steps()
            rt.thread(other).steps()
            steps_s.append(time.perf_counter() - started)
            rt.close()
            rt = tl.Runtime(None, store)
            started = time.perf_counter()
            rows = len(ThreadDiff(rt.thread(first), rt.thread(other)).rows)
            diff_s.append(time.perf_counter() - started)
            rt.close()
        costs.append(
            DiffCost(
                case, rows, statistics.median(diff_s) * 1000, statistics.median(steps_s) * 1000
            )
        )
    return costs


def report(costs: list[DiffCost]) -> str:
    lines = [
        f"| two threads of {CALLS} calls | rows | ThreadDiff (ms) | both steps() (ms) | ratio |",
        "|---|---|---|---|---|",
    ]
    for cost in costs:
        lines.append(
            f"| {cost.case} | {cost.rows} | {cost.diff_ms:.0f} | {cost.steps_ms:.0f} |"
            f" {cost.ratio:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
