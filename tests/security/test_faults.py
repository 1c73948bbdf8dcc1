"""Faults that must end as a valid history: values too deep to store, a second cancel during
clean-up, a timed-out sync tool that keeps going."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, text

from ..helpers import scripted_prompt, tool_messages


def nested(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [101, 300, 1100])
async def test_arguments_nested_too_deep_are_an_error_result_and_the_message_is_kept(
    rt: tl.Runtime, registry: tl.Registry, depth: int
) -> None:
    tl.define_tool(
        "t",
        description="T.",
        execute=lambda s, a: "ran",
        args={"type": "object"},
        registry=registry,
    )
    scripted_prompt(registry, [call("t", raw_arguments=nested(depth)), text("ok")], tools=["t"])
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool", "assistant"]
    (result,) = tool_messages(thread)
    assert result.tool_status == "error"
    assert "nested deeper than 100 levels" in (result.content or "")


async def test_arguments_at_the_limit_are_accepted(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_tool(
        "t",
        description="T.",
        execute=lambda s, a: "ran",
        args={"type": "object"},
        registry=registry,
    )
    scripted_prompt(registry, [call("t", raw_arguments=nested(99)), text("ok")], tools=["t"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert tool_messages(thread)[0].content == "ran"


@pytest.mark.parametrize("wrap", [False, True], ids=["value", "tool-result"])
async def test_a_tool_returning_a_value_too_deep_gets_an_error_result(
    rt: tl.Runtime, registry: tl.Registry, wrap: bool
) -> None:
    def deep(state: tl.ThreadState, args: Any) -> Any:
        value: list[Any] = []
        for _ in range(10_000):
            value = [value]
        return tl.ToolResult(result=value) if wrap else value

    tl.define_tool("deep", description="Deep.", execute=deep, registry=registry)
    scripted_prompt(registry, [call("deep"), text("ok")], tools=["deep"])
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    (result,) = tool_messages(thread)
    assert result.tool_status == "error"
    assert "nested deeper than 100 levels" in (result.content or "")


async def test_a_model_failure_names_the_model_that_failed(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    model = ScriptedModel([])  # out of steps at once
    tl.define_prompt("p", prompt="x", model=model, registry=registry)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "failed"
    assert run.error is not None
    assert run.error.startswith(f"model {model.name!r} failed")


async def test_a_second_cancel_during_clean_up_still_leaves_every_call_one_result(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    entered = asyncio.Event()

    async def hang(state: tl.ThreadState, args: Any) -> str:
        entered.set()
        await asyncio.Event().wait()
        return "never"

    tl.define_tool("hang", description="Hang.", execute=hang, registry=registry)
    tl.define_prompt(
        "work",
        prompt="Work.",
        model=ScriptedModel([call("hang")]),
        tools=["hang"],
        registry=registry,
    )
    tl.define_tool("finish", description="Finish.", execute=lambda s, a: "done", registry=registry)
    tl.define_prompt("check", prompt="Check.", registry=registry)
    tl.define_agent(
        "helper",
        type="dual_ai",
        side_a=tl.Side("work", session_stop="finish"),
        side_b="check",
        registry=registry,
    )
    create = call("subagent_create", {"agent": "helper", "name": "w", "message": "go"})
    lead = ScriptedModel([create, call("hang")])
    tl.define_prompt("lead", prompt="Lead.", model=lead, tools=["hang"], registry=registry)
    tl.define_agent(
        "boss",
        side_a=tl.Side("lead", subagents=[tl.Subagent("helper", blocking=False)]),
        registry=registry,
    )
    thread = await rt.create_thread("boss")
    task = asyncio.ensure_future(thread.send("start"))
    for _ in range(500):
        await asyncio.sleep(0.01)
        if entered.is_set() and len(thread.children) == 1 and len(tool_messages(thread)) == 1:
            break
    await asyncio.sleep(0.05)
    task.cancel()
    for _ in range(3):  # a second cancel lands while the children are being cleaned up
        await asyncio.sleep(0)
        task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)
    reopened = tl.Runtime(registry, rt.store)
    for handle in (reopened.thread(thread.id), *reopened.thread(thread.id).children):
        messages = handle.all_messages()
        calls = sorted(c.id for m in messages for c in m.tool_calls)
        results = sorted(m.tool_call_id or "" for m in messages if m.role == "tool")
        assert calls == results, handle.agent


async def test_a_timed_out_sync_tool_cannot_write_into_the_thread_afterwards(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    import time

    refused: list[str] = []

    def late(state: tl.ThreadState, args: Any) -> str:
        time.sleep(0.5)
        for attempt in (
            lambda: state.sync.write_file("/late.txt", "too late"),
            lambda: state.emit("late", {"n": 1}),
            lambda: state.sync.queue_message("too late"),
        ):
            try:
                attempt()
            except tl.CallContextError as exc:
                refused.append(str(exc))
        return "finished late"

    tl.define_tool("late", description="Late.", execute=late, timeout=0.1, registry=registry)
    scripted_prompt(registry, [call("late"), text("ok")], tools=["late"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    await asyncio.sleep(1.0)  # the abandoned pooled thread wakes up and tries
    assert len(refused) == 3
    assert all("abandoned" in reason for reason in refused)
    assert await thread.files.list() == []
    assert not [e for e in thread.events if e.type == "custom"]
    assert not rt.store.has_queued(thread.id)
    (result,) = tool_messages(thread)
    assert result.content == "tool 'late' timed out after 0.1 s"
