"""The runtime's overview of its threads: status decided once, without opening a thread."""

from __future__ import annotations

import asyncio

import threadlab as tl
from threadlab.models import call, text

from ..helpers import HangingTool, scripted_prompt


async def test_the_overview_says_each_threads_status_counts_and_origin(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    hang = HangingTool("done")
    tl.define_tool("hang", description="x", execute=hang, registry=registry)
    scripted_prompt(registry, [call("hang"), text("ok")], tools=["hang"])
    fresh = await rt.create_thread("p", origin="demo.ipynb")
    ran = await rt.create_thread("p")
    task = asyncio.ensure_future(ran.send("go"))
    await hang.entered.wait()
    running = {t.id: t for t in rt.overview()}
    assert running[ran.id].status == "running"
    assert running[fresh.id].status == "never run"
    assert running[fresh.id].origin == "demo.ipynb"
    hang.release.set()
    await task
    done = {t.id: t for t in rt.overview()}
    assert done[ran.id].status == "completed"
    assert (done[ran.id].agent, done[ran.id].messages, done[ran.id].children) == ("p", 4, 0)
    assert [t.id for t in rt.overview()] == [ran.id, fresh.id]  # newest first


def test_a_tool_result_of_a_call_that_never_finished_says_so() -> None:
    stopped = tl.Message(
        role="tool",
        content="interrupted: the run was stopped before this call finished",
        tool_status="error",
        tool_call_id="c",
    )
    failed = tl.Message(role="tool", content="boom", tool_status="error", tool_call_id="c")
    assert stopped.unfinished
    assert not failed.unfinished
