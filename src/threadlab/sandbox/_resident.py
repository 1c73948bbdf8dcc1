"""How much memory a sandbox run really holds: the resident set of its whole process tree,
read from /proc. An address-space or data limit cannot hold a JavaScript run near its
`memory_mb` (V8 reserves far more than it uses, and WebAssembly memory is allocated outside
the heap the V8 flag caps); watching what is resident can, whatever allocates it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

__all__ = ["WATCH_EVERY", "tree_resident_bytes", "watch_resident"]

WATCH_EVERY = 0.01
"""Seconds between two looks: what a run can touch in that time is how far it can go over."""

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text()
            found += [int(child) for child in text.split()]
    except OSError:
        pass  # it ended meanwhile
    return found


def tree_resident_bytes(pid: int) -> int:
    """The resident memory of `pid` and every process below it, in bytes (0 once gone)."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            # statm's second field: resident pages (one read, no parsing of `status`).
            total += int(Path(f"/proc/{current}/statm").read_text().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
        stack += _children(current)
    return total


async def watch_resident(pid: int, cap_bytes: int) -> int:
    """Return (with what was resident) once the tree of `pid` holds more than `cap_bytes`;
    runs until cancelled otherwise."""
    while True:
        held = tree_resident_bytes(pid)  # a few small /proc reads: cheap enough on the loop
        if held > cap_bytes:
            return held
        await asyncio.sleep(WATCH_EVERY)
