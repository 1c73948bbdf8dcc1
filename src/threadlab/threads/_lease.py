"""Who owns a running run: a lease in the store (process, host, heartbeat).

On the same host a dead owner process is recognised at once; elsewhere only a stale heartbeat
shows it. Runs of this very process are tracked in memory, so a Runtime can tell its own live
runs from ones a previous Runtime in the same process abandoned.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time

from ..store import RunRecord, Store

__all__ = [
    "HEARTBEAT_SECONDS",
    "LIVE_RUNS",
    "STALE_SECONDS",
    "heartbeat_task",
    "is_live",
    "new_lease",
]

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0
HOST = socket.gethostname()
LIVE_RUNS: set[str] = set()


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_live(run: RunRecord) -> bool:
    """Whether the run's owner is still running it."""
    if run.owner_host == HOST:
        if run.owner_pid == os.getpid():
            return run.id in LIVE_RUNS
        return _process_alive(run.owner_pid)
    return time.time() - run.heartbeat < STALE_SECONDS


async def heartbeat_task(store: Store, run_id: str) -> None:
    """Keep the lease of `run_id` fresh until cancelled."""
    while True:
        await asyncio.sleep(HEARTBEAT_SECONDS)
        store.heartbeat(run_id, time.time())


def new_lease(run_id: str, thread_id: str) -> RunRecord:
    """The lease this process takes when it starts running a thread."""
    now = time.time()
    return RunRecord(run_id, thread_id, "running", os.getpid(), HOST, now, now)
