"""Where a tool call's time goes: the realistic shape of `overhead.py` (one integer argument
streamed in 8-character chunks, 10 calls per run) on a SQLite store that times every statement
it runs, so each call's time splits into the store's work, statement by statement, and the rest
(the runtime's Python), beside pydantic-ai's time for the same workload in the same run.

The floor of this shape is the store's part that persisting each step before the next needs:
two transactions per call (the assistant message with its call, then the call's result), each
a BEGIN IMMEDIATE, its rows and a COMMIT."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import threadlab as tl

from .overhead import pydantic_ai_runs, threadlab_runs

Log = list[tuple[bool, str, Sequence[Any]]]
"""Statements in the order they ran: whether for many rows, the SQL, its parameters."""


@dataclass
class Timings:
    """Seconds spent in each kind of statement, how many ran, and each statement in order
    with its parameters (whether it ran once or for many rows), to be replayed. Every
    statement is logged; only those run while `on` are timed and counted."""

    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    log: Log = field(default_factory=list)
    on: bool = True
    marks: list[int] = field(default_factory=list)  # the log's length at each `clock`

    def clock(self, running: bool) -> None:
        """The benchmark's clock started (True) or stopped (False): time what runs between,
        not the store's schema or what is read and checkpointed once the clock stopped."""
        self.on = running
        self.marks.append(len(self.log))

    def timed_part(self) -> tuple[Log, Log]:
        """The log before the clock started, and from then until it stopped."""
        start, stop = self.marks[0], self.marks[-1]
        return self.log[:start], self.log[start:stop]


class TimedStore(tl.SQLiteStore):
    """A SQLite store that adds up the time of each kind of statement it runs in `timings`."""

    def __init__(self, directory: str, timings: Timings) -> None:
        self.timings = timings  # before the store's first statements, its schema's
        super().__init__(directory)

    @contextmanager
    def _timed(self, many: bool, sql: str, params: Sequence[Any]) -> Iterator[None]:
        self.timings.log.append((many, sql, params))
        if not self.timings.on:
            yield
            return
        words = sql.split()
        kind = " ".join(words[:3:2]) if words[0] == "INSERT" else words[0]
        started = time.perf_counter()
        try:
            yield
        finally:
            seconds, counts = self.timings.seconds, self.timings.counts
            seconds[kind] = seconds.get(kind, 0.0) + time.perf_counter() - started
            counts[kind] = counts.get(kind, 0) + 1

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        with self._timed(False, sql, params):
            return super()._execute(sql, params)

    def _executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        rows = list(rows)
        with self._timed(True, sql, rows):
            super()._executemany(sql, rows)

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._timed(False, sql, params):
            return super()._read(sql, params)


@dataclass(frozen=True)
class CallCost:
    calls: int
    ours_s: float
    theirs_s: float
    store_s: dict[str, float]  # by statement kind
    statements: dict[str, int]
    raw_s: float  # the same statements replayed through sqlite3, nothing around them
    raw_without_s: dict[str, float]  # replayed without some of the event rows, by which

    def per_call_us(self, seconds: float) -> float:
        return seconds * 1e6 / self.calls

    @property
    def store_total_s(self) -> float:
        return sum(self.store_s.values())


# Event rows a replay can leave out, to price what storing them costs the store: the
# `message_created` rows (each repeats a message row's id and role, and gives it its place in
# the events' sequence), or every event row.
LEAVE_OUT = {
    "the message_created rows": lambda row: row[1] == "message_created",
    "any event row": lambda row: True,
}


def without_events(log: Log, leave_out: Callable[[Sequence[Any]], bool]) -> Log:
    """`log` without the event rows `leave_out` picks (an insert left with no rows goes)."""
    kept: Log = []
    for many, sql, params in log:
        if many and sql.startswith("INSERT INTO events"):
            params = [row for row in params if not leave_out(row)]
            if not params:
                continue
        kept.append((many, sql, params))
    return kept


def replay(log: Log, untimed: int = 0) -> float:
    """Seconds to run the statements of `log` again, in order, through `sqlite3` alone, on a
    new file set up as the store sets up its own (WAL, synchronous=NORMAL, no automatic
    checkpoints); the first `untimed` (the schema's, say) run before the clock starts."""
    with tempfile.TemporaryDirectory() as directory:
        db = sqlite3.connect(Path(directory) / "threads.sqlite3", isolation_level=None)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "wal_autocheckpoint=0"):
            db.execute(f"PRAGMA {pragma}")
        started = 0.0
        for n, (many, sql, params) in enumerate(log):
            if n == untimed:
                started = time.perf_counter()
            if many:
                db.executemany(sql, params)
            else:
                db.execute(sql, params).fetchall()
        took = time.perf_counter() - started if len(log) > untimed else 0.0
        db.close()
    return took


async def measure(runs: int = 50, calls: int = 10, rounds: int = 5) -> CallCost:
    """Each side's best of `rounds` alternating rounds of `runs` x `calls`, after a warm-up;
    the store's statements as timed in threadlab's best round, and replayed."""
    await threadlab_runs(1, 2, realistic=True)
    await pydantic_ai_runs(1, 2, realistic=True)
    best: tuple[float, Timings] | None = None
    theirs = float("inf")
    for _ in range(rounds):
        timings = Timings(on=False)
        opener = functools.partial(TimedStore, timings=timings)
        ours = await threadlab_runs(
            runs, calls, realistic=True, open_store=opener, clock=timings.clock
        )
        if best is None or ours < best[0]:
            best = (ours, timings)
        theirs = min(theirs, await pydantic_ai_runs(runs, calls, realistic=True))
    assert best is not None
    ours, timings = best
    before, timed = timings.timed_part()
    raw = min(replay(before + timed, untimed=len(before)) for _ in range(3))
    without = {
        what: min(
            replay(before + without_events(timed, leave_out), untimed=len(before)) for _ in range(3)
        )
        for what, leave_out in LEAVE_OUT.items()
    }
    return CallCost(runs * calls, ours, theirs, timings.seconds, timings.counts, raw, without)


def report(cost: CallCost) -> str:
    """The split as a table, in microseconds per call."""
    lines = [
        "| part | µs per call | statements per call |",
        "|---|---|---|",
    ]
    for kind, seconds in sorted(cost.store_s.items(), key=lambda kv: -kv[1]):
        count = cost.statements[kind] / cost.calls
        lines.append(f"| store: {kind} | {cost.per_call_us(seconds):.0f} | {count:.2f} |")
    store = cost.per_call_us(cost.store_total_s)
    floor = cost.per_call_us(cost.store_s.get("BEGIN", 0.0) + cost.store_s.get("COMMIT", 0.0))
    ours = cost.per_call_us(cost.ours_s)
    lines += [
        f"| store, in all | {store:.0f} | |",
        f"| (its statements through sqlite3 alone) | ({cost.per_call_us(cost.raw_s):.0f}) | |",
        *(
            f"| (the same without {what}) | ({cost.per_call_us(seconds):.0f}) | |"
            for what, seconds in cost.raw_without_s.items()
        ),
        f"| the rest (Python) | {ours - store:.0f} | |",
        f"| **threadlab, a call** | **{ours:.0f}** | |",
        f"| pydantic-ai, a call | {cost.per_call_us(cost.theirs_s):.0f} | |",
        "",
        f"ratio {cost.ours_s / cost.theirs_s:.3f}; the transactions alone (BEGIN + COMMIT,"
        f" the floor) {floor:.0f} µs a call, ratio {floor / cost.per_call_us(cost.theirs_s):.3f}",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
