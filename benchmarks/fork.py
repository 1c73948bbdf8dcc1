"""Forking a long thread: a 2,000-message thread (999 tool calls) with 20 children, each
child with a short history and a file, forked at its last message and at a call in the middle
(its children then cut at that point). The fork writes the branch's records in one
transaction and copies no file content. Beside it, in the same run, reading the same thread's
history once (`thread.all_messages()` on a fresh Runtime), the cost of looking at it at all.
Median of 7 forks each."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, text

CALLS = 999
CHILDREN = 20


@dataclass(frozen=True)
class ForkTimes:
    messages: int
    children: int
    at_end_ms: float
    in_middle_ms: float
    read_ms: float


def _registry(calls: int, children: int) -> tl.Registry:
    registry = tl.Registry()

    async def note(state: tl.ThreadState, args: dict[str, Any]) -> str:
        if args["n"] % 50 == 0:
            await state.write_file(f"/notes/{args['n']}.txt", f"note {args['n']}")
        return f"noted {args['n']}"

    tl.define_tool("note", description="Note.", execute=note,
                   args={"type": "object", "properties": {"n": {"type": "integer"}}},
                   registry=registry)  # fmt: skip

    async def jot(state: tl.ThreadState, args: Any) -> str:
        await state.write_file("/out.txt", "child work")
        return "jotted"

    tl.define_tool("jot", description="Jot.", execute=jot, registry=registry)

    def helper(messages: list[tl.Message], tools: Any) -> Any:
        return text("helped") if messages[-1].role == "tool" else call("jot", {})

    tl.define_prompt("help", prompt="Help.", model=FunctionModel(helper), tools=["jot"],
                     registry=registry)  # fmt: skip
    tl.define_agent("helper", side_a="help", tool_description="Helps.", registry=registry)

    def lead(messages: list[tl.Message], tools: Any) -> Any:
        done = sum(1 for m in messages if m.role == "tool")
        if done < children:
            return call("subagent_create", {"agent": "helper", "name": f"h{done}", "message": "go"})
        if done < calls:
            return call("note", {"n": done})
        return text("all noted")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(lead), tools=["note"],
                     registry=registry)  # fmt: skip
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    return registry


async def measure(rounds: int = 7, calls: int = CALLS, children: int = CHILDREN) -> ForkTimes:
    registry = _registry(calls, children)
    store = tempfile.mkdtemp(prefix="threadlab-fork-bench-")
    rt = tl.Runtime(registry, store, secret_key="k", max_steps=calls + 10)
    thread = await rt.create_thread("boss")
    run = await thread.send("note everything")
    if run.status != "completed":
        raise RuntimeError(f"the thread to fork did not complete: {run}")
    messages = thread.all_messages()
    middle = next(c.id for m in messages[len(messages) // 2 :] for c in m.tool_calls)
    last = messages[-1].id
    at_end, in_middle, reads = [], [], []
    for _ in range(rounds):
        started = time.perf_counter()
        branch = await thread.fork(last)
        at_end.append(time.perf_counter() - started)
        if len(branch.children) != children:
            raise RuntimeError("the branch lost children")
        started = time.perf_counter()
        await thread.fork(middle)
        in_middle.append(time.perf_counter() - started)
        fresh = tl.Runtime(registry, store, secret_key="k")
        started = time.perf_counter()
        fresh.thread(thread.id).all_messages()
        reads.append(time.perf_counter() - started)
        fresh.close()
    rt.close()
    return ForkTimes(
        len(messages),
        children,
        statistics.median(at_end) * 1000,
        statistics.median(in_middle) * 1000,
        statistics.median(reads) * 1000,
    )


def report(times: ForkTimes) -> str:
    return "\n".join(
        [
            "| thread | fork at the end (ms) | fork in the middle (ms) | read its history (ms)"
            " | target (ms) |",
            "|---|---|---|---|---|",
            f"| {times.messages} messages, {times.children} children | {times.at_end_ms:.1f} |"
            f" {times.in_middle_ms:.1f} | {times.read_ms:.1f} | 50 |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
