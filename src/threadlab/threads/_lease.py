"""Who owns a running run: a lease in the store (process, host, heartbeat).

A lease is live while its heartbeat is fresh; on the same host the owner must also be the very
process that took it (alive, and started before the run: containers reuse PIDs), so a dead
owner is recognised at once there, elsewhere once its heartbeat is stale. Runs of this very
process are tracked in memory, so a Runtime can tell its own live runs from ones a previous
Runtime in the same process abandoned.
"""

from __future__ import annotations

import asyncio
import functools
import os
import socket
import time
from pathlib import Path

from ..store import RunRecord, Store

__all__ = [
    "HEARTBEAT_SECONDS",
    "HOST_NAME",
    "LIVE_RUNS",
    "STALE_SECONDS",
    "heartbeat_task",
    "is_live",
    "new_lease",
    "process_started_at",
]

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0
HOST = socket.gethostname()
HOST_NAME = HOST  # the name leases of this host carry
LIVE_RUNS: set[str] = set()


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


def is_live(run: RunRecord) -> bool:
    """Whether the run's owner is still running it: a fresh heartbeat, and on this host the
    very process that took the lease (alive, and started before the run — a reused PID is
    another process)."""
    if time.time() - run.heartbeat >= STALE_SECONDS:
        return False
    if run.owner_host != HOST:
        return True
    if run.owner_pid == os.getpid():
        return run.id in LIVE_RUNS
    if not _process_alive(run.owner_pid):
        return False
    started = process_started_at(run.owner_pid)
    if started is None:
        return True
    if run.owner_started is not None:
        # Start times from /proc are exact to a clock tick; allow a little for that.
        return abs(started - run.owner_started) < 1.0
    return started <= run.started_at + 1.0  # a lease from before owners were recorded


async def heartbeat_task(store: Store, run_id: str) -> None:
    """Keep the lease of `run_id` fresh until cancelled."""
    while True:
        await asyncio.sleep(HEARTBEAT_SECONDS)
        store.heartbeat(run_id, time.time())


def new_lease(run_id: str, thread_id: str) -> RunRecord:
    """The lease this process takes when it starts running a thread."""
    now = time.time()
    started = _own_start()
    return RunRecord(
        run_id, thread_id, "running", os.getpid(), HOST, now, now, owner_started=started
    )
