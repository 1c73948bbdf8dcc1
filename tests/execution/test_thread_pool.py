"""Sync tools and hooks run on reused threads; a call abandoned on timeout keeps its thread."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

import threadlab as tl
from threadlab.execution._thread_pool import ReusedThreads, on_pooled_thread
from threadlab.models import call, text

from ..helpers import scripted_prompt, tool_messages


async def test_sequential_sync_calls_reuse_one_thread_named_for_the_call() -> None:
    threads = ReusedThreads()  # of its own: another test's late call cannot join it
    seen = [
        await on_pooled_thread(
            lambda: (threading.get_ident(), threading.current_thread().name),
            name=f"job-{i}",
            threads=threads,
        )
        for i in range(5)
    ]
    assert len({ident for ident, _ in seen}) == 1
    assert [name for _, name in seen] == [f"job-{i}" for i in range(5)]
    assert threads.size() == 1


async def test_an_abandoned_call_keeps_its_thread_and_the_next_call_runs_on_another() -> None:
    release = threading.Event()
    late: list[str] = []

    def stuck() -> str:
        release.wait(30)
        late.append("returned")
        return "late"

    threads = ReusedThreads()
    assert await on_pooled_thread(lambda: "warm", name="warm", threads=threads) == "warm"
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.1):
            await on_pooled_thread(stuck, name="stuck", threads=threads)
    started = time.monotonic()
    assert await on_pooled_thread(lambda: "next", name="next", threads=threads) == "next"
    assert time.monotonic() - started < 5  # not behind the stuck call
    assert threads.size() == 2  # the pool grew past the abandoned call
    release.set()
    for _ in range(100):
        if late:
            break
        await asyncio.sleep(0.01)
    assert late == ["returned"]  # it ran to its end, and its result went nowhere


async def test_a_sync_tool_that_times_out_does_not_hold_up_the_calls_after_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    release = threading.Event()

    def slow(state: tl.ThreadState, args: Any) -> str:
        release.wait(30)
        return "late"

    def quick(state: tl.ThreadState, args: Any) -> str:
        return threading.current_thread().name

    tl.define_tool("slow", description="x", execute=slow, timeout=0.2, registry=registry)
    tl.define_tool("quick", description="x", execute=quick, registry=registry)
    scripted_prompt(
        registry,
        [call("slow"), call("quick"), call("quick"), text("done")],
        tools=["slow", "quick"],
    )
    thread = await rt.create_thread("p")
    started = time.monotonic()
    run = await thread.send("go")
    release.set()
    assert run.status == "completed"
    assert time.monotonic() - started < 10
    results = [m.content for m in tool_messages(thread)]
    assert "timed out" in (results[0] or "")
    assert results[1:] == [f"threadlab-tool-{thread.id}"] * 2


async def ticks_during(call: Any) -> tuple[Any, int]:
    """What `call` returns, and how often the loop ran another task meanwhile."""
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)  # the ticker's first tick is not the call's doing
    before = ticks
    try:
        result = await call
    finally:
        task.cancel()
    return result, ticks - before


async def test_a_short_call_is_taken_while_the_loop_lingers_on_a_reused_thread() -> None:
    threads = ReusedThreads()

    def short() -> int:
        time.sleep(0.05)
        return threading.get_ident()

    first, ticks = await ticks_during(
        on_pooled_thread(short, name="short", threads=threads, linger_s=1.0)
    )
    assert ticks == 0  # the loop waited for it: nothing else ran meanwhile
    again = [
        await on_pooled_thread(short, name="short", threads=threads, linger_s=1.0) for _ in range(3)
    ]
    assert again == [first] * 3  # each found the thread idle again
    assert threads.size() == 1


async def test_a_call_longer_than_the_linger_is_awaited_with_the_loop_free() -> None:
    threads = ReusedThreads()

    def slow() -> str:
        time.sleep(0.3)
        return "slow"

    result, ticks = await ticks_during(
        on_pooled_thread(slow, name="slow", threads=threads, linger_s=0.01)
    )
    assert result == "slow"
    assert ticks >= 10  # the loop ran other tasks for most of the call


async def test_an_error_taken_while_lingering_is_raised_with_its_traceback() -> None:
    def broken() -> None:
        raise ValueError("no luck")

    with pytest.raises(ValueError, match="no luck") as raised:
        await on_pooled_thread(broken, name="broken", threads=ReusedThreads(), linger_s=1.0)
    assert raised.traceback[-1].name == "broken"
    await asyncio.sleep(0.05)  # a late delivery, had there been one, would settle nothing


async def test_a_sync_tool_that_calls_back_into_the_loop_still_finishes(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # state.sync waits for the loop, which lingers for the call: bounded, not a deadlock.
    def remember(state: tl.ThreadState, args: Any) -> str:
        state.sync.set_env("SEEN", "yes", "text")
        return f"env says {state.sync.env('SEEN')}"

    tl.define_tool("remember", description="Remember.", execute=remember, registry=registry)
    scripted_prompt(registry, [call("remember"), text("ok")], tools=["remember"])
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    assert [m.content for m in tool_messages(thread)] == ["env says yes"]


async def test_an_event_a_sync_tool_emits_as_it_returns_is_stored_before_its_result(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A short call's result is taken while the loop lingers for it: the event the tool handed
    # the loop just before returning was still queued there, and was never stored.
    def mark(state: tl.ThreadState, args: dict[str, Any]) -> str:
        state.emit("mark", {"tag": args["tag"]})
        return "ok"

    tl.define_tool("mark", description="Mark.", execute=mark, registry=registry,
                   args={"type": "object", "properties": {"tag": {"type": "string"}}})  # fmt: skip
    scripted_prompt(registry, [call("mark", {"tag": "one"}, id="m1"), text("done")],
                    tools=["mark"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    stored = [e.type for e in tl.Runtime(registry, rt.store).thread(thread.id).events]
    assert "custom" in stored
    assert stored.index("custom") < stored.index("tool_call_finished")
