"""Fan-out: one parent creates 100 non-blocking children on the offline model and handles
their queued results in the same run. Reports wall time, peak Python memory and store size
per thread; and how much the store grows when one 50 MB attachment goes to 20 children."""

from __future__ import annotations

import asyncio
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import threadlab as tl


@dataclass(frozen=True)
class FanOut:
    children: int
    wall_s: float
    peak_mib: float
    store_bytes: int
    threads: int

    @property
    def bytes_per_thread(self) -> float:
        return self.store_bytes / self.threads


def _store_size(directory: str) -> int:
    return sum(p.stat().st_size for p in Path(directory).iterdir() if p.is_file())


def _definitions(children: int) -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, progress_argument="description")
    async def write_file(state: tl.ThreadState, description: str, path: str, content: str) -> str:
        """Write a file. Args: description: e.g. "writing index.html" """
        await state.write_file(path, content)
        return f"wrote {path}"

    @tl.tool(registry=registry)
    async def finish(state: tl.ThreadState, summary: str) -> tl.ToolResult:
        """Finish the session."""
        return tl.ToolResult(result=summary, attachments=("/index.html",))

    tl.define_prompt("build", prompt="Build.", tools=["write_file"], registry=registry)
    tl.define_prompt("review", prompt="Review.", registry=registry)
    tl.define_agent(
        "worker",
        type="dual_ai",
        side_a=tl.Side("build", session_stop="finish"),
        side_b="review",
        registry=registry,
    )

    def plan(messages: Any, tools: Any) -> Any:
        done = sum(1 for m in messages if m.role == "tool")
        if done == 0:
            return tl.models.step(
                *[
                    tl.models.call(
                        "subagent_create",
                        {"agent": "worker", "name": f"w{i}", "message": f"page {i}"},
                    )
                    for i in range(children)
                ]
            )
        return tl.models.text("all started" if messages[-1].role == "tool" else "noted")

    _lead(registry, plan, tl.Subagent("worker", blocking=False))
    return registry


def _lead(registry: tl.Registry, decide: Any, relationship: tl.Subagent) -> None:
    """The parent: a function model that may call several tools in one step."""
    tl.define_prompt(
        "lead",
        prompt="Lead.",
        model=tl.models.FunctionModel(decide),
        parallel_tool_calls=True,
        registry=registry,
    )
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[relationship]), registry=registry)


async def fan_out(children: int = 100) -> FanOut:
    registry = _definitions(children)
    with tempfile.TemporaryDirectory() as directory:
        rt = tl.Runtime(registry, directory, secret_key="bench", max_steps=children * 3)
        tracemalloc.start()
        started = time.perf_counter()
        thread = await rt.create_thread("boss")
        run = await thread.send("build pages")
        wall = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert run.status == "completed", run
        kids = thread.children
        assert len(kids) == children
        assert all(k.status == "completed" for k in kids)
        reports = [m for m in thread.messages if m.subagent_id]
        assert len(reports) == children
        rt.store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
        size = _store_size(directory)
        rt.close()
    return FanOut(children, wall, peak / 2**20, size, children + 1)


async def shared_attachment(children: int = 20, megabytes: int = 50) -> tuple[int, int]:
    """(bytes attached, bytes the store grew by) for one attachment given to each child."""
    registry = _definitions(0)

    def give(messages: Any, tools: Any) -> Any:
        if messages[-1].role == "tool":
            return tl.models.text("done")
        return tl.models.step(
            *[
                tl.models.call(
                    "subagent_create",
                    {
                        "agent": "worker",
                        "name": f"w{i}",
                        "message": "use it",
                        "attachments": ["/big.bin"],
                    },
                )
                for i in range(children)
            ]
        )

    _lead(registry, give, tl.Subagent("worker"))
    with tempfile.TemporaryDirectory() as directory:
        rt = tl.Runtime(registry, directory, secret_key="bench")
        thread = await rt.create_thread("boss")
        await thread.files.write("/big.bin", b"\x00" * (megabytes * 2**20))
        rt.store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
        before = _store_size(directory)
        await thread.send("fan out")
        rt.store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
        grown = _store_size(directory) - before
        assert len(thread.children) == children
        rt.close()
    return megabytes * 2**20 * children, grown


def report(result: FanOut, attachment: tuple[int, int]) -> str:
    given, grown = attachment
    return "\n".join(
        [
            "| children | wall time (s) | peak Python memory (MiB) | store size per thread (KiB) |",
            "|---|---|---|---|",
            f"| {result.children} | {result.wall_s:.2f} | {result.peak_mib:.1f} |"
            f" {result.bytes_per_thread / 1024:.1f} |",
            "",
            f"one 50 MiB attachment given to 20 children ({given / 2**20:.0f} MiB of copies):"
            f" the store grew by {grown / 1024:.0f} KiB",
        ]
    )


async def main() -> str:
    return report(await fan_out(), await shared_attachment())


if __name__ == "__main__":
    print(asyncio.run(main()))
