"""The instructor's view of a class (`tl.class_view`) over 200 students with 20 threads each
(4,000 threads, one call and an answer each), graded on two checks: opening it and each
refresh, beside the thread list of the same store (`ThreadListView`, one query), its anchor.
Targets: open in 1 s or less, a refresh in 200 ms or less."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import threadlab as tl
from threadlab import grading as g
from threadlab.widgets import ClassView, ThreadListView

STUDENTS = 200
THREADS_EACH = 20


@dataclass(frozen=True)
class ClassCost:
    members: int
    threads: int
    open_ms: float
    refresh_ms: float
    list_ms: float
    """The thread list of the same store, opened the same way."""

    @property
    def ratio(self) -> float:
        return self.open_ms / self.list_ms


def _registry() -> tl.Registry:
    registry = tl.Registry()

    def write(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return f"wrote {args['path']}"

    path = {"type": "object", "properties": {"path": {"type": "string"}}}
    tl.define_tool("write", description="Write.", execute=write, args=path, registry=registry)
    model = tl.models.FunctionModel(
        lambda messages, tools: (
            tl.models.text("done")
            if messages[-1].role == "tool"
            else tl.models.call("write", {"path": "/index.html"})
        )
    )
    tl.define_prompt("site", prompt="Pages.", tools=["write"], model=model, registry=registry)
    return registry


async def build(store: str, registry: tl.Registry, students: int, each: int) -> None:
    for index in range(students):
        rt = tl.Runtime(registry, store, user=f"student_{index:03d}")
        for _ in range(each):
            await (await rt.create_thread("site")).send("make the page")
        rt.close()


async def measure(students: int = STUDENTS, each: int = THREADS_EACH, rounds: int = 5) -> ClassCost:
    store = tempfile.mkdtemp(prefix="threadlab-class-bench-")
    registry = _registry()
    await build(store, registry, students, each)
    checks = [g.called("write", path="/index.html"), g.answer_contains("done")]
    open_s, refresh_s, list_s = [], [], []
    view: ClassView | None = None
    for _ in range(rounds):  # the sides alternate, each on a runtime opened afresh
        rt = tl.Runtime(registry, store)
        started = time.perf_counter()
        view = ClassView(rt, exercise="site", checks=checks)
        open_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        view.refresh()
        refresh_s.append(time.perf_counter() - started)
        view.close()
        rt.close()
        rt = tl.Runtime(registry, store)
        started = time.perf_counter()
        listing = ThreadListView(rt)
        list_s.append(time.perf_counter() - started)
        listing.close()
        rt.close()
    assert view is not None
    return ClassCost(
        len(view.rows),
        students * each,
        statistics.median(open_s) * 1000,
        statistics.median(refresh_s) * 1000,
        statistics.median(list_s) * 1000,
    )


def report(cost: ClassCost) -> str:
    return "\n".join(
        [
            f"class view over {cost.members} members, {cost.threads:,} threads",
            f"  open     {cost.open_ms:8.1f} ms   (target 1000)",
            f"  refresh  {cost.refresh_ms:8.1f} ms   (target 200)",
            f"  thread list of the same store {cost.list_ms:8.1f} ms",
            f"  ratio open / list {cost.ratio:.2f}",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
