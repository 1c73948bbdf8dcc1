"""SQLite checkpoints off the writer's path, against SQLite's own (a checkpoint inside
whichever commit crosses 1,000 log pages): the latency of every COMMIT over the realistic
overhead shape (50 runs x 10 calls, one integer argument in 8-character chunks), and the
wall time of that workload, alternating, best of 7."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence

from threadlab.store import SQLiteStore

from .overhead import threadlab_runs


class TimedStore(SQLiteStore):
    """The default store, its COMMITs timed."""

    commits: list[float] | None = None  # set once open: the schema's commit is not counted

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        if sql != "COMMIT":
            return super()._execute(sql, params)
        started = time.perf_counter()
        try:
            return super()._execute(sql, params)
        finally:
            if self.commits is not None:
                self.commits.append(time.perf_counter() - started)


class SelfCheckpointingStore(TimedStore):
    """As SQLite does by itself: the writer checkpoints, no background thread."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory)
        self._db.execute("PRAGMA wal_autocheckpoint=1000")

    def _committed(self) -> None:
        pass


async def measure(kind: type[TimedStore], commits: list[float]) -> float:
    def open_store(directory: str) -> TimedStore:
        store = kind(directory)
        store.commits = commits  # from here on: the workload's commits
        return store

    return await threadlab_runs(50, 10, realistic=True, open_store=open_store)


def latency_row(label: str, commits: list[float]) -> str:
    ordered = sorted(c * 1e6 for c in commits)
    top = ordered[int(len(ordered) * 0.99) :]
    return (
        f"| {label} | {len(ordered)} | {statistics.median(ordered):.0f} |"
        f" {ordered[int(len(ordered) * 0.99)]:.0f} | {ordered[-1]:.0f} | {sum(top) / 1000:.1f} |"
    )


async def main() -> str:
    await measure(TimedStore, [])  # warm-up
    walls: dict[str, list[float]] = {"background": [], "in the commit": []}
    commits: dict[str, list[float]] = {"background": [], "in the commit": []}
    for _ in range(7):
        walls["background"].append(await measure(TimedStore, commits["background"]))
        walls["in the commit"].append(
            await measure(SelfCheckpointingStore, commits["in the commit"])
        )
    lines = [
        "| checkpoints | commits | p50 (µs) | p99 (µs) | max (µs) | slowest 1% in all (ms) |",
        "|---|---|---|---|---|---|",
        *(latency_row(label, values) for label, values in commits.items()),
        "",
        "| checkpoints | best wall of 7 (s, 500 calls) |",
        "|---|---|",
        *(f"| {label} | {min(values):.3f} |" for label, values in walls.items()),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(asyncio.run(main()))
