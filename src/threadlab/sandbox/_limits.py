"""Resource limits, set in the child between fork and exec: its own session (so the whole
process group can be killed), and rlimits on memory, CPU time, file size and open files."""

from __future__ import annotations

import math
import os
import resource
from collections.abc import Callable

__all__ = ["NOBODY", "limits", "processes_of"]

NOBODY = 65534


def processes_of(uid: int) -> int:
    """How many processes (threads count too) `uid` runs now."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


def limits(
    *,
    data_bytes: int | None = None,
    address_bytes: int | None = None,
    cpu_seconds: float,
    file_bytes: int,
    open_files: int,
    processes: int | None = None,
    as_user: int | None = None,
) -> Callable[[], None]:
    """A preexec function applying these limits (and, as root, dropping to `as_user`)."""

    def apply() -> None:
        os.setsid()
        if as_user is not None:
            os.setgroups([])
            os.setgid(as_user)
            os.setuid(as_user)
        cpu = math.ceil(cpu_seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if data_bytes is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (data_bytes, data_bytes))
        if address_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_bytes, address_bytes))
        if processes is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))

    return apply
