"""What handing a sync call to another thread and awaiting it costs, by itself: threadlab's
pooled threads (`execution/_thread_pool.py`) side by side with asyncio's `to_thread` and the
loop's default executor (what pydantic-ai's and most async code's sync tools go through).

A sync tool call must leave the loop's thread (a timeout and cancellation hold only so), so
this round trip is in every sync call on both sides of `benchmarks.overhead`'s sync shape: it
is the floor of what a sync call costs over an async one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from threadlab.execution._thread_pool import on_pooled_thread

from .overhead import threadlab_runs


def _noop() -> int:
    return 1


async def _time(hop: Callable[[], Awaitable[object]], calls: int) -> float:
    """Microseconds per round trip, best of three."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(calls):
            await hop()
        best = min(best, (time.perf_counter() - started) / calls * 1e6)
    return best


async def measure(calls: int = 2000) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    hops: dict[str, Callable[[], Awaitable[object]]] = {
        "threadlab pooled threads": lambda: on_pooled_thread(_noop, name="bench"),
        "asyncio.to_thread": lambda: asyncio.to_thread(_noop),
        "loop default executor": lambda: loop.run_in_executor(None, _noop),
    }
    for hop in hops.values():  # threads started, first calls out of the way
        await _time(hop, 20)
    return {label: await _time(hop, calls) for label, hop in hops.items()}


async def sync_over_async(runs: int = 30, calls: int = 10, rounds: int = 3) -> tuple[float, float]:
    """threadlab alone, ms per call of the realistic shape with an async tool and with a sync
    one, measured alternately (best of `rounds`): what a sync call costs over an async one
    inside a whole run, to set beside the bare round trip."""
    await threadlab_runs(2, 5, realistic=True)
    await threadlab_runs(2, 5, realistic=True, sync=True)
    best_async = best_sync = float("inf")
    for _ in range(rounds):
        best_async = min(best_async, await threadlab_runs(runs, calls, realistic=True))
        best_sync = min(best_sync, await threadlab_runs(runs, calls, realistic=True, sync=True))
    per_call = 1000 / (runs * calls)
    return best_async * per_call, best_sync * per_call


def report(results: dict[str, float]) -> str:
    ours = results["threadlab pooled threads"]
    rows = ["| round trip | µs per call | ratio (threadlab / this) |", "|---|---|---|"]
    rows += [f"| {label} | {us:.0f} | {ours / us:.2f} |" for label, us in results.items()]
    return "\n".join(rows)


async def main() -> str:
    """Both measurements, as recorded in benchmarks/README.md."""
    table = report(await measure())
    async_ms, sync_ms = await sync_over_async()
    return (
        f"{table}\n\nthreadlab, whole runs, alternating: async {async_ms:.3f} ms/call, sync"
        f" {sync_ms:.3f} ms/call: a sync call costs {1000 * (sync_ms - async_ms):.0f} µs more"
    )


if __name__ == "__main__":
    print(asyncio.run(main()))
