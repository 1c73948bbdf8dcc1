"""What a streamed call costs the store: one `write_file` call whose 1 MB `content` argument
streams in 16-byte chunks (a realistic provider chunk size). Reports the store's growth (after
a WAL checkpoint) against the streamed bytes, the event rows kept, and the run's wall time."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import threadlab as tl
from threadlab.models import ScriptedModel, call, text


@dataclass(frozen=True)
class Storage:
    streamed_bytes: int
    chunks: int
    grown_bytes: int
    event_rows: int
    seconds: float


def _size(directory: Path) -> int:
    # After a truncating checkpoint everything is in the database file itself (the WAL and
    # shared-memory files come and go with connections, so they are not counted).
    path = directory / "threads.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


async def measure(size: int = 1_000_000, chunk: int = 16) -> Storage:
    registry = tl.Registry()
    tl.define_tool(
        "write_file",
        description="Write a file.",
        execute=lambda state, args: f"{len(args['content'])} characters",
        args={
            "type": "object",
            "properties": {"description": {"type": "string"}, "content": {"type": "string"}},
        },
        progress_argument="description",
        registry=registry,
    )
    arguments = {"description": "writing big.txt", "content": "x" * size}
    model = ScriptedModel([call("write_file", arguments), text("ok")], chunk_size=chunk)
    tl.define_prompt("p", prompt="x", model=model, tools=["write_file"], registry=registry)
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        rt = tl.Runtime(registry, directory, secret_key="bench")
        thread = await rt.create_thread("p")
        before = _size(directory)
        started = time.perf_counter()
        chunks = sum([e.type == "tool_call_delta" async for e in thread.stream("write it")])
        seconds = time.perf_counter() - started
        rows = len(thread.events)
        rt.close()
        grown = _size(directory) - before
    return Storage(size, chunks, grown, rows, seconds)


def report(result: Storage) -> str:
    ratio = result.grown_bytes / result.streamed_bytes
    return "\n".join(
        [
            "| streamed | chunks | store growth | growth / streamed | event rows kept | run (s) |",
            "|---|---|---|---|---|---|",
            f"| {result.streamed_bytes:,} B | {result.chunks:,} | {result.grown_bytes:,} B |"
            f" {ratio:.2f} | {result.event_rows} | {result.seconds:.2f} |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
