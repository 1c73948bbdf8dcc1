"""Work at each run's end that could grow with the thread: the live OpenTelemetry export.

One thread grows to 2,000 tool calls in runs of 10 calls. After every run its spans are
exported twice, timed apart: by a live exporter (`tl.Runtime(tracer_provider=...)`'s, which
keeps what it read of the thread between runs) and by `threadlab.otel.traces(thread, run_id)`
alone, which reads the whole thread each time (the anchor: what the live export did before).
The table gives each one's mean time per run around a number of calls; flat means each run
costs what it did.
"""

from __future__ import annotations

import asyncio
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


@dataclass
class Point:
    calls: int
    live_ms: float
    whole_ms: float


async def measure(calls: int = 2000, per_run: int = 10, at: tuple[int, ...] = ()) -> list[Point]:
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
    points = []
    with tempfile.TemporaryDirectory() as directory:
        rt = tl.Runtime(registry, directory, secret_key="bench", max_steps=per_run + 5)
        thread = await rt.create_thread("bench")
        for done in range(per_run, calls + 1, per_run):
            left[0] = per_run
            run = await thread.send("go")
            started = time.perf_counter()
            export(thread, run)
            live.append(time.perf_counter() - started)
            started = time.perf_counter()
            (tree,) = traces(thread, run.id)
            whole.append(time.perf_counter() - started)
            assert len(tree.spans) == 2 * per_run + 2  # the run, each step, each call
            exporter.clear()
            if done in at:
                points.append(
                    Point(
                        done,
                        statistics.mean(live[-5:]) * 1000,
                        statistics.mean(whole[-5:]) * 1000,
                    )
                )
        rt.close()
    return points


def report(points: list[Point]) -> str:
    lines = [
        "| calls so far | live export ms/run | whole-thread read ms/run |",
        "|---|---|---|",
    ]
    lines += [f"| {p.calls} | {p.live_ms:.1f} | {p.whole_ms:.1f} |" for p in points]
    first, last = points[0], points[-1]
    lines.append("")
    live = last.live_ms / first.live_ms
    whole = last.whole_ms / first.whole_ms
    lines.append(
        f"live export, {last.calls} calls / {first.calls} calls: {live:.2f}x"
        f" (whole-thread read: {whole:.2f}x)"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
