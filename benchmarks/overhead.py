"""Runtime overhead per tool call: threadlab (durable SQLite persistence) against pydantic-ai
driving the same workload with its FunctionModel — one no-op tool call per model step, then a
final text answer. Both sides run in the same process, one after the other, per shape."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import threadlab as tl


@dataclass(frozen=True)
class Measure:
    label: str
    runs: int
    calls_per_run: int
    ours_s: float
    theirs_s: float

    @property
    def calls(self) -> int:
        return self.runs * self.calls_per_run

    @property
    def ours_ms_per_call(self) -> float:
        return self.ours_s * 1000 / self.calls

    @property
    def theirs_ms_per_call(self) -> float:
        return self.theirs_s * 1000 / self.calls

    @property
    def ratio(self) -> float:
        return self.ours_s / self.theirs_s


ARGS = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


async def threadlab_runs(
    runs: int,
    calls: int,
    realistic: bool = False,
    store: str | None = None,
    open_store: Callable[[str], tl.Store] | None = None,
    sync: bool = False,
    clock: Callable[[bool], None] | None = None,
) -> float:
    """`realistic`: the tool takes one integer argument, streamed in 8-character chunks.
    `store`: where threads go (default: a fresh SQLite folder); `open_store` opens the
    folder instead of the default SQLite store. `sync`: the tool is a plain `def`, as a
    notebook's `%%tool` cell usually writes it. `clock` hears when the timed part starts
    (True) and stops (False)."""
    registry = tl.Registry()

    async def noop(state: tl.ThreadState, args: Any) -> str:
        return "ok"

    def noop_sync(state: tl.ThreadState, args: Any) -> str:
        return "ok"

    tl.define_tool(
        "noop",
        description="Do nothing.",
        execute=noop_sync if sync else noop,
        args=ARGS if realistic else None,
        registry=registry,
    )
    remaining = [0]

    def decide(messages: list[tl.Message], tools: list[Any]) -> Any:
        if remaining[0] == 0:
            return tl.models.text("done")
        remaining[0] -= 1
        return tl.models.call("noop", {"n": 12345} if realistic else None)

    model = tl.models.FunctionModel(decide, chunk_size=8 if realistic else 64)
    tl.define_prompt("bench", prompt="Benchmark.", model=model, tools=["noop"], registry=registry)
    with tempfile.TemporaryDirectory() as directory:
        where: str | tl.Store = store if store is not None else directory
        if open_store is not None:
            where = open_store(directory)
        rt = tl.Runtime(registry, where, secret_key="bench", max_steps=calls + 10)
        if clock is not None:
            clock(True)
        started = time.perf_counter()
        for _ in range(runs):
            remaining[0] = calls
            thread = await rt.create_thread("bench")
            run = await thread.send("go")
            assert run.status == "completed", run
        elapsed = time.perf_counter() - started
        if clock is not None:
            clock(False)
        assert len([m for m in thread.messages if m.role == "tool"]) == calls
        rt.close()
    return elapsed


def argument_chunks(arguments: str, size: int) -> list[str]:
    """The pieces a streaming provider sends a call's argument text in."""
    return [arguments[i : i + size] for i in range(0, len(arguments), size)]


