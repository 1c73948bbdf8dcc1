"""The conformance rules: validate arguments, execute sequentially in returned order, persist
every result (and every error) as a message before advancing."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

import threadlab as tl
from threadlab.models import call, step, text

from ..helpers import scripted_prompt, tool_messages


@dataclasses.dataclass
class Stamp:
    day: datetime.date
    tags: set[str]


class Point(BaseModel):
    x: int
    y: int


class Shape(BaseModel):
    name: str
    points: list[Point]


async def test_invalid_arguments_become_an_error_result_listing_each_problem_with_its_path(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[Any] = []
    tl.define_tool(
        "draw",
        description="Draw.",
        args=Shape,
        execute=lambda s, a: ran.append(a),
        registry=registry,
    )
    bad = {"name": 3, "points": [{"x": 1, "y": 2}, {"x": "nope"}]}
    model = scripted_prompt(registry, [call("draw", bad), text("ok")], tools=["draw"])
    thread = await rt.create_thread("p")
    run = await thread.send("draw")
    assert run.status == "completed"
    (result,) = tool_messages(thread)
    assert result.tool_status == "error"
    assert "invalid arguments for tool 'draw'" in (result.content or "")
    assert "- name: Input should be a valid string" in (result.content or "")
    assert "- points[1].x: Input should be a valid integer" in (result.content or "")
    assert "- points[1].y: Field required" in (result.content or "")
    assert ran == []
    model.assert_complete()


async def test_json_schema_arguments_are_validated_with_paths(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["tags"],
        "additionalProperties": False,
    }
    tl.define_tool(
        "tag", description="Tag.", args=schema, execute=lambda s, a: a, registry=registry
    )
    scripted_prompt(registry, [call("tag", {"tags": ["a", 2], "x": 1}), text("ok")], tools=["tag"])
    thread = await rt.create_thread("p")
    await thread.send("tag")
    (result,) = tool_messages(thread)
    assert result.tool_status == "error"
    assert "- tags[1]: 2 is not of type 'string'" in (result.content or "")
    assert "Additional properties are not allowed ('x' was unexpected)" in (result.content or "")


async def test_valid_arguments_reach_execute_as_the_model_instance(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    seen: list[Any] = []

    def draw(state: tl.ThreadState, args: Shape) -> str:
        seen.append(args)
        return "drawn"

    tl.define_tool(
        "draw",
        description="Draw.",
        args=Shape,
        execute=draw,
        registry=registry,
    )
    scripted_prompt(
        registry,
        [call("draw", {"name": "tri", "points": [{"x": 1, "y": 2}]}), text("ok")],
        tools=["draw"],
    )
    thread = await rt.create_thread("p")
    await thread.send("draw")
    assert seen == [Shape(name="tri", points=[Point(x=1, y=2)])]
    assert tool_messages(thread)[0].content == "drawn"


async def test_malformed_json_arguments_become_an_error_result(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("echo", description="Echo.", execute=lambda s, a: "x", registry=registry)
    scripted_prompt(
        registry, [call("echo", raw_arguments='{"text": "unterminated'), text("ok")], tools=["echo"]
    )
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    assistant = thread.messages[1]
    assert assistant.tool_calls[0].arguments == '{"text": "unterminated'
    (result,) = tool_messages(thread)
    assert result.tool_status == "error"
    assert (result.content or "").startswith("the arguments are not valid JSON")
    assert '{"text": "unterminated' in (result.content or "")


async def test_arguments_that_are_json_but_not_an_object_are_rejected(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("echo", description="Echo.", execute=lambda s, a: "x", registry=registry)
    scripted_prompt(registry, [call("echo", raw_arguments="[1, 2]"), text("ok")], tools=["echo"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert "must be a JSON object" in (tool_messages(thread)[0].content or "")


async def test_unknown_tool_is_an_error_result_naming_the_tools_on_offer(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("real", description="Real.", execute=lambda s, a: "x", registry=registry)
    tl.define_tool(
        "hidden", description="Not offered.", execute=lambda s, a: "no", registry=registry
    )
    scripted_prompt(registry, [step(call("ghost"), call("hidden")), text("ok")], tools=["real"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    ghost, hidden = tool_messages(thread)
    assert ghost.tool_status == "error"
    assert ghost.content == "unknown tool 'ghost'; the tools on offer are: real"
    # Registered but not offered to this prompt: unknown too.
    assert hidden.tool_status == "error"
    assert (hidden.content or "").startswith("unknown tool 'hidden'")


async def test_an_exception_in_execute_is_persisted_as_an_error_and_the_loop_goes_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    def boom(state: tl.ThreadState, args: Any) -> str:
        raise ValueError("disk on fire")

    tl.define_tool("boom", description="Fails.", execute=boom, registry=registry)
    model = scripted_prompt(registry, [call("boom"), call("boom"), text("gave up")], tools=["boom"])
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    assert run.text == "gave up"
    results = tool_messages(thread)
    assert [m.content for m in results] == ["ValueError: disk on fire"] * 2
    assert all(m.tool_status == "error" for m in results)
    # The model saw the error as a tool result on its next call.
    last_request = model.requests[-1]
    assert last_request.messages[-1].content == "ValueError: disk on fire"


async def test_tools_run_sequentially_in_returned_order_even_when_async(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    spans: list[tuple[str, float, float]] = []

    async def slow(state: tl.ThreadState, args: dict[str, Any]) -> str:
        start = time.perf_counter()
        await asyncio.sleep(0.05 if args["tag"] == "first" else 0.0)
        spans.append((args["tag"], start, time.perf_counter()))
        return str(args["tag"])

    schema = {"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]}
    tl.define_tool("slow", description="Slow.", args=schema, execute=slow, registry=registry)
    calls = [call("slow", {"tag": t}) for t in ("first", "second", "third")]
    scripted_prompt(
        registry, [step(*calls), text("done")], tools=["slow"], parallel_tool_calls=True
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert [s[0] for s in spans] == ["first", "second", "third"]
    for earlier, later in itertools.pairwise(spans):
        assert earlier[2] <= later[1]  # no overlap
    assert [m.content for m in tool_messages(thread)] == ["first", "second", "third"]


async def test_each_result_is_persisted_before_the_next_tool_starts(
    rt: tl.Runtime, registry: tl.Registry, store_dir: Any
) -> None:
    observed: list[list[str | None]] = []

    def look(state: tl.ThreadState, args: Any) -> str:
        # A second Runtime reads the store itself: what it sees is what is persisted.
        other = tl.Runtime(registry, store_dir, secret_key="test-key")
        persisted = [m.content for m in other.thread(state.thread_id).messages if m.role == "tool"]
        other.close()
        observed.append(persisted)
        return f"result {len(observed)}"

    tl.define_tool("look", description="Look.", execute=look, registry=registry)
    scripted_prompt(
        registry, [step(call("look"), call("look"), call("look")), text("ok")], tools=["look"]
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert observed == [[], ["result 1"], ["result 1", "result 2"]]


async def test_a_timed_out_async_tool_is_cancelled_and_reported(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    cancelled = asyncio.Event()

    async def hang(state: tl.ThreadState, args: Any) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    tl.define_tool("hang", description="Hangs.", execute=hang, timeout=0.05, registry=registry)
    scripted_prompt(registry, [call("hang"), text("ok")], tools=["hang"])
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    assert tool_messages(thread)[0].content == "tool 'hang' timed out after 0.05 s"
    assert cancelled.is_set()


async def test_a_timed_out_sync_tool_is_abandoned_and_its_late_result_never_persisted(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    release = asyncio.Event()
    loop = asyncio.get_running_loop()
    import threading

    finished = threading.Event()

    def stuck(state: tl.ThreadState, args: Any) -> str:
        finished.wait(2)
        loop.call_soon_threadsafe(release.set)
        return "late result"

    tl.define_tool("stuck", description="Stuck.", execute=stuck, timeout=0.05, registry=registry)
    scripted_prompt(registry, [call("stuck"), text("ok")], tools=["stuck"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    finished.set()
    await asyncio.wait_for(release.wait(), 5)
    await asyncio.sleep(0.01)
    contents = [m.content for m in thread.all_messages()]
    assert "tool 'stuck' timed out after 0.05 s" in contents
    assert "late result" not in contents


async def test_non_string_results_are_stored_as_json_and_strings_verbatim(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("d", description="Dict.", execute=lambda s, a: {"n": 1}, registry=registry)
    tl.define_tool("s", description="Str.", execute=lambda s, a: '{"raw"', registry=registry)
    tl.define_tool(
        "r",
        description="Result.",
        execute=lambda s, a: tl.ToolResult("error", error="nope"),
        registry=registry,
    )
    tl.define_tool("m", description="Model.", execute=lambda s, a: Shape(name="l", points=[
        Point(x=1, y=2)]), registry=registry)  # fmt: skip
    tl.define_tool("dc", description="Dataclass.", registry=registry,
                   execute=lambda s, a: Stamp(datetime.date(2026, 12, 3), {"b"}))  # fmt: skip
    tl.define_tool("bad", description="Object.", execute=lambda s, a: object(), registry=registry)
    calls = step(call("d"), call("s"), call("r"), call("m"), call("dc"), call("bad"))
    scripted_prompt(registry, [calls, text("ok")], tools=["d", "s", "r", "m", "dc", "bad"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    d, s, r, m, dc, bad = tool_messages(thread)
    assert (d.content, d.tool_status) == ('{"n": 1}', "success")
    assert s.content == '{"raw"'
    assert (r.content, r.tool_status) == ("nope", "error")
    assert m.content == '{"name": "l", "points": [{"x": 1, "y": 2}]}'  # as pydantic writes it
    assert dc.content == '{"day": "2026-12-03", "tags": ["b"]}'
    assert bad.tool_status == "error"
    assert "not JSON-serialisable" in (bad.content or "")


async def test_consecutive_failure_budget_stops_a_runaway_run_cleanly(
    registry: tl.Registry, store_dir: Any
) -> None:
    tl.define_tool("fail", description="Fails.", execute=lambda s, a: 1 / 0, registry=registry)
    model = tl.models.FunctionModel(lambda messages, tools: call("fail"))
    tl.define_prompt("p", prompt="x", model=model, tools=["fail"], registry=registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k", max_consecutive_failures=3)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "stopped"
    assert "3 consecutive tool calls failed" in (run.error or "")
    assert len(tool_messages(thread)) == 3
    finished = [e for e in thread.events if e.type == "run_finished"]
    assert finished[-1].status == "stopped"
    rt.close()


async def test_calls_after_the_budget_is_spent_get_results_without_running(
    registry: tl.Registry, store_dir: Any
) -> None:
    ran: list[int] = []

    def fail(state: tl.ThreadState, args: Any) -> str:
        ran.append(1)
        raise RuntimeError("x")

    tl.define_tool("fail", description="Fails.", execute=fail, registry=registry)
    scripted_prompt(registry, [step(*[call("fail")] * 4)], tools=["fail"])
    rt = tl.Runtime(registry, store_dir, secret_key="k", max_consecutive_failures=2)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "stopped"
    assert len(ran) == 2
    results = tool_messages(thread)
    assert len(results) == 4  # every call still has exactly one result
    assert (results[3].content or "").startswith("not run:")
    rt.close()


async def test_max_steps_ends_the_turn_with_status_stopped(
    registry: tl.Registry, store_dir: Any
) -> None:
    tl.define_tool("ok", description="Fine.", execute=lambda s, a: "fine", registry=registry)
    model = tl.models.FunctionModel(lambda messages, tools: call("ok"))
    tl.define_prompt("p", prompt="x", model=model, tools=["ok"], registry=registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k", max_steps=4)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "stopped"
    assert "max_steps (4)" in (run.error or "")
    assert len(tool_messages(thread)) == 4
    rt.close()


async def test_a_model_failure_ends_the_run_as_failed_without_raising(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    def broken(messages: Any, tools: Any) -> Any:
        raise ConnectionError("provider unreachable")

    tl.define_prompt("p", prompt="x", model=tl.models.FunctionModel(broken), registry=registry)
    thread = await rt.create_thread("p")
    run = await thread.send("hi")
    assert run.status == "failed"
    assert run.error == "model 'broken' failed: provider unreachable"
    assert [m.role for m in thread.messages] == ["user"]


async def test_a_script_that_runs_out_fails_the_run_with_a_clear_error(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("ok", description="Fine.", execute=lambda s, a: "fine", registry=registry)
    scripted_prompt(registry, [call("ok")], tools=["ok"])
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "failed"
    assert "ScriptedModel has no steps left" in (run.error or "")


async def test_stop_tool_ends_the_turn(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_tool("finish", description="Done.", execute=lambda s, a: "bye", registry=registry)
    scripted_prompt(registry, [call("finish"), text("never")], tools=["finish"])
    tl.define_agent(
        "a", side_a=tl.Side("p", stop_tool="finish", stop_on_response=False), registry=registry
    )
    thread = await rt.create_thread("a")
    run = await thread.send("go")
    assert run.status == "completed"
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool"]


async def test_a_redefined_tool_is_used_from_the_next_step(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("v", description="Version.", execute=lambda s, a: "one", registry=registry)

    def redefine(state: tl.ThreadState, args: Any) -> str:
        tl.define_tool("v", description="Version.", execute=lambda s, a: "two", registry=registry)
        return "redefined"

    tl.define_tool("redefine", description="Swap.", execute=redefine, registry=registry)
    scripted_prompt(
        registry,
        [step(call("v"), call("redefine"), call("v")), call("v"), text("ok")],
        tools=["v", "redefine"],
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    # Within one step the definitions of that step are used; the next step sees the new one.
    assert [m.content for m in tool_messages(thread)] == ["one", "redefined", "one", "two"]


async def test_tl_run_refuses_inside_a_running_loop() -> None:
    with pytest.raises(RuntimeError, match=r"use `thread = await rt\.create_thread"):
        tl.run("anything", "hi")


def test_tl_run_runs_a_thread_synchronously(registry: tl.Registry, store_dir: Any) -> None:
    tl.define_prompt("hello", prompt="Say hi.", registry=registry)
    run = tl.run("hello", "hi there", registry=registry, store=store_dir, secret_key="k")
    assert run.status == "completed"
    assert run.text == "(offline model) You said: hi there"


@pytest.mark.parametrize(
    "make",
    [
        lambda: tl.ToolResult(status="success", result={"ok": True}),
        lambda: tl.ToolResult("success", result={"ok": True}),
        lambda: tl.ToolResult(result={"ok": True}),
    ],
    ids=["keyword", "positional", "default"],
)
async def test_a_tool_result_may_name_its_status_by_keyword_or_position(
    rt: tl.Runtime, registry: tl.Registry, make: Callable[[], tl.ToolResult]
) -> None:
    tl.define_tool("check", description="Check.", execute=lambda s, a: make(), registry=registry)
    scripted_prompt(registry, [call("check"), text("ok")], tools=["check"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    (result,) = tool_messages(thread)
    assert (result.tool_status, result.content) == ("success", '{"ok": true}')


async def test_an_unknown_thread_id_raises_thread_not_found(rt: tl.Runtime) -> None:
    with pytest.raises(tl.ThreadNotFoundError, match="no thread 'thr_missing'"):
        rt.thread("thr_missing")
