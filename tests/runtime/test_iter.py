"""thread.iter(): a run followed a step at a time. Each step comes as it ends, the same record
`thread.steps()` reads; the run takes its next step only when asked for one, so a caller that
leaves the loop leaves the run paused where it stood, and `resume()` goes on from there."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, step, text

from ..execution.test_subagents import create_then, helper
from ..helpers import scripted_prompt


def counting(registry: tl.Registry, ran: list[int]) -> None:
    numbers = {"type": "object", "properties": {"a": {"type": "integer"},
               "b": {"type": "integer"}}}  # fmt: skip

    def add(state: tl.ThreadState, args: dict[str, Any]) -> int:
        total = int(args["a"]) + int(args["b"])
        ran.append(total)
        return total

    tl.define_tool("add", description="Add.", execute=add, args=numbers, registry=registry)


async def test_each_step_comes_as_it_ends_and_is_the_one_steps_reads(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[int] = []
    counting(registry, ran)
    scripted_prompt(registry, [step(call("add", {"a": 1, "b": 2}, id="c1"),
                                    call("add", {"a": 3, "b": 4}, id="c2")),
                               text("3 and 7")], tools=["add"])  # fmt: skip
    thread = await rt.create_thread("p")
    seen: list[tl.StepRecord] = []
    async with thread.iter("add") as run:
        async for record in run:
            seen.append(record)
    assert [(s.kind, s.result) for s in seen] == [
        ("model", None), ("tool_call", "3"), ("tool_call", "7"), ("model", None)
    ]  # fmt: skip
    assert all(s.ended and s.status == "completed" for s in seen)
    assert seen == thread.steps()  # the one reading, handed out as it grew
    assert run.result is not None
    assert (run.result.status, run.result.text) == ("completed", "3 and 7")
    assert thread.status == "idle"  # a finished run leaves its thread idle


async def test_the_run_waits_for_the_caller_to_ask_for_its_next_step(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[int] = []
    counting(registry, ran)
    scripted_prompt(registry, [call("add", {"a": 1, "b": 1}), call("add", {"a": 2, "b": 2}),
                               text("done")], tools=["add"])  # fmt: skip
    thread = await rt.create_thread("p")
    ran_when_told: list[list[int]] = []
    async with thread.iter("go") as run:
        async for record in run:
            if record.kind == "tool_call":
                await asyncio.sleep(0.2)  # a slow caller: the run does not go on meanwhile
                ran_when_told.append(list(ran))
    assert ran_when_told == [[2], [2, 4]]


async def test_leaving_after_a_call_pauses_before_the_next_and_resume_runs_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[int] = []
    counting(registry, ran)
    scripted_prompt(registry, [step(call("add", {"a": 1, "b": 2}, id="c1"),
                                    call("add", {"a": 3, "b": 4}, id="c2")),
                               text("3 and 7")], tools=["add"])  # fmt: skip
    thread = await rt.create_thread("p")
    async with thread.iter("add") as run:
        async for record in run:
            if record.kind == "tool_call":
                break
    assert ran == [3]  # the second call of the same model step did not run
    assert run.result is None
    assert thread.status == "waiting"
    pause = thread.steps()[-1]
    assert (pause.kind, pause.reason, pause.status, pause.tool_call_id) == (
        "pause", "before_tool", "waiting", "c2"
    )  # fmt: skip
    waiting = [s for s in thread.steps() if s.tool_call_id == "c2" and s.kind == "tool_call"]
    assert [s.status for s in waiting] == ["waiting"]

    resumed = await thread.resume()
    assert (resumed.status, resumed.text, ran) == ("completed", "3 and 7", [3, 7])
    results = [m for m in thread.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in results] == [("c1", "3"), ("c2", "7")]
    steps = thread.steps()
    (pause,) = [s for s in steps if s.kind == "pause"]
    assert pause.status == "completed"
    assert pause.ended
    assert [s.status for s in steps if s.kind == "tool_call"] == ["completed", "completed"]


async def test_leaving_after_a_model_step_pauses_before_the_next_and_iter_goes_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[int] = []
    counting(registry, ran)
    model = scripted_prompt(registry, [call("add", {"a": 1, "b": 1}), text("two")],
                            tools=["add"])  # fmt: skip
    thread = await rt.create_thread("p")
    async with thread.iter("go") as run:
        async for record in run:
            if record.kind == "tool_call":
                break
    assert thread.status == "waiting"
    assert len(model.requests) == 1  # the model step after the call was not sent
    assert thread.steps()[-1].reason == "before_model"
    async with thread.iter() as run:  # no message: it goes on from the history
        rest = [record async for record in run]
    assert [s.kind for s in rest] == ["pause", "model"]  # the pause ended when it went on
    assert run.result is not None
    assert run.result.text == "two"
    assert len(model.requests) == 2
    assert ran == [2]


async def test_a_child_is_created_before_its_first_step_comes(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead = create_then(lambda ref: text("all done"))
    tl.define_prompt("lead", prompt="Lead.", model=lead, registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    async with thread.iter("go") as run:
        seen = [record async for record in run]
    (child,) = thread.children
    (created,) = [s for s in seen if s.event == "created"]
    own = [s for s in seen if s.thread_id == child.id]
    assert own
    assert all(seen.index(created) < seen.index(s) for s in own)
    (creating,) = [s for s in seen if s.name == "subagent_create" and s.kind == "tool_call"]
    assert created.parent_id == creating.id
    assert sorted(s.id for s in seen) == sorted(s.id for s in thread.steps())


async def test_step_mode_pauses_as_send_does(rt: tl.Runtime, registry: tl.Registry) -> None:
    scripted_prompt(registry, [text("hello")])
    thread = await rt.create_thread("p")
    async with thread.iter("hi", step="model") as run:
        seen = [record async for record in run]
    assert [(s.kind, s.reason, s.status) for s in seen] == [("pause", "before_model", "waiting")]
    assert run.result is not None
    assert run.result.stop_reason == "waiting: model step"


async def test_an_error_in_the_loop_pauses_the_run_and_cancelling_interrupts_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[int] = []
    counting(registry, ran)
    scripted_prompt(registry, [call("add", {"a": 1, "b": 1}), call("add", {"a": 2, "b": 2}),
                               text("done")], tools=["add"])  # fmt: skip
    thread = await rt.create_thread("p")
    with pytest.raises(ValueError, match="the caller's own"):
        async with thread.iter("go") as run:
            async for record in run:
                if record.kind == "tool_call":
                    raise ValueError("the caller's own error")
    assert (thread.status, ran) == ("waiting", [2])  # paused, nothing lost
    assert (await thread.resume()).text == "done"

    scripted_prompt(registry, [call("add", {"a": 5, "b": 5}), text("never")], tools=["add"],
                    name="q")  # fmt: skip
    other = await rt.create_thread("q")

    async def follow() -> None:
        async with other.iter("go") as run:
            async for _ in run:
                await asyncio.sleep(10)  # cancelled here

    task = asyncio.ensure_future(follow())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert other.status != "running"
    assert all(m.tool_call_id for m in other.messages if m.role == "tool")


async def test_iter_on_a_busy_thread_with_step_mode_is_refused(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    hold = asyncio.Event()

    async def wait(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await hold.wait()
        return "ok"

    tl.define_tool("wait", description="Wait.", execute=wait, registry=registry)
    scripted_prompt(registry, [call("wait"), text("done")], tools=["wait"])
    thread = await rt.create_thread("p")
    running = asyncio.ensure_future(thread.send("go"))
    await asyncio.sleep(0.1)
    with pytest.raises(tl.ThreadBusyError, match="step mode needs a run of its own"):
        thread.iter("more", step="model")
    hold.set()
    await running
