"""A run cut short leaves a view that tells the truth of every call: the one that was running
shows its "interrupted" result, one still streaming its arguments says it never ran."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import threadlab as tl
from threadlab.models import FinishChunk, ModelChunk, ModelRequest, ToolCallChunk
from threadlab.widgets import LiveRun


class Slow:
    """Asks for `hang`, then streams a second call's arguments forever."""

    name = "slow"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        if not any(m.role == "tool" for m in request.messages):
            yield ToolCallChunk(0, id="call_hang", name="hang", arguments="{}")
            yield FinishChunk()
            return
        yield ToolCallChunk(0, id="call_never", name="hang", arguments="{")
        while True:
            await asyncio.sleep(0.01)
            yield ToolCallChunk(0, arguments=" ")


async def test_a_cancelled_runs_cards_show_the_stored_truth(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    async def hang(state: tl.ThreadState, args: object) -> str:
        if not started.is_set():
            started.set()
            await release.wait()
        return "done"

    tl.define_tool("hang", description="Hang.", execute=hang, registry=registry)
    tl.define_prompt("p", prompt="t", model=Slow(), tools=["hang"], registry=registry)
    thread = await rt.create_thread("p")
    live = LiveRun(rt, thread, rate=50)

    # First: cancelled while the tool runs.
    task = asyncio.ensure_future(live.run("go"))
    await asyncio.wait_for(started.wait(), 10)
    await asyncio.sleep(0.05)
    assert live.state.cards["call_hang"]["status"] == "running"
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    card = live.state.cards["call_hang"]
    assert card["status"] == "interrupted"  # not the tool's error: it never finished
    assert card["result"] == "interrupted: the run was stopped before this call finished"
    assert live.view.trace["cards"]["call_hang"]["status"] == "interrupted"  # the front end's

    # Then: cancelled while a call's arguments still stream; it never ran.
    release.set()
    live = LiveRun(rt, thread, rate=50)
    task = asyncio.ensure_future(live.run("again"))
    for _ in range(500):
        if "call_never" in live.state.cards:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert live.state.cards["call_never"]["status"] == "interrupted"
    assert live.view.live is False
