"""Work that could grow with the thread at every run or update: the live OpenTelemetry
export at each run's end, and a live view's update in the kernel.

One thread grows to 2,000 tool calls in runs of 10 calls. After every run its spans are
exported twice, timed apart: by a live exporter (`tl.Runtime(tracer_provider=...)`'s, which
keeps what it read of the thread between runs) and by `threadlab.otel.traces(thread, run_id)`
alone, which reads the whole thread each time (the anchor: what the live export did before).

Then the thread's events are streamed into a view's trace state, with an update every 10
events, each update built two ways, timed apart: from what the events touched, merged into the
kernel's copy in place (how a live view updates now), and from a copy of the whole state
compared with what was sent, the kernel's copy replaced (how it updated before). The tables
give mean times around a number of calls; flat means each costs what it did.

Each run itself is timed too, beside pydantic-ai running the same 10 calls with the thread's
history so far (`agent.run(..., message_history=...)`, how it continues a conversation): a
run that continues a long thread should cost what a run of a short one does.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import threadlab as tl
from threadlab.otel import live_export, traces
from threadlab.widgets._patches import Patcher, apply_patch
from threadlab.widgets._replay import trace_for


@dataclass
class Point:
    calls: int
    live_ms: float
    whole_ms: float


@dataclass
class Growth:
    exports: list[Point]
    updates: list[Point]  # per view update: what changed / whole state, in ms
    runs: list[Point]  # per run: threadlab / pydantic-ai with the history so far, in ms


async def measure(calls: int = 2000, per_run: int = 10, at: tuple[int, ...] = ()) -> Growth:
    """Mean export time per run over the 5 runs before each of `at` calls (default: the 100th,
    500th, 1,000th and last)."""
    at = at or tuple(sorted({min(100, calls), min(500, calls), min(1000, calls), calls}))
    registry = tl.Registry()

    async def noop(state: tl.ThreadState, args: Any) -> str:
        return "ok"

    tl.define_tool("noop", description="Do nothing.", execute=noop, registry=registry)
    left = [0]

    def decide(messages: Any, tools: Any) -> Any:
        if left[0] == 0:
            return tl.models.text("done")
        left[0] -= 1
        return tl.models.call("noop", {})

    model = tl.models.FunctionModel(decide)
    tl.define_prompt("bench", prompt="x", model=model, tools=["noop"], registry=registry)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    export = live_export(provider)
    live: list[float] = []
    whole: list[float] = []
    ours: list[float] = []
    theirs: list[float] = []
    anchor = _PydanticAiRuns(per_run)
    points = []
    runs = []
    with tempfile.TemporaryDirectory() as directory:
        rt = tl.Runtime(registry, directory, secret_key="bench", max_steps=per_run + 5)
        thread = await rt.create_thread("bench")
        for done in range(per_run, calls + 1, per_run):
            left[0] = per_run
            started = time.perf_counter()
            run = await thread.send("go")
            ours.append(time.perf_counter() - started)
            theirs.append(await anchor.run())
            started = time.perf_counter()
            export(thread, run)
            live.append(time.perf_counter() - started)
            started = time.perf_counter()
            (tree,) = traces(thread, run.id)
            whole.append(time.perf_counter() - started)
            assert len(tree.spans) == 2 * per_run + 2  # the run, each step, each call
            exporter.clear()
            if done in at:
                points.append(Point(done, _mean_ms(live), _mean_ms(whole)))
                runs.append(Point(done, _mean_ms(ours), _mean_ms(theirs)))
        updates = view_updates(thread, rt, per_run, at)
        rt.close()
    return Growth(points, updates, runs)


def _mean_ms(seconds: list[float]) -> float:
    """The mean of the last five, in ms."""
    return statistics.mean(seconds[-5:]) * 1000


class _PydanticAiRuns:
    """pydantic-ai continuing one conversation, `per_run` no-op tool calls a run."""

    def __init__(self, per_run: int) -> None:
        from pydantic_ai import Agent
        from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel

        self.per_run = per_run
        self.left = 0
        self.history: list[ModelMessage] = []

        def decide(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            if self.left == 0:
                return ModelResponse(parts=[TextPart("done")])
            self.left -= 1
            return ModelResponse(parts=[ToolCallPart("noop", {})])

        self.agent = Agent(FunctionModel(decide))

        @self.agent.tool_plain
        async def noop() -> str:
            """Do nothing."""
            return "ok"

    async def run(self) -> float:
        """Seconds one more run of the conversation takes."""
        from pydantic_ai import UsageLimits

        self.left = self.per_run
        started = time.perf_counter()
        result = await self.agent.run(
            "go",
            message_history=self.history,
            usage_limits=UsageLimits(request_limit=None, tool_calls_limit=None),
        )
        took = time.perf_counter() - started
        assert result.output == "done"
        self.history = result.all_messages()
        return took


def view_updates(
    thread: tl.Thread, rt: tl.Runtime, per_run: int, at: tuple[int, ...]
) -> list[Point]:
    """The thread's events into a view's state, an update every 10 events, timed both ways."""
    now, before = trace_for(thread, rt.thread), trace_for(thread, rt.thread)
    now_patcher, before_patcher = Patcher(), Patcher()
    kernel = now.snapshot()
    now_patcher.reset(kernel)
    now.take_changed()
    before_patcher.reset(before.snapshot())
    changed: list[float] = []
    whole: list[float] = []
    points: list[Point] = []
    calls = 0
    for n, event in enumerate(thread.events, 1):
        now.apply(event)
        before.apply(event)
        calls += isinstance(event, tl.ToolCallFinishedEvent)
        if n % 10:
            continue
        started = time.perf_counter()
        patch = now_patcher.changes(now)
        apply_patch(kernel, patch)
        changed.append(time.perf_counter() - started)
        started = time.perf_counter()
        snapshot = before.snapshot()
        before_patcher.patch(snapshot)
        json.loads(json.dumps(snapshot))  # the kernel's copy, replaced
        whole.append(time.perf_counter() - started)
        if at and calls >= at[len(points)]:
            points.append(Point(calls, statistics.mean(changed[-20:]) * 1000,
                                statistics.mean(whole[-20:]) * 1000))  # fmt: skip
            if len(points) == len(at):
                break
    assert kernel == now.snapshot()
    return points


def report(growth: Growth) -> str:
    lines = []
    for points, (now, before), what, anchor in (
        (
            growth.exports,
            ("live export ms/run", "whole-thread read ms/run"),
            "live export",
            "before",
        ),
        (
            growth.updates,
            ("what changed ms/update", "whole state ms/update"),
            "view update",
            "before",
        ),
        (growth.runs, ("threadlab ms/run", "pydantic-ai ms/run"), "a run", "pydantic-ai"),
    ):
        lines += [f"| calls so far | {now} | {before} |", "|---|---|---|"]
        lines += [f"| {p.calls} | {p.live_ms:.2f} | {p.whole_ms:.2f} |" for p in points]
        first, last = points[0], points[-1]
        lines.append("")
        lines.append(
            f"{what}, {last.calls} calls / {first.calls} calls: "
            f"{last.live_ms / first.live_ms:.2f}x ({anchor}: {last.whole_ms / first.whole_ms:.2f}x)"
        )
        lines.append("")
    return "\n".join(lines).rstrip()


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