async def pydantic_ai_runs(
    runs: int, calls: int, realistic: bool = False, streamed: bool = True, sync: bool = False
) -> float:
    """`realistic`: as for threadlab. Then `streamed` (the same workload as ours): the
    model streams each call's arguments in 8-character chunks and the run consumes the
    stream (`event_stream_handler`, how pydantic-ai streams an `agent.run`); without it, the
    model hands each call over whole. `sync`: the tool is a plain `def` (pydantic-ai runs it
    in a thread too)."""
    from pydantic_ai import Agent, UsageLimits
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

    remaining = [0]
    executed = [0]
    arguments = json.dumps({"n": 12345})

    def decide(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if remaining[0] == 0:
            return ModelResponse(parts=[TextPart("done")])
        remaining[0] -= 1
        return ModelResponse(parts=[ToolCallPart("noop", {"n": 12345} if realistic else {})])

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
        if remaining[0] == 0:
            yield "done"
            return
        remaining[0] -= 1
        yield {0: DeltaToolCall(name="noop", tool_call_id=f"call_{remaining[0]}")}
        for piece in argument_chunks(arguments, 8):
            yield {0: DeltaToolCall(json_args=piece)}

    async def consume(context: Any, events: AsyncIterable[Any]) -> None:
        async for _ in events:
            pass

    streaming = realistic and streamed
    agent = Agent(FunctionModel(stream_function=stream) if streaming else FunctionModel(decide))

    if realistic and sync:

        @agent.tool_plain(name="noop")
        def noop_sync(n: int) -> str:
            """Do nothing."""
            executed[0] += 1
            return "ok"

    elif realistic:

        @agent.tool_plain
        async def noop(n: int) -> str:
            """Do nothing."""
            executed[0] += 1
            return "ok"

    else:

        @agent.tool_plain
        async def noop() -> str:  # type: ignore[misc]
            """Do nothing."""
            executed[0] += 1
            return "ok"

    limits = UsageLimits(request_limit=None, tool_calls_limit=None)
    started = time.perf_counter()
    for _ in range(runs):
        remaining[0] = calls
        result = await agent.run(
            "go", usage_limits=limits, event_stream_handler=consume if streaming else None
        )
        assert result.output == "done"
    elapsed = time.perf_counter() - started
    assert executed[0] == runs * calls, executed  # every call ran, none was retried
    return elapsed


async def measure(
    label: str,
    runs: int,
    calls: int,
    repeats: int = 1,
    realistic: bool = False,
    streamed: bool = True,
    sync: bool = False,
) -> Measure:
    """Best of `repeats` for each side, measured alternately, after one warm-up run each
    (imports, first schemas and first database writes are not what is being compared)."""
    await threadlab_runs(1, 2, realistic, sync=sync)
    await pydantic_ai_runs(1, 2, realistic, streamed, sync)
    ours, theirs = float("inf"), float("inf")
    for _ in range(repeats):
        ours = min(ours, await threadlab_runs(runs, calls, realistic, sync=sync))
        theirs = min(theirs, await pydantic_ai_runs(runs, calls, realistic, streamed, sync))
    return Measure(label, runs, calls, ours, theirs)


async def main(scale: float = 1.0) -> list[Measure]:
    shapes = [
        ("50 runs x 10 calls", 50, 10, 5),
        ("1 run x 1000 calls", 1, 1000, 1),
        ("1 run x 2000 calls", 1, 2000, 1),
    ]
    out = []
    for label, runs, calls, repeats in shapes:
        out.append(
            await measure(label, max(1, int(runs * scale)), max(1, int(calls * scale)), repeats)
        )
    for label, streamed, sync in (
        ("50 runs x 10 calls, one int argument in 8-char chunks", True, False),
        ("the same, sync tools on both sides", True, True),
        ("the same (async), pydantic-ai given each call whole", False, False),
    ):
        out.append(
            await measure(
                label,
                max(1, int(50 * scale)),
                max(1, int(10 * scale)),
                5,
                realistic=True,
                streamed=streamed,
                sync=sync,
            )
        )
    return out


def report(results: list[Measure]) -> str:
    lines = [
        "| shape | threadlab ms/call | pydantic-ai ms/call | ratio (ours/theirs) |",
        "|---|---|---|---|",
    ]
    for m in results:
        lines.append(
            f"| {m.label} | {m.ours_ms_per_call:.3f} | {m.theirs_ms_per_call:.3f} | {m.ratio:.3f} |"
        )
    by_calls = {m.calls_per_run: m for m in results if m.runs == 1}
    if 1000 in by_calls and 2000 in by_calls:
        growth = by_calls[2000].ours_s / by_calls[1000].ours_s
        lines.append("")
        lines.append(f"threadlab 2000-call run / 1000-call run: {growth:.2f}x (target <= 2.5)")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(main())))
