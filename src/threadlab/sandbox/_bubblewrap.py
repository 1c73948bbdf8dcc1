"""The bubblewrap jail both sandboxes run in: no host filesystem but the read-only paths a
backend names, a read-only root, size-capped private `/tmp`, work dir and `/dev/shm`, its own
user, network, PID, IPC and UTS namespaces with no way to make new user namespaces, a clean
environment, and (as root) the user nobody.

Writable space is memory too (tmpfs lives in RAM), so it is sized from the run's `memory_mb`:
the work dir gets half of it, `/tmp` and `/dev/shm` a quarter each (at least 1 MiB each), so a
run can hold at most `memory_mb` in files on top of its memory cap."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import SandboxUnavailableError
from ._limits import NOBODY

__all__ = ["Jail", "as_nobody_if_root", "bubblewrap", "probe", "writable_bytes"]

_MIB = 1 << 20


@functools.cache
def bubblewrap() -> str:
    """The bwrap executable, or `SandboxUnavailableError` naming the package to install."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailableError(
            "the sandbox needs bubblewrap, which is not installed: apt-get install bubblewrap"
        )
    return found


def writable_bytes(memory_mb: int) -> dict[str, int]:
    """The size cap of each writable directory of a run with `memory_mb` of memory."""
    total = memory_mb * _MIB
    return {
        "/work": max(_MIB, total // 2),
        "/tmp": max(_MIB, total // 4),
        "/dev/shm": max(_MIB, total // 4),
    }


@dataclass(frozen=True)
class Jail:
    """What one backend's jail holds: host paths bound read-only (host path, jail path), the
    work dir (a host directory bound read-only, or a fresh writable tmpfs when None), the
    environment inside, and the memory the writable directories are sized from."""

    read_only: Sequence[tuple[str, str]]
    memory_mb: int
    workdir: str | None = None
    env: Sequence[tuple[str, str]] = ()
    links: Sequence[tuple[str, str]] = ()  # (target, link path)

    def argv(self) -> list[str]:
        sizes = writable_bytes(self.memory_mb)
        argv = [bubblewrap()]
        for source, target in self.read_only:
            argv += ["--ro-bind", source, target]
        for target, link in self.links:
            argv += ["--symlink", target, link]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        argv += ["--size", str(sizes["/dev/shm"]), "--tmpfs", "/dev/shm"]
        argv += ["--size", str(sizes["/tmp"]), "--tmpfs", "/tmp"]
        if self.workdir is None:
            argv += ["--size", str(sizes["/work"]), "--tmpfs", "/work"]
        else:
            argv += ["--ro-bind", self.workdir, "/work"]
        argv += [
            "--chdir", "/work",
            "--remount-ro", "/dev",
            "--remount-ro", "/",
            # --unshare-all only tries the user namespace; asking for it makes the
            # no-new-namespaces rule possible (nested user, net and mount namespaces).
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ]  # fmt: skip
        for name, value in self.env:
            argv += ["--setenv", name, value]
        return argv


def as_nobody_if_root() -> None:
    """A preexec function: as root, run the jail as nobody (so process limits hold)."""
    if os.getuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def probe(jail: Jail, command: Sequence[str], what: str) -> None:
    """Run `command` once in `jail`, or raise `SandboxUnavailableError` saying why not."""
    result = subprocess.run(
        [*jail.argv(), *command],
        capture_output=True,
        text=True,
        timeout=30,
        preexec_fn=as_nobody_if_root,
        check=False,
    )
    if result.returncode != 0:
        raise SandboxUnavailableError(
            f"bubblewrap cannot build a jail for {what} here ({result.stderr.strip()[:300]});"
            " user namespaces may be disabled"
        )
