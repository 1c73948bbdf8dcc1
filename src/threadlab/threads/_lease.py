"""Who holds a running run: a lease in the store (process, host, heartbeat).

A lease is live while its heartbeat is fresh; on the same host the holder must also be the very
process that took it (alive, and started before the run: containers reuse PIDs), so a dead
holder is recognised at once there, elsewhere once its heartbeat is stale. `RunLeases` takes
and ends the leases of one store and remembers which of them this process holds, so a Runtime
can tell its own live runs from ones an earlier Runtime of the same process abandoned.

Staleness is a guess: a process stopped past it (a suspended laptop, a debugger) is alive, and
goes on when continued. A store that fences (`FencingStore`) makes that safe: a run's writes
are fenced with its lease from the moment it is taken, and refused once another process took
the thread over (`LeaseLostError`), so the continued run ends without writing.
"""

from __future__ import annotations

import asyncio
import functools
import os
import socket
import time
from collections.abc import Container
from pathlib import Path

from ..store import FencingStore, LeaseLostError, LocatedStore, RunRecord, Store

__all__ = [
    "HEARTBEAT_SECONDS",
    "HOST_NAME",
    "STALE_SECONDS",
    "RunLeases",
    "is_live",
    "new_lease",
    "process_started_at",
]

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0
HOST = socket.gethostname()
HOST_NAME = HOST  # the name leases of this host carry


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A killed process whose parent has not reaped it yet is a zombie: it runs nothing.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def process_started_at(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), from /proc; None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(
            float(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime ")
        )
    except (OSError, StopIteration, ValueError):
        return None
    # The command name (field 2) may hold spaces: fields are counted after its ")".
    fields = stat[stat.rindex(")") + 2 :].split()
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")


@functools.cache
def _own_start() -> float | None:
    # This process's start never changes: read /proc once, not at every run.
    return process_started_at(os.getpid())


def is_live(run: RunRecord, held: Container[str] = ()) -> bool:
    """Whether the run's holder is still running it: a fresh heartbeat, and on this host the
    very process that took the lease (alive, and started before the run — a reused PID is
    another process). A lease of this very process is live only while it is among `held`
    (the runs this process is at work on: `RunLeases.is_live`)."""
    if time.time() - run.heartbeat >= STALE_SECONDS:
        return False
    if run.owner_host != HOST:
        return True
    if run.owner_pid == os.getpid():
        return run.id in held
    if not _process_alive(run.owner_pid):
        return False
    started = process_started_at(run.owner_pid)
    if started is None:
        return True
    if run.owner_started is not None:
        # Start times from /proc are exact to a clock tick; allow a little for that.
        return abs(started - run.owner_started) < 1.0
    return started <= run.started_at + 1.0  # a lease from before holders were recorded


_HELD: dict[str, set[str]] = {}
"""The runs this process holds, by store location (`Store.location`)."""


class RunLeases:
    """The run leases of one store: taking, heartbeating and ending them, and which of them
    this process holds there (shared by every store object of the same location, so a second
    Runtime of this process on the same store sees them as live, not as abandoned)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        key = store.location if isinstance(store, LocatedStore) else f"object:{id(store)}"
        self._held = _HELD.setdefault(key, set())
        # Asked once: a store that cannot fence is used without (its writes are not checked).
        self._fencing = store if isinstance(store, FencingStore) else None

    def running(self, thread_id: str) -> list[RunRecord]:
        """The thread's runs recorded as running (live or abandoned)."""
        return self._store.running_runs(thread_id)

    def is_live(self, run: RunRecord) -> bool:
        return is_live(run, self._held)

    def any_live(self, runs: list[RunRecord]) -> bool:
        return any(self.is_live(r) for r in runs)

    def held_now(self, thread_id: str) -> bool:
        """Whether a live run holds the thread now (in this process or another)."""
        return self.any_live(self.running(thread_id))

    def lock(self, thread_id: str) -> None:
        """Serialise, until the transaction ends, with anyone else claiming the thread."""
        self._store.lock_thread(thread_id)

    def take(self, run_id: str, thread_id: str) -> None:
        """Record this process's lease of the thread for run `run_id` (in the caller's
        transaction), and fence this store's writes to the thread with it."""
        self._held.add(run_id)
        self._store.start_run(new_lease(run_id, thread_id))
        if self._fencing is not None:
            self._fencing.fence(thread_id, run_id)

    def release(self, run_id: str) -> None:
        """This process no longer runs `run_id` (its record is ended by `finish`)."""
        self._held.discard(run_id)
        if self._fencing is not None:
            self._fencing.unfence(run_id)

    def check(self, thread_id: str) -> None:
        """Inside a transaction: `LeaseLostError` when this process's run of `thread_id` had
        its lease taken over (a write it makes through another door, such as queuing a
        message to its own thread, is refused like its own writes)."""
        if self._fencing is not None:
            self._fencing.check_fence(thread_id)

    def finish(self, run_id: str, status: str, text: str | None, error: str | None) -> None:
        """Record the run's outcome, which ends its lease in the store (this process keeps
        counting it as its own until `release`, after the transaction commits)."""
        self._store.finish_run(run_id, status, text, error, time.time())

    async def heartbeat(self, run_id: str) -> None:
        """Keep the lease of `run_id` fresh until cancelled, or until it is found taken over
        (then the run's next write is refused, which ends it)."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                self._store.heartbeat(run_id, time.time())
            except LeaseLostError:
                return


def new_lease(run_id: str, thread_id: str) -> RunRecord:
    """The lease this process takes when it starts running a thread."""
    now = time.time()
    started = _own_start()
    return RunRecord(
        run_id, thread_id, "running", os.getpid(), HOST, now, now, owner_started=started
    )
