"""Reading a child's output as lines without trusting it: a line longer than the cap is cut
(and the rest of it skipped), so a flood or one endless line cannot exhaust the host."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

__all__ = ["bounded_lines"]

_CHUNK = 1 << 16


async def bounded_lines(stream: asyncio.StreamReader, max_line: int) -> AsyncIterator[str]:
    """The lines of `stream`, each at most `max_line` characters (a longer one is cut)."""
    buffer = bytearray()
    skipping = False
    while chunk := await stream.read(_CHUNK):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if not skipping:
                buffer += chunk[start:end]
                yield _decode(buffer[:max_line])
            buffer.clear()
            skipping = False
            start = end + 1
        if not skipping:
            buffer += chunk[start:]
            if len(buffer) > max_line:
                yield _decode(buffer[:max_line])
                buffer.clear()
                skipping = True
    if buffer and not skipping:
        yield _decode(buffer[:max_line])


def _decode(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")
