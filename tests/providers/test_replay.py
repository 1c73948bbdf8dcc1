"""The fix-a-tool-and-replay loop over a real provider's stream: a thread on the OpenAI
protocol calls a tool with a bug; the tool is fixed and the thread run again on a
`ReplayModel` of the first: no model call until the fixed tool's result differs, then the
fallback model takes over. An unchanged replay calls no model and repeats the history."""

from __future__ import annotations

from typing import Any

import threadlab as tl

from ._protocols import chat_chunks, chat_frames
from ._server import Reply, ScriptedServer
from ._setup import KEY, arguments, remote_prompt

ADD = ("call_add", "add", arguments({"a": 2, "b": 3}))


def shapes(thread: tl.Thread) -> list[tuple[Any, ...]]:
    """A history without its message ids and times."""
    return [
        (m.role, m.content, [(c.id, c.name, c.arguments) for c in m.tool_calls], m.tool_call_id)
        for m in thread.messages
    ]


def define_add(registry: tl.Registry, *, fixed: bool) -> None:
    def add(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return str(args["a"] + args["b"]) if fixed else str(args["a"] - args["b"])

    tl.define_tool(
        "add",
        description="Add two integers.",
        args={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
        execute=add,
        registry=registry,
    )


async def recorded_thread(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> tl.Thread:
    remote_prompt(registry, server, "openai", tools=("add",))
    define_add(registry, fixed=False)  # the bug: it subtracts
    server.reply(
        Reply(frames=chat_frames(chat_chunks(calls=[ADD]))),
        Reply(frames=chat_frames(chat_chunks("2 + 3 = -1"))),
    )
    thread = await rt.create_thread("p", secrets={"OPENAI_API_KEY": KEY})
    assert (await thread.send("What is 2 + 3?")).status == "completed"
    assert len(server.requests) == 2
    return thread


async def test_a_fixed_tool_replays_until_its_result_differs_then_the_fallback_answers(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    old = await recorded_thread(rt, registry, server)
    define_add(registry, fixed=True)  # the user re-runs the tool's cell
    replay = tl.models.ReplayModel(old, fallback="remote")
    server.reply(Reply(frames=chat_frames(chat_chunks("2 + 3 = 5"))))
    again = await rt.create_thread("p", model=replay, secrets={"OPENAI_API_KEY": KEY})
    run = await again.send("What is 2 + 3?")
    assert (run.status, run.text) == ("completed", "2 + 3 = 5")
    assert (replay.calls_replayed, replay.calls_forwarded) == (1, 1)
    assert len(server.requests) == 3  # one model call, after the fixed result
    tool_result = server.requests[2].body["messages"][-1]
    assert (tool_result["role"], tool_result["content"]) == ("tool", "5")
    assert shapes(again)[:2] == shapes(old)[:2]  # the same question, the same recorded call


async def test_an_unchanged_replay_calls_no_model_and_repeats_the_history(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    old = await recorded_thread(rt, registry, server)
    replay = tl.models.ReplayModel(old)
    again = await rt.create_thread("p", model=replay, secrets={"OPENAI_API_KEY": KEY})
    run = await again.send("What is 2 + 3?")
    assert run.status == "completed"
    assert len(server.requests) == 2  # none made by the replay
    assert (replay.calls_replayed, replay.calls_forwarded) == (2, 0)
    assert shapes(again) == shapes(old)
    events = [e for e in again.events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [e.name for e in events] == ["add"]  # cards behave as live


async def test_without_a_fallback_a_divergence_fails_the_run_naming_the_difference(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    old = await recorded_thread(rt, registry, server)
    define_add(registry, fixed=True)
    again = await rt.create_thread(
        "p", model=tl.models.ReplayModel(old), secrets={"OPENAI_API_KEY": KEY}
    )
    run = await again.send("What is 2 + 3?")
    assert run.status == "failed"
    assert run.error is not None
    assert run.error.startswith(
        "diverged at step 2: message 3 is the result of add (call_add): '5'"
    )
    assert "the recording had the result of add (call_add): '-1'" in run.error
    assert len(server.requests) == 2
