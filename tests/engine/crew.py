"""Definitions the engine tests run on Ray: a tool that leaves a line in a ledger file for
each call it runs (so a call run twice shows) and the process it ran in, a model that calls
it once and answers with its result, and a lead that fans out to non-blocking children.

Made by functions (closures): Ray ships them by value, as it does a notebook cell's."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, step, text


def define_crew(registry: tl.Registry, where: Path, *, pause: float = 0.0) -> None:
    """`jotter` (a prompt that jots once) and `fan` (a lead whose message is how many
    jotters to start, non-blocking). Each call of `jot` appends "<thread> <call> <pid>" to
    `where/ledger` and writes its pid to `where/<thread>.pid`, then waits `pause` seconds (a
    call long enough to be killed in)."""
    ledger = str(where / "ledger")
    folder = str(where)

    async def jot(state: tl.ThreadState, args: Any) -> str:
        execution = state.execution
        call_id = execution.tool_call_id if execution is not None else "?"
        _append(ledger, f"{state.thread_id} {call_id} {os.getpid()}\n")
        Path(folder, f"{state.thread_id}.pid").write_text(str(os.getpid()))
        if pause:
            await asyncio.sleep(pause)
        return f"jotted {args.get('topic', '')} in {os.getpid()}"

    topic = {"type": "object", "properties": {"topic": {"type": "string"}}}
    tl.define_tool("jot", description="Jot.", execute=jot, args=topic, registry=registry)

    def jotting(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "tool":
            return text(f"done: {last.content}")
        return call("jot", {"topic": last.content or ""})

    tl.define_prompt("jotter", prompt="Jot it.", model=FunctionModel(jotting), tools=["jot"],
                     registry=registry)  # fmt: skip
    tl.define_agent("jotting", side_a=tl.Side("jotter"), tool_description="Jots.",
                    registry=registry)  # fmt: skip

    def leading(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "user" and last.subagent_id:
            return text(f"heard {last.subagent_id}")
        if last.role == "user":
            count = int(last.content or "1")
            return step(*(call("subagent_create", {"agent": "jotting", "name": f"j{i}",
                                                   "message": f"topic {i}"})
                          for i in range(count)))  # fmt: skip
        return text("waiting")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(leading), registry=registry)
    tl.define_agent("fan", side_a=tl.Side("lead", subagents=[tl.Subagent("jotting",
                    blocking=False)]), registry=registry)  # fmt: skip


def _append(path: str, line: str) -> None:
    with open(path, "a") as handle:
        handle.write(line)


def ledger_lines(where: Path) -> list[tuple[str, str, int]]:
    """Every call `jot` ran: (thread, call, pid)."""
    path = where / "ledger"
    if not path.exists():
        return []
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(thread, call_id, int(pid)) for thread, call_id, pid in rows]
